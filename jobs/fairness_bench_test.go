package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// fairnessContracts is the size of the large company's generation, one
// contract a job (PROPFIN_BENCH_FAIRNESS_CONTRACTS overrides it).
const fairnessContracts = 10_000

// fairnessSmall is how many small companies run their nightly
// generation meanwhile, and fairnessSmallContracts the contracts of each.
const (
	fairnessSmall          = 10
	fairnessSmallContracts = 100
)

// BenchmarkFairness measures what one company's bulk generation costs
// the others: the large company generates the invoices of its contracts
// one contract a job (invoices:generate {contract_id, until}, as POST
// /financial/contracts/{id}/invoicesCreate makes them), all submitted
// before the worker starts; two seconds after it starts, ten small
// companies' nightly generations are submitted. It reports when the last
// small run finished, after their submission (small-s), and when the
// large company's last job did (large-s), with no per-company limit and
// with a limit of one and of two heavy chunks (PROPFIN_JOB_COMPANY_CHUNKS),
// one worker of four, each in a fresh database, and the load average
// before and after. PROPFIN_BENCH_FAIRNESS_SCENARIO=nightly makes the
// large company's work its nightly generation instead, one job of
// chunks of 1,000 contracts; PROPFIN_BENCH_FAIRNESS_LIMITS lists the
// limits (0,1,2). Run it once a count:
//
//	go test -run '^$' -bench Fairness -benchtime 1x ./jobs
func BenchmarkFairness(b *testing.B) {
	n := fairnessContracts
	if v := os.Getenv("PROPFIN_BENCH_FAIRNESS_CONTRACTS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	nightly := os.Getenv("PROPFIN_BENCH_FAIRNESS_SCENARIO") == "nightly"
	limits := []int{0, 1, 2}
	if v := os.Getenv("PROPFIN_BENCH_FAIRNESS_LIMITS"); v != "" {
		limits = nil
		for _, f := range strings.Split(v, ",") {
			l, _ := strconv.Atoi(f)
			limits = append(limits, l)
		}
	}
	for _, limit := range limits {
		b.Run(fmt.Sprintf("limit-%d", limit), func(b *testing.B) {
			for range b.N {
				small, large, loads := benchFairness(b, n, limit, nightly)
				b.ReportMetric(small.Seconds(), "small-s")
				b.ReportMetric(large.Seconds(), "large-s")
				b.Logf("nightly %t, limit %d, %d contracts: small runs done %.1f s after submission, large done %.1f s after the start; load %s",
					nightly, limit, n, small.Seconds(), large.Seconds(), loads)
			}
		})
	}
}

// benchFairness runs the scenario once.
func benchFairness(b *testing.B, contracts, limit int, nightly bool) (small, large time.Duration, loads string) {
	b.Helper()
	ctx := context.Background()
	pool := storagetest.NewDB(b)
	kinds, err := Kinds(KindsConfig{})
	if err != nil {
		b.Fatal(err)
	}
	bigCompany, _, err := storage.EnsureCompany(ctx, pool, "Large")
	if err != nil {
		b.Fatal(err)
	}
	big := storagetest.NewBilling(b, pool, bigCompany).MonthlyContracts(b, pool, contracts, "2026-12-01", "2026-12-05")
	var smalls []int64
	for i := range fairnessSmall {
		c, _, err := storage.EnsureCompany(ctx, pool, "Small "+strconv.Itoa(i))
		if err != nil {
			b.Fatal(err)
		}
		storagetest.NewBilling(b, pool, c).MonthlyContracts(b, pool, fairnessSmallContracts, "2026-12-01", "2026-12-05")
		smalls = append(smalls, c)
	}
	if nightly {
		big = nil
		if _, _, err := kinds.Submit(ctx, pool, bigCompany, Submission{Kind: KindInvoicesGenerate,
			Payload: json.RawMessage(`{"date":"2026-11-20"}`), SubmittedBy: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	for _, id := range big {
		sub, err := NewContractGeneration(id, mustDate("2026-12-31"))
		if err != nil {
			b.Fatal(err)
		}
		sub.SubmittedBy = "bench"
		if _, _, err := kinds.Submit(ctx, pool, bigCompany, sub); err != nil {
			b.Fatal(err)
		}
	}
	redis := storagetest.NewRedis(b)
	before := loadAverage()
	start := time.Now()
	stop := runBenchWorker(b, pool, asynq.RedisClientOpt{Addr: redis.Addr, DB: redis.DB}, kinds, limit)
	defer stop()
	time.Sleep(2 * time.Second)
	submitted := time.Now()
	for _, c := range smalls {
		if _, _, err := kinds.Submit(ctx, pool, c, Submission{Kind: KindInvoicesGenerate,
			Payload: json.RawMessage(`{"date":"2026-11-20"}`), SubmittedBy: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	smallDone := waitCompanies(b, pool, smalls, time.Hour)
	largeDone := waitCompanies(b, pool, []int64{bigCompany}, time.Hour)
	return smallDone.Sub(submitted), largeDone.Sub(start), before + " to " + loadAverage()
}

func mustDate(s string) finance.Date { return finance.MustDate(s) }

// runBenchWorker starts a relay and a worker of four on pool.
func runBenchWorker(b *testing.B, pool *pgxpool.Pool, redis asynq.RedisConnOpt, kinds *Registry, limit int) func() {
	b.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	relay := NewRelay(RelayConfig{Pool: pool, Redis: redis, Kinds: kinds, Logger: log})
	worker := NewWorker(WorkerConfig{Pool: pool, Redis: redis, Kinds: kinds, Concurrency: 4, CompanyChunks: limit, Logger: log})
	done := make(chan struct{}, 2)
	go func() { relay.Run(ctx); done <- struct{}{} }()  //nolint:errcheck // returns nil
	go func() { worker.Run(ctx); done <- struct{}{} }() //nolint:errcheck // returns nil
	return func() {
		cancel()
		<-done
		<-done
		relay.Close()
	}
}

// waitCompanies waits until every job of the companies has finished and
// returns when the last one did; a job that did not succeed fails the
// benchmark.
func waitCompanies(b *testing.B, pool *pgxpool.Pool, companies []int64, timeout time.Duration) time.Time {
	b.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var open, bad int64
		var last *time.Time
		err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state IN ('pending', 'queued', 'running')),
				count(*) FILTER (WHERE state IN ('failed', 'canceled')), max(finished_at)
			FROM jobs WHERE company_id = any($1)`, companies).Scan(&open, &bad, &last)
		if err != nil {
			b.Fatal(err)
		}
		if bad > 0 {
			b.Fatalf("%d jobs did not succeed", bad)
		}
		if open == 0 && last != nil {
			return *last
		}
	}
	b.Fatalf("the jobs of %v did not finish in %s", companies, timeout)
	return time.Time{}
}

// loadAverage is the machine's 1-minute load average.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}
