package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/lograte"
	"github.com/propfin/propfin/storage"
)

// taskRef is the whole asynq task payload: which job to run. The job's
// own payload stays in PostgreSQL.
type taskRef struct {
	Company    int64  `json:"company"`
	Job        int64  `json:"job"`
	Generation int    `json:"generation,omitempty"`
	Lane       string `json:"lane,omitempty"`
}

// WorkerConfig wires a Worker.
type WorkerConfig struct {
	Pool  *pgxpool.Pool
	Redis asynq.RedisConnOpt
	Kinds *Registry
	// Concurrency is how many jobs run at once (default: the CPUs).
	Concurrency int
	// ShutdownTimeout is how long running jobs may go on after SIGTERM
	// before they are handed back to the queue (default 25s).
	ShutdownTimeout time.Duration
	// ChunkPause is a pause between the chunks of a chunked job, to keep
	// bulk work from taking the whole database (default none).
	ChunkPause time.Duration
	// RetryDelay is the wait before retry n (from 0); default RetryDelay.
	// A kind with a RetryDelay of its own follows that one.
	RetryDelay func(n int) time.Duration
	// Dedicated sets the concurrency of the dedicated queues
	// (DedicatedQueues' defaults otherwise): each is served by an asynq
	// server of its own, beside the one of the weighted queues.
	Dedicated map[string]int
	// CompanyChunks is how many chunks of the heavy kinds one company may
	// have in flight at once, across every worker (jobs/fairness.go); 0:
	// no limit.
	CompanyChunks int
	Metrics       *Metrics
	Logger        *slog.Logger
}

// DefaultShutdownTimeout is how long a worker lets running jobs finish.
const DefaultShutdownTimeout = 25 * time.Second

// RetryDelay is the default wait before retry n: 5 s doubling to at most
// 10 minutes, with a fifth of jitter so that retries of many jobs spread.
func RetryDelay(n int) time.Duration {
	d := 5 * time.Second << min(n, 7)
	d = min(d, 10*time.Minute)
	return d - time.Duration(rand.Int64N(int64(d/5)))
}

// Worker runs jobs: an asynq server whose handlers load the job row, mark
// it running, do the kind's work and write the outcome.
type Worker struct {
	cfg WorkerConfig
	srv *asynq.Server
	// dedicated serve the dedicated queues a kind of cfg.Kinds runs on
	dedicated []*asynq.Server
	lanes     *lanes
	fair      *fairHints
	mux       *asynq.ServeMux
	log       *slog.Logger
	loads     *groupCommit[storage.TaskRef, startResult]
	starts    *groupCommit[storage.RunStartAt, bool]
	outcomes  *groupCommit[storage.Outcome, bool]
	running   sync.WaitGroup // the runs in progress
	inFlight  atomic.Int64   // how many: the group commits linger while others may join
	// stopping is set once the worker is shutting down: a run whose
	// context ends before lost its task's lease (Redis did not answer).
	stopping atomic.Bool
	// asynqLog is asynq's logger, shared by the worker's servers
	asynqLog asynqLogger
}

// What a run interrupted says, in its job's error and in the log.
const (
	interruptedByShutdown = "The run was interrupted by a worker shutdown."
	interruptedLostRedis  = "The run was interrupted: its worker lost Redis (the lease on its task lapsed)."
)

// interruption is what a run ended by its context says: a shutdown, or
// Redis lost.
func (w *Worker) interruption() string {
	if w.stopping.Load() {
		return interruptedByShutdown
	}
	return interruptedLostRedis
}

// startResult is a job to run, as read when its task was taken, or ok
// false when it had nothing to run.
type startResult struct {
	job storage.Job
	ok  bool
}

