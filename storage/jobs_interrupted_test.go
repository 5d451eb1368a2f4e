package storage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestInterruptedRunIsKeptAmongTheErrors: a run whose start was written
// and that recorded no outcome (its worker killed) is kept among the job's
// errors, with its start, once the next attempt takes the job over, by
// whichever statement writes that attempt's start; a run that recorded
// its outcome, requeued or yielded, leaves no such row.
func TestInterruptedRunIsKeptAmongTheErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Interrupted")
	if err != nil {
		t.Fatal(err)
	}
	lazy := &storage.RunStart{Generation: 0, Ran: 50 * time.Millisecond}
	// each takes the job over at attempt 2, its start not written
	takeovers := []struct {
		name string
		take func(run storage.RunRef) error
		// want are the job's error rows after, by attempt: "interrupted"
		// for the interrupted run's
		want []string
	}{
		{"its start", func(run storage.RunRef) error {
			_, err := storage.StartRuns(ctx, pool, []storage.RunStartAt{{RunRef: run, RunStart: *lazy}})
			return err
		}, []string{"interrupted"}},
		{"its outcome", func(run storage.RunRef) error {
			_, err := storage.FinishJobs(ctx, pool, []storage.Outcome{{RunRef: run, State: storage.JobSucceeded,
				Result: []byte(`{}`), Start: lazy}})
			return err
		}, []string{"interrupted"}},
		{"its failure", func(run storage.RunRef) error {
			_, err := storage.FinishJobs(ctx, pool, []storage.Outcome{{RunRef: run, State: storage.JobFailed,
				Error: "gave up", Start: lazy}})
			return err
		}, []string{"interrupted", "gave up"}},
		{"its requeue", func(run storage.RunRef) error {
			return storage.RequeueRun(ctx, pool, storage.Outcome{RunRef: run, Error: "busy", Start: lazy})
		}, []string{"interrupted", "busy"}},
		{"its first chunk", func(run storage.RunRef) error {
			_, err := storage.RecordJobChunkStart(ctx, pool, run, lazy, 0, []byte(`{}`), storage.Progress{Done: 1, Total: 2})
			return err
		}, []string{"interrupted"}},
		{"a start of the older kind", func(run storage.RunRef) error {
			_, _, err := storage.StartJob(ctx, pool, storage.TaskRef{JobRef: run.JobRef})
			return err
		}, []string{"interrupted"}},
	}
	for _, tc := range takeovers {
		t.Run(tc.name, func(t *testing.T) {
			job := submitTestJob(t, pool, company)
			first := storage.RunRef{JobRef: storage.JobRef{CompanyID: company, ID: job.ID}, Attempt: 1}
			before := time.Now()
			started, err := storage.StartRuns(ctx, pool, []storage.RunStartAt{{RunRef: first, RunStart: storage.RunStart{Ran: time.Second}}})
			if err != nil || !started[first] {
				t.Fatal(started, err)
			}
			// the first run is killed here: nothing more of it is written
			second := first
			second.Attempt = 2
			if err := tc.take(second); err != nil {
				t.Fatal(err)
			}
			errs, err := storage.JobErrors(ctx, pool, company, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(errs) != len(tc.want) {
				t.Fatalf("errors %+v, want %v", errs, tc.want)
			}
			got := errs[0]
			if got.Attempt != 1 || got.Final || !strings.Contains(got.Error, "interrupted") ||
				!strings.Contains(got.Error, "recorded no outcome") || !strings.Contains(got.Error, "attempt 2") {
				t.Errorf("the interrupted run's row: %+v", got)
			}
			// its start is the first run's, a second before it was written
			if got.StartedAt == nil || got.StartedAt.After(before.Add(-500*time.Millisecond)) ||
				got.StartedAt.Before(before.Add(-time.Minute)) || got.At.Before(*got.StartedAt) {
				t.Errorf("the interrupted run's times: started %v, at %v (written at %v)", got.StartedAt, got.At, before)
			}
			for i, want := range tc.want[1:] {
				if e := errs[i+1]; e.Attempt != 2 || e.Error != want || e.StartedAt == nil {
					t.Errorf("the second run's row: %+v, want %q", e, want)
				}
			}
		})
	}

	// a run that recorded its outcome, or yielded, was not interrupted
	t.Run("not interrupted", func(t *testing.T) {
		job := submitTestJob(t, pool, company)
		ref := storage.JobRef{CompanyID: company, ID: job.ID}
		run := func(attempt int) storage.RunRef { return storage.RunRef{JobRef: ref, Attempt: attempt} }
		steps := []func() error{
			func() error { // attempt 1 starts, then yields (its company at its limit)
				if _, err := storage.StartRuns(ctx, pool, []storage.RunStartAt{{RunRef: run(1)}}); err != nil {
					return err
				}
				return storage.YieldJob(ctx, pool, run(1))
			},
			func() error { // attempt 1 again, requeued with its error
				if _, err := storage.StartRuns(ctx, pool, []storage.RunStartAt{{RunRef: run(1)}}); err != nil {
					return err
				}
				return storage.RequeueJob(ctx, pool, run(1), "busy")
			},
			func() error { // attempt 2 succeeds
				_, err := storage.StartRuns(ctx, pool, []storage.RunStartAt{{RunRef: run(2)}})
				if err == nil {
					_, err = storage.FinishJob(ctx, pool, storage.Outcome{RunRef: run(2), State: storage.JobSucceeded, Result: []byte(`{}`)})
				}
				return err
			},
		}
		for _, step := range steps {
			if err := step(); err != nil {
				t.Fatal(err)
			}
		}
		errs, err := storage.JobErrors(ctx, pool, company, job.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(errs) != 1 || errs[0].Attempt != 1 || errs[0].Error != "busy" {
			t.Errorf("errors %+v, want attempt 1's requeue alone", errs)
		}
	})
}

func submitTestJob(t *testing.T, pool storage.DBTX, company int64) storage.Job {
	t.Helper()
	job, _, err := storage.SubmitJob(context.Background(), pool, company, storage.NewJob{Kind: "k", Queue: "default", SubmittedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return job
}
