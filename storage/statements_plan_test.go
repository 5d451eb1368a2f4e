package storage_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestOpeningsKeepTheirGenericPlan: the openings' read of a close, run
// for one or two books at a time on one connection as a night of small
// companies runs it, is planned for its own books at its first five runs
// only, and then runs the generic plan; without the limit on the books'
// unnest every run was planned on its own.
func TestOpeningsKeepTheirGenericPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Aberturas")
	if err != nil {
		t.Fatal(err)
	}
	var owner int64
	if err := pool.QueryRow(ctx, `INSERT INTO persons (company_id, name) VALUES ($1, 'Carla') RETURNING id`, company).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `WITH m AS (INSERT INTO owner_statement_months (company_id, month, statements, lines) VALUES ($1, '2024-01', 1, 0))
		INSERT INTO owner_statements (company_id, owner_id, month, opening, closing, income, deductions, guarantee, transfers,
			adjustments, shown_lines, hidden_lines, hidden_amount)
		VALUES ($1, $2, '2024-01', 0, 150.00, 150.00, 0, 0, 0, 0, 0, 0, 0)`, company, owner); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const runs = 12
	for i := range runs {
		owners, businesses := []int64{owner}, []int64{0}
		if i%2 == 1 {
			owners, businesses = append(owners, owner+1000), append(businesses, 0)
		}
		rows, err := conn.Query(ctx, storage.OpeningsSQL, company, owners, businesses, "2024-02")
		if err != nil {
			t.Fatal(err)
		}
		var n int
		for rows.Next() {
			var o, b, closing int64
			if err := rows.Scan(&o, &b, &closing); err != nil {
				t.Fatal(err)
			}
			if o != owner || b != 0 || closing != 15000 {
				t.Errorf("run %d: opening %d %d %d, want %d 0 15000", i, o, b, closing, owner)
			}
			n++
		}
		if err := rows.Err(); err != nil || n != 1 {
			t.Fatalf("run %d: %d openings (%v), want 1", i, n, err)
		}
	}
	var generic, custom int64
	err = conn.QueryRow(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements
		WHERE statement LIKE '%SELECT closing FROM owner_statements s%' AND statement NOT LIKE '%pg_prepared_statements%'`).
		Scan(&generic, &custom)
	if err != nil {
		t.Fatal(err)
	}
	if custom > 5 || generic != runs-custom {
		t.Errorf("%d reads of one or two books: %d planned for their own books, %d of the generic plan; want 5 and %d",
			runs, custom, generic, runs-5)
	}
}
