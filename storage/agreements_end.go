package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// How an agreement ends (docs/api.md, "/financial/agreements"): fulfilled
// when its last installment is paid (the payments keep it:
// keepAgreementStatus), canceled before any installment is paid, broken
// on request or by the nightly run. Every function locks the collection
// batches holding its installments first (in id order: a batch operation
// locks its batch before its invoices), then the invoices (in id order)
// and the agreement after them, the order a payment takes them in. An
// installment canceled leaves its collection batch as the batch
// operations take it out (takeOutOfTicketBatches): removed before the
// batch's file, reverted after it, so that the account's next file asks
// the bank to drop its title.

// Who broke an agreement (broken_by).
const (
	BrokenByRequest = "request" // POST /financial/agreements/{id}/break
	BrokenByOverdue = "overdue" // the nightly overdue run
)

// lockedAgreement is an agreement locked for its end, with its invoices.
type lockedAgreement struct {
	id, companyID int64
	status        string
	invoiceIDs    []int64
	installments  []int64
	debts         []AgreementDebt
	today         finance.Date
	// batches are the collection batches holding an installment, locked
	// before the invoices.
	batches map[int64]*Batch
}

// lockAgreement locks the collection batches holding its installments,
// the agreement's invoices (originals and installments, in id order),
// then the agreement, and reads it. Another company's agreement, or none,
// is not found.
func lockAgreement(ctx context.Context, tx pgx.Tx, companyID, id int64) (*lockedAgreement, error) {
	a := &lockedAgreement{id: id, companyID: companyID}
	err := tx.QueryRow(ctx, `SELECT invoice_ids, installment_ids FROM agreements WHERE company_id = $1 AND id = $2`,
		companyID, id).Scan(&a.invoiceIDs, &a.installments)
	if err != nil {
		return nil, translateNotFound(err, id, "agreement")
	}
	if a.batches, err = lockTicketBatchesOf(ctx, tx, companyID, a.installments); err != nil {
		return nil, err
	}
	ids := slices.Concat(a.invoiceIDs, a.installments)
	slices.Sort(ids)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM invoices WHERE company_id = $1 AND id = any($2) ORDER BY id FOR UPDATE`,
		companyID, ids); err != nil {
		return nil, translate(err, "lock the agreement's invoices")
	}
	var debts []byte
	err = tx.QueryRow(ctx, `SELECT status, debts, company_today(company_id) FROM agreements
		WHERE company_id = $1 AND id = $2 FOR UPDATE`, companyID, id).Scan(&a.status, &debts, &a.today)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("agreement %d", id))
	}
	if err := json.Unmarshal(debts, &a.debts); err != nil {
		return nil, fmt.Errorf("agreement %d: debts: %w", id, err)
	}
	return a, nil
}

// translateNotFound is translate with a record's not found.
func translateNotFound(err error, id int64, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return recordNotFound(id)
	}
	return translate(err, fmt.Sprintf("%s %d", what, id))
}

// installmentState is an installment as an agreement's end reads it.
type installmentState struct {
	id     int64
	number int
	paid   bool
	status string
}

func (a *lockedAgreement) readInstallments(ctx context.Context, tx pgx.Tx) ([]installmentState, error) {
	rows, err := tx.Query(ctx, `SELECT id, agreement_installment, paid, status FROM invoices
		WHERE company_id = $1 AND id = any($2) ORDER BY agreement_installment`, a.companyID, a.installments)
	if err != nil {
		return nil, translate(err, "installments")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (installmentState, error) {
		var s installmentState
		err := row.Scan(&s.id, &s.number, &s.paid, &s.status)
		return s, err
	})
	return out, translate(err, "installments")
}

// CancelAgreement cancels an active agreement none of whose installments
// is paid: the installments canceled (out of their collection batches),
// the originals given back as they
// were (their status before the agreement, overdue or unpaid as their due
// date says now), a history row and an event each, in one transaction of
// db (a pool, or the transaction of a keyed write). A paid installment,
// or an agreement no longer active, is a 409.
func CancelAgreement(ctx context.Context, db Beginner, sc Scope, id int64) error {
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		a, err := lockAgreement(ctx, tx, sc.CompanyID, id)
		if err != nil {
			return err
		}
		if a.status != AgreementActive {
			return finance.Errorf(finance.Conflict, "The agreement is %s: only an active agreement is canceled.", a.status)
		}
		installments, err := a.readInstallments(ctx, tx)
		if err != nil {
			return err
		}
		for _, in := range installments {
			if in.paid {
				return finance.Errorf(finance.Conflict, "Installment %d (invoice %d) is paid: an agreement is canceled before any "+
					"installment is paid; break it instead (POST /financial/agreements/%d/break).", in.number, in.id, id)
			}
		}
		actor := ActorOf(sc)
		if _, err := cancelInstallments(ctx, tx, a, actor, OriginAgreementCanceled, installments); err != nil {
			return err
		}
		if err := giveBack(ctx, tx, a, actor, OriginAgreementCanceled, nil); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE agreements SET status = 'canceled', canceled_at = $3, updated_at = now()
			WHERE company_id = $1 AND id = $2`, sc.CompanyID, id, a.today)
		return translate(err, "cancel the agreement")
	})
}

