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

// The payments of an invoice as rows of their own (docs/ledger.md, "Part
// payments"; migration 0054): a part paid through POST
// /invoices/{id}/payments or a bank's return file, the whole payment of
// `paid: true` (the one part that settles the invoice), and the undoing
// of the latest part. Each part is posted in a split of its own,
// `invoice-<id>-payment-<n>`, by the posting of ledger_posting.go on its
// share of the invoice (finance.SettlePart, finance.PostPayment with a
// PartShare).

// InvoicePayments is the resource of an invoice's payments.
const InvoicePayments = "invoice_payments"

// invoicePaymentsResource is GET /invoices/{invoice}/payments: the rows
// the postings write, read-only (a part is recorded and undone through
// the invoice's operations, api/invoices_payments.go).
func invoicePaymentsResource() *Resource {
	money := func(name string) Column {
		return Column{Name: name, Type: Decimal, Filterable: true, Precision: 14, Scale: 2}
	}
	return &Resource{
		Name: InvoicePayments, Table: "invoice_payments", ReadOnly: true,
		Parent: &Parent{Resource: Invoices, Key: "invoice_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true},
			{Name: "n", Type: Int, Filterable: true},
			{Name: "split", Type: String, Filterable: true},
			money("amount"), money("principal"), money("late_fee"), money("interest"), money("discount"),
			{Name: "paid_at", Type: Date, Filterable: true},
			{Name: "credit_at", Type: Date, Filterable: true},
			{Name: "actor", Type: String, Filterable: true, Enum: []string{ActorUser, ActorJob, ActorReturnFile, ActorSystem}},
			{Name: "actor_id", Type: Int, Filterable: true},
			{Name: "method", Type: String, Filterable: true, Enum: BillingMethods},
			money("over_paid"),
			{Name: "undone_at", Type: DateTime, Filterable: true},
			{Name: "undo_reason", Type: String, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{{Name: "invoice", Kind: BelongsTo, Resource: Invoices, Key: "invoice_id"}},
	}
}

// invoiceBalanceExpr is an invoice's balance: what of its total is still
// owed (the principal its standing parts have not paid), zero once it is
// paid or owed no longer (canceled, refunded, written off, renegotiated).
// The late fee and interest a late payment owes on it are reckoned on the
// day it is paid (finance.DueOn).
const invoiceBalanceExpr = `(CASE WHEN "paid" OR "status" IN ('paid', 'canceled', 'refunded', 'uncollectible', 'renegotiated') ` +
	`THEN 0::numeric(14,2) ELSE "total" - coalesce((SELECT sum(p.principal) FROM invoice_payments p ` +
	`WHERE p.company_id = "invoices"."company_id" AND p.invoice_id = "invoices"."id" AND p.undone_at IS NULL), 0) END)::numeric(14,2)`

// PartRequest is a part payment of an invoice: Amount paid on PaidAt,
// credited on CreditAt (zero: PaidAt), by Method (one of BillingMethods;
// "" when not said).
type PartRequest struct {
	Amount           decimal.Decimal
	PaidAt, CreditAt finance.Date
	Method           string
}

// InvoicePart is a part as the API answers it: its row, and the invoice
// as the part leaves it (its status, what was paid, the principal still
// open), with what was due on the part's day.
type InvoicePart struct {
	ID        int64         `json:"id"`
	InvoiceID int64         `json:"invoice_id"`
	N         int           `json:"n"`
	Split     string        `json:"split"`
	Amount    finance.Money `json:"amount"`
	Principal finance.Money `json:"principal"`
	LateFee   finance.Money `json:"late_fee"`
	Interest  finance.Money `json:"interest"`
	Discount  finance.Money `json:"discount"`
	PaidAt    finance.Date  `json:"paid_at"`
	CreditAt  finance.Date  `json:"credit_at"`
	Method    *string       `json:"method"` // how the payer paid (BillingMethods); null when not said
	// OverPaid is what the payer paid beyond what was due and nothing
	// books (a payment by the discount date of more than the discounted
	// amount): an over_payment alert names it.
	OverPaid   finance.Money  `json:"over_paid"`
	Due        *finance.Money `json:"due,omitempty"` // what was due on paid_at, the part included
	Undone     bool           `json:"undone"`
	UndoReason *string        `json:"undo_reason"`
	Invoice    PartInvoice    `json:"invoice"`
	// Warnings are what the part leaves to do (partWarnings): the answer
	// carries them after the data.
	Warnings []finance.Problem `json:"-"`
	// RefundsNote says that undoing the part reversed the invoice's
	// refunds ("" when it had none): the answer's message carries it.
	RefundsNote string `json:"-"`
}

// PartInvoice is the invoice as a part leaves it.
type PartInvoice struct {
	Status     string         `json:"status"`
	Paid       bool           `json:"paid"`
	PaidAmount *finance.Money `json:"paid_amount"`
	Balance    finance.Money  `json:"balance"`
}

// partInvoice is an invoice as a part's posting reads it, locked.
type partInvoice struct {
	*postingInvoice
	status   string
	paid     finance.PaidSoFar
	lastPaid finance.Date // the latest standing part's paid_at
	splits   int          // the payments posted so far, standing or undone (their splits, their rows' n)
	today    finance.Date
	// discardedPix is the amount of the PIX code a part discarded
	// (discardStalePixCode); "" when none.
	discardedPix string
}

// lockPartInvoice locks the invoice (lockPostingInvoice) and reads its
// status, its standing parts and today in the company's time zone.
func lockPartInvoice(ctx context.Context, tx pgx.Tx, companyID, id int64) (*partInvoice, error) {
	pi, err := lockPostingInvoice(ctx, tx, companyID, id)
	if finance.ErrorCode(err) == finance.NotFound {
		return nil, recordNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	p := &partInvoice{postingInvoice: pi}
	if pi.inv.Items, err = invoiceLines(ctx, tx, companyID, id); err != nil { // the late fee's base may be lines
		return nil, translate(err, fmt.Sprintf("invoice %d: lines", id))
	}
	var last *finance.Date
	err = tx.QueryRow(ctx, `
		SELECT i.status, coalesce(s.principal, 0)::text, coalesce(s.parts, 0), s.last,
		       greatest((SELECT count(DISTINCT t.split) FROM transactions t
		                 WHERE t.company_id = i.company_id AND t.invoice_id = i.id AND t.mode = 'invoice'),
		                (SELECT coalesce(max(n), 0) FROM invoice_payments p WHERE p.company_id = i.company_id
		                 AND p.invoice_id = i.id)),
		       (now() AT TIME ZONE coalesce(c.time_zone, 'America/Sao_Paulo'))::date
		FROM invoices i JOIN companies c ON c.id = i.company_id
		LEFT JOIN LATERAL (SELECT sum(principal) AS principal, count(*) AS parts, max(paid_at) AS last
		                   FROM invoice_payments WHERE company_id = i.company_id AND invoice_id = i.id
		                     AND undone_at IS NULL) s ON true
		WHERE i.company_id = $1 AND i.id = $2`, companyID, id).Scan(
		&p.status, &p.paid.Principal, &p.paid.Parts, &last, &p.splits, &p.today)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("invoice %d: payments", id))
	}
	if last != nil {
		p.lastPaid = *last
	}
	return p, nil
}

// MaxCreditDays is how many days after its paid_at a part may be
// credited (credit_at): a bank credits a boleto or a transfer within a
// day or two, a week at most across holidays; a credit_at further ahead
// is a typo that would hold the invoice's refunds and the owners'
// transfers until then.
const MaxCreditDays = 7

// partStatuses are the statuses a part is paid from: open.
var partStatuses = []string{"unpaid", "overdue", "in_protest", "partially_paid"}

// PayInvoicePart records a part payment of invoice id (docs/ledger.md,
// "Part payments") in a transaction of db: the part reckoned against what
// is due on paid_at for the rest (finance.SettlePart), posted in a split
// of its own, the invoice partially_paid (paid once the part settles
// it), a history row (origin payment) and the invoice's event. A part
// paying more than the discounted amount by the discount date settles the
// invoice with its discount, the excess kept as over_paid with an
// over_payment alert and a warning (raisePartOverPayment). Every problem
// is a 422 at once: the invoice not open (status), paid_at missing, after
// today or before an earlier part's, credit_at before paid_at, method not
// a billing method, the amount not positive or more than is due (than the
// face value by the discount date). 404 for an invoice of another company.
func PayInvoicePart(ctx context.Context, db Beginner, sc Scope, id int64, req PartRequest) (InvoicePart, error) {
	var out InvoicePart
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		pi, err := lockPartInvoice(ctx, tx, sc.CompanyID, id)
		if err != nil {
			return err
		}
		if err := refuseAgreementPart(ctx, tx, sc.CompanyID, pi); err != nil {
			return err
		}
		part, err := pi.reckon(req)
		if err != nil {
			return err
		}
		before := pi.status
		row, err := postPart(ctx, tx, sc.CompanyID, pi, part, req.PaidAt, req.CreditAt, req.Method, ActorOf(sc))
		if err != nil {
			return partPostingFields(err)
		}
		overPaid, err := raisePartOverPayment(ctx, tx, sc.CompanyID, pi, row, req.PaidAt)
		if err != nil {
			return err
		}
		if err := partHistory(ctx, tx, sc, pi, before, row, OriginPayment); err != nil {
			return err
		}
		event := EventInvoiceUpdated
		if pi.inv.Paid {
			event = EventInvoicePaid
		}
		if _, err := EmitRecordEvents(ctx, tx, sc.CompanyID, event, Invoices, []int64{id}, ""); err != nil {
			return err
		}
		warnings, err := partWarnings(ctx, tx, sc.CompanyID, pi, row, req.PaidAt)
		if err != nil {
			return err
		}
		if overPaid != nil {
			warnings = append([]finance.Problem{*overPaid}, warnings...)
		}
		due := finance.Money(part.Due.Total)
		out, err = readPart(ctx, tx, sc.CompanyID, id, row.id)
		out.Due, out.Warnings = &due, warnings
		return err
	})
	return out, err
}

