package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// pixRefusedStatuses are the invoice statuses that take no PIX code: the
// invoice is settled or no longer owed (spec 001, PIX code rule 1; a
// renegotiated invoice's agreement installments are owed instead).
var pixRefusedStatuses = []string{"paid", "canceled", "refunded", "uncollectible", "renegotiated"}

// SetInvoicePixCode stores code, a PIX copy-and-paste payload already
// validated and normalized by the caller (pix.Normalize), whose amount
// (field 54, "" when it has none) must be the invoice's total, as the
// invoice's pix_code, and records it in the invoice's history with origin pix_code,
// in one transaction, with its invoice.updated event (a code equal to the
// one stored changes nothing: nothing is written). The invoice must have a billing linked (billing_id:
// manual billing has no slip in any channel) and be open; otherwise
// nothing is stored and the error (Conflict) says why. Another company's
// invoice is not found.
func (s *Store) SetInvoicePixCode(ctx context.Context, sc Scope, id int64, code, amount string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var billingID *int64
		var status, total string
		var paid bool
		var old *string
		err := tx.QueryRow(ctx, `SELECT billing_id, status, paid, pix_code, total::text FROM invoices
			WHERE company_id = $1 AND id = $2 FOR NO KEY UPDATE`, sc.CompanyID, id).Scan(&billingID, &status, &paid, &old, &total)
		if errors.Is(err, pgx.ErrNoRows) {
			return recordNotFound(id)
		}
		if err != nil {
			return translate(err, fmt.Sprintf("read invoice %d", id))
		}
		if err := pixCodeAccepted(billingID, status, paid); err != nil {
			return err
		}
		if err := pixAmountAccepted(ctx, tx, sc.CompanyID, id, amount, total); err != nil {
			return err
		}
		if old != nil && *old == code {
			return nil // the code stored already: nothing changes, nothing is written
		}
		if _, err := tx.Exec(ctx, `UPDATE invoices SET pix_code = $3, updated_at = now()
			WHERE company_id = $1 AND id = $2`, sc.CompanyID, id, code); err != nil {
			return translate(err, fmt.Sprintf("store the PIX code of invoice %d", id))
		}
		var from any
		if old != nil {
			from = *old
		}
		if err := WriteInvoiceHistory(ctx, tx, sc.CompanyID, id, ActorOf(sc), OriginPixCode,
			[]FieldChange{{Field: "pix_code", From: from, To: code}}); err != nil {
			return err
		}
		_, err = EmitRecordEvents(ctx, tx, sc.CompanyID, EventInvoiceUpdated, Invoices, []int64{id}, "")
		return err
	})
}

// pixCodeAccepted says why an invoice takes no PIX code (nil when it does).
func pixCodeAccepted(billingID *int64, status string, paid bool) error {
	if billingID == nil {
		return finance.Errorf(finance.Conflict, "The invoice has no billing linked (billing_id): manual billing has no slip in any channel, "+
			"so it takes no PIX code. Link a billing first.")
	}
	if paid || slices.Contains(pixRefusedStatuses, status) {
		if paid {
			status = "paid"
		}
		return finance.Errorf(finance.Conflict, "The invoice is %s: a PIX code is stored only on an invoice still to be paid.", status)
	}
	return nil
}

// pixAmountAccepted refuses (422 on pixCode.amount) a payload charging
// an amount the payer does not owe. Two amounts are owed, the same way
// for every invoice: the principal still open (the invoice's total, or
// the rest of an invoice partly paid: never its total, which the payer no
// longer owes), as the bank's slip charges it; and, on an invoice past its
// due date, that principal with the late fee and interest due on it today
// in the company's time zone (finance.DueOn, finance.Settle's rule), as a
// bank's second copy of a late slip charges. The message names the
// amounts accepted. A payload without an amount (the payer types it) is
// accepted.
func pixAmountAccepted(ctx context.Context, tx pgx.Tx, companyID, id int64, amount, total string) error {
	if amount == "" {
		return nil
	}
	a, errA := decimal.NewFromString(amount)
	t, errT := decimal.NewFromString(total)
	if errA != nil || errT != nil {
		return fmt.Errorf("compare PIX amount %q with total %q", amount, total)
	}
	due, today, err := amountDueToday(ctx, tx, companyID, id)
	if err != nil {
		return err
	}
	principal := t
	if due != nil {
		principal = due.Invoice
	}
	if a.Equal(principal) || (due != nil && a.Equal(due.Total)) {
		return nil
	}
	return finance.InvalidInput([]finance.Problem{{Field: "pixCode.amount", Message: pixAmountRefusal(a, t, due, today)}})
}

// pixAmountRefusal says what a payload charging a charges instead of
// what is accepted (pixAmountAccepted): the invoice's total t, or its
// rest (due.Invoice, partly paid), and what is due today when due has
// charges.
func pixAmountRefusal(a, t decimal.Decimal, due *finance.Settlement, today finance.Date) string {
	owed := fmt.Sprintf("the invoice's total, %s", t.StringFixed(2))
	if due != nil && !due.Invoice.Equal(t) {
		owed = fmt.Sprintf("the invoice's rest, %s (it is partly paid: %s of its total %s is paid)", due.Invoice.StringFixed(2),
			t.Sub(due.Invoice).StringFixed(2), t.StringFixed(2))
	}
	msg := fmt.Sprintf("the payload charges %s (field 54); accepted: ", a.StringFixed(2))
	if due == nil || due.Total.Equal(due.Invoice) {
		return msg + owed + ", or a code without an amount"
	}
	return msg + fmt.Sprintf("%s, or %s due today (%s, %s late: with late fee %s and interest %s), or a code without an amount",
		owed, due.Total.StringFixed(2), today, finance.Days(due.DaysLate), due.LateFee.StringFixed(2), due.Interest.StringFixed(2))
}

// amountDueToday settles invoice id on today in the company's time zone
// when it is past its due date or partly paid (finance.DueOn: the rest,
// with the late fee and interest on it); nil when neither: only the total
// is owed.
func amountDueToday(ctx context.Context, tx pgx.Tx, companyID, id int64) (*finance.Settlement, finance.Date, error) {
	var today finance.Date
	if err := tx.QueryRow(ctx, `SELECT (now() AT TIME ZONE time_zone)::date FROM companies WHERE id = $1`,
		companyID).Scan(&today); err != nil {
		return nil, today, translate(err, fmt.Sprintf("today of company %d", companyID))
	}
	pi, err := lockPartInvoice(ctx, tx, companyID, id)
	if err != nil {
		return nil, today, err
	}
	if pi.paid.Parts == 0 && !today.After(pi.inv.DueDate) {
		return nil, today, nil
	}
	s, err := finance.DueOn(pi.inv, today, pi.paid)
	if err != nil {
		return nil, today, problemsError(err, fmt.Sprintf("invoice %d: settle", id))
	}
	return &s, today, nil
}
