package storage

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/propfin/propfin/finance"
)

// What the informes de rendimentos (income_reports.go) and the DIMOB
// (dimob.go) read the owners' rent income by: one rule, finance's
// DeclaredAs and DeclaredModes, and one day per entry, written once here
// for both statements (docs/ledger.md, "Rent income: one rule for the
// informe and the DIMOB"). The company's items are classified in Go and
// handed to the statement as two arrays (declaredItems), so that no SQL
// restates the rule.

// declaredItems are the company's transaction items the rule declares:
// ids[i] adds to figures[i] (a finance.Declared), as the statements read
// them (declaredFigureSQL).
type declaredItems struct {
	ids     []int64
	figures []int32
}

// readDeclaredItems reads the company's transaction items and keeps those
// finance.DeclaredAs declares, with their figures.
func readDeclaredItems(ctx context.Context, q DBTX, companyID int64) (declaredItems, error) {
	var out declaredItems
	rows, err := q.Query(ctx, `SELECT id, coalesce(debit, ''), coalesce(credit, ''), type, dimob
		FROM transaction_items WHERE company_id = $1 ORDER BY id`, companyID)
	if err != nil {
		return out, translate(err, "declared transaction items")
	}
	defer rows.Close()
	for rows.Next() {
		var it finance.TransactionItem
		var debit, credit, typ string
		if err := rows.Scan(&it.ID, &debit, &credit, &typ, &it.Dimob); err != nil {
			return out, translate(err, "declared transaction items")
		}
		it.Debit, it.Credit, it.Type = finance.Party(debit), finance.Party(credit), finance.TransactionItemType(typ)
		if f := finance.DeclaredAs(it); f != finance.Undeclared {
			out.ids, out.figures = append(out.ids, it.ID), append(out.figures, int32(f))
		}
	}
	return out, translate(rows.Err(), "declared transaction items")
}

// declaredFigureSQL is the figure of the entry t's item (null when the
// rule does not declare it); ids and figures are the placeholders of
// declaredItems' arrays. The arrays are read by position, not joined:
// the planner, estimating a join on them by their length alone or reading
// any(ids) as a condition it can look the entries up by (the items'
// index), looped over the DIMOB's entries instead of hashing them, and
// took twice as long; a look-up it cannot plan by keeps the scan and the
// hash joins of the statement (docs/performance.md, "DIMOB").
func declaredFigureSQL(ids, figures string) string {
	return `(` + figures + `::int[])[array_position(` + ids + `::bigint[], t.item_id)]`
}

// figureSQL is a figure as the statements compare k.figure with.
func figureSQL(f finance.Declared) string { return strconv.Itoa(int(f)) }

// declaredEntrySQL is the condition on the entry t of counting, its
// item's figure aside: an owner's entry (with its owner) of a declared
// mode that settles no guaranteed transfer (the settlement of a guarantee
// and its reversal are the business recovering its money).
var declaredEntrySQL = func() string {
	modes := make([]string, len(finance.DeclaredModes))
	for i, m := range finance.DeclaredModes {
		modes[i] = "'" + string(m) + "'"
	}
	return `t.extract = 'owner' AND t.owner_id IS NOT NULL AND t.mode IN (` + strings.Join(modes, ", ") + `)
      AND t.guaranteed_transfer_id IS NULL`
}()

// declaredReversalsSQL are the common table expressions the day of an
// entry reads ($1 the company): reversed, the entries a reversal
// reverses; reversals, each reversal with the date of the entry it
// reverses; refunds, each refund entry with the day the payment entry it
// takes from counts on (the day the tenant paid). All come from the
// partial indexes of reverses_id and refunds_id and are joined by hash: a
// look-up per entry, or a join of every entry of the company to find the
// few a reversal or a refund points at, cost more than the rest of the
// DIMOB's statement (docs/performance.md, "DIMOB").
const declaredReversalsSQL = `reversed AS (
    SELECT DISTINCT reverses_id AS id FROM transactions WHERE company_id = $1 AND reverses_id IS NOT NULL
), reversals AS (
    SELECT r.id, o.date FROM transactions r
    JOIN transactions o ON o.company_id = r.company_id AND o.id = r.reverses_id
    WHERE r.company_id = $1 AND r.reverses_id IS NOT NULL AND r.mode = 'chargeback'
), refunds AS (
    SELECT r.id, least(coalesce(pp.paid_at, pi.paid_at, o.date), o.date) AS paid
    FROM transactions r
    JOIN transactions o ON o.company_id = r.company_id AND o.id = r.refunds_id
    LEFT JOIN invoice_payments pp ON pp.company_id = o.company_id AND pp.split = o.split
    LEFT JOIN invoices pi ON pi.company_id = o.company_id AND pi.id = o.invoice_id AND pi.paid
    WHERE r.company_id = $1 AND r.refunds_id IS NOT NULL AND r.mode = 'chargeback'
)`

// declaredDayJoinsSQL joins to the entry t what its day reads: whether a
// reversal reverses it (rev), the date of the entry it reverses (back),
// the day of the payment it refunds (ref), the payment (a part of its
// invoice's payments, by its split: pay) and its invoice when paid (inv,
// for a payment posted before the payments had rows of their own).
const declaredDayJoinsSQL = `LEFT JOIN reversed rev ON rev.id = t.id
    LEFT JOIN reversals back ON back.id = t.id
    LEFT JOIN refunds ref ON ref.id = t.id
    LEFT JOIN invoice_payments pay ON t.mode = 'invoice' AND pay.company_id = t.company_id AND pay.split = t.split
    LEFT JOIN invoices inv ON t.mode = 'invoice' AND inv.company_id = t.company_id AND inv.id = t.invoice_id AND inv.paid`

// declaredDaySQL is the day the entry t counts on: the day the tenant
// paid, its payment's paid_at (each part of an invoice paid in parts on
// its own day; the invoice's paid_at for a payment without a row), for a
// payment that stands (never after the
// entry's own date, the day the bank credited it; the entry's date when
// the invoice cannot say, deleted since); a payment undone and its
// reversal both on the payment's own date, so that they cancel in its
// month; a refund that stands on the day of the payment it gives back,
// whatever the day it was made, so that the month of the payment holds
// what the owner kept of it and no month turns negative (docs/dimob.md,
// "Refunds"); a refund undone with its payment, and its reversal, on the
// refund's own date, so that they cancel; any other chargeback on its own
// date.
const declaredDaySQL = `CASE WHEN t.mode = 'invoice' AND rev.id IS NULL THEN least(coalesce(pay.paid_at, inv.paid_at), t.date)
         WHEN t.mode = 'invoice' THEN t.date
         WHEN ref.id IS NOT NULL AND rev.id IS NULL THEN ref.paid
         ELSE coalesce(back.date, t.date) END`

// RefundCountsText says of a refund made on date of a payment of paid
// that it counts in the payment's month (docs/dimob.md, "Refunds"): the
// words the DIMOB's warning and the income report's share.
func RefundCountsText(invoiceID int64, date, paid finance.Date) string {
	return fmt.Sprintf("the refund of invoice %d on %s gives back a payment of %s and counts in %s, the payment's month",
		invoiceID, date, paid, paid.Month())
}
