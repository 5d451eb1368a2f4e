package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// Refunds and write-offs of invoices (docs/ledger.md, "Refunds" and
// "Write-offs"; docs/api.md, "Refunds and write-offs"): POST
// /invoices/{id}/refund and /writeOff, each in one transaction with its
// entries and its history row, previewed by the same code rolled back; the
// undoing of a write-off (an update moving it back to unpaid: undoWriteOff)
// and the company's write-off setting.

// Origins of the invoice history rows of a refund and a write-off.
const (
	OriginRefund         = "refund"
	OriginWriteOff       = "write_off"
	OriginWriteOffUndone = "write_off_undone"
)

// RefundRequest is a refund of an invoice's payment: Amount given back to
// the payer on Date (zero: today in the company's time zone), for Reason.
// A Preview writes nothing and answers what a refund would write.
type RefundRequest struct {
	Amount  decimal.Decimal
	Date    finance.Date
	Reason  string
	Preview bool
}

// WriteOffRequest is a write-off of an open invoice on Date (zero: today in
// the company's time zone) for Reason; a Preview writes nothing.
type WriteOffRequest struct {
	Date    finance.Date
	Reason  string
	Preview bool
}

// BookedEntry is a ledger entry a refund or a write-off wrote (or would
// write: a preview's ids are those of entries rolled back), as the answers
// show it: every key is sent, null where the entry has none (the tenant's
// and the business's carry no owner, the business's no person).
type BookedEntry struct {
	ID          int64             `json:"id"`
	RefundsID   *int64            `json:"refunds_id"`
	Type        finance.EntryType `json:"type"`
	Extract     finance.Party     `json:"extract"`
	Amount      finance.Money     `json:"amount"`
	ItemID      *int64            `json:"item_id"`
	PersonID    *int64            `json:"person_id"`
	OwnerID     *int64            `json:"owner_id"`
	BusinessID  *int64            `json:"business_id"`
	Description *string           `json:"description"`
}

// InvoiceOperation is what a refund or a write-off did (or, previewed,
// would do) to an invoice: the invoice's status and amounts after it, the
// day and split of its entries, and the entries.
type InvoiceOperation struct {
	InvoiceID      int64          `json:"invoice_id"`
	Preview        bool           `json:"preview"`
	Date           finance.Date   `json:"date"`
	Reason         string         `json:"reason"`
	Amount         finance.Money  `json:"amount"`
	Status         string         `json:"status"`
	PaidAmount     *finance.Money `json:"paid_amount"`
	RefundedAmount *finance.Money `json:"refunded_amount"`
	WrittenOffAt   *finance.Date  `json:"written_off_at"`
	Split          string         `json:"split,omitempty"`
	Entries        []BookedEntry  `json:"entries"`
}

// operationInvoice is an invoice as a refund or a write-off reads it,
// locked for the transaction.
type operationInvoice struct {
	*postingInvoice
	status, description  string
	paidAmount, refunded decimal.Decimal
	posted               bool
	autoTransfer         *string
	writtenOff           *finance.Date
	today                finance.Date
	previousStatus       string
	previousRefunded     *finance.Money
	previousAutoTransfer *string
	previousWrittenOffAt *finance.Date
}

// lockOperationInvoice locks the invoice (lockPostingInvoice) and reads
// what a refund or a write-off needs besides, with today in the company's
// time zone.
func lockOperationInvoice(ctx context.Context, tx pgx.Tx, companyID, id int64) (*operationInvoice, error) {
	pi, err := lockPostingInvoice(ctx, tx, companyID, id)
	if finance.ErrorCode(err) == finance.NotFound {
		return nil, recordNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	oi := &operationInvoice{postingInvoice: pi}
	var paid, refunded *string
	err = tx.QueryRow(ctx, `SELECT status, description, paid_amount::text, refunded_amount::text, auto_transfer_status,
		    written_off_at, (now() AT TIME ZONE coalesce(c.time_zone, 'America/Sao_Paulo'))::date
		FROM invoices i JOIN companies c ON c.id = i.company_id
		WHERE i.company_id = $1 AND i.id = $2`, companyID, id).Scan(
		&oi.status, &oi.description, &paid, &refunded, &oi.autoTransfer, &oi.writtenOff, &oi.today)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("invoice %d", id))
	}
	oi.posted = paid != nil
	if oi.paidAmount, err = decimalOrZero(paid); err != nil {
		return nil, err
	}
	if oi.refunded, err = decimalOrZero(refunded); err != nil {
		return nil, err
	}
	oi.previousStatus, oi.previousAutoTransfer, oi.previousWrittenOffAt = oi.status, oi.autoTransfer, oi.writtenOff
	if refunded != nil {
		m := finance.Money(oi.refunded)
		oi.previousRefunded = &m
	}
	return oi, nil
}

