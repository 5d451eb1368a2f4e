package storage_test

import (
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
)

// TestFilterScopeCheck: every special filter of the registry reads other
// tables only within the company (NewRegistry refuses the others, so the
// default registry building proves it for every declared filter); and the
// check does refuse a subquery, a join or a tree that forgets the company.
func TestFilterScopeCheck(t *testing.T) {
	t.Parallel()
	reg := storage.DefaultRegistry()
	for _, res := range storage.Resources() {
		for _, f := range reg.MustResource(res.Name).Filters {
			if f.Condition == nil {
				t.Errorf("%s: filter %s has no condition", res.Name, f.Name)
			}
		}
	}
	cond := func(sql func(f *storage.FilterSQL) string) storage.SpecialFilter {
		return storage.SpecialFilter{Name: "f", Elem: storage.Int, Condition: sql}
	}
	cases := []struct {
		name   string
		filter storage.SpecialFilter
		ok     bool
	}{
		{"column", storage.ColumnIn("f", "x", storage.Int), true},
		{"through", storage.Through("f", storage.String, "payer_id", "persons", "id", "tax_id"), true},
		{"tree", storage.TreeIn("f", "plan_id", "plans", "parent_id"), true},
		{"any column", storage.AnyColumnIn("f", storage.String, "debit", "credit"), true},
		{"enum in", storage.EnumIn("f", "kind", []string{"a"}), true},
		{"related", cond(func(f *storage.FilterSQL) string {
			return storage.Related(f, "invoice_id", "invoices", `"status" = 'paid' AND "due_date" < `+f.Today())
		}), true},
		{"today", storage.Predicate("f", func(f *storage.FilterSQL) string { return `"due" < ` + f.Today() }), true},
		{"subquery without company", cond(func(f *storage.FilterSQL) string {
			return `"payer_id" IN (SELECT id FROM persons WHERE tax_id = any(` + f.Value() + `))`
		}), false},
		{"company of the wrong table", cond(func(f *storage.FilterSQL) string {
			return `"x" IN (SELECT a.id FROM a JOIN b ON b.id = a.b_id WHERE a.company_id = ` + f.Company() + `)`
		}), false},
		{"join scoped", cond(func(f *storage.FilterSQL) string {
			return `"x" IN (SELECT a.id FROM a WHERE a.company_id = ` + f.Company() + ` AND a.y IN (SELECT id FROM b WHERE company_id = ` + f.Company() + `))`
		}), true},
		{"recursive step without company", cond(func(f *storage.FilterSQL) string {
			return `"x" IN (WITH RECURSIVE t(id) AS (SELECT id FROM p WHERE company_id = ` + f.Company() +
				` UNION SELECT n.id FROM p n JOIN t ON n.parent_id = t.id) SELECT id FROM t)`
		}), false},
		{"quoted table without company", cond(func(f *storage.FilterSQL) string {
			return `EXISTS (SELECT 1 FROM "other" WHERE "other".id = ` + f.Value() + `[1])`
		}), false},
	}
	for _, c := range cases {
		res := &storage.Resource{Name: "r", Table: "r", Columns: []storage.Column{{Name: "id", Type: storage.Int}},
			Filters: []storage.SpecialFilter{c.filter}}
		_, err := storage.NewRegistry(res)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok %v", c.name, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "company") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
