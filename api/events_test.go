package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestEventBodyForms: an event is written with the spec's keys
// (`filter[title]`, `filter[guest][]`) or their plain names alike; the
// same field under both is a 422; problems name the spec's keys.
func TestEventBodyForms(t *testing.T) {
	t.Parallel()
	f := eventEnv(t)
	spec := f.eventBody(map[string]any{"guest": []int64{f.u2}, "reminder": []string{"START", "1_DAY"}, "tag": []int64{f.tag1},
		"description": "Levar as chaves"})
	plain := plainBody(spec)
	for name, body := range map[string]map[string]any{"filter[...] keys": spec, "plain keys": plain} {
		r := f.do(t, http.MethodPost, "/events", f.keyA, body)
		if r.status != http.StatusCreated {
			t.Fatalf("%s: %d %s", name, r.status, r.raw)
		}
		rec := r.record(t)
		if rec["title"] != "Visita" || fmt.Sprint(rec["guest"]) != fmt.Sprint([]int64{f.u2}) || fmt.Sprint(rec["reminder"]) != "[START 1_DAY]" ||
			rec["initial_date"] != "2024-03-01 12:00:00" || num(t, rec["created_by"]) != f.u1 || rec["time_zone"] != "America/Sao_Paulo" ||
			rec["description"] != "Levar as chaves" || rec["private"] != false {
			t.Errorf("%s: %s", name, r.raw)
		}
	}
	both := f.eventBody(map[string]any{"title": "A"})
	both["title"] = "B"
	if r := f.do(t, http.MethodPost, "/events", f.keyA, both); r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"title"}) {
		t.Errorf("both forms: %d %s", r.status, r.raw)
	}
	r := f.do(t, http.MethodPost, "/events", f.keyA, map[string]any{"filter[description]": "x"})
	want := []string{"filter[calendar_id]", "filter[guest][]", "filter[guest_access]", "filter[guest_group][]", "filter[initial_date]",
		"filter[status]", "filter[title]", "filter[type]"}
	got := r.problemFields(t)
	slices.Sort(got)
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("empty body: %d %v, want %v", r.status, got, want)
	}
}

// TestEventWriteRules: every enum, the required keys' nulls, the period,
// references within the company, the fields an update cannot change, and
// an event that cannot be its own parent or series.
func TestEventWriteRules(t *testing.T) {
	t.Parallel()
	f := eventEnv(t)
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"type", map[string]any{"type": "party"}, "filter[type]"},
		{"status", map[string]any{"status": "open"}, "filter[status]"},
		{"guest_access", map[string]any{"guest_access": "edit"}, "filter[guest_access]"},
		{"time_zone", map[string]any{"time_zone": "Europe/Lisbon"}, "filter[time_zone]"},
		{"reminder", map[string]any{"reminder": []string{"START", "3_DAY"}}, "filter[reminder][]"},
		{"reminder of numbers", map[string]any{"reminder": []int{1}}, "filter[reminder][]"},
		{"recurrency", map[string]any{"recurrency": "hourly"}, "filter[recurrency]"},
		{"title null", map[string]any{"title": nil}, "filter[title]"},
		{"final before initial", map[string]any{"final_date": "2024-03-01 11:59:59"}, "filter[final_date]"},
		{"guest of the company", map[string]any{"guest": []int64{f.u2, 999999}}, "filter[guest][]"},
		{"guest group", map[string]any{"guest_group": []int64{999999}}, "filter[guest_group][]"},
		{"calendar", map[string]any{"calendar_id": 999999}, "filter[calendar_id]"},
		{"deal", map[string]any{"deal_id": 999999}, "filter[deal_id]"},
		{"last feedback is the feedbacks'", map[string]any{"last_feedback_id": 1}, "filter[last_feedback_id]"},
	}
	for _, c := range cases {
		body := f.eventBody(c.body)
		if c.body["title"] == nil && strings.HasPrefix(c.name, "title") {
			body["filter[title]"] = nil
		}
		if r := f.do(t, http.MethodPost, "/events", f.keyA, body); r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("%s: %d %s, want 422 naming %s", c.name, r.status, r.raw, c.field)
		}
	}
	// the spec's ten types are taken, the schemas' seven and the other three
	for _, typ := range []string{"task", "call", "inspect", "maintenance", "billing"} {
		f.event(t, map[string]any{"type": typ})
	}
	id := f.event(t, map[string]any{"created_by": f.u2, "time_zone": "America/Manaus"})
	rec := f.get(t, eventPath(id), http.StatusOK).record(t)
	if num(t, rec["created_by"]) != f.u2 || rec["time_zone"] != "America/Manaus" {
		t.Errorf("given creator and zone: %v %v", rec["created_by"], rec["time_zone"])
	}
	updates := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"filter[calendar_id]": f.cal2}, "filter[calendar_id]"},
		{map[string]any{"calendar_id": f.cal2}, "calendar_id"},
		{map[string]any{"filter[created_by]": f.u1}, "filter[created_by]"},
		{map[string]any{"filter[father_id]": id}, "filter[father_id]"},
		{map[string]any{"filter[recurrence_id]": id}, "filter[recurrence_id]"},
		{map[string]any{"filter[final_date]": "2024-02-01 00:00:00"}, "filter[final_date]"},
	}
	for _, c := range updates {
		if r := f.putEvent(t, id, c.body); r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("PUT %v: %d %s, want 422 naming %s", c.body, r.status, r.raw, c.field)
		}
	}
	r := f.putEvent(t, id, map[string]any{"filter[title]": "Remarcada", "status": "concluded", "filter[reminder][]": []string{}})
	if rec := r.record(t); r.status != http.StatusOK || rec["title"] != "Remarcada" || rec["status"] != "concluded" || fmt.Sprint(rec["reminder"]) != "[]" {
		t.Errorf("update: %d %s", r.status, r.raw)
	}
}

