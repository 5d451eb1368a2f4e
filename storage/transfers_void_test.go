package storage_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The void of an unpaid transfer when the payment it paid out is undone
// (docs/ledger.md, "An undone payment whose transfer is unpaid"), on the
// worked example: paid 2,408.75 late, owners A (60%) 1,325.25 and B (40%)
// 883.50, the company paying its transfers by batch.

// byBatch makes the fixture's company pay its transfers by batch: the
// run writes them unpaid.
func (f *ledgerFixture) byBatch(t *testing.T) {
	t.Helper()
	f.exec(t, `UPDATE companies SET transfer_payment = 'batch' WHERE id = $1`)
}

// runTransfers lists the run's transfers of the invoice as "owner amount
// paid voided key-suffix paid-out-entries", the key's suffix after the
// invoice's part (owner-<name>-transfer-<n>); voided: its void stands (it
// is not reversed in its turn).
func (f *ledgerFixture) runTransfers(t *testing.T, inv int64) []string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		SELECT 'owner ' || t.owner_id, t.amount::text, t.paid, t.transfer_key,
		       (SELECT count(*) FROM transactions p WHERE p.company_id = t.company_id AND p.transfer_id = t.id),
		       EXISTS (SELECT 1 FROM transactions v WHERE v.company_id = t.company_id AND v.reverses_id = t.id
		               AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = v.company_id AND r.reverses_id = v.id))
		FROM transactions t WHERE t.company_id = $1 AND t.invoice_id = $2 AND t.mode = 'transfer' ORDER BY t.id`,
		f.company, inv)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var holder, amount, key string
	var paid, voided bool
	var n int
	_, err = pgx.ForEachRow(rows, []any{&holder, &amount, &paid, &key, &n, &voided}, func() error {
		_, owner, _ := strings.Cut(holder, " ")
		key = strings.Replace(strings.TrimPrefix(key, fmt.Sprintf("invoice-%d-", inv)), "owner-"+owner, f.names[holder], 1)
		state := map[bool]string{true: "paid", false: "unpaid"}[paid]
		if voided {
			state += " void"
		}
		out = append(out, fmt.Sprintf("%s %s %s %s %d", f.names[holder], amount, state, key, n))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkVoids holds every void of the invoice's transfers to how a void is
// written (the transfer's reversal: a credit to the same owner of the same
// amount, mode chargeback, dated today, unpaid, keyed and split after the
// transfer, paid out by it) and lists them as "owner amount".
func (f *ledgerFixture) checkVoids(t *testing.T, inv int64) []string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		SELECT 'owner ' || v.owner_id, v.amount::text,
		       v.type = 'credit' AND v.mode = 'chargeback' AND NOT v.paid AND v.date = company_today(v.company_id)
		       AND v.transfer_id = x.id AND v.transfer_key = x.transfer_key || '-void' AND v.split = x.split || '-chargeback'
		       AND v.amount = x.amount AND v.owner_id = x.owner_id AND v.extract = 'owner' AND v.account_id = x.account_id
		       AND v.invoice_id = x.invoice_id
		FROM transactions v JOIN transactions x ON x.company_id = v.company_id AND x.id = v.reverses_id
		WHERE v.company_id = $1 AND x.invoice_id = $2 AND x.mode = 'transfer' ORDER BY v.id`, f.company, inv)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var holder, amount string
	var ok bool
	_, err = pgx.ForEachRow(rows, []any{&holder, &amount, &ok}, func() error {
		if !ok {
			t.Errorf("the void of %s's transfer of %s is not written as a void", f.names[holder], amount)
		}
		out = append(out, f.names[holder]+" "+amount)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// stated is each owner's balance of the entries of the invoice on their
// statements (storage.OnStatement: an unpaid transfer and a void are on
// none), and of all of them.
func (f *ledgerFixture) stated(t *testing.T, inv int64) map[string]string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		SELECT 'owner ' || t.owner_id, sum(CASE t.type WHEN 'credit' THEN t.amount ELSE -t.amount END)::text,
		       coalesce(sum(CASE t.type WHEN 'credit' THEN t.amount ELSE -t.amount END) FILTER (WHERE `+storage.OnStatement+`), 0)::text
		FROM transactions t WHERE t.company_id = $1 AND t.invoice_id = $2 AND t.extract = 'owner' GROUP BY 1`, f.company, inv)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var holder, all, on string
	_, err = pgx.ForEachRow(rows, []any{&holder, &all, &on}, func() error {
		out[f.names[holder]] = "ledger " + all + ", stated " + on
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// entryCount counts the invoice's entries.
func (f *ledgerFixture) entryCount(t *testing.T, inv int64) int {
	t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM transactions WHERE company_id = $1 AND invoice_id = $2`,
		f.company, inv).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// afterUndo is a night after the undo's day: the reversals of the
// payment's debits are credits dated that day, counted by the runs from
// then on.
func (f *ledgerFixture) afterUndo(t *testing.T) string {
	t.Helper()
	return f.today(t).AddDays(3).String()
}

func checkMap(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// TestUndoVoidsUnpaidTransfers: the night writes each owner's transfer
// unpaid (1,325.25 and 883.50); the payment undone before they are paid
// voids both (each reversed by a credit of its amount dated the undo's
// day, unpaid, on no statement) and releases the ten entries they paid
// out: every owner nets 0.00 for the invoice, in the ledger and on the
// statements, the invoice's auto_transfer_status is null (not
// chargeback), and the run pays nothing out. Undone again, nothing more
// is written. Paid again, the run writes new transfers of the same
// amounts (the second of each owner), paying out the first payment's
// entries, their reversals and the new payment's.
func TestUndoVoidsUnpaidTransfers(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.byBatch(t)
	f.setContract(t, "transfer_mode = 'after_receive'")
	inv := f.paidInvoice(t)
	if s := f.transfer(t, "2024-03-26", 1); s.Transfers != 2 || s.Amount.String() != "2208.75" {
		t.Fatalf("the night: %+v", s)
	}
	checkStrings(t, "the night's transfers", f.runTransfers(t, inv), []string{
		"owner60 1325.25 unpaid owner60-transfer-1 5",
		"owner40 883.50 unpaid owner40-transfer-1 5",
	})
	checkMap(t, "owners after the night", f.stated(t, inv), map[string]string{
		"owner60": "ledger 0.00, stated 1325.25", "owner40": "ledger 0.00, stated 883.50"})

	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	checkStrings(t, "transfers after the undo", f.runTransfers(t, inv), []string{
		"owner60 1325.25 unpaid void owner60-transfer-1 1", // it pays out its void alone
		"owner40 883.50 unpaid void owner40-transfer-1 1",
	})
	checkStrings(t, "voids", f.checkVoids(t, inv), []string{"owner60 1325.25", "owner40 883.50"})
	// released: the payment's five entries of each owner and their reversals
	if n := len(f.unpaidOut(t, inv)); n != 20 {
		t.Errorf("%d owner entries not paid out after the undo, want 20: %q", n, f.unpaidOut(t, inv))
	}
	checkMap(t, "owners after the undo", f.stated(t, inv), map[string]string{
		"owner60": "ledger 0.00, stated 0.00", "owner40": "ledger 0.00, stated 0.00"})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "0.00", "payer": "0.00"})
	f.checkStatus(t, "undone before the transfers were paid", inv, finance.AutoTransferNone)
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 0 || s.Statuses != 0 {
		t.Errorf("a run after the undo: %+v", s)
	}
	before := f.entryCount(t, inv)
	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	if after := f.entryCount(t, inv); after != before {
		t.Errorf("undone again: %d entries, were %d", after, before)
	}

	f.pay(t, inv, "2024-03-25", "2024-03-26")
	f.checkStatus(t, "paid again", inv, finance.AutoTransferWaiting)
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 2 || s.Amount.String() != "2208.75" {
		t.Fatalf("the night after the new payment: %+v", s)
	}
	checkStrings(t, "transfers after the new payment", f.runTransfers(t, inv), []string{
		"owner60 1325.25 unpaid void owner60-transfer-1 1",
		"owner40 883.50 unpaid void owner40-transfer-1 1",
		"owner60 1325.25 unpaid owner60-transfer-2 15",
		"owner40 883.50 unpaid owner40-transfer-2 15",
	})
	checkStrings(t, "not paid out", f.unpaidOut(t, inv), nil)
	checkMap(t, "owners after the new transfers", f.stated(t, inv), map[string]string{
		"owner60": "ledger 0.00, stated 1325.25", "owner40": "ledger 0.00, stated 883.50"})
	f.checkStatus(t, "transferred again", inv, finance.AutoTransferTransferred)
	// the new ones paid: every owner is at 0.00 on the statements
	f.exec(t, `UPDATE transactions SET paid = true, date = '2024-04-10' WHERE company_id = $1 AND invoice_id = $2
		AND mode = 'transfer' AND transfer_key LIKE '%-transfer-2'`, inv)
	checkMap(t, "owners once the new transfers are paid", f.stated(t, inv), map[string]string{
		"owner60": "ledger 0.00, stated 0.00", "owner40": "ledger 0.00, stated 0.00"})
}

