package storage_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

func TestUpsertIndices(t *testing.T) {
	t.Parallel()
	f := newReadjustFixture(t)
	ctx := context.Background()
	if v := f.text(t, `SELECT rate::text FROM price_indices WHERE $1 > 0 AND indicator = 'IGP-M' AND month = '2024-01-01'`); v != "0.0700" {
		t.Errorf("shipped IGP-M 2024-01 = %s", v)
	}
	rows := []storage.IndexRow{
		{Indicator: "IGP-M", Month: finance.NewMonth(2024, 1), Rate: decimal.RequireFromString("0.07")}, // as shipped
		{Indicator: "IPCA", Month: finance.NewMonth(2024, 1), Rate: decimal.RequireFromString("0.43")},  // corrected
		{Indicator: "IVAR", Month: finance.NewMonth(2025, 12), Rate: decimal.RequireFromString("-0.12")},
	}
	got, err := storage.UpsertIndices(ctx, f.pool, rows, storage.IndexAPI, storage.Scope{CompanyID: f.company})
	if err != nil {
		t.Fatal(err)
	}
	if got != (storage.UpsertResult{Inserted: 1, Updated: 1, Unchanged: 1}) {
		t.Errorf("upsert: %+v", got)
	}
	// migrating again keeps the correction
	if err := storage.Migrate(ctx, f.pool); err != nil {
		t.Fatal(err)
	}
	if v := f.text(t, `SELECT rate || ' ' || source FROM price_indices WHERE $1 > 0 AND indicator = 'IPCA' AND month = '2024-01-01'`); v != "0.4300 api" {
		t.Errorf("IPCA 2024-01 after migrating again: %s", v)
	}
	dup := append(rows, rows[0])
	if _, err := storage.UpsertIndices(ctx, f.pool, dup, storage.IndexAPI, storage.Scope{}); finance.ErrorCode(err) != finance.Invalid {
		t.Errorf("a month given twice: %v", err)
	}
}

func TestParseIndexRow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		indicator, month, rate string
		problems               []string
	}{
		{"IGP-M", "2024-01", "0.07", nil},
		{"IPCA", "2024-01-01", "-1.5", nil},
		{"INCC-M", "2024-02", "1.2345", nil},
		{"IGPM", "2024-01", "0.07", []string{"indicator"}},
		{"IPCA", "2024-13", "0.07", []string{"month"}},
		{"IPCA", "2024-01-15", "0.07", []string{"month"}},
		{"IPCA", "24-01", "x", []string{"month", "rate"}},
		{"IPCA", "2024-01", "0.12345", []string{"rate"}},
		{"IPCA", "2024-01", "-100", []string{"rate"}},
		{"IPCA", "2024-01", "10000", []string{"rate"}},
	}
	for _, tt := range tests {
		_, ps := storage.ParseIndexRow(tt.indicator, tt.month, tt.rate)
		var fields []string
		for _, p := range ps {
			fields = append(fields, p.Field)
		}
		if len(fields) != len(tt.problems) || (len(fields) > 0 && fields[0] != tt.problems[0]) {
			t.Errorf("ParseIndexRow(%q, %q, %q): %v, want problems on %v", tt.indicator, tt.month, tt.rate, ps, tt.problems)
		}
	}
}

// TestLoadIndicesKeepsTheSeriesUntilAWrite: LoadIndices gives the series
// it read again, without reading them, while no write changed them; a
// write through the API is seen by the next load, a transaction's own
// write by its loads only, and a rolled-back one by none. Not parallel:
// the series kept are the process's, which parallel tests on other
// databases would replace between two loads.
func TestLoadIndicesKeepsTheSeriesUntilAWrite(t *testing.T) {
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	load := func(db storage.DBTX) finance.Indices {
		t.Helper()
		idx, err := storage.LoadIndices(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		return idx
	}
	same := func(a, b finance.Indices) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	upsert := func(db storage.DBTX, month finance.Month, rate string) storage.UpsertResult {
		t.Helper()
		res, err := storage.UpsertIndices(ctx, db, []storage.IndexRow{{Indicator: "IPCA", Month: month,
			Rate: decimal.RequireFromString(rate)}}, storage.IndexAPI, storage.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	jan, feb := finance.NewMonth(2031, 1), finance.NewMonth(2031, 2)
	first := load(pool)
	if _, ok := first[finance.IPCA][jan]; ok || len(first[finance.IPCA]) == 0 {
		t.Fatalf("IPCA as shipped: %d months, 2031-01 among them: %v", len(first[finance.IPCA]), ok)
	}
	if !same(load(pool), first) {
		t.Error("a second load with no write between read the series again")
	}

	upsert(pool, jan, "0.31")
	afterWrite := load(pool)
	if v, ok := afterWrite[finance.IPCA][jan]; !ok || v.String() != "0.31" {
		t.Errorf("after the write of IPCA 2031-01: %v (stored: %v)", v, ok)
	}
	if res := upsert(pool, jan, "0.31"); res.Unchanged != 1 || !same(load(pool), afterWrite) {
		t.Errorf("a write that changes nothing (%+v) gave the series a new version", res)
	}

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	upsert(tx, feb, "0.42")
	if _, ok := load(tx)[finance.IPCA][feb]; !ok {
		t.Error("the transaction's own write of IPCA 2031-02 not loaded in it")
	}
	if _, ok := load(pool)[finance.IPCA][feb]; ok {
		t.Error("a write not committed loaded outside its transaction")
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if idx := load(pool); !func() bool { _, ok := idx[finance.IPCA][feb]; return !ok }() || idx[finance.IPCA][jan].String() != "0.31" {
		t.Error("after the rollback the series are not the committed ones")
	}
}
