package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
)

// TestUsers: /users is full CRUD; the first user (made with the company,
// as `propfin apikey` does) is listed; the e-mail is checked; a user with
// an API key is not deleted; company B reaches none of A's users.
func TestUsers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	first := e.get(t, "/users?sort=id", http.StatusOK).ids(t)
	if len(first) != 1 {
		t.Fatalf("the company's first user: %v", first)
	}
	ana := e.create(t, "/users", map[string]any{"name": "Ana", "email": "ana@example.com", "_team": "vendas"})
	bob := e.create(t, "/users", map[string]any{"name": "Bob"})
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{"filter[name]=Ana", []int64{ana}},
		{"filter[email]=ana@example.com", []int64{ana}},
		{"filter[email|empty]", []int64{first[0], bob}},
		{fmt.Sprintf("filter[id]=%d", bob), []int64{bob}},
		{"filter[created_at|not_empty]&filter[name|ne]=Administrator", []int64{ana, bob}},
		{"filter[updated_at|l]=2000-01-01", nil},
	} {
		if got := e.get(t, "/users?sort=id&"+c.query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	for _, body := range []map[string]any{{}, {"name": " "}, {"name": "X", "email": "not an address"}, {"name": "X", "email": "Ana <a@b.com>"}} {
		if r := e.do(t, http.MethodPost, "/users", e.keyA, body); r.status != http.StatusUnprocessableEntity {
			t.Errorf("create %v: %d %s", body, r.status, r.raw)
		}
	}
	if r := e.do(t, http.MethodPut, fmt.Sprintf("/users/%d", bob), e.keyA, map[string]any{"email": "bob@example.com"}); r.status != http.StatusOK {
		t.Errorf("update: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/users/%d", first[0]), e.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete the key's user: %d %s", r.status, r.raw)
	}
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		if r := e.do(t, m, fmt.Sprintf("/users/%d", ana), e.keyB, map[string]any{"name": "B"}); r.status != http.StatusNotFound {
			t.Errorf("B %s A's user: %d", m, r.status)
		}
	}
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/users/%d", bob), e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete: %d %s", r.status, r.raw)
	}
}

// teamSet is company A's records a team points at.
type teamSet struct {
	*testEnv
	manager, member, business int64
}

func teamEnv(t *testing.T) *teamSet {
	t.Helper()
	s := &teamSet{testEnv: setup(t)}
	s.manager = s.create(t, "/users", map[string]any{"name": "Gerente"})
	s.member = s.create(t, "/users", map[string]any{"name": "Corretor"})
	s.business = s.create(t, "/financial/businesses", map[string]any{"name": "Imobiliária"})
	return s
}

