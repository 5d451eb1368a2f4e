package storage_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// seedWebhookEvents writes n events of a company, one a minute back from
// age ago, each with a delivery made with it: delivered, every 500th
// pending.
func seedWebhookEvents(b *testing.B, pool *pgxpool.Pool, company int64, n int, age string) {
	b.Helper()
	_, err := pool.Exec(context.Background(), `WITH we AS (
			INSERT INTO webhook_endpoints (company_id, url, secret, active) VALUES ($1, 'https://example.com/h', 'whsec_x', false) RETURNING id),
		ev AS (INSERT INTO webhook_events (company_id, type, data, created_at)
			SELECT $1, 'invoice.paid', '{"id": 1, "status": "paid", "total": 2350.00}', now() - $3::interval - g * interval '1 minute'
			FROM generate_series(1, $2) g RETURNING id, created_at)
		INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, status, created_at)
		SELECT $1, we.id, ev.id, CASE WHEN ev.id % 500 = 0 THEN 'pending' ELSE 'delivered' END, ev.created_at FROM we, ev`,
		company, n, age)
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPruneWebhookEvents: the prune of one company's 20,000 events
// older than the retention, with their deliveries, among ten companies'
// (200,000 events and deliveries in all); and the nightly prune of a
// company that has nothing old.
func BenchmarkPruneWebhookEvents(b *testing.B) {
	pool := storagetest.NewDB(b)
	ctx := context.Background()
	const perCompany = 20_000
	var companies []int64
	for i := range 10 {
		c, _, err := storage.EnsureCompany(ctx, pool, fmt.Sprint("Prune ", i))
		if err != nil {
			b.Fatal(err)
		}
		companies = append(companies, c)
		seedWebhookEvents(b, pool, c, perCompany, "1 day")
	}
	cutoff := time.Now().Add(-30 * 24 * time.Hour)
	b.Run("old", func(b *testing.B) {
		var pruned storage.Pruned
		for range b.N {
			b.StopTimer()
			seedWebhookEvents(b, pool, companies[3], perCompany, "31 days")
			if _, err := pool.Exec(ctx, `ANALYZE webhook_events, webhook_deliveries`); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			n, err := storage.PruneWebhookEvents(ctx, pool, companies[3], cutoff, 1000)
			if err != nil {
				b.Fatal(err)
			}
			pruned.Events += n.Events
			pruned.Deliveries += n.Deliveries
		}
		b.ReportMetric(float64(pruned.Events)/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(float64(pruned.Events)/float64(b.N), "events/op")
	})
	b.Run("nothing old", func(b *testing.B) {
		for range b.N {
			if n, err := storage.PruneWebhookEvents(ctx, pool, companies[5], cutoff, 1000); err != nil || n.Events != 0 {
				b.Fatal(n, err)
			}
		}
	})
}