// BreakAgreement breaks an active agreement on request (broken_by
// request), in one transaction of db (a pool, or the transaction of a
// keyed write); breakAgreement says how. An agreement no longer active is
// a 409.
func BreakAgreement(ctx context.Context, db Beginner, sc Scope, id int64) error {
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		a, err := lockAgreement(ctx, tx, sc.CompanyID, id)
		if err != nil {
			return err
		}
		if a.status != AgreementActive {
			return finance.Errorf(finance.Conflict, "The agreement is %s: only an active agreement is broken.", a.status)
		}
		_, err = breakAgreement(ctx, tx, a, ActorOf(sc), BrokenByRequest)
		return err
	})
}

// breakAgreement breaks a locked active agreement: the installments not
// paid are canceled (out of their collection batches: it answers how many
// were removed and reverted), the originals given back less what the paid
// installments carried of each of their lines (finance.ReopenOriginal:
// docs/finance.md, "A broken agreement"), each in its status before the
// agreement (overdue or unpaid as its due date says now), and the
// agreement broken, dated today, with a history row per invoice.
func breakAgreement(ctx context.Context, tx pgx.Tx, a *lockedAgreement, actor Actor, by string) (slipsTakenOut, error) {
	installments, err := a.readInstallments(ctx, tx)
	if err != nil {
		return slipsTakenOut{}, err
	}
	var paid []int64
	var unpaid []installmentState
	for _, in := range installments {
		if in.paid {
			paid = append(paid, in.id)
		} else {
			unpaid = append(unpaid, in)
		}
	}
	carried, err := readCarriedLines(ctx, tx, a.companyID, paid)
	if err != nil {
		return slipsTakenOut{}, err
	}
	slips, err := cancelInstallments(ctx, tx, a, actor, OriginAgreementBroken, unpaid)
	if err != nil {
		return slips, err
	}
	if err := giveBack(ctx, tx, a, actor, OriginAgreementBroken, carried); err != nil {
		return slips, err
	}
	_, err = tx.Exec(ctx, `UPDATE agreements SET status = 'broken', broken_at = $3, broken_by = $4, updated_at = now()
		WHERE company_id = $1 AND id = $2`, a.companyID, a.id, a.today, by)
	return slips, translate(err, "break the agreement")
}

// readCarriedLines reads the lines of the paid installments ids with
// their origins.
func readCarriedLines(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) ([]finance.AgreementLine, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `SELECT agreement_part, origin_invoice_id, coalesce(origin_line_id, 0), item_id, amount
		FROM invoice_items WHERE company_id = $1 AND invoice_id = any($2) AND kind = 'line' AND origin_invoice_id IS NOT NULL
		ORDER BY id`, companyID, ids)
	if err != nil {
		return nil, translate(err, "lines of the paid installments")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.AgreementLine, error) {
		var l finance.AgreementLine
		var part string
		err := row.Scan(&part, &l.OriginInvoiceID, &l.OriginLineID, &l.ItemID, &l.Amount)
		l.Part = finance.AgreementPart(part)
		return l, err
	})
	return out, translate(err, "lines of the paid installments")
}

// cancelInstallments cancels installments, a history row and an
// invoice.canceled event each, after taking them out of their collection
// batches as removeInvoices and revertInvoices do (their history rows
// naming the agreement's end); it answers how many were removed and
// reverted.
func cancelInstallments(ctx context.Context, tx pgx.Tx, a *lockedAgreement, actor Actor, origin string,
	installments []installmentState) (slipsTakenOut, error) {
	if len(installments) == 0 {
		return slipsTakenOut{}, nil
	}
	ids := make([]int64, len(installments))
	hist := make([]historyRow, len(installments))
	for i, in := range installments {
		ids[i] = in.id
		hist[i] = historyRow{invoiceID: in.id, changes: []FieldChange{{Field: "status", From: in.status, To: "canceled"}},
			note: fmt.Sprintf("installment %d of agreement %d, %s", in.number, a.id, endWord(origin))}
	}
	slips, err := takeOutOfTicketBatches(ctx, tx, a.companyID, a.batches, actor, ids,
		fmt.Sprintf("installment canceled: agreement %d %s", a.id, endWord(origin)))
	if err != nil {
		return slips, err
	}
	if _, err := tx.Exec(ctx, `UPDATE invoices SET status = 'canceled', pix_code = NULL, updated_at = now()
		WHERE company_id = $1 AND id = any($2)`, a.companyID, ids); err != nil {
		return slips, translate(err, "cancel installments")
	}
	if _, err := EmitRecordEvents(ctx, tx, a.companyID, EventInvoiceCanceled, Invoices, ids, ""); err != nil {
		return slips, err
	}
	return slips, writeHistories(ctx, tx, a.companyID, actor, origin, hist)
}

