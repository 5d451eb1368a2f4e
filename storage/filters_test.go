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

// TestFilterShapes: a list with a Len takes exactly that many values, an
// integer range bounds a column both ways, and NewRegistry refuses a range
// on a non-integer and a year-month column.
func TestFilterShapes(t *testing.T) {
	t.Parallel()
	between := storage.InRange("f", storage.Date, func(_ *storage.FilterSQL, low, high string) string {
		return `"d" BETWEEN ` + low + ` AND ` + high
	})
	for n, want := range map[int]string{1: "takes exactly 2 values", 2: "", 3: "takes exactly 2 values"} {
		if got := between.CheckCount(n); got != want {
			t.Errorf("%d values: %q, want %q", n, got, want)
		}
	}
	if got := storage.ColumnIn("f", "x", storage.Int).CheckCount(7); got != "" {
		t.Errorf("a list without Len: %q", got)
	}
	day := storage.Column{Name: "due_day", Type: storage.Int, Range: &storage.IntRange{Min: 1, Max: 31}}
	for n, ok := range map[int64]bool{0: false, 1: true, 31: true, 32: false} {
		if got := day.CheckInt(n); (got == "") != ok {
			t.Errorf("due_day %d: %q", n, got)
		}
	}
	bad := []storage.Column{
		{Name: "x", Type: storage.String, Range: &storage.IntRange{Max: 1}},
		{Name: "x", Type: storage.Int, Range: &storage.IntRange{Min: 2, Max: 1}},
		{Name: "x", Type: storage.Month},
	}
	for _, c := range bad {
		res := &storage.Resource{Name: "r", Table: "r", Columns: []storage.Column{{Name: "id", Type: storage.Int}, c}}
		if _, err := storage.NewRegistry(res); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestEqualsDeclarationChecked: NewRegistry takes Equals only on a
// filterable derived string column with an enum, and refuses one whose
// SQL for some value reads a table without naming the company.
func TestEqualsDeclarationChecked(t *testing.T) {
	t.Parallel()
	scoped := func(f *storage.FilterSQL, v string) string { return `"state" = ` + f.Value() }
	unscoped := func(f *storage.FilterSQL, v string) string {
		if v == "b" {
			return `"x" IN (SELECT id FROM other WHERE k = ` + f.Value() + `)`
		}
		return ""
	}
	derived := storage.Column{Name: "s", Type: storage.String, Filterable: true, Enum: []string{"a", "b"},
		Expr: `CASE WHEN "x" THEN 'a' ELSE "state" END`}
	cases := []struct {
		name string
		edit func(c *storage.Column)
		ok   bool
	}{
		{"derived with enum", func(c *storage.Column) { c.Equals = scoped }, true},
		{"a value reads another table without the company", func(c *storage.Column) { c.Equals = unscoped }, false},
		{"stored column", func(c *storage.Column) { c.Equals, c.Expr = scoped, "" }, false},
		{"no enum", func(c *storage.Column) { c.Equals, c.Enum = scoped, nil }, false},
		{"not filterable", func(c *storage.Column) { c.Equals, c.Filterable = scoped, false }, false},
	}
	for _, c := range cases {
		col := derived
		c.edit(&col)
		res := &storage.Resource{Name: "r", Table: "r", Columns: []storage.Column{{Name: "id", Type: storage.Int}, col}}
		if _, err := storage.NewRegistry(res); (err == nil) != c.ok {
			t.Errorf("%s: %v, want accepted %v", c.name, err, c.ok)
		}
	}
}
