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
	return []*storage.Resource{testResource(), testParentsResource(), testChildrenResource()}
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
		FOREIGN KEY (company_id, parent_id) REFERENCES test_parents (company_id, id) ON DELETE CASCADE);`)
	if err != nil {
		t.Fatal(err)
	}
}
