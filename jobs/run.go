package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
)

// errStopped ends a run that is over while it works: its job was
// canceled, or a later run took it over. The worker ends the task
// without writing anything.
var errStopped = errors.New("the run is over: the job was canceled or taken over by a later run")

// permanent marks an error that retrying cannot mend (a bad payload, a
// rule broken by the data): the job ends failed at once. It reads as err
// (asynq.SkipRetry's own text is not added), and an error marked already
// is returned as it is.
func permanent(err error) error {
	if errors.Is(err, asynq.SkipRetry) {
		return err
	}
	return permanentError{err}
}

// permanentError is an error retrying cannot mend: asynq.SkipRetry to
// errors.Is (which asynq and the worker ask), its cause's text to anyone
// who prints it.
type permanentError struct{ cause error }

func (e permanentError) Error() string   { return e.cause.Error() }
func (e permanentError) Unwrap() []error { return []error{e.cause, asynq.SkipRetry} }

// Permanent is permanent for handlers of other packages.
func Permanent(err error) error { return permanent(err) }

// Run is one run of a job, handed to its kind's handler: the job row as it
// was when the run started, and the means to record progress and chunks.
// Every write of a run is fenced by its attempt: a run taken over by a
// later one writes nothing more.
type Run struct {
	Job storage.Job

	pool  *pgxpool.Pool
	pause time.Duration // between chunks (PROPFIN_JOB_CHUNK_PAUSE)
	// companyChunks is the company's limit of heavy chunks in flight, for a
	// heavy kind (fairness.go); 0: none.
	companyChunks int
	// start is the run's start while it is not written; nil: written
	// (a run made outside a worker).
	start *lazyStart
	// fresh says the job was pending when the run took it: no run has
	// recorded a chunk of it (a retry through the API drops them), so
	// there are none to read.
	fresh bool
	// outputs are the chunks earlier runs recorded, once read
	// (ChunkOutputs).
	outputs map[int]json.RawMessage
}

// lazyStart is a run's start, written only when the run needs it: before
// its first progress or chunk, once it has run for startAfter, or else
// with its outcome, in the same statement (a short job is written once by
// its worker). Its lock is held while the start is written, so that the
// outcome, which closes it, waits for a start in flight.
type lazyStart struct {
	mu      sync.Mutex
	began   time.Time
	start   storage.RunStart
	written bool
	over    bool // the start found the run over: canceled, or another run's
	closed  bool // the outcome is being written: no start any more
	// progress is what a start written on its own records with it: a
	// chunked run's size before its first chunk (Chunks); nil: none.
	progress *storage.Progress
	write    func(context.Context, storage.RunStartAt) (bool, error)
}

// startAfter is how long a run goes on before its start is written even
// though it has recorded nothing: a job that runs longer reads running.
const startAfter = 100 * time.Millisecond

// started writes the run's start if it is not written yet; it fails with
// errStopped when the run is over.
func (r *Run) started(ctx context.Context) error {
	s := r.start
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.over:
		return errStopped
	case s.written || s.closed:
		return nil
	}
	start := s.start
	start.Ran = time.Since(s.began)
	ok, err := s.write(ctx, storage.RunStartAt{RunRef: r.Job.Run(), RunStart: start, Progress: s.progress})
	if err != nil {
		return fmt.Errorf("start job %d: %w", r.Job.ID, err)
	}
	if !ok {
		s.over = true
		return errStopped
	}
	s.written = true
	return nil
}

// closeStart ends the run's lazy start: the start its outcome must record
// too, or nil when it is written.
func (r *Run) closeStart() *storage.RunStart {
	s := r.start
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.written {
		return nil
	}
	start := s.start
	start.Ran = time.Since(s.began)
	return &start
}

// startWithChunk holds the run's start for the record of a chunk: the
// start the record must write too (nil when it is written), and the
// function to call once the chunk's transaction has ended, committed or
// not. Until then the start is not written by anyone else, so that a
// start written on its own (startAfter) does not overtake the chunk's.
func (r *Run) startWithChunk() (start *storage.RunStart, release func(committed bool), err error) {
	s := r.start
	if s == nil {
		return nil, func(bool) {}, nil
	}
	s.mu.Lock()
	if s.over {
		s.mu.Unlock()
		return nil, nil, errStopped
	}
	if s.written || s.closed {
		s.mu.Unlock()
		return nil, func(bool) {}, nil
	}
	st := s.start
	st.Ran = time.Since(s.began)
	return &st, func(committed bool) {
		s.written = s.written || committed
		s.mu.Unlock()
	}, nil
}