// NewWorker builds a worker for every kind of cfg.Kinds.
func NewWorker(cfg WorkerConfig) *Worker {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = runtime.NumCPU()
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.RetryDelay == nil {
		cfg.RetryDelay = RetryDelay
	}
	w := &Worker{cfg: cfg, log: cfg.Logger, lanes: newLanes(), fair: newFairHints(), asynqLog: newAsynqLogger(cfg.Logger)}
	w.loads = newGroupCommit(w.loadJobs)
	w.starts = newGroupCommit(w.startRuns)
	w.outcomes = newGroupCommit(w.finishJobs)
	// a task's read and its run's outcome wait for the others in flight a
	// moment, so that a statement carries more of them
	inFlight := func() int { return int(w.inFlight.Load()) }
	w.loads.linger(inFlight)
	w.outcomes.linger(inFlight)
	w.srv = asynq.NewServer(cfg.Redis, w.serverConfig(cfg.Concurrency, QueueWeights))
	for _, queue := range cfg.Kinds.dedicatedQueues() {
		n := DedicatedQueues[queue]
		if c, ok := cfg.Dedicated[queue]; ok && c > 0 {
			n = c
		}
		dc := w.serverConfig(n, map[string]int{queue: 1})
		// the tasks a full lane handed back come again spread out, not
		// once a second all at once
		dc.DelayedTaskCheckInterval = 100 * time.Millisecond
		w.dedicated = append(w.dedicated, asynq.NewServer(cfg.Redis, dc))
	}
	w.mux = asynq.NewServeMux()
	w.mux.Use(w.recoverPanics, w.keepLanes, w.logAndMeasure)
	for _, name := range cfg.Kinds.Names() {
		w.mux.HandleFunc(name, w.handle)
	}
	return w
}

// serverConfig is the asynq configuration of a server of the worker.
func (w *Worker) serverConfig(concurrency int, queues map[string]int) asynq.Config {
	return asynq.Config{
		Concurrency:              concurrency,
		Queues:                   queues,
		ShutdownTimeout:          w.cfg.ShutdownTimeout,
		TaskCheckInterval:        100 * time.Millisecond,
		DelayedTaskCheckInterval: time.Second,
		RetryDelayFunc:           w.retryDelay,
		// a database or Redis that does not answer spends no retry, nor
		// a lane that is full, nor a run that gave way to other companies
		IsFailure: func(err error) bool {
			return !transient(err) && !errors.Is(err, errLaneBusy) && !errors.Is(err, errYield)
		},
		Logger:   w.asynqLog,
		LogLevel: asynq.WarnLevel,
	}
}

// retryDelay is the wait before a task runs again: about a second for a
// lane that was full or a run that gave way to other companies, the kind's
// schedule when it has one, else the
// worker's.
func (w *Worker) retryDelay(n int, err error, t *asynq.Task) time.Duration {
	if errors.Is(err, errLaneBusy) {
		return laneDelay(err)
	}
	if errors.Is(err, errYield) {
		return yieldWait()
	}
	if k, ok := w.cfg.Kinds.Kind(t.Type()); ok && k.RetryDelay != nil {
		return k.RetryDelay(n)
	}
	return w.cfg.RetryDelay(n)
}

// Run works until ctx ends, then stops taking tasks and lets running ones
// finish for up to the shutdown timeout; unfinished ones go back to the
// queue and run again (their rows count the attempt).
func (w *Worker) Run(ctx context.Context) error {
	// the group commits outlive ctx: running jobs record their outcome
	// during the shutdown
	writes, stopWrites := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWrites()
	go w.loads.run(writes)
	go w.starts.run(writes)
	go w.outcomes.run(writes)
	if err := w.srv.Start(w.mux); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	for _, srv := range w.dedicated {
		if err := srv.Start(w.mux); err != nil {
			w.srv.Shutdown()
			return fmt.Errorf("start worker: %w", err)
		}
	}
	w.log.Info("worker started", "concurrency", w.cfg.Concurrency, "kinds", strings.Join(w.cfg.Kinds.Names(), ","))
	<-ctx.Done()
	w.stopping.Store(true)
	w.log.Info("worker stopping: finishing running jobs", "timeout", w.cfg.ShutdownTimeout.String())
	var shutdowns sync.WaitGroup
	for _, srv := range append([]*asynq.Server{w.srv}, w.dedicated...) {
		shutdowns.Go(srv.Shutdown)
	}
	shutdowns.Wait()
	// past the timeout asynq hands the tasks back without waiting for
	// their runs, which stop at their next chunk and record it
	w.waitRuns(finishTimeout)
	return nil
}

