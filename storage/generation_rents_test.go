package storage_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// rentIndices is an IPCA series from 2024-01 to 2026-12, zero every month
// but 2025-01 (+2.00 %) and 2026-01 (+3.285 %): the readjustment of
// 2026-11-01 takes 1,800.00 to 1,859.13 (× 1.03285); that of 2025-11-01
// 1,800.00 to 1,836.00 (× 1.02), then 2026-11-01's 1,836.00 to 1,896.31
// (× 1.03285, rounded).
func rentIndices() finance.Indices {
	s := finance.Series{}
	for m := finance.NewMonth(2024, 1); m <= finance.NewMonth(2026, 12); m++ {
		s[m] = decimal.Zero
	}
	s[finance.NewMonth(2025, 1)] = decimal.RequireFromString("2.00")
	s[finance.NewMonth(2026, 1)] = decimal.RequireFromString("3.285")
	return finance.Indices{finance.IPCA: s}
}

// readjustedLease inserts the contract of the defect: a rent of 1,800.00
// from 2025-11-01, calendar months billed ahead, due on the 5th,
// readjusted every 12 months by IPCA (first on 2026-11-01).
func (f *genFixture) readjustedLease(t *testing.T) int64 {
	t.Helper()
	return f.leaseFrom(t, "2025-11-01")
}

// leaseFrom is readjustedLease started on start (the 1st of a month).
func (f *genFixture) leaseFrom(t *testing.T, start string) int64 {
	t.Helper()
	return f.contract(t, `start_at = '`+start+`', amount = 1800.00, due_date = '`+start+`'::date + 4, due_day = 5,
		billing_timing = 'pre', readjust_active = true, readjust_indicator = 'IPCA', readjust_with = 12`)
}

