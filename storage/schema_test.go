package storage_test

import (
	"context"
	"slices"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestDeclarationsMatchSchema holds every declared resource against the
// migrated schema: each declared column exists with a compatible type, and
// custom_fields exists where custom fields are declared.
func TestDeclarationsMatchSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	for _, res := range storage.Resources() {
		mismatches, err := storagetest.SchemaMismatches(ctx, pool, res)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mismatches {
			t.Error(m)
		}
	}
}

// TestSchemaMismatchesFindsDifferences: the check above would notice a
// declaration that drifted from the schema.
func TestSchemaMismatchesFindsDifferences(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	if _, err := pool.Exec(ctx, `CREATE TABLE drift (id bigint, label text, day timestamptz, price numeric(10,2), rate numeric)`); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		res  *storage.Resource
		want []string
	}{
		{"no table", &storage.Resource{Name: "x", Table: "nowhere", Shared: true}, []string{`x: no table "nowhere"`}},
		{"drifted", &storage.Resource{Name: "drift", Table: "drift", CustomFields: true, Columns: []storage.Column{
			{Name: "id", Type: storage.Int},
			{Name: "label", Type: storage.Int},
			{Name: "day", Type: storage.Date},
			{Name: "gone", Type: storage.String},
			{Name: "price", Type: storage.Decimal, Precision: 10, Scale: 3},
			{Name: "rate", Type: storage.Decimal, Precision: 10, Scale: 2},
		}}, []string{
			"drift.label: declared integer, but the column is text",
			"drift.day: declared date, but the column is timestamp with time zone",
			"drift.gone: no such column in the table",
			"drift.price: declared numeric(10,3), but the column is numeric(10,2)",
			"drift.rate: declared numeric(10,2), but the column is numeric without precision and scale",
			`drift: company-owned but table "drift" has no company_id`,
			`drift: declares custom fields but table "drift" has no jsonb custom_fields`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := storagetest.SchemaMismatches(ctx, pool, c.res)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("mismatches\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}
