package storage_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// feeContract makes the ledger fixture's contract billable (docs/ledger.md's
// worked example: rent 2,000.00 from 2024-03-01, due on the 10th, in
// advance, transferred to the owners on the day the money is credited)
// with a condominium of 350.00 and an administration fee of 10% of the
// rent (an item of type commission, owner → business) of the mode given,
// with the contract's settings set after.
func (f *ledgerFixture) feeContract(t *testing.T, mode, set string) {
	t.Helper()
	f.setContract(t, fmt.Sprintf(`business_id = %d, account_id = %d, billing_method = 'ticket', start_at = '2024-03-01',
		recurrency = 'monthly', modality = 'monthly', amount = 2000.00, due_date = '2024-03-10', due_day = 10,
		billing_timing = 'pre', proportional = true, transfer_mode = 'after_receive', transfer_after_days = 0`, f.business, f.account))
	if set != "" {
		f.setContract(t, set)
	}
	f.exec(t, `UPDATE transaction_items SET type = 'commission' WHERE company_id = $1 AND id = $2`, f.admin)
	f.exec(t, `INSERT INTO contract_items (company_id, contract_id, mode, item_id, description, calculate_mode, amount)
		VALUES ($1, $2, 'item', $3, 'Condomínio', 'fixed', 350.00)`, f.contract, f.condo)
	f.exec(t, `INSERT INTO contract_items (company_id, contract_id, mode, item_id, description, calculate_mode, percentage, percentage_mode)
		VALUES ($1, $2, $3, $4, 'Taxa de administração', 'percentage', 10, 'rental_value')`, f.contract, mode, f.admin)
}

// generateFee previews then generates the contract's invoices up to until:
// the run inserts what the preview showed; the invoices as
// "total [item amount]...", the items named.
func (f *ledgerFixture) generateFee(t *testing.T, until string) (ids []int64, invoices []string) {
	t.Helper()
	preview := generate(t, f.pool, f.company, []int64{f.contract}, until, true)
	if err := preview.ContractError(f.contract); err != nil {
		t.Fatalf("the contract cannot be billed: %v", err)
	}
	run := generate(t, f.pool, f.company, []int64{f.contract}, until, false)
	want := make([]string, len(preview.Invoices))
	for i, inv := range preview.Invoices {
		want[i] = describeInvoice(inv)
	}
	if got := storedInvoices(t, f.pool, f.company, run.Created); !slices.Equal(got, want) {
		t.Fatalf("the run inserted\n%q\nthe preview showed\n%q", got, want)
	}
	names := map[int64]string{f.rent: "rent", f.condo: "condo", f.admin: "admin"}
	for _, inv := range preview.Invoices {
		s := inv.PeriodInitial.String() + " total " + inv.Total.StringFixed(2)
		for _, l := range inv.Items {
			s += fmt.Sprintf(" [%s %s]", names[l.ItemID], l.Amount.StringFixed(2))
		}
		invoices = append(invoices, s)
	}
	return run.Created, invoices
}

// TestGenerateAdministrationFee: a contract's administration fee, a
// contract item of an owner → business item, is a line of each generated
// invoice outside its total; paid, the invoice posts docs/ledger.md's
// worked example (without the late fee: paid on its due date), and the
// owners' transfer pays them the rent less the fee. The same declared as
// mode commission.
func TestGenerateAdministrationFee(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"item", "commission"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			f := newLedgerFixture(t)
			f.feeContract(t, mode, "")
			ids, invoices := f.generateFee(t, "2024-03-10")
			checkStrings(t, "invoices", invoices, []string{"2024-03-01 total 2350.00 [rent 2000.00] [condo 350.00] [admin 200.00]"})
			f.pay(t, ids[0], "2024-03-10", "2024-03-10")
			rows := f.entries(t, ids[0])
			var got []string
			for _, r := range rows {
				got = append(got, f.line(r))
			}
			checkStrings(t, "entries", got, []string{
				"debit payer 2000.00 rent", "credit owner60 1200.00 rent", "credit owner40 800.00 rent",
				"debit payer 350.00 condo", "credit owner60 210.00 condo", "credit owner40 140.00 condo",
				"debit owner60 120.00 admin", "debit owner40 80.00 admin", "credit business 200.00 admin",
			})
			checkBalanced(t, rows)
			if b := f.balances(rows); fmt.Sprint(b) != fmt.Sprint(map[string]string{
				"payer": "-2350.00", "owner60": "1290.00", "owner40": "860.00", "business": "200.00"}) {
				t.Errorf("balances %v", b)
			}
			f.transfer(t, "2024-03-10", 1)
			checkStrings(t, "transfers", f.transfers(t), []string{
				"owner60 1290.00 2024-03-10 2024-03-10 3", "owner40 860.00 2024-03-10 2024-03-10 3"})
		})
	}
}