func decimalOrZero(s *string) (decimal.Decimal, error) {
	if s == nil {
		return decimal.Zero, nil
	}
	d, err := decimal.NewFromString(*s)
	if err != nil {
		return d, fmt.Errorf("amount %q: %w", *s, err)
	}
	return d, nil
}

// operationDate is the day of an operation: date, or today when zero; a
// day after today is refused (422 on date): a refund or a write-off is
// recorded once made.
func (oi *operationInvoice) operationDate(date finance.Date) (finance.Date, error) {
	if date.IsZero() {
		return oi.today, nil
	}
	if date.After(oi.today) {
		return date, problem("date", fmt.Sprintf("is after today (%s in the company's time zone): it is recorded once made", oi.today))
	}
	return date, nil
}

// RefundInvoice refunds part or all of the posted payment of invoice id
// (docs/ledger.md, "Refunds"): in one transaction of db (a pool, or the
// transaction of a keyed write: a savepoint of it), the refund's entries
// (finance.RefundPayment over the payment's entries and what earlier
// refunds took of each, mode chargeback, refunds_id, dated the refund's
// day, split `<payment's split>-refund-<n>`), the invoice's
// refunded_amount and, when the whole payment is refunded, its status
// refunded (a partial refund keeps paid, and partially_paid stays), its
// auto_transfer_status, and a history row (origin refund, the reason in
// its note). 404 for an invoice of another company; 422 on paid when no
// payment is posted, on amount beyond what is left to refund, on date
// before the payment's credit day or after today.
func RefundInvoice(ctx context.Context, db Beginner, sc Scope, id int64, req RefundRequest) (InvoiceOperation, error) {
	var out InvoiceOperation
	err := runOrPreview(ctx, db, req.Preview, func(tx pgx.Tx) error {
		oi, err := lockOperationInvoice(ctx, tx, sc.CompanyID, id)
		if err != nil {
			return err
		}
		if (!oi.inv.Paid && oi.status != "partially_paid") || !oi.posted {
			return problem("paid", "the invoice is not paid: there is no payment to refund")
		}
		if err := refuseInstallmentOperation(ctx, tx, sc.CompanyID, id, "refunded"); err != nil {
			return err
		}
		date, err := oi.operationDate(req.Date)
		if err != nil {
			return err
		}
		paidOn, err := oi.lastCredit(ctx, tx, sc.CompanyID)
		if err != nil {
			return err
		}
		if date.Before(paidOn) {
			return problem("date", fmt.Sprintf("is before the payment (credited on %s): a refund comes after the money", paidOn))
		}
		base, split, err := refundBases(ctx, tx, sc.CompanyID, id)
		if err != nil {
			return err
		}
		refund, err := finance.RefundPayment(base, req.Amount)
		if err != nil {
			return problemsError(err, fmt.Sprintf("invoice %d: refund", id))
		}
		if out, err = writeRefund(ctx, tx, sc, oi, split, date, req, refund); err != nil {
			return err
		}
		return emitOperated(ctx, tx, sc.CompanyID, id)
	})
	out.Preview = req.Preview
	return out, err
}

// emitOperated writes the invoice.updated event of a refund or a
// write-off of invoice id (a preview's is rolled back with it).
func emitOperated(ctx context.Context, tx pgx.Tx, companyID, id int64) error {
	_, err := EmitRecordEvents(ctx, tx, companyID, EventInvoiceUpdated, Invoices, []int64{id}, "")
	return err
}

