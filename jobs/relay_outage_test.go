package jobs

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestOutageSweeps: a relay that saw Redis stop answering sweeps the
// waiting jobs as soon as it answers again, then at the lease's lapse and
// a minute after (those still ahead), once each; a pass that fails for
// another reason, or Redis that never stopped, sweeps nothing.
func TestOutageSweeps(t *testing.T) {
	var o outage
	o.saw(nil)
	if o.due(time.Now()) {
		t.Fatal("a sweep with no outage")
	}
	o.saw(fmt.Errorf("relay: %w: dial tcp: connection refused", errRedisDown))
	o.saw(errors.New("relay: next pending jobs: the database is unavailable"))
	if o.due(time.Now().Add(time.Hour)) {
		t.Fatal("a sweep while Redis is down")
	}
	began := o.began
	o.saw(nil)
	want := []time.Time{began.Add(leaseLapse), began.Add(leaseLapse + time.Minute)}
	if !o.due(time.Now()) {
		t.Fatal("no sweep once Redis answers again")
	}
	if o.due(time.Now()) {
		t.Fatal("a second sweep at once")
	}
	for _, at := range want {
		if o.due(at.Add(-time.Millisecond)) || !o.due(at) {
			t.Errorf("no sweep at %s after the outage began", at.Sub(began))
		}
	}
	if o.due(time.Now().Add(time.Hour)) {
		t.Error("more sweeps than three")
	}
}
