package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/propfin/propfin/finance"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// The rules of invoice writes, declared as hooks of the invoices resource
// (invoices.go). docs/api.md, "Invoices", says what clients see.

// invoiceStatusMoves are the statuses a client may set, from each current
// status (as read today). paid, overdue and partially_paid are never set
// by a client: paid follows `paid`, overdue the due date, partially_paid
// the posting; refunded and uncollectible are set by the refund and the
// write-off (invoices_refund.go), which book them. uncollectible → unpaid
// undoes the write-off (undoWriteOff).
var invoiceStatusMoves = map[string][]string{
	"unpaid":         {"in_protest", "canceled"},
	"overdue":        {"unpaid", "in_protest", "canceled"},
	"in_protest":     {"unpaid", "canceled"},
	"canceled":       {"unpaid"},
	"uncollectible":  {"unpaid"},
	"paid":           {},
	"refunded":       {},
	"partially_paid": {},
	// moved by its agreement alone (agreements.go): canceled or broken
	"renegotiated": {},
}

// payableStatuses are the statuses from which an invoice may be marked paid.
var payableStatuses = []string{"unpaid", "overdue", "in_protest", "partially_paid"}

// frozenWhenPaid are the columns a paid invoice keeps until its payment
// is undone (besides its items).
var frozenWhenPaid = []string{"total", "due_date", "paid_at", "credit_at"}

func oldPaid(c *Change) bool { return c.OldValue("paid") == true }
func newPaid(c *Change) bool { return c.Value("paid") == true }

// oldPartlyPaid reports whether the invoice was partially_paid before the
// write: parts posted, paid false.
func oldPartlyPaid(c *Change) bool { return c.OldValue("status") == "partially_paid" }

// paying reports whether the write marks the invoice paid; undoing,
// whether it marks a paid invoice unpaid (every part of its payment is
// undone). A partially paid invoice is not paid: paid false is no change
// to it, its parts are undone one by one (DELETE
// /invoices/{id}/payments/{part}), so that a write sending the record as
// read never undoes them.
func paying(c *Change) bool  { return c.Op != OpDelete && newPaid(c) && !oldPaid(c) }
func undoing(c *Change) bool { return c.Op == OpUpdate && oldPaid(c) && !newPaid(c) }

// holdsPayment reports whether the invoice holds a payment before the
// write: paid, or partially paid.
func holdsPayment(c *Change) bool { return oldPaid(c) || oldPartlyPaid(c) }

// invoiceStatusRules keeps the stored status: paid with paid=true, unpaid
// when a payment is undone, and the moves of invoiceStatusMoves when a
// client sets it; any other is a 422 naming status (or paid).
func invoiceStatusRules(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpDelete {
		return nil
	}
	current := "unpaid"
	if s, ok := c.OldValue("status").(string); ok {
		current = s
	}
	raw, given := c.New.Values["status"]
	wanted, _ := raw.(string)
	if given && raw == nil {
		return problem("status", "cannot be null")
	}
	changing := given && wanted != current
	switch {
	case paying(c):
		if changing && wanted != "paid" {
			return problem("status", "cannot change in the write that marks the invoice paid")
		}
		if current == "renegotiated" {
			return problem("paid", "a renegotiated invoice cannot be marked paid: its agreement's installments are paid instead")
		}
		if !slices.Contains(payableStatuses, current) {
			return problem("paid", fmt.Sprintf("a %s invoice cannot be marked paid; set its status to unpaid first", current))
		}
		c.Set("status", "paid")
	case undoing(c):
		if changing && wanted != "unpaid" {
			return problem("status", "cannot change in the write that undoes the payment")
		}
		c.Set("status", "unpaid")
	case changing:
		if msg := statusMoveProblem(current, wanted); msg != "" {
			return problem("status", msg)
		}
		return partlyPaidAgain(ctx, tx, c, current, wanted)
	}
	return nil
}

