package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/storage"
)

// RelayConfig wires a Relay.
type RelayConfig struct {
	Pool  *pgxpool.Pool
	Redis asynq.RedisConnOpt
	Kinds *Registry
	// Batch is how many jobs one pass takes (default 500).
	Batch int
	// Poll is the longest the relay sleeps without a notification
	// (default 50 ms): submissions signal it at most every
	// storage.NotifyEvery per process, so a job may wait this long.
	Poll time.Duration
	// QuietAfter is how long a queued or running job may go unchanged
	// before the relay checks that Redis still holds its task (default
	// 2 minutes).
	QuietAfter time.Duration
	Logger     *slog.Logger
}

// Relay moves pending job rows to asynq: the outbox's other half. It reads
// the jobs past its position in the outbox and moves the position past
// them, in one transaction (so several relays take turns and never read
// the same jobs), writing nothing on the job rows; it enqueues each with
// its job id as the task id (so a relay that runs twice enqueues once) and
// puts back before its position those Redis did not take. When Redis is
// down the rows stay pending and the relay tries again with a growing
// pause: nothing is lost. A LISTEN on the jobs channel wakes it as soon as
// a submission commits; a sweep enqueues again the jobs that went quiet
// (Redis lost them, or a relay died midway).
type Relay struct {
	cfg       RelayConfig
	client    *asynq.Client
	inspector *asynq.Inspector
	ping      redis.UniversalClient
	log       *slog.Logger
	wake      chan struct{}
}

// NewRelay builds a relay; Close releases its Redis client.
func NewRelay(cfg RelayConfig) *Relay {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 500
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultRelayPoll
	}
	if cfg.QuietAfter <= 0 {
		cfg.QuietAfter = 2 * time.Minute
	}
	return &Relay{cfg: cfg, client: asynq.NewClient(cfg.Redis), inspector: asynq.NewInspector(cfg.Redis),
		ping: cfg.Redis.MakeRedisClient().(redis.UniversalClient), log: cfg.Logger, wake: make(chan struct{}, 1)}
}

// Close releases the relay's Redis clients.
func (r *Relay) Close() error {
	return errors.Join(r.client.Close(), r.inspector.Close(), r.ping.Close())
}

// DefaultRelayPoll is how long a relay sleeps at most between passes
// without a notification.
const DefaultRelayPoll = 50 * time.Millisecond

// maxBackoff bounds the pause after failures.
const maxBackoff = 5 * time.Second

// Run relays until ctx ends.
func (r *Relay) Run(ctx context.Context) error {
	listening := make(chan struct{})
	go func() { r.listen(ctx); close(listening) }()
	defer func() { <-listening }()
	backoff := 50 * time.Millisecond
	nextSweep := time.Now().Add(r.cfg.QuietAfter / 2)
	var out outage
	for ctx.Err() == nil {
		n, err := r.RelayOnce(ctx)
		out.saw(err)
		if err == nil && out.due(time.Now()) {
			err = r.sweepWaiting(ctx)
		}
		if err == nil && time.Now().After(nextSweep) {
			err = r.sweep(ctx)
			nextSweep = time.Now().Add(r.cfg.QuietAfter / 2)
		}
		switch {
		case err != nil && ctx.Err() == nil:
			r.log.Warn("relay: jobs wait in PostgreSQL", "err", err, "retry_in", backoff.String())
			sleep(ctx, backoff)
			backoff = min(backoff*2, maxBackoff)
		case n >= r.cfg.Batch:
			backoff = 50 * time.Millisecond // more are waiting
		case n > 0:
			// submissions are coming, and not all of them signal: pass
			// again once the next have gathered
			backoff = 50 * time.Millisecond
			sleep(ctx, gather)
		default:
			backoff = 50 * time.Millisecond
			r.idle(ctx)
		}
	}
	return nil
}

// gather is how long the relay lets submissions gather after the first
// notification wakes it, so that a stream of them is taken in batches
// rather than one claim per job.
const gather = 5 * time.Millisecond

// idle waits for a notification, the poll interval or the end.
func (r *Relay) idle(ctx context.Context) {
	t := time.NewTimer(r.cfg.Poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-r.wake:
		sleep(ctx, gather)
	case <-t.C:
	}
}

