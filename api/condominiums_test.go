package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// condominiumSet is two condominiums of company A that differ in every
// field, with the records they point at.
type condominiumSet struct {
	*testEnv
	c1, c2                    int64
	tag1, tag2, user1, user2  int64
	country, city, district   int64
	constructor, type1, type2 int64
	values                    map[string]any // c1's value of each field
}

// seedCondominiums makes c1 and c2 of company A through the API: c1 with
// every field set, c2 with other values everywhere.
func seedCondominiums(t *testing.T) *condominiumSet {
	t.Helper()
	s := &condominiumSet{testEnv: setup(t)}
	s.tag1 = s.create(t, "/tags", map[string]any{"name": "Lançamento"})
	s.tag2 = s.create(t, "/tags", map[string]any{"name": "Pronto"})
	s.user1 = s.create(t, "/users", map[string]any{"name": "Bia Corretora", "email": "bia@example.com"})
	s.user2 = s.create(t, "/users", map[string]any{"name": "Caio Corretor"})
	s.country = s.create(t, "/locations/countries", map[string]any{"name": "Brasil", "abbreviation": "BR"})
	s.city = s.create(t, "/locations/cities", map[string]any{"name": "Campinas", "state_id": 35, "country_id": s.country})
	s.district = s.create(t, "/locations/districts", map[string]any{"name": "Cambuí", "city_id": s.city})
	s.constructor = s.create(t, "/buildings/constructors", map[string]any{"name": "Construtora Alfa"})
	body1 := condominiumBody(t, s.testEnv, nil)
	s.type1 = body1["type_id"].(int64)
	s.values = map[string]any{
		"id2": 501, "mode": "release", "status": "active", "lock": "active", "type_id": s.type1, "stage_id": 3,
		"country_id": s.country, "state_id": 35, "city_id": s.city, "district_id": s.district,
		"tag": []int64{s.tag1}, "responsible": []int64{s.user1}, "constructor_id": s.constructor, "access": "all",
		"pickup": []int64{s.user1}, "slug": "residencial-aurora", "updated_by": s.user1, "created_by": s.user1,
		"principal_media": "https://media.example.com/a.jpg", "built_year": 2026, "total_floors": 20, "total_by_floor": 4,
		"blocks": 2, "title": "Residencial Aurora", "content": "<p>Novo</p>", "lock_description": "em obras",
		"street": "Rua Coronel Quirino", "number": 1200, "complement": "Torre A", "zip_code": 13025001,
		"notes": "lançamento 2026", "html_title": "Aurora", "html_keyword": "aurora,campinas", "html_description": "Apartamentos",
	}
	for k, v := range s.values {
		body1[k] = v
	}
	s.c1 = s.create(t, "/condominiums", body1)
	body2 := condominiumBody(t, s.testEnv, nil)
	s.type2 = body2["type_id"].(int64)
	for k, v := range map[string]any{
		"id2": 502, "mode": "condominium", "status": "inactive", "lock": "blocked", "stage_id": 4, "state_id": 33,
		"tag": []int64{s.tag2}, "responsible": []int64{s.user2}, "access": "responsible", "pickup": []int64{s.user2},
		"slug": "edificio-sol", "updated_by": s.user2, "created_by": s.user2, "principal_media": "b.jpg", "built_year": 1990,
		"total_floors": 8, "total_by_floor": 2, "blocks": 1, "title": "Edifício Sol", "content": "<p>Antigo</p>",
		"lock_description": "reforma", "street": "Av. Atlântica", "number": 10, "complement": "Bloco B", "zip_code": 22021001,
		"notes": "revenda", "html_title": "Sol", "html_keyword": "sol,rio", "html_description": "Revenda",
	} {
		body2[k] = v
	}
	s.c2 = s.create(t, "/condominiums", body2)
	return s
}

