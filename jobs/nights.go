package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The schedules' runs as operators look at them (docs/operations.md,
// "Nightly runs"): for each schedule, company and date, whether its run
// happened, failed, is under way or is missing; a run made (or made again)
// for a date by hand; and the alert of a run not finished at a set time
// after its firing.

// The states of a night: a schedule's run of a company on a date.
const (
	NightSucceeded = "succeeded"
	NightFailed    = "failed"
	NightCanceled  = "canceled"
	NightRunning   = "running" // pending, queued or running
	NightMissing   = "missing" // fired (or should have) and no run recorded
	NightDue       = "due"     // not fired yet
	NightNone      = "none"    // the schedule does not fire that date, or the company did not exist then
)

// nightGrace is how long after its firing a night without a run is
// still due rather than missing: the scheduler sleeps up to maxWait.
const nightGrace = 2 * time.Minute

// Night is the run of a schedule for a company and date.
type Night struct {
	Schedule  string
	Date      string
	CompanyID int64
	State     string
	FiresAt   time.Time // zero when the schedule does not fire that date
	Run       *storage.KeyRun
}

// RunOf is the kind, payload and unique key of schedule name's run of
// date (YYYY-MM-DD, the company's).
func (s *Scheduler) RunOf(name, date string) (*Kind, []byte, string, error) {
	sch, ok := s.schedule(name)
	if !ok {
		return nil, nil, "", finance.Errorf(finance.NotFound, "No schedule %q.", name)
	}
	var payload any = DatePayload{Date: date}
	if sch.Payload != nil {
		payload = sch.Payload(date)
	}
	prepared, key, err := sch.kind.prepare(mustJSON(payload))
	if err != nil {
		return nil, nil, "", err
	}
	return sch.kind, prepared, key, nil
}

func (s *Scheduler) schedule(name string) (parsedSchedule, bool) {
	for _, sch := range s.schedules {
		if sch.Name == name {
			return sch, true
		}
	}
	return parsedSchedule{}, false
}

// FiresOn is the first time schedule name fires on local date in loc; ok
// is false when it does not fire that date (the 1st-of-the-month
// statements on the 24th).
func (s *Scheduler) FiresOn(name string, loc *time.Location, date string) (time.Time, bool) {
	sch, ok := s.schedule(name)
	if !ok {
		return time.Time{}, false
	}
	return firesOn(sch, loc, date)
}

func firesOn(sch parsedSchedule, loc *time.Location, date string) (time.Time, bool) {
	day, err := time.ParseInLocation(time.DateOnly, date, time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	t := sch.cron.Next(day.Add(-time.Second)) // on the wall clock, as firingDates reads it
	if t.IsZero() || t.Format(time.DateOnly) != date {
		return time.Time{}, false
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, loc), true
}

// companyLocation is a company's zone, the default zone's when unknown.
func (s *Scheduler) companyLocation(zone string) *time.Location {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc, _ = time.LoadLocation(DefaultTimeZone)
	}
	return loc
}