// waitRuns waits for the runs in progress, at most d.
func (w *Worker) waitRuns(d time.Duration) {
	done := make(chan struct{})
	go func() { w.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		w.log.Warn("worker stopped with runs still in progress")
	}
}

// loadJobs reads the jobs of a group of tasks, in one statement; nothing
// is written until a run needs its start recorded (Run.started) or ends.
func (w *Worker) loadJobs(ctx context.Context, tasks []storage.TaskRef) ([]startResult, error) {
	started, err := storage.LoadRuns(ctx, w.cfg.Pool, tasks)
	if err != nil {
		return nil, err
	}
	// a task given twice in one group (delivered again while its first
	// run starts) starts once; a task of another generation than the row's
	// starts nothing
	out := make([]startResult, len(tasks))
	seen := make(map[storage.TaskRef]bool, len(tasks))
	for i, t := range tasks {
		job, ok := started[t.JobRef]
		out[i].job, out[i].ok = job, ok && job.Generation == t.Generation && !seen[t]
		seen[t] = true
	}
	return out, nil
}

// startRuns records a group of runs' starts, in one statement.
func (w *Worker) startRuns(ctx context.Context, starts []storage.RunStartAt) ([]bool, error) {
	done, err := storage.StartRuns(ctx, w.cfg.Pool, starts)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(starts))
	for i, s := range starts {
		out[i] = done[s.RunRef]
	}
	return out, nil
}

// finishJobs records a group of outcomes, in one statement.
func (w *Worker) finishJobs(ctx context.Context, outcomes []storage.Outcome) ([]bool, error) {
	done, err := storage.FinishJobs(ctx, w.cfg.Pool, outcomes)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(outcomes))
	for i, o := range outcomes {
		out[i] = done[o.RunRef]
	}
	return out, nil
}

// handle runs the job a task names. It is idempotent: a task delivered
// again for a finished or canceled job does nothing, and a run resumed
// after an interruption skips the chunks already recorded.
func (w *Worker) handle(ctx context.Context, t *asynq.Task) (err error) {
	var ref taskRef
	if err := json.Unmarshal(t.Payload(), &ref); err != nil || ref.Job == 0 {
		return permanent(fmt.Errorf("task %s: bad payload %q", t.Type(), t.Payload()))
	}
	kind, ok := w.cfg.Kinds.Kind(t.Type())
	if !ok {
		return permanent(fmt.Errorf("no kind %q in this worker", t.Type()))
	}
	if kind.Heavy && w.cfg.CompanyChunks > 0 {
		if w.fair.mayBeFull(ref.Company) {
			if full, err := companyAtLimit(ctx, w.cfg.Pool, ref.Company, w.cfg.CompanyChunks); err == nil && full {
				w.fair.gaveWay(ref.Company)
				return errYield // the row stays as it was: nothing was started
			}
		}
		w.fair.begin(ref.Company)
		defer func() { w.fair.end(ref.Company, errors.Is(err, errYield)) }()
	}
	taken := time.Now()
	start, err := w.loads.do(ctx, storage.TaskRef{JobRef: storage.JobRef{CompanyID: ref.Company, ID: ref.Job}, Generation: ref.Generation})
	if err != nil {
		return fmt.Errorf("start job %d: %w", ref.Job, err)
	}
	if !start.ok {
		w.log.Debug("job has nothing to run", "job_id", ref.Job, "company_id", ref.Company, "kind", kind.Name)
		return nil
	}
	run := w.newRun(start.job, taken)
	if info, ok := ctx.Value(runInfoKey{}).(*runInfo); ok {
		info.attempt = run.Job.Attempts
	}
	w.log.Info("job started", "job_id", run.Job.ID, "company_id", run.Job.CompanyID, "kind", kind.Name, "attempt", run.Job.Attempts)
	if kind.Heavy {
		run.companyChunks = w.cfg.CompanyChunks
	}
	if retried, _ := asynq.GetRetryCount(ctx); retried > kind.MaxRetry {
		// more failed runs than the kind allows, none of which recorded its
		// failure: each lost its worker (a job that kills it)
		err := w.record(context.WithoutCancel(ctx), kind, storage.Outcome{RunRef: run.Job.Run(), State: storage.JobFailed,
			Error: fmt.Sprintf("Its runs kept being interrupted (%d attempts); it was given up.", run.Job.Attempts), Start: run.closeStart()})
		return permanent(errors.Join(err, errors.New("runs kept being interrupted")))
	}
	// a run that goes on has its start written, so that it reads running
	timer := time.AfterFunc(startAfter, func() { run.started(ctx) }) //nolint:errcheck // the next write of the run finds it over
	result, runErr := w.runKind(ctx, kind, run)
	timer.Stop()
	return w.finish(ctx, kind, run, result, runErr)
}