// TestCondominiumFilters: a filter on every field but groups and details,
// each keeping c1 and dropping c2; arrays as filter[tag][]; pattern and
// operator filters; groups and details refused.
func TestCondominiumFilters(t *testing.T) {
	t.Parallel()
	s := seedCondominiums(t)
	c1 := []int64{s.c1}
	for field, v := range s.values {
		q := fmt.Sprintf("filter[%s]=%s", field, url.QueryEscape(fmt.Sprint(v)))
		if ids, isArray := v.([]int64); isArray {
			q = fmt.Sprintf("filter[%s][]=%d", field, ids[0])
		}
		if got := s.get(t, "/condominiums?sort=id&"+q, http.StatusOK).ids(t); !slices.Equal(got, c1) {
			t.Errorf("%s: %v, want %v", q, got, c1)
		}
	}
	cases := []struct {
		query string
		want  []int64
	}{
		{"filter[id]=" + strconv.FormatInt(s.c2, 10), []int64{s.c2}},
		{"filter[title]=%25aurora%25", c1},
		{"filter[built_year|ge]=2000", c1},
		{"filter[zip_code|l]=20000000", c1},
		{"filter[tag][]=" + strconv.FormatInt(s.tag2, 10), []int64{s.c2}},
		{fmt.Sprintf("filter[responsible][]=%d&filter[responsible][]=%d", s.user1, s.user2), []int64{s.c1, s.c2}},
		{"filter[pickup|empty]", nil},
		{"filter[city_id|empty]", []int64{s.c2}},
		{"filter[mode|ne]=release", []int64{s.c2}},
		{"filter[created_at|not_empty]&filter[updated_at|not_empty]", []int64{s.c1, s.c2}},
	}
	for _, c := range cases {
		if got := s.get(t, "/condominiums?sort=id&"+c.query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	for _, q := range []string{"filter[groups]=x", "filter[details][]=1", "filter[mode]=launch", "filter[access]=some",
		"filter[tag|g]=1", "filter[built_year]=x", "filter[unknown]=1"} {
		s.get(t, "/condominiums?"+q, http.StatusUnprocessableEntity)
	}
	if r := s.do(t, http.MethodGet, "/condominiums?filter[slug]=residencial-aurora", s.keyB, nil); r.status != http.StatusOK || len(r.ids(t)) != 0 {
		t.Errorf("B: %s", r.raw)
	}
}

// TestCondominiumIncludes: buildings, purposes, groups, units, related,
// and the extensions type, constructor, country, state, city, district,
// tags.
func TestCondominiumIncludes(t *testing.T) {
	t.Parallel()
	s := seedCondominiums(t)
	if r := s.do(t, http.MethodPut, condominiumPath(s.c1), s.keyA, map[string]any{"title": "Residencial Aurora",
		"groups": `[{"title":"2 quartos","purposes":[{"type":"sale","amount":"450000"}]}]`}); r.status != http.StatusOK {
		t.Fatalf("groups: %s", r.raw)
	}
	building := s.create(t, "/buildings", map[string]any{"title": "Apto 101", "condominium_id": s.c1})
	s.create(t, "/buildings", map[string]any{"title": "Apto 1", "condominium_id": s.c2})
	person := s.create(t, "/persons", map[string]any{"name": "Sandra Síndica"})
	related := s.create(t, condominiumPath(s.c1, "related"), map[string]any{"person_id": person, "role": "syndic"})
	names := []string{"buildings", "purposes", "groups", "units", "related", "type", "constructor", "country", "state", "city", "district", "tags"}
	query := "?include[related.person]=name"
	for _, n := range names {
		query += "&include[" + n + "]"
	}
	rec := s.get(t, condominiumPath(s.c1)+query, http.StatusOK).record(t)
	groups := relatedIDs(t, rec, "groups")
	purposes := relatedIDs(t, rec, "purposes")
	unit := s.create(t, condominiumPath(s.c1, "units"), map[string]any{"group_id": groups[0], "block": "A", "floor": 1,
		"number": "101", "status": "sold", "building_id": building})
	rec = s.get(t, condominiumPath(s.c1)+query, http.StatusOK).record(t)
	lists := []struct {
		name string
		want []int64
	}{
		{"buildings", []int64{building}}, {"groups", groups}, {"units", []int64{unit}}, {"related", []int64{related}},
		{"tags", []int64{s.tag1}},
	}
	for _, c := range lists {
		if got := relatedIDs(t, rec, c.name); !slices.Equal(got, c.want) {
			t.Errorf("include[%s]: %v, want %v", c.name, got, c.want)
		}
	}
	if len(purposes) != 1 {
		t.Errorf("include[purposes]: %v", rec["purposes"])
	}
	ones := []struct {
		name string
		want int64
	}{{"type", s.type1}, {"constructor", s.constructor}, {"country", s.country}, {"state", 35}, {"city", s.city}, {"district", s.district}}
	for _, c := range ones {
		if got := relatedID(t, rec, c.name); got != c.want {
			t.Errorf("include[%s]: %d, want %d", c.name, got, c.want)
		}
	}
	if p := rec["related"].([]any)[0].(map[string]any)["person"].(map[string]any); p["name"] != "Sandra Síndica" {
		t.Errorf("include[related.person]: %v", p)
	}
	// in a list, each condominium gets its own
	data := s.get(t, "/condominiums?sort=id&include[buildings]=id&include[units]=id&include[groups]=id", http.StatusOK).data(t)
	if len(relatedIDs(t, data[1], "buildings")) != 1 || len(relatedIDs(t, data[1], "units")) != 0 || len(relatedIDs(t, data[1], "groups")) != 0 {
		t.Errorf("c2's includes: %v", data[1])
	}
	// a building's condominium
	if b := s.get(t, fmt.Sprintf("/buildings/%d?include[condominium]=id", building), http.StatusOK).record(t); relatedID(t, b, "condominium") != s.c1 {
		t.Errorf("building's condominium: %v", b)
	}
	s.get(t, condominiumPath(s.c1)+"?include[nothing]", http.StatusUnprocessableEntity)
}

// TestCondominiumWrites: required fields on create and title on update,
// enums and ranges, details on update only, the author stamped, the slug
// unique, and a condominium with buildings kept.
func TestCondominiumWrites(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, http.MethodPost, "/condominiums", e.keyA, map[string]any{"notes": "x"})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"mode", "status", "type_id", "title"}) {
		t.Errorf("create without the required fields: %d %s", r.status, r.raw)
	}
	bad := map[string]any{"mode": "launch", "access": "some", "built_year": 99, "zip_code": 123456789, "number": -1,
		"details": []int64{1}, "id": 5, "tag": []int64{999999}}
	r = e.do(t, http.MethodPost, "/condominiums", e.keyA, condominiumBody(t, e, bad))
	// the body's problems, then the write's checks of the rest (the tag)
	want := []string{"access", "built_year", "details", "id", "mode", "number", "zip_code", "tag"}
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), want) {
		t.Errorf("bad values: %d %s", r.status, r.raw)
	}
	id := newCondominium(t, e, map[string]any{"slug": "aurora"})
	rec := e.get(t, condominiumPath(id), http.StatusOK).record(t)
	var user int64
	if err := e.pool.QueryRow(t.Context(), `SELECT min(id) FROM users WHERE company_id = $1`, e.compA).Scan(&user); err != nil {
		t.Fatal(err)
	}
	if num(t, rec["created_by"]) != user || num(t, rec["updated_by"]) != user {
		t.Errorf("author: %v", rec)
	}
	for _, body := range []map[string]any{{"notes": "sem título"}, {"title": ""}, {"title": nil}} {
		if r := e.do(t, http.MethodPut, condominiumPath(id), e.keyA, body); r.status != http.StatusUnprocessableEntity ||
			!slices.Equal(r.problemFields(t), []string{"title"}) {
			t.Errorf("update %v: %d %s", body, r.status, r.raw)
		}
	}
	d1 := e.create(t, "/condominiums/details", map[string]any{"name": "Piscina"})
	d2 := e.create(t, "/condominiums/details", map[string]any{"name": "Academia"})
	r = e.do(t, http.MethodPut, condominiumPath(id), e.keyA, map[string]any{"title": "Aurora", "details": []int64{d1, d2}, "content": "<b>x</b>"})
	if r.status != http.StatusOK || fmt.Sprint(r.record(t)["details"]) != fmt.Sprint([]int64{d1, d2}) {
		t.Errorf("details on update: %d %s", r.status, r.raw)
	}
	r = e.do(t, http.MethodPost, "/condominiums", e.keyA, condominiumBody(t, e, map[string]any{"slug": "aurora"}))
	if r.status != http.StatusConflict || !slices.Equal(r.problemFields(t), []string{"slug"}) {
		t.Errorf("a second slug: %d %s", r.status, r.raw)
	}
	building := e.create(t, "/buildings", map[string]any{"title": "Apto", "condominium_id": id})
	if r := e.do(t, http.MethodDelete, condominiumPath(id), e.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete with a building: %d %s", r.status, r.raw)
	}
	e.do(t, http.MethodPut, fmt.Sprintf("/buildings/%d", building), e.keyA, map[string]any{"condominium_id": nil})
	if r := e.do(t, http.MethodDelete, condominiumPath(id), e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete: %d %s", r.status, r.raw)
	}
	r = e.do(t, http.MethodPut, fmt.Sprintf("/buildings/%d", building), e.keyA, map[string]any{"condominium_id": id})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"condominium_id"}) {
		t.Errorf("a building of a deleted condominium: %d %s", r.status, r.raw)
	}
}

