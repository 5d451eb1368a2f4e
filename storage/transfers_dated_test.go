package storage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
)

// The transfer run on day D pays out a payment's debit (its fee) when
// that payment's credits fall due, and any other debit once it is dated
// on or before D (docs/ledger.md, "What is transferred, and when"), on
// the part payments' example (rent 1,500.00 to the owners 60/40, a fee
// of 10 %) and on the worked example's invoice.

// TestTransferLeavesALaterPartsFee: part 1 (1,000.00) credited two days
// before the run, part 2 (the rest, 500.00) paid on the run's day and
// credited a week later. The run of the day pays part 1's credits less
// part 1's fee only (540.00 and 360.00), not part 2's fee dated the week
// after; the run of that day pays part 2's credits less its fee (270.00
// and 180.00), and every owner is at 0.00.
func TestTransferLeavesALaterPartsFee(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, `transfer_mode = 'after_receive', transfer_after_days = 0`)
	inv := f.partInvoice(t, "2024-03-10")
	if _, err := f.payPart(t, inv, "1000.00", "2024-03-08", "2024-03-08"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.payPart(t, inv, "500.00", "2024-03-10", "2024-03-17"); err != nil {
		t.Fatal(err)
	}
	if got := f.partState(t, inv); !strings.HasPrefix(got, "paid true") {
		t.Fatalf("the rest paid: %q", got)
	}
	if s := f.transfer(t, "2024-03-10", 1); s.Transfers != 2 || s.Amount.String() != "900.00" {
		t.Errorf("the run of the day: %+v", s)
	}
	checkStrings(t, "the run of the day", f.transfers(t), []string{
		"owner60 540.00 2024-03-10 2024-03-08 2", // part 1: rent 600.00, fee 60.00
		"owner40 360.00 2024-03-10 2024-03-08 2",
	})
	checkStrings(t, "waiting for 2024-03-17", f.unpaidOut(t, inv), []string{
		"invoice credit owner60 300.00", "invoice credit owner40 200.00",
		"invoice debit owner60 30.00", "invoice debit owner40 20.00",
	})
	if s := f.transfer(t, "2024-03-16", 1); s.Transfers != 0 {
		t.Errorf("the day before the rest's credit: %+v", s)
	}
	if s := f.transfer(t, "2024-03-17", 1); s.Transfers != 2 || s.Amount.String() != "450.00" {
		t.Errorf("the rest's credit day: %+v", s)
	}
	checkStrings(t, "transfers", f.transfers(t), []string{
		"owner60 540.00 2024-03-10 2024-03-08 2",
		"owner40 360.00 2024-03-10 2024-03-08 2",
		"owner60 270.00 2024-03-17 2024-03-17 2",
		"owner40 180.00 2024-03-17 2024-03-17 2",
	})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "150.00",
		"payer": "-1500.00"})
}

// TestGuaranteeReleaseLeavesALaterPartsFee: a guaranteed invoice (5
// release days) whose part 1 is paid on its due date and credited after
// the release. The release's run advances the rest's share (270.00 and
// 180.00) and pays it out whole, without part 1's fee, dated the credit
// day; the run of that day pays part 1 out (540.00 and 360.00).
func TestGuaranteeReleaseLeavesALaterPartsFee(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, `transfer_mode = 'after_receive', transfer_after_days = 0, guaranteed_transfer = true,
		guaranteed_transfer_release_after_days = 5`)
	inv := f.partInvoice(t, "2024-03-10")
	if _, err := f.payPart(t, inv, "1000.00", "2024-03-10", "2024-03-17"); err != nil {
		t.Fatal(err)
	}
	if s := f.transfer(t, "2024-03-10", 1); s.Transfers != 0 || s.Guarantees != 0 {
		t.Errorf("the part's night: %+v", s)
	}
	s := f.transfer(t, "2024-03-15", 1)
	if s.Guarantees != 1 || s.Guaranteed.String() != "450.00" || s.Transfers != 2 || s.Amount.String() != "450.00" {
		t.Errorf("the release: %+v", s)
	}
	if s := f.transfer(t, "2024-03-17", 1); s.Transfers != 2 || s.Amount.String() != "900.00" {
		t.Errorf("the part's credit day: %+v", s)
	}
	checkStrings(t, "transfers", f.transfers(t), []string{
		"owner60 270.00 2024-03-15 2024-03-15 1", // the guarantee's credit alone
		"owner40 180.00 2024-03-15 2024-03-15 1",
		"owner60 540.00 2024-03-17 2024-03-17 2",
		"owner40 360.00 2024-03-17 2024-03-17 2",
	})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "-350.00",
		"payer": "-1000.00"})
}

