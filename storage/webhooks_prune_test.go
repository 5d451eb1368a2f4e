package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestPruneWebhookEventsSparesAResendInFlight: the prune goes through the
// old events batch by batch, and an old event whose resend is being
// written (its new delivery not committed yet) is neither waited for nor
// deleted: once the resend commits, the event and its pending delivery
// are there. A delete that only looked for waiting deliveries would wait
// for the resend's lock and then delete the event, its new delivery with
// it.
func TestPruneWebhookEventsSparesAResendInFlight(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	ctx := context.Background()
	company, _, err := storage.EnsureCompany(ctx, pool, "Prune Webhooks")
	if err != nil {
		t.Fatal(err)
	}
	var hook, resent int64
	if err := pool.QueryRow(ctx, `INSERT INTO webhook_endpoints (company_id, url, secret, active)
		VALUES ($1, 'https://example.com/h', 'whsec_x', false) RETURNING id`, company).Scan(&hook); err != nil {
		t.Fatal(err)
	}
	// six events of 40 days ago, each delivered
	if err := pool.QueryRow(ctx, `WITH ev AS (
			INSERT INTO webhook_events (company_id, type, data, created_at)
			SELECT $1, 'invoice.paid', '{}', now() - interval '40 days' FROM generate_series(1, 6) RETURNING id),
		d AS (INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, status, created_at)
			SELECT $1, $2, id, 'delivered', now() - interval '40 days' FROM ev)
		SELECT max(id) FROM ev`, company, hook).Scan(&resent); err != nil {
		t.Fatal(err)
	}
	// the last one is being resent
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // committed below
	if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id) VALUES ($1, $2, $3)`,
		company, hook, resent); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		n   storage.Pruned
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		n, err := storage.PruneWebhookEvents(ctx, pool, company, time.Now().Add(-30*24*time.Hour), 2)
		done <- outcome{n, err}
	}()
	var got outcome
	select {
	case got = <-done:
	case <-time.After(3 * time.Second):
		t.Error("the prune waited for the resend")
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got == (outcome{}) {
		got = <-done
	}
	if got.err != nil || got.n != (storage.Pruned{Events: 5, Deliveries: 5}) {
		t.Errorf("pruned %+v (%v), want 5 events and their 5 deliveries", got.n, got.err)
	}
	var statuses []string
	if err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(d.status ORDER BY d.id), '{}') FROM webhook_events ev
		JOIN webhook_deliveries d ON d.company_id = ev.company_id AND d.event_id = ev.id
		WHERE ev.company_id = $1`, company).Scan(&statuses); err != nil {
		t.Fatal(err)
	}
	if len(statuses) != 2 || statuses[1] != storage.DeliveryPending {
		t.Errorf("left: deliveries %q, want the resent event's delivered one and its new pending one", statuses)
	}
}

// TestResendOfAnEventBeingPrunedIsNotFound: a resend that meets the prune
// of its event (the prune holds the event; the new delivery's key to it
// waits, then finds it gone) answers NotFound, as it does once the prune
// has committed, and writes nothing.
func TestResendOfAnEventBeingPrunedIsNotFound(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	ctx := context.Background()
	company, _, err := storage.EnsureCompany(ctx, pool, "Prune Resend")
	if err != nil {
		t.Fatal(err)
	}
	var hook, event, delivery int64
	if err := pool.QueryRow(ctx, `WITH we AS (
			INSERT INTO webhook_endpoints (company_id, url, secret) VALUES ($1, 'https://example.com/h', 'whsec_x') RETURNING id),
		ev AS (INSERT INTO webhook_events (company_id, type, data, created_at)
			VALUES ($1, 'invoice.paid', '{}', now() - interval '40 days') RETURNING id),
		d AS (INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, status, created_at)
			SELECT $1, we.id, ev.id, 'delivered', now() - interval '40 days' FROM we, ev RETURNING id)
		SELECT we.id, ev.id, d.id FROM we, ev, d`, company).Scan(&hook, &event, &delivery); err != nil {
		t.Fatal(err)
	}
	prune, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer prune.Rollback(ctx) //nolint:errcheck // committed below
	if _, err := prune.Exec(ctx, `SELECT 1 FROM webhook_events WHERE company_id = $1 AND id = $2 FOR UPDATE`, company, event); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := storage.ResendDelivery(ctx, pool, company, hook, delivery)
		done <- err
	}()
	waitForALockWait(t, pool)
	if _, err := prune.Exec(ctx, `DELETE FROM webhook_events WHERE company_id = $1 AND id = $2`, company, event); err != nil {
		t.Fatal(err)
	}
	if err := prune.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; finance.ErrorCode(err) != finance.NotFound {
		t.Errorf("resend: %v, want not found", err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM webhook_deliveries WHERE company_id = $1)
		+ (SELECT count(*) FROM jobs WHERE company_id = $1)`, company).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d deliveries and jobs left (%v)", left, err)
	}
}

// waitForALockWait waits until a session of the database waits for a
// lock.
func waitForALockWait(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var waiting bool
		if err := pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
	}
	t.Fatal("no session waits for a lock")
}