// newRun is the run of job, read when its task was taken: its attempt is
// the one after the row's, running, and its start is written when it
// needs it (lazyStart).
func (w *Worker) newRun(job storage.Job, taken time.Time) *Run {
	generation, pending := job.Generation, job.State == storage.JobPending
	job.Attempts++
	job.State = storage.JobRunning
	if job.StartedAt == nil {
		job.StartedAt = &taken
	}
	return &Run{Job: job, pool: w.cfg.Pool, pause: w.cfg.ChunkPause, fresh: pending, start: &lazyStart{
		began: taken, start: storage.RunStart{Generation: generation}, write: w.starts.do}}
}

// runKind calls the kind's handler, turning a panic into an error so that
// the job row records it.
func (w *Worker) runKind(ctx context.Context, kind *Kind, run *Run) (result any, err error) {
	defer func() {
		if v := recover(); v != nil {
			w.log.Error("job panicked", "job_id", run.Job.ID, "company_id", run.Job.CompanyID, "kind", kind.Name, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return kind.run(ctx, run, run.Job.Payload)
}

// finishTimeout bounds the final write, which must happen even when the
// run's context was cancelled by a shutdown.
const finishTimeout = 10 * time.Second

// finish writes a run's outcome: succeeded with the result; failed with
// the error once no retry is left or retrying cannot help; else queued
// again with the error, for asynq to retry. Every write is fenced by the
// run's attempt.
func (w *Worker) finish(ctx context.Context, kind *Kind, run *Run, result any, runErr error) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	job, start := run.Job, run.closeStart()
	if errors.Is(runErr, errStopped) {
		w.stopped(wctx, kind, job)
		return nil
	}
	if errors.Is(runErr, errYield) {
		if start == nil { // a run whose start is not written has nothing to undo
			w.yielded(wctx, job)
		}
		return runErr // asynq takes it again after yieldWait, no retry spent
	}
	if runErr == nil {
		enc, err := json.Marshal(result)
		if err == nil {
			return w.record(wctx, kind, storage.Outcome{RunRef: job.Run(), State: storage.JobSucceeded, Result: enc, Start: start})
		}
		runErr = permanent(fmt.Errorf("encode result: %w", err))
	}
	if errors.Is(runErr, context.Canceled) && ctx.Err() != nil {
		// the worker is shutting down, or lost the task's lease: asynq
		// hands the task back (the relay enqueues it again once Redis is
		// back, when it lost it)
		if err := storage.RequeueRun(wctx, w.cfg.Pool, storage.Outcome{RunRef: job.Run(),
			Error: w.interruption(), Start: start}); err != nil {
			w.log.Warn("requeue interrupted job", "job_id", job.ID, "company_id", job.CompanyID, "err", err)
		}
		return runErr
	}
	message := w.publicMessage(job, runErr)
	retried, _ := asynq.GetRetryCount(ctx) // failed runs before this one
	if !transient(runErr) && (errors.Is(runErr, asynq.SkipRetry) || retried >= kind.MaxRetry) {
		if err := w.record(wctx, kind, storage.Outcome{RunRef: job.Run(), State: storage.JobFailed, Error: message, Start: start}); err != nil {
			return fmt.Errorf("%w (failure: %w)", err, runErr)
		}
		return permanent(runErr)
	}
	if err := storage.RequeueRun(wctx, w.cfg.Pool, storage.Outcome{RunRef: job.Run(), Error: message, Start: start}); err != nil {
		w.log.Warn("record retry of job", "job_id", job.ID, "company_id", job.CompanyID, "err", err)
	}
	return runErr
}

// record writes a run's final outcome; a failure to write it is
// transient: the task is retried, and the run resumes.
func (w *Worker) record(ctx context.Context, kind *Kind, o storage.Outcome) error {
	o.Events = kind.events(o.State)
	ok, err := w.outcomes.do(ctx, o)
	if err != nil {
		return fmt.Errorf("record %s of job %d: %w", o.State, o.ID, err)
	}
	if ok {
		w.cfg.Metrics.finished(kind.Name, o.State)
	}
	return nil
}

// stopped ends a run that found itself over, counting a cancel as one.
func (w *Worker) stopped(ctx context.Context, kind *Kind, job storage.Job) {
	now, err := storage.GetJob(ctx, w.cfg.Pool, job.CompanyID, job.ID)
	if err == nil && now.State == storage.JobCanceled {
		w.cfg.Metrics.finished(kind.Name, storage.JobCanceled)
	}
	w.log.Info("run stopped", "job_id", job.ID, "company_id", job.CompanyID, "kind", kind.Name, "attempt", job.Attempts, "state", now.State)
}

// transient says whether err is a database or Redis that did not answer,
// or a conflict to retry: retrying mends it, and it spends no retry.
func transient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false // a run over its timeout counts; a shutdown is handled apart
	}
	code := finance.ErrorCode(err)
	return code == finance.Unavailable || code == finance.Retryable
}