// deferStart says whether the run's start is not written yet, so that its
// first chunk can record it; it notes progress as what a start written on
// its own records meanwhile (nil: the row's progress as it is).
func (r *Run) deferStart(progress *storage.Progress) bool {
	s := r.start
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written || s.over || s.closed {
		return false
	}
	s.progress = progress
	return true
}

// ChunkOutputs returns the outputs earlier runs recorded for the job's
// chunks, by chunk number: read once a run, and not at all for a job that
// was pending when the run took it (it has none).
func (r *Run) ChunkOutputs(ctx context.Context) (map[int]json.RawMessage, error) {
	if r.outputs != nil {
		return r.outputs, nil
	}
	if r.fresh {
		r.outputs = map[int]json.RawMessage{}
		return r.outputs, nil
	}
	done, err := storage.JobChunkOutputs(ctx, r.pool, r.Job.CompanyID, r.Job.ID)
	if err != nil {
		return nil, err
	}
	r.outputs = done
	return done, nil
}

// beginChunks starts a chunked run: its recorded chunks, and, when there
// are none, the job's size recorded as its progress; a resumed run keeps
// the progress its last recorded chunk wrote. A run whose start is not
// written leaves both to its first chunk's record, which writes the start
// too.
func (r *Run) beginChunks(ctx context.Context, total int64) (map[int]json.RawMessage, error) {
	done, err := r.ChunkOutputs(ctx)
	if err != nil {
		return nil, err
	}
	var fresh *storage.Progress // nil: a resumed run keeps the recorded progress
	if len(done) == 0 {
		fresh = &storage.Progress{Total: total}
	}
	if r.deferStart(fresh) {
		return done, nil
	}
	if err := r.started(ctx); err != nil {
		return nil, err
	}
	if len(done) == 0 {
		if err := r.Progress(ctx, 0, total); err != nil {
			return nil, err
		}
	}
	return done, nil
}

// CompanyID is the company the job works for.
func (r *Run) CompanyID() int64 { return r.Job.CompanyID }

// Pool is the database, for handlers that write outside chunks.
func (r *Run) Pool() *pgxpool.Pool { return r.pool }

// Progress records how much is done; it fails with errStopped when the
// run is over.
func (r *Run) Progress(ctx context.Context, done, total int64) error {
	if err := r.started(ctx); err != nil {
		return err
	}
	running, err := storage.SetJobProgress(ctx, r.pool, r.Job.Run(), storage.Progress{Done: done, Total: total})
	if err != nil {
		return err
	}
	if !running {
		return errStopped
	}
	return nil
}

// ChunkFunc does chunk i of a job in tx, the transaction that also
// records the chunk: business rows written in tx commit with the record,
// or not at all. It returns the chunk's output (stored as JSON) and how
// many units of work the chunk held. It must be idempotent like any write
// of a job: unique keys and ON CONFLICT.
type ChunkFunc func(ctx context.Context, tx pgx.Tx, i int) (output any, units int64, err error)

// Chunks does a job in n chunks, in order, each in one transaction with
// its record and the job's progress, so that a run interrupted anywhere
// (a worker killed, a deploy) resumes after its last recorded chunk and no
// chunk is done twice. It returns every chunk's output, those of earlier
// runs included, in chunk order. total is the job's size in units, for
// progress. A chunk function holds one connection (its tx); it should not
// take another from Pool meanwhile.
func (r *Run) Chunks(ctx context.Context, n int, total int64, do ChunkFunc) ([]json.RawMessage, error) {
	outputs := make([]json.RawMessage, n)
	done, err := r.beginChunks(ctx, total)
	if err != nil {
		return nil, err
	}
	var units int64
	if len(done) > 0 {
		units = r.Job.Progress.Done
	}
	for i := 0; i < n; i++ {
		if out, ok := done[i]; ok {
			outputs[i] = out
			continue
		}
		if err := r.between(ctx); err != nil {
			return nil, err
		}
		out, u, err := r.chunk(ctx, i, units, total, do)
		if err != nil {
			return nil, err
		}
		units += u
		outputs[i] = out
	}
	return outputs, nil
}

// MaxChunksAtOnce is the most chunks of one run ChunksAtOnce has in
// flight, hence the most connections a run holds at once; a worker's pool
// is sized for it.
const MaxChunksAtOnce = 2

