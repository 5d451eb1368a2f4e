package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// What a part paid over what was due (docs/ledger.md, "Part payments",
// "More than the discounted amount"): a payment by the discount date of
// at least the discounted amount settles the invoice with its discount,
// up to the face value, and what it paid beyond what was due is booked
// nowhere, as the money a return file's line brings beyond what it books:
// the part's row keeps it (over_paid), an operator alert over_payment
// names it until someone says what was done with it (ResolveAlert), and
// the part's answer warns of it.

// partOverPaymentKey is the key of the over_payment alert of a part
// recorded by hand (a return file's is its line's, ReturnTariffKey): the
// payment's id, once per payment.
func partOverPaymentKey(paymentID int64) string {
	return fmt.Sprintf("invoice-payment-%d", paymentID)
}

// raisePartOverPayment raises the over_payment alert of a part that paid
// more than was due (row.part.OverPaid) and answers the warning of the
// part's answer; nil for a part that paid no more than was due.
func raisePartOverPayment(ctx context.Context, tx pgx.Tx, companyID int64, pi *partInvoice, row partRow,
	paidAt finance.Date) (*finance.Problem, error) {
	p := row.part
	if !p.OverPaid.IsPositive() {
		return nil, nil
	}
	paid := p.Amount.Add(p.OverPaid)
	words := fmt.Sprintf("paid %s on %s, %s more than the %s due (the invoice %s less its discount %s, paid by the "+
		"discount date): the invoice is paid with the %s due booked as part %d (payment %d); the %s over is booked "+
		"nowhere: give it back to the payer or apply it", paid.StringFixed(2), paidAt, p.OverPaid.StringFixed(2),
		p.Amount.StringFixed(2), p.Due.Invoice.StringFixed(2), p.Discount.StringFixed(2), p.Amount.StringFixed(2), row.n,
		row.id, p.OverPaid.StringFixed(2))
	alert := LineAlert{Key: partOverPaymentKey(row.id), InvoiceID: pi.inv.ID,
		Message: fmt.Sprintf("invoice %d, a part recorded by hand: %s", pi.inv.ID, words)}
	if _, err := RaiseOverPayments(ctx, tx, companyID, []LineAlert{alert}); err != nil {
		return nil, err
	}
	return &finance.Problem{Field: "amount", Message: words + " (an operator alert over_payment is raised; it is closed " +
		"once what was done with the money is recorded)"}, nil
}