// TestUndoLeavesPaidTransfers: a transfer already paid is left as it is
// (the owner owes what the undo's reversals debit), while the other
// owner's, still unpaid, is voided; the invoice is a chargeback, since an
// owner was paid out.
func TestUndoLeavesPaidTransfers(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.byBatch(t)
	f.setContract(t, "transfer_mode = 'after_receive'")
	inv := f.paidInvoice(t)
	f.transfer(t, "2024-03-26", 1)
	f.exec(t, `UPDATE transactions SET paid = true, date = '2024-03-28' WHERE company_id = $1 AND invoice_id = $2
		AND mode = 'transfer' AND owner_id = $3`, inv, f.owner60)
	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	checkStrings(t, "transfers", f.runTransfers(t, inv), []string{
		"owner60 1325.25 paid owner60-transfer-1 5",
		"owner40 883.50 unpaid void owner40-transfer-1 1",
	})
	checkStrings(t, "voids", f.checkVoids(t, inv), []string{"owner40 883.50"})
	checkMap(t, "owners", f.stated(t, inv), map[string]string{
		"owner60": "ledger -1325.25, stated -1325.25", "owner40": "ledger 0.00, stated 0.00"})
	f.checkStatus(t, "undone", inv, finance.AutoTransferChargeback)
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 0 {
		t.Errorf("a run while owner60 owes: %+v", s)
	}
	// paid again: owner60's debt nets against the new credits, owner40 is paid out again
	f.pay(t, inv, "2024-03-25", "2024-03-26")
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 1 || s.Amount.String() != "883.50" {
		t.Errorf("the night after the new payment: %+v", s)
	}
	checkMap(t, "owners paid again", f.stated(t, inv), map[string]string{
		"owner60": "ledger 0.00, stated 0.00", "owner40": "ledger 0.00, stated 883.50"})
}

