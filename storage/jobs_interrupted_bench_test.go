package storage_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// BenchmarkRunWrites: what the trigger that keeps interrupted runs
// (jobs_interrupted_run, migration 0062) costs the writes every run makes,
// its start and its outcome, each its own statement: every update of a
// job's attempts evaluates the trigger's WHEN clause, and none of these
// runs is a takeover, so none calls its function. Blocks of runs with the
// trigger disabled and enabled alternate in the same run, so that the
// load of a shared machine weighs on both alike; each side reports the
// median time of a run's two writes. docs/performance.md, "Jobs end to
// end", has the figures.
func BenchmarkRunWrites(b *testing.B) {
	ctx := context.Background()
	pool := storagetest.NewDB(b)
	company, _, err := storage.EnsureCompany(ctx, pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	const block = 200
	modes := []string{`ALTER TABLE jobs DISABLE TRIGGER jobs_interrupted_run`, `ALTER TABLE jobs ENABLE TRIGGER jobs_interrupted_run`}
	times := [2][]time.Duration{}
	b.ResetTimer()
	for done := 0; done < b.N; {
		for mode, alter := range modes {
			if _, err := pool.Exec(ctx, alter); err != nil {
				b.Fatal(err)
			}
			for range min(block, b.N-done) {
				job, _, err := storage.SubmitJob(ctx, pool, company, storage.NewJob{Kind: "k", Queue: "default", SubmittedBy: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				run := storage.RunRef{JobRef: storage.JobRef{CompanyID: company, ID: job.ID}, Attempt: 1}
				start := time.Now()
				if _, err := storage.StartRuns(ctx, pool, []storage.RunStartAt{{RunRef: run}}); err != nil {
					b.Fatal(err)
				}
				if _, err := storage.FinishJobs(ctx, pool, []storage.Outcome{{RunRef: run, State: storage.JobSucceeded, Result: []byte(`{}`)}}); err != nil {
					b.Fatal(err)
				}
				times[mode] = append(times[mode], time.Since(start))
			}
		}
		done += block
	}
	b.StopTimer()
	for mode, name := range []string{"off", "on"} {
		slices.Sort(times[mode])
		b.ReportMetric(float64(times[mode][len(times[mode])/2].Microseconds()), "p50-us-trigger-"+name)
	}
	b.ReportMetric(float64(times[1][len(times[1])/2])/float64(times[0][len(times[0])/2]), "on/off")
}
