package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestEventIncludes: every include of an event: guests, guest groups and
// tags (integer arrays), the records it points at, its parent and
// children, its series (arisingFrom) and the occurrences written apart
// (recurrences, cancelled), its files and latest feedback.
func TestEventIncludes(t *testing.T) {
	t.Parallel()
	f := eventEnv(t)
	series := f.event(t, map[string]any{"recurrency": "monthly", "status": "recurrent", "guest": []int64{f.u3, f.u2},
		"guest_group": []int64{f.group}, "tag": []int64{f.tag2, f.tag1}, "building_id": f.building, "deal_id": f.dealID,
		"person_id": f.tenant, "contract_id": f.eventContract, "created_by": f.u2})
	moved := f.event(t, map[string]any{"recurrence_id": series, "father_id": series})
	cancelled := f.event(t, map[string]any{"recurrence_id": series, "status": "cancelled"})
	file := f.create(t, eventPath(series, "files"), map[string]any{"name": "a.pdf", "url": "https://files.example.com/a.pdf"})
	feedback := f.create(t, eventPath(series, "feedbacks"), map[string]any{"feedback": "Feito"})

	names := []string{"guests", "guestGroups", "tags", "creator", "calendar", "person", "building", "deal", "parent", "childs",
		"arisingFrom", "recurrences", "cancelled", "files", "lastFeedback", "contract"}
	query := "?include[" + strings.Join(names, "]&include[") + "]"
	rec := f.get(t, eventPath(series)+query, http.StatusOK).record(t)
	lists := []struct {
		name string
		want []int64
	}{
		{"guests", []int64{f.u3, f.u2}}, // in the array's order
		{"guestGroups", []int64{f.group}},
		{"tags", []int64{f.tag2, f.tag1}},
		{"childs", []int64{moved}},
		{"recurrences", []int64{moved, cancelled}},
		{"cancelled", []int64{cancelled}},
		{"files", []int64{file}},
	}
	for _, c := range lists {
		if got := relatedIDs(t, rec, c.name); !slices.Equal(got, c.want) {
			t.Errorf("include[%s]: %v, want %v", c.name, got, c.want)
		}
	}
	ones := []struct {
		name string
		want int64
	}{
		{"creator", f.u2}, {"calendar", f.cal1}, {"person", f.tenant}, {"building", f.building}, {"deal", f.dealID},
		{"parent", 0}, {"arisingFrom", 0}, {"lastFeedback", feedback}, {"contract", f.eventContract},
	}
	for _, c := range ones {
		if got := relatedID(t, rec, c.name); got != c.want {
			t.Errorf("include[%s]: %d, want %d", c.name, got, c.want)
		}
	}
	// in a list, each event gets its own
	data := f.get(t, "/events?sort=id&include[parent]=id&include[arisingFrom]=id,title&include[cancelled]&include[guests]=name", http.StatusOK).data(t)
	if len(data) != 3 || relatedID(t, data[1], "parent") != series || relatedID(t, data[1], "arisingFrom") != series ||
		len(relatedIDs(t, data[1], "cancelled")) != 0 || len(relatedIDs(t, data[2], "guests")) != 0 {
		t.Errorf("list includes: %v", data)
	}
	// a contract includes its events
	if got := relatedIDs(t, f.get(t, contractPath(f.eventContract)+"?include[events]", http.StatusOK).record(t), "events"); !slices.Equal(got, []int64{series}) {
		t.Errorf("contract include[events]: %v", got)
	}
	f.get(t, eventPath(series)+"?include[nothing]", http.StatusUnprocessableEntity)

	// the deal's, funnel's and step's includes, and the feedbacks'
	deal := fmt.Sprintf("/deals/%d", f.dealID)
	if r := f.do(t, http.MethodPut, deal, f.keyA, map[string]any{"person_id": f.tenant, "building_id": f.building}); r.status != http.StatusOK {
		t.Fatalf("PUT %s: %d %s", deal, r.status, r.raw)
	}
	rec = f.get(t, deal+"?include[person]&include[building]&include[events]&include[funnel]&include[step]", http.StatusOK).record(t)
	if relatedID(t, rec, "person") != f.tenant || relatedID(t, rec, "building") != f.building || relatedID(t, rec, "funnel") != f.funnel ||
		relatedID(t, rec, "step") != f.step || !slices.Equal(relatedIDs(t, rec, "events"), []int64{series}) {
		t.Errorf("deal includes: %v", rec)
	}
	if got := relatedIDs(t, f.get(t, fmt.Sprintf("/funnels/%d?include[deals]", f.funnel), http.StatusOK).record(t), "deals"); !slices.Equal(got, []int64{f.dealID}) {
		t.Errorf("funnel include[deals]: %v", got)
	}
	rec = f.get(t, fmt.Sprintf("/funnels/%d/steps/%d?include[deals]&include[funnel]", f.funnel, f.step), http.StatusOK).record(t)
	if relatedID(t, rec, "funnel") != f.funnel || !slices.Equal(relatedIDs(t, rec, "deals"), []int64{f.dealID}) {
		t.Errorf("step includes: %v", rec)
	}
	rec = f.get(t, eventPath(series, "feedbacks", feedback)+"?include[user]&include[event]", http.StatusOK).record(t)
	if relatedID(t, rec, "user") != f.u1 || relatedID(t, rec, "event") != series {
		t.Errorf("feedback includes: %v", rec)
	}
	if got := relatedIDs(t, f.get(t, fmt.Sprintf("/calendars/%d?include[events]", f.cal1), http.StatusOK).record(t), "events"); len(got) != 3 {
		t.Errorf("calendar include[events]: %v", got)
	}
	if r := f.do(t, http.MethodDelete, deal, f.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete a deal with events: %d %s", r.status, r.raw)
	}
}
