package storagetest

import (
	"testing"
)

// TestOwnPostgresStopsAndStarts: the test's own server holds a migrated
// database; while stopped its pool fails, and once started again the same
// pool reads what was written before.
func TestOwnPostgresStopsAndStarts(t *testing.T) {
	t.Parallel()
	pg := NewPostgres(t)
	var migrated bool
	if err := pg.Pool.QueryRow(t.Context(), `SELECT to_regclass('invoices') IS NOT NULL`).Scan(&migrated); err != nil || !migrated {
		t.Fatalf("no invoices table in the test's own database (%v)", err)
	}
	if _, err := pg.Pool.Exec(t.Context(), `INSERT INTO companies (name) VALUES ('Restart')`); err != nil {
		t.Fatal(err)
	}
	pg.Stop(t)
	if _, err := pg.Pool.Exec(t.Context(), `SELECT 1`); err == nil {
		t.Fatal("a query succeeded while the server was stopped")
	}
	pg.Start(t)
	var n int
	if err := pg.Pool.QueryRow(t.Context(), `SELECT count(*) FROM companies WHERE name = 'Restart'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("after the restart: %d companies named Restart (%v)", n, err)
	}
}
