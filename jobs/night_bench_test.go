package jobs

import (
	"context"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage/storagetest"
)

// nightConcurrency is the worker's concurrency in the night benchmark
// (PROPFIN_BENCH_NIGHT_CONCURRENCY overrides it).
const nightConcurrency = 8

// BenchmarkNight measures a night of many companies: 1,000 and 10,000
// companies (PROPFIN_BENCH_NIGHT_COMPANIES lists others), each seeded
// alike by COPY from a template company (seedNightTemplate: four
// contracts, three invoices, three owners, a ledger posting), for which
// the scheduler fires every schedule for one date (owners:statements
// made to fire that day too), while a relay and one worker run the jobs.
// It reports the time from the firing to the last job finished
// (night-s), jobs per second, and the CPU time of the database's
// backends; beside it, in the same run and on the same data before the
// night, the bare statements of the night's writes for every company at
// once (bareNight: set-based, one transaction, rolled back).
// PROPFIN_BENCH_NIGHT_TIMES=1 times the night's statements from Go
// (storagetest.StatementTimes) and logs them. Run it once per count:
//
//	go test -run '^$' -bench Night -benchtime 1x -timeout 60m ./jobs
func BenchmarkNight(b *testing.B) {
	sizes := []int{1_000, 10_000}
	if v := os.Getenv("PROPFIN_BENCH_NIGHT_COMPANIES"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("PROPFIN_BENCH_NIGHT_COMPANIES=%q: %v", v, err)
			}
			sizes = append(sizes, n)
		}
	}
	concurrency := nightConcurrency
	if v := os.Getenv("PROPFIN_BENCH_NIGHT_CONCURRENCY"); v != "" {
		concurrency, _ = strconv.Atoi(v)
	}
	for _, n := range sizes {
		b.Run("companies="+itoa(n), func(b *testing.B) {
			if b.N != 1 {
				b.Fatal("run with -benchtime 1x: each run seeds its night")
			}
			benchNight(b, n, concurrency)
		})
	}
}

