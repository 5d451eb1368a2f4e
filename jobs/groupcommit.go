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
// form by themselves: the first waiting call goes at once, and those that
// arrive while a statement runs go together in the next. Under light load
// every call is its own statement, with no added wait.
type groupCommit[Q, R any] struct {
	calls chan groupCall[Q, R]
	write func(ctx context.Context, qs []Q) ([]R, error) // a result per q, in order
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

// run writes groups until ctx ends; ctx should outlive every caller.
func (g *groupCommit[Q, R]) run(ctx context.Context) {
	for {
		var first groupCall[Q, R]
		select {
		case <-ctx.Done():
			return
		case first = <-g.calls:
		}
		group := []groupCall[Q, R]{first}
	gather:
		for len(group) < maxGroup {
			select {
			case c := <-g.calls:
				group = append(group, c)
			default:
				break gather
			}
		}
		g.flush(ctx, group)
	}
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
