package storage_test

import (
	"context"
	"os"
	"testing"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestBillingTimingDefault: a contract's billing_timing_effective is what
// the schedule rule bills a contract without billing_timing by
// (finance.DefaultBillingTiming), for every contract type.
func TestBillingTimingDefault(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	for _, typ := range storage.ContractTypes {
		var got string
		err := pool.QueryRow(context.Background(), `SELECT `+storage.BillingTimingDefault+
			` FROM (VALUES ($1::text)) AS t("type")`, typ).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		if want := finance.DefaultBillingTiming(finance.ContractType(typ)); got != string(want) {
			t.Errorf("%s: %s, want %s", typ, got, want)
		}
	}
}

// TestReadjustAtDerived: the readjustment date read for a contract
// without readjust_at (readjust_at_effective, and the run's choice of due
// contracts) is the rule's: readjusted_at, else start_at, plus
// readjust_with months, a month's end kept as finance.Date.AddMonths
// keeps it.
func TestReadjustAtDerived(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	cases := []struct {
		start, readjusted string
		with              any
	}{
		{"2024-07-01", "", 12}, {"2024-01-31", "", 1}, {"2023-01-31", "", 13}, {"2024-02-29", "", 12},
		{"2023-05-10", "2024-05-10", 12}, {"2024-08-31", "", 6}, {"2024-03-15", "", nil},
	}
	for _, c := range cases {
		var readjusted any
		if c.readjusted != "" {
			readjusted = c.readjusted
		}
		var got string
		err := pool.QueryRow(context.Background(), `SELECT (`+storage.ReadjustAtDerived+`)::text
			FROM (VALUES ($1::date, $2::date, $3::integer)) AS t("start_at", "readjusted_at", "readjust_with")`,
			c.start, readjusted, c.with).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		from := finance.MustDate(c.start)
		if c.readjusted != "" {
			from = finance.MustDate(c.readjusted)
		}
		with, _ := c.with.(int)
		want, _ := finance.Readjust(finance.Contract{Type: finance.ContractRent, Active: finance.ActiveActive,
			Status: finance.StatusProgress, StartAt: finance.MustDate(c.start), ReadjustedAt: dateOrZero(c.readjusted),
			ReadjustActive: true, ReadjustIndicator: finance.IPCA, ReadjustWith: with}, nil, from, finance.ReadjustOptions{})
		if got != want.ReadjustAt.String() {
			t.Errorf("start %s, readjusted %q, every %v months: %s, want %s", c.start, c.readjusted, c.with, got, want.ReadjustAt)
		}
	}
}

func dateOrZero(s string) finance.Date {
	if s == "" {
		return finance.Date{}
	}
	return finance.MustDate(s)
}

// TestStoredDefaultsMigration: migration 0028 gives the contracts and
// contract items written before it the defaults their nulls were read
// as, keeps every value that was set, and leaves the columns NOT NULL
// with those defaults.
func TestStoredDefaultsMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Antiga")
	migration, err := os.ReadFile("migrations/0028_stored_defaults.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ALTER TABLE contracts ALTER modality DROP NOT NULL, ALTER modality DROP DEFAULT,
			ALTER readjust_with DROP NOT NULL, ALTER readjust_with DROP DEFAULT,
			ALTER transfer_mode DROP NOT NULL, ALTER transfer_mode DROP DEFAULT;
		ALTER TABLE contract_items ALTER calculate_mode DROP NOT NULL, ALTER calculate_mode DROP DEFAULT,
			ALTER percentage_mode DROP NOT NULL, ALTER percentage_mode DROP DEFAULT`); err != nil {
		t.Fatal(err)
	}
	bare := f.contract(t)
	set := f.id(t, `INSERT INTO contracts (company_id, type, tenant_id, modality, readjust_with, transfer_mode)
		VALUES ($1, 'rent', $2, 'monthly', 6, 'after_receive') RETURNING id`, f.payer)
	bareItem := f.id(t, `INSERT INTO contract_items (company_id, contract_id) VALUES ($1, $2) RETURNING id`, bare)
	setItem := f.id(t, `INSERT INTO contract_items (company_id, contract_id, calculate_mode, percentage_mode)
		VALUES ($1, $2, 'percentage', 'first_commission') RETURNING id`, bare)
	if _, err := pool.Exec(ctx, string(migration)); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64]string{bare: "start 12 manually", set: "monthly 6 after_receive"} {
		var got string
		if err := pool.QueryRow(ctx, `SELECT concat_ws(' ', modality, readjust_with, transfer_mode) FROM contracts
			WHERE company_id = $1 AND id = $2`, f.company, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("contract %d: %s, want %s", id, got, want)
		}
	}
	for id, want := range map[int64]string{bareItem: "fixed rental_value", setItem: "percentage first_commission"} {
		var got string
		if err := pool.QueryRow(ctx, `SELECT concat_ws(' ', calculate_mode, percentage_mode) FROM contract_items
			WHERE company_id = $1 AND id = $2`, f.company, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("contract item %d: %s, want %s", id, got, want)
		}
	}
	newer := f.contract(t)
	var got string
	if err := pool.QueryRow(ctx, `SELECT concat_ws(' ', modality, readjust_with, transfer_mode) FROM contracts
		WHERE company_id = $1 AND id = $2`, f.company, newer).Scan(&got); err != nil || got != "start 12 manually" {
		t.Errorf("a contract inserted after the migration: %q (%v), want the defaults", got, err)
	}
	if _, err := pool.Exec(ctx, `UPDATE contracts SET modality = NULL WHERE company_id = $1 AND id = $2`, f.company, newer); err == nil {
		t.Error("a null modality is stored after the migration")
	}
}
