package jobs

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
)

// Fairness between companies (docs/jobs.md, "Fairness"): the chunks of the
// heavy kinds (Options.Heavy) take a slot of their company's
// WorkerConfig.CompanyChunks slots for their transaction, across every
// worker process: a PostgreSQL advisory lock held by the chunk's
// transaction (released at its commit or rollback, or when its connection
// dies). A run that finds its company's slots all taken gives its worker
// back: the job goes back to the queue, waiting, its attempt not counted
// and no retry spent, and resumes after its last recorded chunk about a
// second later. Meanwhile the worker takes the next task, another
// company's. So one company's heavy work takes at most CompanyChunks of
// the workers and of the database at a time, and the other companies'
// runs are not held behind it.

// DefaultCompanyChunks is the default limit of a company's heavy chunks in
// flight (PROPFIN_JOB_COMPANY_CHUNKS): two, so that a company alone on the
// workers still runs Run.ChunksAtOnce's two chunks, or two heavy runs.
const DefaultCompanyChunks = 2

// errYield ends a run whose company has every heavy slot taken: the job
// goes back to the queue and waits its turn.
var errYield = errors.New("the company's heavy chunks in flight are at their limit: the job waits its turn")

// fairNamespace is the first key of the advisory locks of the companies'
// slots (slot n is fairNamespace+n; the second key is the company).
const fairNamespace = 0x70660000

// yieldDelay is how long a job that gave its worker back waits before it
// is taken again (plus up to as much again of jitter).
const yieldDelay = time.Second

// slotPoll is the pause between two tries of a chunk that waits for a
// slot while another chunk of its run holds one.
const slotPoll = 50 * time.Millisecond

// takeSlot takes one of the company's heavy slots for tx. When every slot
// is taken, a chunk whose run has another chunk in flight waits for one
// (othersInFlight); any other gives up with errYield.
func (r *Run) takeSlot(ctx context.Context, tx pgx.Tx, othersInFlight func() bool) error {
	if r.companyChunks <= 0 {
		return nil
	}
	company := int32(r.Job.CompanyID % (1 << 31))
	for {
		var slot int32
		err := tx.QueryRow(ctx, `SELECT s FROM generate_series(0, $1::integer - 1) AS s
			WHERE pg_try_advisory_xact_lock($2::integer + s, $3::integer) LIMIT 1`,
			r.companyChunks, fairNamespace, company).Scan(&slot)
		if err == nil {
			return nil
		}
		if err != pgx.ErrNoRows {
			return err
		}
		if !othersInFlight() {
			return errYield
		}
		t := time.NewTimer(slotPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// companyAtLimit says whether every heavy slot of the company is taken
// now: a task of a heavy kind then gives way before its job is started
// (one look at pg_locks instead of a start, a chunk tried and a yield
// recorded). It is only a hint: a slot freed or taken meanwhile is found
// by the chunk's own try.
func companyAtLimit(ctx context.Context, db storage.DBTX, companyID int64, limit int) (bool, error) {
	var held int
	err := db.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
		AND classid BETWEEN $1::bigint AND $1::bigint + $2::bigint - 1 AND objid = $3::bigint`,
		fairNamespace, limit, companyID%(1<<31)).Scan(&held)
	return held >= limit, err
}

// yielded hands a run that gave way back to the queue: queued, its
// attempt uncounted.
func (w *Worker) yielded(ctx context.Context, job storage.Job) {
	if err := storage.YieldJob(ctx, w.cfg.Pool, job.Run()); err != nil {
		w.log.Warn("record the yield of job", "job", job.ID, "err", err)
	}
}

// yieldWait is the wait of a task that gave way before it is taken again.
func yieldWait() time.Duration {
	return yieldDelay + time.Duration(rand.Int64N(int64(yieldDelay)))
}