// entryDate is the day the payment's entries are dated: credit_at, else
// paid_at.
func (pi *postingInvoice) entryDate() finance.Date {
	if pi.creditAt.IsZero() {
		return pi.inv.PaidAt
	}
	return pi.creditAt
}

// lastCredit is the day the invoice's latest standing payment (part) was
// credited: a refund comes after the money. The invoice's credit_at (else
// paid_at) for a payment without a row.
func (oi *operationInvoice) lastCredit(ctx context.Context, tx pgx.Tx, companyID int64) (finance.Date, error) {
	var last *finance.Date
	if err := tx.QueryRow(ctx, `SELECT max(credit_at) FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2
		AND undone_at IS NULL`, companyID, oi.inv.ID).Scan(&last); err != nil {
		return finance.Date{}, translate(err, fmt.Sprintf("invoice %d: payments", oi.inv.ID))
	}
	if last == nil {
		return oi.entryDate(), nil
	}
	return *last, nil
}

// refundBases reads the entries of the invoice's payment that stands
// (mode invoice, not reversed) with what refunds not reversed took of
// each, in the order they were posted, and the payment's split (of an
// invoice paid in parts, whose refund takes from every part, the latest
// part's).
func refundBases(ctx context.Context, tx pgx.Tx, companyID, id int64) ([]finance.RefundBase, string, error) {
	rows, err := tx.Query(ctx, `
		SELECT t.id, t.split, t.type, t.extract, t.amount::text, coalesce(t.item_id, 0), coalesce(t.plan_id, 0),
		       coalesce(t.person_id, 0), coalesce(t.owner_id, 0), coalesce(t.tenant_id, 0), coalesce(t.broker_id, 0),
		       coalesce(t.business_id, 0), coalesce(t.description, ''), coalesce(t.guaranteed_transfer_id, 0),
		       coalesce(t.percentage, 0)::text,
		       coalesce((SELECT sum(f.amount) FROM transactions f
		                 WHERE f.company_id = t.company_id AND f.refunds_id = t.id
		                   AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = f.company_id AND r.reverses_id = f.id)), 0)::text
		FROM transactions t
		WHERE t.company_id = $1 AND t.invoice_id = $2 AND t.mode = 'invoice'
		  AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)
		ORDER BY t.position, t.id`, companyID, id)
	if err != nil {
		return nil, "", translate(err, fmt.Sprintf("invoice %d: payment entries", id))
	}
	var split string
	var latest int64
	base, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.RefundBase, error) {
		var b finance.RefundBase
		e := &b.Entry
		var typ, extract, of string
		err := row.Scan(&e.ID, &of, &typ, &extract, &e.Amount, &e.ItemID, &e.PlanID, &e.PersonID, &e.OwnerID, &e.TenantID,
			&e.BrokerID, &e.BusinessID, &e.Description, &e.GuaranteedTransferID, &e.Percentage, &b.Refunded)
		e.Type, e.Extract, e.Mode = finance.EntryType(typ), finance.Party(extract), finance.ModeInvoice
		if e.ID > latest {
			latest, split = e.ID, of
		}
		return b, err
	})
	if err != nil {
		return nil, "", translate(err, fmt.Sprintf("invoice %d: payment entries", id))
	}
	return base, split, nil
}

