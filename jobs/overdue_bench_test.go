package jobs

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// The overdue benchmark's data, per company: contracts with ten invoices
// each.
const (
	overdueBenchContracts    = 100_000
	benchInvoicesPerContract = 10
)

// benchOverdueDate is the date of the benchmark's runs.
const benchOverdueDate = "2026-11-24"

// BenchmarkOverdue measures the nightly overdue recalculation of one
// company with 1,000,000 invoices and 100,000 contracts: the
// finance:overdue job (worker time, from its start to its recorded
// result) beside a hand-written bare UPDATE of the same rows (one
// statement for the invoices, one for the contracts, one transaction, no
// chunks, no history), each on its own company seeded alike in the same
// tables; then each again on the same date, which writes nothing. Before
// the numbers are reported, both companies must have changed the same
// rows to the same values. Each run seeds anew, so run it once per count:
//
//	go test -run '^$' -bench Overdue -benchtime 1x -count 3 ./jobs
func BenchmarkOverdue(b *testing.B) {
	if b.N != 1 {
		b.Fatal("run with -benchtime 1x: each run needs the seeded state")
	}
	ctx := context.Background()
	pool := benchPool(b)
	ours, bare := seedOverdueBench(b, pool, "Ours"), seedOverdueBench(b, pool, "Bare")
	if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) persons, contracts, invoices`); err != nil {
		b.Fatal(err)
	}
	// No vacuum nor analyze in the background while the runs are timed:
	// one started by the first run's writes (the bare update's 381,742
	// dead rows) ran during the second and slowed it alone.
	for _, table := range []string{"invoices", "invoice_history", "contracts", "contract_payment_marks", "invoice_status_marks"} {
		if _, err := pool.Exec(ctx, `ALTER TABLE `+table+` SET (autovacuum_enabled = false)`); err != nil {
			b.Fatal(err)
		}
	}
	kinds, err := Kinds(KindsConfig{})
	if err != nil {
		b.Fatal(err)
	}
	stop := startBenchWorker(b, pool, kinds)
	defer stop()

	bareFirst, bareCounts := bareOverdue(b, pool, bare)
	jobFirst, res := benchOverdueJob(b, pool, kinds, ours)
	if res.Invoices != bareCounts[0] || res.Contracts != bareCounts[1] {
		b.Fatalf("the job wrote %d invoices and %d contracts, the bare update %v", res.Invoices, res.Contracts, bareCounts)
	}
	sameOverdueRows(b, pool, ours, bare)
	// The same date again; the first job deleted so that its key is free.
	if _, err := pool.Exec(ctx, `DELETE FROM jobs WHERE company_id = $1`, ours); err != nil {
		b.Fatal(err)
	}
	jobAgain, again := benchOverdueJob(b, pool, kinds, ours)
	bareAgain, bareAgainCounts := bareOverdue(b, pool, bare)
	if again.Invoices != 0 || again.Contracts != 0 || bareAgainCounts != [2]int64{} {
		b.Fatalf("second runs wrote: job %+v, bare %v", again, bareAgainCounts)
	}
	b.Logf("changed: %d invoices, %d contracts; the re-run recalculated %d contracts", res.Invoices, res.Contracts, again.ContractsVisited)
	b.ReportMetric(jobFirst.Seconds(), "job-s")
	b.ReportMetric(bareFirst.Seconds(), "bare-s")
	b.ReportMetric(jobFirst.Seconds()/bareFirst.Seconds(), "job/bare")
	b.ReportMetric(jobAgain.Seconds(), "job-rerun-s")
	b.ReportMetric(bareAgain.Seconds(), "bare-rerun-s")
	b.ReportMetric(0, "ns/op")
}

// seedOverdueBench seeds a company with 1,000 persons, 100,000 contracts
// and ten invoices each, due a month apart from 270 days before the date
// to a few days after it (the day of the month by contract); the first
// six are paid except for every seventh contract, a few are canceled, and
// every open one is stored unpaid, as before any run.
func seedOverdueBench(b *testing.B, pool *pgxpool.Pool, name string) int64 {
	ctx := context.Background()
	company, _, err := storage.EnsureCompany(ctx, pool, name)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET session_replication_role = replica"); err != nil {
		b.Logf("foreign keys checked while seeding: %v", err)
	}
	defer conn.Exec(ctx, "RESET session_replication_role") //nolint:errcheck // the connection goes back to the pool either way
	stmts := []string{
		`INSERT INTO persons (company_id, name) SELECT $1, 'Pessoa ' || g FROM generate_series(1, 1000) g`,
		`INSERT INTO businesses (company_id, name) VALUES ($1, 'Imobiliária')`,
		`INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM businesses WHERE company_id = $1`,
		`INSERT INTO contracts (company_id, type, tenant_id)
		 SELECT $1, 'rent', p0 + g % 1000 FROM (SELECT min(id) AS p0 FROM persons WHERE company_id = $1) p,
		 generate_series(1, ` + strconv.Itoa(overdueBenchContracts) + `) g`,
		`INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
		        status, paid, paid_at, description, total, date, due_date)
		 SELECT $1, 'contract', c.tenant_id, c.id, a.business_id, a.id, 'ticket',
		        CASE WHEN v.paid THEN 'paid' WHEN (c.k + n) % 97 = 0 THEN 'canceled' ELSE 'unpaid' END,
		        v.paid, CASE WHEN v.paid THEN v.due END, 'Aluguel', 1500, v.due - 10, v.due
		 FROM (SELECT *, id - min(id) OVER () AS k FROM contracts WHERE company_id = $1) c
		      CROSS JOIN (SELECT * FROM accounts WHERE company_id = $1 LIMIT 1) a,
		      generate_series(0, ` + strconv.Itoa(benchInvoicesPerContract-1) + `) n,
		      LATERAL (SELECT '` + benchOverdueDate + `'::date - 270 + 30 * n + (c.k % 28)::int AS due,
		                      n < 6 AND c.k % 7 <> 0 AS paid) v
		 ORDER BY c.id, n`,
	}
	for _, s := range stmts {
		t0 := time.Now()
		if _, err := conn.Exec(ctx, s, company); err != nil {
			b.Fatalf("%.60s: %v", s, err)
		}
		b.Logf("%s %.40s: %s", name, s, time.Since(t0).Round(10*time.Millisecond))
	}
	return company
}

// startBenchWorker runs a relay and a worker until the returned stop.
func startBenchWorker(b *testing.B, pool *pgxpool.Pool, kinds *Registry) (stop func()) {
	redis := storagetest.NewRedis(b)
	p := &platform{pool: pool, redis: redis, kinds: kinds}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	relay := NewRelay(RelayConfig{Pool: pool, Redis: p.redisOpt(), Kinds: kinds, Logger: log})
	worker := NewWorker(WorkerConfig{Pool: pool, Redis: p.redisOpt(), Kinds: kinds, Concurrency: 2, Logger: log})
	var running sync.WaitGroup
	running.Add(2)
	go func() { defer running.Done(); relay.Run(ctx) }()  //nolint:errcheck // returns nil
	go func() { defer running.Done(); worker.Run(ctx) }() //nolint:errcheck // returns nil
	return func() { cancel(); running.Wait(); relay.Close() }
}

// benchOverdueJob runs finance:overdue for company on the benchmark's
// date and returns its worker time and result.
func benchOverdueJob(b *testing.B, pool *pgxpool.Pool, kinds *Registry, company int64) (time.Duration, OverdueResult) {
	ctx := context.Background()
	job, _, err := kinds.Submit(ctx, pool, company, Submission{Kind: KindFinanceOverdue,
		Payload: mustJSON(DatePayload{Date: benchOverdueDate}), SubmittedBy: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	for !job.Finished() {
		time.Sleep(5 * time.Millisecond)
		if job, err = storage.GetJob(ctx, pool, company, job.ID); err != nil {
			b.Fatal(err)
		}
	}
	if job.State != storage.JobSucceeded {
		b.Fatalf("job %s: %s", job.State, job.Error)
	}
	var res OverdueResult
	if err := json.Unmarshal(job.Result, &res); err != nil {
		b.Fatal(err)
	}
	return job.FinishedAt.Sub(*job.StartedAt), res
}

// bareOverdue is the hand-written set-based update of the same rows: the
// invoices in one statement, the contracts in another, one transaction.
// It returns its time and how many invoices and contracts it wrote.
func bareOverdue(b *testing.B, pool *pgxpool.Pool, company int64) (time.Duration, [2]int64) {
	ctx := context.Background()
	var counts [2]int64
	start := time.Now()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE invoices
			SET status = CASE WHEN due_date < $2::date THEN 'overdue' ELSE 'unpaid' END, updated_at = now()
			WHERE company_id = $1 AND NOT paid AND status IN ('unpaid', 'overdue')
				AND status <> CASE WHEN due_date < $2::date THEN 'overdue' ELSE 'unpaid' END`, company, benchOverdueDate)
		if err != nil {
			return err
		}
		counts[0] = tag.RowsAffected()
		tag, err = tx.Exec(ctx, `UPDATE contracts c SET payment_status = n.s, payment_status_date = $2, updated_at = now()
			FROM (SELECT c.id, CASE
					WHEN NOT coalesce(i.counted, false) THEN 'nothing'
					WHEN i.oldest IS NULL THEN 'ok'
					WHEN $2::date - i.oldest > 90 THEN '3_months'
					WHEN $2::date - i.oldest > 30 THEN 'month'
					WHEN $2::date - i.oldest > 4 THEN '30_days'
					WHEN $2::date - i.oldest > 0 THEN '5_days'
					WHEN i.oldest - $2::date <= 5 THEN 'due_5_days'
					WHEN i.oldest - $2::date <= 10 THEN 'due_10_days'
					ELSE 'ok' END AS s
				FROM contracts c LEFT JOIN (
					SELECT contract_id, bool_or(status <> 'canceled') AS counted,
						min(due_date) FILTER (WHERE NOT paid AND status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible')) AS oldest
					FROM invoices WHERE company_id = $1 GROUP BY contract_id) i ON i.contract_id = c.id
				WHERE c.company_id = $1) n
			WHERE c.company_id = $1 AND c.id = n.id AND (c.payment_status <> n.s OR c.payment_status_date IS NULL)`,
			company, benchOverdueDate)
		counts[1] = tag.RowsAffected()
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(start), counts
}

