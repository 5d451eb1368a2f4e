package api

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
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
