package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Write rules of the payment batches (docs/api.md, "Payment batches"), run
// as hooks in the write's transaction.

// paymentBanks are the banks package cnab/pagamento writes payment
// remittances for (always CNAB 240). Package jobs's tests hold this list
// to pagamento.Supported().
var paymentBanks = []string{"001", "033", "237", "341", "756"}

// PaymentBanks lists the banks a payment batch's account may be at.
func PaymentBanks() []string { return slices.Clone(paymentBanks) }

// checkPaymentBatchAccount requires, on create, an account (already known
// to be the company's) at a bank payment remittances are written for,
// with the CNAB 240 layout (422 naming account_id).
func checkPaymentBatchAccount(ctx context.Context, tx pgx.Tx, c *Change) error {
	id, given := c.New.Values["account_id"]
	if c.Op != OpCreate || !given || id == nil {
		return nil
	}
	var bank, layout string
	err := tx.QueryRow(ctx, `SELECT coalesce(bank, ''), coalesce(layout, '') FROM accounts WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, id).Scan(&bank, &layout)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // the reference check names it
	}
	if err != nil {
		return fmt.Errorf("account of a payment batch: %w", err)
	}
	if msg := paymentAccountProblem(bank, layout); msg != "" {
		return problem("account_id", msg)
	}
	return nil
}

// paymentAccountProblem says why an account with bank and layout cannot
// send payment remittances; "" when it can.
func paymentAccountProblem(bank, layout string) string {
	switch {
	case bank == "":
		return "the account needs its bank to send a payment remittance"
	case !slices.Contains(paymentBanks, bank):
		return fmt.Sprintf("bank %s has no payment remittance layout here; the banks are %s", bank, strings.Join(paymentBanks, ", "))
	case layout != "cnab240":
		return fmt.Sprintf("payment remittances are CNAB 240 files: the account's layout must be cnab240, not %q", layout)
	}
	return ""
}

// deletePaymentBatch refuses (409) to delete a batch whose file is
// written (the bank has its payments: revert them instead), and takes the
// entries out of an open one first, as removeTransactions does.
func deletePaymentBatch(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpDelete {
		return nil
	}
	if c.OldValue("status") != "open" {
		return Errorf(Conflict, "The batch's file is written: the batch is kept; take its transactions back with revertTransactions.")
	}
	b, err := LockBatch(ctx, tx, PaymentBatch, c.Scope.CompanyID, c.ID)
	if err != nil {
		return err
	}
	_, err = RemovePaymentTransactions(ctx, tx, b, nil)
	return err
}

// checkBarcodeShape accepts a boleto's 44-digit barcode or its 47-digit
// digitable line, digits only (Column.Check of ticket_barcode); its check
// digits are verified when the entry joins a payment batch.
func checkBarcodeShape(v string) string {
	if (len(v) != 44 && len(v) != 47) || strings.Trim(v, "0123456789") != "" {
		return "must be the boleto's 44-digit barcode or its 47-digit digitable line, digits only"
	}
	return ""
}

// checkISPB accepts an institution's ISPB: 8 digits (Column.Check).
func checkISPB(v string) string {
	if len(v) != 8 || strings.Trim(v, "0123456789") != "" {
		return "must be the institution's ISPB: 8 digits"
	}
	return ""
}
