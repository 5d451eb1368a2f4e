package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/pix"
)

// The means of payment of an invoice paid in part (docs/ledger.md, "Part
// payments", "The boleto and the PIX code of a partly paid invoice"): its
// boleto and a PIX code stored before the part charge the whole total, so
// a part discards a stored code charging more than is left to pay
// (discardStalePixCode), a reminder leaves out the boleto and such a code
// (PixCodeCharges), the receipt page shows the parts and the balance, the
// file of a collection batch refuses an invoice partly paid since it was
// added (PartlyPaidTitles), and the answer of a part warns of the slip at
// the bank and of the stale code (partWarnings).

// PixCodeCharges reports whether the PIX payload code may be handed to a
// payer who owes at most limit: it has no amount (the payer types it) or
// its amount (field 54) is no more than limit. A code that cannot be read
// is not handed out.
func PixCodeCharges(code string, limit decimal.Decimal) bool {
	p, err := pix.Parse(code)
	if err != nil {
		return false
	}
	if p.Amount == "" {
		return true
	}
	cents, ok := p.AmountCents()
	return ok && decimal.New(cents, -2).LessThanOrEqual(limit)
}

// PartlyPaidTitle is a title of a collection batch whose invoice was paid
// in part after it was added: its slip charges the whole total.
type PartlyPaidTitle struct {
	InvoiceID   int64
	Total, Paid finance.Money
	Status      string
}

// PartlyPaidTitles reads the titles added to batch b whose invoice has a
// standing part without being paid (a part recorded by hand, or a bank's
// return paying short, after the invoice was added: addInvoices refuses a
// partly paid invoice), in invoice order.
func PartlyPaidTitles(ctx context.Context, q DBTX, b *Batch) ([]PartlyPaidTitle, error) {
	rows, err := q.Query(ctx, `
		SELECT i.id, i.total::text, coalesce(i.paid_amount, 0)::text, i.status
		FROM ticket_batch_invoices m JOIN invoices i ON i.company_id = m.company_id AND i.id = m.invoice_id
		WHERE m.company_id = $1 AND m.batch_id = $2 AND m.state = 'added' AND NOT i.paid
		  AND EXISTS (SELECT 1 FROM invoice_payments p WHERE p.company_id = i.company_id AND p.invoice_id = i.id
		              AND p.undone_at IS NULL)
		ORDER BY i.id`, b.CompanyID, b.ID)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("partly paid titles of batch %d", b.ID))
	}
	var out []PartlyPaidTitle
	var t PartlyPaidTitle
	_, err = pgx.ForEachRow(rows, []any{&t.InvoiceID, (*decimal.Decimal)(&t.Total), (*decimal.Decimal)(&t.Paid), &t.Status}, func() error {
		out = append(out, t)
		return nil
	})
	return out, translate(err, fmt.Sprintf("partly paid titles of batch %d", b.ID))
}