// TestEventSubResourcesAndIsolation: calendars, events, their files and
// feedbacks (the latest one is include[lastFeedback]) on every route;
// company B reaches none of A's, and under A's event every sub-resource
// route is a 404 for B.
func TestEventSubResourcesAndIsolation(t *testing.T) {
	t.Parallel()
	f := eventEnv(t)
	roundTrip(t, f.testEnv, crudCase{path: "/calendars", create: map[string]any{"name": "Manutenção", "_color": "blue"},
		update: map[string]any{"name": "Manutenções"}, filter: "filter[name]=manu%25", include: "events"})
	roundTrip(t, f.testEnv, crudCase{path: "/events", create: plainBody(f.eventBody(map[string]any{"title": "Vistoria de saída", "status": "concluded"})),
		update: map[string]any{"title": "Vistoria"}, filter: "filter[typeIn][]=visit", include: "calendar"})
	id := f.event(t, nil)
	file := f.create(t, eventPath(id, "files"), map[string]any{"name": "planta.pdf", "url": "https://files.example.com/p.pdf"})
	first := f.create(t, eventPath(id, "feedbacks"), map[string]any{"feedback": "Cliente gostou"})
	second := f.create(t, eventPath(id, "feedbacks"), map[string]any{"feedback": "Pediu proposta"})
	rec := f.get(t, eventPath(id)+"?include[lastFeedback]&include[files]", http.StatusOK).record(t)
	if relatedID(t, rec, "lastFeedback") != second || !slices.Equal(relatedIDs(t, rec, "files"), []int64{file}) {
		t.Errorf("lastFeedback, files: %v %v", rec["lastFeedback"], rec["files"])
	}
	if fb := f.get(t, eventPath(id, "feedbacks", second), http.StatusOK).record(t); num(t, fb["user_id"]) != f.u1 {
		t.Errorf("feedback author: %v", fb["user_id"])
	}
	if r := f.do(t, http.MethodDelete, eventPath(id, "feedbacks", second), f.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete feedback: %d %s", r.status, r.raw)
	}
	if rec := f.get(t, eventPath(id)+"?include[lastFeedback]", http.StatusOK).record(t); relatedID(t, rec, "lastFeedback") != first {
		t.Errorf("lastFeedback after a delete: %v", rec["lastFeedback"])
	}
	for _, path := range []string{eventPath(id), eventPath(id, "files"), eventPath(id, "files", file), eventPath(id, "feedbacks"),
		eventPath(id, "feedbacks", first), fmt.Sprintf("/calendars/%d", f.cal1)} {
		if r := f.do(t, http.MethodGet, path, f.keyB, nil); r.status != http.StatusNotFound {
			t.Errorf("B GET %s: %d %s", path, r.status, r.raw)
		}
	}
	if r := f.do(t, http.MethodPost, eventPath(id, "files"), f.keyB, map[string]any{"name": "a", "url": "b"}); r.status != http.StatusNotFound {
		t.Errorf("B POST a file under A's event: %d %s", r.status, r.raw)
	}
	for _, path := range []string{"/events", "/calendars"} {
		if r := f.do(t, http.MethodGet, path, f.keyB, nil); r.status != http.StatusOK || len(r.ids(t)) != 0 {
			t.Errorf("B lists %s: %s", path, r.raw)
		}
	}
	// B cannot point an event at A's calendar, users or groups
	b := map[string]any{"filter[calendar_id]": f.cal1, "filter[title]": "x", "filter[guest][]": []int64{f.u2},
		"filter[guest_group][]": []int64{f.group}, "filter[guest_access]": "view", "filter[type]": "task",
		"filter[status]": "scheduled", "filter[initial_date]": "2024-03-01"}
	r := f.do(t, http.MethodPost, "/events", f.keyB, b)
	if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || !slices.Equal(got, []string{"filter[calendar_id]", "filter[guest][]", "filter[guest_group][]"}) {
		t.Errorf("B pointing at A's records: %d %v", r.status, got)
	}
	// deleting an event removes its files and feedbacks, and its recurrences
	occurrence := f.event(t, map[string]any{"recurrence_id": id})
	if r := f.do(t, http.MethodDelete, eventPath(id), f.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	if n := f.scalar(t, `SELECT (SELECT count(*) FROM event_files WHERE event_id = $1) + (SELECT count(*) FROM event_feedbacks WHERE event_id = $1)
		+ (SELECT count(*) FROM events WHERE id = $2)`, id, occurrence); n != 0 {
		t.Errorf("%d rows left after the event's delete", n)
	}
}
