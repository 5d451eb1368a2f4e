package jobs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
// in the same iteration, two baselines on the same rows, each one
// transaction: the bare set-based UPDATE of the contracts (new
// current_amount by one fixed factor, the dates moved), the floor of
// writing those rows at all; and the bare writes of everything the job
// writes (the contracts, the rent lines, the invoices' totals, a history
// row per invoice and a readjustment record per contract), set-based with
// fixed values. Each also reports the CPU time of the database's backends
// (-db-cpu-s), which the machine's other loads distort less than wall
// time.
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

	var job, bare, bareAll readjustMeasure
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		for _, base := range []struct {
			m    *readjustMeasure
			sqls []string
		}{{&bare, readjustBareWrites[:1]}, {&bareAll, readjustBareWrites}} {
			resetReadjustBench(b, p.pool, company)
			base.m.measure(ctx, p.pool, func() time.Duration {
				start := time.Now()
				execAll(b, p.pool, company, base.sqls)
				return time.Since(start)
			})
		}
		resetReadjustBench(b, p.pool, company)
		b.StartTimer()
		date := time.Date(2025, 1, 15+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		var result string
		job.measure(ctx, p.pool, func() time.Duration {
			done := runReadjustBench(b, p, company, date)
			result = string(done.Result)
			return done.FinishedAt.Sub(*done.StartedAt)
		})
		b.Logf("run %d: job %s (%s); bare update %s; bare writes %s", i+1, job.last(), result, bare.last(), bareAll.last())
	}
	job.report(b, "job", b.N)
	bare.report(b, "bare-update", b.N)
	bareAll.report(b, "bare-writes", b.N)
	b.ReportMetric(float64(b.N*readjustBenchContracts)/job.wall.Seconds(), "contracts/s")
	b.ReportMetric(0, "ns/op")
}

// readjustBareWrites are the baselines' statements: the bare UPDATE of the
// contracts alone is the first; all of them, in one transaction, write
// what the job writes.
var readjustBareWrites = []string{
	`UPDATE contracts SET current_amount = round(coalesce(current_amount, amount) * 1.0483131, 2),
		readjusted_at = readjust_at, readjust_at = (readjust_at + interval '12 months')::date, updated_at = now()
		WHERE company_id = $1 AND readjust_active AND active = 'active' AND status IN ('progress', 'readjust')
		  AND readjust_at <= '2025-01-15'`,
	`UPDATE invoice_items ii SET amount = 2096.63, updated_at = now() FROM transaction_items t
		WHERE ii.company_id = $1 AND t.company_id = $1 AND t.id = ii.item_id AND t.type = 'rent'`,
	`UPDATE invoices SET total = total + 96.63, updated_at = now() WHERE company_id = $1`,
	`INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes, note)
		SELECT $1, id, 'job', 1, 'readjust', jsonb_build_array(jsonb_build_object('field', 'total', 'from', 2350, 'to', 2446.63)),
		       'rent readjusted on 2025-01-15'
		FROM invoices WHERE company_id = $1`,
	`INSERT INTO contract_readjustments (company_id, contract_id, readjust_at, outcome, indicator, index_used, months,
		factor, variation, old_amount, new_amount, next_readjust_at, invoices_updated, actor, actor_id)
		SELECT $1, id, '2025-01-15', 'readjusted', readjust_indicator, 'IPCA',
		       '{2024-01,2024-02,2024-03,2024-04,2024-05,2024-06,2024-07,2024-08,2024-09,2024-10,2024-11,2024-12}',
		       1.048313142, 4.8313, 2000, 2096.63, '2026-01-15', 1, 'job', 1
		FROM contracts WHERE company_id = $1`,
}

// execAll runs the statements in one transaction.
func execAll(b *testing.B, pool *pgxpool.Pool, company int64, sqls []string) {
	b.Helper()
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		for _, sql := range sqls {
			if _, err := tx.Exec(context.Background(), sql, company); err != nil {
				return fmt.Errorf("%s: %w", sql, err)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// runReadjustBench submits the run of date and waits until it succeeds.
func runReadjustBench(b *testing.B, p *platform, company int64, date string) storage.Job {
	b.Helper()
	ctx := context.Background()
	job, _, err := p.kinds.Submit(ctx, p.pool, company, Submission{Kind: KindContractsReadjust, Payload: mustJSON(DatePayload{Date: date})})
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
	return job
}

// readjustMeasure adds up the wall time and the database's CPU time of
// one side of the benchmark.
type readjustMeasure struct {
	wall, cpu, lastWall, lastCPU time.Duration
	cpuKnown                     bool
}

// measure runs work, which returns the wall time to count, and reads the
// database's CPU time around it.
func (m *readjustMeasure) measure(ctx context.Context, pool *pgxpool.Pool, work func() time.Duration) {
	before, ok1 := databaseCPU(ctx, pool)
	m.lastWall = work()
	after, ok2 := databaseCPU(ctx, pool)
	m.cpuKnown = ok1 && ok2
	m.lastCPU = after - before
	m.wall += m.lastWall
	m.cpu += m.lastCPU
}

func (m *readjustMeasure) last() string {
	if !m.cpuKnown {
		return fmt.Sprintf("%.2fs", m.lastWall.Seconds())
	}
	return fmt.Sprintf("%.2fs (database CPU %.2fs)", m.lastWall.Seconds(), m.lastCPU.Seconds())
}

func (m *readjustMeasure) report(b *testing.B, name string, n int) {
	b.ReportMetric(m.wall.Seconds()/float64(n), name+"-s/op")
	if m.cpuKnown {
		b.ReportMetric(m.cpu.Seconds()/float64(n), name+"-db-cpu-s/op")
	}
}

func exec(tb testing.TB, pool *pgxpool.Pool, sql string, args ...any) {
	tb.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}

// seedReadjustBench inserts the contracts, their invoices and lines.
func seedReadjustBench(b *testing.B, pool *pgxpool.Pool, company int64) {
	b.Helper()
	seedReadjustContracts(b, pool, company, readjustBenchContracts)
}

// seedReadjustContracts inserts n rent contracts of 2,000.00 due on
// 2025-01-15 (the seven indicators in turn), each with an unpaid invoice of
// the first readjusted period (rent line 2,000.00, condominium 350.00).
func seedReadjustContracts(tb testing.TB, pool *pgxpool.Pool, company int64, n int) {
	tb.Helper()
	exec(tb, pool, `WITH biz AS (INSERT INTO businesses (company_id, name) VALUES ($1, 'Bench') RETURNING id),
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
		UNION ALL SELECT $1, i.id, condo.id, 350.00 FROM i, condo`, company, n)
	exec(tb, pool, `VACUUM ANALYZE`)
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
