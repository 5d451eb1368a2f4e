package storage_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// countingTracer counts the statements a pool runs.
type countingTracer struct{ n atomic.Int64 }

func (c *countingTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *countingTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestIncludesCostOneQueryPerRelation: a page of 30 types with their
// category, their buildings and each building's constructor and its state
// costs one statement for the page and one per relation, not one per row.
func TestIncludesCostOneQueryPerRelation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setupPool := storagetest.NewDB(t)
	companyID, _, err := storage.EnsureCompany(ctx, setupPool, "Counting")
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`INSERT INTO building_categories (company_id, description, color) SELECT $1, 'C' || g, '#0' FROM generate_series(1, 5) g`,
		`INSERT INTO building_types (company_id, description, category_id) SELECT $1, 'T' || g, 1 + g % 5 FROM generate_series(1, 30) g`,
		`INSERT INTO constructors (company_id, name, state_id) SELECT $1, 'K' || g, 35 FROM generate_series(1, 3) g`,
		`INSERT INTO buildings (company_id, title, type_id, constructor_id) SELECT $1, 'B' || g, 1 + g % 30, 1 + g % 3 FROM generate_series(1, 90) g`,
	} {
		if _, err := setupPool.Exec(ctx, sql, companyID); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := pgxpool.ParseConfig(storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	tracer := &countingTracer{}
	cfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	reg := storage.DefaultRegistry()
	types := reg.MustResource(storage.BuildingTypes)
	rel := func(res *storage.Resource, name string, children ...*storage.Include) *storage.Include {
		r, ok := res.Relation(name)
		if !ok {
			t.Fatalf("no relation %s", name)
		}
		return &storage.Include{Relation: r, Children: children}
	}
	buildings := reg.MustResource(storage.Buildings)
	constructors := reg.MustResource(storage.Constructors)
	q := storage.ListQuery{Page: 1, PerPage: 30, Includes: []*storage.Include{
		rel(types, "category"),
		rel(types, "buildings", rel(buildings, "constructor", rel(constructors, "state"))),
	}}
	page, err := storage.NewStore(pool, reg).List(ctx, types, storage.Company(companyID), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 30 {
		t.Fatalf("%d records", len(page.Records))
	}
	if got := tracer.n.Load(); got != 5 {
		t.Errorf("%d statements, want 5 (page, category, buildings, constructor, state)", got)
	}
	body := string(page.Records[0].AppendJSON(nil))
	if !strings.Contains(body, `"abbreviation":"SP"`) || !strings.Contains(body, `"category":{`) {
		t.Errorf("first record lacks its nested relations: %s", body)
	}
}
