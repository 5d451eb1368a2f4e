package jobs

import (
	"context"
	"fmt"
	"time"
)

// maxGroup bounds how many writes one statement carries.
const maxGroup = 256

// groupCommit gathers the single-row writes of a worker's concurrent runs into
// one statement (group commit): each call waits for the statement that
// carries it, so nothing is acknowledged before it is written. Groups
// form by themselves: the calls that arrive while a statement runs go
// together in the next. A group lingers for more while the worker has
// more runs in flight than it holds (others), up to lingerIdle after its
// last call and lingerMax in all, since a statement costs the database
// about as much for one row as for a dozen; a call with no other run in
// flight goes at once, with no added wait.
type groupCommit[Q, R any] struct {
	calls chan groupCall[Q, R]
	write func(ctx context.Context, qs []Q) ([]R, error) // a result per q, in order
	// others is how many runs of the worker are in flight, this call's
	// included; nil: none (no lingering).
	others func() int
	// lingerIdle and lingerMax bound a group's lingering (0: none).
	lingerIdle, lingerMax time.Duration
}

type groupCall[Q, R any] struct {
	q     Q
	reply chan groupReply[R]
}

type groupReply[R any] struct {
	r   R
	err error
}

func newGroupCommit[Q, R any](write func(ctx context.Context, qs []Q) ([]R, error)) *groupCommit[Q, R] {
	return &groupCommit[Q, R]{calls: make(chan groupCall[Q, R]), write: write}
}

// linger makes groups wait for more calls while others says more runs
// than the group holds are in flight (lingerIdle, lingerMax).
func (g *groupCommit[Q, R]) linger(others func() int) {
	g.others, g.lingerIdle, g.lingerMax = others, lingerIdle, lingerMax
}

// run writes groups until ctx ends; ctx should outlive every caller.
func (g *groupCommit[Q, R]) run(ctx context.Context) {
	for {
		var first groupCall[Q, R]
		select {
		case <-ctx.Done():
			return
		case first = <-g.calls:
		}
		g.flush(ctx, g.gather(first))
	}
}

// lingerIdle and lingerMax are a worker's group commits' lingering: a
// group waits for the next call at most lingerIdle, and at most
// lingerMax after its first.
const (
	lingerIdle = time.Millisecond
	lingerMax  = 4 * time.Millisecond
)

// gather makes a group from first and the calls waiting, lingering for
// more while other runs of the worker are in flight.
func (g *groupCommit[Q, R]) gather(first groupCall[Q, R]) []groupCall[Q, R] {
	group := []groupCall[Q, R]{first}
	deadline := time.Now().Add(g.lingerMax)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for len(group) < maxGroup {
		select {
		case c := <-g.calls:
			group = append(group, c)
			continue
		default:
		}
		left := time.Until(deadline)
		if g.others == nil || g.lingerIdle <= 0 || left <= 0 || g.others() <= len(group) {
			return group
		}
		wait := min(g.lingerIdle, left)
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		select {
		case c := <-g.calls:
			group = append(group, c) // the timer is reset (Go 1.23: nothing stale)
		case <-timer.C:
			return group
		}
	}
	return group
}

// flushTimeout bounds one statement: a database that hangs (a failover)
// fails the calls instead of holding every run of the worker.
const flushTimeout = 30 * time.Second

// flush writes a group. When the statement fails and the group holds more
// than one call, each is written alone, so that a row the database
// refuses fails only its own call.
func (g *groupCommit[Q, R]) flush(ctx context.Context, group []groupCall[Q, R]) {
	qs := make([]Q, len(group))
	for i, c := range group {
		qs[i] = c.q
	}
	rs, err := g.safeWrite(ctx, qs)
	if err != nil && len(group) > 1 {
		for _, c := range group {
			g.flush(ctx, []groupCall[Q, R]{c})
		}
		return
	}
	for i, c := range group {
		var r R
		if err == nil {
			r = rs[i]
		}
		c.reply <- groupReply[R]{r: r, err: err}
	}
}

// safeWrite runs one statement with its timeout, turning a panic or a
// result of the wrong length into an error for the calls.
func (g *groupCommit[Q, R]) safeWrite(ctx context.Context, qs []Q) (rs []R, err error) {
	ctx, cancel := context.WithTimeout(ctx, flushTimeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			rs, err = nil, fmt.Errorf("batched write panicked: %v", v)
		}
	}()
	rs, err = g.write(ctx, qs)
	if err == nil && len(rs) != len(qs) {
		return nil, fmt.Errorf("batched write gave %d results for %d calls", len(rs), len(qs))
	}
	return rs, err
}

// do hands q to the next statement and waits for it.
func (g *groupCommit[Q, R]) do(ctx context.Context, q Q) (R, error) {
	reply := make(chan groupReply[R], 1)
	var zero R
	select {
	case g.calls <- groupCall[Q, R]{q: q, reply: reply}:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	select {
	case r := <-reply:
		return r.r, r.err
	case <-ctx.Done(): // the write may still happen; every write of a run is fenced
		return zero, ctx.Err()
	}
}
