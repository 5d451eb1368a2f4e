package jobs

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// readjustBenchContracts is the size of the readjustment benchmark.
const readjustBenchContracts = 100_000

// BenchmarkReadjustJob runs contracts:readjust over 100,000 contracts due
// on the run's date (the seven indicators in turn, each with an unpaid
// invoice of the first readjusted period whose rent line moves), and
// measures the job's worker time (started_at to finished_at). Beside it,
// in the same iteration, a bare set-based UPDATE of the same rows (new
// current_amount by one fixed factor, the dates moved): the floor of
// writing those rows at all.
//
//	go test -run '^$' -bench ReadjustJob -benchtime 3x -timeout 30m ./jobs
func BenchmarkReadjustJob(b *testing.B) {
	p := &platform{pool: benchPool(b), redis: storagetest.NewRedis(b)}
	kinds, err := Kinds(KindsConfig{})
	if err != nil {
		b.Fatal(err)
	}
	p.kinds = kinds
	ctx := context.Background()
	company, _, err := storage.EnsureCompany(ctx, p.pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	seedReadjustBench(b, p.pool, company)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	runCtx, cancel := context.WithCancel(ctx)
	relay := NewRelay(RelayConfig{Pool: p.pool, Redis: p.redisOpt(), Kinds: kinds, Logger: log})
	worker := NewWorker(WorkerConfig{Pool: p.pool, Redis: p.redisOpt(), Kinds: kinds, Concurrency: 2, Logger: log})
	var running sync.WaitGroup
	running.Add(2)
	go func() { defer running.Done(); relay.Run(runCtx) }()  //nolint:errcheck // returns nil
	go func() { defer running.Done(); worker.Run(runCtx) }() //nolint:errcheck // returns nil
	defer func() { cancel(); running.Wait(); relay.Close() }()

	var worked, bare time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		resetReadjustBench(b, p.pool, company)
		start := time.Now()
		exec(b, p.pool, `UPDATE contracts SET current_amount = round(coalesce(current_amount, amount) * 1.0483131, 2),
			readjusted_at = readjust_at, readjust_at = (readjust_at + interval '12 months')::date, updated_at = now()
			WHERE company_id = $1 AND readjust_active AND active = 'active' AND status IN ('progress', 'readjust')
			  AND readjust_at <= '2025-01-15'`, company)
		bare += time.Since(start)
		resetReadjustBench(b, p.pool, company)
		b.StartTimer()
		date := time.Date(2025, 1, 15+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		job, _, err := kinds.Submit(ctx, p.pool, company, Submission{Kind: KindContractsReadjust, Payload: mustJSON(DatePayload{Date: date})})
		if err != nil {
			b.Fatal(err)
		}
		for !job.Finished() {
			time.Sleep(20 * time.Millisecond)
			if job, err = storage.GetJob(ctx, p.pool, company, job.ID); err != nil {
				b.Fatal(err)
			}
		}
		if job.State != storage.JobSucceeded {
			b.Fatalf("job %s: %s", job.State, job.Error)
		}
		worked += job.FinishedAt.Sub(*job.StartedAt)
		b.Logf("run %d: job %.2fs (%s), bare update %.2fs", i+1, job.FinishedAt.Sub(*job.StartedAt).Seconds(), job.Result, bare.Seconds()/float64(i+1))
	}
	b.ReportMetric(worked.Seconds()/float64(b.N), "job-s/op")
	b.ReportMetric(bare.Seconds()/float64(b.N), "bare-update-s/op")
	b.ReportMetric(float64(b.N*readjustBenchContracts)/worked.Seconds(), "contracts/s")
	b.ReportMetric(0, "ns/op")
}

func exec(b *testing.B, pool *pgxpool.Pool, sql string, args ...any) {
	b.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		b.Fatalf("%s: %v", sql, err)
	}
}

// seedReadjustBench inserts the contracts, their invoices and lines.
func seedReadjustBench(b *testing.B, pool *pgxpool.Pool, company int64) {
	b.Helper()
	exec(b, pool, `WITH biz AS (INSERT INTO businesses (company_id, name) VALUES ($1, 'Bench') RETURNING id),
		acc AS (INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM biz RETURNING id),
		payer AS (INSERT INTO persons (company_id, name) VALUES ($1, 'Payer') RETURNING id),
		rent AS (INSERT INTO transaction_items (company_id, description, type) VALUES ($1, 'Aluguel', 'rent') RETURNING id),
		condo AS (INSERT INTO transaction_items (company_id, description) VALUES ($1, 'Condomínio') RETURNING id),
		c AS (INSERT INTO contracts (company_id, type, start_at, amount, readjust_active, readjust_indicator, readjust_with, readjust_at)
			SELECT $1, 'rent', '2024-01-15', 2000.00, true,
			       (ARRAY['IPCA', 'IGP-M', 'INPC', 'IPC-BR', 'IPC-FIPE', 'highest_index', 'lowest_index'])[1 + g % 7], 12, '2025-01-15'
			FROM generate_series(1, $2) g RETURNING id),
		i AS (INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
				description, total, date, due_date, period_initial, period_final)
			SELECT $1, 'contract', payer.id, c.id, biz.id, acc.id, 'ticket', 'Aluguel', 2350.00, '2025-01-15', '2025-01-20', '2025-01-15', '2025-02-14'
			FROM c, biz, acc, payer RETURNING id)
		INSERT INTO invoice_items (company_id, invoice_id, item_id, amount)
		SELECT $1, i.id, rent.id, 2000.00 FROM i, rent
		UNION ALL SELECT $1, i.id, condo.id, 350.00 FROM i, condo`, company, readjustBenchContracts)
	exec(b, pool, `VACUUM ANALYZE`)
}

// resetReadjustBench puts every contract and invoice back as seeded.
func resetReadjustBench(b *testing.B, pool *pgxpool.Pool, company int64) {
	b.Helper()
	exec(b, pool, `UPDATE contracts SET readjust_at = '2025-01-15', readjusted_at = NULL, current_amount = NULL, status = 'progress'
		WHERE company_id = $1`, company)
	exec(b, pool, `DELETE FROM contract_readjustments WHERE company_id = $1`, company)
	exec(b, pool, `DELETE FROM invoice_history WHERE company_id = $1`, company)
	exec(b, pool, `UPDATE invoice_items SET amount = 2000.00 WHERE company_id = $1 AND amount <> 350.00`, company)
	exec(b, pool, `UPDATE invoices SET total = 2350.00 WHERE company_id = $1`, company)
	exec(b, pool, `VACUUM ANALYZE`)
}