// endWord is how a history note names the end.
func endWord(origin string) string {
	if origin == OriginAgreementBroken {
		return "broken"
	}
	return "canceled"
}

// givenBackStatus is the status an original is given back in: in_protest
// when it was protested, else overdue or unpaid by its due date today.
func givenBackStatus(before string, due, today finance.Date) string {
	switch {
	case before == string(finance.InvoiceInProtest):
		return before
	case due.Before(today):
		return string(finance.InvoiceOverdue)
	}
	return string(finance.InvoiceUnpaid)
}

// giveBack gives the originals back: each in its status before the
// agreement, with its lines less what carried holds of them (nothing on a
// cancel), its total what its lines then charge the payer, a history row
// and an invoice.updated event each, and invoice.overdue for each given
// back overdue (EmitMadeOverdue).
func giveBack(ctx context.Context, tx pgx.Tx, a *lockedAgreement, actor Actor, origin string, carried []finance.AgreementLine) error {
	lines, err := readClientLines(ctx, tx, a.companyID, a.invoiceIDs)
	if err != nil {
		return err
	}
	var itemIDs []int64
	for _, ls := range lines {
		for _, l := range ls {
			itemIDs = append(itemIDs, l.ItemID)
		}
	}
	c, err := postingItemsOf(ctx, tx, a.companyID, itemIDs)
	if err != nil {
		return translate(err, "items of the originals")
	}
	var hist []historyRow
	var overdue []int64
	for _, d := range a.debts {
		h, err := giveBackOne(ctx, tx, a, d, lines[d.InvoiceID], c.items, carried)
		if err != nil {
			return err
		}
		h.note = fmt.Sprintf("given back by agreement %d, %s", a.id, endWord(origin))
		hist = append(hist, h)
		if h.changes[0].To == string(finance.InvoiceOverdue) {
			overdue = append(overdue, d.InvoiceID)
		}
	}
	if _, err := EmitRecordEvents(ctx, tx, a.companyID, EventInvoiceUpdated, Invoices, a.invoiceIDs, ""); err != nil {
		return err
	}
	if err := EmitMadeOverdue(ctx, tx, a.companyID, overdue); err != nil {
		return err
	}
	return writeHistories(ctx, tx, a.companyID, actor, origin, hist)
}

