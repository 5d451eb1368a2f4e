package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
)

// eventFilterSet is four events each filter tells apart.
type eventFilterSet struct {
	*eventFixture
	e1, e2, e3, e4 int64
}

// seedEventFilters makes e1, a private visit of calendar 1 two days ahead,
// created by u1 (the key's user), u2 a guest with full access, group 1
// invited, with every link (building, deal, contract, person), reminders
// 15_MIN and START, endless and a Google id; e2, a billing event of
// calendar 2 ten days past (five_days_late), child of e1, created by u2,
// u1 a guest with view access, all day, reminder START; e3, a weekly
// meeting of calendar 2 from Monday 2024-01-01 to 2024-06-30, group 1
// invited (invite access), created by u2, recurrent; e4, its cancelled
// occurrence of 2024-01-08.
func seedEventFilters(t *testing.T) *eventFilterSet {
	t.Helper()
	s := &eventFilterSet{eventFixture: eventEnv(t)}
	s.e1 = s.event(t, map[string]any{"title": "Visita Aurora", "guest": []int64{s.u2}, "guest_group": []int64{s.group},
		"guest_access": "full", "tag": []int64{s.tag1}, "initial_date": today(2) + " 12:00:00", "final_date": today(2) + " 13:00:00",
		"building_id": s.building, "deal_id": s.dealID, "contract_id": s.eventContract, "person_id": s.tenant,
		"invite_person": true, "endless": true, "description": "Levar chaves", "address": "Rua A, 1",
		"reminder": []string{"15_MIN", "START"}, "private": true, "google_id": "g-1"})
	s.e2 = s.event(t, map[string]any{"calendar_id": s.cal2, "title": "Cobrança atrasada", "type": "billing",
		"guest": []int64{s.u1}, "initial_date": today(-10) + " 12:00:00", "father_id": s.e1, "created_by": s.u2,
		"reminder": []string{"START"}, "all_day": true})
	s.e3 = s.event(t, map[string]any{"calendar_id": s.cal2, "title": "Reunião semanal", "type": "meet", "status": "recurrent",
		"guest_group": []int64{s.group}, "guest_access": "invite", "initial_date": "2024-01-01 12:00:00",
		"final_date": "2024-06-30 13:00:00", "recurrency": "weekly", "created_by": s.u2})
	s.e4 = s.event(t, map[string]any{"calendar_id": s.cal2, "title": "Reunião cancelada", "type": "meet", "status": "cancelled",
		"initial_date": "2024-01-08 12:00:00", "recurrence_id": s.e3, "created_by": s.u2})
	return s
}

