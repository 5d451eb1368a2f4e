package storage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestDateTimesAreUTC: a date-time is written, compared and read in UTC,
// in a timestamptz column and in a timestamp one alike, whatever time zone
// the server or the database is set to.
func TestDateTimesAreUTC(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := storagetest.NewDB(t)
	for _, sql := range []string{
		`CREATE TABLE stamps (company_id bigint NOT NULL, id bigint GENERATED ALWAYS AS IDENTITY,
			at_tz timestamptz, at_local timestamp, PRIMARY KEY (company_id, id))`,
		`DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET timezone TO %L', current_database(), 'America/Sao_Paulo'); END $$`,
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	pool, err := storage.Open(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	res := &storage.Resource{Name: "stamps", Table: "stamps", Columns: []storage.Column{
		{Name: "id", Type: storage.Int, Filterable: true},
		{Name: "at_tz", Type: storage.DateTime, Filterable: true, Writable: true},
		{Name: "at_local", Type: storage.DateTime, Filterable: true, Writable: true},
	}}
	reg, err := storage.NewRegistry(res)
	if err != nil {
		t.Fatal(err)
	}
	store := storage.NewStore(pool, reg)
	noon := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	rec, err := store.Create(ctx, res, storage.Company(1), storage.Write{Values: map[string]any{"at_tz": noon, "at_local": noon.In(time.FixedZone("BRT", -3*3600))}})
	if err != nil {
		t.Fatal(err)
	}
	const want = `"at_tz":"2024-03-01 12:00:00","at_local":"2024-03-01 12:00:00"`
	if got := string(rec.AppendJSON(nil)); !strings.Contains(got, want) {
		t.Errorf("written and read back as %s, want %s", got, want)
	}
	for _, column := range []string{"at_tz", "at_local"} {
		page, err := store.List(ctx, res, storage.Company(1), storage.ListQuery{Page: 1, PerPage: 10,
			Filters: []storage.Filter{{Column: column, Op: storage.Equal, Values: []any{noon}}}})
		if err != nil || len(page.Records) != 1 {
			t.Errorf("filter on %s = 12:00 UTC: %d records (%v)", column, len(page.Records), err)
		}
	}
	var stored string
	if err := admin.QueryRow(ctx, "SELECT at_local::text FROM stamps").Scan(&stored); err != nil || stored != "2024-03-01 12:00:00" {
		t.Errorf("the timestamp column holds %q (%v), want the UTC time", stored, err)
	}
}