// ChunksAtOnce is Chunks with up to workers (at most MaxChunksAtOnce)
// chunks in flight, each in a transaction (and a connection) of its own,
// for a job whose chunks write disjoint rows. Chunk 0 is done alone
// first, so that what it records (a run's plan, which a resumed run reads
// back) is stored before any other chunk commits; the others start in
// order. Each chunk records the progress of the chunks committed before it
// and itself, so progress only grows. The first error stops the chunks not
// yet started and is returned once those in flight have ended (they roll
// back).
func (r *Run) ChunksAtOnce(ctx context.Context, n, workers int, total int64, do ChunkFunc) ([]json.RawMessage, error) {
	outputs := make([]json.RawMessage, n)
	done, err := r.beginChunks(ctx, total)
	if err != nil {
		return nil, err
	}
	progress := &chunkProgress{total: total}
	if len(done) > 0 {
		progress.done = r.Job.Progress.Done
	}
	var todo []int
	for i := range n {
		if out, ok := done[i]; ok {
			outputs[i] = out
		} else {
			todo = append(todo, i)
		}
	}
	if len(todo) > 0 && todo[0] == 0 {
		if outputs[0], err = r.doChunk(ctx, 0, do, progress); err != nil {
			return nil, err
		}
		todo = todo[1:]
	}
	return outputs, r.chunksInParallel(ctx, todo, min(workers, MaxChunksAtOnce), do, progress, outputs)
}

// chunksInParallel does the chunks todo on up to workers goroutines,
// storing each output at its index.
func (r *Run) chunksInParallel(ctx context.Context, todo []int, workers int, do ChunkFunc, progress *chunkProgress, outputs []json.RawMessage) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errs := make(chan error, max(workers, 1))
	var wg sync.WaitGroup
	for range max(min(workers, len(todo)), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out, err := r.doChunk(ctx, i, do, progress)
				if err != nil {
					errs <- err
					cancel()
					return
				}
				outputs[i] = out
			}
		}()
	}
	for _, i := range todo {
		if err := r.between(ctx); err != nil {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	if err, failed := <-errs; failed {
		return err
	}
	return context.Cause(ctx)
}

// chunkProgress is the units of the chunks committed, shared by the
// chunks in flight.
type chunkProgress struct {
	mu          sync.Mutex
	done, total int64
	inFlight    atomic.Int32 // chunks of the run in doChunk
}

// doChunk does and records chunk i in one transaction, with the progress
// of the chunks committed before it and its own, and the run's start when
// it is not written yet; the record and the commit hold progress's lock,
// so that chunks in flight together commit their progress one at a time,
// in the order of the amounts they record.
func (r *Run) doChunk(ctx context.Context, i int, do ChunkFunc, progress *chunkProgress) (json.RawMessage, error) {
	var enc json.RawMessage
	var units int64
	locked := false
	var release func(committed bool)
	progress.inFlight.Add(1)
	committed := false
	defer func() {
		progress.inFlight.Add(-1)
		if release != nil {
			release(committed)
		}
		if locked {
			progress.mu.Unlock()
		}
	}()
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if err := r.takeSlot(ctx, tx, func() bool { return progress.inFlight.Load() > 1 }); err != nil {
			return err
		}
		out, u, err := do(ctx, tx, i)
		if err != nil {
			return err
		}
		if enc, err = json.Marshal(out); err != nil {
			return fmt.Errorf("encode output: %w", err)
		}
		progress.mu.Lock()
		locked, units = true, u
		start, rel, err := r.startWithChunk()
		if err != nil {
			return err
		}
		release = rel
		running, err := storage.RecordJobChunkStart(ctx, tx, r.Job.Run(), start, i, enc,
			storage.Progress{Done: progress.done + u, Total: progress.total})
		if err != nil {
			return err
		}
		if !running {
			return errStopped // rolls the chunk's writes back
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("chunk %d: %w", i, err)
	}
	committed = true
	progress.done += units
	return enc, nil
}

// chunk does and records chunk i in one transaction, after the chunks
// that did before units; it returns the chunk's units.
func (r *Run) chunk(ctx context.Context, i int, before, total int64, do ChunkFunc) (json.RawMessage, int64, error) {
	progress := &chunkProgress{done: before, total: total}
	out, err := r.doChunk(ctx, i, do, progress)
	return out, progress.done - before, err
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