// TestUserTeams: the spec's fields and required ones, every filter (a
// team kept, one dropped), the includes manager, users (members, with
// users.user) and business, members as a sub-resource, and company
// isolation of teams and members.
func TestUserTeams(t *testing.T) {
	t.Parallel()
	s := teamEnv(t)
	r := s.do(t, http.MethodPost, "/users/teams", s.keyA, map[string]any{"notes": "x"})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"name", "manager_id", "business_id"}) {
		t.Errorf("create without the required fields: %d %s", r.status, r.raw)
	}
	sales := s.create(t, "/users/teams", map[string]any{"name": "Vendas", "manager_id": s.manager, "business_id": s.business, "notes": "centro"})
	business2 := s.create(t, "/financial/businesses", map[string]any{"name": "Filial"})
	rent := s.create(t, "/users/teams", map[string]any{"name": "Locação", "manager_id": s.member, "business_id": business2})
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{fmt.Sprintf("filter[id]=%d", sales), []int64{sales}},
		{"filter[name]=" + url.QueryEscape("Locação"), []int64{rent}},
		{fmt.Sprintf("filter[business_id]=%d", s.business), []int64{sales}},
		{fmt.Sprintf("filter[manager_id]=%d", s.member), []int64{rent}},
		{"filter[notes]=centro", []int64{sales}},
		{"filter[notes|empty]", []int64{rent}},
	} {
		if got := s.get(t, "/users/teams?sort=id&"+c.query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	members := fmt.Sprintf("/users/teams/%d/users", sales)
	m1 := s.create(t, members, map[string]any{"user_id": s.member})
	m2 := s.create(t, members, map[string]any{"user_id": s.manager})
	if r := s.do(t, http.MethodPost, members, s.keyA, map[string]any{"user_id": s.member}); r.status != http.StatusConflict {
		t.Errorf("a member twice: %d %s", r.status, r.raw)
	}
	if r := s.do(t, http.MethodPost, members, s.keyA, map[string]any{"team_id": rent, "user_id": s.member}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("team_id in a body: %d %s", r.status, r.raw)
	}
	rec := s.get(t, fmt.Sprintf("/users/teams/%d?include[manager]=id,name&include[users]&include[users.user]=name&include[business]", sales), http.StatusOK).record(t)
	if relatedID(t, rec, "manager") != s.manager || relatedID(t, rec, "business") != s.business ||
		!slices.Equal(relatedIDs(t, rec, "users"), []int64{m1, m2}) ||
		rec["users"].([]any)[0].(map[string]any)["user"].(map[string]any)["name"] != "Corretor" {
		t.Errorf("includes: %v", rec)
	}
	if got := s.get(t, fmt.Sprintf("%s?filter[user_id]=%d", members, s.manager), http.StatusOK).ids(t); !slices.Equal(got, []int64{m2}) {
		t.Errorf("members by user: %v", got)
	}
	if u := s.get(t, fmt.Sprintf("/users/%d?include[teams]&include[managedTeams]=id", s.member), http.StatusOK).record(t); !slices.Equal(relatedIDs(t, u, "teams"), []int64{m1}) ||
		!slices.Equal(relatedIDs(t, u, "managedTeams"), []int64{rent}) {
		t.Errorf("a user's teams: %v", u)
	}
	// a member of another team is a 404 under this one
	s.get(t, fmt.Sprintf("/users/teams/%d/users/%d", rent, m1), http.StatusNotFound)
	// company B: 404 on A's team and members; 422 pointing at A's records
	team, member := fmt.Sprintf("/users/teams/%d", sales), fmt.Sprintf("%s/%d", members, m1)
	for _, c := range []struct {
		method, path string
		body         map[string]any
	}{
		{http.MethodGet, team, nil}, {http.MethodPut, team, map[string]any{"name": "B"}}, {http.MethodDelete, team, nil},
		{http.MethodGet, members, nil}, {http.MethodPost, members, map[string]any{"user_id": s.member}},
		{http.MethodGet, member, nil}, {http.MethodPut, member, map[string]any{}}, {http.MethodDelete, member, nil},
	} {
		if r := s.do(t, c.method, c.path, s.keyB, c.body); r.status != http.StatusNotFound {
			t.Errorf("B %s %s: %d %s", c.method, c.path, r.status, r.raw)
		}
	}
	userB := num(t, s.do(t, http.MethodGet, "/users", s.keyB, nil).data(t)[0]["id"])
	businessB := num(t, s.do(t, http.MethodPost, "/financial/businesses", s.keyB, map[string]any{"name": "B"}).record(t)["id"])
	r = s.do(t, http.MethodPost, "/users/teams", s.keyB, map[string]any{"name": "B", "manager_id": s.manager, "business_id": s.business})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"business_id", "manager_id"}) {
		t.Errorf("B's team pointing at A's records: %d %s", r.status, r.raw)
	}
	teamB := num(t, s.do(t, http.MethodPost, "/users/teams", s.keyB, map[string]any{"name": "B", "manager_id": userB, "business_id": businessB}).record(t)["id"])
	if r := s.do(t, http.MethodPost, fmt.Sprintf("/users/teams/%d/users", teamB), s.keyB, map[string]any{"user_id": s.member}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("B's member of A's user: %d %s", r.status, r.raw)
	}
	// deleting a team removes its members; a team of a contract stays (409) is covered with contracts
	if r := s.do(t, http.MethodDelete, fmt.Sprintf("/users/teams/%d", sales), s.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete: %d %s", r.status, r.raw)
	}
	s.get(t, fmt.Sprintf("%s/%d", members, m1), http.StatusNotFound)
}

