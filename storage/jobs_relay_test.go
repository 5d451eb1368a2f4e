package storage_test

import (
	"context"
	"slices"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestRelayReadsALateCommitOnce: a job whose transaction began first but
// commits after a later one was read is read by the next pass, and no job
// is read twice.
func TestRelayReadsALateCommitOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Relay")
	if err != nil {
		t.Fatal(err)
	}
	submit := func(q storage.DBTX) int64 {
		job, _, err := storage.SubmitJob(ctx, q, company, storage.NewJob{Kind: "k", Queue: "default", SubmittedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return job.ID
	}
	read := func() []int64 {
		jobs, err := storage.NextPendingJobs(ctx, pool, 500)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, j := range jobs {
			ids = append(ids, j.ID)
		}
		slices.Sort(ids)
		return ids
	}
	slow, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback(ctx) //nolint:errcheck // committed below
	late := submit(slow)     // the older transaction, still open
	early := submit(pool)
	if got := read(); !slices.Equal(got, []int64{early}) {
		t.Fatalf("first pass read %v, want [%d]", got, early)
	}
	if err := slow.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	after := submit(pool)
	if got := read(); !slices.Equal(got, []int64{late, after}) {
		t.Fatalf("second pass read %v, want [%d %d]", got, late, after)
	}
	if got := read(); len(got) != 0 {
		t.Fatalf("third pass read %v, want nothing", got)
	}
}
