package jobs

import (
	"errors"
	"testing"
)

// TestPipe: the items read come to write in order, every one; the first
// error of read or of write is returned, write sees nothing after an
// error, and read has returned when pipe does.
func TestPipe(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name                     string
		n, readFails, writeFails int
	}{
		{"none", 0, -1, -1},
		{"one item", 1, -1, -1},
		{"one run", pipeRun, -1, -1},
		{"runs and a part", 5*pipeRun + 7, -1, -1},
		{"read fails", 5*pipeRun + 7, 3*pipeRun + 2, -1},
		{"read fails at once", 100, 0, -1},
		{"write fails", 5*pipeRun + 7, -1, 2*pipeRun + 5},
		{"write fails at the last", 5*pipeRun + 7, -1, 5*pipeRun + 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var wrote []int
			returned := false
			err := pipe(func(yield func(*int) error) error {
				defer func() { returned = true }()
				for i := range tc.n {
					if i == tc.readFails {
						return boom
					}
					if err := yield(&i); err != nil {
						return err
					}
				}
				return nil
			}, func(v *int) error {
				if *v == tc.writeFails {
					return boom
				}
				wrote = append(wrote, *v)
				return nil
			})
			if !returned {
				t.Error("pipe returned before read")
			}
			want := tc.n
			switch {
			case tc.writeFails >= 0:
				want = tc.writeFails
			case tc.readFails >= 0:
				want = -1 // a prefix of what was read before the failure
			}
			if (tc.readFails >= 0 || tc.writeFails >= 0) != (err != nil) || err != nil && !errors.Is(err, boom) {
				t.Errorf("error %v", err)
			}
			if want >= 0 && len(wrote) != want || tc.readFails >= 0 && len(wrote) > tc.readFails {
				t.Errorf("%d written", len(wrote))
			}
			for i, v := range wrote {
				if v != i {
					t.Fatalf("item %d written as %d: %v", i, v, wrote[max(0, i-3):i+1])
				}
			}
		})
	}
}

// TestPipeWritePanics: a panic of write goes on up, and read has returned
// (its rows would be closed) by then.
func TestPipeWritePanics(t *testing.T) {
	t.Parallel()
	returned := false
	defer func() {
		if v := recover(); v != "boom" || !returned {
			t.Errorf("recovered %v, read returned %t", v, returned)
		}
	}()
	pipe(func(yield func(*int) error) error { //nolint:errcheck // it panics
		defer func() { returned = true }()
		for i := range 10 * pipeRun {
			if err := yield(&i); err != nil {
				return err
			}
		}
		return nil
	}, func(v *int) error {
		if *v == 3*pipeRun+1 {
			panic("boom")
		}
		return nil
	})
	t.Error("pipe returned")
}