// TestPastDateRunAfterAnUndo: runs for a past date asked after a part
// was undone (today). A part undone before any run paid it is left out
// with its reversal (the run pays part 1 only: 540.00 and 360.00), and
// the pair nets to zero in the runs after. A part undone after the run
// paid it out has its whole reversal counted at once, the fee's credit
// with the rent's debit: a new part of 400.00 is paid out less what the
// owners owe (216.00 − 162.00 = 54.00 and 144.00 − 108.00 = 36.00), and
// nothing of the reversal is left for a later run.
func TestPastDateRunAfterAnUndo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newLedgerFixture(t)
	sc := storage.Scope{CompanyID: f.company}
	f.setContract(t, `transfer_mode = 'after_receive', transfer_after_days = 1`)
	inv := f.partInvoice(t, "2024-03-10")
	if _, err := f.payPart(t, inv, "1000.00", "2024-03-10", ""); err != nil {
		t.Fatal(err)
	}
	second, err := f.payPart(t, inv, "300.00", "2024-03-10", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, second.ID, ""); err != nil {
		t.Fatal(err)
	}
	if s := f.transfer(t, "2024-03-31", 1); s.Transfers != 2 || s.Amount.String() != "900.00" {
		t.Errorf("the past run after the undo of an unpaid part: %+v", s)
	}
	checkStrings(t, "the part undone and its reversal", f.unpaidOut(t, inv), []string{
		"invoice credit owner60 180.00", "invoice credit owner40 120.00",
		"invoice debit owner60 18.00", "invoice debit owner40 12.00",
		"chargeback debit owner60 180.00", "chargeback debit owner40 120.00",
		"chargeback credit owner60 18.00", "chargeback credit owner40 12.00",
	})
	if s := f.transfer(t, "2099-01-01", 1); s.Transfers != 0 {
		t.Errorf("the pair nets to zero: %+v", s)
	}

	third, err := f.payPart(t, inv, "300.00", "2024-03-10", "")
	if err != nil {
		t.Fatal(err)
	}
	if s := f.transfer(t, "2024-03-31", 1); s.Transfers != 2 || s.Amount.String() != "270.00" {
		t.Errorf("the past run paying the new part: %+v", s)
	}
	if _, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, third.ID, ""); err != nil {
		t.Fatal(err)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "-162.00", "owner40": "-108.00"})
	if _, err := f.payPart(t, inv, "400.00", "2024-03-10", ""); err != nil {
		t.Fatal(err)
	}
	if s := f.transfer(t, "2024-03-31", 1); s.Transfers != 2 || s.Amount.String() != "90.00" {
		t.Errorf("the past run after the undo of a part paid out: %+v", s)
	}
	checkStrings(t, "left for later", f.unpaidOut(t, inv), []string{
		"invoice credit owner60 180.00", "invoice credit owner40 120.00",
		"invoice debit owner60 18.00", "invoice debit owner40 12.00",
		"chargeback debit owner60 180.00", "chargeback debit owner40 120.00",
		"chargeback credit owner60 18.00", "chargeback credit owner40 12.00",
	})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00"})
}