// TestUserGroups: the spec's fields (type normal unless given), every
// filter, DELETE /users/groups/{id} with its links, the includes users,
// permissions, buildings and persons written through their
// sub-resources, and company isolation.
func TestUserGroups(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if r := e.do(t, http.MethodPost, "/users/groups", e.keyA, map[string]any{"type": "normal"}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"name"}) {
		t.Errorf("create without a name: %d %s", r.status, r.raw)
	}
	brokers := e.create(t, "/users/groups", map[string]any{"name": "Corretores", "notes": "todos"})
	admins := e.create(t, "/users/groups", map[string]any{"name": "Administradores", "type": "admin"})
	if typ := e.get(t, fmt.Sprintf("/users/groups/%d", brokers), http.StatusOK).record(t)["type"]; typ != "normal" {
		t.Errorf("default type: %v", typ)
	}
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{fmt.Sprintf("filter[id]=%d", admins), []int64{admins}},
		{"filter[name]=Corretores", []int64{brokers}},
		{"filter[type]=normal", []int64{brokers}},
		{"filter[notes]=todos", []int64{brokers}},
		{"filter[notes|empty]", []int64{admins}},
	} {
		if got := e.get(t, "/users/groups?sort=id&"+c.query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	user := e.create(t, "/users", map[string]any{"name": "Ana"})
	building := e.create(t, "/buildings", map[string]any{"title": "Casa"})
	person := e.create(t, "/persons", map[string]any{"name": "Paulo"})
	path := func(group int64, sub string) string { return fmt.Sprintf("/users/groups/%d/%s", group, sub) }
	links := []struct {
		sub  string
		body map[string]any
		nest string
	}{
		{"users", map[string]any{"user_id": user}, "user"},
		{"permissions", map[string]any{"permission": "financial.invoices.view"}, ""},
		{"buildings", map[string]any{"building_id": building}, "building"},
		{"persons", map[string]any{"person_id": person}, "person"},
	}
	ids := map[string]int64{}
	query := "?"
	for _, l := range links {
		ids[l.sub] = e.create(t, path(brokers, l.sub), l.body)
		if r := e.do(t, http.MethodPost, path(brokers, l.sub), e.keyA, l.body); r.status != http.StatusConflict {
			t.Errorf("%s twice: %d %s", l.sub, r.status, r.raw)
		}
		query += "include[" + l.sub + "]&"
		if l.nest != "" {
			query += "include[" + l.sub + "." + l.nest + "]=id&"
		}
	}
	rec := e.get(t, fmt.Sprintf("/users/groups/%d%s", brokers, query), http.StatusOK).record(t)
	for _, l := range links {
		if got := relatedIDs(t, rec, l.sub); !slices.Equal(got, []int64{ids[l.sub]}) {
			t.Errorf("include[%s]: %v", l.sub, got)
		}
	}
	if p := rec["permissions"].([]any)[0].(map[string]any)["permission"]; p != "financial.invoices.view" {
		t.Errorf("permission: %v", p)
	}
	if u := rec["users"].([]any)[0].(map[string]any)["user"]; relatedID(t, map[string]any{"u": u}, "u") != user {
		t.Errorf("users.user: %v", u)
	}
	// another group's link is a 404 under this one; company B reaches nothing
	for _, l := range links {
		one := fmt.Sprintf("%s/%d", path(brokers, l.sub), ids[l.sub])
		e.get(t, fmt.Sprintf("%s/%d", path(admins, l.sub), ids[l.sub]), http.StatusNotFound)
		for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
			if r := e.do(t, m, one, e.keyB, map[string]any{}); r.status != http.StatusNotFound {
				t.Errorf("B %s %s: %d", m, one, r.status)
			}
		}
		if r := e.do(t, http.MethodPost, path(brokers, l.sub), e.keyB, l.body); r.status != http.StatusNotFound {
			t.Errorf("B adds %s to A's group: %d", l.sub, r.status)
		}
	}
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		if r := e.do(t, m, fmt.Sprintf("/users/groups/%d", brokers), e.keyB, map[string]any{"name": "B"}); r.status != http.StatusNotFound {
			t.Errorf("B %s A's group: %d", m, r.status)
		}
	}
	groupB := num(t, e.do(t, http.MethodPost, "/users/groups", e.keyB, map[string]any{"name": "B"}).record(t)["id"])
	for _, l := range links {
		if l.sub == "permissions" {
			continue
		}
		if r := e.do(t, http.MethodPost, path(groupB, l.sub), e.keyB, l.body); r.status != http.StatusUnprocessableEntity {
			t.Errorf("B's group linking A's %s: %d %s", l.sub, r.status, r.raw)
		}
	}
	// DELETE /users/groups/{id} removes its links; the user, building and person stay
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/users/groups/%d", brokers), e.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	e.get(t, fmt.Sprintf("/users/groups/%d", brokers), http.StatusNotFound)
	e.get(t, fmt.Sprintf("/users/%d", user), http.StatusOK)
	e.get(t, fmt.Sprintf("/buildings/%d", building), http.StatusOK)
}

// TestLocations: countries, cities and districts are CRUD records of the
// company, with their includes and references checked.
func TestLocations(t *testing.T) {
	t.Parallel()
	e := setup(t)
	country := e.create(t, "/locations/countries", map[string]any{"name": "Brasil", "abbreviation": "BR"})
	city := e.create(t, "/locations/cities", map[string]any{"name": "Campinas", "state_id": 35, "country_id": country})
	district := e.create(t, "/locations/districts", map[string]any{"name": "Cambuí", "city_id": city})
	rec := e.get(t, fmt.Sprintf("/locations/cities/%d?include[state]=abbreviation&include[country]&include[districts]", city), http.StatusOK).record(t)
	if relatedID(t, rec, "country") != country || !slices.Equal(relatedIDs(t, rec, "districts"), []int64{district}) ||
		rec["state"].(map[string]any)["abbreviation"] != "SP" {
		t.Errorf("city includes: %v", rec)
	}
	if got := e.get(t, "/locations/districts?filter[city_id]="+fmt.Sprint(city)+"&include[city]=name", http.StatusOK).ids(t); !slices.Equal(got, []int64{district}) {
		t.Errorf("districts of the city: %v", got)
	}
	for path, body := range map[string]map[string]any{
		"/locations/districts": {"name": "X"}, "/locations/cities": {"name": "X", "state_id": 99}, "/locations/countries": {},
	} {
		if r := e.do(t, http.MethodPost, path, e.keyA, body); r.status != http.StatusUnprocessableEntity {
			t.Errorf("POST %s %v: %d", path, body, r.status)
		}
	}
	if r := e.do(t, http.MethodPost, "/locations/districts", e.keyB, map[string]any{"name": "X", "city_id": city}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("B's district in A's city: %d", r.status)
	}
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/locations/cities/%d", city), e.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete a city with districts: %d", r.status)
	}
}
