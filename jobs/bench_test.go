package jobs

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/pix"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// benchConcurrency is the worker concurrency of both sides of the
// end-to-end benchmark.
const benchConcurrency = 64

// BenchmarkEndToEnd measures jobs per second through the whole platform
// (submit through the outbox, relay, a no-op handler, the recorded
// result) at 1, 10 and 100 concurrent submitters, beside bare asynq
// enqueueing and processing the same no-op on the same Redis: the ratio is
// the cost of durability. It reports jobs/s and the p50/p99 time from
// submit to done.
//
//	go test -run '^$' -bench EndToEnd -benchtime 5000x ./jobs
func BenchmarkEndToEnd(b *testing.B) {
	for _, submitters := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("platform/submitters=%d", submitters), func(b *testing.B) {
			benchPlatform(b, submitters, 0)
		})
		b.Run(fmt.Sprintf("bare-asynq/submitters=%d", submitters), func(b *testing.B) {
			benchBareAsynq(b, submitters, 0)
		})
	}
}

// BenchmarkPacedLatency submits at a steady rate below capacity, from 20
// submitters, and reports the time from submit to done: the latency a
// client sees when the workers keep up.
//
//	go test -run '^$' -bench PacedLatency -benchtime 5000x ./jobs
func BenchmarkPacedLatency(b *testing.B) {
	for _, rate := range []int{250, 1000, 1500, 2000} {
		b.Run(fmt.Sprintf("platform/rate=%d", rate), func(b *testing.B) { benchPlatform(b, 20, rate) })
		b.Run(fmt.Sprintf("bare-asynq/rate=%d", rate), func(b *testing.B) { benchBareAsynq(b, 20, rate) })
	}
}

