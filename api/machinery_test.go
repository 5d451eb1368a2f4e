package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/storage"
)

// TestSubResourceScoping: under /test/parents/:parent/children, every
// operation sees only that parent's children; a parent of another company
// and a child of another parent are 404; create sets the parent key.
func TestSubResourceScoping(t *testing.T) {
	t.Parallel()
	e := setup(t, withMachineryRoutes())
	e.exec(t, `INSERT INTO test_parents (company_id, title) OVERRIDING SYSTEM VALUE
		SELECT * FROM (VALUES ($1::bigint, 'p1'), ($1, 'p2'), ($2::bigint, 'other company')) v`, e.compA, e.compB)
	var p1, p2, pB int64
	row := e.pool.QueryRow(t.Context(), `SELECT
		(SELECT id FROM test_parents WHERE title = 'p1'), (SELECT id FROM test_parents WHERE title = 'p2'),
		(SELECT id FROM test_parents WHERE title = 'other company')`)
	if err := row.Scan(&p1, &p2, &pB); err != nil {
		t.Fatal(err)
	}
	under := func(parent int64) string { return fmt.Sprintf("/test/parents/%d/children", parent) }

	r := e.do(t, http.MethodPost, under(p1), e.keyA, map[string]any{"name": "a"})
	if r.status != http.StatusCreated || num(t, r.record(t)["parent_id"]) != p1 {
		t.Fatalf("create under p1: %d %s", r.status, r.raw)
	}
	child1 := num(t, r.record(t)["id"])
	r = e.do(t, http.MethodPost, under(p2), e.keyA, map[string]any{"name": "b"})
	child2 := num(t, r.record(t)["id"])
	if r := e.do(t, http.MethodPost, under(p1), e.keyA, map[string]any{"name": "c", "parent_id": p2}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("the parent key is not writable in a body: %d %s", r.status, r.raw)
	}

	if ids := e.get(t, under(p1), http.StatusOK).ids(t); !slices.Equal(ids, []int64{child1}) {
		t.Errorf("list under p1: %v", ids)
	}
	if ids := e.get(t, under(p2)+"?include[parent]=title", http.StatusOK).ids(t); !slices.Equal(ids, []int64{child2}) {
		t.Errorf("list under p2: %v", ids)
	}
	if got := e.get(t, under(p1), http.StatusOK).body["path"]; got != under(p1) {
		t.Errorf("path of the list: %v", got)
	}

	cases := []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"get own", http.MethodGet, fmt.Sprintf("%s/%d", under(p1), child1), nil, http.StatusOK},
		{"get under another parent", http.MethodGet, fmt.Sprintf("%s/%d", under(p2), child1), nil, http.StatusNotFound},
		{"update under another parent", http.MethodPut, fmt.Sprintf("%s/%d", under(p2), child1), map[string]any{"name": "x"}, http.StatusNotFound},
		{"delete under another parent", http.MethodDelete, fmt.Sprintf("%s/%d", under(p2), child1), nil, http.StatusNotFound},
		{"list under another company's parent", http.MethodGet, under(pB), nil, http.StatusNotFound},
		{"create under another company's parent", http.MethodPost, under(pB), map[string]any{"name": "x"}, http.StatusNotFound},
		{"get under another company's parent", http.MethodGet, fmt.Sprintf("%s/%d", under(pB), child1), nil, http.StatusNotFound},
		{"list under a missing parent", http.MethodGet, under(999999), nil, http.StatusNotFound},
		{"list under a parent that is no id", http.MethodGet, "/test/parents/abc/children", nil, http.StatusNotFound},
		{"update own", http.MethodPut, fmt.Sprintf("%s/%d", under(p1), child1), map[string]any{"name": "a2"}, http.StatusOK},
		{"delete own", http.MethodDelete, fmt.Sprintf("%s/%d", under(p2), child2), nil, http.StatusOK},
	}
	for _, c := range cases {
		if r := e.do(t, c.method, c.path, e.keyA, c.body); r.status != c.status {
			t.Errorf("%s: %d, want %d: %s", c.name, r.status, c.status, r.raw)
		}
	}
	// company B sees nothing of company A's parent
	if r := e.do(t, http.MethodGet, under(p1), e.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("company B under A's parent: %d", r.status)
	}
	var n int
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM test_children WHERE company_id = $1`, e.compB).Scan(&n); err != nil || n != 0 {
		t.Errorf("rows written for company B: %d %v", n, err)
	}
}

// TestFilterShapes: a filter of each declared shape keeps the rows it
// must and drops the others; rows of another company never match, not
// even through a table of the other company.
func TestFilterShapes(t *testing.T) {
	t.Parallel()
	e := setup(t, withMachineryRoutes())
	a, b := e.compA, e.compB
	// plans: 10 <- 11 <- 12, 20; persons: 30 (A, tax X), 31 (B, tax X); owners: building 40 of owner 50
	e.exec(t, `INSERT INTO test_plans (company_id, id, parent_id) VALUES ($1, 10, NULL), ($1, 11, 10), ($1, 12, 11), ($1, 20, NULL), ($2, 21, 10)`, a, b)
	e.exec(t, `INSERT INTO test_persons (company_id, id, tax_id) VALUES ($1, 30, 'X'), ($2, 31, 'X'), ($2, 32, 'Y')`, a, b)
	e.exec(t, `INSERT INTO test_owners (company_id, building_id, owner_id) VALUES ($1, 40, 50), ($2, 41, 50)`, a, b)
	e.exec(t, `INSERT INTO test_bills (company_id, id, title, paid, due_date, period_initial, period_final, position, building_id, payer_id, plan_id) VALUES
		($1, 1, 'overdue', false, current_date - 30, '2024-03-01', '2024-03-31', 5, 40, 30, 12),
		($1, 2, 'early', false, current_date + 30, '2024-04-01', '2024-04-30', 1, 41, 31, 20),
		($1, 3, 'paid', true, current_date - 30, NULL, NULL, NULL, NULL, 32, 21),
		($2, 4, 'other company', false, current_date - 30, '2024-03-01', '2024-03-31', 9, 40, 30, 12)`, a, b)
	cases := []struct {
		query string
		want  []int64
	}{
		{"filter[unpaid]=true", []int64{1, 2}},
		{"filter[unpaid]=false", []int64{3}},
		{"filter[overdue]=true", []int64{1}},
		{"filter[overdue]=0", []int64{2, 3}},
		{"filter[early]=true", []int64{2}},
		{"filter[dueDateMin]=" + today(0), []int64{2}},
		{"filter[dateMax]=" + today(0), []int64{1, 3}},
		{"filter[periodContains]=2024-03-15", []int64{1}}, // a row without a period holds no date
		{"filter[periodContains]=2024-04-15", []int64{2}},
		{"filter[positionMin]=2", []int64{1}},
		{"filter[paidStatus]=paid", []int64{3}},
		{"filter[paidStatus]=unpaid", []int64{1, 2}},
		{"filter[ownerIn][]=50", []int64{1}},                       // building 41 is owner 50's in company B only
		{"filter[payerTaxIdIn][]=X", []int64{1}},                   // person 31 has tax id X in company B only
		{"filter[payerTaxIdIn][]=Y&filter[payerTaxIdIn][]=Z", nil}, // person 32 is B's
		{"filter[planAllIn][]=10", []int64{1}},                     // 12 descends from 10; 21 is B's
		{"filter[planAllIn][]=11&filter[planAllIn][]=20", []int64{1, 2}},
		{"filter[planAllIn][]=12", []int64{1}},
		{"filter[overdue]=true&filter[positionMin]=6", nil},
	}
	for _, c := range cases {
		got := e.get(t, "/test/bills?sort=id&"+c.query, http.StatusOK).ids(t)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	refused := []struct{ query, field, message string }{
		{"filter[overdue]=maybe", "filter[overdue]", "must be true or false"},
		{"filter[dueDateMin]=2024-13-01", "filter[dueDateMin]", "must be a date"},
		{"filter[positionMin]=x", "filter[positionMin]", "must be an integer"},
		{"filter[paidStatus]=late", "filter[paidStatus]", "must be one of: paid, unpaid"},
		{"filter[paidStatus][]=paid", "filter[paidStatus][]", "takes one value"},
		{"filter[paidStatus]=paid&filter[paidStatus]=unpaid", "filter[paidStatus]", "more than once"},
		{"filter[planAllIn][]=x", "filter[planAllIn][]", "must be an integer"},
		{"filter[overdue|ne]=true", "filter[overdue|ne]", "takes no operator"},
	}
	for _, c := range refused {
		r := e.get(t, "/test/bills?"+c.query, http.StatusUnprocessableEntity)
		if fields := r.problemFields(t); !slices.Equal(fields, []string{c.field}) || !strings.Contains(r.raw, c.message) {
			t.Errorf("%s: %v %s", c.query, fields, r.raw)
		}
	}
}

// today is the date days from today in São Paulo, as the filters see it.
func today(days int) string {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		panic(err)
	}
	return time.Now().In(loc).AddDate(0, 0, days).Format(time.DateOnly)
}

// TestColumnFeatures: enums, access modes, body names, derived columns,
// integer arrays and JSON text, each declared on one line of test_bills.
func TestColumnFeatures(t *testing.T) {
	t.Parallel()
	e := setup(t, withMachineryRoutes())
	create := func(body map[string]any) response {
		t.Helper()
		return e.do(t, http.MethodPost, "/test/bills", e.keyA, body)
	}
	r := create(map[string]any{"title": "a", "kind": "single", "tag": []int{1, 2}, "protest": `{"status":"open"}`,
		"config": `{"installment":3}`, "secret": "s", "filter[note]": "n", "paid": false, "due_date": today(-5)})
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	rec := r.record(t)
	id := num(t, rec["id"])
	for _, hidden := range []string{"secret", "item_default"} {
		if _, shown := rec[hidden]; shown {
			t.Errorf("%s is returned: %s", hidden, r.raw)
		}
	}
	if rec["status"] != "overdue" || rec["note"] != "n" || rec["protest"] != `{"status":"open"}` || fmt.Sprint(rec["tag"]) != "[1 2]" {
		t.Errorf("created record: %s", r.raw)
	}
	create(map[string]any{"title": "b", "tag": []int{3}, "paid": true})
	e.exec(t, `UPDATE test_bills SET item_default = true WHERE id = $1`, id)

	refused := []struct {
		method, path string
		body         map[string]any
		field, msg   string
	}{
		{"POST", "/test/bills", map[string]any{"title": "x", "kind": "other"}, "kind", "must be one of: single, contract"},
		{"POST", "/test/bills", map[string]any{"title": "x", "protest": "{nope"}, "protest", "valid JSON"},
		{"POST", "/test/bills", map[string]any{"title": "x", "protest": map[string]any{"a": 1}}, "protest", "must be a string"},
		{"POST", "/test/bills", map[string]any{"title": "x", "tag": []any{1, "a"}}, "tag", "array of integers"},
		{"POST", "/test/bills", map[string]any{"title": "x", "details": []int{1}}, "details", "only be given on update"},
		{"PUT", fmt.Sprintf("/test/bills/%d", id), map[string]any{"config": "{}"}, "config", "only be given on create"},
		{"POST", "/test/bills", map[string]any{"title": "x", "note": "n"}, "note", "unknown field"},
		{"POST", "/test/bills", map[string]any{"title": "x", "status": "paid"}, "status", "cannot be written"},
		{"POST", "/test/bills", map[string]any{"title": "x", "item_default": true}, "item_default", "cannot be written"},
	}
	for _, c := range refused {
		r := e.do(t, c.method, c.path, e.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) || !strings.Contains(r.raw, c.msg) {
			t.Errorf("%s %v: %d %s", c.method, c.body, r.status, r.raw)
		}
	}
	if r := e.do(t, http.MethodPut, fmt.Sprintf("/test/bills/%d", id), e.keyA, map[string]any{"details": []int{7}, "filter[note]": "m"}); r.status != http.StatusOK || r.record(t)["note"] != "m" {
		t.Errorf("update: %d %s", r.status, r.raw)
	}

	lists := []struct {
		query string
		want  []int64
	}{
		{"filter[tag][]=2&filter[tag][]=9", []int64{id}},
		{"filter[tag][]=3", []int64{id + 1}},
		{"filter[tag]=1", []int64{id}},
		{"filter[tagIn][]=3&filter[tagIn][]=1", []int64{id, id + 1}},
		{"filter[tagIn][]=4", nil},
		{"filter[tag][]=9,2", []int64{id}},
		{"filter[tag][]=3,1", []int64{id, id + 1}},
		{"filter[tagIn][]=3,1", []int64{id, id + 1}},
		{"filter[item_default]=true", []int64{id}},
		{"filter[status]=overdue", []int64{id}},
		{"filter[status]=paid", []int64{id + 1}},
		{"filter[kind]=single", []int64{id}},
		{"sort=-status", []int64{id + 1, id}},
	}
	for _, c := range lists {
		query := c.query
		if !strings.HasPrefix(query, "sort=") {
			query = "sort=id&" + query
		}
		if got := e.get(t, "/test/bills?"+query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	for _, q := range []string{"filter[kind]=other", "fields=secret", "fields=item_default", "sort=secret", "filter[tag|g]=1", "filter[tag][]=x", "filter[tag][]=1,x"} {
		e.get(t, "/test/bills?"+q, http.StatusUnprocessableEntity)
	}
}

// TestFilterOnUser: a special filter on the caller's user (f.User()) keeps
// the rows of the user whose key calls, not those of another user of the
// same company, whatever their other columns.
func TestFilterOnUser(t *testing.T) {
	t.Parallel()
	e := setup(t, withMachineryRoutes())
	var first int64
	if err := e.pool.QueryRow(t.Context(), `SELECT min(id) FROM users WHERE company_id = $1`, e.compA).Scan(&first); err != nil {
		t.Fatal(err)
	}
	var second int64
	if err := e.pool.QueryRow(t.Context(), `INSERT INTO users (company_id, name) VALUES ($1, 'Second') RETURNING id`, e.compA).Scan(&second); err != nil {
		t.Fatal(err)
	}
	secondKey, err := storage.CreateAPIKey(t.Context(), e.pool, e.compA, second, "second")
	if err != nil {
		t.Fatal(err)
	}
	e.exec(t, `INSERT INTO test_bills (company_id, id, title, user_id) VALUES
		($1, 1, 'first user''s', $3), ($1, 2, 'second user''s', $4), ($1, 3, 'nobody''s', NULL),
		($2, 4, 'another company''s, same user id', $3)`, e.compA, e.compB, first, second)
	cases := []struct {
		name, key, query string
		want             []int64
	}{
		{"first user, mine", e.keyA, "filter[mine]=true", []int64{1}},
		{"first user, not mine", e.keyA, "filter[mine]=false", []int64{2, 3}},
		{"second user, mine", secondKey.Key, "filter[mine]=true", []int64{2}},
		{"second user, not mine", secondKey.Key, "filter[mine]=false", []int64{1, 3}},
		{"company B's user", e.keyB, "filter[mine]=true", nil},
	}
	for _, c := range cases {
		r := e.do(t, http.MethodGet, "/test/bills?sort=id&"+c.query, c.key, nil)
		if got := r.ids(t); r.status != http.StatusOK || !slices.Equal(got, c.want) {
			t.Errorf("%s: %d %v, want %v", c.name, r.status, got, c.want)
		}
	}
}

// TestTodayFollowsTimeZone: Today() and {today} are the date in the
// company's time zone (companies.time_zone): moving the company from one
// side of the date line to the other changes what a filter and a derived
// column say about the same rows. Kiritimati (UTC+14) is always a day or
// two ahead of Pago Pago (UTC-11); the dates come from the clock, so the
// test holds on any day (a run across a midnight is tried again).
func TestTodayFollowsTimeZone(t *testing.T) {
	t.Parallel()
	e := setup(t, withMachineryRoutes())
	for attempt := 0; ; attempt++ {
		ahead, behind := zoneDate(t, "Pacific/Kiritimati"), zoneDate(t, "Pacific/Pago_Pago")
		e.exec(t, `DELETE FROM test_bills WHERE company_id = $1`, e.compA)
		e.exec(t, `INSERT INTO test_bills (company_id, id, title, due_date) VALUES
			($1, 1, 'due today behind the line', $2), ($1, 2, 'due today ahead of the line', $3)`, e.compA, behind, ahead)
		problems := todayProblems(t, e)
		if ahead == zoneDate(t, "Pacific/Kiritimati") && behind == zoneDate(t, "Pacific/Pago_Pago") || attempt == 2 {
			for _, p := range problems {
				t.Error(p)
			}
			return
		}
	}
}

// todayProblems moves company A between the two zones and says where the
// filters and the status disagree with the dates.
func todayProblems(t *testing.T, e *testEnv) []string {
	t.Helper()
	cases := []struct {
		zone, query string
		want        []int64
	}{
		{"Pacific/Kiritimati", "filter[overdue]=true", []int64{1}},
		{"Pacific/Kiritimati", "filter[early]=true", nil},
		{"Pacific/Kiritimati", "filter[status]=overdue", []int64{1}},
		{"Pacific/Kiritimati", "filter[status]=unpaid", []int64{2}},
		{"Pacific/Pago_Pago", "filter[overdue]=true", nil},
		{"Pacific/Pago_Pago", "filter[early]=true", []int64{2}},
		{"Pacific/Pago_Pago", "filter[status]=overdue", nil},
		{"Pacific/Pago_Pago", "filter[status]=unpaid", []int64{1, 2}},
	}
	var problems []string
	for _, c := range cases {
		e.exec(t, `UPDATE companies SET time_zone = $2 WHERE id = $1`, e.compA, c.zone)
		if got := e.get(t, "/test/bills?sort=id&"+c.query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			problems = append(problems, fmt.Sprintf("%s %s: %v, want %v", c.zone, c.query, got, c.want))
		}
	}
	return problems
}

// zoneDate is today's date in the named zone.
func zoneDate(t *testing.T, zone string) string {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	return time.Now().In(loc).Format(time.DateOnly)
}
