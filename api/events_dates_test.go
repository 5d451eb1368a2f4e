package api

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// eventInstant is what an event's date-time column holds, in UTC.
func (f *eventFixture) eventInstant(t *testing.T, id int64, column string) string {
	t.Helper()
	var at string
	err := f.pool.QueryRow(t.Context(), `SELECT to_char(`+column+` AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')
		FROM events WHERE id = $1`, id).Scan(&at)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestEventDatesInTheEventZone: a date alone, or a date-time without an
// offset, given for an event's initial_date or final_date is a reading of
// the event's time_zone, and is written back so: an all-day event of
// 2026-01-05 in São Paulo is on the 5th for dateMinMax and
// occurrenceBetween (midnight UTC would be the 4th there), a weekly series
// falls on its weekday, and a date-time with an offset stays that
// instant. Reading an event and writing its dates back moves nothing, and
// a change of time zone alone keeps the event's readings.
func TestEventDatesInTheEventZone(t *testing.T) {
	t.Parallel()
	f := eventEnv(t)
	allDay := f.event(t, map[string]any{"initial_date": "2026-01-05", "final_date": "2026-01-05 23:59:59",
		"all_day": true, "time_zone": "America/Sao_Paulo"})
	weekly := f.event(t, map[string]any{"initial_date": "2026-01-05", "recurrency": "weekly", "endless": true,
		"status": "recurrent", "time_zone": "America/Rio_Branco"}) // Mondays, UTC-5
	meeting := f.event(t, map[string]any{"initial_date": "2026-01-05 09:00:00", "time_zone": "America/Manaus"})
	instant := f.event(t, map[string]any{"initial_date": "2026-01-05T01:30:00Z", "time_zone": "America/Sao_Paulo"})

	for _, c := range []struct {
		id                int64
		stored, reads     string
		finalStored, fine string
	}{
		{allDay, "2026-01-05 03:00:00", "2026-01-05 00:00:00", "2026-01-06 02:59:59", "2026-01-05 23:59:59"},
		{weekly, "2026-01-05 05:00:00", "2026-01-05 00:00:00", "", ""},
		{meeting, "2026-01-05 13:00:00", "2026-01-05 09:00:00", "", ""},
		{instant, "2026-01-05 01:30:00", "2026-01-04 22:30:00", "", ""},
	} {
		if got := f.eventInstant(t, c.id, "initial_date"); got != c.stored {
			t.Errorf("event %d: initial_date stored %s UTC, want %s", c.id, got, c.stored)
		}
		rec := f.get(t, eventPath(c.id), http.StatusOK).record(t)
		if rec["initial_date"] != c.reads {
			t.Errorf("event %d: initial_date reads %v, want %s", c.id, rec["initial_date"], c.reads)
		}
		if c.fine != "" && (rec["final_date"] != c.fine || f.eventInstant(t, c.id, "final_date") != c.finalStored) {
			t.Errorf("event %d: final_date reads %v, stored %s; want %s, %s", c.id, rec["final_date"],
				f.eventInstant(t, c.id, "final_date"), c.fine, c.finalStored)
		}
	}

	between := func(name, a, b string) string {
		return fmt.Sprintf("/events?sort=id&filter[%s][]=%s&filter[%s][]=%s", name, a, name, b)
	}
	lists := []struct {
		query string
		want  []int64
	}{
		{between("dateMinMax", "2026-01-05", "2026-01-05"), []int64{allDay, weekly, meeting}},
		{between("dateMinMax", "2026-01-04", "2026-01-04"), []int64{instant}},
		{between("occurrenceBetween", "2026-01-04", "2026-01-04"), []int64{instant}},
		{between("occurrenceBetween", "2026-01-05", "2026-01-05"), []int64{allDay, weekly, meeting}},
		{between("weekBetween", "2026-01-12", "2026-01-12"), []int64{weekly}}, // a Monday
		{between("weekBetween", "2026-01-11", "2026-01-11"), nil},
		{between("weekBetween", "2026-01-13", "2026-01-18"), nil},
		// a date alone, or a reading, given to a filter is read in each event's zone
		{"/events?sort=id&filter[initial_date]=2026-01-05", []int64{allDay, weekly}},
		{"/events?sort=id&filter[initial_date|ge]=2026-01-05%2009:00:00", []int64{meeting}},
		{"/events?sort=id&filter[initial_date|b]=2026-01-04|2026-01-04%2023:59:59", []int64{instant}},
		{"/events?sort=id&filter[initial_date|l]=2026-01-05T03:00:00Z", []int64{instant}},
	}
	for _, c := range lists {
		if got := f.get(t, c.query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			t.Errorf("GET %s: %v, want %v", c.query, got, c.want)
		}
	}

	// what is read is what is written back
	rec := f.get(t, eventPath(meeting), http.StatusOK).record(t)
	if r := f.putEvent(t, meeting, map[string]any{"initial_date": rec["initial_date"]}); r.status != http.StatusOK ||
		r.record(t)["initial_date"] != "2026-01-05 09:00:00" || f.eventInstant(t, meeting, "initial_date") != "2026-01-05 13:00:00" {
		t.Errorf("PUT of the date read: %d %s; stored %s", r.status, r.raw, f.eventInstant(t, meeting, "initial_date"))
	}
	// a new zone alone keeps the readings: the all-day event stays on the 5th
	r := f.putEvent(t, allDay, map[string]any{"time_zone": "America/Noronha"})
	if r.status != http.StatusOK || r.record(t)["initial_date"] != "2026-01-05 00:00:00" || r.record(t)["final_date"] != "2026-01-05 23:59:59" {
		t.Errorf("PUT time_zone: %d %s", r.status, r.raw)
	}
	if got := f.eventInstant(t, allDay, "initial_date"); got != "2026-01-05 02:00:00" {
		t.Errorf("after the zone change initial_date is stored %s UTC, want 2026-01-05 02:00:00", got)
	}
	if got := f.get(t, between("dateMinMax", "2026-01-05", "2026-01-05")+"&filter[id]="+fmt.Sprint(allDay), http.StatusOK).ids(t); !slices.Equal(got, []int64{allDay}) {
		t.Errorf("after the zone change dateMinMax 2026-01-05: %v", got)
	}
	// a new zone with new dates reads the dates in the new zone
	r = f.putEvent(t, meeting, map[string]any{"time_zone": "America/Sao_Paulo", "initial_date": "2026-01-06 10:00:00"})
	if r.status != http.StatusOK || r.record(t)["initial_date"] != "2026-01-06 10:00:00" || f.eventInstant(t, meeting, "initial_date") != "2026-01-06 13:00:00" {
		t.Errorf("PUT time_zone and initial_date: %d %s", r.status, r.raw)
	}
	// the order of the dates is checked on the instants
	r = f.putEvent(t, allDay, map[string]any{"final_date": "2026-01-04 23:00:00"})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"filter[final_date]"}) {
		t.Errorf("final before initial: %d %s", r.status, r.raw)
	}
}

