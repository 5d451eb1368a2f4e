package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
)

// rowWrites counts, from the moment it is called, the updates written to
// the jobs rows (a trigger of the test's database), and returns how many a
// job had.
func rowWrites(t *testing.T, p *platform) func(id int64) int {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE test_job_updates (job_id bigint NOT NULL, state text NOT NULL)`,
		`CREATE FUNCTION test_count_job_update() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN INSERT INTO test_job_updates VALUES (NEW.id, NEW.state); RETURN NEW; END $$`,
		`CREATE TRIGGER test_count_job_update AFTER UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION test_count_job_update()`,
	} {
		if _, err := p.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return func(id int64) int {
		var n int
		if err := p.pool.QueryRow(ctx, `SELECT count(*) FROM test_job_updates WHERE job_id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// A short chunked run writes its row twice after its insert: its one
// chunk's record, which writes its start and progress too, and its
// outcome; it was four (start, progress, chunk, outcome).
func TestAShortChunkedRunWritesItsRowTwice(t *testing.T) {
	t.Parallel()
	k := Define("test:one-chunk", Options{Heavy: true}, func(ctx context.Context, r *Run, _ struct{}) (any, error) {
		outs, err := r.Chunks(ctx, 1, 3, func(context.Context, pgx.Tx, int) (any, int64, error) { return "ok", 3, nil })
		return outs, err
	})
	p := newPlatform(t, []*Kind{k}, false)
	writes := rowWrites(t, p)
	p.run(t, func(w *WorkerConfig, _ *RelayConfig) { w.CompanyChunks = DefaultCompanyChunks })
	done := p.wait(t, p.submit(t, "test:one-chunk", struct{}{}).ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded || string(done.Result) != `["ok"]` || done.Attempts != 1 ||
		done.Progress != (storage.Progress{Done: 3, Total: 3}) || done.StartedAt == nil {
		t.Fatalf("job %+v", done)
	}
	if n := writes(done.ID); n != 2 {
		t.Errorf("the job's row was updated %d times, want 2 (its chunk, its outcome)", n)
	}
}

// A first chunk that runs long has its run's start written on its own
// meanwhile, with the job's size, so that the job reads running; the
// chunk's record then writes progress under that start.
func TestALongFirstChunkReadsRunning(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	k := Define("test:long-chunk", Options{}, func(ctx context.Context, r *Run, _ struct{}) (any, error) {
		return r.Chunks(ctx, 2, 20, func(_ context.Context, _ pgx.Tx, i int) (any, int64, error) {
			if i == 0 {
				<-release
			}
			return i, 10, nil
		})
	})
	p := startPlatform(t, []*Kind{k})
	job := p.submit(t, "test:long-chunk", struct{}{})
	running := p.wait(t, job.ID, storage.JobRunning)
	close(release)
	if running.Progress != (storage.Progress{Done: 0, Total: 20}) || running.Attempts != 1 {
		t.Errorf("while its first chunk runs: progress %+v, attempts %d", running.Progress, running.Attempts)
	}
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded || string(done.Result) != "[0,1]" || done.Attempts != 1 ||
		done.Progress != (storage.Progress{Done: 20, Total: 20}) {
		t.Fatalf("job %+v", done)
	}
}

// A run whose start is written on its own while its first chunk commits
// (the start after 100 ms, racing the chunk's record) loses neither: the
// chunk is recorded once and the run goes on.
func TestAStartRacingTheFirstChunk(t *testing.T) {
	t.Parallel()
	calls := make(chan int, 64)
	k := Define("test:race-chunk", Options{}, func(ctx context.Context, r *Run, _ struct{}) (any, error) {
		return r.Chunks(ctx, 2, 2, func(_ context.Context, _ pgx.Tx, i int) (any, int64, error) {
			calls <- i
			if i == 0 {
				time.Sleep(startAfter - 2*time.Millisecond)
			}
			return i, 1, nil
		})
	})
	p := startPlatform(t, []*Kind{k})
	for range 10 {
		done := p.wait(t, p.submit(t, "test:race-chunk", struct{}{}).ID, storage.JobSucceeded, storage.JobFailed)
		if done.State != storage.JobSucceeded || done.Attempts != 1 || string(done.Result) != "[0,1]" {
			t.Fatalf("job %+v", done)
		}
	}
	close(calls)
	seen := map[int]int{}
	for i := range calls {
		seen[i]++
	}
	if seen[0] != 10 || seen[1] != 10 {
		t.Errorf("chunks run %v, want each 10 times", seen)
	}
}