// publicMessage is what the job row says of a failure: a coded error's
// message (with its problems), which is written for clients; for anything
// else only that it failed, the cause going to the log.
func (w *Worker) publicMessage(job storage.Job, err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "The job ran longer than its timeout."
	}
	var coded *finance.Error
	if errors.As(err, &coded) && coded.Code != finance.Internal {
		var b strings.Builder
		b.WriteString(coded.Message)
		for _, p := range coded.Problems {
			fmt.Fprintf(&b, " %s: %s.", p.Field, p.Message)
		}
		return storableText(b.String())
	}
	w.log.Error("job failed: internal error", "job_id", job.ID, "company_id", job.CompanyID, "kind", job.Kind, "err", err)
	return fmt.Sprintf("Internal error (job %d); the cause is in the worker's log.", job.ID)
}

// storableText is text PostgreSQL takes: valid UTF-8 without NUL.
func storableText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// recoverPanics is the outermost middleware: a panic outside a kind's
// handler (which runKind already catches) becomes an error, logged.
func (w *Worker) recoverPanics(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) (err error) {
		defer func() {
			if v := recover(); v != nil {
				w.log.Error("task panicked", "kind", t.Type(), "panic", v, "stack", string(debug.Stack()))
				err = fmt.Errorf("panic: %v", v)
			}
		}()
		return next.ProcessTask(ctx, t)
	})
}

// runInfo is what the log line of a task's outcome says of its run:
// handle fills the attempt in once it has read the job.
type runInfo struct{ attempt int }

type runInfoKey struct{}

// logAndMeasure logs each run's outcome with its job, company, attempt
// and duration, and records its duration.
func (w *Worker) logAndMeasure(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		w.running.Add(1)
		w.inFlight.Add(1)
		defer func() { w.inFlight.Add(-1); w.running.Done() }()
		start := time.Now()
		info := &runInfo{}
		err := next.ProcessTask(context.WithValue(ctx, runInfoKey{}, info), t)
		elapsed := time.Since(start)
		if !errors.Is(err, errYield) { // a task that gave way did no work
			w.cfg.Metrics.observe(t.Type(), elapsed)
		}
		var ref taskRef
		_ = json.Unmarshal(t.Payload(), &ref) // a bad payload logs zeros: its error says it
		attrs := []any{"job_id", ref.Job, "company_id", ref.Company, "kind", t.Type(), "attempt", info.attempt,
			"duration", elapsed.String()}
		w.logOutcome(ctx, err, info.attempt, attrs)
		return err
	})
}

