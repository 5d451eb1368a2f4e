package jobs

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
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

// hintMemory is how long a worker remembers that a company's run gave way
// to the others: meanwhile its heavy tasks look at pg_locks first.
const hintMemory = 10 * time.Second

// fairHints is what one worker knows of its companies' heavy work, so that
// it looks at pg_locks (companyAtLimit) only for a company that may be at
// its limit: one with another heavy run on this worker, or whose run gave
// way here a moment ago. A company at its limit through other workers
// alone is found by its first chunk's try of a slot, which then costs that
// try and writes nothing (the run's start is written with its first
// chunk); the yield then makes its next tasks here look first.
type fairHints struct {
	mu       sync.Mutex
	inFlight map[int64]int       // heavy runs of the company on this worker
	yielded  map[int64]time.Time // when a run of the company last gave way here
}

func newFairHints() *fairHints {
	return &fairHints{inFlight: map[int64]int{}, yielded: map[int64]time.Time{}}
}

// mayBeFull says whether the company may have every slot taken: the look
// at pg_locks is worth its statement.
func (h *fairHints) mayBeFull(company int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.inFlight[company] > 0 {
		return true
	}
	at, ok := h.yielded[company]
	if ok && time.Since(at) >= hintMemory {
		delete(h.yielded, company)
		return false
	}
	return ok
}

// begin counts a heavy run of the company in flight; end uncounts it, and
// notes that it gave way when it did.
func (h *fairHints) begin(company int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inFlight[company]++
}

func (h *fairHints) end(company int64, gaveWay bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.inFlight[company]--; h.inFlight[company] <= 0 {
		delete(h.inFlight, company)
	}
	if gaveWay {
		h.noteYield(company)
	}
}

// noteYield remembers that a run of the company gave way; h.mu is held.
func (h *fairHints) noteYield(company int64) {
	if len(h.yielded) >= 4096 { // forget what is past its memory
		for c, at := range h.yielded {
			if time.Since(at) >= hintMemory {
				delete(h.yielded, c)
			}
		}
	}
	h.yielded[company] = time.Now()
}

// gaveWay notes a task of the company that gave way before it ran.
func (h *fairHints) gaveWay(company int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.noteYield(company)
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
		w.log.Warn("record the yield of job", "job_id", job.ID, "company_id", job.CompanyID, "err", err)
	}
}

// yieldWait is the wait of a task that gave way before it is taken again.
func yieldWait() time.Duration {
	return yieldDelay + time.Duration(rand.Int64N(int64(yieldDelay)))
}
