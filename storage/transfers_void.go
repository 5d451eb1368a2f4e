package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The void of an owner's transfer the run wrote unpaid (transfer_payment
// batch) whose payment is undone before the transfer is paid
// (docs/ledger.md, "An undone payment whose transfer is unpaid"): the
// money never left, so the transfer is cancelled with the payment rather
// than left due. Nothing is deleted: the transfer stays, unpaid, and its
// reversal is written beside it; the entries it paid out are released, so
// that a new payment and the next run pay the owners out again. The void
// is UndoInvoicePayment's, in its transaction; a transfer in a payment
// batch (added or sent) refuses the undo instead. A void transfer the bank
// pays all the same is recorded by the payment return
// (transfers_void_paid.go).

// voidSuffix ends the transfer_key of a transfer's void: the transfer's
// own key followed by it.
const voidSuffix = "-void"

// transferToVoid is an unpaid transfer of the run an undo voids, locked.
type transferToVoid struct {
	id, ownerID int64
	amount      decimal.Decimal
	batchID     int64 // the payment batch it is in, added or sent (0: none)
	sent        bool  // that batch's file is written
}

// lockTransfersToVoid reads and locks (FOR NO KEY UPDATE, in id order, as
// a payment batch locks its candidates) the run's unpaid transfers of the
// invoice, not voided yet, that paid out an entry of a payment not
// reversed yet: a payment's entry or a refund's (those an undo reverses).
// owners, when not nil, keeps the transfers to those owners only. The
// undo runs it before it writes its reversals. A transfer a bank's return
// or a payment by hand marks paid meanwhile is left out once its lock is
// had (the row is read again): a paid transfer is not voided. Their
// batches are read after the lock, in a statement of its own, so that a
// batch that took one first is seen.
func lockTransfersToVoid(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64, owners []int64) ([]transferToVoid, error) {
	return lockTransfersOfSplit(ctx, tx, companyID, invoiceID, owners, "")
}

// lockTransfersOfSplit is lockTransfersToVoid for the transfers that paid
// out an entry of the payment of split ("": of any payment) or of a refund
// (which takes from every part), the undo of one part of an invoice's
// payments.
func lockTransfersOfSplit(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64, owners []int64, split string) ([]transferToVoid, error) {
	rows, err := tx.Query(ctx, `
		SELECT x.id, x.owner_id, x.amount FROM transactions x
		WHERE x.company_id = $1 AND x.invoice_id = $2 AND x.mode = 'transfer' AND x.type = 'transfer'
		  AND x.transfer_key IS NOT NULL AND NOT x.paid AND ($3::bigint[] IS NULL OR x.owner_id = any($3))
		  AND NOT EXISTS (SELECT 1 FROM transactions v WHERE v.company_id = $1 AND v.reverses_id = x.id)
		  AND EXISTS (SELECT 1 FROM transactions e WHERE e.company_id = $1 AND e.transfer_id = x.id
		              AND (e.mode = 'invoice' OR e.refunds_id IS NOT NULL) AND ($4 = '' OR e.split = $4 OR e.refunds_id IS NOT NULL)
		              AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = $1 AND r.reverses_id = e.id))
		ORDER BY x.id
		FOR NO KEY UPDATE OF x`, companyID, invoiceID, owners, split)
	if err != nil {
		return nil, translate(err, "transfers to void")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (transferToVoid, error) {
		var v transferToVoid
		return v, row.Scan(&v.id, &v.ownerID, &v.amount)
	})
	if err != nil || len(out) == 0 {
		return nil, translate(err, "transfers to void")
	}
	ids := make([]int64, len(out))
	for i, v := range out {
		ids[i] = v.id
	}
	batches, err := tx.Query(ctx, `
		SELECT m.transaction_id, m.batch_id, b.status = 'closed'
		FROM payment_batch_transactions m
		JOIN payment_batches b ON b.company_id = m.company_id AND b.id = m.batch_id
		WHERE m.company_id = $1 AND m.transaction_id = any($2) AND m.state = 'added'`, companyID, ids)
	if err != nil {
		return nil, translate(err, "batches of the transfers to void")
	}
	in := map[int64]transferToVoid{}
	var v transferToVoid
	_, err = pgx.ForEachRow(batches, []any{&v.id, &v.batchID, &v.sent}, func() error {
		in[v.id] = v
		return nil
	})
	if err != nil {
		return nil, translate(err, "batches of the transfers to void")
	}
	for i, t := range out {
		out[i].batchID, out[i].sent = in[t.id].batchID, in[t.id].sent
	}
	return out, nil
}