// TestCondominiumIsolation: company B reaches none of A's condominiums,
// groups, units or related people (404), and may not point at A's records
// (422 naming each field).
func TestCondominiumIsolation(t *testing.T) {
	t.Parallel()
	s := seedCondominiums(t)
	if r := s.do(t, http.MethodPut, condominiumPath(s.c1), s.keyA, map[string]any{"title": "A", "groups": `[{"title":"G"}]`}); r.status != http.StatusOK {
		t.Fatal(r.raw)
	}
	group := relatedIDs(t, s.get(t, condominiumPath(s.c1)+"?include[groups]=id", http.StatusOK).record(t), "groups")[0]
	unit := s.create(t, condominiumPath(s.c1, "units"), map[string]any{"number": "1"})
	person := s.create(t, "/persons", map[string]any{"name": "P"})
	related := s.create(t, condominiumPath(s.c1, "related"), map[string]any{"person_id": person})
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, condominiumPath(s.c1)}, {http.MethodPut, condominiumPath(s.c1)}, {http.MethodDelete, condominiumPath(s.c1)},
		{http.MethodDelete, fmt.Sprintf("/condominiums/groups/%d", group)},
		{http.MethodGet, condominiumPath(s.c1, "units")}, {http.MethodPost, condominiumPath(s.c1, "units")},
		{http.MethodGet, condominiumPath(s.c1, "units", unit)}, {http.MethodPut, condominiumPath(s.c1, "units", unit)},
		{http.MethodDelete, condominiumPath(s.c1, "units", unit)},
		{http.MethodGet, condominiumPath(s.c1, "related")}, {http.MethodGet, condominiumPath(s.c1, "related", related)},
		{http.MethodPut, condominiumPath(s.c1, "related", related)}, {http.MethodDelete, condominiumPath(s.c1, "related", related)},
		{http.MethodGet, fmt.Sprintf("/locations/cities/%d", s.city)}, {http.MethodDelete, fmt.Sprintf("/locations/districts/%d", s.district)},
		// A's unit under A's other condominium
		{http.MethodGet, condominiumPath(s.c2, "units", unit) + "#A"},
	} {
		key := s.keyB
		if c.path[len(c.path)-2:] == "#A" {
			key, c.path = s.keyA, c.path[:len(c.path)-2]
		}
		body := map[string]any{"title": "B"}
		switch {
		case strings.Contains(c.path, "/units"):
			body = map[string]any{"number": "2"}
		case strings.Contains(c.path, "/related"):
			body = map[string]any{"role": "x"}
		case strings.Contains(c.path, "/locations"):
			body = map[string]any{"name": "x"}
		}
		if r := s.do(t, c.method, c.path, key, body); r.status != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404 (%s)", c.method, c.path, r.status, r.raw)
		}
	}
	// B points at A's records
	catB := s.do(t, http.MethodPost, "/buildings/categories", s.keyB, map[string]any{"description": "R", "color": "#fff"})
	typB := s.do(t, http.MethodPost, "/buildings/types", s.keyB, map[string]any{"category_id": num(t, catB.record(t)["id"])})
	okB := map[string]any{"mode": "condominium", "status": "active", "type_id": num(t, typB.record(t)["id"]), "title": "B"}
	refs := map[string]any{"type_id": s.type1, "country_id": s.country, "city_id": s.city, "district_id": s.district,
		"constructor_id": s.constructor, "created_by": s.user1, "updated_by": s.user1,
		"tag": []int64{s.tag1}, "responsible": []int64{s.user1}, "pickup": []int64{s.user1}}
	body := map[string]any{}
	for k, v := range okB {
		body[k] = v
	}
	for k, v := range refs {
		body[k] = v
	}
	r := s.do(t, http.MethodPost, "/condominiums", s.keyB, body)
	want := []string{"city_id", "constructor_id", "country_id", "created_by", "district_id", "pickup", "responsible", "tag", "type_id", "updated_by"}
	got := r.problemFields(t)
	slices.Sort(got)
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("B's condominium pointing at A's records: %d %s", r.status, r.raw)
	}
	condoB := num(t, s.do(t, http.MethodPost, "/condominiums", s.keyB, okB).record(t)["id"])
	for path, b := range map[string]map[string]any{
		"/buildings":                       {"title": "B", "condominium_id": s.c1},
		condominiumPath(condoB, "units"):   {"group_id": group},
		condominiumPath(condoB, "related"): {"person_id": person},
	} {
		if r := s.do(t, http.MethodPost, path, s.keyB, b); r.status != http.StatusUnprocessableEntity {
			t.Errorf("B %s pointing at A's record: %d %s", path, r.status, r.raw)
		}
	}
	// a unit of c2 may not take c1's group
	r = s.do(t, http.MethodPost, condominiumPath(s.c2, "units"), s.keyA, map[string]any{"group_id": group})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"group_id"}) {
		t.Errorf("a unit with another condominium's group: %d %s", r.status, r.raw)
	}
}

