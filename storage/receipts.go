package storage

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Receipt is what the public receipt page of an invoice or a ledger entry
// shows, read in one call: plain values, the status as of today in the
// company's time zone.
type Receipt struct {
	Number        string // the invoice's id2, or its id
	BusinessName  string
	BusinessTaxID string
	PayerName     string
	PayerTaxID    string
	Description   string
	Competence    time.Time // zero: none
	DueDate       time.Time
	Lines         []ReceiptLine
	Total         decimal.Decimal
	Status        string // one of InvoiceStatuses
	Paid          bool
	PaidAt        time.Time
	CreditAt      time.Time
	PaidAmount    decimal.Decimal
	LateFee       decimal.Decimal
	Interest      decimal.Decimal
	Discount      decimal.Decimal
	Method        string // the billing method
	Digitable     string // the boleto's digitable line, when it has one
	Barcode       string // and its 44-digit barcode
	PixCode       string
	// Parts are the invoice's standing payments, in the order they were
	// paid (one for an invoice paid whole); Balance what of Total they
	// have not paid while it is partially paid.
	Parts   []ReceiptPart
	Balance decimal.Decimal
	// Refunded is what the invoice's refunds gave back of its payments.
	Refunded decimal.Decimal
}

// ReceiptPart is one payment of an invoice, as its receipt shows it.
type ReceiptPart struct {
	PaidAt                    time.Time
	Amount, LateFee, Interest decimal.Decimal
	Principal                 decimal.Decimal
	Method                    string // how the payer paid it; "" when not said
}

// ReceiptLine is one line of a receipt.
type ReceiptLine struct {
	Description string
	Amount      decimal.Decimal
}

// invoiceReceiptSQL reads an invoice with its business and payer; the
// status as the invoices resource reads it.
var invoiceReceiptSQL = `SELECT coalesce(i.id2, i.id::text), coalesce(b.name, ''), coalesce(b.tax_id, ''),
	coalesce(p.name, ''), coalesce(p.tax_id, ''), i.description, i.date, i.due_date, i.total::text,
	` + qualified(invoiceStatusExpr, "i") + `,
	i.paid, i.paid_at, i.credit_at, coalesce(i.paid_amount, i.total)::text, coalesce(i.paid_late_fee, 0)::text,
	coalesce(i.paid_interest, 0)::text, coalesce(i.paid_discount, 0)::text, i.billing_method,
	coalesce(i.ticket_digitable, ''), coalesce(i.ticket_barcode, ''), coalesce(i.pix_code, ''),
	coalesce(i.refunded_amount, 0)::text
	FROM invoices i
	LEFT JOIN businesses b ON b.company_id = i.company_id AND b.id = i.business_id
	LEFT JOIN persons p ON p.company_id = i.company_id AND p.id = i.payer_id
	WHERE i.company_id = $1 AND i.id = $2`

// qualified rewrites a declared expression over one table's quoted
// columns for a query that names the table alias (and today of the row's
// company).
func qualified(expr, alias string) string {
	expr = quotedColumn.ReplaceAllString(expr, alias+".$1")
	return strings.ReplaceAll(expr, "{today}", fmt.Sprintf(todayOf, alias+".company_id"))
}

var quotedColumn = regexp.MustCompile(`"([a-z_0-9]+)"`)

// InvoiceReceipt reads what the receipt page of an invoice shows: the
// lines written by the client and, once paid, what the payment settled.
// Another company's invoice, or none, is not found.
func (s *Store) InvoiceReceipt(ctx context.Context, companyID, id int64) (Receipt, error) {
	var r Receipt
	var total, paidAmount, lateFee, interest, discount, refunded string
	var paidAt, creditAt *time.Time
	err := s.pool.QueryRow(ctx, invoiceReceiptSQL, companyID, id).Scan(&r.Number, &r.BusinessName, &r.BusinessTaxID,
		&r.PayerName, &r.PayerTaxID, &r.Description, &r.Competence, &r.DueDate, &total, &r.Status, &r.Paid,
		&paidAt, &creditAt, &paidAmount, &lateFee, &interest, &discount, &r.Method, &r.Digitable, &r.Barcode, &r.PixCode, &refunded)
	if errors.Is(err, pgx.ErrNoRows) {
		return Receipt{}, recordNotFound(id)
	}
	if err != nil {
		return Receipt{}, translate(err, fmt.Sprintf("receipt of invoice %d", id))
	}
	r.PaidAt, r.CreditAt = orZero(paidAt), orZero(creditAt)
	if err := parseDecimals(map[*decimal.Decimal]string{&r.Total: total, &r.PaidAmount: paidAmount,
		&r.LateFee: lateFee, &r.Interest: interest, &r.Discount: discount, &r.Refunded: refunded}); err != nil {
		return Receipt{}, fmt.Errorf("receipt of invoice %d: %w", id, err)
	}
	if r.Lines, err = s.receiptLines(ctx, companyID, id); err != nil {
		return r, err
	}
	if r.Parts, err = s.receiptParts(ctx, companyID, id); err != nil {
		return r, err
	}
	if r.Status == "partially_paid" {
		r.Balance = r.Total
		for _, p := range r.Parts {
			r.Balance = r.Balance.Sub(p.Principal)
		}
	}
	return r, nil
}

