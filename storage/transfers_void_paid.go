package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// A voided transfer the bank pays all the same (docs/ledger.md, "An undone
// payment whose transfer is unpaid"): an owner's transfer reverted in its
// payment batch after its file was sent, voided with the undo of the
// payment it paid out (transfers_void.go), that the bank pays anyway (the
// cancellation came too late). The money left the account, so the return
// records it in its transaction, appending only: the transfer is paid as
// any (markPaymentsPaid), and its void is reversed by an entry of its own,
// dated the day the bank paid, that the run counts: the owner owes what
// they were paid, netted against the invoice's next credits. The owner's
// unpaid transfers of the invoice in no payment batch (a new payment paid
// out again meanwhile) are voided in its place, since the bank's payment
// paid what they would have; the invoice's auto_transfer_status follows,
// and an operator alert says what happened and what the owner owes, and,
// for such a transfer left in a payment batch, how to take it back (out
// of the batch, then VoidTransfer: transfers_void_hand.go).

// voidPaidSuffix ends the transfer_key of a void's reversal: the void's
// key followed by it (<the transfer's key>-void-paid).
const voidPaidSuffix = "-paid"

// PaidVoid is what a payment return wrote for an owner's transfer the bank
// paid after it was voided.
type PaidVoid struct {
	TransferID, InvoiceID, OwnerID int64
	Amount                         decimal.Decimal // the transfer's
	PaidAt                         finance.Date
	BatchID                        int64  // the payment's batch
	State                          string // the payment's state when the bank paid it (reverted, failed, cancelled)
	Void, Reversal                 int64  // the void, and the entry that reverses it
	// Replaced are the owner's unpaid transfers of the invoice voided in
	// its place, Batched those in a payment batch, left as they are.
	Replaced, Batched []DueTransfer
	// Owes is what the owner's entries of the invoice add up to below
	// zero once written (zero: the owner owes nothing on it).
	Owes decimal.Decimal
}

// DueTransfer is an unpaid transfer of the run: its id, amount, and the
// payment batch it is in (0: none; Sent: that batch's file is written).
type DueTransfer struct {
	ID      int64
	Amount  decimal.Decimal
	BatchID int64
	Sent    bool
}

// Message says what happened and what it leaves, for the return's line
// and the operator alert.
func (p *PaidVoid) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The bank paid transfer %d (owner %d, %s) on %s, though it was void: the payment of invoice %d it "+
		"paid out was undone after the transfer's payment in payment batch %d was %s. The money left the account: the "+
		"transfer is paid, and entry %d reverses its void (entry %d).", p.TransferID, p.OwnerID, p.Amount.StringFixed(2),
		p.PaidAt, p.InvoiceID, p.BatchID, p.State, p.Reversal, p.Void)
	for _, t := range p.Replaced {
		fmt.Fprintf(&b, " Transfer %d (%s), due to the owner for the invoice, is voided in its place.", t.ID, t.Amount.StringFixed(2))
	}
	for _, t := range p.Batched {
		fmt.Fprintf(&b, " Transfer %d (%s), due to the owner for the invoice, is in payment batch %d: paid, it pays the owner again. "+
			"To pay the owner once, take it back: it %s; then void it (POST /transactions/%d/void).",
			t.ID, t.Amount.StringFixed(2), t.BatchID, inPaymentBatch(t.BatchID, t.Sent), t.ID)
	}
	if p.Owes.IsPositive() {
		fmt.Fprintf(&b, " The owner owes %s on the invoice: the run nets it against the invoice's next credits; "+
			"recover it from the owner otherwise.", p.Owes.StringFixed(2))
	} else {
		b.WriteString(" The owner owes nothing on the invoice.")
	}
	return b.String()
}