// TestDateAloneInTheCompanyZone: a date alone given for a date-time of any
// other resource, in a body or a filter, is midnight in the company's time
// zone, not in UTC (the evening before in Brazil); a date-time without an
// offset stays UTC there, the form it is written back in. The events'
// created_at filter reads a date alone in each event's own zone.
func TestDateAloneInTheCompanyZone(t *testing.T) {
	t.Parallel()
	f := eventEnv(t)
	f.exec(t, `UPDATE companies SET time_zone = 'America/Manaus' WHERE id = $1`, f.compA) // UTC-4
	invoice := f.create(t, "/invoices", f.body(nil))
	messages := fmt.Sprintf("/invoices/%d/messages", invoice)
	dateAlone := f.create(t, messages, map[string]any{"channel": "email", "body": "a", "sent_at": "2026-01-05"})
	utc := f.create(t, messages, map[string]any{"channel": "email", "body": "b", "sent_at": "2026-01-05 01:00:00"})
	if got := f.get(t, fmt.Sprintf("%s/%d", messages, dateAlone), http.StatusOK).record(t)["sent_at"]; got != "2026-01-05 04:00:00" {
		t.Errorf("sent_at 2026-01-05 reads %v, want 2026-01-05 04:00:00 (midnight in Manaus, in UTC)", got)
	}
	if got := f.get(t, fmt.Sprintf("%s/%d", messages, utc), http.StatusOK).record(t)["sent_at"]; got != "2026-01-05 01:00:00" {
		t.Errorf("sent_at 2026-01-05 01:00:00 reads %v, want it as given (UTC)", got)
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", invoice), f.keyA, map[string]any{"billing_method": "ticket", "ticket_date": "2026-01-05"}); r.status != http.StatusOK ||
		r.record(t)["ticket_date"] != "2026-01-05 04:00:00" {
		t.Errorf("ticket_date 2026-01-05: %d %s", r.status, r.raw)
	}
	for query, want := range map[string][]int64{
		"filter[sent_at|ge]=2026-01-05":            {dateAlone},
		"filter[sent_at|l]=2026-01-05":             {utc},
		"filter[sent_at|ge]=2026-01-05%2001:00:00": {utc, dateAlone},
	} {
		if got := f.get(t, messages+"?sort=-id&"+query, http.StatusOK).ids(t); !slices.Equal(got, want) {
			t.Errorf("GET messages?%s: %v, want %v", query, got, want)
		}
	}

	// an event created at 02:30 UTC on the 5th was created on the 4th in São Paulo (UTC-3), the 5th in Noronha (UTC-2)
	sp := f.event(t, map[string]any{"time_zone": "America/Sao_Paulo"})
	noronha := f.event(t, map[string]any{"time_zone": "America/Noronha"})
	f.exec(t, `UPDATE events SET created_at = '2026-01-05 02:30:00+00' WHERE company_id = $1`, f.compA)
	for query, want := range map[string][]int64{
		"filter[created_at|ge]=2026-01-05": {noronha},
		"filter[created_at|l]=2026-01-05":  {sp},
	} {
		if got := f.get(t, "/events?sort=id&"+query, http.StatusOK).ids(t); !slices.Equal(got, want) {
			t.Errorf("GET /events?%s: %v, want %v", query, got, want)
		}
	}
}