// writeRefund writes a refund computed: its entries, the invoice's
// amounts and status, its auto_transfer_status and its history row.
func writeRefund(ctx context.Context, tx pgx.Tx, sc Scope, oi *operationInvoice, paymentSplit string, date finance.Date,
	req RefundRequest, refund []finance.RefundEntry) (InvoiceOperation, error) {
	id := oi.inv.ID
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(DISTINCT split) FROM transactions WHERE company_id = $1 AND invoice_id = $2
		AND refunds_id IS NOT NULL AND starts_with(split, $3)`, sc.CompanyID, id, paymentSplit+"-refund-").Scan(&n); err != nil {
		return InvoiceOperation{}, translate(err, fmt.Sprintf("invoice %d: refunds", id))
	}
	split := fmt.Sprintf("%s-refund-%d", paymentSplit, n+1)
	booked, err := insertRefundEntries(ctx, tx, sc.CompanyID, split, date, req.Reason, refund)
	if err != nil {
		return InvoiceOperation{}, err
	}
	refunded := oi.refunded.Add(req.Amount)
	if refunded.Equal(oi.paidAmount) && oi.status == "paid" {
		oi.status = "refunded"
	}
	oi.refunded = refunded
	if _, err := tx.Exec(ctx, `UPDATE invoices SET refunded_amount = $3::numeric, status = $4, updated_at = now()
		WHERE company_id = $1 AND id = $2`, sc.CompanyID, id, refunded.String(), oi.status); err != nil {
		return InvoiceOperation{}, translate(err, fmt.Sprintf("invoice %d: refunded amount", id))
	}
	note := fmt.Sprintf("refund of %s on %s: %s", req.Amount.StringFixed(2), date, req.Reason)
	return finishOperation(ctx, tx, sc, oi, OriginRefund, note, InvoiceOperation{Date: date, Reason: req.Reason,
		Amount: finance.Money(req.Amount), Split: split, Entries: booked})
}

// insertRefundEntries inserts a refund's entries, each a copy of the entry
// it takes from (every column carried over, as a reversal's) with the
// part, the sides swapped, mode chargeback, refunds_id, the refund's day,
// split and reason (notes); it answers them as written, in order.
func insertRefundEntries(ctx context.Context, tx pgx.Tx, companyID int64, split string, date finance.Date, reason string,
	refund []finance.RefundEntry) ([]BookedEntry, error) {
	ids, amounts := make([]int64, len(refund)), make([]string, len(refund))
	for i, e := range refund {
		ids[i], amounts[i] = e.RefundsID, e.Amount.String()
	}
	rows, err := tx.Query(ctx, `
		INSERT INTO transactions (company_id, split, invoice_id, morph_key, mode, type, account_id, business_id,
		    plan_id, user_id, item_id, person_id, building_id, contract_id, broker_id, owner_id, tenant_id, extract,
		    date, position, amount, percentage, competence, description, paid, due_date,
		    billing_method, tag, notes, guaranteed_transfer_id, refunds_id)
		SELECT t.company_id, $2, t.invoice_id, t.morph_key, 'chargeback',
		    CASE t.type WHEN 'debit' THEN 'credit' ELSE 'debit' END,
		    t.account_id, t.business_id, t.plan_id, t.user_id, t.item_id, t.person_id, t.building_id, t.contract_id,
		    t.broker_id, t.owner_id, t.tenant_id, t.extract,
		    $3, u.n, u.amount::numeric, t.percentage, t.competence, t.description, t.paid, t.due_date,
		    t.billing_method, t.tag, $4, t.guaranteed_transfer_id, t.id
		FROM unnest($5::bigint[], $6::text[]) WITH ORDINALITY AS u(id, amount, n)
		JOIN transactions t ON t.company_id = $1 AND t.id = u.id
		ORDER BY u.n
		RETURNING id, refunds_id, type, extract, amount::text, item_id, person_id, owner_id, business_id,
		    description, position`,
		companyID, split, date, reason, ids, amounts)
	if err != nil {
		return nil, translate(err, "refund entries")
	}
	return collectBooked(rows, "refund entries")
}

// collectBooked reads the entries an INSERT returned (with their
// position last), in order of position.
func collectBooked(rows pgx.Rows, what string) ([]BookedEntry, error) {
	type positioned struct {
		e   BookedEntry
		pos int64
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (positioned, error) {
		var p positioned
		var typ, extract string
		var amount decimal.Decimal
		err := row.Scan(&p.e.ID, &p.e.RefundsID, &typ, &extract, &amount, &p.e.ItemID, &p.e.PersonID, &p.e.OwnerID,
			&p.e.BusinessID, &p.e.Description, &p.pos)
		p.e.Type, p.e.Extract, p.e.Amount = finance.EntryType(typ), finance.Party(extract), finance.Money(amount)
		return p, err
	})
	if err != nil {
		return nil, translate(err, what)
	}
	slices.SortFunc(list, func(a, b positioned) int { return int(a.pos - b.pos) })
	out := make([]BookedEntry, len(list))
	for i, p := range list {
		out[i] = p.e
	}
	return out, nil
}

// finishOperation brings the invoice's auto_transfer_status to what the
// ledger says now, writes the history row of the operation (the fields it
// changed, the note) and fills the answer with the invoice as left.
func finishOperation(ctx context.Context, tx pgx.Tx, sc Scope, oi *operationInvoice, origin, note string,
	out InvoiceOperation) (InvoiceOperation, error) {
	id := oi.inv.ID
	if _, err := writeAutoTransferStatus(ctx, tx, sc.CompanyID, []int64{id}, Actor{}, "", false); err != nil {
		return out, fmt.Errorf("invoice %d: %w", id, err)
	}
	if err := tx.QueryRow(ctx, `SELECT auto_transfer_status FROM invoices WHERE company_id = $1 AND id = $2`,
		sc.CompanyID, id).Scan(&oi.autoTransfer); err != nil {
		return out, translate(err, fmt.Sprintf("invoice %d", id))
	}
	var changes []FieldChange
	if oi.status != oi.previousStatus {
		changes = append(changes, FieldChange{Field: "status", From: oi.previousStatus, To: oi.status})
	}
	if origin == OriginRefund {
		refunded := finance.Money(oi.refunded)
		changes = append(changes, FieldChange{Field: "refunded_amount", From: moneyOrNil(oi.previousRefunded), To: refunded})
		out.RefundedAmount = &refunded
	}
	if origin == OriginWriteOff {
		changes = append(changes, FieldChange{Field: "written_off_at", From: dateOrNil(oi.previousWrittenOffAt), To: oi.writtenOff})
	}
	if !equalPtr(oi.autoTransfer, oi.previousAutoTransfer) {
		changes = append(changes, FieldChange{Field: "auto_transfer_status", From: stringOrNil(oi.previousAutoTransfer),
			To: stringOrNil(oi.autoTransfer)})
	}
	if err := writeHistories(ctx, tx, sc.CompanyID, ActorOf(sc), origin, []historyRow{{invoiceID: id, changes: changes, note: note}}); err != nil {
		return out, err
	}
	out.InvoiceID, out.Status, out.WrittenOffAt = id, oi.status, oi.writtenOff
	if oi.posted {
		paid := finance.Money(oi.paidAmount)
		out.PaidAmount = &paid
	}
	if out.RefundedAmount == nil && oi.previousRefunded != nil {
		out.RefundedAmount = oi.previousRefunded
	}
	if out.Entries == nil {
		out.Entries = []BookedEntry{}
	}
	return out, nil
}

func moneyOrNil(m *finance.Money) any {
	if m == nil {
		return nil
	}
	return *m
}

func dateOrNil(d *finance.Date) any {
	if d == nil {
		return nil
	}
	return *d
}

func stringOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func equalPtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// writeOffStatuses are the statuses an invoice may be written off from:
// open, not paid.
var writeOffStatuses = []string{"unpaid", "overdue", "in_protest", "partially_paid"}

// WriteOffInvoice writes off the open invoice id (docs/ledger.md,
// "Write-offs"): in one transaction of db (as RefundInvoice's), status
// uncollectible, written_off_at the day, its loss booked when the company
// keeps a write-off item (finance.WriteOffLoss: mode chargeback, dated the
// day, split `invoice-<id>-write-off-<n>`), and a history row (origin
// write_off, the reason in its note). The nightly overdue run and the open-invoice filters
// leave an uncollectible invoice out. 404 for an invoice of another
// company; 422 on paid for a paid invoice, on status for one canceled,
// refunded or written off, on ticket_batch for one in a collection batch
// not reverted, on date after today, on write_off_item_id when the item the
// setting names is gone or cannot book the loss.
func WriteOffInvoice(ctx context.Context, db Beginner, sc Scope, id int64, req WriteOffRequest) (InvoiceOperation, error) {
	var out InvoiceOperation
	err := runOrPreview(ctx, db, req.Preview, func(tx pgx.Tx) error {
		oi, err := lockOperationInvoice(ctx, tx, sc.CompanyID, id)
		if err != nil {
			return err
		}
		if err := checkWriteOff(ctx, tx, sc.CompanyID, oi); err != nil {
			return err
		}
		date, err := oi.operationDate(req.Date)
		if err != nil {
			return err
		}
		if out, err = writeWriteOff(ctx, tx, sc, oi, date, req); err != nil {
			return err
		}
		return emitOperated(ctx, tx, sc.CompanyID, id)
	})
	out.Preview = req.Preview
	return out, err
}

// checkWriteOff says why an invoice may not be written off (nil when it
// may): paid, not open, or in a collection batch not reverted.
func checkWriteOff(ctx context.Context, tx pgx.Tx, companyID int64, oi *operationInvoice) error {
	if oi.inv.Paid {
		return problem("paid", "the invoice is paid: a paid invoice is refunded (POST /invoices/{id}/refund), not written off")
	}
	if !slices.Contains(writeOffStatuses, oi.status) {
		return problem("status", fmt.Sprintf("the invoice is %s: only an open invoice (%s) is written off",
			oi.status, strings.Join(writeOffStatuses, ", ")))
	}
	if err := refuseInstallmentOperation(ctx, tx, companyID, oi.inv.ID, "written off"); err != nil {
		return err
	}
	var batch int64
	var batchStatus string
	err := tx.QueryRow(ctx, `SELECT m.batch_id, b.status FROM ticket_batch_invoices m
		JOIN ticket_batches b ON b.company_id = m.company_id AND b.id = m.batch_id
		WHERE m.company_id = $1 AND m.invoice_id = $2 AND m.state = 'added'`, companyID, oi.inv.ID).Scan(&batch, &batchStatus)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return translate(err, fmt.Sprintf("invoice %d: collection batch", oi.inv.ID))
	}
	how := "remove it from the batch (removeInvoices)"
	if batchStatus == "closed" {
		how = "revert it in the batch (revertInvoices): the bank holds its slip"
	}
	return problem("ticket_batch", fmt.Sprintf("the invoice is in collection batch %d: %s before writing it off", batch, how))
}

// writeWriteOff writes a write-off checked: the loss (when the company
// books one), the invoice's status and day, and the history row.
func writeWriteOff(ctx context.Context, tx pgx.Tx, sc Scope, oi *operationInvoice, date finance.Date,
	req WriteOffRequest) (InvoiceOperation, error) {
	id := oi.inv.ID
	entries, err := writeOffLoss(ctx, tx, sc.CompanyID, oi)
	if err != nil {
		return InvoiceOperation{}, err
	}
	split := ""
	var booked []BookedEntry
	if len(entries) > 0 {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(DISTINCT split) FROM transactions WHERE company_id = $1 AND invoice_id = $2
			AND starts_with(split, $3)`, sc.CompanyID, id, writeOffSplitPrefix(id)).Scan(&n); err != nil {
			return InvoiceOperation{}, translate(err, fmt.Sprintf("invoice %d: write-offs", id))
		}
		split = fmt.Sprintf("%s%d", writeOffSplitPrefix(id), n+1)
		if err := insertInvoiceEntries(ctx, tx, sc.CompanyID, oi.postingInvoice, split, finance.ModeChargeback, date, entries); err != nil {
			return InvoiceOperation{}, translate(err, fmt.Sprintf("invoice %d: write-off entries", id))
		}
		if booked, err = readBooked(ctx, tx, sc.CompanyID, split); err != nil {
			return InvoiceOperation{}, err
		}
	}
	oi.status, oi.writtenOff = "uncollectible", &date
	if _, err := tx.Exec(ctx, `UPDATE invoices SET status = 'uncollectible', written_off_at = $3, updated_at = now()
		WHERE company_id = $1 AND id = $2`, sc.CompanyID, id, date); err != nil {
		return InvoiceOperation{}, translate(err, fmt.Sprintf("invoice %d: write-off", id))
	}
	note := fmt.Sprintf("written off on %s: %s", date, req.Reason)
	if len(entries) == 0 {
		note += " (no loss booked: the company keeps no write-off item)"
	}
	rest, err := oi.rest(ctx, tx, sc.CompanyID)
	if err != nil {
		return InvoiceOperation{}, err
	}
	if !rest.Equal(oi.inv.Total) {
		note += fmt.Sprintf(" (the rest %s of the total %s: its parts paid the other %s)", rest.StringFixed(2),
			oi.inv.Total.StringFixed(2), oi.inv.Total.Sub(rest).StringFixed(2))
	}
	return finishOperation(ctx, tx, sc, oi, OriginWriteOff, note, InvoiceOperation{Date: date, Reason: req.Reason,
		Amount: finance.Money(rest), Split: split, Entries: booked})
}

