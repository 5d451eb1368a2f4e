package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The rules an agreement sets on the writes of its invoices (a hook of
// the invoices resource; docs/api.md, "/financial/agreements"): an
// original stays as it was renegotiated while it is renegotiated, an
// installment keeps what its agreement reckoned while the agreement is
// active, and neither is ever deleted (the agreement lists them).

// The columns an agreement keeps: an original's while it is renegotiated,
// an installment's while its agreement is active (their lines too).
var (
	originalFrozen    = []string{"total", "due_date", "payer_id", "business_id", "account_id", "contract_id", "building_id"}
	installmentFrozen = []string{"total", "payer_id", "business_id", "contract_id", "building_id"}
)

// frozenByAgreement refuses (409) the delete of an invoice of an
// agreement, a change of what the agreement keeps, and the moves that
// would undo it behind its back: an active agreement's installment
// canceled or written off (422 on status: cancel or break the agreement),
// a broken agreement's paid installment made unpaid (the originals were
// given back less its payment), an installment canceled with its
// agreement restored (422 on status).
func frozenByAgreement(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpCreate {
		return nil
	}
	agreement, ok := asInt64(c.OldValue("agreement_id"))
	if !ok {
		return nil
	}
	if c.Op == OpDelete {
		return finance.Errorf(finance.Conflict, "The invoice belongs to agreement %d (an original or an installment of it): "+
			"it is kept with the agreement.", agreement)
	}
	number, installment := asInt64(c.OldValue("agreement_installment"))
	if !installment {
		if c.OldValue("status") != string(finance.InvoiceRenegotiated) {
			return nil
		}
		if changed := frozenChanges(c, originalFrozen); len(changed) > 0 {
			return finance.Errorf(finance.Conflict, "The invoice is renegotiated by agreement %d: its %s cannot change; "+
				"cancel or break the agreement first.", agreement, strings.Join(changed, ", "))
		}
		return nil
	}
	var status string
	if err := tx.QueryRow(ctx, `SELECT status FROM agreements WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, agreement).Scan(&status); err != nil {
		return translate(err, fmt.Sprintf("agreement %d", agreement))
	}
	wanted, moving := c.New.Values["status"].(string)
	moving = moving && c.Changed("status")
	switch status {
	case AgreementActive:
		if changed := frozenChanges(c, installmentFrozen); len(changed) > 0 {
			return finance.Errorf(finance.Conflict, "The invoice is installment %d of agreement %d: its %s cannot change while the "+
				"agreement is active.", number, agreement, strings.Join(changed, ", "))
		}
		if moving && (wanted == "canceled" || wanted == "uncollectible") {
			return problem("status", fmt.Sprintf("installment %d of active agreement %d cannot be %s: cancel or break the agreement "+
				"(POST /financial/agreements/%d/cancel or /break)", number, agreement, wanted, agreement))
		}
	case AgreementBroken:
		if undoing(c) {
			return finance.Errorf(finance.Conflict, "Agreement %d is broken: its originals were given back less this installment's "+
				"payment, which can no longer be undone.", agreement)
		}
		fallthrough
	case AgreementCanceled:
		if moving && c.OldValue("status") == "canceled" {
			return problem("status", fmt.Sprintf("installment %d was canceled with agreement %d (%s): it stays canceled",
				number, agreement, status))
		}
	}
	return nil
}

// frozenChanges lists the columns of cols the write changes, and items
// when it gives lines.
func frozenChanges(c *Change, cols []string) []string {
	var changed []string
	for _, col := range cols {
		if c.Changed(col) {
			changed = append(changed, col)
		}
	}
	if len(c.New.Children["items"]) > 0 {
		changed = append(changed, "items")
	}
	return changed
}

// keepInstallmentAgreement is the invoices' after hook of a write that
// pays an installment or undoes its payment: once the row says so, its
// agreement is fulfilled by its last installment paid, or active again
// (keepAgreementStatus).
func keepInstallmentAgreement(ctx context.Context, tx pgx.Tx, c *Change) error {
	if !paying(c) && !undoing(c) {
		return nil
	}
	if _, installment := asInt64(c.OldValue("agreement_installment")); !installment {
		return nil
	}
	return keepAgreementStatus(ctx, tx, c.Scope.CompanyID, []int64{c.ID})
}

// refuseInstallmentOperation refuses (409) to refund or write off (what)
// an installment of an agreement: the agreement reckons with what its
// installments paid (a break gives the originals back less it) and with
// what they still owe (its installments are paid, or it is broken or
// canceled). An invoice of no agreement's installments is nil.
func refuseInstallmentOperation(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64, what string) error {
	var agreement, number int64
	var status string
	err := tx.QueryRow(ctx, `SELECT a.id, i.agreement_installment, a.status FROM invoices i
		JOIN agreements a ON a.company_id = i.company_id AND a.id = i.agreement_id
		WHERE i.company_id = $1 AND i.id = $2 AND i.agreement_installment IS NOT NULL`, companyID, invoiceID).
		Scan(&agreement, &number, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return translate(err, fmt.Sprintf("agreement of invoice %d", invoiceID))
	}
	how := "break the agreement (POST /financial/agreements/" + strconv.FormatInt(agreement, 10) + "/break) and " +
		"write off the invoices it gives back"
	if what == "refunded" {
		how = "undo its payment (paid: false) while the agreement is active or fulfilled"
	}
	return finance.Errorf(finance.Conflict, "The invoice is installment %d of agreement %d (%s): an installment is not %s; %s.",
		number, agreement, status, what, how)
}