// RelayOnce takes one batch of pending jobs to Redis and returns how many
// it took. Jobs it could not enqueue (Redis went away midway) are read
// again by the next pass.
func (r *Relay) RelayOnce(ctx context.Context) (int, error) {
	// read nothing while Redis does not answer: the rows wait as pending
	if err := r.ping.Ping(ctx).Err(); err != nil {
		return 0, fmt.Errorf("relay: %w: %w", errRedisDown, err)
	}
	next, err := storage.NextPendingJobs(ctx, r.cfg.Pool, r.cfg.Batch)
	if err != nil {
		return 0, fmt.Errorf("relay: %w", err)
	}
	failed, enqueueErr := r.enqueueAll(ctx, next)
	if len(failed) > 0 {
		// a relay that cannot put them back leaves them pending; the sweep
		// enqueues them once they are quiet
		if err := storage.RelayAgain(context.WithoutCancel(ctx), r.cfg.Pool, failed); err != nil {
			return len(next), fmt.Errorf("relay: %w (after: %w)", err, enqueueErr)
		}
	}
	if enqueueErr != nil {
		return len(next), fmt.Errorf("relay: enqueue: %w", enqueueErr)
	}
	return len(next), nil
}

// enqueuers is how many enqueues to Redis one relay has in flight.
const enqueuers = 16

// enqueueAll enqueues jobs, enqueuers at a time, and returns those that
// could not be; the error says why.
func (r *Relay) enqueueAll(ctx context.Context, pending []storage.PendingJob) ([]storage.PendingJob, error) {
	ok := make([]bool, len(pending))
	errs := make([]error, len(pending))
	var wg sync.WaitGroup
	sem := make(chan struct{}, enqueuers)
	for i, j := range pending {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = r.enqueue(ctx, j)
			ok[i] = errs[i] == nil
		}()
	}
	wg.Wait()
	var failed []storage.PendingJob
	for i, j := range pending {
		if !ok[i] {
			failed = append(failed, j)
		}
	}
	return failed, errors.Join(errs...)
}

// errRedisDown is the relay's ping of Redis failing.
var errRedisDown = errors.New("redis does not answer")

// leaseLapse is how long after Redis stops answering a worker's runs may
// go on before asynq's lease on their tasks (30 s) lapses and the worker
// hands them back (queued) at their next chunk.
const leaseLapse = 35 * time.Second

// outage follows a relay's view of Redis: once Redis answers again after
// its ping failed, the jobs waiting (pending or queued) are enqueued
// again at once, and again leaseLapse and a minute more after the outage
// began (those still ahead), for the runs handed back after Redis
// returned (a run stops at the end of the chunk it is in), rather than
// after PROPFIN_JOB_QUIET_AFTER: Redis may have lost their tasks.
type outage struct {
	began  time.Time // zero: none seen
	down   bool
	sweeps []time.Time // the waiting sweeps due
}

// saw notes the outcome of a pass.
func (o *outage) saw(err error) {
	now := time.Now()
	switch {
	case errors.Is(err, errRedisDown):
		if !o.down {
			o.down, o.began, o.sweeps = true, now, nil
		}
	case err == nil && o.down:
		o.down = false
		o.sweeps = []time.Time{now}
		for _, at := range []time.Time{o.began.Add(leaseLapse), o.began.Add(leaseLapse + time.Minute)} {
			if at.After(now) {
				o.sweeps = append(o.sweeps, at)
			}
		}
	}
}

// due says whether a waiting sweep is due at now, and takes it.
func (o *outage) due(now time.Time) bool {
	if len(o.sweeps) == 0 || now.Before(o.sweeps[0]) {
		return false
	}
	o.sweeps = o.sweeps[1:]
	return true
}