// rest is what of the invoice's total its standing parts have not paid:
// what a write-off gives up.
func (oi *operationInvoice) rest(ctx context.Context, tx pgx.Tx, companyID int64) (decimal.Decimal, error) {
	var paid decimal.Decimal
	if err := tx.QueryRow(ctx, `SELECT coalesce(sum(principal), 0)::text FROM invoice_payments WHERE company_id = $1
		AND invoice_id = $2 AND undone_at IS NULL`, companyID, oi.inv.ID).Scan(&paid); err != nil {
		return paid, translate(err, fmt.Sprintf("invoice %d: payments", oi.inv.ID))
	}
	return oi.inv.Total.Sub(paid), nil
}

// writeOffSplitPrefix is the split of invoice id's write-offs, less their
// count.
func writeOffSplitPrefix(id int64) string { return fmt.Sprintf("invoice-%d-write-off-", id) }

// writeOffLoss computes the entries of the loss of a write-off with the
// company's write-off item; none when it keeps none.
func writeOffLoss(ctx context.Context, tx pgx.Tx, companyID int64, oi *operationInvoice) ([]finance.Entry, error) {
	settings, err := WriteOffSettingsOf(ctx, tx, companyID)
	if err != nil || settings.ItemID == nil {
		return nil, err
	}
	c, err := postingItemsOf(ctx, tx, companyID, []int64{*settings.ItemID})
	if err != nil {
		return nil, translate(err, "write-off item")
	}
	i := slices.IndexFunc(c.items, func(it finance.TransactionItem) bool { return it.ID == *settings.ItemID })
	if i < 0 {
		return nil, problem("write_off_item_id", fmt.Sprintf("the company's write-off item %d is gone: set write_off_item_id "+
			"(PUT /financial/settings) to an item of yours, or to null to write off without booking the loss", *settings.ItemID))
	}
	owners, err := buildingOwners(ctx, tx, companyID, oi.buildingID)
	if err != nil {
		return nil, translate(err, "owners")
	}
	rest := oi.inv
	if rest.Total, err = oi.rest(ctx, tx, companyID); err != nil {
		return nil, err
	}
	entries, err := finance.WriteOffLoss(rest, c.items[i], finance.Parties{PayerID: oi.inv.PayerID,
		BusinessID: oi.inv.BusinessID, BuildingID: oi.buildingID, Owners: owners})
	if err != nil {
		return nil, problemsError(err, "write-off loss")
	}
	return entries, nil
}