// benchNight seeds n companies, times the bare statements, then the night.
func benchNight(b *testing.B, n, concurrency int) {
	ctx := context.Background()
	var times *storagetest.StatementTimes
	pool := benchPool(b)
	if os.Getenv("PROPFIN_BENCH_NIGHT_TIMES") != "" {
		times = &storagetest.StatementTimes{}
		pool = timedPool(b, times)
	}
	sp, err := time.LoadLocation(DefaultTimeZone)
	if err != nil {
		b.Fatal(err)
	}
	// yesterday, in the companies' zone: every firing of the date is past,
	// and invoices:remind takes yesterday
	d := nightDatesOf(finance.DateOf(time.Now().In(sp)).AddDays(-1))
	seedStart := time.Now()
	seedNightIndices(b, pool, d)
	template := seedNightTemplate(b, pool, d)
	companies := cloneCompanies(b, pool, template, n)
	seeded, unwritten := seededTables(b, pool)
	exec(b, pool, `VACUUM ANALYZE `+seeded)
	b.Logf("%d companies seeded in %s (night of %s)", len(companies), time.Since(seedStart).Round(time.Millisecond), d.Night)

	var bare readjustMeasure
	bare.measure(ctx, pool, func() time.Duration { return bareNight(b, pool, d) })
	// the bare statements' rows, rolled back, leave the tables the night
	// fills as they were: never written
	exec(b, pool, `TRUNCATE `+unwritten)
	exec(b, pool, `VACUUM ANALYZE `+seeded)

	kinds := nightKinds(b)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sched, err := NewScheduler(SchedulerConfig{Pool: pool, Kinds: kinds, Schedules: nightSchedules(), Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	redis := storagetest.NewRedis(b)
	opt := asynq.RedisClientOpt{Addr: redis.Addr, DB: redis.DB, PoolSize: 40}
	runCtx, cancel := context.WithCancel(ctx)
	relay := NewRelay(RelayConfig{Pool: pool, Redis: opt, Kinds: kinds, Logger: log})
	worker := NewWorker(WorkerConfig{Pool: pool, Redis: opt, Kinds: kinds, Concurrency: concurrency,
		CompanyChunks: DefaultCompanyChunks, Logger: log})
	var running sync.WaitGroup
	running.Add(2)
	go func() { defer running.Done(); relay.Run(runCtx) }()  //nolint:errcheck // returns nil
	go func() { defer running.Done(); worker.Run(runCtx) }() //nolint:errcheck // returns nil
	defer func() { cancel(); running.Wait(); relay.Close() }()
	time.Sleep(500 * time.Millisecond) // the worker's connections open before the clock starts

	if times != nil {
		times.Reset()
	}
	loadBefore := loadAverage()
	var night readjustMeasure
	var fired time.Duration
	night.measure(ctx, pool, func() time.Duration {
		start := time.Now()
		from := time.Date(d.Night.Year(), d.Night.Month(), d.Night.Day(), 0, 0, 0, 0, sp).Add(-time.Second)
		if err := sched.Fire(ctx, from, from.Add(24*time.Hour)); err != nil {
			b.Fatal(err)
		}
		fired = time.Since(start)
		return waitNight(b, pool, time.Hour).Sub(start)
	})
	loads := loadBefore + " to " + loadAverage()
	jobs := nightCount(b, pool, `SELECT count(*) FROM jobs`)
	if want := int64(len(companies) * len(nightSchedules())); jobs != want {
		b.Fatalf("%d jobs, want %d", jobs, want)
	}
	logNight(b, pool, d)
	if times != nil {
		b.Logf("the night's statements, timed from Go:\n%s", times.Report())
	}
	b.Logf("%d companies, %d jobs: night %s (fired in %s), bare statements %s; load %s",
		len(companies), jobs, night.last(), fired.Round(time.Millisecond), bare.last(), loads)
	night.report(b, "night", 1)
	bare.report(b, "bare", 1)
	b.ReportMetric(float64(jobs)/night.lastWall.Seconds(), "jobs/s")
	b.ReportMetric(night.lastWall.Seconds()/bare.lastWall.Seconds(), "night/bare")
	b.ReportMetric(fired.Seconds(), "fire-s")
	b.ReportMetric(0, "ns/op")
}

// seededTables lists, for VACUUM ANALYZE and TRUNCATE, the tables the
// seeding wrote and those it left empty (but those that a foreign key of
// a table not truncated refers to). The night meets the statistics a
// database has: the tables that hold rows analyzed, and the others (the
// statements, their months and lines, the overdue state, the jobs...) as
// a table nobody has written is, never analyzed, which the planner takes
// for ten pages, since autovacuum analyzes a table only once it is
// written. Analyzed empty (a VACUUM ANALYZE of the whole database), they
// are planned as empty: a connection's plans made at the start of the night
// read them whole (a sequential scan, the cheapest way through no rows)
// and are kept while every company's run adds its rows, until autovacuum
// analyzes them, about a minute later; each company's statements and
// foreign-key checks then read the rows of every company before it, a
// cost that grows as the square of the companies. A running database's
// tables hold earlier nights' rows and are analyzed with them.
func seededTables(b *testing.B, pool *pgxpool.Pool) (seeded, unwritten string) {
	b.Helper()
	rows, err := pool.Query(context.Background(), `SELECT c.oid::regclass::text FROM pg_class c
		WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace ORDER BY 1`)
	if err != nil {
		b.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	var with, without []string
	for _, t := range tables {
		if nightCount(b, pool, `SELECT count(*) FROM (SELECT FROM `+t+` LIMIT 1) AS one`) > 0 {
			with = append(with, t)
		} else {
			without = append(without, t)
		}
	}
	// an empty table that a foreign key of a table not truncated refers to
	// (its column null) cannot be truncated; none is written by the bare
	// statements
	rows, err = pool.Query(context.Background(), `SELECT conrelid::regclass::text, confrelid::regclass::text
		FROM pg_constraint WHERE contype = 'f'`)
	if err != nil {
		b.Fatal(err)
	}
	type fk struct{ From, To string }
	fks, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fk])
	if err != nil {
		b.Fatal(err)
	}
	kept := slices.Clone(with)
	for changed := true; changed; {
		changed = false
		for _, k := range fks {
			if slices.Contains(kept, k.From) && !slices.Contains(kept, k.To) {
				kept, changed = append(kept, k.To), true
			}
		}
	}
	without = slices.DeleteFunc(without, func(t string) bool { return slices.Contains(kept, t) })
	return strings.Join(with, ", "), strings.Join(without, ", ")
}

// timedPool is a pool of 80 connections on the test's database whose
// statements are timed in times.
func timedPool(b *testing.B, times *storagetest.StatementTimes) *pgxpool.Pool {
	b.Helper()
	cfg, err := pgxpool.ParseConfig(storagetest.URL(b) + "&pool_max_conns=80")
	if err != nil {
		b.Fatal(err)
	}
	cfg.ConnConfig.Tracer = times
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

// nightSchedules are the default schedules, owners:statements firing
// every day, so that one date fires every nightly kind.
func nightSchedules() []Schedule {
	var out []Schedule
	for _, s := range DefaultSchedules() {
		if s.Kind == KindOwnersStatements {
			s.Spec = "0 7 * * *"
		}
		out = append(out, s)
	}
	return out
}

// waitNight waits until every job has finished and returns when the last
// one did; a job that did not succeed fails the benchmark. It asks only
// whether an unfinished job is left, through the partial indexes of the
// pending and the queued or running jobs, twice a second: a count of
// every job at each look would read the whole jobs table, which grows by
// seven rows a company, as often as the night is long (a cost of the
// benchmark, in the database's CPU it reports, that grows as the square
// of the number of companies). The end is the last finished_at, however
// late the look that sees it.
func waitNight(b *testing.B, pool *pgxpool.Pool, timeout time.Duration) time.Time {
	b.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		var open bool
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM jobs WHERE state = 'pending')
			OR EXISTS (SELECT FROM jobs WHERE state IN ('queued', 'running'))`).Scan(&open)
		if err != nil {
			b.Fatal(err)
		}
		if open {
			continue
		}
		var bad int64
		var last *time.Time
		var sample *string
		err = pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state IN ('failed', 'canceled')), max(finished_at),
				min(kind || ': ' || error) FILTER (WHERE state IN ('failed', 'canceled'))
			FROM jobs`).Scan(&bad, &last, &sample)
		if err != nil {
			b.Fatal(err)
		}
		if bad > 0 {
			b.Fatalf("%d jobs did not succeed (%s)", bad, *sample)
		}
		if last != nil {
			return *last
		}
	}
	b.Fatalf("the night did not finish in %s", timeout)
	return time.Time{}
}

