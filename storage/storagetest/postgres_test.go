package storagetest

import (
	"testing"
)

// TestOwnPostgresStopsAndStarts: the test's own server holds a migrated
// database; while stopped its pool fails, and once started again, after a
// shutdown or a crash, the same pool reads what was committed before.
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
	if _, err := pg.Pool.Exec(t.Context(), `INSERT INTO companies (name) VALUES ('Crash')`); err != nil {
		t.Fatal(err)
	}
	pg.Crash(t)
	pg.Start(t)
	// a pooled connection the crash cut fails its next query, once
	var n int
	var err error
	for range 3 {
		if err = pg.Pool.QueryRow(t.Context(), `SELECT count(*) FROM companies WHERE name IN ('Restart', 'Crash')`).Scan(&n); err == nil {
			break
		}
	}
	if err != nil || n != 2 {
		t.Fatalf("after the restart and the crash: %d of the two companies (%v)", n, err)
	}
}
