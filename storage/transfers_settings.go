package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// A company's transfer setting (companies.transfer_payment, migration
// 0045; GET and PUT /financial/settings): whether the nightly transfer run
// writes the owners' transfers paid, or due for a payment batch to pay
// (docs/ledger.md, "Paying the transfers").

// The values of transfer_payment.
const (
	// TransferPaidAtOnce: the run writes each transfer paid, dated the
	// day of the run (the company pays it by its own means that day).
	TransferPaidAtOnce = "at_once"
	// TransferPaidByBatch: the run writes each transfer unpaid, due; a
	// payment batch's return file pays it on the day the bank paid, or it
	// is marked paid by hand.
	TransferPaidByBatch = "batch"
)

// transferPayments lists the values of transfer_payment.
var transferPayments = []string{TransferPaidAtOnce, TransferPaidByBatch}

// TransferSettings are a company's transfer settings, as
// /financial/settings names them.
type TransferSettings struct {
	// TransferPayment is how the run's transfers are paid: at_once
	// (default) or batch.
	TransferPayment string `json:"transfer_payment"`
}

// CheckTransferPayment says what is wrong with a transfer_payment value.
func CheckTransferPayment(v string) []finance.Problem {
	if !slices.Contains(transferPayments, v) {
		return []finance.Problem{{Field: "transfer_payment", Message: fmt.Sprintf("must be one of %s; got %q",
			strings.Join(transferPayments, ", "), v)}}
	}
	return nil
}

// setTransferPayment stores transfer_payment (nil: kept), checked.
func setTransferPayment(ctx context.Context, tx pgx.Tx, companyID int64, v *string) error {
	if v == nil {
		return nil
	}
	if ps := CheckTransferPayment(*v); ps != nil {
		return finance.InvalidInput(ps)
	}
	_, err := tx.Exec(ctx, `UPDATE companies SET transfer_payment = $2 WHERE id = $1`, companyID, *v)
	return translate(err, "update transfer settings")
}
