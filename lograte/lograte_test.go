package lograte

import (
	"testing"
	"time"
)

// TestLimiter: the first line of a key passes, the others of the interval
// are counted, and the first of the next interval says how many; keys are
// apart.
func TestLimiter(t *testing.T) {
	now := time.Date(2026, 12, 4, 21, 43, 23, 0, time.UTC)
	l := New(time.Second)
	l.now = func() time.Time { return now }
	steps := []struct {
		after      time.Duration
		key        string
		ok         bool
		suppressed int
	}{
		{0, "redis", true, 0},
		{100 * time.Millisecond, "redis", false, 0},
		{100 * time.Millisecond, "redis", false, 0},
		{0, "postgres", true, 0},
		{900 * time.Millisecond, "redis", true, 2},
		{time.Second, "redis", true, 0},
	}
	for i, s := range steps {
		now = now.Add(s.after)
		if ok, n := l.Allow(s.key); ok != s.ok || n != s.suppressed {
			t.Errorf("step %d (%s): %v %d, want %v %d", i, s.key, ok, n, s.ok, s.suppressed)
		}
	}
}