// refuseAgreementPart refuses (409) a part of an agreement's installment:
// an installment is paid whole (a break gives the originals back less
// the installments paid, which counts them whole).
func refuseAgreementPart(ctx context.Context, tx pgx.Tx, companyID int64, pi *partInvoice) error {
	var installment bool
	if err := tx.QueryRow(ctx, `SELECT agreement_installment IS NOT NULL FROM invoices WHERE company_id = $1 AND id = $2`,
		companyID, pi.inv.ID).Scan(&installment); err != nil {
		return translate(err, fmt.Sprintf("invoice %d", pi.inv.ID))
	}
	if installment {
		return finance.Errorf(finance.Conflict, "Invoice %d is an installment of an agreement: it is paid whole, not in parts "+
			"(PUT /invoices/%d with paid: true, paid_at and its billing_method).", pi.inv.ID, pi.inv.ID)
	}
	return nil
}

// reckon checks a part's request against the invoice, naming every
// problem at once, and reckons the part.
func (pi *partInvoice) reckon(req PartRequest) (finance.Part, error) {
	var ps []finance.Problem
	add := func(field, format string, args ...any) {
		ps = append(ps, finance.Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case pi.inv.Paid || pi.status == "paid":
		add("status", "the invoice is paid: nothing is left to pay")
	case !slices.Contains(partStatuses, pi.status):
		add("status", "the invoice is %s: only an open invoice (%s) is paid", pi.status, strings.Join(partStatuses, ", "))
	}
	open := len(ps) == 0
	switch {
	case req.PaidAt.IsZero():
		add("paid_at", "is required")
	case req.PaidAt.After(pi.today):
		add("paid_at", "is after today (%s in the company's time zone): a payment is recorded once made", pi.today)
	case !pi.lastPaid.IsZero() && req.PaidAt.Before(pi.lastPaid):
		add("paid_at", "is before %s, the day of the invoice's latest part: parts are recorded in the order they were paid", pi.lastPaid)
	}
	switch {
	case req.CreditAt.IsZero() || req.PaidAt.IsZero():
	case req.CreditAt.Before(req.PaidAt):
		add("credit_at", "is before paid_at: the money is credited on or after the day it is paid")
	case req.CreditAt.After(req.PaidAt.AddDays(MaxCreditDays)):
		add("credit_at", "is more than %d days after paid_at (at most %s): a bank credits a payment within days",
			MaxCreditDays, req.PaidAt.AddDays(MaxCreditDays))
	}
	if req.Method != "" && !slices.Contains(BillingMethods, req.Method) {
		add("method", "must be one of %s", strings.Join(BillingMethods, ", "))
	}
	var part finance.Part
	switch {
	case !open: // nothing is due on a closed invoice: its amount is not reckoned
	case !req.PaidAt.IsZero():
		var err error
		part, err = finance.SettlePart(pi.inv, req.PaidAt, pi.paid, req.Amount)
		var fps finance.Problems
		switch {
		case asProblems(err, &fps):
			ps = append(ps, fps...)
		case err != nil:
			return part, problemsError(err, fmt.Sprintf("invoice %d: part", pi.inv.ID))
		}
	case !req.Amount.IsPositive():
		add("amount", "must be more than zero")
	}
	if len(ps) > 0 {
		return part, finance.InvalidInput(ps)
	}
	return part, nil
}

// partRow is a part as written.
type partRow struct {
	id     int64
	n      int
	split  string
	part   finance.Part
	method string // "" when not said
	reason string // why it is undone ("" when not said)
}

// postPart posts part of pi paid on paidAt and credited on creditAt (zero:
// paidAt) by method ("" when not said): its entries (the lines' share of its principal, its own late
// fee, interest and discount, the guarantees it settles), its settlement
// lines, its row, and the invoice's amounts and status (partially_paid,
// or paid with paid_at and credit_at once it settles the invoice), the
// invoice's auto_transfer_status, and, left partly paid, its stored PIX
// code discarded when it charges more than is left (discardStalePixCode).
func postPart(ctx context.Context, tx pgx.Tx, companyID int64, pi *partInvoice, part finance.Part, paidAt, creditAt finance.Date,
	method string, actor Actor) (partRow, error) {
	id := pi.inv.ID
	what := fmt.Sprintf("invoice %d", id)
	if creditAt.IsZero() {
		creditAt = paidAt
	}
	pi.inv.PaidAt, pi.creditAt = paidAt, creditAt
	in, err := loadPostingInput(ctx, tx, companyID, pi.postingInvoice)
	if err != nil {
		return partRow{}, err
	}
	in.Settlement, in.Part = part.Settlement(), &finance.PartShare{Before: pi.paid.Principal}
	posting, err := finance.PostPayment(in)
	if err != nil {
		return partRow{}, problemsError(err, what+": post part")
	}
	guarantees, err := openGuarantees(ctx, tx, companyID, id)
	if err != nil {
		return partRow{}, translate(err, what+": guarantees")
	}
	settled := finance.PartGuarantees(guarantees, posting.Entries, part.Settles())
	posting.Entries = append(posting.Entries, finance.SettleGuarantees(settled, pi.inv.BusinessID)...)
	row := partRow{n: pi.splits + 1, part: part, method: method}
	row.split = fmt.Sprintf("invoice-%d-payment-%d", id, row.n)
	if err := addSettlementLines(ctx, tx, companyID, id, row.n, posting.Lines); err != nil {
		return row, translate(err, what+": settlement")
	}
	if err := insertEntries(ctx, tx, companyID, pi.postingInvoice, row.split, posting.Entries); err != nil {
		return row, translate(err, what+": entries")
	}
	if row.id, err = insertPartRow(ctx, tx, companyID, id, row, paidAt, creditAt, actor); err != nil {
		return row, translate(err, what+": payment")
	}
	pi.paid.Principal, pi.paid.Parts = pi.paid.Principal.Add(part.Principal), pi.paid.Parts+1
	pi.status, pi.inv.Paid = "partially_paid", part.Settles()
	if part.Settles() {
		pi.status = "paid"
	}
	if err := markPartPaid(ctx, tx, companyID, pi, part, paidAt, creditAt); err != nil {
		return row, translate(err, what+": paid")
	}
	if _, err := writeAutoTransferStatus(ctx, tx, companyID, []int64{id}, Actor{}, "", false); err != nil {
		return row, fmt.Errorf("%s: %w", what, err)
	}
	if !part.Settles() {
		return row, discardStalePixCode(ctx, tx, companyID, pi, part, actor)
	}
	return row, nil
}

// insertPartRow writes a part's row.
func insertPartRow(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64, row partRow, paidAt, creditAt finance.Date,
	actor Actor) (int64, error) {
	var id int64
	kind := actor.Kind
	if kind == "" {
		kind = ActorSystem
	}
	p := row.part
	err := tx.QueryRow(ctx, `
		INSERT INTO invoice_payments (company_id, invoice_id, n, split, amount, principal, late_fee, interest, discount,
		    paid_at, credit_at, actor, actor_id, method, over_paid)
		VALUES ($1, $2, $3, $4, $5::numeric, $6::numeric, $7::numeric, $8::numeric, $9::numeric, $10, $11, $12, nullif($13, 0),
		    nullif($14, ''), $15::numeric)
		RETURNING id`, companyID, invoiceID, row.n, row.split, p.Amount.String(), p.Principal.String(), p.LateFee.String(),
		p.Interest.String(), p.Discount.String(), paidAt, creditAt, kind, actor.ID, row.method, p.OverPaid.String()).Scan(&id)
	return id, err
}

// addSettlementLines adds a part's settlement lines (late fee, interest,
// discount; non-zero only) to the invoice, marked with the part's number.
func addSettlementLines(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64, n int, lines []finance.InvoiceItem) error {
	if len(lines) == 0 {
		return nil
	}
	kinds, items, amounts, descs := make([]string, len(lines)), make([]int64, len(lines)), make([]string, len(lines)), make([]string, len(lines))
	for i, l := range lines {
		kinds[i], items[i], amounts[i], descs[i] = string(l.Kind), l.ItemID, l.Amount.String(), l.Description
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO invoice_items (company_id, invoice_id, kind, item_id, amount, description, payment_n)
		SELECT $1, $2, u.kind, u.item_id, u.amount::numeric, u.description, $7
		FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[]) AS u(kind, item_id, amount, description)`,
		companyID, invoiceID, kinds, items, amounts, descs, n)
	return err
}

// markPartPaid adds a part's amounts to the invoice's paid_* amounts and
// stores its status: partially_paid, or paid (paid, paid_at, credit_at)
// once the part settles it.
func markPartPaid(ctx context.Context, tx pgx.Tx, companyID int64, pi *partInvoice, p finance.Part, paidAt, creditAt finance.Date) error {
	_, err := tx.Exec(ctx, `
		UPDATE invoices
		SET paid_amount = coalesce(paid_amount, 0) + $3::numeric, paid_late_fee = coalesce(paid_late_fee, 0) + $4::numeric,
		    paid_interest = coalesce(paid_interest, 0) + $5::numeric, paid_discount = coalesce(paid_discount, 0) + $6::numeric,
		    status = $7, paid = $8,
		    paid_at = CASE WHEN $8 THEN $9::date END, credit_at = CASE WHEN $8 THEN $10::date END, updated_at = now()
		WHERE company_id = $1 AND id = $2`,
		companyID, pi.inv.ID, p.Amount.String(), p.LateFee.String(), p.Interest.String(), p.Discount.String(),
		pi.status, pi.inv.Paid, paidAt, creditAt)
	return err
}

// partHistory writes the history row of a part posted or undone: the
// invoice's status and amounts as they moved, the part in the note.
func partHistory(ctx context.Context, tx pgx.Tx, sc Scope, pi *partInvoice, before string, row partRow, origin string) error {
	var paid *string
	if err := tx.QueryRow(ctx, `SELECT paid_amount::text FROM invoices WHERE company_id = $1 AND id = $2`,
		sc.CompanyID, pi.inv.ID).Scan(&paid); err != nil {
		return translate(err, fmt.Sprintf("invoice %d", pi.inv.ID))
	}
	var changes []FieldChange
	if before != pi.status {
		changes = append(changes, FieldChange{Field: "status", From: before, To: pi.status})
	}
	var to any
	if paid != nil {
		d, err := decimal.NewFromString(*paid)
		if err != nil {
			return fmt.Errorf("invoice %d: paid amount %q: %w", pi.inv.ID, *paid, err)
		}
		to = finance.Money(d)
	}
	changes = append(changes, FieldChange{Field: "paid_amount", To: to})
	p := row.part
	verb := "paid"
	if origin == OriginPaymentUndone {
		verb = "undone"
	}
	note := fmt.Sprintf("part %d %s: %s (principal %s, late fee %s, interest %s, discount %s), %s of the total open",
		row.n, verb, p.Amount.StringFixed(2), p.Principal.StringFixed(2), p.LateFee.StringFixed(2), p.Interest.StringFixed(2),
		p.Discount.StringFixed(2), pi.inv.Total.Sub(pi.paid.Principal).StringFixed(2))
	if row.method != "" {
		note += "; method " + row.method
	}
	if p.OverPaid.IsPositive() {
		note += fmt.Sprintf("; %s paid over what was due, booked nowhere (an over_payment alert)", p.OverPaid.StringFixed(2))
	}
	if row.reason != "" {
		note += "; reason: " + row.reason
	}
	return writeHistories(ctx, tx, sc.CompanyID, ActorOf(sc), origin, []historyRow{{invoiceID: pi.inv.ID, changes: changes, note: note}})
}

// partInvoiceStatusSQL is the invoice's status as the invoices resource
// reads it today (an unpaid one past its due date reads overdue).
var partInvoiceStatusSQL = qualified(invoiceStatusExpr, "i")

// readPart reads a part and its invoice as the answer shows them.
func readPart(ctx context.Context, tx pgx.Tx, companyID, invoiceID, partID int64) (InvoicePart, error) {
	var out InvoicePart
	var undone *string
	var paid *decimal.Decimal
	err := tx.QueryRow(ctx, `
		SELECT p.id, p.invoice_id, p.n, p.split, p.amount::text, p.principal::text, p.late_fee::text, p.interest::text,
		       p.discount::text, p.paid_at, p.credit_at, p.method, p.over_paid::text, p.undone_at::text, p.undo_reason,
		       `+partInvoiceStatusSQL+`, i.paid, i.paid_amount::text,
		       (CASE WHEN i.paid OR i.status IN ('paid', 'canceled', 'refunded', 'uncollectible', 'renegotiated') THEN 0
		            ELSE i.total - coalesce((SELECT sum(s.principal) FROM invoice_payments s
		                                     WHERE s.company_id = i.company_id AND s.invoice_id = i.id AND s.undone_at IS NULL), 0) END)::text
		FROM invoice_payments p JOIN invoices i ON i.company_id = p.company_id AND i.id = p.invoice_id
		WHERE p.company_id = $1 AND p.invoice_id = $2 AND p.id = $3`, companyID, invoiceID, partID).Scan(
		&out.ID, &out.InvoiceID, &out.N, &out.Split, (*decimal.Decimal)(&out.Amount), (*decimal.Decimal)(&out.Principal),
		(*decimal.Decimal)(&out.LateFee), (*decimal.Decimal)(&out.Interest), (*decimal.Decimal)(&out.Discount),
		&out.PaidAt, &out.CreditAt, &out.Method, (*decimal.Decimal)(&out.OverPaid), &undone, &out.UndoReason,
		&out.Invoice.Status, &out.Invoice.Paid, &paid, (*decimal.Decimal)(&out.Invoice.Balance))
	if err != nil {
		return out, translate(err, fmt.Sprintf("invoice %d: payment %d", invoiceID, partID))
	}
	out.Undone = undone != nil
	if paid != nil {
		m := finance.Money(*paid)
		out.Invoice.PaidAmount = &m
	}
	return out, nil
}

// asProblems reports whether err is a finance.Problems, and sets ps.
func asProblems(err error, ps *finance.Problems) bool {
	p, ok := err.(finance.Problems)
	if ok {
		*ps = p
	}
	return ok
}

// UndoInvoicePart undoes the part partID of invoice id, which must be the
// latest standing one (docs/ledger.md, "Part payments"), in a transaction
// of db: the reversal of its entries dated today (and of the invoice's
// refunds, which took from every part: refunded_amount cleared), its
// settlement lines
// removed, its amounts taken off the invoice's, the owners' transfers the
// run wrote unpaid from it voided (as UndoInvoicePayment voids them), its
// row marked undone, the invoice partially_paid again, or unpaid when no
// part is left, with a history row (origin payment_undone) and its event
// (invoice.payment_reversed). reason (optional, "" for none) is kept on
// the part's row (undo_reason) and in the history row's note.
// 404 for a part not of the invoice, or an invoice of another company;
// 409 for a part undone already, one that is not the latest (naming the
// latest), an invoice written off (its write-off is undone first), an
// agreement's installment (paid: false), and while a transfer it would
// void is in a payment batch.
func UndoInvoicePart(ctx context.Context, db Beginner, sc Scope, id, partID int64, reason string) (InvoicePart, error) {
	var out InvoicePart
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		pi, err := lockPartInvoice(ctx, tx, sc.CompanyID, id)
		if err != nil {
			return err
		}
		row, err := undoablePart(ctx, tx, sc.CompanyID, pi, partID)
		if err != nil {
			return err
		}
		row.reason = reason
		before := pi.status
		standing, err := readStandingPayments(ctx, tx, sc.CompanyID, id)
		if err != nil {
			return err
		}
		if err := undoPart(ctx, tx, sc.CompanyID, pi, row); err != nil {
			return err
		}
		if err := partHistory(ctx, tx, sc, pi, before, row, OriginPaymentUndone); err != nil {
			return err
		}
		if _, err := EmitRecordEvents(ctx, tx, sc.CompanyID, EventInvoicePaymentReversed, Invoices, []int64{id}, ""); err != nil {
			return err
		}
		if out, err = readPart(ctx, tx, sc.CompanyID, id, partID); err != nil {
			return err
		}
		out.RefundsNote = standing.refundsNote(id, len(standing.parts)-1)
		// what was due on its paid_at, as its recording answered: the parts
		// before it are the ones standing now (it was the latest)
		s, err := finance.DueOn(pi.inv, out.PaidAt, pi.paid)
		if err != nil {
			return fmt.Errorf("invoice %d: payment %d: due on %s: %w", id, partID, out.PaidAt, err)
		}
		due := finance.Money(s.Total)
		out.Due = &due
		return nil
	})
	return out, err
}

// undoablePart reads the part partID of pi and refuses to undo it unless
// it is the latest standing part, not of an agreement's installment.
func undoablePart(ctx context.Context, tx pgx.Tx, companyID int64, pi *partInvoice, partID int64) (partRow, error) {
	id := pi.inv.ID
	row := partRow{id: partID}
	p := &row.part
	var undone bool
	err := tx.QueryRow(ctx, `SELECT n, split, amount::text, principal::text, late_fee::text, interest::text, discount::text,
		    undone_at IS NOT NULL
		FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2 AND id = $3`, companyID, id, partID).Scan(
		&row.n, &row.split, &p.Amount, &p.Principal, &p.LateFee, &p.Interest, &p.Discount, &undone)
	if err != nil {
		if finance.ErrorCode(translate(err, "")) == finance.NotFound {
			return row, finance.Errorf(finance.NotFound, "Payment %d of invoice %d not found.", partID, id)
		}
		return row, translate(err, fmt.Sprintf("invoice %d: payment %d", id, partID))
	}
	if undone {
		return row, finance.Errorf(finance.Conflict, "Payment %d (part %d) of invoice %d is undone already.", partID, row.n, id)
	}
	if pi.status == "uncollectible" {
		return row, finance.Errorf(finance.Conflict, "Invoice %d is written off: undo its write-off (PUT /invoices/%d with status "+
			"unpaid) before undoing its parts.", id, id)
	}
	var laterID int64
	var laterN int
	err = tx.QueryRow(ctx, `SELECT id, n FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2 AND undone_at IS NULL
		AND n > $3 ORDER BY n DESC LIMIT 1`, companyID, id, row.n).Scan(&laterID, &laterN)
	switch {
	case err == nil:
		return row, finance.Errorf(finance.Conflict, "Payment %d (part %d) of invoice %d is not its latest: part %d (payment %d) "+
			"was paid after it; undo the parts from the latest (DELETE /invoices/%d/payments/%d first).",
			partID, row.n, id, laterN, laterID, id, laterID)
	case finance.ErrorCode(translate(err, "")) != finance.NotFound:
		return row, translate(err, fmt.Sprintf("invoice %d: later payments", id))
	}
	var installment bool
	if err := tx.QueryRow(ctx, `SELECT agreement_installment IS NOT NULL FROM invoices WHERE company_id = $1 AND id = $2`,
		companyID, id).Scan(&installment); err != nil {
		return row, translate(err, fmt.Sprintf("invoice %d", id))
	}
	if installment {
		return row, finance.Errorf(finance.Conflict, "Invoice %d is an installment of an agreement: undo its payment with PUT /invoices/%d, "+
			"paid: false and its billing_method.", id, id)
	}
	return row, nil
}

// undoPart reverses the part row of pi and takes it off the invoice.
func undoPart(ctx context.Context, tx pgx.Tx, companyID int64, pi *partInvoice, row partRow) error {
	id := pi.inv.ID
	what := fmt.Sprintf("invoice %d: undo payment %d", id, row.id)
	voided, err := lockTransfersOfSplit(ctx, tx, companyID, id, nil, row.split)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := refuseBatchedTransfers(id, voided); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, reversePartSQL, companyID, id, row.split); err != nil {
		return translate(err, what+": reverse entries")
	}
	if _, err := tx.Exec(ctx, reverseRefundsSQL, companyID, id); err != nil {
		return translate(err, what+": reverse refunds")
	}
	if err := voidTransfers(ctx, tx, companyID, voided); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM invoice_items WHERE company_id = $1 AND invoice_id = $2 AND kind <> 'line' AND payment_n = $3`,
		companyID, id, row.n); err != nil {
		return translate(err, what+": settlement lines")
	}
	if _, err := tx.Exec(ctx, `UPDATE invoice_payments SET undone_at = now(), undo_reason = nullif($3, ''), updated_at = now()
		WHERE company_id = $1 AND id = $2`, companyID, row.id, row.reason); err != nil {
		return translate(err, what)
	}
	pi.paid.Principal, pi.paid.Parts = pi.paid.Principal.Sub(row.part.Principal), pi.paid.Parts-1
	pi.status, pi.inv.Paid = "partially_paid", false
	if pi.paid.Parts == 0 {
		if pi.status, err = statusBeforeParts(ctx, tx, companyID, id); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	p := row.part
	if _, err := tx.Exec(ctx, `
		UPDATE invoices
		SET paid_amount = CASE WHEN $8 THEN paid_amount - $3::numeric END,
		    paid_late_fee = CASE WHEN $8 THEN paid_late_fee - $4::numeric END,
		    paid_interest = CASE WHEN $8 THEN paid_interest - $5::numeric END,
		    paid_discount = CASE WHEN $8 THEN paid_discount - $6::numeric END,
		    refunded_amount = NULL, status = $7, paid = false, paid_at = NULL, credit_at = NULL, updated_at = now()
		WHERE company_id = $1 AND id = $2`, companyID, id, p.Amount.String(), p.LateFee.String(), p.Interest.String(),
		p.Discount.String(), pi.status, pi.paid.Parts > 0); err != nil {
		return translate(err, what+": invoice")
	}
	if _, err := writeAutoTransferStatus(ctx, tx, companyID, []int64{id}, Actor{}, "", false); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// statusBeforeParts is the status an invoice goes back to when its last
// standing part is undone: in_protest when it was in protest before its
// first part (the latest payment in its history moving it from an open
// status to partially_paid or paid), else unpaid (the overdue run marks
// it overdue again).
func statusBeforeParts(ctx context.Context, tx pgx.Tx, companyID, id int64) (string, error) {
	var before string
	err := tx.QueryRow(ctx, `SELECT c->>'from' FROM invoice_history h CROSS JOIN LATERAL jsonb_array_elements(h.changes) c
		WHERE h.company_id = $1 AND h.invoice_id = $2 AND h.origin = $3
		  AND c->>'field' = 'status' AND c->>'to' IN ('partially_paid', 'paid')
		  AND c->>'from' NOT IN ('partially_paid', 'paid')
		ORDER BY h.id DESC LIMIT 1`, companyID, id, OriginPayment).Scan(&before)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", translate(err, fmt.Sprintf("invoice %d: status before its parts", id))
	}
	if before == string(finance.InvoiceInProtest) {
		return before, nil
	}
	return string(finance.InvoiceUnpaid), nil
}

// partPostingFields names the problems of a part's posting by the part's
// body: what the settlement books (the late fee and interest, a discount)
// is carried by the part's amount, where a paid invoice's write names its
// paid flag.
func partPostingFields(err error) error {
	var e *finance.Error
	if !errors.As(err, &e) || len(e.Problems) == 0 {
		return err
	}
	for i := range e.Problems {
		if e.Problems[i].Field == "paid" {
			e.Problems[i].Field = "amount"
		}
	}
	return e
}
