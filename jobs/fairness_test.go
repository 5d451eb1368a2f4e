package jobs

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
)

// heavyProbe counts the chunks of test:heavy in flight by company.
type heavyProbe struct {
	mu       sync.Mutex
	inFlight map[int64]int
	most     map[int64]int
}

func (h *heavyProbe) enter(company int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inFlight[company]++
	h.most[company] = max(h.most[company], h.inFlight[company])
}

func (h *heavyProbe) leave(company int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inFlight[company]--
}

type heavyPayload struct {
	Chunks int `json:"chunks"`
}

// heavyKind is a heavy kind whose chunks each hold their transaction
// 30 ms.
func heavyKind(probe *heavyProbe) *Kind {
	return Define("test:heavy", Options{Heavy: true}, func(ctx context.Context, r *Run, p heavyPayload) (any, error) {
		_, err := r.Chunks(ctx, p.Chunks, int64(p.Chunks), func(ctx context.Context, tx pgx.Tx, _ int) (any, int64, error) {
			probe.enter(r.CompanyID())
			defer probe.leave(r.CompanyID())
			_, err := tx.Exec(ctx, `SELECT pg_sleep(0.03)`)
			return nil, 1, err
		})
		return map[string]int{"chunks": p.Chunks}, err
	})
}

// TestCompanyChunkLimit: with a limit of one heavy chunk per company and
// four workers, six heavy jobs of one company never have two chunks in
// flight, the other company's small job finishes while they still run,
// and the jobs that gave way to it end succeeded with one attempt each
// (waiting spends neither an attempt nor a retry).
func TestCompanyChunkLimit(t *testing.T) {
	t.Parallel()
	probe := &heavyProbe{inFlight: map[int64]int{}, most: map[int64]int{}}
	p := newPlatform(t, []*Kind{heavyKind(probe)}, false)
	p.run(t, func(w *WorkerConfig, _ *RelayConfig) { w.CompanyChunks = 1 })
	ctx := context.Background()
	var big []int64
	for range 6 {
		big = append(big, p.submit(t, "test:heavy", heavyPayload{Chunks: 10}).ID)
	}
	time.Sleep(200 * time.Millisecond) // company A's jobs are taken first
	small, _, err := p.kinds.Submit(ctx, p.pool, p.companyB, Submission{Kind: "test:heavy", Payload: mustJSON(heavyPayload{Chunks: 2}), SubmittedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var smallDone time.Time
	for deadline := time.Now().Add(60 * time.Second); ; {
		job, err := storage.GetJob(ctx, p.pool, p.companyB, small.ID)
		if err != nil {
			t.Fatal(err)
		}
		if job.State == storage.JobSucceeded {
			smallDone = time.Now()
			if job.Attempts != 1 {
				t.Errorf("company B's job: %d attempts", job.Attempts)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("company B's job is %s after 60 s", job.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var lastBig time.Time
	for _, id := range big {
		job := p.wait(t, id, storage.JobSucceeded, storage.JobFailed)
		if job.State != storage.JobSucceeded || job.Attempts != 1 {
			t.Errorf("job %d: %s, %d attempts", id, job.State, job.Attempts)
		}
		if job.FinishedAt.After(lastBig) {
			lastBig = *job.FinishedAt
		}
	}
	if !smallDone.Before(lastBig) {
		t.Errorf("company B's job finished at %s, after company A's last (%s): it waited behind them", smallDone, lastBig)
	}
	if probe.most[p.companyA] != 1 {
		t.Errorf("company A had %d heavy chunks in flight at once, want at most 1", probe.most[p.companyA])
	}
	if n := countErrors(t, p); n != 0 {
		t.Errorf("%d errors recorded: giving way is no failure", n)
	}
}

func countErrors(t *testing.T, p *platform) int64 {
	t.Helper()
	var n int64
	if err := p.pool.QueryRow(context.Background(), `SELECT count(*) FROM job_errors`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNoCompanyChunkLimit: without the limit the same jobs run their
// chunks side by side (the probe sees it), which is what the limit
// prevents.
func TestNoCompanyChunkLimit(t *testing.T) {
	t.Parallel()
	probe := &heavyProbe{inFlight: map[int64]int{}, most: map[int64]int{}}
	p := newPlatform(t, []*Kind{heavyKind(probe)}, false)
	p.run(t)
	var big []int64
	for range 4 {
		big = append(big, p.submit(t, "test:heavy", heavyPayload{Chunks: 10}).ID)
	}
	for _, id := range big {
		p.wait(t, id, storage.JobSucceeded)
	}
	if probe.most[p.companyA] < 2 {
		t.Errorf("without a limit company A had at most %d chunks in flight; the test shows nothing", probe.most[p.companyA])
	}
}
