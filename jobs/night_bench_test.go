package jobs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
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
// once (bareNight: set-based, one transaction, rolled back). Run it once
// per count:
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
	pool := benchPool(b)
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
	exec(b, pool, `VACUUM ANALYZE`)
	b.Logf("%d companies seeded in %s (night of %s)", len(companies), time.Since(seedStart).Round(time.Millisecond), d.Night)

	var bare readjustMeasure
	bare.measure(ctx, pool, func() time.Duration { return bareNight(b, pool, d) })
	exec(b, pool, `VACUUM ANALYZE`)

	kinds, err := Kinds(KindsConfig{})
	if err != nil {
		b.Fatal(err)
	}
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
	b.Logf("%d companies, %d jobs: night %s (fired in %s), bare statements %s; load %s",
		len(companies), jobs, night.last(), fired.Round(time.Millisecond), bare.last(), loads)
	night.report(b, "night", 1)
	bare.report(b, "bare", 1)
	b.ReportMetric(float64(jobs)/night.lastWall.Seconds(), "jobs/s")
	b.ReportMetric(night.lastWall.Seconds()/bare.lastWall.Seconds(), "night/bare")
	b.ReportMetric(fired.Seconds(), "fire-s")
	b.ReportMetric(0, "ns/op")
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
// one did; a job that did not succeed fails the benchmark.
func waitNight(b *testing.B, pool *pgxpool.Pool, timeout time.Duration) time.Time {
	b.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var open, bad int64
		var last *time.Time
		var sample *string
		err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state IN ('pending', 'queued', 'running')),
				count(*) FILTER (WHERE state IN ('failed', 'canceled')), max(finished_at),
				min(kind || ': ' || error) FILTER (WHERE state IN ('failed', 'canceled'))
			FROM jobs`).Scan(&open, &bad, &last, &sample)
		if err != nil {
			b.Fatal(err)
		}
		if bad > 0 {
			b.Fatalf("%d jobs did not succeed (%s)", bad, *sample)
		}
		if open == 0 && last != nil {
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
		tag, err := tx.Exec(ctx, s.sql, d.Night.Time())
		if err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		b.Logf("bare %-28s %8d rows in %s", s.name, tag.RowsAffected(), time.Since(t0).Round(time.Millisecond))
	}
	return time.Since(start)
}

// bareNightStatements are the night's writes, set-based over every
// company, $1 the night's date.
var bareNightStatements = []struct{ name, sql string }{}

var _ = fmt.Sprint
var _ pgx.Tx
