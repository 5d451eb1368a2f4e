package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The over payments as their company reads and closes them (docs/api.md,
// "Over payments"): the company's over_payment alerts (what a payer paid
// beyond what was due, booked nowhere: a part by the discount date of more
// than the discounted amount, a return file's line paying more than the
// rest or an invoice paid already), read through the over_payments view
// of operator_alerts, and resolved by the company saying what was done
// with the money, as its operator may (ResolveAlert).

// OverPayments is the resource of a company's over payments.
const OverPayments = "over_payments"

// OverPaymentSources say what raised an over payment: a part recorded
// through the API, or a line of a bank's return file (its job named).
var OverPaymentSources = []string{"part", "return_file"}

// overPaymentsResource is GET /financial/overPayments: read-only, the
// writes are the resolve operation's.
func overPaymentsResource() *Resource {
	return &Resource{
		Name: OverPayments, Table: "over_payments", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true},
			{Name: "source", Type: String, Filterable: true, Enum: OverPaymentSources},
			{Name: "job_id", Type: Int, Filterable: true},
			{Name: "message", Type: String, Filterable: true},
			{Name: "raised_at", Type: DateTime, Filterable: true},
			{Name: "open", Type: Bool, Filterable: true},
			{Name: "resolution", Type: String, Filterable: true, Enum: AlertResolutions},
			{Name: "resolution_reason", Type: String, Filterable: true},
			{Name: "resolved_by", Type: String, Filterable: true},
			{Name: "resolved_at", Type: DateTime, Filterable: true},
		},
		Relations: []Relation{{Name: "invoice", Kind: BelongsTo, Resource: Invoices, Key: "invoice_id"}},
	}
}

// ResolveOverPayment records, in tx, what company companyID did with the
// money of its over payment id: the resolution, the reason and who
// (r.Operator: the key or user that said so), as ResolveAlert does for an
// operator, without a row of the operators' audit log (the company's own
// act). NotFound for no over payment of the company by that id (another
// company's included); Conflict for one resolved already; Invalid for a
// resolution not of AlertResolutions or no reason.
func ResolveOverPayment(ctx context.Context, tx pgx.Tx, companyID, id int64, r AlertResolution) (Alert, error) {
	a, err := lockOverPayment(ctx, tx, companyID, id, r)
	if err != nil {
		return a, err
	}
	rows, err := tx.Query(ctx, `UPDATE operator_alerts a SET resolution = $3, resolution_reason = $4, resolved_by = $5,
		    resolved_at = now()
		WHERE a.company_id = $1 AND a.id = $2 RETURNING `+alertColumns, companyID, id, r.Resolution, r.Reason, r.Operator)
	if err != nil {
		return a, translate(err, fmt.Sprintf("resolve over payment %d", id))
	}
	a, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[Alert])
	return a, translate(err, fmt.Sprintf("resolve over payment %d", id))
}
