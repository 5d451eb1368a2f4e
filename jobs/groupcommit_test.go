package jobs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGroupCommit(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var statements atomic.Int32
	g := newGroupCommit(func(_ context.Context, qs []int) ([]int, error) {
		statements.Add(1)
		for _, q := range qs {
			switch q {
			case -1:
				return nil, errors.New("the database refused a row")
			case -2:
				panic("boom")
			}
		}
		out := make([]int, len(qs))
		for i, q := range qs {
			out[i] = q * 10
		}
		return out, nil
	})
	go g.run(ctx)
	var wg sync.WaitGroup
	results := make([]int, 40)
	errs := make([]error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := i
			if i == 7 {
				q = -1 // a poison row
			}
			if i == 9 {
				q = -2 // a panic
			}
			results[i], errs[i] = g.do(ctx, q)
		}()
	}
	wg.Wait()
	for i := range 40 {
		switch {
		case i == 7 || i == 9:
			if errs[i] == nil {
				t.Errorf("call %d: no error", i)
			}
		case errs[i] != nil || results[i] != i*10:
			t.Errorf("call %d: %d, %v; a bad row in its group must fail only itself", i, results[i], errs[i])
		}
	}
	// a caller whose context ends stops waiting
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := g.do(done, 1); err == nil {
		t.Error("a cancelled caller got no error")
	}
}

// TestGroupCommitLingers: while other runs of the worker are in flight, a
// group waits a moment for their calls, so that calls arriving one after
// the other share a statement.
func TestGroupCommitLingers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var statements atomic.Int32
	g := newGroupCommit(func(_ context.Context, qs []int) ([]int, error) {
		statements.Add(1)
		return qs, nil
	})
	g.linger(func() int { return 20 })
	// an idle gap no loaded machine's scheduling closes between two calls
	g.lingerIdle, g.lingerMax = 200*time.Millisecond, 30*time.Second
	go g.run(ctx)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := g.do(ctx, i); err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(2 * time.Millisecond)
	}
	wg.Wait()
	if n := statements.Load(); n != 1 {
		t.Errorf("10 calls 2 ms apart with 20 runs in flight: %d statements, want 1", n)
	}
}

// TestGroupCommitDoesNotLingerAlone: a call with no other run in flight,
// and a group holding every run in flight, are written at once.
func TestGroupCommitDoesNotLingerAlone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name            string
		inFlight, calls int
	}{
		{"a call alone", 1, 1},
		{"a group of every run in flight", 3, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g := newGroupCommit(func(_ context.Context, qs []int) ([]int, error) { return qs, nil })
			g.linger(func() int { return c.inFlight })
			g.lingerIdle, g.lingerMax = 20*time.Second, 20*time.Second
			go g.run(ctx)
			start := time.Now()
			var wg sync.WaitGroup
			for i := range c.calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := g.do(ctx, i); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%d calls with %d runs in flight answered after %v: the group lingered", c.calls, c.inFlight, d)
			}
		})
	}
}
