package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The void of an owner's transfer by hand (docs/ledger.md, "Voiding a
// transfer by hand"; POST /transactions/{id}/void): an unpaid transfer of
// the run, in no payment batch, is voided as the undo of the payment it
// paid out voids it (transfers_void.go): its reversal is written beside
// it, and the entries it paid out are released for the run to count
// again. It is how an operator takes back a transfer the bank's payment of
// a void one already paid (transfers_void_paid.go), once it is out of its
// payment batch.

// OriginTransferVoided is the origin of the invoice history row of an
// auto_transfer_status changed by a transfer voided by hand.
const OriginTransferVoided = "transfer_voided"

// VoidedTransfer is what VoidTransfer wrote: the transfer, its invoice,
// owner and amount, and the entry that voids it.
type VoidedTransfer struct {
	TransferID, InvoiceID, OwnerID int64
	Amount                         decimal.Decimal
	Void                           int64
}

// VoidTransfer voids the company's transfer id, an owner's transfer the
// run wrote, unpaid and in no payment batch: its reversal dated today in
// the company's time zone, the entries it paid out released, and its
// invoice's auto_transfer_status brought to what that makes it (a history
// row of the scope's actor, origin transfer_voided), in tx. The invoice is
// locked first (FOR UPDATE), then the transfer (FOR NO KEY UPDATE), as the
// undo locks them. NotFound for an entry of another company or none;
// Conflict for an entry that is no transfer of the run, a transfer paid,
// void already, or in a payment batch (added or sent: the message says
// how to take it out first).
func VoidTransfer(ctx context.Context, tx pgx.Tx, sc Scope, id int64) (VoidedTransfer, error) {
	what := fmt.Sprintf("transfer %d", id)
	v := VoidedTransfer{TransferID: id}
	var invoiceID *int64
	var run bool
	err := tx.QueryRow(ctx, `SELECT invoice_id, mode = 'transfer' AND type = 'transfer' AND transfer_key IS NOT NULL
		FROM transactions WHERE company_id = $1 AND id = $2`, sc.CompanyID, id).Scan(&invoiceID, &run)
	if err != nil {
		return v, translate(err, what)
	}
	if !run || invoiceID == nil {
		return v, finance.Errorf(finance.Conflict, "Entry %d is not an owner's transfer of the transfer run: only those are "+
			"voided here (an entry written through the API is changed or deleted as any).", id)
	}
	v.InvoiceID = *invoiceID
	var one int
	if err := tx.QueryRow(ctx, `SELECT 1 FROM invoices WHERE company_id = $1 AND id = $2 FOR UPDATE`,
		sc.CompanyID, v.InvoiceID).Scan(&one); err != nil {
		return v, translate(err, what+": its invoice")
	}
	t, err := lockTransferToVoid(ctx, tx, sc.CompanyID, id)
	if err != nil {
		return v, err
	}
	v.OwnerID, v.Amount = t.ownerID, t.amount
	if err := voidTransfers(ctx, tx, sc.CompanyID, []transferToVoid{t}); err != nil {
		return v, fmt.Errorf("%s: %w", what, err)
	}
	voids, err := VoidsOf(ctx, tx, sc.CompanyID, []int64{id})
	if err != nil {
		return v, err
	}
	if v.Void = voids[id]; v.Void == 0 {
		return v, fmt.Errorf("%s: its void is not written", what)
	}
	if _, err := writeAutoTransferStatus(ctx, tx, sc.CompanyID, []int64{v.InvoiceID}, ActorOf(sc), OriginTransferVoided, true); err != nil {
		return v, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// lockTransferToVoid locks the run's transfer id and refuses (409) one
// that cannot be voided: paid, void already (its void read after the
// lock, in a statement of its own, so that an undo committed meanwhile is
// seen), or in a payment batch, added or sent (read after the lock too).
func lockTransferToVoid(ctx context.Context, tx pgx.Tx, companyID, id int64) (transferToVoid, error) {
	t := transferToVoid{id: id}
	var paid bool
	err := tx.QueryRow(ctx, `SELECT owner_id, amount, paid FROM transactions WHERE company_id = $1 AND id = $2
		FOR NO KEY UPDATE`, companyID, id).Scan(&t.ownerID, &t.amount, &paid)
	if err != nil {
		return t, translate(err, fmt.Sprintf("transfer %d", id))
	}
	if paid {
		return t, finance.Errorf(finance.Conflict, "Transfer %d is paid: the money left the account, and a paid transfer is "+
			"not voided.", id)
	}
	voids, err := VoidsOf(ctx, tx, companyID, []int64{id})
	if err != nil {
		return t, err
	}
	if void, ok := voids[id]; ok {
		return t, finance.Errorf(finance.Conflict, "Transfer %d is void already: entry %d reverses it.", id, void)
	}
	err = tx.QueryRow(ctx, `SELECT m.batch_id, b.status = 'closed' FROM payment_batch_transactions m
		JOIN payment_batches b ON b.company_id = m.company_id AND b.id = m.batch_id
		WHERE m.company_id = $1 AND m.transaction_id = $2 AND m.state = 'added'`, companyID, id).Scan(&t.batchID, &t.sent)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return t, nil
	case err != nil:
		return t, translate(err, fmt.Sprintf("the payment batch of transfer %d", id))
	}
	return t, finance.Errorf(finance.Conflict, "Transfer %d cannot be voided while it %s; then void it.",
		id, inPaymentBatch(t.batchID, t.sent))
}
