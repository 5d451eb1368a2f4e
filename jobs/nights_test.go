package jobs

import (
	"context"
	"strings"
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
	for _, run := range []struct {
		company      int64
		schedule, on string
	}{
		{old, "finance-overdue", "2026-11-23"},
		{old, "owners-statements", "2026-11-24"}, // October's statements, the run of the 1st of November
		{young, "finance-overdue", "2026-11-24"}, // made for a night before the company existed
	} {
		if _, _, err := sched.SubmitRun(ctx, pool, run.company, run.schedule, run.on, false, "test"); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 11, 25, 3, 6, 0, 0, time.UTC) // 00:06 in São Paulo
	nights, _, err := sched.Nights(ctx, pool, []string{"2026-11-01", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-12-01"}, now)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[3]any]string{
		{"finance-overdue", old, "2026-11-23"}:     NightRunning, // pending
		{"finance-overdue", old, "2026-11-24"}:     NightMissing,
		{"finance-overdue", old, "2026-11-25"}:     NightDue, // fired a minute ago: within the grace
		{"finance-overdue", old, "2026-11-26"}:     NightDue,
		{"finance-overdue", young, "2026-11-24"}:   NightNone, // created after that night's time, though a run was made
		{"finance-overdue", young, "2026-11-25"}:   NightDue,
		{"owners-statements", old, "2026-11-01"}:   NightRunning, // October's run, pending
		{"owners-statements", old, "2026-11-24"}:   NightNone,    // on the 1st only, though its month's run exists
		{"owners-statements", young, "2026-11-01"}: NightNone,
		{"owners-statements", old, "2026-12-01"}:   NightDue,
		{"owners-statements", young, "2026-12-01"}: NightDue,
	}
	for _, n := range nights {
		if w, ok := want[[3]any{n.Schedule, n.CompanyID, n.Date}]; ok && n.State != w {
			t.Errorf("%s %d %s: %s, want %s", n.Schedule, n.CompanyID, n.Date, n.State, w)
		}
		if n.State == NightNone && n.Run != nil {
			t.Errorf("%s %d %s: none, with job %d", n.Schedule, n.CompanyID, n.Date, n.Run.JobID)
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

// TestRaiseMissingAfterCatchUp: a run submitted after its night's time (a
// starting scheduler's catch-up) is late only once it has not finished
// the set time after its submission, and its alert names the job; a
// company created after a night's time raises no alert for that night,
// even with a run made for it.
func TestRaiseMissingAfterCatchUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	sched := testScheduler(t)
	sched.cfg.Pool = pool
	old, _, err := storage.EnsureCompany(ctx, pool, "Old")
	if err != nil {
		t.Fatal(err)
	}
	young, _, err := storage.EnsureCompany(ctx, pool, "Young")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE companies SET created_at = now() - interval '10 days' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation(DefaultTimeZone)
	now := time.Now()
	// the day's overdue run fired at 00:05; the catch-up makes it now
	today := now.In(loc).Format(time.DateOnly)
	if now.In(loc).Hour() == 0 && now.In(loc).Minute() < 10 {
		t.Skip("too close to the night's firing")
	}
	if err := sched.Fire(ctx, now.Add(-24*time.Hour), now); err != nil { // the catch-up of a start
		t.Fatal(err)
	}
	var job int64
	if err := pool.QueryRow(ctx, `SELECT id FROM jobs WHERE company_id = $1 AND kind = $2 AND unique_key = $3`,
		old, KindFinanceOverdue, today).Scan(&job); err != nil {
		t.Fatalf("the catch-up made no run of %s: %v", today, err)
	}
	todays := func() (n int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM operator_alerts WHERE run_date = $1::date`, today).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := sched.RaiseMissing(ctx, pool, now, time.Hour); err != nil || todays() != 0 {
		t.Fatalf("%d alerts of today's night (%v) just after the catch-up, want none", todays(), err)
	}
	if _, err := sched.RaiseMissing(ctx, pool, now.Add(time.Hour+time.Minute), time.Hour); err != nil {
		t.Fatal(err)
	}
	var alerted []int64
	rows, err := pool.Query(ctx, `SELECT company_id FROM operator_alerts WHERE kind = 'run_missing' AND run_date = $1::date
		AND job_id = $2`, today, job)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c int64
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		alerted = append(alerted, c)
	}
	if rows.Err() != nil || todays() != 1 || len(alerted) != 1 || alerted[0] != old {
		t.Fatalf("an hour after the catch-up: %d alerts of today, those naming job %d of %s for companies %v (%v), want company %d's",
			todays(), job, today, alerted, rows.Err(), old)
	}
	var youngs int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM operator_alerts WHERE company_id = $1 AND run_date <= $2::date`,
		young, today).Scan(&youngs); err != nil || youngs != 0 {
		t.Errorf("company created today: %d alerts of nights before its creation (%v), want none", youngs, err)
	}
}

// TestAlertsGaugeHelpListsEveryKind: the help of the open alerts gauge
// names every kind of alert, with what an open one means.
func TestAlertsGaugeHelpListsEveryKind(t *testing.T) {
	t.Parallel()
	help := alertsHelp()
	for _, k := range storage.AlertKinds {
		if !strings.Contains(help, k+" (") {
			t.Errorf("the help does not say what an open %s alert means: %s", k, help)
		}
	}
}