func benchPool(b *testing.B) *pgxpool.Pool {
	storagetest.NewDB(b)
	pool, err := pgxpool.New(context.Background(), storagetest.URL(b)+"&pool_max_conns=80")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

func benchPlatform(b *testing.B, submitters, rate int) {
	pool := benchPool(b)
	redis := storagetest.NewRedis(b)
	opt := asynq.RedisClientOpt{Addr: redis.Addr, DB: redis.DB, PoolSize: 40}
	noop := Define("bench:noop", Options{}, func(context.Context, *Run, struct{}) (any, error) { return nil, nil })
	kinds, err := Kinds(KindsConfig{}, noop)
	if err != nil {
		b.Fatal(err)
	}
	company, _, err := storage.EnsureCompany(context.Background(), pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	relay := NewRelay(RelayConfig{Pool: pool, Redis: opt, Kinds: kinds, Logger: log})
	worker := NewWorker(WorkerConfig{Pool: pool, Redis: opt, Kinds: kinds, Concurrency: benchConcurrency, Logger: log})
	var running sync.WaitGroup
	running.Add(2)
	go func() { defer running.Done(); relay.Run(ctx) }()  //nolint:errcheck // returns nil
	go func() { defer running.Done(); worker.Run(ctx) }() //nolint:errcheck // returns nil
	defer func() { cancel(); running.Wait(); relay.Close() }()

	before := readJobWrites(b, pool)
	cpuBefore, cpuOK := databaseCPU(ctx, pool)
	meter := startCPU(ctx, opt)
	b.ResetTimer()
	start := time.Now()
	forEachSubmitter(b.N, submitters, rate, func() {
		if _, _, err := kinds.Submit(ctx, pool, company, Submission{Kind: "bench:noop", SubmittedBy: "bench"}); err != nil {
			b.Error(err)
		}
	})
	for {
		var left int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE state <> 'succeeded'`).Scan(&left); err != nil {
			b.Fatal(err)
		}
		if left == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	meter.report(ctx, b)
	cpuAfter, _ := databaseCPU(ctx, pool)
	rows, err := pool.Query(ctx, `SELECT extract(epoch FROM finished_at - created_at)::float8 FROM jobs`)
	if err != nil {
		b.Fatal(err)
	}
	var latencies []float64
	for rows.Next() {
		var s float64
		if err := rows.Scan(&s); err != nil {
			b.Fatal(err)
		}
		latencies = append(latencies, s)
	}
	cancel()
	running.Wait()
	pool.Close() // its backends exit, flushing their table statistics
	writes := readJobWrites(b, nil).minus(before)
	b.ReportMetric(float64(writes.inserted+writes.updated)/float64(b.N), "versions/job")
	b.ReportMetric(float64(writes.hot)/float64(b.N), "hot/job")
	if cpuOK {
		b.ReportMetric(float64(cpuAfter-cpuBefore)/float64(time.Millisecond)/float64(b.N), "dbcpu-ms/job")
	}
	report(b, elapsed, latencies)
}

// jobWrites are the row versions written to the jobs table so far: rows
// inserted, rows updated, and the updates that were HOT (no index entry
// written).
type jobWrites struct{ inserted, updated, hot int64 }

func (w jobWrites) minus(o jobWrites) jobWrites {
	return jobWrites{w.inserted - o.inserted, w.updated - o.updated, w.hot - o.hot}
}

// readJobWrites reads the jobs table's counters, on pool or, when it is
// nil, on a connection of its own (after a pool was closed: its backends
// flushed their counters when they exited, which takes a moment).
func readJobWrites(b *testing.B, pool *pgxpool.Pool) jobWrites {
	ctx := context.Background()
	if pool == nil {
		time.Sleep(200 * time.Millisecond)
		p, err := pgxpool.New(ctx, storagetest.URL(b))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		pool = p
	}
	var w jobWrites
	if err := pool.QueryRow(ctx, `SELECT n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
		WHERE relname = 'jobs'`).Scan(&w.inserted, &w.updated, &w.hot); err != nil {
		b.Fatal(err)
	}
	return w
}

func benchBareAsynq(b *testing.B, submitters, rate int) {
	redis := storagetest.NewRedis(b)
	opt := asynq.RedisClientOpt{Addr: redis.Addr, DB: redis.DB, PoolSize: 40}
	var mu sync.Mutex
	var latencies []float64
	var processed atomic.Int64
	srv := asynq.NewServer(opt, asynq.Config{Concurrency: benchConcurrency, Queues: QueueWeights,
		TaskCheckInterval: 100 * time.Millisecond, LogLevel: asynq.ErrorLevel})
	mux := asynq.NewServeMux()
	mux.HandleFunc("bench:noop", func(_ context.Context, t *asynq.Task) error {
		sent := time.Unix(0, int64(binary.BigEndian.Uint64(t.Payload())))
		mu.Lock()
		latencies = append(latencies, time.Since(sent).Seconds())
		mu.Unlock()
		processed.Add(1)
		return nil
	})
	if err := srv.Start(mux); err != nil {
		b.Fatal(err)
	}
	defer srv.Shutdown()
	client := asynq.NewClient(opt)
	defer client.Close()

	meter := startCPU(context.Background(), opt)
	b.ResetTimer()
	start := time.Now()
	forEachSubmitter(b.N, submitters, rate, func() {
		payload := binary.BigEndian.AppendUint64(nil, uint64(time.Now().UnixNano()))
		if _, err := client.Enqueue(asynq.NewTask("bench:noop", payload)); err != nil {
			b.Error(err)
		}
	})
	for processed.Load() < int64(b.N) {
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	meter.report(context.Background(), b)
	report(b, elapsed, latencies)
}

// forEachSubmitter calls submit n times from submitters goroutines, as
// fast as they can (rate 0) or at rate calls per second.
func forEachSubmitter(n, submitters, rate int, submit func()) {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if rate > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))))
				}
				submit()
			}
		}()
	}
	wg.Wait()
}

func report(b *testing.B, elapsed time.Duration, latencies []float64) {
	slices.Sort(latencies)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
	if len(latencies) > 0 {
		b.ReportMetric(latencies[len(latencies)/2]*1000, "p50-ms")
		b.ReportMetric(latencies[len(latencies)*99/100]*1000, "p99-ms")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkPixValidateJob measures one pix:validate job of 100,000
// payloads (a seventh of them broken): payloads per second of worker time
// (from the job's start to its recorded result), beside the bare loop of
// pix.Validate over the same payloads in the same run.
//
//	go test -run '^$' -bench PixValidateJob -benchtime 3x ./jobs
func BenchmarkPixValidateJob(b *testing.B) {
	payloads, _ := pixPayloads(b, MaxPixPayloads)
	b.Run("job", func(b *testing.B) {
		p := &platform{pool: benchPool(b), redis: storagetest.NewRedis(b)}
		kinds, err := Kinds(KindsConfig{})
		if err != nil {
			b.Fatal(err)
		}
		p.kinds = kinds
		company, _, err := storage.EnsureCompany(context.Background(), p.pool, "Bench")
		if err != nil {
			b.Fatal(err)
		}
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		ctx, cancel := context.WithCancel(context.Background())
		relay := NewRelay(RelayConfig{Pool: p.pool, Redis: p.redisOpt(), Kinds: kinds, Logger: log})
		worker := NewWorker(WorkerConfig{Pool: p.pool, Redis: p.redisOpt(), Kinds: kinds, Concurrency: 2, Logger: log})
		var running sync.WaitGroup
		running.Add(2)
		go func() { defer running.Done(); relay.Run(ctx) }()  //nolint:errcheck // returns nil
		go func() { defer running.Done(); worker.Run(ctx) }() //nolint:errcheck // returns nil
		defer func() { cancel(); running.Wait(); relay.Close() }()
		sub, err := NewPixValidate(payloads)
		if err != nil {
			b.Fatal(err)
		}
		var worked time.Duration
		b.ResetTimer()
		for range b.N {
			job, _, err := kinds.Submit(ctx, p.pool, company, sub)
			if err != nil {
				b.Fatal(err)
			}
			for !job.Finished() {
				time.Sleep(10 * time.Millisecond)
				if job, err = storage.GetJob(ctx, p.pool, company, job.ID); err != nil {
					b.Fatal(err)
				}
			}
			if job.State != storage.JobSucceeded {
				b.Fatalf("job %s: %s", job.State, job.Error)
			}
			worked += job.FinishedAt.Sub(*job.StartedAt)
		}
		b.ReportMetric(float64(b.N*len(payloads))/worked.Seconds(), "payloads/s")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("bare-validate", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			for _, p := range payloads {
				pix.Validate(p)
			}
		}
		b.ReportMetric(float64(b.N*len(payloads))/time.Since(start).Seconds(), "payloads/s")
		b.ReportMetric(0, "ns/op")
	})
}
