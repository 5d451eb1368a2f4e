// Package lograte keeps a log line that repeats during an outage from
// flooding the log: at most one line per key (a failing dependency) per
// interval, the next one written saying how many were left out.
package lograte

import (
	"sync"
	"time"
)

// Limiter lets one line per key through per interval. The zero value is
// not usable: make one with New.
type Limiter struct {
	every time.Duration
	now   func() time.Time

	mu   sync.Mutex
	keys map[string]*state
}

type state struct {
	last    time.Time
	dropped int
}

// New is a limiter of one line per key every interval.
func New(every time.Duration) *Limiter {
	return &Limiter{every: every, now: time.Now, keys: map[string]*state{}}
}

// Allow says whether a line of key may be written now and, when it may,
// how many lines of key were left out since the last one written.
func (l *Limiter) Allow(key string) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	s, seen := l.keys[key]
	if !seen {
		s = &state{}
		l.keys[key] = s
	}
	if seen && now.Sub(s.last) < l.every {
		s.dropped++
		return false, 0
	}
	suppressed, s.last, s.dropped = s.dropped, now, 0
	return true, suppressed
}
