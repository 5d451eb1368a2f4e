package storage_test

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
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