// logOutcome writes the line of a run's outcome: INFO for a success or a
// shutdown's hand-back, WARN for a failure (with its problems) or a lost
// Redis, DEBUG for a task that had nothing to run or gave way.
func (w *Worker) logOutcome(ctx context.Context, err error, attempt int, attrs []any) {
	if p := problemsOf(err); p != "" {
		attrs = append(attrs, "problems", p)
	}
	switch {
	case err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil && w.stopping.Load():
		w.log.Info("job run interrupted by the shutdown; handed back to the queue", attrs...)
	case err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil:
		w.log.Warn("job run interrupted: the worker lost Redis (its lease on the task lapsed); the job waits for Redis", attrs...)
	case errors.Is(err, errYield):
		w.log.Debug("job run gave way to other companies; it waits its turn", attrs...)
	case errors.Is(err, asynq.SkipRetry):
		w.log.Warn("job run failed; the job failed, not retried", append(attrs, "err", err)...)
	case err != nil:
		w.log.Warn("job run failed; it is retried", append(attrs, "err", err)...)
	case attempt == 0: // the task had nothing to run
		w.log.Debug("job task done; nothing to run", attrs...)
	default:
		w.log.Info("job succeeded", attrs...)
	}
}

// problemsOf is a coded error's problems in one line ("field: message;
// ..."), "" when it has none.
func problemsOf(err error) string {
	var coded *finance.Error
	if !errors.As(err, &coded) || len(coded.Problems) == 0 {
		return ""
	}
	parts := make([]string, len(coded.Problems))
	for i, p := range coded.Problems {
		parts[i] = p.Field + ": " + p.Message
	}
	return strings.Join(parts, "; ")
}

// asynqLogger sends asynq's own log lines to slog under "library" asynq,
// as go-redis's are (the worker's logger names its component already), and
// keeps those of a Redis that does not answer to one line per
// redisLogEvery, saying how many were left out: asynq writes several a
// second while it retries.
type asynqLogger struct {
	log   *slog.Logger
	limit *lograte.Limiter
}

// redisLogEvery is the most often asynq's lines of an unreachable Redis
// are written.
const redisLogEvery = 10 * time.Second

func newAsynqLogger(log *slog.Logger) asynqLogger {
	return asynqLogger{log: log.With("library", "asynq"), limit: lograte.New(redisLogEvery)}
}

func (l asynqLogger) Debug(args ...any) { l.log.Debug(fmt.Sprint(args...)) }
func (l asynqLogger) Info(args ...any)  { l.log.Info(fmt.Sprint(args...)) }
func (l asynqLogger) Warn(args ...any)  { l.limited(slog.LevelWarn, fmt.Sprint(args...)) }
func (l asynqLogger) Error(args ...any) { l.limited(slog.LevelError, fmt.Sprint(args...)) }
func (l asynqLogger) Fatal(args ...any) { l.log.Error(fmt.Sprint(args...)); os.Exit(1) }

// limited writes msg, unless it is one more line of a Redis that does not
// answer within redisLogEvery of the last.
func (l asynqLogger) limited(level slog.Level, msg string) {
	if !redisDown(msg) {
		l.log.Log(context.Background(), level, msg)
		return
	}
	if ok, n := l.limit.Allow("redis"); ok {
		l.log.Log(context.Background(), level, msg, "dependency", "redis", "suppressed", n, "per", redisLogEvery.String())
	}
}

// redisDown says whether an asynq line is about a Redis it cannot reach.
func redisDown(msg string) bool {
	for _, s := range []string{"connection refused", "i/o timeout", "dial tcp", "connect:", "EOF", "connection reset",
		"UNKNOWN: redis", "no such host", "broken pipe", "context deadline exceeded"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
