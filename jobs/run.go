package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
)

// errCanceled stops a job canceled while it runs; the worker then ends the
// task without error (the job row already says canceled).
var errCanceled = errors.New("job canceled")

// permanent marks an error that retrying cannot mend (a bad payload, a
// rule broken by the data): the job ends failed at once.
func permanent(err error) error {
	return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
}

// Permanent is permanent for handlers of other packages.
func Permanent(err error) error { return permanent(err) }

// Run is one run of a job, handed to its kind's handler: the job row as it
// was when the run started, and the means to record progress and chunks.
type Run struct {
	Job storage.Job

	pool  *pgxpool.Pool
	pause time.Duration // between chunks (PROPFIN_JOB_CHUNK_PAUSE)
}

// CompanyID is the company the job works for.
func (r *Run) CompanyID() int64 { return r.Job.CompanyID }

// Pool is the database, for handlers that write their results in
// transactions of their own.
func (r *Run) Pool() *pgxpool.Pool { return r.pool }

// Progress records how much is done; it fails with errCanceled when the
// job was canceled meanwhile.
func (r *Run) Progress(ctx context.Context, done, total int64) error {
	running, err := storage.SetJobProgress(ctx, r.pool, r.Job.CompanyID, r.Job.ID, storage.Progress{Done: done, Total: total})
	if err != nil {
		return err
	}
	if !running {
		return errCanceled
	}
	return nil
}

// ChunkFunc does chunk i of a job and returns its output (stored as JSON)
// and how many units of work the chunk held.
type ChunkFunc func(ctx context.Context, i int) (output any, units int64, err error)

// Chunks does a job in n chunks, in order, each recorded with the job's
// progress in one transaction, so that a run interrupted anywhere (a
// worker killed, a deploy) resumes after its last recorded chunk and no
// chunk's output is recorded twice. It returns every chunk's output, those
// of earlier runs included, in chunk order. total is the job's size in
// units, for progress.
func (r *Run) Chunks(ctx context.Context, n int, total int64, do ChunkFunc) ([]json.RawMessage, error) {
	outputs := make([]json.RawMessage, n)
	done, err := storage.JobChunkOutputs(ctx, r.pool, r.Job.CompanyID, r.Job.ID)
	if err != nil {
		return nil, err
	}
	var units int64
	if len(done) > 0 {
		units = r.Job.Progress.Done
	} else if err := r.Progress(ctx, 0, total); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if out, ok := done[i]; ok {
			outputs[i] = out
			continue
		}
		if err := r.between(ctx); err != nil {
			return nil, err
		}
		out, u, err := do(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("chunk %d: %w", i, err)
		}
		enc, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("chunk %d: encode output: %w", i, err)
		}
		units += u
		running, err := storage.RecordJobChunk(ctx, r.pool, r.Job.CompanyID, r.Job.ID, i, enc, storage.Progress{Done: units, Total: total})
		if err != nil {
			return nil, err
		}
		if !running {
			return nil, errCanceled
		}
		outputs[i] = enc
	}
	return outputs, nil
}

// between is the pause between two chunks, and where a worker shutting
// down or a timeout stops the run.
func (r *Run) between(ctx context.Context) error {
	if r.pause <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(r.pause)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
