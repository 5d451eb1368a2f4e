package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// A run submitted ahead of its night (docs/jobs.md, "A run ahead of its
// night"): a client may start a nightly kind for today or tomorrow, and
// since a key runs once, that run is the night's: the schedule's firing
// finds it and makes none. The submission is made all the same; its answer
// warns.

// AheadOfNight are the warnings of a new job of kind with payload for the
// company: one for each schedule of the kind whose run of the company's
// today or tomorrow has the payload's key and has not fired yet (the
// company's wall clock is before its time that day). None for a kind no
// schedule runs, a payload without a key, or a night whose time is past.
func (s *Scheduler) AheadOfNight(ctx context.Context, q storage.DBTX, companyID int64, kind string, payload json.RawMessage) ([]finance.Problem, error) {
	k, ok := s.cfg.Kinds.Kind(kind)
	if !ok || !s.runsKind(kind) {
		return nil, nil
	}
	_, key, err := k.prepare(payload)
	if err != nil || key == "" {
		return nil, nil //nolint:nilerr // a payload Submit took has prepared once; none to warn of
	}
	now, err := storage.CompanyNow(ctx, q, companyID)
	if err != nil {
		return nil, err
	}
	return s.aheadOf(k, key, now), nil
}

// runsKind says whether a schedule in force runs kind.
func (s *Scheduler) runsKind(kind string) bool {
	for _, sch := range s.schedules {
		if sch.kind.Name == kind {
			return true
		}
	}
	return false
}

// aheadOf is AheadOfNight for the key of a run of k, now the company's
// wall clock (its location UTC, as firesOn answers on loc UTC).
func (s *Scheduler) aheadOf(k *Kind, key string, now time.Time) []finance.Problem {
	var out []finance.Problem
	for _, sch := range s.schedules {
		if sch.kind.Name != k.Name {
			continue
		}
		for _, day := range []time.Time{now, now.AddDate(0, 0, 1)} {
			date := day.Format(time.DateOnly)
			_, _, runKey, err := s.RunOf(sch.Name, date)
			if err != nil || runKey != key {
				continue
			}
			at, fires := firesOn(sch, time.UTC, date)
			if !fires || !now.Before(at) {
				continue
			}
			out = append(out, finance.Problem{Field: aheadField(sch, date), Message: aheadMessage(sch, k, date, at)})
		}
	}
	return out
}

// aheadField is the payload field that names the night of date: the date
// of a DatePayload, the one field of a payload the schedule makes
// (owners:statements' month), else the payload itself.
func aheadField(sch parsedSchedule, date string) string {
	if sch.Payload == nil {
		return "payload.date"
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(mustJSON(sch.Payload(date)), &fields) == nil && len(fields) == 1 {
		for name := range fields {
			return "payload." + name
		}
	}
	return "payload"
}

// aheadMessage says what a run ahead of schedule sch's night of date
// (firing at at, on the company's clock) means.
func aheadMessage(sch parsedSchedule, k *Kind, date string, at time.Time) string {
	again := ""
	if k.Rerun {
		again = `, unless this one is run again ("rerun": true, once it has finished)`
	}
	return fmt.Sprintf("this run is the night's: schedule %s runs %s of %s at %s that day in the company's time zone, "+
		"and finds it done, so it will not run that date again; what is written after this run starts (an invoice "+
		"credited later today, say) waits for the next date's run%s", sch.Name, k.Name, date, at.Format("15:04"), again)
}
