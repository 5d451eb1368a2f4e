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
// runs at once (Options.LaneLimit). A task over the limit is handed back
// to asynq before its row is touched: it waits about a second and comes
// again, spending no retry, while the worker's slot goes to the next task
// (another lane's). So one endpoint that answers slowly holds at most its
// limit of a worker's slots, whatever the number of its deliveries.

// errLaneBusy is a task whose lane is at its limit: not a failure.
var errLaneBusy = errors.New("the job's lane is at its limit in this worker; it runs again shortly")

// laneWait is the pause of a task whose lane was full: 0.5 to 1.5 s.
func laneWait() time.Duration {
	return 500*time.Millisecond + time.Duration(rand.Int64N(int64(time.Second)))
}

// lanes counts the running jobs of each lane in a worker.
type lanes struct {
	mu      sync.Mutex
	running map[string]int
}

func newLanes() *lanes { return &lanes{running: map[string]int{}} }

// take counts one more job of lane, unless limit run already.
func (l *lanes) take(lane string, limit int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[lane] >= limit {
		return false
	}
	l.running[lane]++
	return true
}

// give counts a job of lane done.
func (l *lanes) give(lane string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running[lane]--; l.running[lane] <= 0 {
		delete(l.running, lane)
	}
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
		if !w.lanes.take(ref.Lane, kind.LaneLimit) {
			return errLaneBusy
		}
		defer w.lanes.give(ref.Lane)
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
