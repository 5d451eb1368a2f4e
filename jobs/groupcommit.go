package jobs

import (
	"context"
	"fmt"
	"time"
)

// maxBatch bounds how many writes one statement carries.
const maxBatch = 256

// batcher gathers the single-row writes of a worker's concurrent runs into
// one statement (group commit): each call waits for the statement that
// carries it, so nothing is acknowledged before it is written. Batches
// form by themselves: the first waiting call goes at once, and those that
// arrive while a statement runs go together in the next. Under light load
// every call is its own statement, with no added wait.
type batcher[Q, R any] struct {
	calls chan batchCall[Q, R]
	write func(ctx context.Context, qs []Q) ([]R, error) // a result per q, in order
}

type batchCall[Q, R any] struct {
	q     Q
	reply chan batchReply[R]
}

type batchReply[R any] struct {
	r   R
	err error
}

func newBatcher[Q, R any](write func(ctx context.Context, qs []Q) ([]R, error)) *batcher[Q, R] {
	return &batcher[Q, R]{calls: make(chan batchCall[Q, R]), write: write}
}

// run writes batches until ctx ends; ctx should outlive every caller.
func (b *batcher[Q, R]) run(ctx context.Context) {
	for {
		var first batchCall[Q, R]
		select {
		case <-ctx.Done():
			return
		case first = <-b.calls:
		}
		batch := []batchCall[Q, R]{first}
	gather:
		for len(batch) < maxBatch {
			select {
			case c := <-b.calls:
				batch = append(batch, c)
			default:
				break gather
			}
		}
		b.flush(ctx, batch)
	}
}

// flushTimeout bounds one statement: a database that hangs (a failover)
// fails the calls instead of holding every run of the worker.
const flushTimeout = 30 * time.Second

// flush writes a batch. When the statement fails and the batch holds more
// than one call, each is written alone, so that a row the database
// refuses fails only its own call.
func (b *batcher[Q, R]) flush(ctx context.Context, batch []batchCall[Q, R]) {
	qs := make([]Q, len(batch))
	for i, c := range batch {
		qs[i] = c.q
	}
	rs, err := b.safeWrite(ctx, qs)
	if err != nil && len(batch) > 1 {
		for _, c := range batch {
			b.flush(ctx, []batchCall[Q, R]{c})
		}
		return
	}
	for i, c := range batch {
		var r R
		if err == nil {
			r = rs[i]
		}
		c.reply <- batchReply[R]{r: r, err: err}
	}
}

// safeWrite runs one statement with its timeout, turning a panic or a
// result of the wrong length into an error for the calls.
func (b *batcher[Q, R]) safeWrite(ctx context.Context, qs []Q) (rs []R, err error) {
	ctx, cancel := context.WithTimeout(ctx, flushTimeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			rs, err = nil, fmt.Errorf("batched write panicked: %v", v)
		}
	}()
	rs, err = b.write(ctx, qs)
	if err == nil && len(rs) != len(qs) {
		return nil, fmt.Errorf("batched write gave %d results for %d calls", len(rs), len(qs))
	}
	return rs, err
}

// do hands q to the next statement and waits for it.
func (b *batcher[Q, R]) do(ctx context.Context, q Q) (R, error) {
	reply := make(chan batchReply[R], 1)
	var zero R
	select {
	case b.calls <- batchCall[Q, R]{q: q, reply: reply}:
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