// partlyPaidAgain stores partially_paid rather than unpaid when a write
// moves an invoice with standing parts back to unpaid (undoing its
// write-off): what its parts paid still stands.
func partlyPaidAgain(ctx context.Context, tx pgx.Tx, c *Change, current, wanted string) error {
	if current != "uncollectible" || wanted != "unpaid" {
		return nil
	}
	var parts bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2
		AND undone_at IS NULL)`, c.Scope.CompanyID, c.ID).Scan(&parts); err != nil {
		return fmt.Errorf("payments of invoice %d: %w", c.ID, err)
	}
	if parts {
		c.Set("status", "partially_paid")
	}
	return nil
}

// statusMoveProblem says why a client may not move an invoice from
// current to wanted; "" when it may.
func statusMoveProblem(current, wanted string) string {
	allowed := invoiceStatusMoves[current]
	switch {
	case slices.Contains(allowed, wanted):
		return ""
	case wanted == "paid":
		return "becomes paid through paid: true with paid_at"
	case wanted == "overdue" || wanted == "partially_paid":
		return "is kept by the system: overdue follows the due date, partially_paid the payment"
	case wanted == "refunded":
		return "is set by a refund of the whole payment: POST /invoices/{id}/refund"
	case wanted == "uncollectible":
		return "is set by a write-off, which books its loss: POST /invoices/{id}/writeOff"
	case wanted == "renegotiated":
		return "is set by an agreement (POST /financial/agreements)"
	case current == "renegotiated":
		return "cannot change: the invoice is renegotiated; cancel or break its agreement (POST /financial/agreements/{id}/cancel or /break)"
	case current == "partially_paid":
		return fmt.Sprintf("cannot change from partially_paid to %s: undo its parts first (DELETE /invoices/{id}/payments/{part}, "+
			"the latest first)", wanted)
	case current == "paid" || current == "refunded":
		return fmt.Sprintf("cannot change from %s to %s: undo the payment first (paid: false)", current, wanted)
	}
	return fmt.Sprintf("cannot change from %s to %s; allowed: %s", current, wanted, strings.Join(allowed, ", "))
}

// invoicePayment checks the dates of a payment (paid_at required with
// paid: true, credit_at defaulting to paid_at) and undoes the posting of
// a payment the write takes back, clearing its dates.
func invoicePayment(ctx context.Context, tx pgx.Tx, c *Change) error {
	switch {
	case paying(c):
		if c.New.Values["paid_at"] == nil {
			return problem("paid_at", "is required when paid is true")
		}
		if err := notAfterToday(ctx, tx, c.Scope.CompanyID, "paid_at", c.New.Values["paid_at"]); err != nil {
			return err
		}
		if !c.Given("credit_at") || c.New.Values["credit_at"] == nil {
			c.Set("credit_at", c.New.Values["paid_at"])
		}
		paid, _ := c.New.Values["paid_at"].(time.Time)
		credit, _ := c.New.Values["credit_at"].(time.Time)
		if msg := CreditDateProblem(finance.DateOf(paid), finance.DateOf(credit)); msg != "" { // as a part's, as a return file's
			return problem("credit_at", msg)
		}
	case undoing(c):
		for _, col := range []string{"paid_at", "credit_at"} {
			if c.New.Values[col] != nil {
				return problem(col, "cannot be set in the write that undoes the payment")
			}
			c.Set(col, nil)
		}
		undone, err := readStandingPayments(ctx, tx, c.Scope.CompanyID, c.ID)
		if err != nil {
			return err
		}
		if err := UndoInvoicePayment(ctx, tx, c.Scope.CompanyID, c.ID); err != nil {
			return fmt.Errorf("undo payment of invoice %d: %w", c.ID, err)
		}
		undone.warnUndone(c)
	case c.Op != OpDelete && !newPaid(c):
		for _, col := range []string{"paid_at", "credit_at"} {
			if c.New.Values[col] != nil {
				return problem(col, "can only be set with paid: true")
			}
		}
		if c.Op == OpUpdate && oldPartlyPaid(c) && c.Given("paid") {
			return warnPartsStand(ctx, tx, c)
		}
	}
	return nil
}

// warnPartsStand warns a write sending paid: false to a partially paid
// invoice that it undid nothing: paid is false already, and its parts are
// undone one by one (a 200 with a warning, as paid: false on a paid
// invoice answers what it undid, so that a client writing the record back
// as read is never refused, nor told nothing).
func warnPartsStand(ctx context.Context, tx pgx.Tx, c *Change) error {
	var latest int64
	var n int
	err := tx.QueryRow(ctx, `SELECT id, n FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2 AND undone_at IS NULL
		ORDER BY n DESC LIMIT 1`, c.Scope.CompanyID, c.ID).Scan(&latest, &n)
	if err != nil {
		return translate(err, fmt.Sprintf("invoice %d: latest part", c.ID))
	}
	standing, err := readStandingPayments(ctx, tx, c.Scope.CompanyID, c.ID)
	if err != nil {
		return err
	}
	c.Warn("paid", "the invoice is partially paid (%s): paid: false undid nothing; its parts are undone one by one, the "+
		"latest first: DELETE /invoices/%d/payments/%d (part %d)", strings.Join(standing.parts, ", "), c.ID, latest, n)
	return nil
}

// notAfterToday refuses (422 on field) a date after today in the
// company's time zone: a payment is recorded once it happened.
func notAfterToday(ctx context.Context, tx pgx.Tx, companyID int64, field string, date any) error {
	var future bool
	var today time.Time
	err := tx.QueryRow(ctx, `SELECT $2::date > (now() AT TIME ZONE time_zone)::date, (now() AT TIME ZONE time_zone)::date
		FROM companies WHERE id = $1`, companyID, date).Scan(&future, &today)
	if err != nil {
		return fmt.Errorf("today of company %d: %w", companyID, err)
	}
	if future {
		return problem(field, "is after today ("+today.Format(time.DateOnly)+" in the company's time zone): a payment is recorded once made")
	}
	return nil
}

// invoiceFrozenWhenPaid refuses (409) a change of the amounts, dates and
// items of an invoice that is paid and stays paid.
func invoiceFrozenWhenPaid(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op != OpUpdate || !holdsPayment(c) || undoing(c) {
		return nil
	}
	if oldPartlyPaid(c) && paying(c) {
		return frozenWhenPartlyPaid(c)
	}
	var changed []string
	for _, col := range frozenWhenPaid {
		if c.Changed(col) {
			changed = append(changed, col)
		}
	}
	if len(c.New.Children["items"]) > 0 {
		changed = append(changed, "items")
	}
	if len(changed) == 0 {
		return nil
	}
	if !oldPaid(c) {
		return finance.Errorf(finance.Conflict, "The invoice is partially paid: its %s cannot change. Undo its parts first (DELETE /invoices/{id}/payments/{part}, the latest first).", strings.Join(changed, ", "))
	}
	return finance.Errorf(finance.Conflict, "The invoice is paid: its %s cannot change. Undo the payment first (paid: false).", strings.Join(changed, ", "))
}

// frozenWhenPartlyPaid refuses (409) a change of the amounts, due date or
// items of a partially paid invoice in the write that pays its rest
// (paid: true): the parts were posted on them.
func frozenWhenPartlyPaid(c *Change) error {
	var changed []string
	for _, col := range []string{"total", "due_date"} {
		if c.Changed(col) {
			changed = append(changed, col)
		}
	}
	if len(c.New.Children["items"]) > 0 {
		changed = append(changed, "items")
	}
	if len(changed) == 0 {
		return nil
	}
	return finance.Errorf(finance.Conflict, "The invoice is partially paid: its %s cannot change. Undo its parts first (DELETE /invoices/{id}/payments/{part}, the latest first).", strings.Join(changed, ", "))
}

// discardPixCode clears the stored PIX code when the write changes the
// invoice's value or due date (spec 001, PIX code rule 2).
func discardPixCode(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op != OpUpdate {
		return nil
	}
	if code, _ := c.OldValue("pix_code").(string); code != "" && (c.Changed("total") || c.Changed("due_date")) {
		c.Set("pix_code", nil)
	}
	return nil
}

// rememberInvoiceLines keeps the client lines before an update that
// changes them, or before a delete, for the history.
func rememberInvoiceLines(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpCreate || (c.Op == OpUpdate && len(c.New.Children["items"]) == 0) {
		return nil
	}
	lines, err := readInvoiceLines(ctx, tx, c.Scope.CompanyID, c.ID)
	if err != nil {
		return err
	}
	c.Remember("lines", lines)
	return nil
}

// invoiceDeleteRules refuses (409) the delete of a paid invoice without
// removeLiquidated and of one with a line carrying a fiscal note without
// removeWithFiscalNote; a paid invoice's payment is undone first.
func invoiceDeleteRules(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpDelete {
		return nil
	}
	var noted bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM invoice_items WHERE company_id = $1 AND invoice_id = $2
		AND coalesce(fiscal_note, '') <> '')`, c.Scope.CompanyID, c.ID).Scan(&noted)
	if err != nil {
		return fmt.Errorf("fiscal notes of invoice %d: %w", c.ID, err)
	}
	var missing []string
	if oldPaid(c) && !c.Options["removeLiquidated"] {
		missing = append(missing, "it is paid (removeLiquidated=true deletes it, undoing its payment)")
	}
	if oldPartlyPaid(c) && !c.Options["removeLiquidated"] {
		missing = append(missing, "it is partially paid (removeLiquidated=true deletes it, undoing its parts)")
	}
	if noted && !c.Options["removeWithFiscalNote"] {
		missing = append(missing, "a line has a fiscal note (removeWithFiscalNote=true deletes it)")
	}
	if len(missing) > 0 {
		return finance.Errorf(finance.Conflict, "The invoice was not deleted: %s.", strings.Join(missing, "; "))
	}
	if err := refuseLinkedEntries(ctx, tx, c.Scope.CompanyID, c.ID); err != nil {
		return err
	}
	if !holdsPayment(c) {
		return nil
	}
	if err := UndoInvoicePayment(ctx, tx, c.Scope.CompanyID, c.ID); err != nil {
		return fmt.Errorf("undo payment of invoice %d: %w", c.ID, err)
	}
	return WriteInvoiceHistory(ctx, tx, c.Scope.CompanyID, c.ID, ActorOf(c.Scope), OriginPaymentUndone,
		[]FieldChange{{Field: "paid", From: true, To: false}})
}