// TestGenerateAdministrationFeeProrated: on a partial first month the fee
// is 10% of the prorated rent; an odd rent's fee rounds to the cent and
// its owners' shares add up to it.
func TestGenerateAdministrationFeeProrated(t *testing.T) {
	t.Parallel()
	t.Run("a partial first month", func(t *testing.T) {
		t.Parallel()
		f := newLedgerFixture(t)
		// 2,000.00 × 17/31 = 1,096.774… → 1,096.77; its 10% 109.677 → 109.68
		f.feeContract(t, "item", "start_at = '2024-03-15', due_date = '2024-03-15'")
		_, invoices := f.generateFee(t, "2024-04-10")
		checkStrings(t, "invoices", invoices, []string{
			"2024-03-15 total 1446.77 [rent 1096.77] [condo 350.00] [admin 109.68]",
			"2024-04-01 total 2350.00 [rent 2000.00] [condo 350.00] [admin 200.00]",
		})
	})
	t.Run("an odd rent", func(t *testing.T) {
		t.Parallel()
		f := newLedgerFixture(t)
		// 10% of 1,859.13 = 185.913 → 185.91; 60% of it 111.546 → 111.54 and
		// the cent left to the largest share, 40% 74.364 → 74.36
		f.feeContract(t, "item", "amount = 1859.13")
		ids, invoices := f.generateFee(t, "2024-03-10")
		checkStrings(t, "invoices", invoices, []string{"2024-03-01 total 2209.13 [rent 1859.13] [condo 350.00] [admin 185.91]"})
		f.pay(t, ids[0], "2024-03-10", "2024-03-10")
		var fee []string
		for _, r := range f.entries(t, ids[0]) {
			if l := f.line(r); r.item == fmt.Sprint(f.admin) {
				fee = append(fee, l)
			}
		}
		checkStrings(t, "the fee's entries", fee, []string{
			"debit owner60 111.55 admin", "debit owner40 74.36 admin", "credit business 185.91 admin"})
	})
}

// TestGenerateRefusesLinesThatChargeNoOne: a contract item whose item
// charges neither the payer nor is the owners' fee for the business is
// named, and nothing is generated for its contract; a fee that is a share
// of a commission base is named rather than left unbilled.
func TestGenerateRefusesLinesThatChargeNoOne(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.feeContract(t, "item", "")
	item := func(description, debit, credit string) int64 {
		var id int64
		if err := f.pool.QueryRow(context.Background(), `INSERT INTO transaction_items (company_id, description, debit, credit)
			VALUES ($1, $2, $3, $4) RETURNING id`, f.company, description, debit, credit).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	refund, broker := item("Reembolso ao proprietário", "business", "owner"), item("Corretagem", "owner", "broker")
	rebate := item("Desconto da imobiliária", "business", "customer")
	add := `INSERT INTO contract_items (company_id, contract_id, mode, item_id, amount) VALUES ($1, $2, $3, $4, 50)`
	tests := []struct {
		name, sql      string
		args           []any
		field, message string
	}{
		{"business to owner", add, []any{"item", refund},
			"items[2].item_id", fmt.Sprintf("transaction item %d debits business and credits owner", refund)},
		{"owner to broker, mode service", add, []any{"service", broker},
			"items[2].item_id", fmt.Sprintf("transaction item %d debits owner and credits broker", broker)},
		{"business to customer: neither charges the payer nor is the owners' withholding", add, []any{"item", rebate},
			"items[2].item_id", fmt.Sprintf("transaction item %d debits business and credits customer", rebate)},
		{"a fee of the recurring commission", `UPDATE contract_items SET mode = 'commission', percentage_mode = 'recurring_commission'
			WHERE company_id = $1 AND contract_id = $2 AND description = 'Taxa de administração'`, nil,
			"items[1].item_id", "percentage_mode must be rental_value or empty, not recurring_commission"},
	}
	for _, tc := range tests {
		err := pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(context.Background(), tc.sql, append([]any{f.company, f.contract}, tc.args...)...); err != nil {
				return err
			}
			gen, err := storage.GenerateInvoices(context.Background(), tx, f.company, []int64{f.contract}, finance.MustDate("2024-03-10"),
				storage.GenerateOptions{})
			if err != nil {
				return err
			}
			var coded *finance.Error
			if !asCoded(gen.ContractError(f.contract), &coded) || !hasProblem(coded.Problems, tc.field, tc.message) {
				t.Errorf("%s: %v, want %s: …%s…", tc.name, coded, tc.field, tc.message)
			} else if len(gen.Created) != 0 {
				t.Errorf("%s: %d invoices created", tc.name, len(gen.Created))
			}
			return errRollback
		})
		if err != errRollback {
			t.Fatal(err)
		}
	}
}

var errRollback = fmt.Errorf("rolled back")
