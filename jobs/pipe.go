package jobs

import "errors"

// errPipeStopped ends a pipe's reading once its writing has ended.
var errPipeStopped = errors.New("the writing ended")

// pipeRun is how many items a pipe hands over at a time, and pipeRuns how
// many runs there are: the reader fills some while the writer works on
// another.
const (
	pipeRun  = 512
	pipeRuns = 4
)

// pipe runs read on a goroutine of its own and write on the caller's, so
// that reading (PostgreSQL sending the rows, pgx decoding them) and
// writing (the file's records, compressed) overlap on two cores. read
// hands each item to its yield, which copies it; write gets them in the
// order read. The first error of either ends both and is returned; when
// pipe returns (a panic of write included), read has returned: its rows
// are closed and its transaction is free.
func pipe[T any](read func(yield func(*T) error) error, write func(*T) error) (err error) {
	runs, free := make(chan []T, pipeRuns), make(chan []T, pipeRuns)
	for range pipeRuns {
		free <- make([]T, 0, pipeRun)
	}
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- readInRuns(read, runs, free, stop) }()
	defer func() {
		close(stop)
		for run := range runs {
			free <- run
		}
		if readErr := <-done; err == nil {
			err = readErr
		}
	}()
	for run := range runs {
		for i := range run {
			if err := write(&run[i]); err != nil {
				return err
			}
		}
		free <- run
	}
	return nil
}

// readInRuns is a pipe's reading: the items read, copied into runs taken
// from free and sent on runs, which it closes at its end.
func readInRuns[T any](read func(yield func(*T) error) error, runs chan<- []T, free <-chan []T, stop <-chan struct{}) error {
	defer close(runs)
	run := <-free
	send := func() error {
		select {
		case runs <- run:
		case <-stop:
			return errPipeStopped
		}
		select {
		case run = <-free:
		case <-stop:
			return errPipeStopped
		}
		run = run[:0]
		return nil
	}
	err := read(func(t *T) error {
		if run = append(run, *t); len(run) == pipeRun {
			return send()
		}
		return nil
	})
	if err == nil && len(run) > 0 {
		err = send()
	}
	return err
}
