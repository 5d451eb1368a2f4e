package api

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
)

// The resources below are declared only in the tests, to show each shape
// the machinery can declare on tables of their own.

// testResources is every test-only resource.
func testResources() []*storage.Resource {
	return append([]*storage.Resource{testResource(), testParentsResource(), testChildrenResource(), testBillsResource()},
		writeResources()...)
}

// testBillsResource has a special filter of each shape.
func testBillsResource() *storage.Resource {
	notPaid := func(*storage.FilterSQL) string { return `NOT "paid"` }
	return &storage.Resource{
		Name: "test_bills", Table: "test_bills",
		Columns: []storage.Column{
			{Name: "id", Type: storage.Int, Filterable: true},
			{Name: "title", Type: storage.String, Filterable: true, Writable: true, Required: true},
			{Name: "paid", Type: storage.Bool, Filterable: true, Writable: true},
			{Name: "due_date", Type: storage.Date, Filterable: true, Writable: true},
			{Name: "period_initial", Type: storage.Date, Filterable: true, Writable: true},
			{Name: "period_final", Type: storage.Date, Filterable: true, Writable: true},
			{Name: "position", Type: storage.Int, Filterable: true, Writable: true},
			{Name: "building_id", Type: storage.Int, Filterable: true, Writable: true},
			{Name: "payer_id", Type: storage.Int, Filterable: true, Writable: true},
			{Name: "plan_id", Type: storage.Int, Filterable: true, Writable: true},
			{Name: "user_id", Type: storage.Int, Filterable: true, Writable: true},
			{Name: "kind", Type: storage.String, Filterable: true, Writable: true, Enum: []string{"single", "contract"}},
			{Name: "tag", Type: storage.IntArray, Filterable: true, Writable: true},
			{Name: "protest", Type: storage.JSONText, Writable: true},
			{Name: "config", Type: storage.JSONText, Writable: true, CreateOnly: true},
			{Name: "details", Type: storage.IntArray, Writable: true, UpdateOnly: true},
			{Name: "secret", Type: storage.String, Writable: true, WriteOnly: true},
			{Name: "item_default", Type: storage.Bool, Filterable: true, FilterOnly: true},
			{Name: "note", Type: storage.String, Filterable: true, Writable: true, BodyName: "filter[note]"},
			{Name: "status", Type: storage.String, Filterable: true,
				Expr: `CASE WHEN "paid" THEN 'paid' WHEN "due_date" < {today} THEN 'overdue' ELSE 'unpaid' END`},
		},
		Filters: []storage.SpecialFilter{
			storage.Predicate("unpaid", notPaid),
			storage.Predicate("overdue", func(f *storage.FilterSQL) string { return `NOT "paid" AND "due_date" < ` + f.Today() }),
			storage.Predicate("early", func(f *storage.FilterSQL) string { return `NOT "paid" AND "due_date" > ` + f.Today() }),
			storage.ColumnMin("dueDateMin", "due_date", storage.Date),
			storage.ColumnMax("dateMax", "due_date", storage.Date),
			storage.Within("periodContains", "period_initial", "period_final", storage.Date),
			storage.ColumnMin("positionMin", "position", storage.Int),
			storage.Scalar("paidStatus", storage.String, []string{"paid", "unpaid"}, func(f *storage.FilterSQL) string {
				return `"paid" = (` + f.Value() + ` = 'paid')`
			}),
			storage.Through("ownerIn", storage.Int, "building_id", "test_owners", "building_id", "owner_id"),
			storage.Through("payerTaxIdIn", storage.String, "payer_id", "test_persons", "id", "tax_id"),
			storage.TreeIn("planAllIn", "plan_id", "test_plans", "parent_id"),
			storage.ArrayOverlap("tagIn", "tag"),
			// the bills of the calling user
			storage.Predicate("mine", func(f *storage.FilterSQL) string { return `"user_id" = ` + f.User() }),
		},
	}
}

// testParentsResource is a parent of the sub-resource test_children.
func testParentsResource() *storage.Resource {
	return &storage.Resource{
		Name: "test_parents", Table: "test_parents",
		Columns: []storage.Column{
			{Name: "id", Type: storage.Int, Filterable: true},
			{Name: "title", Type: storage.String, Filterable: true, Writable: true, Required: true},
		},
	}
}

// testChildrenResource lives under test_parents:
// /test/parents/:parent/children.
func testChildrenResource() *storage.Resource {
	return &storage.Resource{
		Name: "test_children", Table: "test_children",
		Parent: &storage.Parent{Resource: "test_parents", Key: "parent_id"},
		Columns: []storage.Column{
			{Name: "id", Type: storage.Int, Filterable: true},
			{Name: "parent_id", Type: storage.Int, Filterable: true},
			{Name: "name", Type: storage.String, Filterable: true, Writable: true, Required: true},
		},
		Relations: []storage.Relation{
			{Name: "parent", Kind: storage.BelongsTo, Resource: "test_parents", Key: "parent_id"},
		},
	}
}

// withMachineryRoutes mounts the test-only resources of the machinery.
func withMachineryRoutes() envOption {
	return func(c *Config, s *Server) {
		for _, rt := range []route{
			{"/test/parents", "test_parents"},
			{"/test/parents/:parent/children", "test_children"},
			{"/test/bills", "test_bills"},
		} {
			withRoute(rt.path, rt.resource)(c, s)
		}
	}
}

func createMachineryTables(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `
	CREATE TABLE test_parents (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED ALWAYS AS IDENTITY,
		title text NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now(),
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (company_id, id));
	CREATE TABLE test_children (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED ALWAYS AS IDENTITY,
		parent_id bigint NOT NULL,
		name text NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now(),
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (company_id, id),
		FOREIGN KEY (company_id, parent_id) REFERENCES test_parents (company_id, id) ON DELETE CASCADE);
	CREATE TABLE test_persons (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED BY DEFAULT AS IDENTITY,
		tax_id text NOT NULL,
		PRIMARY KEY (company_id, id));
	CREATE TABLE test_owners (
		company_id bigint NOT NULL REFERENCES companies (id),
		building_id bigint NOT NULL,
		owner_id bigint NOT NULL,
		PRIMARY KEY (company_id, building_id, owner_id));
	CREATE TABLE test_plans (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED BY DEFAULT AS IDENTITY,
		parent_id bigint,
		PRIMARY KEY (company_id, id));
	CREATE TABLE test_bills (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED BY DEFAULT AS IDENTITY,
		title text NOT NULL,
		paid boolean NOT NULL DEFAULT false,
		due_date date,
		period_initial date,
		period_final date,
		position bigint,
		building_id bigint,
		payer_id bigint,
		plan_id bigint,
		user_id bigint,
		kind text,
		tag bigint[],
		protest text,
		config text,
		details bigint[],
		secret text,
		item_default boolean NOT NULL DEFAULT false,
		note text,
		created_at timestamptz NOT NULL DEFAULT now(),
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (company_id, id));`)
	if err != nil {
		t.Fatal(err)
	}
}