// sameOverdueRows fails unless both companies' invoices and contracts,
// seeded alike, hold the same statuses in the same order.
func sameOverdueRows(b *testing.B, pool *pgxpool.Pool, ours, bare int64) {
	var differ int64
	err := pool.QueryRow(context.Background(), `WITH o AS (
			SELECT row_number() OVER (ORDER BY id) AS n, status FROM invoices WHERE company_id = $1),
		r AS (SELECT row_number() OVER (ORDER BY id) AS n, status FROM invoices WHERE company_id = $2),
		oc AS (SELECT row_number() OVER (ORDER BY id) AS n, payment_status || payment_status_date AS s FROM contracts WHERE company_id = $1),
		rc AS (SELECT row_number() OVER (ORDER BY id) AS n, payment_status || payment_status_date AS s FROM contracts WHERE company_id = $2)
		SELECT (SELECT count(*) FROM o FULL JOIN r USING (n) WHERE o.status IS DISTINCT FROM r.status)
			+ (SELECT count(*) FROM oc FULL JOIN rc USING (n) WHERE oc.s IS DISTINCT FROM rc.s)`, ours, bare).Scan(&differ)
	if err != nil {
		b.Fatal(err)
	}
	if differ != 0 {
		b.Fatalf("%d rows differ between the job and the bare update", differ)
	}
}