// refuseLinkedEntries refuses (409) to delete an invoice that ledger
// entries written by clients point at (invoice_id): the entries of its
// payment posting are the book and stay, unlinked, but a client's entry
// is not silently cut from its invoice.
func refuseLinkedEntries(ctx context.Context, tx pgx.Tx, companyID, id int64) error {
	var n int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE company_id = $1 AND invoice_id = $2
		AND mode NOT IN ('invoice', 'chargeback')`, companyID, id).Scan(&n)
	if err != nil {
		return fmt.Errorf("entries of invoice %d: %w", id, err)
	}
	if n > 0 {
		return finance.Errorf(finance.Conflict, "The invoice was not deleted: %d ledger entries written by clients point at it (invoice_id); "+
			"change or delete them first.", n)
	}
	return nil
}

// checkInvoiceTotal requires, once the lines are written, at least one
// line and the total to be what the lines charge the payer
// (finance.Charged, summed): on create, and on an update that gives items
// or total. Each line's item is bookable (checkBookableLine).
func checkInvoiceTotal(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpDelete || (c.Op == OpUpdate && len(c.New.Children["items"]) == 0 && !c.Given("total")) {
		return nil
	}
	total, lines, err := bookableLines(ctx, tx, c.Scope.CompanyID, c.ID)
	if err != nil {
		return err
	}
	c.Remember(memoLines, lines)
	if len(lines) == 0 {
		return problem("items", "an invoice keeps at least one line; delete the invoice instead")
	}
	charged := decimal.Zero
	for _, l := range lines {
		charged = charged.Add(finance.Charged(l.amount, l.item))
	}
	if total.Equal(charged) {
		return nil
	}
	return finance.InvalidInput([]finance.Problem{
		{Field: "total", Message: fmt.Sprintf("is %s but the lines charge the payer %s", total.StringFixed(2), charged.StringFixed(2))},
		{Field: "items", Message: fmt.Sprintf("the lines charge the payer %s (lines debiting the customer less lines crediting it), not the total %s",
			charged.StringFixed(2), total.StringFixed(2))},
	})
}

// checkOwnerLines refuses (422) an invoice with a line that could never
// be posted for want of an owner: its item debits or credits `owner`, it
// names no owner_id, and the invoice's building (its own, else its
// contract's) has no owners to share it, or there is none. The rule is
// the posting's (finance.LineOwnerProblem, finance.OwnerSideGap); each
// such line is a problem on items.N.owner_id, N its place among the
// invoice's lines as include[items] lists them (as the posting names it),
// with the item and both ways to fix it. It runs on create and on an
// update that gives items, building_id or contract_id.
func checkOwnerLines(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpDelete || (c.Op == OpUpdate && len(c.New.Children["items"]) == 0 &&
		!givesAny(c, []string{"building_id", "contract_id"})) {
		return nil
	}
	lines, read := c.Memo[memoLines].([]bookableLine) // read by checkInvoiceTotal, nothing written since
	if !read {
		var err error
		if _, lines, err = bookableLines(ctx, tx, c.Scope.CompanyID, c.ID); err != nil {
			return err
		}
	}
	if !slices.ContainsFunc(lines, func(l bookableLine) bool { return finance.BooksOwner(l.item) && l.ownerID == 0 }) {
		return nil
	}
	parties, err := invoiceOwners(ctx, tx, c.Scope.CompanyID, c.ID)
	if err != nil {
		return err
	}
	var ps []finance.Problem
	for i, l := range lines {
		if msg := finance.LineOwnerProblem(l.item, l.ownerID, parties); msg != "" {
			ps = append(ps, finance.Problem{Field: fmt.Sprintf("items.%d.owner_id", i), Message: msg})
		}
	}
	if len(ps) > 0 {
		return finance.InvalidInput(ps)
	}
	return nil
}

// invoiceOwners reads whom an invoice's lines without an owner are booked
// to: its building (its own, else its contract's) and that building's
// owners, as the posting reads them.
func invoiceOwners(ctx context.Context, tx pgx.Tx, companyID, id int64) (finance.Parties, error) {
	var p finance.Parties
	err := tx.QueryRow(ctx, `SELECT coalesce(i.building_id, c.building_id, 0) FROM invoices i
		LEFT JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		WHERE i.company_id = $1 AND i.id = $2`, companyID, id).Scan(&p.BuildingID)
	if err != nil {
		return p, fmt.Errorf("building of invoice %d: %w", id, err)
	}
	if p.Owners, err = buildingOwners(ctx, tx, companyID, p.BuildingID); err != nil {
		return p, fmt.Errorf("owners of building %d: %w", p.BuildingID, err)
	}
	return p, nil
}

// memoLines is the Memo key of the lines checkInvoiceTotal read, for
// checkOwnerLines, the after hook next to it.
const memoLines = "bookable_lines"

// bookableLine is a client-written line with its item's parties and the
// owner it names (0: none).
type bookableLine struct {
	id      int64
	amount  decimal.Decimal
	ownerID int64
	item    finance.TransactionItem
}

// bookableLines reads an invoice's total and its client-written lines,
// by id.
func bookableLines(ctx context.Context, tx pgx.Tx, companyID, id int64) (decimal.Decimal, []bookableLine, error) {
	var totalText string
	if err := tx.QueryRow(ctx, `SELECT total::text FROM invoices WHERE company_id = $1 AND id = $2`,
		companyID, id).Scan(&totalText); err != nil {
		return decimal.Zero, nil, fmt.Errorf("total of invoice %d: %w", id, err)
	}
	total, err := decimal.NewFromString(totalText)
	if err != nil {
		return decimal.Zero, nil, fmt.Errorf("total of invoice %d: %w", id, err)
	}
	rows, err := tx.Query(ctx, `SELECT l.id, l.amount::text, coalesce(l.owner_id, 0), ti.id, coalesce(ti.debit, ''), coalesce(ti.credit, '')
		FROM invoice_items l JOIN transaction_items ti ON ti.company_id = l.company_id AND ti.id = l.item_id
		WHERE l.company_id = $1 AND l.invoice_id = $2 AND l.kind = 'line' ORDER BY l.id`, companyID, id)
	if err != nil {
		return decimal.Zero, nil, fmt.Errorf("lines of invoice %d: %w", id, err)
	}
	defer rows.Close()
	var lines []bookableLine
	for rows.Next() {
		var l bookableLine
		var amount, debit, credit string
		if err := rows.Scan(&l.id, &amount, &l.ownerID, &l.item.ID, &debit, &credit); err != nil {
			return decimal.Zero, nil, fmt.Errorf("lines of invoice %d: %w", id, err)
		}
		if l.amount, err = decimal.NewFromString(amount); err != nil {
			return decimal.Zero, nil, fmt.Errorf("line %d: %w", l.id, err)
		}
		l.item.Debit, l.item.Credit = finance.Party(debit), finance.Party(credit)
		lines = append(lines, l)
	}
	return total, lines, rows.Err()
}

// postInvoicePayment posts the payment once the row says paid.
func postInvoicePayment(ctx context.Context, tx pgx.Tx, c *Change) error {
	if !paying(c) {
		return nil
	}
	if err := postWholePayment(ctx, tx, c.Scope.CompanyID, c.ID, ActorOf(c.Scope)); err != nil {
		return fmt.Errorf("post payment of invoice %d: %w", c.ID, err)
	}
	return nil
}

// writeInvoiceHistory writes the history row of the write: its origin
// (create, update, payment, payment_undone, delete), the fields changed,
// and the client lines before and after when they changed.
func writeInvoiceHistory(ctx context.Context, tx pgx.Tx, c *Change) error {
	origin := map[Op]string{OpCreate: OriginCreate, OpUpdate: OriginUpdate, OpDelete: OriginDelete}[c.Op]
	switch {
	case paying(c) && c.Op == OpUpdate:
		origin = OriginPayment
	case undoing(c):
		origin = OriginPaymentUndone
	case writeOffUndone(c):
		origin = OriginWriteOffUndone
	}
	record, err := historyRecord(ctx, tx, c)
	if err != nil {
		return err
	}
	changes := RecordChanges(c.Resource, c.Old, record)
	before, remembered := c.Memo["lines"].([]invoiceLine)
	if c.Op == OpCreate || remembered {
		after := []invoiceLine{}
		if c.Op != OpDelete {
			if after, err = readInvoiceLines(ctx, tx, c.Scope.CompanyID, c.ID); err != nil {
				return err
			}
		}
		if before == nil {
			before = []invoiceLine{}
		}
		if !slices.EqualFunc(before, after, invoiceLine.equal) {
			changes = append(changes, FieldChange{Field: "items", From: before, To: after})
		}
	}
	return WriteInvoiceHistory(ctx, tx, c.Scope.CompanyID, c.ID, ActorOf(c.Scope), origin, changes)
}

// historyRecord is the invoice as the write leaves it: none after a
// delete; read again after a payment's posting, so that the history lists
// the amounts it settled (paid_amount, paid_late_fee, paid_interest,
// paid_discount), and after an after hook that wrote the row again (an
// auto_transfer_status changed, memoReread); else the record written.
func historyRecord(ctx context.Context, tx pgx.Tx, c *Change) (*Record, error) {
	switch {
	case c.Op == OpDelete:
		return nil, nil
	case !paying(c) && c.Memo[memoReread] == nil:
		return c.Record, nil
	}
	rec, err := readRow(ctx, tx, c.Resource, Scope{CompanyID: c.Scope.CompanyID}, c.ID, "")
	if err != nil {
		return nil, fmt.Errorf("invoice %d as paid: %w", c.ID, err)
	}
	return rec, nil
}

// invoiceLine is a client line as the history shows it.
type invoiceLine struct {
	ID          int64           `json:"id"`
	ItemID      int64           `json:"item_id"`
	Amount      json.RawMessage `json:"amount"`
	Description *string         `json:"description"`
}

func (l invoiceLine) equal(o invoiceLine) bool {
	return l.ID == o.ID && l.ItemID == o.ItemID && string(l.Amount) == string(o.Amount) &&
		(l.Description == nil) == (o.Description == nil) && (l.Description == nil || *l.Description == *o.Description)
}

// readInvoiceLines reads an invoice's client lines (kind 'line'), by id.
func readInvoiceLines(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64) ([]invoiceLine, error) {
	rows, err := tx.Query(ctx, `SELECT id, item_id, amount::text, description FROM invoice_items
		WHERE company_id = $1 AND invoice_id = $2 AND kind = 'line' ORDER BY id`, companyID, invoiceID)
	if err != nil {
		return nil, fmt.Errorf("lines of invoice %d: %w", invoiceID, err)
	}
	lines, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (invoiceLine, error) {
		var l invoiceLine
		var amount string
		err := row.Scan(&l.ID, &l.ItemID, &amount, &l.Description)
		l.Amount = json.RawMessage(amount)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("lines of invoice %d: %w", invoiceID, err)
	}
	return lines, nil
}

// problem is a 422 naming one field.
func problem(field, message string) error {
	return finance.InvalidInput([]finance.Problem{{Field: field, Message: message}})
}

// checkBookableLine is a hook of the invoice lines: the transaction item
// of a line written by a client must have both parties (finance.Bookable),
// or the line could never be posted. Its problem is named by the line's
// place in the body (items.2.item_id).
func checkBookableLine(ctx context.Context, tx pgx.Tx, c *Change) error {
	itemID, given := c.New.Values["item_id"]
	if c.Op == OpDelete || !given || itemID == nil {
		return nil
	}
	var item finance.TransactionItem
	var debit, credit string
	err := tx.QueryRow(ctx, `SELECT id, coalesce(debit, ''), coalesce(credit, '') FROM transaction_items
		WHERE company_id = $1 AND id = $2`, c.Scope.CompanyID, itemID).Scan(&item.ID, &debit, &credit)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // the reference check names it
	}
	if err != nil {
		return fmt.Errorf("transaction item of a line: %w", err)
	}
	item.Debit, item.Credit = finance.Party(debit), finance.Party(credit)
	if msg := finance.Bookable(item); msg != "" {
		return problem("item_id", msg)
	}
	return nil
}
