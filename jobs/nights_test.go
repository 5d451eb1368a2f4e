package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

func testScheduler(t *testing.T) *Scheduler {
	t.Helper()
	kinds, err := Kinds(KindsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := NewScheduler(SchedulerConfig{Kinds: kinds, Schedules: []Schedule{
		{Name: "finance-overdue", Spec: "5 0 * * *", Kind: KindFinanceOverdue},
		{Name: "owners-statements", Spec: "0 7 1 * *", Kind: KindOwnersStatements, Payload: monthBefore},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return sched
}

// TestNightStates: a night is its run's state, missing once fired without
// a run, due before its time, none when the schedule does not fire that
// date or the company did not exist.
func TestNightStates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	sched := testScheduler(t)
	old, _, err := storage.EnsureCompany(ctx, pool, "Old")
	if err != nil {
		t.Fatal(err)
	}
	young, _, err := storage.EnsureCompany(ctx, pool, "Young")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE companies SET created_at = CASE id WHEN $1 THEN '2026-11-01' ELSE '2026-11-24 12:00' END::timestamptz`, old); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sched.SubmitRun(ctx, pool, old, "finance-overdue", "2026-11-23", false, "test"); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 3, 6, 0, 0, time.UTC) // 00:06 in São Paulo
	nights, _, err := sched.Nights(ctx, pool, []string{"2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-12-01"}, now)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[3]any]string{
		{"finance-overdue", old, "2026-11-23"}:     NightRunning, // pending
		{"finance-overdue", old, "2026-11-24"}:     NightMissing,
		{"finance-overdue", old, "2026-11-25"}:     NightDue, // fired a minute ago: within the grace
		{"finance-overdue", old, "2026-11-26"}:     NightDue,
		{"finance-overdue", young, "2026-11-24"}:   NightNone, // created after that night's time
		{"finance-overdue", young, "2026-11-25"}:   NightDue,
		{"owners-statements", old, "2026-11-24"}:   NightNone, // on the 1st only
		{"owners-statements", old, "2026-12-01"}:   NightDue,
		{"owners-statements", young, "2026-12-01"}: NightDue,
	}
	for _, n := range nights {
		if w, ok := want[[3]any{n.Schedule, n.CompanyID, n.Date}]; ok && n.State != w {
			t.Errorf("%s %d %s: %s, want %s", n.Schedule, n.CompanyID, n.Date, n.State, w)
		}
	}
}

// TestRaiseMissing: a night not finished at the set time after its firing
// raises one alert, once; the alert is open until a run of it succeeds; a
// sender takes each unsent alert once.
func TestRaiseMissing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	sched := testScheduler(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Late")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE companies SET created_at = now() - interval '10 days'`); err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation(DefaultTimeZone)
	now := time.Now()
	yesterday := now.In(loc).AddDate(0, 0, -1).Format(time.DateOnly)
	n, err := sched.RaiseMissing(ctx, pool, now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1 {
		t.Fatalf("raised %d alerts, want yesterday's at least", n)
	}
	if again, err := sched.RaiseMissing(ctx, pool, now, time.Hour); err != nil || again != 0 {
		t.Fatalf("second check raised %d (%v), want none", again, err)
	}
	var msg string
	if err := pool.QueryRow(ctx, `SELECT message FROM operator_alerts WHERE company_id = $1 AND schedule = 'finance-overdue'
		AND run_date = $2::date AND sent_at IS NULL`, company, yesterday).Scan(&msg); err != nil {
		t.Fatalf("no alert for yesterday's overdue run: %v", err)
	}
	open, err := storage.OpenAlerts(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	before := open[storage.AlertRunMissing]

	job, _, err := sched.SubmitRun(ctx, pool, company, "finance-overdue", yesterday, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	started, ok, err := storage.StartJob(ctx, pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: company, ID: job.ID}})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, err := storage.FinishJob(ctx, pool, storage.Outcome{RunRef: started.Run(), State: storage.JobSucceeded, Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	open, err = storage.OpenAlerts(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if open[storage.AlertRunMissing] != before-1 {
		t.Errorf("open run_missing alerts %d after the run succeeded, want %d", open[storage.AlertRunMissing], before-1)
	}

	var seen []int64
	send := func(_ context.Context, a storage.Alert) error { seen = append(seen, a.ID); return nil }
	sent, err := storage.SendAlerts(ctx, pool, send, 100)
	if err != nil || sent != len(seen) || int64(sent) != n {
		t.Fatalf("sent %d (%v), seen %d, raised %d", sent, err, len(seen), n)
	}
	if again, err := storage.SendAlerts(ctx, pool, send, 100); err != nil || again != 0 {
		t.Errorf("a second round sent %d (%v)", again, err)
	}
}
