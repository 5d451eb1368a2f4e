package jobs

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

func cpu(t *testing.T, label string) {
	out, _ := exec.Command("bash", "-c", `ps -eo cputimes,comm | awk '{s[$2]+=$1} END {for (k in s) if (s[k]>0) print k, s[k]}' | grep -E "postgres|redis|jobs.test"`).Output()
	t.Logf("%s\n%s", label, out)
}

func TestStages(t *testing.T) {
	if os.Getenv("STAGES") == "" {
		t.Skip()
	}
	b := &testing.B{}
	_ = b
	storagetest.NewDB(t)
	pool := benchPoolT(t)
	r := storagetest.NewRedis(t)
	opt := asynq.RedisClientOpt{Addr: r.Addr, PoolSize: 40}
	noop := Define("bench:noop", Options{}, func(context.Context, *Run, struct{}) (any, error) { return nil, nil })
	kinds, _ := Kinds(KindsConfig{}, noop)
	company, _, _ := storage.EnsureCompany(context.Background(), pool, "Bench")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	forEachSubmitter(5000, 10, func() {
		kinds.Submit(ctx, pool, company, Submission{Kind: "bench:noop", SubmittedBy: "bench"})
	})
	t.Logf("submit: %v", time.Since(start))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	relay := NewRelay(RelayConfig{Pool: pool, Redis: opt, Kinds: kinds, Logger: log})
	start = time.Now()
	for {
		n, err := relay.RelayOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	t.Logf("relay: %v", time.Since(start))
	cpu(t, "before work")
	worker := NewWorker(WorkerConfig{Pool: pool, Redis: opt, Kinds: kinds, Concurrency: 16, Logger: log})
	start = time.Now()
	go worker.Run(ctx)
	for {
		var left int
		pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE state <> 'succeeded'`).Scan(&left)
		if left == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("work: %v", time.Since(start))
	cpu(t, "after work")
}

func benchPoolT(t *testing.T) *pgxpool.Pool {
	pool, _ := pgxpool.New(context.Background(), storagetest.URL(t)+"&pool_max_conns=40")
	t.Cleanup(pool.Close)
	return pool
}