// logNight logs, per kind, how long its jobs ran and what they wrote.
func logNight(b *testing.B, pool *pgxpool.Pool, d nightDates) {
	b.Helper()
	rows, err := pool.Query(context.Background(), `SELECT kind, count(*),
			extract(epoch FROM sum(finished_at - started_at))::float8,
			extract(epoch FROM max(finished_at) - min(started_at))::float8,
			min(result::text)
		FROM jobs GROUP BY kind ORDER BY kind`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, result string
		var n int64
		var busy, span float64
		if err := rows.Scan(&kind, &n, &busy, &span, &result); err != nil {
			b.Fatal(err)
		}
		b.Logf("%-20s %6d jobs, %7.1f s of runs (%.1f ms each), %6.1f s from first start to last end; a result: %.200s",
			kind, n, busy, 1000*busy/float64(n), span, result)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
}

// bareNight runs the bare statements of the night's writes for every
// company at once, in one transaction rolled back, and returns their time.
func bareNight(b *testing.B, pool *pgxpool.Pool, d nightDates) time.Duration {
	b.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // rolled back on purpose
	start := time.Now()
	for _, s := range bareNightStatements {
		t0 := time.Now()
		var args []any
		if strings.Contains(s.sql, "$1") {
			args = append(args, d.Night.Time())
		}
		tag, err := tx.Exec(ctx, s.sql, args...)
		if err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		b.Logf("bare %-28s %8d rows in %s", s.name, tag.RowsAffected(), time.Since(t0).Round(time.Millisecond))
	}
	return time.Since(start)
}

// bareNightStatements are the night's writes, set-based over every
// company, $1 the night's date.
var bareNightStatements = []struct{ name, sql string }{
	// finance:overdue
	{"overdue: invoices", `UPDATE invoices SET status = 'overdue', updated_at = now()
		WHERE NOT paid AND status = 'unpaid' AND due_date < $1::date`},
	{"overdue: their history", `INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes)
		SELECT company_id, id, 'job', 1, 'overdue', '[{"to": "overdue", "from": "unpaid", "field": "status"}]'
		FROM invoices WHERE NOT paid AND status = 'overdue' AND due_date < $1::date`},
	{"overdue: contracts", `UPDATE contracts c SET payment_status = n.s, payment_status_date = $1::date, updated_at = now()
		FROM (SELECT c.company_id, c.id, CASE
				WHEN NOT coalesce(i.counted, false) THEN 'nothing'
				WHEN i.oldest IS NULL THEN 'ok'
				WHEN $1::date - i.oldest > 90 THEN '3_months'
				WHEN $1::date - i.oldest > 30 THEN 'month'
				WHEN $1::date - i.oldest > 4 THEN '30_days'
				WHEN $1::date - i.oldest > 0 THEN '5_days'
				WHEN i.oldest - $1::date <= 5 THEN 'due_5_days'
				WHEN i.oldest - $1::date <= 10 THEN 'due_10_days'
				ELSE 'ok' END AS s
			FROM contracts c LEFT JOIN (
				SELECT company_id, contract_id, bool_or(status <> 'canceled') AS counted,
					min(due_date) FILTER (WHERE NOT paid AND status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible')) AS oldest
				FROM invoices GROUP BY company_id, contract_id) i ON i.company_id = c.company_id AND i.contract_id = c.id) n
		WHERE c.company_id = n.company_id AND c.id = n.id AND (c.payment_status IS DISTINCT FROM n.s OR c.payment_status_date IS NULL)`},
	{"overdue: state", `INSERT INTO overdue_state (company_id, pass, as_of_low, as_of_high, last_job, sweep_job)
		SELECT id, p, $1::date, $1::date, 1, 1 FROM companies, unnest('{invoices,contracts}'::text[]) AS p
		ON CONFLICT DO NOTHING`},
	// contracts:readjust
	{"readjust: contracts", `UPDATE contracts SET current_amount = round(coalesce(current_amount, amount) * 1.0483388, 2),
			readjusted_at = readjust_at, readjust_at = (readjust_at + interval '12 months')::date, updated_at = now()
		WHERE readjust_active AND active = 'active' AND status IN ('progress', 'readjust') AND readjust_at <= $1::date`},
	{"readjust: rent lines", `UPDATE invoice_items ii SET amount = 2096.68, updated_at = now()
		FROM invoices i, contracts c, transaction_items t
		WHERE i.company_id = ii.company_id AND i.id = ii.invoice_id AND c.company_id = i.company_id AND c.id = i.contract_id
		  AND c.readjusted_at = $1::date AND NOT i.paid AND i.period_initial >= $1::date
		  AND t.company_id = ii.company_id AND t.id = ii.item_id AND t.type = 'rent'`},
	{"readjust: invoice totals", `UPDATE invoices i SET total = i.total + 96.68, updated_at = now() FROM contracts c
		WHERE c.company_id = i.company_id AND c.id = i.contract_id AND c.readjusted_at = $1::date AND NOT i.paid AND i.period_initial >= $1::date`},
	{"readjust: their history", `INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes, note)
		SELECT i.company_id, i.id, 'job', 1, 'readjust', '[{"to": 2446.68, "from": 2350.00, "field": "total"},
			{"to": 2096.68, "from": 2000.00, "field": "items[1].amount"}]', 'rent readjusted on ' || $1::date::text
		FROM invoices i JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		WHERE c.readjusted_at = $1::date AND NOT i.paid AND i.period_initial >= $1::date`},
	{"readjust: records", `INSERT INTO contract_readjustments (company_id, contract_id, readjust_at, outcome, indicator, index_used, months,
			factor, variation, old_amount, new_amount, next_readjust_at, invoices_updated, actor, actor_id)
		SELECT company_id, id, $1::date, 'readjusted', readjust_indicator, 'IPCA',
			'{2025-12,2026-01,2026-02,2026-03,2026-04,2026-05,2026-06,2026-07,2026-08,2026-09,2026-10,2026-11}',
			1.0483387840833372, 4.8339, 2000, 2096.68, readjust_at, 1, 'job', 1
		FROM contracts WHERE readjusted_at = $1::date`},
	// invoices:generate
	{"generate: invoices", `INSERT INTO invoices (company_id, type, contract_id, payer_id, building_id, business_id, account_id,
			billing_id, billing_method, description, total, date, due_date, period_initial, period_final,
			ticket_late_fee, ticket_late_fee_percentage, ticket_late_fee_interest)
		SELECT company_id, 'contract', id, tenant_id, building_id, business_id, account_id, billing_id, billing_method,
			'Aluguel', 2350.00, $1::date, due_date, start_at, (start_at + interval '1 month' - interval '1 day')::date,
			ticket_late_fee, ticket_late_fee_percentage, ticket_late_fee_interest
		FROM contracts WHERE active = 'active' AND billing_id IS NOT NULL`},
	{"generate: lines", `INSERT INTO invoice_items (company_id, invoice_id, item_id, amount, description)
		SELECT i.company_id, i.id, t.id, 2000.00, 'Aluguel' FROM invoices i
			JOIN transaction_items t ON t.company_id = i.company_id AND t.type = 'rent'
		WHERE i.billing_id IS NOT NULL AND i.date = $1::date
		UNION ALL
		SELECT i.company_id, i.id, ci.item_id, ci.amount, ci.description FROM invoices i
			JOIN contract_items ci ON ci.company_id = i.company_id AND ci.contract_id = i.contract_id
		WHERE i.billing_id IS NOT NULL AND i.date = $1::date`},
	{"generate: history", `INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes, note)
		SELECT company_id, id, 'job', 1, 'create', '[]', 'generated from contract ' || contract_id
		FROM invoices WHERE billing_id IS NOT NULL AND date = $1::date`},
	// contracts:transfer
	{"transfer: entries", `INSERT INTO transactions (company_id, split, invoice_id, morph_key, mode, type, account_id, business_id,
			person_id, building_id, contract_id, owner_id, extract, date, position, amount, competence, description, paid,
			due_date, transfer_key)
		SELECT e.company_id, 'invoice-' || e.invoice_id || '-owner-' || e.owner_id || '-transfer-1', e.invoice_id, 'invoice',
			'transfer', 'transfer', e.account_id, e.business_id, e.owner_id, e.building_id, e.contract_id, e.owner_id, 'owner',
			$1::date, 0, sum(CASE WHEN e.type = 'credit' THEN e.amount ELSE -e.amount END), min(e.competence), 'Repasse: Aluguel', true,
			min(e.date), 'invoice-' || e.invoice_id || '-owner-' || e.owner_id || '-transfer-1'
		FROM transactions e JOIN invoices i ON i.company_id = e.company_id AND i.id = e.invoice_id
		WHERE e.mode = 'invoice' AND e.extract = 'owner' AND i.paid AND i.auto_transfer_status = 'waiting'
		GROUP BY e.company_id, e.invoice_id, e.owner_id, e.account_id, e.business_id, e.building_id, e.contract_id`},
	{"transfer: entries paid out", `UPDATE transactions e SET transfer_id = t.id, updated_at = now() FROM transactions t
		WHERE t.company_id = e.company_id AND t.invoice_id = e.invoice_id AND t.owner_id = e.owner_id AND t.mode = 'transfer'
		  AND e.mode = 'invoice' AND e.extract = 'owner' AND e.transfer_id IS NULL`},
	{"transfer: invoices", `UPDATE invoices SET auto_transfer_status = 'transferred', updated_at = now()
		WHERE paid AND auto_transfer_status = 'waiting'`},
	{"transfer: history", `INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes)
		SELECT company_id, id, 'job', 1, 'transfer', '[{"to": "transferred", "from": "waiting", "field": "auto_transfer_status"}]'
		FROM invoices WHERE auto_transfer_status = 'transferred'`},
	// owners:statements
	{"statements: months", `INSERT INTO owner_statement_months (company_id, month, job_id, statements, lines)
		SELECT company_id, to_char($1::date - interval '1 month', 'YYYY-MM'), 1, count(DISTINCT owner_id), count(*)
		FROM transactions WHERE mode = 'invoice' AND extract = 'owner'
		  AND date >= date_trunc('month', $1::date - interval '1 month') AND date < date_trunc('month', $1::date)
		GROUP BY company_id`},
	{"statements: statements", `INSERT INTO owner_statements (company_id, owner_id, business_id, month, opening, closing, income,
			deductions, guarantee, transfers, adjustments, shown_lines, hidden_lines, hidden_amount, job_id)
		SELECT company_id, owner_id, business_id, to_char($1::date - interval '1 month', 'YYYY-MM'), 0,
			sum(CASE WHEN type = 'credit' THEN amount ELSE -amount END), 0, 0, 0, 0, 0, 0, count(*),
			sum(CASE WHEN type = 'credit' THEN amount ELSE -amount END), 1
		FROM transactions WHERE mode = 'invoice' AND extract = 'owner'
		  AND date >= date_trunc('month', $1::date - interval '1 month') AND date < date_trunc('month', $1::date)
		GROUP BY company_id, owner_id, business_id`},
	{"statements: lines", `INSERT INTO owner_statement_lines (company_id, statement_id, position, transaction_id, section, kind, date,
			description, amount, contract_id, building_id, invoice_id, item_id, item_type, hidden, billing_method)
		SELECT e.company_id, s.id, row_number() OVER (PARTITION BY s.company_id, s.id ORDER BY e.id), e.id, 'income', 'income',
			e.date, e.description, e.amount, e.contract_id, e.building_id, e.invoice_id, e.item_id, 'rent', true, 'pix'
		FROM transactions e JOIN owner_statements s ON s.company_id = e.company_id AND s.owner_id = e.owner_id
			AND s.business_id = e.business_id AND s.month = to_char($1::date - interval '1 month', 'YYYY-MM')
		WHERE e.mode = 'invoice' AND e.extract = 'owner'`},
}