// giveBackOne gives one original back and returns its history row.
func giveBackOne(ctx context.Context, tx pgx.Tx, a *lockedAgreement, d AgreementDebt, lines []finance.InvoiceItem,
	items []finance.TransactionItem, carried []finance.AgreementLine) (historyRow, error) {
	var total decimal.Decimal
	var due finance.Date
	if err := tx.QueryRow(ctx, `SELECT total, due_date FROM invoices WHERE company_id = $1 AND id = $2`,
		a.companyID, d.InvoiceID).Scan(&total, &due); err != nil {
		return historyRow{}, translate(err, fmt.Sprintf("original %d", d.InvoiceID))
	}
	inv := finance.Invoice{ID: d.InvoiceID, Total: total, Items: lines}
	back, err := finance.ReopenOriginal(inv, items, carried)
	if err != nil {
		return historyRow{}, problemsError(err, fmt.Sprintf("give back invoice %d", d.InvoiceID))
	}
	status := givenBackStatus(d.Status, due, a.today)
	h := historyRow{invoiceID: d.InvoiceID, changes: []FieldChange{{Field: "status", From: "renegotiated", To: status}}}
	var changedIDs []int64
	var changedAmounts []string
	before, after := []invoiceLine{}, []invoiceLine{}
	for i, l := range back.Items {
		desc := lines[i].Description
		before = append(before, invoiceLine{ID: l.ID, ItemID: l.ItemID, Amount: json.RawMessage(lines[i].Amount.StringFixed(2)), Description: &desc})
		after = append(after, invoiceLine{ID: l.ID, ItemID: l.ItemID, Amount: json.RawMessage(l.Amount.StringFixed(2)), Description: &desc})
		if !l.Amount.Equal(lines[i].Amount) {
			changedIDs, changedAmounts = append(changedIDs, l.ID), append(changedAmounts, l.Amount.String())
		}
	}
	if len(changedIDs) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE invoice_items l SET amount = u.amount::numeric, updated_at = now()
			FROM unnest($2::bigint[], $3::text[]) AS u(id, amount)
			WHERE l.company_id = $1 AND l.id = u.id`, a.companyID, changedIDs, changedAmounts); err != nil {
			return h, translate(err, fmt.Sprintf("lines of original %d", d.InvoiceID))
		}
		h.changes = append(h.changes, FieldChange{Field: "total", From: finance.Money(total), To: finance.Money(back.Total)},
			FieldChange{Field: "items", From: before, To: after})
	}
	_, err = tx.Exec(ctx, `UPDATE invoices SET status = $3, total = $4, updated_at = now() WHERE company_id = $1 AND id = $2`,
		a.companyID, d.InvoiceID, status, numeric(back.Total))
	return h, translate(err, fmt.Sprintf("give back original %d", d.InvoiceID))
}

// keepAgreementStatus brings the agreements whose installments are among
// ids to what their installments say, once their payments are posted or
// undone in tx: fulfilled (dated today) when every installment is paid,
// active again when a fulfilled agreement's installment is no longer. A
// broken or canceled agreement keeps its status. The agreements are
// locked after the invoices, in id order.
func keepAgreementStatus(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) error {
	_, err := tx.Exec(ctx, `
		WITH touched AS (
			SELECT DISTINCT agreement_id AS id FROM invoices
			WHERE company_id = $1 AND id = any($2) AND agreement_installment IS NOT NULL
		), locked AS (
			SELECT a.id, a.status, a.installment_ids FROM agreements a
			WHERE a.company_id = $1 AND a.id IN (SELECT id FROM touched) AND a.status IN ('active', 'fulfilled')
			ORDER BY a.id FOR UPDATE
		), now_is AS (
			SELECT l.id, CASE WHEN bool_and(i.paid) THEN 'fulfilled' ELSE 'active' END AS status
			FROM locked l JOIN invoices i ON i.company_id = $1 AND i.id = any(l.installment_ids)
			GROUP BY l.id
		)
		UPDATE agreements a SET status = n.status,
			fulfilled_at = CASE WHEN n.status = 'fulfilled' THEN company_today($1) END, updated_at = now()
		FROM now_is n
		WHERE a.company_id = $1 AND a.id = n.id AND a.status <> n.status`, companyID, ids)
	return translate(err, "agreement statuses")
}

// BreakOverdueAgreements breaks, on c.AsOf, the company's active
// agreements of ids c.From..c.To with an installment still owed whose due
// date is more than the company's agreement_break_days before c.AsOf
// (broken_by overdue, actor the chunk's job), in tx; it returns how many
// it broke, and how many of their installments' slips left their
// collection batches. Each is broken as a request would break it
// (breakAgreement), dated the company's today.
func BreakOverdueAgreements(ctx context.Context, tx pgx.Tx, c OverdueChunk) (BrokenAgreements, error) {
	companyID, asOf := c.CompanyID, c.AsOf
	rows, err := tx.Query(ctx, `
		SELECT a.id FROM agreements a JOIN companies c ON c.id = a.company_id
		WHERE a.company_id = $1 AND a.status = 'active' AND a.id BETWEEN $3 AND $4
		  AND EXISTS (SELECT 1 FROM invoices i WHERE i.company_id = a.company_id AND i.id = any(a.installment_ids)
		              AND NOT i.paid AND i.status IN ('unpaid', 'overdue', 'in_protest')
		              AND i.due_date < $2::date - c.agreement_break_days)
		ORDER BY a.id`, companyID, asOf, c.From, c.To)
	if err != nil {
		return BrokenAgreements{}, translate(err, "overdue agreements")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return BrokenAgreements{}, translate(err, "overdue agreements")
	}
	actor := Actor{Kind: ActorJob, ID: c.JobID}
	var n BrokenAgreements
	for _, id := range ids {
		a, err := lockAgreement(ctx, tx, companyID, id)
		if err != nil {
			return n, err
		}
		if a.status != AgreementActive { // ended since it was read
			continue
		}
		slips, err := breakAgreement(ctx, tx, a, actor, BrokenByOverdue)
		if err != nil {
			return n, fmt.Errorf("break agreement %d: %w", id, err)
		}
		n.Broken++
		n.SlipsRemoved += slips.removed
		n.SlipsReverted += slips.reverted
	}
	return n, nil
}

// BrokenAgreements is what BreakOverdueAgreements did: the agreements it
// broke, and their canceled installments taken out of their collection
// batches, removed from a batch without a file or reverted in one whose
// file is written (the account's next file asks the bank to drop them).
type BrokenAgreements struct {
	Broken, SlipsRemoved, SlipsReverted int64
}