// TestCondominiumDetails: the details catalogue has CRUD; a condominium's
// details (update only) name the company's details, come back through
// include[details], and another company's detail is refused.
func TestCondominiumDetails(t *testing.T) {
	s := seedCondominiums(t)
	pool := s.create(t, "/condominiums/details", map[string]any{"name": "Piscina"})
	gym := s.create(t, "/condominiums/details", map[string]any{"name": "Academia"})
	var other int64
	if err := s.pool.QueryRow(t.Context(), `INSERT INTO condominium_details (company_id, name) VALUES ($1, 'Quadra') RETURNING id`,
		s.compB).Scan(&other); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/condominiums/%d", s.c1)
	if r := s.do(t, http.MethodPut, path, s.keyA, map[string]any{"title": "Residencial Aurora", "details": []int64{gym, pool}}); r.status != http.StatusOK {
		t.Fatalf("PUT details: %d %s", r.status, r.raw)
	}
	rec := s.get(t, path+"?include[details]=name", http.StatusOK).record(t)
	var names []string
	for _, d := range rec["details"].([]any) {
		names = append(names, d.(map[string]any)["name"].(string))
	}
	if !slices.Equal(names, []string{"Academia", "Piscina"}) {
		t.Errorf("include[details]: %v, want [Academia Piscina] (in the order given)", names)
	}
	for _, ids := range [][]int64{{other}, {999}} {
		r := s.do(t, http.MethodPut, path, s.keyA, map[string]any{"title": "Residencial Aurora", "details": ids})
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"details"}) {
			t.Errorf("details %v: %d %s, want a 422 naming details", ids, r.status, r.raw)
		}
	}
	if r := s.do(t, http.MethodGet, fmt.Sprintf("/condominiums/details/%d", pool), s.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("company B reads A's detail: %d", r.status)
	}
}
