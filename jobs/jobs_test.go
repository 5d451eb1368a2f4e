package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/pix"
	"github.com/propfin/propfin/storage"
)

// pixPayloads makes n payloads; every seventh is broken (its CRC changed).
func pixPayloads(t testing.TB, n int) (payloads []string, invalid []int) {
	t.Helper()
	for i := range n {
		p, err := pix.BuildStatic(pix.Static{Key: "pix@example.com", Name: "Imobiliaria Teste", City: "SAO PAULO",
			Amount: fmt.Sprintf("%d.%02d", 100+i, i%100), TxID: fmt.Sprintf("TX%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i%7 == 3 {
			last := p[len(p)-1]
			p = p[:len(p)-1] + map[bool]string{true: "0", false: "1"}[last != '0']
			invalid = append(invalid, i)
		}
		payloads = append(payloads, p)
	}
	return payloads, invalid
}

func TestPixValidateJobSucceeds(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	payloads, invalid := pixPayloads(t, 2_500)
	job := p.submit(t, KindPixValidate, PixValidatePayload{Payloads: payloads})
	if job.State != storage.JobPending {
		t.Fatalf("a new job is %s, want pending", job.State)
	}
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded {
		t.Fatalf("job %s: %s", done.State, done.Error)
	}
	res := decodeResult[PixJobResult](t, done)
	if res.Total != 2_500 || res.Invalid != len(invalid) || res.Valid != 2_500-len(invalid) {
		t.Fatalf("totals %d/%d/%d, want 2500/%d/%d", res.Total, res.Valid, res.Invalid, 2_500-len(invalid), len(invalid))
	}
	for i, prob := range res.Problems {
		if prob.Index != invalid[i] || !pix.Problems(prob.Problems).Has(pix.CodeCRCMismatch, pix.FieldCRC) {
			t.Fatalf("problem %d: index %d %v, want index %d with a CRC mismatch", i, prob.Index, prob.Problems, invalid[i])
		}
	}
	if done.Progress != (storage.Progress{Done: 2_500, Total: 2_500}) || done.Attempts != 1 {
		t.Errorf("progress %+v attempts %d, want 2500/2500 and 1", done.Progress, done.Attempts)
	}
	if done.StartedAt == nil || done.FinishedAt == nil || done.FinishedAt.Before(*done.StartedAt) {
		t.Errorf("timestamps: started %v finished %v", done.StartedAt, done.FinishedAt)
	}
	chunks, err := storage.JobChunkOutputs(context.Background(), p.pool, p.companyA, job.ID)
	if err != nil || len(chunks) != 0 {
		t.Errorf("chunks left after success: %d (%v)", len(chunks), err)
	}
}

func TestBadPayloadIsRefusedAtSubmit(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	for _, payload := range []string{`{"payloads": []}`, `{"payloads": "x"}`, `{"payload": ["x"]}`, `[1]`} {
		_, _, err := p.kinds.Submit(context.Background(), p.pool, p.companyA, Submission{Kind: KindPixValidate, Payload: []byte(payload)})
		var coded *finance.Error
		if !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) == 0 {
			t.Errorf("payload %s: err %v, want Invalid with problems", payload, err)
		}
	}
	_, _, err := p.kinds.Submit(context.Background(), p.pool, p.companyA, Submission{Kind: "nope:nope", Payload: []byte(`{}`)})
	if finance.ErrorCode(err) != finance.Invalid {
		t.Errorf("unknown kind: %v, want Invalid", err)
	}
	_, _, err = p.kinds.Submit(context.Background(), p.pool, p.companyA, Submission{Kind: KindPixValidate, DirectOnly: true,
		Payload: []byte(`{"payloads": ["x"]}`)})
	if finance.ErrorCode(err) != finance.Invalid {
		t.Errorf("pix:validate through POST /jobs: %v, want Invalid (not a direct kind)", err)
	}
}

// flakyPayload names how many runs of a test:flaky job fail first.
type flakyPayload struct {
	Failures int32 `json:"failures"`
}

// flakyKind fails its first payload.Failures runs, then succeeds with the
// number of the run; runs counts every run.
func flakyKind(maxRetry int, runs *atomic.Int32) *Kind {
	return Define("test:flaky", Options{MaxRetry: maxRetry}, func(_ context.Context, r *Run, p flakyPayload) (any, error) {
		n := runs.Add(1)
		if n <= p.Failures {
			return nil, finance.Errorf(finance.Invalid, "run %d failed on purpose", n)
		}
		return map[string]any{"run": n, "attempts": r.Job.Attempts}, nil
	})
}

func TestFailingJobEndsFailedAfterItsRetries(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	p := startPlatform(t, []*Kind{flakyKind(2, &runs)})
	job := p.submit(t, "test:flaky", flakyPayload{Failures: 100})
	done := p.wait(t, job.ID, storage.JobFailed, storage.JobSucceeded)
	if done.State != storage.JobFailed || done.Attempts != 3 || runs.Load() != 3 {
		t.Fatalf("state %s attempts %d runs %d, want failed after 3 runs (1 + 2 retries)", done.State, done.Attempts, runs.Load())
	}
	if done.Error != "run 3 failed on purpose" || done.FinishedAt == nil || done.Result != nil {
		t.Errorf("error %q finished %v result %s", done.Error, done.FinishedAt, done.Result)
	}
}

func TestTransientFailureIsRetriedToSuccess(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	p := startPlatform(t, []*Kind{flakyKind(5, &runs)})
	job := p.submit(t, "test:flaky", flakyPayload{Failures: 2})
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	res := decodeResult[map[string]int](t, done)
	if done.State != storage.JobSucceeded || done.Attempts != 3 || res["run"] != 3 || res["attempts"] != 3 {
		t.Fatalf("state %s attempts %d result %v, want succeeded on the third run", done.State, done.Attempts, res)
	}
}

func TestAnOutageSpendsNoRetry(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	k := Define("test:outage", Options{MaxRetry: 1}, func(context.Context, *Run, struct{}) (any, error) {
		if runs.Add(1) <= 3 {
			return nil, finance.Errorf(finance.Unavailable, "The database does not answer.")
		}
		return "done", nil
	})
	p := startPlatform(t, []*Kind{k})
	done := p.wait(t, p.submit(t, "test:outage", struct{}{}).ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded || done.Attempts != 4 {
		t.Fatalf("state %s after %d attempts, want succeeded on the 4th: three outages spend none of the 1 retry", done.State, done.Attempts)
	}
}

func TestPermanentFailureIsNotRetried(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	k := Define("test:permanent", Options{MaxRetry: 5}, func(context.Context, *Run, struct{}) (any, error) {
		runs.Add(1)
		return nil, Permanent(finance.Errorf(finance.Invalid, "the contract has no due day"))
	})
	p := startPlatform(t, []*Kind{k})
	done := p.wait(t, p.submit(t, "test:permanent", struct{}{}).ID, storage.JobFailed)
	if done.Attempts != 1 || runs.Load() != 1 || done.Error != "the contract has no due day" {
		t.Fatalf("attempts %d runs %d error %q, want one run and the coded message", done.Attempts, runs.Load(), done.Error)
	}
}

// TestPermanentReadsAsItsCause: a permanent error is asynq.SkipRetry to
// errors.Is and reads as its cause alone, however often it is marked.
func TestPermanentReadsAsItsCause(t *testing.T) {
	t.Parallel()
	cause := finance.Errorf(finance.Invalid, "the contract has no due day")
	for name, c := range map[string]struct {
		err  error
		text string
	}{
		"marked once":         {Permanent(cause), "invalid: the contract has no due day"},
		"marked twice":        {permanent(Permanent(cause)), "invalid: the contract has no due day"},
		"wrapped, then again": {permanent(fmt.Errorf("chunk 3: %w", Permanent(cause))), "chunk 3: invalid: the contract has no due day"},
	} {
		if c.err.Error() != c.text || !errors.Is(c.err, asynq.SkipRetry) || !errors.Is(c.err, cause) {
			t.Errorf("%s: %q (SkipRetry %v, cause %v), want %q", name, c.err, errors.Is(c.err, asynq.SkipRetry), errors.Is(c.err, cause), c.text)
		}
	}
}

// TestAFailedJobIsLoggedOnce: the worker's line for a run that ends the
// job says once what failed, and that it is not retried.
func TestAFailedJobIsLoggedOnce(t *testing.T) {
	t.Parallel()
	k := Define("test:permanent-log", Options{MaxRetry: 5}, func(context.Context, *Run, struct{}) (any, error) {
		return nil, Permanent(finance.Errorf(finance.Invalid, "the contract has no due day"))
	})
	var log lockedBuffer
	p := startPlatform(t, []*Kind{k}, func(w *WorkerConfig, _ *RelayConfig) {
		w.Logger = slog.New(slog.NewTextHandler(&log, nil))
	})
	p.wait(t, p.submit(t, "test:permanent-log", struct{}{}).ID, storage.JobFailed)
	var line string
	deadline := time.Now().Add(30 * time.Second) // the line follows the write of the row
	for line == "" {
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.Contains(l, "kind=test:permanent-log") && strings.Contains(l, "job run failed") {
				line = l
			}
		}
		if line == "" && time.Now().After(deadline) {
			t.Fatalf("no line for the failed run in the worker's log:\n%s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Count(line, "the contract has no due day") != 1 || strings.Contains(line, "skip retry") ||
		!strings.Contains(line, "not retried") {
		t.Errorf("the worker's line: %s\nwant the cause once and that it is not retried", line)
	}
}

// lockedBuffer is a bytes.Buffer a logger writes to while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestInternalErrorsStayInTheLog(t *testing.T) {
	t.Parallel()
	k := Define("test:internal", Options{MaxRetry: -1}, func(context.Context, *Run, struct{}) (any, error) {
		return nil, errors.New("pq: relation secret_table does not exist")
	})
	p := startPlatform(t, []*Kind{k})
	done := p.wait(t, p.submit(t, "test:internal", struct{}{}).ID, storage.JobFailed)
	if strings.Contains(done.Error, "secret_table") || !strings.Contains(done.Error, "Internal error") {
		t.Fatalf("error %q: internal text must not reach clients", done.Error)
	}
}

func TestPanickingJobFails(t *testing.T) {
	t.Parallel()
	k := Define("test:panic", Options{MaxRetry: -1}, func(context.Context, *Run, struct{}) (any, error) {
		panic("boom")
	})
	p := startPlatform(t, []*Kind{k})
	done := p.wait(t, p.submit(t, "test:panic", struct{}{}).ID, storage.JobFailed)
	if done.Attempts != 1 || !strings.Contains(done.Error, "Internal error") {
		t.Fatalf("attempts %d error %q", done.Attempts, done.Error)
	}
}

// blockingKind runs chunks until canceled: each chunk waits a little.
func blockingKind(started chan<- int64) *Kind {
	return Define("test:blocking", Options{MaxRetry: -1}, func(ctx context.Context, r *Run, _ struct{}) (any, error) {
		started <- r.Job.ID
		_, err := r.Chunks(ctx, 10_000, 10_000, func(context.Context, pgx.Tx, int) (any, int64, error) {
			time.Sleep(5 * time.Millisecond)
			return 1, 1, nil
		})
		return nil, err
	})
}

func TestCancelStopsARunningJob(t *testing.T) {
	t.Parallel()
	started := make(chan int64, 1)
	p := startPlatform(t, []*Kind{blockingKind(started)})
	job := p.submit(t, "test:blocking", struct{}{})
	<-started
	canceled, err := storage.CancelJob(context.Background(), p.pool, p.companyA, job.ID)
	if err != nil || canceled.State != storage.JobCanceled {
		t.Fatalf("cancel: %v %s", err, canceled.State)
	}
	// the worker notices at its next chunk and records nothing more
	time.Sleep(300 * time.Millisecond)
	after := p.wait(t, job.ID, storage.JobCanceled)
	time.Sleep(200 * time.Millisecond)
	again := p.wait(t, job.ID, storage.JobCanceled)
	if again.Progress != after.Progress {
		t.Errorf("progress moved after the cancel was seen: %+v then %+v", after.Progress, again.Progress)
	}
	if _, err := storage.CancelJob(context.Background(), p.pool, p.companyA, job.ID); finance.ErrorCode(err) != finance.Conflict {
		t.Errorf("cancel of a canceled job: %v, want Conflict", err)
	}
	if _, err := storage.CancelJob(context.Background(), p.pool, p.companyB, job.ID); finance.ErrorCode(err) != finance.NotFound {
		t.Errorf("cancel by another company: %v, want NotFound", err)
	}
}

func TestCancelBeforeTheJobRuns(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	p := newPlatform(t, []*Kind{flakyKind(1, &runs)}, false)
	job := p.submit(t, "test:flaky", flakyPayload{})
	if _, err := storage.CancelJob(context.Background(), p.pool, p.companyA, job.ID); err != nil {
		t.Fatal(err)
	}
	p.run(t)
	// the relay skips it (not pending); even a task for it would do nothing
	time.Sleep(500 * time.Millisecond)
	if got := p.wait(t, job.ID, storage.JobCanceled); got.Attempts != 0 || runs.Load() != 0 {
		t.Fatalf("a job canceled before it ran was run: attempts %d runs %d", got.Attempts, runs.Load())
	}
}

func TestRetryRunsAFailedJobAgain(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	p := startPlatform(t, []*Kind{flakyKind(-1, &runs)})
	job := p.submit(t, "test:flaky", flakyPayload{Failures: 1})
	failed := p.wait(t, job.ID, storage.JobFailed)
	if _, err := storage.RetryJob(context.Background(), p.pool, p.companyA, job.ID); err != nil {
		t.Fatal(err)
	}
	done := p.wait(t, job.ID, storage.JobSucceeded)
	if failed.Attempts != 1 || done.Attempts != 2 || done.Error != "" || runs.Load() != 2 {
		t.Fatalf("attempts %d then %d, error %q, runs %d", failed.Attempts, done.Attempts, done.Error, runs.Load())
	}
	if _, err := storage.RetryJob(context.Background(), p.pool, p.companyA, job.ID); finance.ErrorCode(err) != finance.Conflict {
		t.Errorf("retry of a succeeded job: %v, want Conflict", err)
	}
}

func TestUniqueKeyGivesOneJobPerDate(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	ctx := context.Background()
	sub := Submission{Kind: KindJobsPrune, Payload: []byte(`{"date":"2026-11-24"}`)}
	first, found, err := p.kinds.Submit(ctx, p.pool, p.companyA, sub)
	if err != nil || found != storage.FoundNothing {
		t.Fatal(err, found)
	}
	second, found, err := p.kinds.Submit(ctx, p.pool, p.companyA, sub)
	if err != nil || found != storage.FoundSameKey || second.ID != first.ID {
		t.Fatalf("second submission: %v found=%v id %d, want job %d", err, found, second.ID, first.ID)
	}
	other, found, err := p.kinds.Submit(ctx, p.pool, p.companyB, sub)
	if err != nil || found != storage.FoundNothing || other.ID == first.ID {
		t.Fatalf("another company's run of the same date: %v found=%v", err, found)
	}
	next, found, err := p.kinds.Submit(ctx, p.pool, p.companyA, Submission{Kind: KindJobsPrune, Payload: []byte(`{"date":"2026-11-25"}`)})
	if err != nil || found != storage.FoundNothing || next.ID == first.ID {
		t.Fatalf("the next date: %v found=%v", err, found)
	}
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	ctx := context.Background()
	sub := Submission{Kind: KindPixValidate, Payload: []byte(`{"payloads":["a","b"]}`), IdempotencyKey: "k-1", RequestHash: []byte("hash-1")}
	first, _, err := p.kinds.Submit(ctx, p.pool, p.companyA, sub)
	if err != nil {
		t.Fatal(err)
	}
	again, found, err := p.kinds.Submit(ctx, p.pool, p.companyA, sub)
	if err != nil || found != storage.FoundSameRequest || again.ID != first.ID {
		t.Fatalf("same key, same request: %v found=%v id %d want %d", err, found, again.ID, first.ID)
	}
	sub.RequestHash = []byte("hash-2")
	if _, _, err := p.kinds.Submit(ctx, p.pool, p.companyA, sub); finance.ErrorCode(err) != finance.Invalid {
		t.Fatalf("same key, other request: %v, want Invalid", err)
	}
	sub.RequestHash = []byte("hash-1")
	if other, found, err := p.kinds.Submit(ctx, p.pool, p.companyB, sub); err != nil || found != storage.FoundNothing || other.ID == first.ID {
		t.Fatalf("another company's key is its own: %v found=%v", err, found)
	}
}

func TestDuplicateDeliveryDoesNothing(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	p := startPlatform(t, []*Kind{flakyKind(1, &runs)})
	job := p.submit(t, "test:flaky", flakyPayload{})
	p.wait(t, job.ID, storage.JobSucceeded)
	// the same job delivered again, as after a relay that ran twice once
	// the first task was gone from Redis
	relay := NewRelay(RelayConfig{Pool: p.pool, Redis: p.redisOpt(), Kinds: p.kinds})
	defer relay.Close()
	if err := relay.enqueueTask(context.Background(), storage.PendingJob{CompanyID: p.companyA, ID: job.ID, Kind: "test:flaky", Queue: QueueDefault}, "again"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if got := p.wait(t, job.ID, storage.JobSucceeded); got.Attempts != 1 || runs.Load() != 1 {
		t.Fatalf("a second delivery ran the job again: attempts %d runs %d", got.Attempts, runs.Load())
	}
}

func TestChunksResumeAfterAnInterruption(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := map[int]int{}
	var runs atomic.Int32
	k := Define("test:chunks", Options{MaxRetry: 3}, func(ctx context.Context, r *Run, _ struct{}) (any, error) {
		run := runs.Add(1)
		outs, err := r.Chunks(ctx, 6, 60, func(_ context.Context, _ pgx.Tx, i int) (any, int64, error) {
			mu.Lock()
			calls[i]++
			mu.Unlock()
			if run == 1 && i == 3 {
				return nil, 0, finance.Errorf(finance.Unavailable, "interrupted at chunk 3")
			}
			return i * i, 10, nil
		})
		if err != nil {
			return nil, err
		}
		return outs, nil
	})
	p := startPlatform(t, []*Kind{k})
	done := p.wait(t, p.submit(t, "test:chunks", struct{}{}).ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded || string(done.Result) != "[0,1,4,9,16,25]" {
		t.Fatalf("state %s result %s", done.State, done.Result)
	}
	want := map[int]int{0: 1, 1: 1, 2: 1, 3: 2, 4: 1, 5: 1}
	for i, n := range want {
		if calls[i] != n {
			t.Errorf("chunk %d ran %d times, want %d (all: %v)", i, calls[i], n, calls)
		}
	}
	if done.Attempts != 2 || done.Progress != (storage.Progress{Done: 60, Total: 60}) {
		t.Errorf("attempts %d progress %+v", done.Attempts, done.Progress)
	}
}

func TestChunksAtOnce(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := map[int]int{}
	var runs, inFlight, most atomic.Int32
	k := Define("test:at-once", Options{MaxRetry: 3}, func(ctx context.Context, r *Run, _ struct{}) (any, error) {
		run := runs.Add(1)
		outs, err := r.ChunksAtOnce(ctx, 8, 2, 80, func(ctx context.Context, tx pgx.Tx, i int) (any, int64, error) {
			mu.Lock()
			calls[i]++
			mu.Unlock()
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			if i > 0 { // chunk 0 is stored before any other starts
				var first int
				if err := tx.QueryRow(ctx, `SELECT count(*) FROM job_chunks WHERE company_id = $1 AND job_id = $2 AND chunk = 0`,
					r.CompanyID(), r.Job.ID).Scan(&first); err != nil || first != 1 {
					return nil, 0, Permanent(fmt.Errorf("chunk %d started before chunk 0 was stored (%d, %v)", i, first, err))
				}
			}
			time.Sleep(50 * time.Millisecond) // long enough for two chunks to overlap
			if run == 1 && i == 5 {
				return nil, 0, finance.Errorf(finance.Unavailable, "interrupted at chunk 5")
			}
			return i * i, 10, nil
		})
		if err != nil {
			return nil, err
		}
		return outs, nil
	})
	p := startPlatform(t, []*Kind{k})
	done := p.wait(t, p.submit(t, "test:at-once", struct{}{}).ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded || string(done.Result) != "[0,1,4,9,16,25,36,49]" {
		t.Fatalf("state %s %s result %s", done.State, done.Error, done.Result)
	}
	if done.Attempts != 2 || done.Progress != (storage.Progress{Done: 80, Total: 80}) {
		t.Errorf("attempts %d progress %+v", done.Attempts, done.Progress)
	}
	if m := most.Load(); m != 2 {
		t.Errorf("at most %d chunks in flight, want 2", m)
	}
	// chunk 0 and those recorded by the first run are not done again; chunk
	// 5 failed once, and a chunk in flight beside it may have been rolled back
	if calls[0] != 1 || calls[5] != 2 {
		t.Errorf("chunk 0 ran %d times, chunk 5 %d (all: %v)", calls[0], calls[5], calls)
	}
	for i, n := range calls {
		if n > 2 {
			t.Errorf("chunk %d ran %d times (all: %v)", i, n, calls)
		}
	}
}

func TestRedisDownJobsWaitAndNothingIsLost(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	p := newPlatform(t, []*Kind{flakyKind(1, &runs)}, true)
	p.run(t, withQuietAfter(2*time.Second))
	before := p.submit(t, "test:flaky", flakyPayload{})
	p.wait(t, before.ID, storage.JobSucceeded)
	p.redis.Stop(t)
	var ids []int64
	for range 20 {
		ids = append(ids, p.submit(t, "test:flaky", flakyPayload{}).ID)
	}
	time.Sleep(1500 * time.Millisecond)
	for _, id := range ids {
		if job := p.wait(t, id, storage.JobPending, storage.JobQueued); job.State != storage.JobPending {
			t.Fatalf("job %d is %s while Redis is down, want pending", id, job.State)
		}
	}
	p.redis.Start(t)
	for _, id := range ids {
		if job := p.wait(t, id, storage.JobSucceeded); job.Attempts != 1 {
			t.Errorf("job %d ran %d times", id, job.Attempts)
		}
	}
	if runs.Load() != 21 {
		t.Errorf("%d runs for 21 jobs", runs.Load())
	}
}

func TestPruneDeletesOldFinishedJobsOnly(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	ctx := context.Background()
	// jobs of both companies, finished 40 days ago, 10 days ago, and one
	// still pending from 40 days ago
	for _, company := range []int64{p.companyA, p.companyB} {
		for i, age := range []string{"40 days", "40 days", "10 days"} {
			_, err := p.pool.Exec(ctx, `INSERT INTO jobs (company_id, kind, queue, state, submitted_by, created_at, finished_at)
				VALUES ($1, 'pix:validate', 'default', $2, 'test', now() - $3::interval, now() - $3::interval)`,
				company, []string{"succeeded", "failed", "succeeded"}[i], age)
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.pool.Exec(ctx, `INSERT INTO jobs (company_id, kind, queue, state, submitted_by, created_at)
			VALUES ($1, 'pix:validate', 'default', 'canceled', 'test', now() - interval '40 days')`, company); err != nil {
			t.Fatal(err) // canceled without a finish time: kept, it cannot be dated
		}
		// the Idempotency-Keys of operations, recorded 40 and 10 days ago
		for _, age := range []string{"40 days", "10 days"} {
			if _, err := p.pool.Exec(ctx, `INSERT INTO idempotency_keys (company_id, key, request_hash, status, body, created_at)
				VALUES ($1, $2, '\x00', 200, '{}', now() - $3::interval)`, company, age, age); err != nil {
				t.Fatal(err)
			}
		}
	}
	job := p.submit(t, KindJobsPrune, DatePayload{Date: "2026-11-24"})
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	res := decodeResult[map[string]any](t, done)
	if done.State != storage.JobSucceeded || res["deleted"] != float64(2) || res["keys_deleted"] != float64(1) {
		t.Fatalf("state %s result %v, want 2 jobs and 1 key deleted", done.State, res)
	}
	var keys []string
	if err := p.pool.QueryRow(ctx, `SELECT array_agg(company_id || ' ' || key ORDER BY company_id, key) FROM idempotency_keys`).Scan(&keys); err != nil ||
		!slices.Equal(keys, []string{fmt.Sprint(p.companyA, " 10 days"), fmt.Sprint(p.companyB, " 10 days"), fmt.Sprint(p.companyB, " 40 days")}) {
		t.Errorf("keys left %v (%v): want A's recent one and both of B's", keys, err)
	}
	count := func(company int64) (n int) {
		p.pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE company_id = $1`, company).Scan(&n) //nolint:errcheck // compared
		return n
	}
	if a, b := count(p.companyA), count(p.companyB); a != 3 || b != 4 {
		t.Errorf("jobs left: A %d (want the recent one, the undated one and the prune itself), B %d (want all 4)", a, b)
	}
}

func TestAStaleGenerationRunsNothing(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	p := newPlatform(t, []*Kind{flakyKind(-1, &runs)}, false)
	ctx := context.Background()
	job := p.submit(t, "test:flaky", flakyPayload{})
	// generation 0 ran and failed; the API asked for a retry (generation 1)
	started, ok, err := storage.StartJob(ctx, p.pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: p.companyA, ID: job.ID}})
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	if _, err := storage.FinishJob(ctx, p.pool, storage.Outcome{RunRef: started.Run(), State: storage.JobFailed, Error: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.RetryJob(ctx, p.pool, p.companyA, job.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := storage.StartJob(ctx, p.pool, storage.TaskRef{JobRef: started.Run().JobRef, Generation: 0}); err != nil || ok {
		t.Fatalf("a task of generation 0 started the job at generation 1: %v %v", ok, err)
	}
	p.run(t)
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded || runs.Load() != 1 {
		t.Fatalf("generation 1: %s after %d runs", done.State, runs.Load())
	}
}

func TestALaterRunFencesTheEarlierOne(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	ctx := context.Background()
	job := p.submit(t, KindJobsPrune, DatePayload{Date: "2026-11-24"})
	task := storage.TaskRef{JobRef: storage.JobRef{CompanyID: p.companyA, ID: job.ID}}
	first, _, err := storage.StartJob(ctx, p.pool, task)
	if err != nil {
		t.Fatal(err)
	}
	// the task was handed back at a shutdown and another worker took it
	second, _, err := storage.StartJob(ctx, p.pool, task)
	if err != nil || second.Attempts != first.Attempts+1 {
		t.Fatal(err, second.Attempts)
	}
	for name, write := range map[string]func() (bool, error){
		"progress": func() (bool, error) {
			return storage.SetJobProgress(ctx, p.pool, first.Run(), storage.Progress{Done: 1, Total: 2})
		},
		"chunk": func() (bool, error) {
			return storage.RecordJobChunk(ctx, p.pool, first.Run(), 0, json.RawMessage(`1`), storage.Progress{Done: 1, Total: 2})
		},
		"finish": func() (bool, error) {
			return storage.FinishJob(ctx, p.pool, storage.Outcome{RunRef: first.Run(), State: storage.JobSucceeded, Result: json.RawMessage(`"first"`)})
		},
	} {
		if ok, err := write(); err != nil || ok {
			t.Errorf("the earlier run's %s was written (%v)", name, err)
		}
	}
	if err := storage.RequeueJob(ctx, p.pool, first.Run(), "interrupted"); err != nil {
		t.Fatal(err)
	}
	if ok, err := storage.FinishJob(ctx, p.pool, storage.Outcome{RunRef: second.Run(), State: storage.JobSucceeded, Result: json.RawMessage(`"second"`)}); err != nil || !ok {
		t.Fatalf("the later run could not finish: %v", err)
	}
	got, _ := storage.GetJob(ctx, p.pool, p.companyA, job.ID)
	if got.State != storage.JobSucceeded || string(got.Result) != `"second"` || got.Progress.Done != 0 {
		t.Fatalf("job %s result %s progress %+v", got.State, got.Result, got.Progress)
	}
}

func TestAnArchivedTaskOfAWaitingJobIsEnqueuedAgain(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	p := newPlatform(t, []*Kind{flakyKind(2, &runs)}, false)
	ctx := context.Background()
	relay := NewRelay(RelayConfig{Pool: p.pool, Redis: p.redisOpt(), Kinds: p.kinds, QuietAfter: time.Millisecond})
	defer relay.Close()
	inspector := asynq.NewInspector(p.redisOpt())
	defer inspector.Close()
	// a job whose task an operator archived in the dashboard while its
	// row still says running
	lost := p.submit(t, "test:flaky", flakyPayload{})
	if _, err := relay.RelayOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if err := inspector.ArchiveTask(QueueDefault, storage.JobTaskID(lost.ID, 0)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := storage.StartJob(ctx, p.pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: p.companyA, ID: lost.ID}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	if err := relay.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	p.run(t)
	if done := p.wait(t, lost.ID, storage.JobSucceeded, storage.JobFailed); done.State != storage.JobSucceeded || done.Attempts != 2 {
		t.Errorf("the lost job: %s after %d attempts, want succeeded on its second", done.State, done.Attempts)
	}
}

func TestAGroupStartsATaskOnce(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	ctx := context.Background()
	job := p.submit(t, KindJobsPrune, DatePayload{Date: "2026-11-24"})
	w := NewWorker(WorkerConfig{Pool: p.pool, Redis: p.redisOpt(), Kinds: p.kinds})
	task := storage.TaskRef{JobRef: storage.JobRef{CompanyID: p.companyA, ID: job.ID}}
	stale := storage.TaskRef{JobRef: task.JobRef, Generation: 5}
	got, err := w.loadJobs(ctx, []storage.TaskRef{task, stale, task})
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].ok || got[1].ok || got[2].ok {
		t.Fatalf("started %v %v %v, want the first only", got[0].ok, got[1].ok, got[2].ok)
	}
}

// TestResumedRunKeepsItsProgress: a run resumed after an interruption
// reads, until its next chunk records more, the progress its last
// recorded chunk wrote, not none done.
func TestResumedRunKeepsItsProgress(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	seen := make(chan storage.Progress, 1)
	k := Define("test:resumed-progress", Options{MaxRetry: 3}, func(ctx context.Context, r *Run, _ struct{}) (any, error) {
		run := runs.Add(1)
		return r.Chunks(ctx, 4, 40, func(ctx context.Context, _ pgx.Tx, i int) (any, int64, error) {
			if i == 2 && run == 1 {
				return nil, 0, finance.Errorf(finance.Unavailable, "interrupted at chunk 2")
			}
			if i == 2 {
				time.Sleep(3 * startAfter) // the resumed run's start is written meanwhile
				job, err := storage.GetJob(ctx, r.Pool(), r.CompanyID(), r.Job.ID)
				if err != nil {
					return nil, 0, err
				}
				seen <- job.Progress
			}
			return i, 10, nil
		})
	})
	p := startPlatform(t, []*Kind{k})
	done := p.wait(t, p.submit(t, "test:resumed-progress", struct{}{}).ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded {
		t.Fatalf("state %s: %s", done.State, done.Error)
	}
	if got := <-seen; got != (storage.Progress{Done: 20, Total: 40}) {
		t.Errorf("the resumed run read progress %+v before its next chunk, want the 20 of 40 recorded", got)
	}
}

// TestJobLogLines: a run is logged at INFO when it starts and when it
// succeeds, with its job id, company, kind, attempt and (at its end) its
// duration, under one key name each; a failure's line carries its
// problems.
func TestJobLogLines(t *testing.T) {
	t.Parallel()
	ok := Define("test:logged", Options{}, func(context.Context, *Run, struct{}) (any, error) { return 1, nil })
	bad := Define("test:logged-bad", Options{MaxRetry: 1}, func(context.Context, *Run, struct{}) (any, error) {
		return nil, Permanent(finance.InvalidInput([]finance.Problem{{Field: "account_id", Message: "accounts 1, 3 are one agreement"}}))
	})
	var log lockedBuffer
	p := startPlatform(t, []*Kind{ok, bad}, func(w *WorkerConfig, _ *RelayConfig) {
		w.Logger = slog.New(slog.NewJSONHandler(&log, nil)).With("component", "worker")
	})
	good := p.wait(t, p.submit(t, "test:logged", struct{}{}).ID, storage.JobSucceeded)
	failed := p.wait(t, p.submit(t, "test:logged-bad", struct{}{}).ID, storage.JobFailed)
	lines := func(job int64) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, l := range strings.Split(log.String(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["job_id"] == float64(job) {
				out[m["msg"].(string)] = m
			}
		}
		return out
	}
	for deadline := time.Now().Add(30 * time.Second); lines(good.ID)["job succeeded"] == nil || len(lines(failed.ID)) < 2; {
		if time.Now().After(deadline) { // the lines follow the writes of the rows
			t.Fatalf("no outcome lines:\n%s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	got := lines(good.ID)
	for _, msg := range []string{"job started", "job succeeded"} {
		m := got[msg]
		if m == nil || m["level"] != "INFO" || m["company_id"] != float64(p.companyA) || m["kind"] != "test:logged" || m["attempt"] != float64(1) {
			t.Errorf("%q line: %v (all: %v)", msg, m, got)
		}
		if _, old := m["job"]; old {
			t.Errorf("%q line names the job twice: %v", msg, m)
		}
	}
	if got["job succeeded"]["duration"] == nil {
		t.Errorf("no duration: %v", got["job succeeded"])
	}
	var failure map[string]any
	for msg, m := range lines(failed.ID) {
		if strings.Contains(msg, "failed") {
			failure = m
		}
	}
	if p, _ := failure["problems"].(string); p != "account_id: accounts 1, 3 are one agreement" {
		t.Errorf("the failure's line: %v; want its problems", failure)
	}
}

// TestAsynqLogLines: asynq's lines name their source apart from the
// worker's component (no key twice), and those of a Redis that does not
// answer come once per interval, the next saying how many were left out.
func TestAsynqLogLines(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	l := newAsynqLogger(slog.New(slog.NewJSONHandler(&buf, nil)).With("component", "worker"))
	for range 200 {
		l.Error("Failed to forward scheduled tasks: dial tcp 127.0.0.1:6379: connect: connection refused")
	}
	l.Warn("Quitting worker. task id=17")
	out := strings.TrimSpace(buf.String())
	lines := strings.Split(out, "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"dependency":"redis"`) || !strings.Contains(lines[1], "Quitting worker") {
		t.Fatalf("%d lines for 200 refusals and one other line:\n%s", len(lines), out)
	}
	for _, line := range lines {
		if strings.Count(line, `"component"`) != 1 || !strings.Contains(line, `"library":"asynq"`) {
			t.Errorf("line %s", line)
		}
	}
}
