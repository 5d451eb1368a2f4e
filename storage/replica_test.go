package storage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestStoreWithReplica: a store with a replica lists and gets from the
// replica, and writes, with what they check in their transaction, to the
// primary. The "replica" is a second database holding other rows, so that
// every answer says where it was read.
func TestStoreWithReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primary := storagetest.NewDB(t)
	t.Run("replica", func(t *testing.T) { // a subtest has a database of its own
		replica := storagetest.NewDB(t)
		company := sameCompany(t, primary, replica)
		onPrimary := insertCategory(t, primary, company, "on the primary")
		onReplica := insertCategory(t, replica, company, "on the replica")
		reg := storage.DefaultRegistry()
		categories, types := reg.MustResource(storage.BuildingCategories), reg.MustResource(storage.BuildingTypes)
		store := storage.NewStore(primary, reg).WithReplica(replica)
		sc := storage.Company(company)

		page, err := store.List(ctx, categories, sc, storage.ListQuery{Page: 1, PerPage: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := descriptions(page.Records); got != "on the replica" {
			t.Errorf("list read %q, want the replica's row", got)
		}
		if rec, err := store.Get(ctx, categories, sc, onReplica, storage.GetQuery{}); err != nil || descriptions([]*storage.Record{rec}) != "on the replica" {
			t.Errorf("get of the replica's row: %v", err)
		}
		if _, err := store.Get(ctx, categories, sc, onPrimary+100, storage.GetQuery{}); finance.ErrorCode(err) != finance.NotFound {
			t.Errorf("get of a row nowhere: %v", err)
		}

		// a type of the primary's category: the reference is checked in the
		// write's transaction, on the primary, where the category is
		created, err := store.Create(ctx, types, sc, storage.Write{Values: map[string]any{
			"description": "written", "category_id": onPrimary}})
		if err != nil {
			t.Fatalf("create through a store with a replica: %v", err)
		}
		id, _ := created.ID()
		for db, want := range map[*pgxpool.Pool]int{primary: 1, replica: 0} {
			var n int
			if err := db.QueryRow(ctx, `SELECT count(*) FROM building_types WHERE company_id = $1 AND id = $2`, company, id).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != want {
				t.Errorf("the created type is %d times in the %s, want %d", n, name(db, primary), want)
			}
		}
		if _, err := store.Update(ctx, categories, sc, onPrimary, storage.Write{Values: map[string]any{"color": "#000000"}}); err != nil {
			t.Errorf("update of a row only the primary has: %v", err)
		}
		if store.Pool() != primary {
			t.Error("Pool is not the primary's")
		}
	})
}

// sameCompany creates one company in both databases and gives its id,
// the same in both (clones of one template count ids alike).
func sameCompany(t *testing.T, a, b *pgxpool.Pool) int64 {
	t.Helper()
	ctx := context.Background()
	idA, _, err := storage.EnsureCompany(ctx, a, "Replica Test")
	if err != nil {
		t.Fatal(err)
	}
	idB, _, err := storage.EnsureCompany(ctx, b, "Replica Test")
	if err != nil {
		t.Fatal(err)
	}
	if idA != idB {
		t.Fatalf("the company is %d in one database and %d in the other", idA, idB)
	}
	return idA
}

func insertCategory(t *testing.T, pool *pgxpool.Pool, company int64, description string) int64 {
	t.Helper()
	var id int64
	err := pool.QueryRow(context.Background(), `INSERT INTO building_categories (company_id, description, color)
		VALUES ($1, $2, '#ffffff') RETURNING id`, company, description).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func descriptions(records []*storage.Record) string {
	var out []string
	for _, r := range records {
		v, _ := r.Value("description")
		s, _ := v.(string)
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

func name(db, primary *pgxpool.Pool) string {
	if db == primary {
		return "primary"
	}
	return "replica"
}