// discardStalePixCode clears the stored PIX code of an invoice a part
// leaves partly paid when it charges more than is left to pay on the
// part's day (the part's due less its amount): the code follows what is
// owed, as a change of the total discards it (spec 001, PIX code rule 2).
// The history records it (origin pix_code); pi.discardedPix keeps the
// amount it charged for the part's warning.
func discardStalePixCode(ctx context.Context, tx pgx.Tx, companyID int64, pi *partInvoice, part finance.Part, actor Actor) error {
	id := pi.inv.ID
	var code *string
	if err := tx.QueryRow(ctx, `SELECT pix_code FROM invoices WHERE company_id = $1 AND id = $2`, companyID, id).Scan(&code); err != nil {
		return translate(err, fmt.Sprintf("invoice %d: PIX code", id))
	}
	left := part.Due.Total.Sub(part.Amount)
	if code == nil || PixCodeCharges(*code, left) {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE invoices SET pix_code = NULL, updated_at = now() WHERE company_id = $1 AND id = $2`,
		companyID, id); err != nil {
		return translate(err, fmt.Sprintf("invoice %d: discard the PIX code", id))
	}
	pi.discardedPix = "an unreadable amount"
	if p, err := pix.Parse(*code); err == nil && p.Amount != "" {
		pi.discardedPix = p.Amount
	}
	return WriteInvoiceHistory(ctx, tx, companyID, id, actor, OriginPixCode, []FieldChange{{Field: "pix_code", From: *code, To: nil}})
}

// partWarnings are what a part just posted leaves to do about the
// invoice's means of payment and books: its slip in a collection batch
// (open: the batch's file refuses it; sent: the bank still charges the
// whole total), the stored PIX code it discarded (discardStalePixCode),
// a part paid before the invoice's date or before the company's first
// owner statement month, and one whose entries are dated in a month whose
// statements are closed (closedMonthWarning).
func partWarnings(ctx context.Context, tx pgx.Tx, companyID int64, pi *partInvoice, row partRow, paidAt finance.Date) ([]finance.Problem, error) {
	id := pi.inv.ID
	var batch int64
	var sent bool
	var first, last *string
	err := tx.QueryRow(ctx, `
		SELECT coalesce(m.batch_id, 0), coalesce(b.file_id IS NOT NULL, false),
		       (SELECT min(month) FROM owner_statement_months WHERE company_id = i.company_id),
		       (SELECT max(month) FROM owner_statement_months WHERE company_id = i.company_id)
		FROM invoices i
		LEFT JOIN ticket_batch_invoices m ON m.company_id = i.company_id AND m.invoice_id = i.id AND m.state = 'added'
		LEFT JOIN ticket_batches b ON b.company_id = m.company_id AND b.id = m.batch_id
		WHERE i.company_id = $1 AND i.id = $2`, companyID, id).Scan(&batch, &sent, &first, &last)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("invoice %d: means of payment", id))
	}
	var ws []finance.Problem
	balance := pi.inv.Total.Sub(pi.paid.Principal).StringFixed(2)
	total := pi.inv.Total.StringFixed(2)
	settled := row.part.Settles()
	switch {
	case batch != 0 && settled:
		ws = append(ws, finance.Problem{Field: "ticket_batch", Message: fmt.Sprintf("the invoice is paid, but its boleto of %s "+
			"in collection batch %d is still registered at the bank, which could be paid again: instruct the bank directly to drop the "+
			"title (in its internet banking or by its manager; revertInvoices takes back an unpaid title only)", total, batch)})
	case batch != 0 && sent:
		ws = append(ws, finance.Problem{Field: "ticket_batch", Message: fmt.Sprintf("the invoice's boleto at the bank "+
			"(collection batch %d) still charges the whole total %s, not the balance %s: revert it in the batch "+
			"(revertInvoices; the account's next file asks the bank to drop the title) and collect the balance by a new "+
			"PIX code (POST /invoices/%d/pixCode)", batch, total, balance, id)})
	case batch != 0:
		ws = append(ws, finance.Problem{Field: "ticket_batch", Message: fmt.Sprintf("the invoice is in open collection "+
			"batch %d, whose file would charge the whole total %s: the file is refused while it is there; remove it from the "+
			"batch (removeInvoices) and collect the balance %s by a new PIX code (POST /invoices/%d/pixCode)",
			batch, total, balance, id)})
	}
	if pi.discardedPix != "" {
		ws = append(ws, finance.Problem{Field: "pix_code", Message: fmt.Sprintf("the stored PIX code charged more than is "+
			"left to pay (%s, %s of the total open): it was discarded, as a payer who used it would pay too much; store a "+
			"code for the balance (POST /invoices/%d/pixCode)", pi.discardedPix, balance, id)})
	}
	if paidAt.Before(pi.inv.Date) {
		ws = append(ws, finance.Problem{Field: "paid_at", Message: fmt.Sprintf("is before the invoice's date (%s): paid in "+
			"advance, or a typo of the year? A part is declared in its own month and year (the informe, the DIMOB); undo it "+
			"(DELETE /invoices/%d/payments/%d) if the date is wrong", pi.inv.Date, id, row.id)})
	}
	if first != nil {
		m, err := finance.ParseMonth(*first)
		if err != nil {
			return nil, fmt.Errorf("owner statement months: %w", err)
		}
		if paid := finance.MonthOf(paidAt); paid < m {
			ws = append(ws, finance.Problem{Field: "paid_at", Message: fmt.Sprintf("is in %s, before the company's first owner "+
				"statement month (%s): no statement shows the part (it is in the first opening balances), the informe of %d "+
				"cannot be issued, and the DIMOB of %d declares it", paid, m, paidAt.Year(), paidAt.Year())})
		} else if w, err := closedMonthWarning(*last, paidAt, pi.creditAt); err != nil || w != nil {
			if err != nil {
				return nil, err
			}
			ws = append(ws, *w)
		}
	}
	return ws, nil
}

// closedMonthWarning is the warning of a part whose entries, dated its
// credit day, fall in a month whose owner statements are closed (last:
// the company's last closed month; months close in order): the closed
// statements do not change, and the next close states the entries as
// adjustments of that month (docs/ledger.md, "Closing a month, and what
// changes it afterwards"), as any entry written after its month's close.
// nil when the credit day's month is open.
func closedMonthWarning(last string, paidAt, creditAt finance.Date) (*finance.Problem, error) {
	closed, err := finance.ParseMonth(last)
	if err != nil {
		return nil, fmt.Errorf("owner statement months: %w", err)
	}
	if creditAt.IsZero() {
		creditAt = paidAt
	}
	m := finance.MonthOf(creditAt)
	if m > closed {
		return nil, nil
	}
	field := "paid_at"
	if creditAt != paidAt {
		field = "credit_at"
	}
	return &finance.Problem{Field: field, Message: fmt.Sprintf("is in %s, a month whose owner statements are closed: they "+
		"do not change; the part's entries (dated its credit day, %s) are stated by the next month closed, as adjustments "+
		"of %s (corrects_month)", m, creditAt, m)}, nil
}