// settlePaidVoids records, after markPaymentsPaid has paid them, the
// transfers of events the bank paid though they were void (Match.Void),
// and answers what it wrote for each. It locks their invoices (FOR
// UPDATE, in id order, as the undo and the run do) before it writes.
func settlePaidVoids(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, events []PaymentEvent) ([]PaidVoid, error) {
	var out []PaidVoid
	for _, e := range events {
		if e.Match.Void != 0 {
			out = append(out, PaidVoid{TransferID: e.Match.TransactionID, PaidAt: e.PaidAt, BatchID: e.Match.BatchID,
				State: e.Match.State, Void: e.Match.Void})
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	invoices, err := readPaidVoids(ctx, tx, companyID, out)
	if err != nil {
		return nil, err
	}
	if err := reverseVoids(ctx, tx, companyID, out); err != nil {
		return nil, err
	}
	if err := replacePaidVoids(ctx, tx, companyID, invoices, out); err != nil {
		return nil, err
	}
	if _, err := writeAutoTransferStatus(ctx, tx, companyID, invoices, actor, OriginTransferPaid, true); err != nil {
		return nil, err
	}
	if err := readOwed(ctx, tx, companyID, out); err != nil {
		return nil, err
	}
	return out, raiseVoidTransferPaid(ctx, tx, companyID, out)
}

// readPaidVoids reads the invoice, owner and amount of each transfer and
// locks the invoices; it answers them, in id order.
func readPaidVoids(ctx context.Context, tx pgx.Tx, companyID int64, ps []PaidVoid) ([]int64, error) {
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.TransferID
	}
	rows, err := tx.Query(ctx, `SELECT id, invoice_id, owner_id, amount FROM transactions
		WHERE company_id = $1 AND id = any($2)`, companyID, ids)
	if err != nil {
		return nil, translate(err, "void transfers paid")
	}
	byID := map[int64]PaidVoid{}
	var p PaidVoid
	_, err = pgx.ForEachRow(rows, []any{&p.TransferID, &p.InvoiceID, &p.OwnerID, &p.Amount}, func() error {
		byID[p.TransferID] = p
		return nil
	})
	if err != nil {
		return nil, translate(err, "void transfers paid")
	}
	invoices := make([]int64, len(ps))
	for i := range ps {
		read, ok := byID[ps[i].TransferID]
		if !ok {
			return nil, fmt.Errorf("void transfer paid %d: not found", ps[i].TransferID)
		}
		ps[i].InvoiceID, ps[i].OwnerID, ps[i].Amount = read.InvoiceID, read.OwnerID, read.Amount
		invoices[i] = read.InvoiceID
	}
	rows, err = tx.Query(ctx, `SELECT id FROM invoices WHERE company_id = $1 AND id = any($2) ORDER BY id FOR UPDATE`,
		companyID, invoices)
	if err != nil {
		return nil, translate(err, "lock the invoices of void transfers paid")
	}
	locked, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return locked, translate(err, "lock the invoices of void transfers paid")
}

// reverseVoidsSQL writes the reversal of each void $2 of company $1, dated
// $3 (the day the bank paid its transfer): as a payment's reversal is
// written (every column carried over, debit and credit swapped, mode
// chargeback, reverses_id, split <split>-chargeback), unpaid as the void
// is (so that, like it, it is on no owner statement: the transfer, paid,
// is), keyed <the void's key>-paid, and paid out by no transfer: the run
// counts it, a debit of what the owner was paid.
const reverseVoidsSQL = `
INSERT INTO transactions (company_id, split, transfer_key, invoice_id, morph_key, mode, type,
    account_id, business_id, plan_id, user_id, item_id, person_id, building_id, contract_id, broker_id, owner_id,
    tenant_id, extract, date, position, amount, amount_primary, percentage, competence, description, paid,
    due_date, billing_method, tag, reverses_id)
SELECT v.company_id, v.split || '-chargeback', v.transfer_key || '` + voidPaidSuffix + `', v.invoice_id, v.morph_key,
    'chargeback', CASE v.type WHEN 'debit' THEN 'credit' WHEN 'credit' THEN 'debit' ELSE v.type END,
    v.account_id, v.business_id, v.plan_id, v.user_id, v.item_id, v.person_id, v.building_id, v.contract_id,
    v.broker_id, v.owner_id, v.tenant_id, v.extract, u.day, v.position, v.amount, v.amount_primary, v.percentage,
    v.competence, v.description, v.paid, v.due_date, v.billing_method, v.tag, v.id
FROM unnest($2::bigint[], $3::date[]) AS u(id, day)
JOIN transactions v ON v.company_id = $1 AND v.id = u.id
ORDER BY v.id
ON CONFLICT (company_id, transfer_key) WHERE transfer_key IS NOT NULL DO NOTHING
RETURNING reverses_id, id`

// reverseVoids writes the reversal of each transfer's void.
func reverseVoids(ctx context.Context, tx pgx.Tx, companyID int64, ps []PaidVoid) error {
	voids, days := make([]int64, len(ps)), make([]finance.Date, len(ps))
	for i, p := range ps {
		voids[i], days[i] = p.Void, p.PaidAt
	}
	rows, err := tx.Query(ctx, reverseVoidsSQL, companyID, voids, days)
	if err != nil {
		return translate(err, "reverse voids")
	}
	reversal := map[int64]int64{}
	var void, id int64
	if _, err := pgx.ForEachRow(rows, []any{&void, &id}, func() error {
		reversal[void] = id
		return nil
	}); err != nil {
		return translate(err, "reverse voids")
	}
	for i := range ps {
		if ps[i].Reversal = reversal[ps[i].Void]; ps[i].Reversal == 0 {
			return fmt.Errorf("reverse the void %d of transfer %d: not written", ps[i].Void, ps[i].TransferID)
		}
	}
	return nil
}

// replacePaidVoids voids, for each transfer paid, the owner's other
// unpaid transfers of the invoice that pay out a payment's entry (a new
// payment paid out again since the void) and are in no payment batch: the
// bank's payment paid what they would have, and the run pays out what is
// left once every entry is counted again. Those in a batch are left, and
// listed.
func replacePaidVoids(ctx context.Context, tx pgx.Tx, companyID int64, invoices []int64, ps []PaidVoid) error {
	for _, inv := range invoices {
		var owners []int64
		for _, p := range ps {
			if p.InvoiceID == inv {
				owners = append(owners, p.OwnerID)
			}
		}
		ts, err := lockTransfersToVoid(ctx, tx, companyID, inv, owners)
		if err != nil {
			return fmt.Errorf("invoice %d: %w", inv, err)
		}
		var free []transferToVoid
		for _, t := range ts {
			p, due := paidVoidOf(ps, inv, t.ownerID), DueTransfer{ID: t.id, Amount: t.amount, BatchID: t.batchID, Sent: t.sent}
			if t.batchID != 0 {
				p.Batched = append(p.Batched, due)
				continue
			}
			p.Replaced = append(p.Replaced, due)
			free = append(free, t)
		}
		if err := voidTransfers(ctx, tx, companyID, free); err != nil {
			return fmt.Errorf("invoice %d: %w", inv, err)
		}
	}
	return nil
}

// paidVoidOf is the first of ps of the invoice and owner.
func paidVoidOf(ps []PaidVoid, invoiceID, ownerID int64) *PaidVoid {
	for i := range ps {
		if ps[i].InvoiceID == invoiceID && ps[i].OwnerID == ownerID {
			return &ps[i]
		}
	}
	return nil
}

// readOwed sets what each owner owes on the invoice: its entries' sum,
// credits less debits and transfers, below zero.
func readOwed(ctx context.Context, tx pgx.Tx, companyID int64, ps []PaidVoid) error {
	for i := range ps {
		var sum decimal.Decimal
		err := tx.QueryRow(ctx, `SELECT coalesce(sum(CASE type WHEN 'credit' THEN amount ELSE -amount END), 0)
			FROM transactions WHERE company_id = $1 AND invoice_id = $2 AND owner_id = $3 AND extract = 'owner'`,
			companyID, ps[i].InvoiceID, ps[i].OwnerID).Scan(&sum)
		if err != nil {
			return translate(err, "what the owner owes")
		}
		if sum.IsNegative() {
			ps[i].Owes = sum.Neg()
		}
	}
	return nil
}

// raiseVoidTransferPaid raises the operator alert of each transfer, once.
func raiseVoidTransferPaid(ctx context.Context, tx pgx.Tx, companyID int64, ps []PaidVoid) error {
	ids, messages := make([]int64, len(ps)), make([]string, len(ps))
	for i := range ps {
		ids[i], messages[i] = ps[i].TransferID, ps[i].Message()
	}
	_, err := tx.Exec(ctx, `INSERT INTO operator_alerts (company_id, kind, transaction_id, message)
		SELECT $1, '`+AlertVoidTransferPaid+`', u.id, u.message FROM unnest($2::bigint[], $3::text[]) AS u(id, message)
		ON CONFLICT DO NOTHING`, companyID, ids, messages)
	return translate(err, "raise void transfer paid")
}
