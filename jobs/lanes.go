package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/hibiken/asynq"
)

// Lanes (docs/jobs.md, "Lanes"): a job row may name a lane (a webhook
// endpoint's deliveries are the lane webhook:<endpoint>), carried in its
// task, and its kind may bound how many jobs of one lane a worker process
// runs at once (Options.LaneLimit). A task whose lane is full waits for a
// place, up to laneHold, while fewer than the limit of its lane's tasks
// wait, or while the lane's pace (a moving average of its jobs' time)
// promises a place within quickWait; any other is handed back to asynq
// before its row is touched, spending no retry, and comes again at the
// pace the lane takes its tasks (handBack), while the worker's slot goes
// to the next task (another lane's). So one endpoint that answers slowly
// holds at most twice its limit of a worker's slots, whatever the number
// of its deliveries, and one that answers fast keeps its places filled.

// errLaneBusy is a task whose lane is at its limit: not a failure.
var errLaneBusy = errors.New("the job's lane is at its limit in this worker; it runs again shortly")

// laneBusy is errLaneBusy with when the task should come again.
type laneBusy struct{ after time.Duration }

func (laneBusy) Error() string        { return errLaneBusy.Error() }
func (laneBusy) Is(target error) bool { return target == errLaneBusy }

// laneDelay is when a task a full lane handed back comes again (at least
// 100 ms).
func laneDelay(err error) time.Duration {
	var b laneBusy
	if errors.As(err, &b) {
		return max(b.after, 100*time.Millisecond)
	}
	return time.Second
}

// laneHold is the longest a task waits in its worker slot for a place in
// its lane before it is handed back.
const laneHold = 2 * time.Second

// maxLaneDelay bounds the wait of a task handed back.
const maxLaneDelay = time.Hour

// lanes holds a semaphore per lane in a worker, the tasks waiting on
// each, how long its jobs take, and when the next task handed back is to
// come again: one small entry per lane the worker has seen.
type lanes struct {
	mu    sync.Mutex
	lanes map[string]*lane
}

type lane struct {
	places  chan struct{}
	waiting int
	// took is a moving average of how long the lane's jobs run; back is
	// when the last task handed back comes again: the next one comes
	// took/limit later, so that the tasks handed back come again at about
	// the pace the lane takes them, however many they are
	took time.Duration
	back time.Time
}

func newLanes() *lanes { return &lanes{lanes: map[string]*lane{}} }

// take gives a place in the lane (at most limit at once): at once, or
// after a wait of up to laneHold when no more than limit tasks wait
// already. Without one it answers when the task should come again.
func (l *lanes) take(ctx context.Context, name string, limit int) (bool, time.Duration) {
	l.mu.Lock()
	ln := l.lanes[name]
	if ln == nil {
		ln = &lane{places: make(chan struct{}, limit), took: 50 * time.Millisecond}
		l.lanes[name] = ln
	}
	select {
	case ln.places <- struct{}{}:
		l.mu.Unlock()
		return true, 0
	default:
	}
	if !ln.mayWait(limit) {
		defer l.mu.Unlock()
		return false, ln.handBack(limit)
	}
	ln.waiting++
	l.mu.Unlock()
	t := time.NewTimer(laneHold)
	defer t.Stop()
	got := false
	select {
	case ln.places <- struct{}{}:
		got = true
	case <-t.C:
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	ln.waiting--
	if got {
		return true, 0
	}
	return false, ln.handBack(limit)
}

// quickWait is how long a task may expect to wait for a place in its
// lane and still wait, however many wait with it.
const quickWait = 100 * time.Millisecond

// mayWait says whether one more task may wait for a place: while fewer
// than the limit wait, or while the wait the lane's pace promises is
// short (a fast endpoint's deliveries queue in the worker's slots rather
// than go round through Redis; a slow one's go round at once, freeing the
// slots for other lanes). l.mu is held.
func (ln *lane) mayWait(limit int) bool {
	return ln.waiting < limit || time.Duration(ln.waiting+1)*ln.took/time.Duration(limit) <= quickWait
}

// handBack schedules a task handed back; l.mu is held.
func (ln *lane) handBack(limit int) time.Duration {
	now := time.Now()
	at := now.Add(100 * time.Millisecond)
	if ln.back.After(at) {
		at = ln.back
	}
	if at.Sub(now) > maxLaneDelay {
		at = now.Add(maxLaneDelay)
	}
	ln.back = at.Add(ln.took / time.Duration(limit))
	// a little jitter, so that several workers' tasks do not come together
	return at.Sub(now) + time.Duration(rand.Int64N(int64(50*time.Millisecond)))
}

// give hands a place of the lane back, after a job that ran for ran.
func (l *lanes) give(name string, ran time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ln := l.lanes[name]
	<-ln.places
	ln.took = (7*ln.took + ran) / 8
}

// keepLanes holds a task to its kind's lane limit.
func (w *Worker) keepLanes(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		kind, ok := w.cfg.Kinds.Kind(t.Type())
		if !ok || kind.LaneLimit <= 0 {
			return next.ProcessTask(ctx, t)
		}
		var ref taskRef
		if json.Unmarshal(t.Payload(), &ref) != nil || ref.Lane == "" {
			return next.ProcessTask(ctx, t)
		}
		ok, after := w.lanes.take(ctx, ref.Lane, kind.LaneLimit)
		if !ok {
			return laneBusy{after: after}
		}
		start := time.Now()
		defer func() { w.lanes.give(ref.Lane, time.Since(start)) }()
		return next.ProcessTask(ctx, t)
	})
}

// dedicatedQueues lists the dedicated queues the registry's kinds run
// on, in name order.
func (reg *Registry) dedicatedQueues() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range reg.kinds {
		if _, ok := DedicatedQueues[k.Queue]; ok && !seen[k.Queue] {
			seen[k.Queue] = true
			out = append(out, k.Queue)
		}
	}
	sort.Strings(out)
	return out
}
