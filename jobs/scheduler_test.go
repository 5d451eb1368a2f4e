package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

func TestFiringDates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, spec, zone, from, to string
		want                       []string
	}{
		{"nightly, two nights", "30 3 * * *", "America/Sao_Paulo", "2026-11-23 12:00", "2026-11-25 12:00", []string{"2026-11-24", "2026-11-25"}},
		{"not yet tonight", "30 3 * * *", "America/Sao_Paulo", "2026-11-24 03:31", "2026-11-24 23:59", nil},
		{"exactly at the time", "30 3 * * *", "America/Sao_Paulo", "2026-11-24 03:29", "2026-11-24 03:30", []string{"2026-11-24"}},
		{"in the spring gap (New York)", "30 2 * * *", "America/New_York", "2025-03-08 12:00", "2025-03-10 12:00", []string{"2025-03-09", "2025-03-10"}},
		{"midnight skipped by the clocks (Santiago)", "0 0 * * *", "America/Santiago", "2025-09-06 12:00", "2025-09-08 12:00", []string{"2025-09-07", "2025-09-08"}},
		{"the hour passed twice (New York)", "30 1 * * *", "America/New_York", "2025-11-01 12:00", "2025-11-02 12:00", []string{"2025-11-02"}},
		{"every second across midnight", "@every 1s", "America/Manaus", "2026-11-24 23:59:58", "2026-11-25 00:00:02", []string{"2026-11-24", "2026-11-25"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sched, err := cron.ParseStandard(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			loc, err := time.LoadLocation(c.zone)
			if err != nil {
				t.Fatal(err)
			}
			from, to := localTime(t, c.from, loc), localTime(t, c.to, loc)
			if got := firingDates(sched, loc, from, to); !slices.Equal(got, c.want) {
				t.Errorf("dates %v, want %v", got, c.want)
			}
		})
	}
}

func localTime(t *testing.T, s string, loc *time.Location) time.Time {
	t.Helper()
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if v, err := time.ParseInLocation(layout, s, loc); err == nil {
			return v
		}
	}
	t.Fatalf("bad time %q", s)
	return time.Time{}
}

