package storage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
)

// The transfer run on day D pays out a debit once it is dated on or
// before D, and not before it exists (docs/ledger.md, "What is
// transferred, and when"), on the part payments' example (rent 1,500.00
// to the owners 60/40, a fee of 10 %).

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
