package api

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestConstraintViolations: a NOT NULL or CHECK of the schema that the
// declaration does not know of answers 422 naming the field (or "body" when
// no field can be derived), never 500, and never shows the constraint.
func TestConstraintViolations(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	e.exec(t, `INSERT INTO test_things (company_id, title, kind) VALUES ($1, 'alpha', 'rent')`, e.compA)
	e.exec(t, `ALTER TABLE test_things ALTER COLUMN kind SET NOT NULL,
		ADD CONSTRAINT test_things_day_check CHECK (day >= '2000-01-01'),
		ADD CONSTRAINT test_things_window CHECK (active OR amount IS NULL)`)
	cases := []struct {
		name, method, path, body, field string
	}{
		{"null in a NOT NULL column", http.MethodPost, "/test/things", `{"title":"a","kind":null}`, "kind"},
		{"NOT NULL column left out", http.MethodPost, "/test/things", `{"title":"a"}`, "kind"},
		{"null on update", http.MethodPut, "/test/things/1", `{"kind":null}`, "kind"},
		{"column CHECK", http.MethodPost, "/test/things", `{"title":"a","kind":"k","day":"1999-12-31"}`, "day"},
		{"table CHECK", http.MethodPost, "/test/things", `{"title":"a","kind":"k","active":false,"amount":"1.00"}`, "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, c.method, c.path, e.keyA, c.body)
			if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
				t.Fatalf("%d %s, want 422 naming %s", r.status, r.raw, c.field)
			}
			if strings.Contains(r.raw, "test_things_") || strings.Contains(r.raw, "check") {
				t.Errorf("the answer shows a constraint: %s", r.raw)
			}
		})
	}
}

// TestConflictsHideConstraints: a 409 names the field when the constraint
// maps to one, and never shows the constraint's name.
func TestConflictsHideConstraints(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	seed(t, e)
	e.exec(t, `CREATE UNIQUE INDEX test_things_title_key ON test_things (company_id, title)`)
	dup := e.do(t, http.MethodPost, "/test/things", e.keyA, `{"title":"alpha"}`)
	if dup.status != http.StatusConflict || !slices.Equal(dup.problemFields(t), []string{"title"}) {
		t.Errorf("duplicate title: %d %s", dup.status, dup.raw)
	}
	inUse := e.do(t, http.MethodDelete, "/buildings/categories/1", e.keyA, nil)
	if inUse.status != http.StatusConflict {
		t.Errorf("delete of a category in use: %d %s", inUse.status, inUse.raw)
	}
	for _, r := range []response{dup, inUse} {
		if strings.Contains(r.raw, "_key") || strings.Contains(r.raw, "_fk") {
			t.Errorf("the answer shows a constraint: %s", r.raw)
		}
	}
}
