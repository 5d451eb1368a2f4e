package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// groupsText is the JSON text of groups, as the groups field carries it.
func groupsText(t *testing.T, groups ...map[string]any) string {
	t.Helper()
	b, err := json.Marshal(groups)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCondominiumGroups: groups written with the schema's names and with
// the sample's _min names, read through include[groups] and
// include[purposes] (and groups.purposes), replaced on update (a group
// given with its id keeps it, the others are new, the rest deleted),
// cleared with null, and deleted one by one through
// DELETE /condominiums/groups/{id}.
func TestCondominiumGroups(t *testing.T) {
	t.Parallel()
	e := setup(t)
	sample := groupsText(t,
		map[string]any{"title": "2 quartos", "status": "active", "area_total_min": "62.5", "bathroom_min": "1",
			"bedroom_min": "2", "room_min": "1", "suite_min": "1",
			"purposes": []any{map[string]any{"type": "sale", "amount": "450000.00", "condominium": "650.00", "iptu_amount": "1200.00"}}},
		map[string]any{"title": "Cobertura", "area_total": "180", "bathroom": 3, "bedroom": "4", "room": "2", "suite": "2",
			"purposes": []any{map[string]any{"type": "sale", "amount": "1500000"}, map[string]any{"type": "rent", "amount": "9000"}}},
	)
	id := newCondominium(t, e, map[string]any{"groups": sample})
	rec := e.get(t, condominiumPath(id)+"?include[groups]&include[purposes]&include[groups.purposes]=type,amount", http.StatusOK).record(t)
	if _, shown := rec["groups"].([]any); !shown {
		t.Fatalf("groups: %v", rec["groups"])
	}
	groups := rec["groups"].([]any)
	if len(groups) != 2 {
		t.Fatalf("groups: %v", groups)
	}
	first, second := groups[0].(map[string]any), groups[1].(map[string]any)
	want := map[string]any{"title": "2 quartos", "status": "active", "area_total": "62.5", "bathroom": "1", "bedroom": "2", "room": "1", "suite": "1"}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("first group %s: %v, want %v", k, first[k], v)
		}
	}
	if second["bathroom"] != "3" || second["area_total"] != "180" || second["status"] != nil {
		t.Errorf("second group: %v", second)
	}
	if p := first["purposes"].([]any); len(p) != 1 || p[0].(map[string]any)["amount"] != "450000.00" {
		t.Errorf("first group's purposes: %v", first["purposes"])
	}
	purposes := rec["purposes"].([]any)
	if len(purposes) != 3 || purposes[2].(map[string]any)["type"] != "rent" || purposes[0].(map[string]any)["iptu_amount"] != "1200.00" {
		t.Errorf("purposes: %v", purposes)
	}
	g1, g2 := num(t, first["id"]), num(t, second["id"])

	// groups is written only: never in a response, refused in fields
	if _, shown := e.get(t, condominiumPath(id), http.StatusOK).record(t)["groups"]; shown {
		t.Error("groups returned without include")
	}
	e.get(t, condominiumPath(id)+"?fields=id,groups", http.StatusUnprocessableEntity)

	// replace: g1 kept (rewritten, its purposes replaced), g2 deleted, one new
	unit := e.create(t, condominiumPath(id, "units"), map[string]any{"group_id": g1, "number": "101"})
	put := func(body map[string]any) response {
		t.Helper()
		return e.do(t, http.MethodPut, condominiumPath(id), e.keyA, body)
	}
	r := put(map[string]any{"title": "Residencial Aurora", "groups": groupsText(t,
		map[string]any{"id": g1, "title": "2 quartos (novo)", "bedroom_min": "2", "purposes": []any{map[string]any{"type": "rent", "amount": "3000"}}},
		map[string]any{"title": "Studio", "area_total": "30"},
	)})
	if r.status != http.StatusOK {
		t.Fatalf("replace: %d %s", r.status, r.raw)
	}
	rec = e.get(t, condominiumPath(id)+"?include[groups]&include[purposes]", http.StatusOK).record(t)
	ids := relatedIDs(t, rec, "groups")
	if len(ids) != 2 || ids[0] != g1 || ids[1] == g2 {
		t.Errorf("groups after the replace: %v (g1 %d, g2 %d)", ids, g1, g2)
	}
	kept := rec["groups"].([]any)[0].(map[string]any)
	if kept["title"] != "2 quartos (novo)" || kept["suite"] != nil || kept["status"] != nil {
		t.Errorf("rewritten group: %v", kept)
	}
	if p := rec["purposes"].([]any); len(p) != 1 || p[0].(map[string]any)["type"] != "rent" {
		t.Errorf("purposes after the replace: %v", rec["purposes"])
	}
	if u := e.get(t, condominiumPath(id, "units", unit), http.StatusOK).record(t); num(t, u["group_id"]) != g1 {
		t.Errorf("the unit of the kept group: %v", u)
	}
	studio := ids[1]

	// an update without groups leaves them; the spec's form without ids replaces them all
	if r := put(map[string]any{"title": "Aurora"}); r.status != http.StatusOK {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	if got := relatedIDs(t, e.get(t, condominiumPath(id)+"?include[groups]=id", http.StatusOK).record(t), "groups"); !slices.Equal(got, ids) {
		t.Errorf("groups after an update without them: %v", got)
	}

	// DELETE /condominiums/groups/{id}: the group and its purposes go, the unit stays unlinked
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/condominiums/groups/%d", g1), e.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete group: %d %s", r.status, r.raw)
	}
	rec = e.get(t, condominiumPath(id)+"?include[groups]=id&include[purposes]", http.StatusOK).record(t)
	if got := relatedIDs(t, rec, "groups"); !slices.Equal(got, []int64{studio}) || len(relatedIDs(t, rec, "purposes")) != 0 {
		t.Errorf("after deleting group %d: %v", g1, rec)
	}
	if u := e.get(t, condominiumPath(id, "units", unit), http.StatusOK).record(t); u["group_id"] != nil {
		t.Errorf("the unit of the deleted group: %v", u)
	}
	for _, c := range []struct {
		path, key string
		status    int
	}{
		{fmt.Sprintf("/condominiums/groups/%d", g1), e.keyA, http.StatusNotFound},     // gone
		{fmt.Sprintf("/condominiums/groups/%d", studio), e.keyB, http.StatusNotFound}, // another company's
		{"/condominiums/groups/x", e.keyA, http.StatusNotFound},
	} {
		if r := e.do(t, http.MethodDelete, c.path, c.key, nil); r.status != c.status {
			t.Errorf("DELETE %s: %d, want %d", c.path, r.status, c.status)
		}
	}
	for _, m := range []string{http.MethodGet, http.MethodPut} {
		if r := e.do(t, m, fmt.Sprintf("/condominiums/groups/%d", studio), e.keyA, map[string]any{}); r.status != http.StatusMethodNotAllowed {
			t.Errorf("%s a group: %d, want 405", m, r.status)
		}
	}

	// null (and "[]") clears them
	if r := put(map[string]any{"title": "Aurora", "groups": nil}); r.status != http.StatusOK {
		t.Fatalf("groups null: %d %s", r.status, r.raw)
	}
	if got := relatedIDs(t, e.get(t, condominiumPath(id)+"?include[groups]=id", http.StatusOK).record(t), "groups"); len(got) != 0 {
		t.Errorf("groups after null: %v", got)
	}
	// deleting the condominium deletes its groups
	other := newCondominium(t, e, map[string]any{"groups": sample})
	if r := e.do(t, http.MethodDelete, condominiumPath(other), e.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	var left int64
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM condominium_groups WHERE condominium_id = $1`, other).Scan(&left); err != nil || left != 0 {
		t.Errorf("groups of a deleted condominium: %d %v", left, err)
	}
}

// TestCondominiumGroupsRefused: malformed groups are a 422 naming the
// place of each problem, and nothing is written.
func TestCondominiumGroupsRefused(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id := newCondominium(t, e, map[string]any{"groups": `[{"title":"A"}]`})
	otherGroup := newCondominium(t, e, map[string]any{"groups": `[{"title":"B"}]`})
	foreign := relatedIDs(t, e.get(t, condominiumPath(otherGroup)+"?include[groups]=id", http.StatusOK).record(t), "groups")[0]
	cases := []struct {
		groups string
		fields []string
	}{
		{`{"title":"A"}`, []string{"groups"}},
		{`"A"`, []string{"groups"}},
		{`not json`, []string{"groups"}},
		{`[1]`, []string{"groups.0"}},
		{`[{"title":"A"},{"status":"x"}]`, []string{"groups.1.title"}},
		{`[{"title":"  "}]`, []string{"groups.0.title"}},
		{`[{"title":"A","color":"red"}]`, []string{"groups.0.color"}},
		{`[{"title":"A","bedroom":"2","bedroom_min":"2"}]`, []string{"groups.0.bedroom_min"}},
		{`[{"title":"A","bedroom":true}]`, []string{"groups.0.bedroom"}},
		{`[{"title":"A","purposes":{"type":"sale"}}]`, []string{"groups.0.purposes"}},
		{`[{"title":"A"},{"title":"B","purposes":[{"type":"sale"},{"amount":"1"}]}]`, []string{"groups.1.purposes.1.type"}},
		{`[{"title":"A","purposes":[{"type":"swap"}]}]`, []string{"groups.0.purposes.0.type"}},
		{`[{"title":"A","purposes":[{"type":"sale","name":"x"}]}]`, []string{"groups.0.purposes.0.name"}},
		{`[{"title":"A","purposes":[7]}]`, []string{"groups.0.purposes.0"}},
		{fmt.Sprintf(`[{"id":%d,"title":"A"}]`, foreign), []string{"groups.0.id"}},
		{`[{"id":999999,"title":"A"},{"id":999999,"title":"B"}]`, []string{"groups.1.id"}},
		{`[{"id":999999,"title":"A"}]`, []string{"groups.0.id"}},
		{`[{"id":"x","title":"A"}]`, []string{"groups.0.id"}},
	}
	for _, c := range cases {
		r := e.do(t, http.MethodPut, condominiumPath(id), e.keyA, map[string]any{"title": "T", "groups": c.groups})
		if r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", c.groups, r.status, r.raw)
			continue
		}
		if got := r.problemFields(t); !slices.Equal(got, c.fields) {
			t.Errorf("%s: fields %v, want %v (%s)", c.groups, got, c.fields, r.raw)
		}
	}
	// nothing was written: the title and the group stand
	rec := e.get(t, condominiumPath(id)+"?include[groups]=title", http.StatusOK).record(t)
	if rec["title"] != "Residencial Aurora" || len(rec["groups"].([]any)) != 1 {
		t.Errorf("after refused writes: %v", rec)
	}
	// on create, a group's id is refused, and the place named
	r := e.do(t, http.MethodPost, "/condominiums", e.keyA, condominiumBody(t, e, map[string]any{"groups": `[{"id":1,"title":"A"}]`}))
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"groups.0.id"}) {
		t.Errorf("create with a group id: %d %s", r.status, r.raw)
	}
	r = e.do(t, http.MethodPost, "/condominiums", e.keyA, condominiumBody(t, e, map[string]any{"groups": []any{}}))
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"groups"}) {
		t.Errorf("groups as an array, not text: %d %s", r.status, r.raw)
	}
}