func TestSchedulerFiresOncePerCompanyAndDate(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	ctx := context.Background()
	if _, err := p.pool.Exec(ctx, `UPDATE companies SET time_zone = 'America/Manaus' WHERE id = $1`, p.companyB); err != nil {
		t.Fatal(err)
	}
	if _, err := p.pool.Exec(ctx, `INSERT INTO companies (name, time_zone) VALUES ('Nowhere', 'Mars/Olympus_Mons')`); err != nil {
		t.Fatal(err)
	}
	sched, err := NewScheduler(SchedulerConfig{Pool: p.pool, Kinds: p.kinds,
		Schedules: []Schedule{{Name: "jobs-prune", Spec: "30 3 * * *", Kind: KindJobsPrune}}})
	if err != nil {
		t.Fatal(err)
	}
	// 03:30 in Sao Paulo is 06:30 UTC; in Manaus, 07:30 UTC
	from := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	for _, to := range []time.Time{from.Add(time.Hour), from.Add(2 * time.Hour), from.Add(2 * time.Hour)} {
		if err := sched.Fire(ctx, from, to); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := p.pool.Query(ctx, `SELECT c.name, j.payload->>'date', j.submitted_by FROM jobs j JOIN companies c ON c.id = j.company_id ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var name, date, by string
		if err := rows.Scan(&name, &date, &by); err != nil {
			t.Fatal(err)
		}
		got = append(got, name+" "+date+" "+by)
	}
	want := []string{"Company A 2026-11-24 scheduler:jobs-prune", "Company B 2026-11-24 scheduler:jobs-prune",
		"Nowhere 2026-11-24 scheduler:jobs-prune"}
	if !slices.Equal(got, want) {
		t.Fatalf("jobs %q, want %q", got, want)
	}
	if _, err := NewScheduler(SchedulerConfig{Pool: p.pool, Kinds: p.kinds, Schedules: []Schedule{{Name: "x", Spec: "61 * * * *", Kind: KindJobsPrune}}}); err == nil {
		t.Error("a bad spec was accepted")
	}
	if _, err := NewScheduler(SchedulerConfig{Pool: p.pool, Kinds: p.kinds, Schedules: []Schedule{{Name: "x", Spec: "@daily", Kind: "nope"}}}); err == nil {
		t.Error("an unknown kind was accepted")
	}
}

func TestScheduleOverrides(t *testing.T) {
	t.Parallel()
	base := []Schedule{{Name: "jobs-prune", Spec: "30 3 * * *", Kind: KindJobsPrune}, {Name: "other", Spec: "@daily", Kind: KindJobsPrune}}
	for _, c := range []struct {
		name    string
		env     []string
		want    []string // specs in force
		wantErr bool
	}{
		{"none", nil, []string{"30 3 * * *", "@daily"}, false},
		{"override", []string{"PROPFIN_SCHEDULE_JOBS_PRUNE=0 4 * * *"}, []string{"0 4 * * *", "@daily"}, false},
		{"off", []string{"PROPFIN_SCHEDULE_OTHER=off"}, []string{"30 3 * * *"}, false},
		{"OFF", []string{"PROPFIN_SCHEDULE_OTHER=OFF"}, []string{"30 3 * * *"}, false},
		{"empty keeps the default", []string{"PROPFIN_SCHEDULE_OTHER="}, []string{"30 3 * * *", "@daily"}, false},
		{"a misspelt name", []string{"PROPFIN_SCHEDULE_JOB_PRUNE=0 4 * * *"}, nil, true},
	} {
		got, err := ApplyEnv(base, c.env)
		var specs []string
		for _, s := range got {
			specs = append(specs, s.Spec)
		}
		if (err != nil) != c.wantErr || !slices.Equal(specs, c.want) {
			t.Errorf("%s: %v (%v), want %v (error %v)", c.name, specs, err, c.want, c.wantErr)
		}
	}
	for _, spec := range []string{"0 4 30 2 *", "CRON_TZ=UTC 0 4 * * *", "TZ=UTC 0 4 * * *", "61 * * * *", "nope"} {
		if _, err := parseSpec(spec); err == nil {
			t.Errorf("spec %q was accepted", spec)
		}
	}
}

// TestSchedulerLogsWhatItSubmitted: the "scheduled" line of a firing names
// the companies and the jobs it submitted, the first ScheduledListed by
// company id, with how many in all and how many it does not name, so that
// a night of many companies writes a line of a bounded size.
func TestSchedulerLogsWhatItSubmitted(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	ctx := context.Background()
	const many = ScheduledListed + 5
	if _, err := p.pool.Exec(ctx, `INSERT INTO companies (name, time_zone)
		SELECT 'Manauara ' || i, 'America/Manaus' FROM generate_series(1, $1) AS i`, many); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	sched, err := NewScheduler(SchedulerConfig{Pool: p.pool, Kinds: p.kinds,
		Logger:    slog.New(slog.NewJSONHandler(&logs, nil)),
		Schedules: []Schedule{{Name: "jobs-prune", Spec: "30 3 * * *", Kind: KindJobsPrune}}})
	if err != nil {
		t.Fatal(err)
	}
	// 03:30 in Manaus is 07:30 UTC
	if err := sched.Fire(ctx, time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC), time.Date(2026, 11, 24, 7, 45, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	rows, err := p.pool.Query(ctx, `SELECT j.company_id, j.id FROM jobs j JOIN companies c ON c.id = j.company_id
		WHERE c.time_zone = 'America/Manaus' ORDER BY j.company_id`)
	if err != nil {
		t.Fatal(err)
	}
	var companies, ids []int64
	for rows.Next() {
		var company, id int64
		if err := rows.Scan(&company, &id); err != nil {
			t.Fatal(err)
		}
		companies, ids = append(companies, company), append(ids, id)
	}
	if len(ids) != many {
		t.Fatalf("%d jobs submitted, want %d", len(ids), many)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(line, `"msg":"scheduled"`) {
			lines = append(lines, line)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("scheduled lines: %q", lines)
	}
	var got struct {
		Zone      string  `json:"zone"`
		Jobs      int     `json:"jobs"`
		Companies []int64 `json:"companies"`
		JobIDs    []int64 `json:"job_ids"`
		More      int     `json:"more"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	if got.Zone != "America/Manaus" || got.Jobs != many || got.More != many-ScheduledListed ||
		!slices.Equal(got.Companies, companies[:ScheduledListed]) || !slices.Equal(got.JobIDs, ids[:ScheduledListed]) {
		t.Errorf("scheduled line %s; want the first %d of companies %v, jobs %v", lines[0], ScheduledListed, companies, ids)
	}
	if len(lines[0]) > 1024 {
		t.Errorf("the line is %d bytes", len(lines[0]))
	}
}
