package jobs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
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
