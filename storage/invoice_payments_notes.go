package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// What an undo of an invoice's payments tells its caller (docs/ledger.md,
// "Part payments"): how many parts paid: false undid, and the refunds an
// undo reversed with them, read before the undo.

// standingPayments is what an invoice's undo takes back: its standing
// parts ("300.00 on 2026-11-10", in the order paid) and what its refunds
// gave back (zero for none).
type standingPayments struct {
	parts    []string
	refunded decimal.Decimal
}

// readStandingPayments reads the standing parts and the refunded amount
// of invoice id.
func readStandingPayments(ctx context.Context, tx pgx.Tx, companyID, id int64) (standingPayments, error) {
	var sp standingPayments
	err := tx.QueryRow(ctx, `
		SELECT coalesce((SELECT array_agg(p.amount::text || ' on ' || p.paid_at::text ORDER BY p.n) FROM invoice_payments p
		                 WHERE p.company_id = i.company_id AND p.invoice_id = i.id AND p.undone_at IS NULL), '{}'),
		       coalesce(i.refunded_amount, 0)
		FROM invoices i WHERE i.company_id = $1 AND i.id = $2`, companyID, id).Scan(&sp.parts, &sp.refunded)
	return sp, translate(err, fmt.Sprintf("invoice %d: payments", id))
}

// refundsNote says that the undo reversed the invoice's refunds, which
// took from every part, and how to give them back again with left parts
// standing after it; "" when it had none.
func (sp standingPayments) refundsNote(id int64, left int) string {
	if !sp.refunded.IsPositive() {
		return ""
	}
	note := fmt.Sprintf("the invoice's refunds (%s given back) were reversed with it, as they took from every part: the "+
		"ledger no longer shows that money as given back; ", sp.refunded.StringFixed(2))
	if left > 0 {
		return note + fmt.Sprintf("if it was, refund it again (POST /invoices/%d/refund) from the payments that stand", id)
	}
	return note + fmt.Sprintf("no payment of the invoice stands now: if the money was given back, refund it again once the "+
		"payment is recorded again (POST /invoices/%d/payments, then POST /invoices/%d/refund), or, if none will be, "+
		"record what was given back by hand (POST /transactions)", id, id)
}

// warnUndone warns an update whose paid: false undid the invoice's
// payments of how many parts it undid (when more than one) and of the
// refunds it reversed.
func (sp standingPayments) warnUndone(c *Change) {
	if len(sp.parts) > 1 {
		c.Warn("paid", "paid: false undid all %d parts of the invoice (%s); to take back one part only, record the others "+
			"again (POST /invoices/%d/payments): a part alone is undone with DELETE /invoices/%d/payments/{part}",
			len(sp.parts), strings.Join(sp.parts, ", "), c.ID, c.ID)
	}
	if note := sp.refundsNote(c.ID, 0); note != "" {
		c.Warn("refunded_amount", "%s", note)
	}
}