// TestUndoVoidsOneInvoiceOnly: the run makes one transfer per invoice and
// owner, never one of several invoices' entries; two invoices paid out the
// same night give each owner two transfers, and undoing one invoice voids
// its two only: the other's stay due, paying out their entries, to the
// cent.
func TestUndoVoidsOneInvoiceOnly(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.byBatch(t)
	f.setContract(t, "transfer_mode = 'after_receive'")
	undone, kept := f.paidInvoice(t), f.paidInvoice(t)
	if s := f.transfer(t, "2024-03-26", 1); s.Transfers != 4 || s.Amount.String() != "4417.50" {
		t.Fatalf("the night: %+v", s)
	}
	if err := f.undo(t, undone); err != nil {
		t.Fatal(err)
	}
	checkStrings(t, "the undone invoice's transfers", f.runTransfers(t, undone), []string{
		"owner60 1325.25 unpaid void owner60-transfer-1 1",
		"owner40 883.50 unpaid void owner40-transfer-1 1",
	})
	checkStrings(t, "the other invoice's transfers", f.runTransfers(t, kept), []string{
		"owner60 1325.25 unpaid owner60-transfer-1 5",
		"owner40 883.50 unpaid owner40-transfer-1 5",
	})
	checkStrings(t, "the other invoice's voids", f.checkVoids(t, kept), nil)
	checkStrings(t, "the other invoice's entries not paid out", f.unpaidOut(t, kept), nil)
	checkMap(t, "owners of the undone invoice", f.stated(t, undone), map[string]string{
		"owner60": "ledger 0.00, stated 0.00", "owner40": "ledger 0.00, stated 0.00"})
	checkMap(t, "owners of the other invoice", f.stated(t, kept), map[string]string{
		"owner60": "ledger 0.00, stated 1325.25", "owner40": "ledger 0.00, stated 883.50"})
	f.checkStatus(t, "the undone invoice", undone, finance.AutoTransferNone)
	f.checkStatus(t, "the other invoice", kept, finance.AutoTransferTransferred)
}