// Nights are the runs of every schedule, for every company, on each of
// dates, as of now, with the companies they name.
func (s *Scheduler) Nights(ctx context.Context, q storage.DBTX, dates []string, now time.Time) ([]Night, []storage.CompanyInfo, error) {
	companies, err := storage.Companies(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	var out []Night
	for _, sch := range s.schedules {
		keys := make(map[string]string, len(dates))
		var keyList []string
		for _, d := range dates {
			if _, _, key, err := s.RunOf(sch.Name, d); err == nil && key != "" {
				keys[d] = key
				keyList = append(keyList, key)
			}
		}
		runs, err := storage.KeyRuns(ctx, q, sch.kind.Name, keyList)
		if err != nil {
			return nil, nil, fmt.Errorf("schedule %s: %w", sch.Name, err)
		}
		byKey := make(map[[2]string]*storage.KeyRun, len(runs))
		for i := range runs {
			byKey[[2]string{fmt.Sprint(runs[i].CompanyID), runs[i].Key}] = &runs[i]
		}
		for _, c := range companies {
			loc := s.companyLocation(c.TimeZone)
			for _, d := range dates {
				n := Night{Schedule: sch.Name, Date: d, CompanyID: c.ID}
				n.FiresAt, _ = firesOn(sch, loc, d)
				// A run belongs to the night it fires on: a monthly schedule's
				// key is the same for every date of its month, and a run made
				// for a night before the company existed is not that night's.
				if key, ok := keys[d]; ok && !n.FiresAt.IsZero() && !c.CreatedAt.After(n.FiresAt) {
					n.Run = byKey[[2]string{fmt.Sprint(c.ID), key}]
				}
				n.State = nightState(n, c, now)
				out = append(out, n)
			}
		}
	}
	return out, companies, nil
}

// nightState is what a night shows: its run's state, or, without a run,
// missing once its firing is past, due before, none when the schedule
// does not fire that date or the company did not exist at its firing
// (Nights gives such a night no run).
func nightState(n Night, c storage.CompanyInfo, now time.Time) string {
	if n.Run != nil {
		switch n.Run.State {
		case storage.JobSucceeded:
			return NightSucceeded
		case storage.JobFailed:
			return NightFailed
		case storage.JobCanceled:
			return NightCanceled
		}
		return NightRunning
	}
	switch {
	case n.FiresAt.IsZero() || c.CreatedAt.After(n.FiresAt):
		return NightNone
	case now.Before(n.FiresAt.Add(nightGrace)):
		return NightDue
	}
	return NightMissing
}

// SubmitRun records schedule name's run of date for a company, as the
// scheduler would, submitted by by: a run of the date's key recorded
// already is answered (found FoundSameKey), unless rerun asks for a new run
// of it (kinds declared Rerun, once the key's runs have finished).
func (s *Scheduler) SubmitRun(ctx context.Context, q storage.DBTX, companyID int64, name, date string, rerun bool, by string) (storage.Job, storage.Found, error) {
	kind, payload, _, err := s.RunOf(name, date)
	if err != nil {
		return storage.Job{}, storage.FoundNothing, err
	}
	return s.cfg.Kinds.Submit(ctx, q, companyID, Submission{Kind: kind.Name, Payload: payload, Rerun: rerun, SubmittedBy: by})
}

// RaiseMissing raises the operator alert of every night of the last two
// days whose run had not finished (none recorded, or one not finished)
// after of its firing, once per company, schedule and date; it returns
// how many it raised. A night of a company created after its firing
// raises none (the console shows it none), and a run submitted after its
// firing (a starting scheduler's catch-up, an operator's run) is late only
// once it has not finished after of its submission.
func (s *Scheduler) RaiseMissing(ctx context.Context, q storage.DBTX, now time.Time, after time.Duration) (int64, error) {
	var dates []string
	for d := -2; d <= 0; d++ {
		dates = append(dates, now.AddDate(0, 0, d).Format(time.DateOnly))
	}
	nights, companies, err := s.Nights(ctx, q, dates, now)
	if err != nil {
		return 0, err
	}
	created := make(map[int64]time.Time, len(companies))
	for _, c := range companies {
		created[c.ID] = c.CreatedAt
	}
	var raised int64
	for _, n := range nights {
		msg, late := missingMessage(n, created[n.CompanyID], now, after)
		if !late {
			continue
		}
		kind, _, key, err := s.RunOf(n.Schedule, n.Date)
		if err != nil {
			return raised, err
		}
		var jobID *int64
		if n.Run != nil {
			jobID = &n.Run.JobID
		}
		ok, err := storage.RaiseRunMissing(ctx, q, storage.RunMissing{CompanyID: n.CompanyID, Schedule: n.Schedule,
			Date: n.Date, Kind: kind.Name, Key: key, JobID: jobID, Message: msg})
		if err != nil {
			return raised, err
		}
		if ok {
			raised++
		}
	}
	return raised, nil
}

// missingMessage says whether night n of a company created at created is
// late at now (not finished after of its firing, or of its run's
// submission when that came later), and the alert's words.
func missingMessage(n Night, created, now time.Time, after time.Duration) (string, bool) {
	if (n.State != NightMissing && n.State != NightRunning) || n.FiresAt.IsZero() ||
		created.After(n.FiresAt) || n.FiresAt.Before(now.Add(-48*time.Hour)) {
		return "", false
	}
	at := n.FiresAt.Format(time.DateTime + " MST")
	switch {
	case n.Run == nil:
		msg := fmt.Sprintf("The %s run of %s had no run %s after its time (%s).", n.Schedule, n.Date, after, at)
		return msg, !now.Before(n.FiresAt.Add(after))
	case n.Run.CreatedAt.After(n.FiresAt):
		submitted := n.Run.CreatedAt.In(n.FiresAt.Location()).Format(time.DateTime + " MST")
		msg := fmt.Sprintf("The %s run of %s (job %d, submitted at %s, after its time %s) had not finished %s after its submission: %s.",
			n.Schedule, n.Date, n.Run.JobID, submitted, at, after, n.Run.State)
		return msg, !now.Before(n.Run.CreatedAt.Add(after))
	}
	msg := fmt.Sprintf("The %s run of %s (job %d) had not finished %s after its time (%s): %s.", n.Schedule, n.Date,
		n.Run.JobID, after, at, n.Run.State)
	return msg, !now.Before(n.FiresAt.Add(after))
}