// TestEventFilters: each special and plain filter keeps an event that must
// match and drops one that must not; "today" is the company's.
func TestEventFilters(t *testing.T) {
	t.Parallel()
	s := seedEventFilters(t)
	e1, e2, e3, e4 := s.e1, s.e2, s.e3, s.e4
	all := []int64{e1, e2, e3, e4}
	in := func(name string, vs ...any) string {
		q := ""
		for _, v := range vs {
			q += fmt.Sprintf("&filter[%s][]=%s", name, url.QueryEscape(fmt.Sprint(v)))
		}
		return q[1:]
	}
	is := func(name string, v any) string {
		return fmt.Sprintf("filter[%s]=%s", name, url.QueryEscape(fmt.Sprint(v)))
	}
	cases := []struct {
		query string
		want  []int64
	}{
		{is("accessible", s.u3), []int64{e2, e3, e4}},
		{is("accessible", s.u2), all},
		{is("accessible", s.u1), all},
		{in("descendant", e1), []int64{e2}},
		{in("descendant", e2), nil},
		{in("guestsIn", s.u2), []int64{e1}},
		{in("guestsIn", s.u3), nil},
		{in("userIn", s.u1), []int64{e2}},
		{in("userIn", s.u3), nil},
		{in("responsibleIn", s.u1), []int64{e1}},
		{in("responsibleIn", s.u2), all},
		{in("responsibleIn", s.u3), nil},
		{in("responsibleGroupIn", s.group), []int64{e1, e3}},
		{in("responsibleGroupIn", s.group+1000), nil},
		{in("creatorIn", s.u1), []int64{e1}},
		{in("creatorIn", s.u3), nil},
		{in("calendarIn", s.cal1), []int64{e1}},
		{in("calendarIn", s.cal1+1000), nil},
		{in("calendarOrInvitedIn", s.cal1), []int64{e1, e2}}, // e2 invites the key's user
		{in("calendarOrInvitedIn", s.cal1+1000), []int64{e2}},
		{in("createdBetween", today(0), today(-1)), all},
		{in("createdBetween", "2020-01-01", "2020-12-31"), nil},
		{in("typeIn", "visit", "billing"), []int64{e1, e2}},
		{in("typeIn", "task"), nil},
		{in("dateMinMax", today(1), today(3)), []int64{e1}},
		{in("dateMinMax", "2023-01-01", "2023-12-31"), nil},
		{is("isLate", true), []int64{e2}},
		{is("isLate", false), []int64{e1, e3, e4}},
		{is("isNotRecurrence", true), []int64{e1, e2, e3}},
		{is("isNotRecurrence", false), []int64{e4}},
		{is("isCancelled", true), []int64{e4}},
		{is("isCancelled", false), []int64{e1, e2, e3}},
		{is("notCancelled", true), []int64{e1, e2, e3}},
		{in("scheduledBetween", today(1), today(3)), []int64{e1}},
		{in("scheduledBetween", "2024-01-08", "2024-01-08"), []int64{e3}}, // e4 falls that day, cancelled
		{in("scheduledBetween", "2024-01-09", "2024-01-14"), nil},
		{is("active", true), []int64{e1, e2, e3}},
		{is("active", false), []int64{e4}},
		{in("statusIn", "five_days_late"), []int64{e2}},
		{in("statusIn", "late", "thirty_days_late"), nil},
		{in("statusNotIn", "scheduled"), []int64{e2, e3, e4}},
		{in("statusNotIn", "scheduled", "five_days_late", "recurrent", "cancelled"), nil},
		{in("recurrencyIn", "weekly"), []int64{e3}},
		{in("recurrencyIn", "daily"), nil},
		{is("hasReminder", true), []int64{e1}},
		{is("hasReminder", false), []int64{e2, e3, e4}},
		{is("hasAnyReminder", true), []int64{e1, e2}},
		{is("hasAnyReminder", false), []int64{e3, e4}},
		{in("buildingIn", s.building), []int64{e1}},
		{in("buildingIn", s.building2), nil},
		{in("dealIn", s.dealID), []int64{e1}},
		{in("dealIn", s.dealID+1000), nil},
		{in("personIn", s.tenant), []int64{e1}},
		{in("personIn", s.owner), nil},
		{is("googleId", "g-1"), []int64{e1}},
		{is("googleId", "g-2"), nil},
		{in("occurrenceBetween", "2024-01-15", "2024-01-16"), []int64{e3}},
		{in("occurrenceBetween", "2024-01-08", "2024-01-08"), []int64{e3, e4}},
		{in("occurrenceBetween", "2024-01-02", "2024-01-07"), nil},
		{in("occurrenceBetween", "2024-07-01", "2024-07-31"), nil}, // after the series' end
		{in("occurrenceBetween", today(-10), today(-10)), []int64{e2}},
		{is("nonRecurring", true), []int64{e1, e2, e4}},
		{is("nonRecurring", false), []int64{e3}},
		// plain filters
		{is("id", e2), []int64{e2}},
		{is("father_id", e1), []int64{e2}},
		{is("recurrence_id", e3), []int64{e4}},
		{is("calendar_id", s.cal1), []int64{e1}},
		{is("title", "visita%"), []int64{e1}},
		{is("title", "Nada"), nil},
		{is("type", "billing"), []int64{e2}},
		{is("status", "five_days_late"), []int64{e2}},
		{is("status", "scheduled"), []int64{e1}},
		{in("guest", s.u2), []int64{e1}},
		{in("guest", s.u3), nil},
		{in("guest_group", s.group), []int64{e1, e3}},
		{is("guest_access", "invite"), []int64{e3}},
		{in("tag", s.tag1), []int64{e1}},
		{in("tag", s.tag2), nil},
		{is("initial_date|ge", today(0)), []int64{e1}},
		{is("final_date|empty", ""), []int64{e2, e4}},
		{is("time_zone", "America/Sao_Paulo"), all},
		{is("time_zone", "America/Manaus"), nil},
		{is("created_by", s.u2), []int64{e2, e3, e4}},
		{is("building_id", s.building), []int64{e1}},
		{is("deal_id", s.dealID), []int64{e1}},
		{is("contract_id", s.eventContract), []int64{e1}},
		{is("person_id", s.tenant), []int64{e1}},
		{is("invite_person", true), []int64{e1}},
		{is("invite_person", false), []int64{e2, e3, e4}},
		{is("endless", true), []int64{e1}},
		{is("all_day", true), []int64{e2}},
		{is("description", "Levar chaves"), []int64{e1}},
		{is("address", "Rua A, 1"), []int64{e1}},
		{is("address", "Rua B"), nil},
		{in("reminder", "START"), []int64{e1, e2}},
		{in("reminder", "1_DAY"), nil},
		{is("private", true), []int64{e1}},
		{is("recurrency", "weekly"), []int64{e3}},
		{is("google_id", "g-1"), []int64{e1}},
	}
	for _, c := range cases {
		got := s.get(t, "/events?sort=id&perPage=100&"+c.query, http.StatusOK).ids(t)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	for _, q := range []string{
		"filter[occurrenceBetween][]=2024-01-01", "filter[dayBetween][]=x&filter[dayBetween][]=2024-01-01",
		"filter[statusIn][]=open", "filter[typeIn][]=party", "filter[recurrencyIn][]=hourly", "filter[reminder][]=3_DAY",
		"filter[isLate]=maybe", "filter[accessible][]=1", "filter[accessible]=x", "filter[googleId][]=a", "filter[title][]=a",
		"filter[reminder|g]=START", "filter[guest_access]=edit",
	} {
		s.get(t, "/events?"+q, http.StatusUnprocessableEntity)
	}
	// company B sees none of them, through any filter
	if r := s.do(t, http.MethodGet, fmt.Sprintf("/events?filter[guestsIn][]=%d", s.u2), s.keyB, nil); r.status != http.StatusOK || len(r.ids(t)) != 0 {
		t.Errorf("B: %s", r.raw)
	}
}

// TestEventRecurrenceFilters: a recurring event is found by the days its
// recurrence produces in the range, not only by its first day: a daily,
// a weekly, a monthly (from a 31st: the last day of shorter months) and a
// yearly (from 29 February) event, each with a range holding an
// occurrence but not the first day and one holding none.
func TestEventRecurrenceFilters(t *testing.T) {
	t.Parallel()
	f := eventEnv(t)
	recurring := func(recurrency, first, until string) int64 {
		body := map[string]any{"recurrency": recurrency, "status": "recurrent", "initial_date": first + " 12:00:00"}
		if until == "" {
			body["endless"] = true
		} else {
			body["final_date"] = until + " 13:00:00"
		}
		return f.event(t, body)
	}
	daily := recurring("daily", "2024-03-10", "2024-03-20")
	weekly := recurring("weekly", "2024-01-03", "") // a Wednesday
	monthly := recurring("monthly", "2024-01-31", "")
	yearly := recurring("yearly", "2020-02-29", "")
	single := f.event(t, map[string]any{"initial_date": "2024-02-29 12:00:00", "status": "concluded"})
	between := func(name, a, b string) string {
		return fmt.Sprintf("filter[%s][]=%s&filter[%s][]=%s", name, a, name, b)
	}
	cases := []struct {
		query string
		want  []int64
	}{
		{between("dayBetween", "2024-03-15", "2024-03-16"), []int64{daily}},
		{between("dayBetween", "2024-03-21", "2024-03-25"), nil}, // after its end
		{between("dayBetween", "2024-03-01", "2024-03-09"), nil}, // before its start
		{between("weekBetween", "2024-02-07", "2024-02-07"), []int64{weekly}},
		{between("weekBetween", "2024-02-13", "2024-02-08"), nil}, // Thursday to Tuesday
		{between("monthBetween", "2024-02-29", "2024-02-29"), []int64{monthly}},
		{between("monthBetween", "2024-04-30", "2024-04-30"), []int64{monthly}},
		{between("monthBetween", "2024-03-31", "2024-03-31"), []int64{monthly}},
		{between("monthBetween", "2024-03-01", "2024-03-30"), nil},
		{between("monthBetween", "2024-02-01", "2024-02-28"), nil},
		{between("yearBetween", "2023-02-28", "2023-02-28"), []int64{yearly}},
		{between("yearBetween", "2023-03-01", "2024-02-28"), nil},
		{between("yearBetween", "2028-02-29", "2028-02-29"), []int64{yearly}},
		{between("dayBetween", "2024-02-29", "2024-02-29"), nil},
		{between("occurrenceBetween", "2024-02-29", "2024-02-29"), []int64{monthly, yearly, single}},
		{between("occurrenceBetween", "2024-03-13", "2024-03-13"), []int64{daily, weekly}},
		{between("occurrenceBetween", "2019-01-01", "2019-12-31"), nil},
	}
	for _, c := range cases {
		got := f.get(t, "/events?sort=id&"+c.query, http.StatusOK).ids(t)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
}

// TestEventFiltersCountGroupMembers: accessible and calendarOrInvitedIn
// count a user as a guest of an event when the user is a member of a
// group in its guest_group, from the moment the membership is written to
// the moment it is deleted.
func TestEventFiltersCountGroupMembers(t *testing.T) {
	t.Parallel()
	f := eventEnv(t)
	other := f.create(t, "/users/groups", map[string]any{"name": "Vistoriadores"})
	member := f.create(t, fmt.Sprintf("/users/groups/%d/users", f.group), map[string]any{"user_id": f.u1})
	f.create(t, fmt.Sprintf("/users/groups/%d/users", other), map[string]any{"user_id": f.u2})
	// private events of calendar 2, created by u3, with no guest but a group
	ofGroup := f.event(t, map[string]any{"calendar_id": f.cal2, "created_by": f.u3, "private": true, "guest_group": []int64{f.group}})
	ofOther := f.event(t, map[string]any{"calendar_id": f.cal2, "created_by": f.u3, "private": true, "guest_group": []int64{other}})
	noGroup := f.event(t, map[string]any{"calendar_id": f.cal2, "created_by": f.u3, "private": true})
	check := func(query string, want ...int64) {
		t.Helper()
		if got := f.get(t, "/events?sort=id&"+query, http.StatusOK).ids(t); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", query, got, want)
		}
	}
	check(fmt.Sprintf("filter[accessible]=%d", f.u1), ofGroup)
	check(fmt.Sprintf("filter[accessible]=%d", f.u2), ofOther)
	check(fmt.Sprintf("filter[accessible]=%d", f.u3), ofGroup, ofOther, noGroup) // the creator
	// the key's user is u1, a member of the group
	check(fmt.Sprintf("filter[calendarOrInvitedIn][]=%d", f.cal1), ofGroup)

	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/users/groups/%d/users/%d", f.group, member), f.keyA, nil); r.status >= 300 {
		t.Fatalf("leaving the group: %d %s", r.status, r.raw)
	}
	check(fmt.Sprintf("filter[accessible]=%d", f.u1))
	check(fmt.Sprintf("filter[calendarOrInvitedIn][]=%d", f.cal1))
	// another company sees none of them, whoever it asks about
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/events?filter[accessible]=%d", f.u2), f.keyB, nil); r.status != http.StatusOK || len(r.ids(t)) != 0 {
		t.Errorf("B: %s", r.raw)
	}
}