// TestUndoKeepsTheGuarantee: the guaranteed transfer is money the
// business advanced; its transfer (unpaid too, by batch) is not made of
// the payment's entries, so the undo leaves it due, and voids only the
// transfer of what the payment brought beyond the guarantee (35.25 and
// 23.50, made of the payment's entries and the guarantee's settlement):
// the owners are back at what the guarantee gave them, the business at
// what it advanced, the invoice guaranteed.
func TestUndoKeepsTheGuarantee(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.byBatch(t)
	f.setContract(t, `transfer_mode = 'after_receive', transfer_after_days = 2, guaranteed_transfer = true,
		guaranteed_transfer_release_after_days = 5, start_at = '2024-01-01', guaranteed_transfer_months = 12`)
	inv := f.unpaidInvoice(t)
	if s := f.transfer(t, "2024-03-15", 1); s.Guarantees != 1 || s.Transfers != 2 {
		t.Fatalf("the release: %+v", s)
	}
	f.pay(t, inv, "2024-03-25", "2024-03-26")
	if s := f.transfer(t, "2024-03-28", 1); s.Transfers != 2 || s.Amount.String() != "58.75" {
		t.Fatalf("after the payment: %+v", s)
	}
	checkStrings(t, "transfers", f.runTransfers(t, inv), []string{
		"owner60 1290.00 unpaid owner60-transfer-1 1",
		"owner40 860.00 unpaid owner40-transfer-1 1",
		"owner60 35.25 unpaid owner60-transfer-2 6",
		"owner40 23.50 unpaid owner40-transfer-2 6",
	})
	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	checkStrings(t, "transfers after the undo", f.runTransfers(t, inv), []string{
		"owner60 1290.00 unpaid owner60-transfer-1 1",
		"owner40 860.00 unpaid owner40-transfer-1 1",
		"owner60 35.25 unpaid void owner60-transfer-2 1",
		"owner40 23.50 unpaid void owner40-transfer-2 1",
	})
	checkStrings(t, "voids", f.checkVoids(t, inv), []string{"owner60 35.25", "owner40 23.50"})
	// the guarantee's 1,290.00 and 860.00 are still owed the owners, by their due transfers
	checkMap(t, "owners", f.stated(t, inv), map[string]string{
		"owner60": "ledger 0.00, stated 1290.00", "owner40": "ledger 0.00, stated 860.00"})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "-2150.00", "payer": "0.00"})
	f.checkStatus(t, "undone", inv, finance.AutoTransferGuaranteed)
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 0 || s.Guarantees != 0 {
		t.Errorf("a run after the undo: %+v", s)
	}
	// paid again: settled again, the owners' part of the late fee and interest paid out again
	f.pay(t, inv, "2024-03-25", "2024-03-26")
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 2 || s.Amount.String() != "58.75" {
		t.Errorf("paid again: %+v", s)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "200.00"})
}

