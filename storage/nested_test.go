package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestRegistryRefusesBadWriteDeclarations: child collections, hooks and
// delete options are checked when the registry is built.
func TestRegistryRefusesBadWriteDeclarations(t *testing.T) {
	t.Parallel()
	lines := func() *Resource {
		return &Resource{Name: "lines", Table: "lines", Columns: []Column{
			{Name: "id", Type: Int}, {Name: "invoice_id", Type: Int}, {Name: "note", Type: String, Writable: true}}}
	}
	invoices := func(mod func(r *Resource)) *Resource {
		r := &Resource{Name: "invoices", Table: "invoices", Columns: []Column{{Name: "id", Type: Int}, {Name: "title", Type: String, Writable: true}},
			Children: []Child{{Name: "items", Resource: "lines", Key: "invoice_id"}}}
		mod(r)
		return r
	}
	if _, err := NewRegistry(lines(), invoices(func(*Resource) {})); err != nil {
		t.Fatalf("a good declaration is refused: %v", err)
	}
	cases := []struct {
		name string
		mod  func(r *Resource)
		want string
	}{
		{"undeclared child", func(r *Resource) { r.Children[0].Resource = "nope" }, "undeclared"},
		{"missing key", func(r *Resource) { r.Children[0].Key = "parent_id" }, "key"},
		{"writable key", func(r *Resource) { r.Children[0].Key = "note" }, "key"},
		{"child named as a column", func(r *Resource) { r.Children[0].Name = "title" }, "body key"},
		{"child twice", func(r *Resource) { r.Children = append(r.Children, r.Children[0]) }, "twice"},
		{"nil hook", func(r *Resource) { r.Hooks.After = []Hook{nil} }, "nil"},
		{"option twice", func(r *Resource) { r.DeleteOptions = []string{"a", "a"} }, "twice"},
		{"unstored without hooks", func(r *Resource) {
			r.Columns = append(r.Columns, Column{Name: "groups", Type: JSONText, Writable: true, WriteOnly: true, Unstored: true})
		}, "unstored"},
		{"unstored and returned", func(r *Resource) {
			r.Columns = append(r.Columns, Column{Name: "groups", Type: JSONText, Writable: true, Unstored: true})
			r.Hooks.After = []Hook{func(context.Context, pgx.Tx, *Change) error { return nil }}
		}, "unstored"},
		{"read-only with hooks", func(r *Resource) {
			r.ReadOnly = true
			r.Children = nil
			r.Hooks.Before = []Hook{func(context.Context, pgx.Tx, *Change) error { return nil }}
		}, "read-only"},
	}
	for _, c := range cases {
		_, err := NewRegistry(lines(), invoices(c.mod))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