// twoPartInvoice is the worked example's invoice (rent 2,000.00 and
// condomínio 350.00 to the owners 60/40, the administration fee 200.00),
// due dueDate, unpaid, without late fee: to be paid in parts.
func (f *ledgerFixture) twoPartInvoice(t *testing.T, dueDate string) int64 {
	t.Helper()
	inv := f.invoice(t, dueDate, dueDate, dueDate, "")
	f.exec(t, `UPDATE invoices SET paid = false, status = 'unpaid', paid_at = NULL, credit_at = NULL
		WHERE company_id = $1 AND id = $2`, inv)
	return inv
}

// TestTransferTakesAPartsFeeWithItsCredits: an invoice of 2,350.00 paid
// in two parts, 1,000.00 credited on 2026-12-07 and the rest (1,350.00)
// credited on 2026-12-08. Whatever the schedule, the transfer that pays
// part 1 out pays part 1's credits less part 1's fee (548.95 and 365.95:
// rent 510.65 + condomínio 89.36 − fee 51.06, and 340.42 + 59.57 −
// 34.04), never less the fee of part 2, whose credits are not due yet;
// the transfer that pays part 2 pays the rest (741.05 and 494.05), and
// every owner is at 0.00. With after_receive 1 day, part 2's fee, dated
// 2026-12-08, waits with its credits for 2026-12-09. With a fixed day
// (the 10th) and part 2 credited on 2026-12-11, a first run on that day
// (part 1 recorded after the 10th's run, say) leaves part 2's fee for
// 2027-01-10.
func TestTransferTakesAPartsFeeWithItsCredits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, contract, second string
		first, quiet, rest     string // the run paying part 1, a run paying nothing, the run paying part 2
	}{
		{"after_receive 1 day", `transfer_mode = 'after_receive', transfer_after_days = 1`, "2026-12-08",
			"2026-12-08", "2026-12-08", "2026-12-09"},
		{"after_receive 0 days", `transfer_mode = 'after_receive', transfer_after_days = 0`, "2026-12-08",
			"2026-12-07", "2026-12-07", "2026-12-08"},
		{"fixed day 10", `transfer_mode = 'fixed_day', transfer_after_days = 10`, "2026-12-11",
			"2026-12-11", "2027-01-09", "2027-01-10"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newLedgerFixture(t)
			f.setContract(t, c.contract)
			inv := f.twoPartInvoice(t, "2026-12-07")
			if _, err := f.payPart(t, inv, "1000.00", "2026-12-07", "2026-12-07"); err != nil {
				t.Fatal(err)
			}
			if _, err := f.payPart(t, inv, "1350.00", "2026-12-07", c.second); err != nil {
				t.Fatal(err)
			}
			if s := f.transfer(t, c.first, 1); s.Transfers != 2 || s.Amount.String() != "914.90" {
				t.Errorf("the run paying part 1 (%s): %+v", c.first, s)
			}
			if got := f.transfers(t); len(got) != 2 || !strings.HasPrefix(got[0], "owner60 548.95 "+c.first+" ") ||
				!strings.HasPrefix(got[1], "owner40 365.95 "+c.first+" ") {
				t.Errorf("part 1's transfers: %q", got)
			}
			checkStrings(t, "part 2 waiting", f.unpaidOut(t, inv), []string{
				"invoice credit owner60 689.35", "invoice credit owner40 459.58",
				"invoice credit owner60 120.64", "invoice credit owner40 80.43",
				"invoice debit owner60 68.94", "invoice debit owner40 45.96",
			})
			if s := f.transfer(t, c.quiet, 1); s.Transfers != 0 {
				t.Errorf("the run of %s: %+v", c.quiet, s)
			}
			if s := f.transfer(t, c.rest, 1); s.Transfers != 2 || s.Amount.String() != "1235.10" {
				t.Errorf("the run paying part 2 (%s): %+v", c.rest, s)
			}
			got := f.transfers(t)
			if len(got) != 4 || !strings.HasPrefix(got[2], "owner60 741.05 "+c.rest) ||
				!strings.HasPrefix(got[3], "owner40 494.05 "+c.rest) {
				t.Errorf("transfers: %q", got)
			}
			checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00",
				"business": "200.00", "payer": "-2350.00"})
		})
	}
}
