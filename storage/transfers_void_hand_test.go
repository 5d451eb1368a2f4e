package storage_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// voidByHand voids the transfer as POST /transactions/{id}/void does, by
// the fixture's user, and answers what it wrote.
func (f *voidPaidFixture) voidByHand(t *testing.T, id int64) (storage.VoidedTransfer, error) {
	t.Helper()
	var v storage.VoidedTransfer
	err := inTx(t, f.pool, func(tx pgx.Tx) error {
		var err error
		v, err = storage.VoidTransfer(context.Background(), tx, storage.Scope{CompanyID: f.company, UserID: 7}, id)
		return err
	})
	return v, err
}

// TestVoidTransferByHand: the example of TestBankPaysAVoidTransferDueAgain,
// owner B's new transfer of 883.50 in an open payment batch when the bank
// pays B's void one. The alert names the way out: remove it from the
// batch, then void it. While it is in the batch the void is refused
// (409, saying so); removed, it is voided as the undo voids: its reversal
// written, its fifteen entries released. Owner B then owes nothing
// (ledger 0.00), the invoice is transferred (a history row of the user,
// origin transfer_voided), the alert no longer holds, and the run pays
// nothing. A transfer paid, one void already, an entry that is no
// transfer of the run and another company's are refused.
func TestVoidTransferByHand(t *testing.T) {
	t.Parallel()
	f := newVoidPaidFixture(t, false)
	f.pay(t, f.inv, "2024-03-25", "2024-03-26")
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 2 {
		t.Fatalf("the night after the new payment: %+v", s)
	}
	second := f.id(t, `SELECT id FROM transactions WHERE company_id = $1 AND invoice_id = $2 AND mode = 'transfer'
		AND owner_id = $3 AND transfer_key LIKE '%-transfer-2'`, f.inv, f.owner40)
	open := f.id(t, `INSERT INTO payment_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`, f.account)
	f.member(t, open, second, "added")
	f.bankPays(t, f.owner60, f.owner40)

	if a := f.alerts(t)[f.voided[f.owner40]]; !strings.Contains(a, fmt.Sprintf("is in payment batch %d: paid, it pays the owner "+
		"again. To pay the owner once, take it back: it is in payment batch %[1]d: remove it from the batch first "+
		"(POST /financial/paymentBatch/%[1]d/removeTransactions); then void it (POST /transactions/%d/void).", open, second)) {
		t.Errorf("owner40's alert names no way out: %s", a)
	}
	_, err := f.voidByHand(t, second)
	if finance.ErrorCode(err) != finance.Conflict || !strings.Contains(err.Error(), fmt.Sprintf(
		"Transfer %d cannot be voided while it is in payment batch %d: remove it from the batch first", second, open)) {
		t.Fatalf("the void of a transfer in a batch: %v, want a 409 saying to remove it first", err)
	}

	f.exec(t, `DELETE FROM payment_batch_transactions WHERE company_id = $1 AND transaction_id = $2`, second)
	v, err := f.voidByHand(t, second)
	if err != nil {
		t.Fatalf("the void of the transfer out of its batch: %v", err)
	}
	if v.TransferID != second || v.InvoiceID != f.inv || v.OwnerID != f.owner40 || v.Amount.StringFixed(2) != "883.50" || v.Void == 0 {
		t.Errorf("what the void wrote: %+v", v)
	}
	checkStrings(t, "transfers", f.runTransfers(t, f.inv), []string{
		"owner60 1325.25 paid owner60-transfer-1 1",
		"owner40 883.50 paid owner40-transfer-1 1",
		"owner60 1325.25 unpaid void owner60-transfer-2 1",
		"owner40 883.50 unpaid void owner40-transfer-2 1", // voided by hand, its fifteen entries released
	})
	checkMap(t, "owners", f.stated(t, f.inv), map[string]string{
		"owner60": "ledger 0.00, stated 0.00", "owner40": "ledger 0.00, stated 0.00"})
	f.checkStatus(t, "after the void", f.inv, finance.AutoTransferTransferred)
	if n := f.id(t, `SELECT count(*) FROM invoice_history WHERE company_id = $1 AND invoice_id = $2
		AND actor = 'user' AND actor_id = 7 AND origin = 'transfer_voided'`, f.inv); n != 1 {
		t.Errorf("%d history rows of the void, want 1", n)
	}
	if a := f.alerts(t)[f.voided[f.owner40]]; !strings.HasPrefix(a, "open false: ") {
		t.Errorf("owner40's alert after the void: %s", a)
	}
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 0 {
		t.Errorf("a run after the void: %+v", s)
	}

	payment := f.id(t, `SELECT min(id) FROM transactions WHERE company_id = $1 AND invoice_id = $2 AND mode = 'invoice'`, f.inv)
	for _, c := range []struct {
		name string
		id   int64
		code finance.Code
		want string
	}{
		{"void already", second, finance.Conflict, fmt.Sprintf("Transfer %d is void already: entry %d reverses it.", second, v.Void)},
		{"paid by the bank", f.voided[f.owner60], finance.Conflict, "is paid: the money left the account"},
		{"a payment's entry", payment, finance.Conflict, "is not an owner's transfer of the transfer run"},
		{"no entry", 999_999, finance.NotFound, ""},
	} {
		_, err := f.voidByHand(t, c.id)
		if finance.ErrorCode(err) != c.code || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("%s: %v, want %s %q", c.name, err, c.code, c.want)
		}
	}
}
