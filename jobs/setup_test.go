package jobs

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// platform is the job platform running in the test process: a database
// and a Redis of the test's own, a relay and a worker, and two companies.
type platform struct {
	pool     *pgxpool.Pool
	redis    *storagetest.Redis
	kinds    *Registry
	companyA int64
	companyB int64
}

type platformOption func(*WorkerConfig, *RelayConfig)

func withQuietAfter(d time.Duration) platformOption {
	return func(_ *WorkerConfig, r *RelayConfig) { r.QuietAfter = d }
}

// startPlatform starts a relay and a worker for every kind of propfin
// plus extra, stopped when the test ends.
func startPlatform(t *testing.T, extra []*Kind, opts ...platformOption) *platform {
	t.Helper()
	p := newPlatform(t, extra, false)
	p.run(t, opts...)
	return p
}

// newPlatform prepares the database, Redis and kinds; run starts the
// processes. controllable Redis can be stopped and started.
func newPlatform(t *testing.T, extra []*Kind, controllable bool) *platform {
	t.Helper()
	p := &platform{pool: storagetest.NewDB(t)}
	if controllable {
		p.redis = storagetest.NewRedisProcess(t)
	} else {
		p.redis = storagetest.NewRedis(t)
	}
	kinds, err := Kinds(KindsConfig{}, extra...)
	if err != nil {
		t.Fatal(err)
	}
	p.kinds = kinds
	p.companyA = newCompany(t, p.pool, "Company A")
	p.companyB = newCompany(t, p.pool, "Company B")
	return p
}

func (p *platform) redisOpt() asynq.RedisConnOpt {
	return asynq.RedisClientOpt{Addr: p.redis.Addr, DB: p.redis.DB}
}

func (p *platform) run(t testing.TB, opts ...platformOption) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	wc := WorkerConfig{Pool: p.pool, Redis: p.redisOpt(), Kinds: p.kinds, Concurrency: 4,
		ShutdownTimeout: 2 * time.Second, RetryDelay: func(int) time.Duration { return 10 * time.Millisecond }, Logger: log}
	rc := RelayConfig{Pool: p.pool, Redis: p.redisOpt(), Kinds: p.kinds, Poll: 200 * time.Millisecond, Logger: log}
	for _, o := range opts {
		o(&wc, &rc)
	}
	ctx, cancel := context.WithCancel(context.Background())
	relay := NewRelay(rc)
	worker := NewWorker(wc)
	done := make(chan struct{}, 2)
	go func() { relay.Run(ctx); done <- struct{}{} }()  //nolint:errcheck // returns nil
	go func() { worker.Run(ctx); done <- struct{}{} }() //nolint:errcheck // returns nil
	t.Cleanup(func() {
		cancel()
		<-done
		<-done
		relay.Close()
	})
}

func newCompany(t testing.TB, pool *pgxpool.Pool, name string) int64 {
	t.Helper()
	id, _, err := storage.EnsureCompany(context.Background(), pool, name)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// submit records a job of company A and returns it.
func (p *platform) submit(t *testing.T, kind string, payload any) storage.Job {
	t.Helper()
	job, _, err := p.kinds.Submit(context.Background(), p.pool, p.companyA, Submission{
		Kind: kind, Payload: mustJSON(payload), SubmittedBy: "test"})
	if err != nil {
		t.Fatalf("submit %s: %v", kind, err)
	}
	return job
}

// wait polls a job of company A until it is in one of states.
func (p *platform) wait(t *testing.T, id int64, states ...string) storage.Job {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		job, err := storage.GetJob(context.Background(), p.pool, p.companyA, id)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(states, job.State) {
			return job
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %s after 60s (error %q); want %v", id, job.State, job.Error, states)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func decodeResult[T any](t *testing.T, job storage.Job) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(job.Result, &v); err != nil {
		t.Fatalf("job %d result %s: %v", job.ID, job.Result, err)
	}
	return v
}