// sweepWaiting enqueues again every job pending or queued, after Redis
// came back: a task Redis still holds makes it a no-op.
func (r *Relay) sweepWaiting(ctx context.Context) error {
	var after storage.JobRef
	n := 0
	for {
		waiting, err := storage.WaitingJobs(ctx, r.cfg.Pool, after, r.cfg.Batch)
		if err != nil {
			return fmt.Errorf("sweep waiting jobs: %w", err)
		}
		for _, j := range waiting {
			if err := r.enqueue(ctx, j); err != nil {
				return fmt.Errorf("sweep waiting jobs: enqueue: %w", err)
			}
			after = storage.JobRef{CompanyID: j.CompanyID, ID: j.ID}
		}
		n += len(waiting)
		if len(waiting) < r.cfg.Batch {
			r.log.Info("relay: Redis answers again; the jobs waiting are enqueued again", "jobs", n)
			return nil
		}
	}
}

// sweep enqueues again the jobs that went quiet: when Redis still holds
// their task the task id makes this a no-op; when Redis lost it (a restart
// without persistence) the job runs again.
func (r *Relay) sweep(ctx context.Context) error {
	quiet, err := storage.QuietJobs(ctx, r.cfg.Pool, r.cfg.QuietAfter, r.cfg.Batch)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	for _, j := range quiet {
		if err := r.enqueue(ctx, j); err != nil {
			return fmt.Errorf("sweep: enqueue: %w", err)
		}
	}
	return nil
}

// enqueue hands one job to asynq; a task id already there counts as done.
func (r *Relay) enqueue(ctx context.Context, j storage.PendingJob) error {
	taskID := storage.JobTaskID(j.ID, j.Generation)
	err := r.enqueueTask(ctx, j, taskID)
	if !errors.Is(err, asynq.ErrTaskIDConflict) {
		return err
	}
	return r.resolveConflict(ctx, j, taskID)
}

// enqueueTask enqueues job j under taskID.
func (r *Relay) enqueueTask(ctx context.Context, j storage.PendingJob, taskID string) error {
	payload, err := json.Marshal(taskRef{Company: j.CompanyID, Job: j.ID, Generation: j.Generation, Lane: j.Lane})
	if err != nil {
		return err
	}
	// asynq never gives up on a task by itself: the worker ends a job that
	// has used its kind's retries (so that an outage, which spends none,
	// cannot make asynq archive a job still waiting)
	opts := []asynq.Option{asynq.TaskID(taskID), asynq.Queue(j.Queue), asynq.MaxRetry(asynqMaxRetry)}
	if k, ok := r.cfg.Kinds.Kind(j.Kind); ok {
		opts = append(opts, asynq.Timeout(k.Timeout))
	}
	_, err = r.client.EnqueueContext(ctx, asynq.NewTask(j.Kind, payload), opts...)
	return err
}

// asynqMaxRetry is asynq's retry limit of every task: in effect none.
const asynqMaxRetry = 1 << 30

// resolveConflict handles a task id asynq holds already. A task waiting or
// running is this job's: nothing to do. An archived one is a task asynq
// no longer runs while the row still waits (an operator archived it in the
// dashboard, or it is a task of an earlier database with the same id): it
// is deleted and the job enqueued again.
func (r *Relay) resolveConflict(ctx context.Context, j storage.PendingJob, taskID string) error {
	info, err := r.inspector.GetTaskInfo(j.Queue, taskID)
	if err != nil || info.State != asynq.TaskStateArchived {
		return nil // still there (or gone meanwhile: the sweep looks again)
	}
	if err := r.inspector.DeleteTask(j.Queue, taskID); err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
		return fmt.Errorf("delete archived task %s: %w", taskID, err)
	}
	err = r.enqueueTask(ctx, j, taskID)
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return nil
	}
	return err
}

// listen wakes the relay on every notification of the jobs channel; while
// PostgreSQL cannot be reached it retries, and the poll covers the gap.
func (r *Relay) listen(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := r.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("relay: listen", "err", err, "retry_in", backoff.String())
		sleep(ctx, backoff)
		backoff = min(backoff*2, maxBackoff)
	}
}

func (r *Relay) listenOnce(ctx context.Context) error {
	conn, err := r.cfg.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+storage.JobsChannel); err != nil {
		conn.Conn().Close(ctx) //nolint:errcheck // a broken connection is dropped
		return err
	}
	for {
		if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
			// a connection left listening must not go back to the pool
			conn.Conn().Close(context.WithoutCancel(ctx)) //nolint:errcheck // dropping it
			return err
		}
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
