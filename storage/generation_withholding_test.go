package storage_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/finance/statement"
	"github.com/propfin/propfin/storage"
)

// TestGenerateWithholding: a company tenant withholds the income tax
// (IRRF) on a rent of 8,000.00: the contract item of 474.46 on the duty
// item (debit owner, credit customer) is a line of each generated
// invoice, which charges 7,525.54; paid, it debits the owners their
// shares of the tax (60/40) and credits the tenant, the owners are
// transferred the rent less it, and the owner's income report counts it
// as IR withheld, as it counts a line written on an invoice by hand, and
// the DIMOB as tax withheld.
func TestGenerateWithholding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newLedgerFixture(t)
	f.setContract(t, fmt.Sprintf(`business_id = %d, account_id = %d, billing_method = 'ticket', start_at = '2024-03-01',
		recurrency = 'monthly', modality = 'monthly', amount = 8000.00, due_date = '2024-03-10', due_day = 10,
		billing_timing = 'pre', proportional = true, transfer_mode = 'after_receive', transfer_after_days = 0, dimob = true`,
		f.business, f.account))
	var irrf int64
	if err := f.pool.QueryRow(ctx, `INSERT INTO transaction_items (company_id, description, debit, credit, type)
		VALUES ($1, 'IRRF retido', 'owner', 'customer', 'duty') RETURNING id`, f.company).Scan(&irrf); err != nil {
		t.Fatal(err)
	}
	f.exec(t, `INSERT INTO contract_items (company_id, contract_id, mode, item_id, description, calculate_mode, amount)
		VALUES ($1, $2, 'item', $3, 'IRRF retido', 'fixed', 474.46)`, f.contract, irrf)

	ids, invoices := f.generateFee(t, "2024-04-10")
	for i := range invoices { // generateFee names the fixture's items only
		invoices[i] = strings.ReplaceAll(invoices[i], "[ ", "[irrf ")
	}
	checkStrings(t, "invoices", invoices, []string{
		"2024-03-01 total 7525.54 [rent 8000.00] [irrf 474.46]",
		"2024-04-01 total 7525.54 [rent 8000.00] [irrf 474.46]",
	})

	f.pay(t, ids[0], "2024-03-08", "2024-03-08")
	rows := f.entries(t, ids[0])
	var got []string
	for _, r := range rows {
		l := f.line(r)
		if r.item == fmt.Sprint(irrf) {
			l += "irrf"
		}
		got = append(got, l)
	}
	// 474.46 × 60% = 284.676 and × 40% = 189.784: 284.67 + 189.78, the
	// cent left to the largest share
	checkStrings(t, "entries", got, []string{
		"debit payer 8000.00 rent", "credit owner60 4800.00 rent", "credit owner40 3200.00 rent",
		"debit owner60 284.68 irrf", "debit owner40 189.78 irrf", "credit payer 474.46 irrf",
	})
	checkBalanced(t, rows)
	if b := f.balances(rows); fmt.Sprint(b) != fmt.Sprint(map[string]string{
		"payer": "-7525.54", "owner60": "4515.32", "owner40": "3010.22"}) {
		t.Errorf("balances %v", b)
	}
	f.transfer(t, "2024-03-08", 1)
	checkStrings(t, "transfers", f.transfers(t), []string{
		"owner60 4515.32 2024-03-08 2024-03-08 2", "owner40 3010.22 2024-03-08 2024-03-08 2"})

	err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		_, err := storage.CloseOwnerStatements(ctx, tx, f.company, 0, finance.MonthOf(finance.MustDate("2024-03-01")))
		return err
	})
	if err != nil {
		t.Fatalf("close 2024-03: %v", err)
	}
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	for owner, want := range map[int64]statement.IncomeMonth{
		f.owner60: {Gross: 480000, Withheld: 28468},
		f.owner40: {Gross: 320000, Withheld: 18978},
	} {
		r, err := store.IncomeReports(ctx, f.company, storage.IncomeQuery{Year: 2024, OwnerID: owner})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Owners) != 1 {
			t.Fatalf("owner %d: %d reports", owner, len(r.Owners))
		}
		year := statement.BuildIncome(2024, r.Owners[0].Lines)
		if year.Months[2] != want || year.Total != want {
			t.Errorf("owner %d: March %+v, year %+v; want %+v (IR withheld %d cents)", owner, year.Months[2], year.Total, want, want.Withheld)
		}
	}
	var year *storage.DimobYear
	if err := inTx(t, f.pool, func(tx pgx.Tx) error {
		var err error
		year, err = storage.ReadDimobYear(ctx, tx, f.company, f.business, 2024)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, r := range year.Rentals {
		m := r.Months[2]
		got = append(got, fmt.Sprintf("%s rent %s tax %s", f.names["owner "+fmt.Sprint(r.Owner.ID)], m.Rent.StringFixed(2), m.TaxWithheld.StringFixed(2)))
	}
	slices.Sort(got)
	checkStrings(t, "the DIMOB's March", got, []string{"owner40 rent 3200.00 tax 189.78", "owner60 rent 4800.00 tax 284.68"})
}