// readjust readjusts contract id on date as the contract operation does
// (every step due by then), and commits.
func (f *genFixture) readjust(t *testing.T, id int64, date string) []storage.ContractReadjustment {
	t.Helper()
	var out []storage.ContractReadjustment
	err := pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error {
		var err error
		out, err = storage.ReadjustContracts(context.Background(), tx, rentIndices(), storage.ReadjustSelection{
			CompanyID: f.company, Date: finance.MustDate(date), ContractID: id, Actor: storage.Actor{Kind: storage.ActorJob, ID: 1}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rentLines are the amounts of the invoices' lines booked as item, by
// period start ("2025-11-01 1800.00"), in the order generated.
func rentLines(gen storage.Generation, item int64) []string {
	var out []string
	for _, inv := range gen.Invoices {
		for _, l := range inv.Items {
			if l.ItemID == item {
				out = append(out, inv.PeriodInitial.String()+" "+l.Amount.StringFixed(2))
			}
		}
	}
	return out
}

// monthly is one "period amount" entry per month from first, n months of
// amount.
func monthly(first string, n int, amount string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = finance.MustDate(first).AddMonths(i).String() + " " + amount
	}
	return out
}

func totalOf(gen storage.Generation) decimal.Decimal {
	sum := decimal.Zero
	for _, inv := range gen.Invoices {
		sum = sum.Add(inv.Total)
	}
	return sum
}

// previewThenRun previews the generation of id up to until, runs it, and
// checks that the run stored what the preview showed, field by field.
func (f *genFixture) previewThenRun(t *testing.T, id int64, until string) storage.Generation {
	t.Helper()
	preview := generate(t, f.pool, f.company, []int64{id}, until, true)
	run := generate(t, f.pool, f.company, []int64{id}, until, false)
	want := make([]string, len(preview.Invoices))
	for i, inv := range preview.Invoices {
		want[i] = describeInvoice(inv)
	}
	if got := storedInvoices(t, f.pool, f.company, run.Created); !slices.Equal(got, want) {
		t.Errorf("the run stored\n%s\nthe preview showed\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return preview
}

// TestPeriodsBeforeAReadjustmentBillTheirRent is the defect as found: a
// contract started 2025-11-01 and readjusted on 2026-11-01 (1,800.00 →
// 1,859.13), its invoices then generated from its start. The twelve
// periods before the readjustment bill 1,800.00, those from 2026-11 on
// 1,859.13, in the preview and in what the run stores.
func TestPeriodsBeforeAReadjustmentBillTheirRent(t *testing.T) {
	t.Parallel()
	f := newGenFixture(t)
	id := f.readjustedLease(t)
	rs := f.readjust(t, id, "2026-11-01")
	if len(rs) != 1 || rs[0].Outcome != finance.ReadjustApplied || rs[0].NewAmount.StringFixed(2) != "1859.13" {
		t.Fatalf("readjustments %+v, want one to 1859.13", rs)
	}
	gen := f.previewThenRun(t, id, "2026-11-30")
	want := append(monthly("2025-11-01", 12, "1800.00"), "2026-11-01 1859.13")
	if got := rentLines(gen, f.b.RentItem); !slices.Equal(got, want) {
		t.Errorf("rent lines\n%v\nwant\n%v", got, want)
	}
	if sum := totalOf(gen); sum.StringFixed(2) != "23459.13" { // 12 × 1,800.00 + 1,859.13
		t.Errorf("the %d invoices total %s, want 23459.13", len(gen.Invoices), sum.StringFixed(2))
	}
}

// TestTwoReadjustmentsInARow: a contract started 2024-11-01 readjusted on
// 2025-11-01 and 2026-11-01 (both steps taken by one call on 2026-11-01,
// the contract two periods behind) bills 1,800.00, 1,836.00 and 1,896.31
// in the three years; its 10 % item follows the rent of each period, its
// fixed item does not move.
func TestTwoReadjustmentsInARow(t *testing.T) {
	t.Parallel()
	f := newGenFixture(t)
	id := f.leaseFrom(t, "2024-11-01")
	f.exec(t, `INSERT INTO contract_items (company_id, contract_id, mode, item_id, description, calculate_mode, amount,
			percentage, percentage_mode)
		VALUES ($1, $2, 'item', $3, 'Condomínio', 'fixed', 350.00, 0, 'rental_value'),
		       ($1, $2, 'service', $3, 'Seguro', 'percentage', 0, 10, 'rental_value')`, id, f.b.CondoItem)
	if rs := f.readjust(t, id, "2026-11-01"); len(rs) != 2 || rs[0].NewAmount.StringFixed(2) != "1836.00" ||
		rs[1].NewAmount.StringFixed(2) != "1896.31" {
		t.Fatalf("readjustments %+v, want two, to 1836.00 and 1896.31", rs)
	}
	gen := f.previewThenRun(t, id, "2026-11-30")
	want := append(append(monthly("2024-11-01", 12, "1800.00"), monthly("2025-11-01", 12, "1836.00")...), "2026-11-01 1896.31")
	if got := rentLines(gen, f.b.RentItem); !slices.Equal(got, want) {
		t.Errorf("rent lines\n%v\nwant\n%v", got, want)
	}
	var pct []string
	for _, inv := range gen.Invoices {
		pct = append(pct, inv.Items[len(inv.Items)-1].Amount.StringFixed(2))
	}
	wantPct := append(append(slices.Repeat([]string{"180.00"}, 12), slices.Repeat([]string{"183.60"}, 12)...), "189.63")
	if !slices.Equal(pct, wantPct) {
		t.Errorf("the 10 %% item\n%v\nwant\n%v", pct, wantPct)
	}
	// rent 12 × 1,800.00 + 12 × 1,836.00 + 1,896.31 = 45,528.31; the item
	// 12 × 180.00 + 12 × 183.60 + 189.63 = 4,552.83; the fixed item 25 × 350.00
	if sum := totalOf(gen); sum.StringFixed(2) != "58831.14" {
		t.Errorf("the %d invoices total %s, want 58831.14", len(gen.Invoices), sum.StringFixed(2))
	}
}

// TestRentEditedByHandAfterAReadjustment: the rent edited by hand after
// the readjustment (current_amount 1,900.00) is billed from the
// readjustment on; the periods before it keep the rent the readjustment
// found. An item edited by hand has no history: every period generated
// after the edit bills its new amount.
func TestRentEditedByHandAfterAReadjustment(t *testing.T) {
	t.Parallel()
	f := newGenFixture(t)
	id := f.readjustedLease(t)
	f.exec(t, `INSERT INTO contract_items (company_id, contract_id, mode, item_id, description, calculate_mode, amount)
		VALUES ($1, $2, 'item', $3, 'Condomínio', 'fixed', 350.00)`, id, f.b.CondoItem)
	f.readjust(t, id, "2026-11-01")
	f.exec(t, `UPDATE contracts SET current_amount = 1900.00 WHERE company_id = $1 AND id = $2`, id)
	f.exec(t, `UPDATE contract_items SET amount = 400.00 WHERE company_id = $1 AND contract_id = $2`, id)
	gen := f.previewThenRun(t, id, "2026-12-31")
	want := append(monthly("2025-11-01", 12, "1800.00"), "2026-11-01 1900.00", "2026-12-01 1900.00")
	if got := rentLines(gen, f.b.RentItem); !slices.Equal(got, want) {
		t.Errorf("rent lines\n%v\nwant\n%v", got, want)
	}
	if got, want := rentLines(gen, f.b.CondoItem), monthly("2025-11-01", 14, "400.00"); !slices.Equal(got, want) {
		t.Errorf("item lines\n%v\nwant\n%v", got, want)
	}
}

// TestNeverReadjustedBillsItsCurrentRent: a contract with no readjustment
// stored bills its current rent in every period, current_amount set by
// hand included; the readjustment of another contract of the same batch
// (before and after it in id order) changes nothing of it, and each
// readjusted one bills its own history.
func TestNeverReadjustedBillsItsCurrentRent(t *testing.T) {
	t.Parallel()
	f := newGenFixture(t)
	first, plain, last := f.readjustedLease(t), f.readjustedLease(t), f.leaseFrom(t, "2024-11-01")
	f.exec(t, `UPDATE contracts SET current_amount = 1950.00 WHERE company_id = $1 AND id = $2`, plain)
	f.readjust(t, first, "2026-11-01")
	f.readjust(t, last, "2026-11-01")
	gen := generate(t, f.pool, f.company, []int64{first, plain, last}, "2026-11-30", true)
	lines := map[int64][]string{}
	for _, inv := range gen.Invoices {
		lines[inv.ContractID] = append(lines[inv.ContractID], inv.PeriodInitial.String()+" "+inv.Items[0].Amount.StringFixed(2))
	}
	for _, c := range []struct {
		id   int64
		want []string
	}{
		{plain, monthly("2025-11-01", 13, "1950.00")},
		{first, append(monthly("2025-11-01", 12, "1800.00"), "2026-11-01 1859.13")},
		{last, append(append(monthly("2024-11-01", 12, "1800.00"), monthly("2025-11-01", 12, "1836.00")...), "2026-11-01 1896.31")},
	} {
		if !slices.Equal(lines[c.id], c.want) {
			t.Errorf("rent lines of contract %d\n%v\nwant\n%v", c.id, lines[c.id], c.want)
		}
	}
}

// TestTerminationBillsTheRentOfItsPeriod: a contract readjusted on
// 2026-11-01 and terminated on 2026-10-15 (recorded late): the final
// invoice prorates October's rent, 1,800.00 × 15 / 31 = 870.97, not the
// readjusted one's 899.58.
func TestTerminationBillsTheRentOfItsPeriod(t *testing.T) {
	t.Parallel()
	f := newGenFixture(t)
	id := f.readjustedLease(t)
	f.exec(t, `UPDATE contracts SET proportional = true WHERE company_id = $1 AND id = $2`, id)
	f.readjust(t, id, "2026-11-01")
	out, err := storage.TerminateContract(context.Background(), f.pool, storage.Scope{CompanyID: f.company}, id,
		storage.TerminationRequest{At: finance.MustDate("2026-10-15"), Requester: finance.RequesterMutual, Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Final == nil {
		t.Fatal("no final invoice")
	}
	var rent []string
	for _, l := range out.Final.Items {
		if l.ItemID == f.b.RentItem {
			rent = append(rent, l.Amount.StringFixed(2))
		}
	}
	if !slices.Equal(rent, []string{"870.97"}) || out.Final.PeriodInitial.String() != "2026-10-01" {
		t.Errorf("final invoice %s..%s rent %v, want 2026-10-01.. rent [870.97]", out.Final.PeriodInitial, out.Final.PeriodFinal, rent)
	}
}