// readBooked reads the entries of a split as the answers show them.
func readBooked(ctx context.Context, tx pgx.Tx, companyID int64, split string) ([]BookedEntry, error) {
	rows, err := tx.Query(ctx, `SELECT id, refunds_id, type, extract, amount::text, item_id, person_id, owner_id,
		    business_id, description, position
		FROM transactions WHERE company_id = $1 AND split = $2`, companyID, split)
	if err != nil {
		return nil, translate(err, "entries of "+split)
	}
	return collectBooked(rows, "entries of "+split)
}

// writeOffUndone reports whether an invoice write undoes a write-off: it
// moves an uncollectible invoice back to unpaid (the only move from
// uncollectible, invoiceStatusMoves).
func writeOffUndone(c *Change) bool {
	return c.Op == OpUpdate && c.OldValue("status") == "uncollectible" && c.Changed("status")
}

// undoWriteOff is a hook of the invoices: the write that undoes a
// write-off (writeOffUndone), or deletes an invoice written off, reverses
// the loss it booked (finance.Reverse in SQL, dated today in the company's
// time zone, as undoing a payment does) and clears written_off_at; the
// write's history row says so (origin write_off_undone).
func undoWriteOff(ctx context.Context, tx pgx.Tx, c *Change) error {
	if !writeOffUndone(c) && (c.Op != OpDelete || c.OldValue("status") != "uncollectible") {
		return nil
	}
	companyID := c.Scope.CompanyID
	if _, err := tx.Exec(ctx, reverseWriteOffSQL, companyID, c.ID, writeOffSplitPrefix(c.ID)); err != nil {
		return translate(err, fmt.Sprintf("invoice %d: reverse the write-off", c.ID))
	}
	if c.Op == OpDelete {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE invoices SET written_off_at = NULL WHERE company_id = $1 AND id = $2`, companyID, c.ID); err != nil {
		return translate(err, fmt.Sprintf("invoice %d: undo the write-off", c.ID))
	}
	c.Remember(memoReread, true)
	return nil
}

// reverseWriteOffSQL reverses every entry of the write-offs of invoice $2
// ($3 their split's prefix) not reversed yet, as reverseEntriesSQL does a
// payment's.
const reverseWriteOffSQL = `
INSERT INTO transactions (company_id, split, invoice_id, morph_key, mode, type, account_id, business_id,
    plan_id, user_id, item_id, person_id, building_id, contract_id, broker_id, owner_id, tenant_id, extract,
    date, position, amount, amount_primary, percentage, competence, description, paid, due_date,
    billing_method, tag, reverses_id)
SELECT t.company_id, t.split || '-chargeback', t.invoice_id, t.morph_key, 'chargeback',
    CASE t.type WHEN 'debit' THEN 'credit' ELSE 'debit' END,
    t.account_id, t.business_id, t.plan_id, t.user_id, t.item_id, t.person_id, t.building_id, t.contract_id,
    t.broker_id, t.owner_id, t.tenant_id, t.extract,
    (SELECT (now() AT TIME ZONE coalesce(c.time_zone, 'America/Sao_Paulo'))::date FROM companies c WHERE c.id = t.company_id),
    t.position, t.amount, t.amount_primary, t.percentage, t.competence, t.description, t.paid, t.due_date,
    t.billing_method, t.tag, t.id
FROM transactions t
WHERE t.company_id = $1 AND t.invoice_id = $2 AND t.mode = 'chargeback' AND starts_with(t.split, $3)
  AND t.reverses_id IS NULL AND t.refunds_id IS NULL
  AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)
ORDER BY t.id`

// WriteOffSettings is the company's write-off setting, with the name GET
// and PUT /financial/settings give it: the transaction item a write-off
// books the loss with (finance.WriteOffLoss); nil: the loss is not booked.
type WriteOffSettings struct {
	ItemID *int64 `json:"write_off_item_id"`
}

// WriteOffSettingsOf reads a company's write-off setting.
func WriteOffSettingsOf(ctx context.Context, q DBTX, companyID int64) (WriteOffSettings, error) {
	var s WriteOffSettings
	if err := q.QueryRow(ctx, `SELECT write_off_item_id FROM companies WHERE id = $1`, companyID).Scan(&s.ItemID); err != nil {
		return s, translate(err, "company")
	}
	return s, nil
}

// CheckWriteOffItem says what is wrong with item id as the company's
// write-off item (nil when nothing): it must be one of the company's
// transaction items, debit the business and have a credit party. The
// problems name write_off_item_id.
func CheckWriteOffItem(ctx context.Context, q DBTX, companyID, id int64) []finance.Problem {
	var debit, credit string
	err := q.QueryRow(ctx, `SELECT coalesce(debit, ''), coalesce(credit, '') FROM transaction_items
		WHERE company_id = $1 AND id = $2`, companyID, id).Scan(&debit, &credit)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return []finance.Problem{{Field: "write_off_item_id", Message: fmt.Sprintf("transaction item %d not found", id)}}
	case err != nil:
		return []finance.Problem{{Field: "write_off_item_id", Message: "could not be read"}}
	case debit != string(finance.PartyBusiness):
		return []finance.Problem{{Field: "write_off_item_id", Message: fmt.Sprintf(
			"transaction item %d debits %q: the loss of a write-off is the business's, so the item must debit business", id, debit)}}
	case credit == "":
		return []finance.Problem{{Field: "write_off_item_id", Message: fmt.Sprintf(
			"transaction item %d has no credit party to book the loss against", id)}}
	}
	return nil
}