// receiptParts reads an invoice's standing payments, in the order they
// were paid.
func (s *Store) receiptParts(ctx context.Context, companyID, invoiceID int64) ([]ReceiptPart, error) {
	rows, err := s.pool.Query(ctx, `SELECT paid_at, amount::text, late_fee::text, interest::text, principal::text,
		coalesce(method, '')
		FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2 AND undone_at IS NULL ORDER BY n`, companyID, invoiceID)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("payments of invoice %d", invoiceID))
	}
	parts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ReceiptPart, error) {
		var p ReceiptPart
		var amount, lateFee, interest, principal string
		if err := row.Scan(&p.PaidAt, &amount, &lateFee, &interest, &principal, &p.Method); err != nil {
			return p, err
		}
		return p, parseDecimals(map[*decimal.Decimal]string{&p.Amount: amount, &p.LateFee: lateFee, &p.Interest: interest,
			&p.Principal: principal})
	})
	if err != nil {
		return nil, translate(err, fmt.Sprintf("payments of invoice %d", invoiceID))
	}
	return parts, nil
}

// receiptLines reads the lines of an invoice the payer is charged
// (finance.Charged: an item debiting the customer, or crediting it with a
// minus), described by their own text or their item's: they add up to the
// total. Deductions between owner and business (an administration fee)
// are not the payer's and are not shown.
func (s *Store) receiptLines(ctx context.Context, companyID, invoiceID int64) ([]ReceiptLine, error) {
	rows, err := s.pool.Query(ctx, `SELECT coalesce(l.description, ti.description),
		(CASE WHEN ti.credit = 'customer' THEN -l.amount ELSE l.amount END)::text
		FROM invoice_items l JOIN transaction_items ti ON ti.company_id = l.company_id AND ti.id = l.item_id
		WHERE l.company_id = $1 AND l.invoice_id = $2 AND l.kind = 'line'
		AND (coalesce(ti.debit, '') = 'customer') <> (coalesce(ti.credit, '') = 'customer')
		ORDER BY l.id`, companyID, invoiceID)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("lines of invoice %d", invoiceID))
	}
	lines, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ReceiptLine, error) {
		var l ReceiptLine
		var amount string
		if err := row.Scan(&l.Description, &amount); err != nil {
			return l, err
		}
		l.Amount, err = decimal.NewFromString(amount)
		return l, err
	})
	if err != nil {
		return nil, translate(err, fmt.Sprintf("lines of invoice %d", invoiceID))
	}
	return lines, nil
}

// TransactionReceipt reads what the receipt page of a ledger entry shows:
// the entry as one line, charged by its business (the company when it has
// none) to its person (or its tenant, or its owner). A paid entry is receipted on its date; an unpaid
// one is overdue after its due date (its date when it has none).
func (s *Store) TransactionReceipt(ctx context.Context, companyID, id int64) (Receipt, error) {
	var r Receipt
	var amount string
	var description, method *string
	var competence, due *time.Time
	err := s.pool.QueryRow(ctx, `SELECT t.id::text, coalesce(b.name, c.name), coalesce(b.tax_id, ''),
		coalesce(p.name, ''), coalesce(p.tax_id, ''), t.description, t.competence, coalesce(t.due_date, t.date),
		t.amount::text, t.paid, t.date, t.billing_method,
		CASE WHEN t.paid THEN 'paid' WHEN coalesce(t.due_date, t.date) < `+fmt.Sprintf(todayOf, "t.company_id")+` THEN 'overdue' ELSE 'unpaid' END
		FROM transactions t
		JOIN companies c ON c.id = t.company_id
		LEFT JOIN businesses b ON b.company_id = t.company_id AND b.id = t.business_id
		LEFT JOIN persons p ON p.company_id = t.company_id AND p.id = coalesce(t.person_id, t.tenant_id, t.owner_id)
		WHERE t.company_id = $1 AND t.id = $2`, companyID, id).Scan(&r.Number, &r.BusinessName, &r.BusinessTaxID,
		&r.PayerName, &r.PayerTaxID, &description, &competence, &due, &amount, &r.Paid, &r.PaidAt, &method, &r.Status)
	if errors.Is(err, pgx.ErrNoRows) {
		return Receipt{}, recordNotFound(id)
	}
	if err != nil {
		return Receipt{}, translate(err, fmt.Sprintf("receipt of transaction %d", id))
	}
	r.Description, r.Method = deref(description), deref(method)
	r.Competence, r.DueDate = orZero(competence), orZero(due)
	if r.Total, err = decimal.NewFromString(amount); err != nil {
		return Receipt{}, fmt.Errorf("receipt of transaction %d: %w", id, err)
	}
	r.Lines = []ReceiptLine{{Description: r.Description, Amount: r.Total}}
	if r.Paid {
		r.CreditAt, r.PaidAmount = r.PaidAt, r.Total
	} else {
		r.PaidAt = time.Time{}
	}
	return r, nil
}

func parseDecimals(fields map[*decimal.Decimal]string) error {
	for dst, text := range fields {
		d, err := decimal.NewFromString(text)
		if err != nil {
			return fmt.Errorf("decimal %q: %w", text, err)
		}
		*dst = d
	}
	return nil
}

func orZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