// refuseBatchedTransfers refuses (409) the undo of invoice's payment while
// a transfer it would void is in a payment batch: the batch would pay a
// void transfer. The message names each transfer and its batch, and what
// to do first: remove it from an open batch, revert it in a batch whose
// file is written (the account's next file asks the bank to cancel it).
func refuseBatchedTransfers(invoiceID int64, ts []transferToVoid) error {
	var in []string
	for _, t := range ts {
		if t.batchID != 0 {
			in = append(in, fmt.Sprintf("transfer %d (owner %d, %s) %s", t.id, t.ownerID, t.amount.StringFixed(2),
				inPaymentBatch(t.batchID, t.sent)))
		}
	}
	if len(in) == 0 {
		return nil
	}
	return finance.Errorf(finance.Conflict, "The payment of invoice %d cannot be undone while the owners' transfer it pays out "+
		"is in a payment batch: %s; then undo the payment.", invoiceID, strings.Join(in, "; "))
}

// inPaymentBatch says that a transfer is in payment batch batchID (sent:
// its file is written) and how to take it out first: remove it from an
// open batch, revert it in one whose file is written (the account's next
// file asks the bank to cancel it).
func inPaymentBatch(batchID int64, sent bool) string {
	if sent {
		return fmt.Sprintf("is in payment batch %d, whose file is written: revert it there first "+
			"(POST /financial/paymentBatch/%d/revertTransactions; the account's next file asks the bank to cancel it)",
			batchID, batchID)
	}
	return fmt.Sprintf("is in payment batch %d: remove it from the batch first (POST /financial/paymentBatch/%d/removeTransactions)",
		batchID, batchID)
}

// voidTransfersSQL writes the void of each transfer $2 of company $1: its
// reversal, as a payment's reversal is written (every column carried
// over, mode chargeback, reverses_id, split <split>-chargeback, dated
// today in the company's time zone), a credit on the owner's statement
// where the transfer was a debit (type transfer), unpaid as the transfer
// is, keyed <the transfer's key>-void, and paid out by the transfer it
// voids (transfer_id: the two net to zero, and the run never pays it
// out); and it releases the entries the transfer paid out (transfer_id
// cleared) for the run to pay out again. The update does not see the
// rows the insert writes (one statement, one snapshot), so the voids keep
// their transfer_id.
const voidTransfersSQL = `
WITH v AS (
    INSERT INTO transactions (company_id, split, transfer_key, transfer_id, invoice_id, morph_key, mode, type,
        account_id, business_id, plan_id, user_id, item_id, person_id, building_id, contract_id, broker_id, owner_id,
        tenant_id, extract, date, position, amount, amount_primary, percentage, competence, description, paid,
        due_date, billing_method, tag, reverses_id)
    SELECT t.company_id, t.split || '-chargeback', t.transfer_key || '` + voidSuffix + `', t.id, t.invoice_id, t.morph_key,
        'chargeback', 'credit', t.account_id, t.business_id, t.plan_id, t.user_id, t.item_id, t.person_id,
        t.building_id, t.contract_id, t.broker_id, t.owner_id, t.tenant_id, t.extract, company_today(t.company_id),
        t.position, t.amount, t.amount_primary, t.percentage, t.competence, t.description, t.paid, t.due_date,
        t.billing_method, t.tag, t.id
    FROM transactions t
    WHERE t.company_id = $1 AND t.id = any($2)
    ORDER BY t.id
    ON CONFLICT (company_id, transfer_key) WHERE transfer_key IS NOT NULL DO NOTHING
    RETURNING 1
), released AS (
    UPDATE transactions e SET transfer_id = NULL, updated_at = now()
    WHERE e.company_id = $1 AND e.transfer_id = any($2)
    RETURNING 1
)
SELECT (SELECT count(*) FROM v), (SELECT count(*) FROM released)`

// voidTransfers writes the void of the locked transfers ts and releases
// the entries they paid out.
func voidTransfers(ctx context.Context, tx pgx.Tx, companyID int64, ts []transferToVoid) error {
	if len(ts) == 0 {
		return nil
	}
	ids := make([]int64, len(ts))
	for i, t := range ts {
		ids[i] = t.id
	}
	var voids, released int64
	if err := tx.QueryRow(ctx, voidTransfersSQL, companyID, ids).Scan(&voids, &released); err != nil {
		return translate(err, "void transfers")
	}
	if voids != int64(len(ids)) {
		return fmt.Errorf("void transfers %v: %d voids written", ids, voids)
	}
	return nil
}

// VoidsOf answers, for the entries ids of the company, the entry that
// reverses each one reversed (an unpaid transfer's void: docs/ledger.md),
// by entry; the others are absent, and so is a transfer whose void is
// reversed in its turn (the bank paid it all the same: it is paid, and
// void no more). Callers that hold the entries' locks ask it in a
// statement of their own after taking them, so that a void committed
// while they waited is seen.
func VoidsOf(ctx context.Context, q DBTX, companyID int64, ids []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT v.reverses_id, min(v.id) FROM transactions v
		WHERE v.company_id = $1 AND v.reverses_id = any($2)
		  AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = $1 AND r.reverses_id = v.id)
		GROUP BY 1`, withValues, companyID, ids)
	if err != nil {
		return nil, translate(err, "voids")
	}
	var id, void int64
	_, err = pgx.ForEachRow(rows, []any{&id, &void}, func() error {
		out[id] = void
		return nil
	})
	if err != nil {
		return nil, translate(err, "voids")
	}
	return out, nil
}
