package jobs

import (
	"strings"
	"testing"
	"time"
)

// TestAheadOf: a run warns that it is a night's when a schedule's run of
// the company's today or tomorrow has its key and has not fired yet on
// the company's clock; a night fired, a date before today, and the month
// of owners:statements fired on the 1st are not warned of until they fit.
func TestAheadOf(t *testing.T) {
	t.Parallel()
	sched := testScheduler(t)
	overdue, _ := sched.cfg.Kinds.Kind(KindFinanceOverdue)
	statements, _ := sched.cfg.Kinds.Kind(KindOwnersStatements)
	at := func(s string) time.Time {
		v, err := time.Parse(time.DateTime, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name  string
		kind  *Kind
		key   string
		now   string
		field string // "": no warning
	}{
		{"today before 00:05", overdue, "2026-12-04", "2026-12-04 00:04:59", "payload.date"},
		{"today at 00:05", overdue, "2026-12-04", "2026-12-04 00:05:00", ""},
		{"tomorrow", overdue, "2026-12-05", "2026-12-04 23:00:00", "payload.date"},
		{"yesterday", overdue, "2026-12-03", "2026-12-04 00:01:00", ""},
		{"the month before the 1st, the day before", statements, "2026-11", "2026-11-30 12:00:00", "payload.month"},
		{"the month before the 1st, after 07:00", statements, "2026-11", "2026-12-01 07:00:00", ""},
		{"a month whose 1st is not today or tomorrow", statements, "2026-11", "2026-11-20 12:00:00", ""},
	}
	for _, tt := range tests {
		got := sched.aheadOf(tt.kind, tt.key, at(tt.now))
		switch {
		case tt.field == "" && len(got) != 0:
			t.Errorf("%s: %v, want none", tt.name, got)
		case tt.field != "" && (len(got) != 1 || got[0].Field != tt.field || !strings.Contains(got[0].Message, "will not run that date again")):
			t.Errorf("%s: %v, want one on %s", tt.name, got, tt.field)
		}
	}
}