// TestUndoRefusedWhileTheTransferIsInABatch: while a transfer the undo
// would void is in a payment batch, the undo is refused (409) naming the
// transfer and the batch and saying what to do first: remove it from an
// open batch, revert it in one whose file is written. Nothing is written.
// Reverted, the undo voids it, and a payment batch refuses it since.
func TestUndoRefusedWhileTheTransferIsInABatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newLedgerFixture(t)
	f.byBatch(t)
	f.setContract(t, "transfer_mode = 'after_receive'")
	inv := f.paidInvoice(t)
	f.transfer(t, "2024-03-26", 1)
	var transfer, batch int64
	if err := f.pool.QueryRow(ctx, `SELECT id FROM transactions WHERE company_id = $1 AND invoice_id = $2 AND mode = 'transfer'
		AND owner_id = $3`, f.company, inv, f.owner40).Scan(&transfer); err != nil {
		t.Fatal(err)
	}
	if err := f.pool.QueryRow(ctx, `INSERT INTO payment_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`,
		f.company, f.account).Scan(&batch); err != nil {
		t.Fatal(err)
	}
	f.exec(t, `INSERT INTO payment_batch_transactions (company_id, batch_id, transaction_id, reference, method, amount, nominal,
		due_date, payee_name, payee_document) VALUES ($1, $2, $3, 'PAG-1', 'transfer', 883.50, 883.50, '2024-03-26',
		'Carla Proprietária', '11144477735')`, batch, transfer)
	before := f.entryCount(t, inv)
	for _, c := range []struct{ status, says string }{
		{"open", fmt.Sprintf("transfer %d (owner %d, 883.50) is in payment batch %d: remove it from the batch first "+
			"(POST /financial/paymentBatch/%d/removeTransactions)", transfer, f.owner40, batch, batch)},
		{"closed", fmt.Sprintf("transfer %d (owner %d, 883.50) is in payment batch %d, whose file is written: revert it there first "+
			"(POST /financial/paymentBatch/%d/revertTransactions", transfer, f.owner40, batch, batch)},
	} {
		f.exec(t, `UPDATE payment_batches SET status = $3 WHERE company_id = $1 AND id = $2`, batch, c.status)
		err := f.undo(t, inv)
		var fe *finance.Error
		if !errors.As(err, &fe) || fe.Code != finance.Conflict || !strings.Contains(fe.Message, c.says) {
			t.Errorf("batch %s: %v, want a conflict saying %q", c.status, err, c.says)
		}
		if after := f.entryCount(t, inv); after != before {
			t.Errorf("batch %s: %d entries after the refusal, were %d", c.status, after, before)
		}
	}
	f.exec(t, `UPDATE payment_batch_transactions SET state = 'reverted' WHERE company_id = $1 AND batch_id = $2`, batch)
	if err := f.undo(t, inv); err != nil {
		t.Fatalf("once reverted: %v", err)
	}
	checkStrings(t, "voids", f.checkVoids(t, inv), []string{"owner60 1325.25", "owner40 883.50"})
	err := inTx(t, f.pool, func(tx pgx.Tx) error {
		cands, err := storage.ReadPaymentCandidates(ctx, tx, f.company, []int64{transfer})
		if err != nil {
			return err
		}
		if cands[0].Void == 0 || cands[0].Paid {
			t.Errorf("the void transfer as a batch reads it: %+v", cands[0])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
