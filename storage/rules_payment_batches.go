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

// paymentFrozenColumns are the entry's columns its payment in a batch
// depends on: what is paid, to whom, how, from which account, and whether
// it is paid at all.
var paymentFrozenColumns = []string{"amount", "interest", "discount", "person_id", "billing_method", "ticket_barcode",
	"account_id", "type", "mode", "paid", "due_date", "date"}

// transactionInPaymentBatch refuses (409) a change of the columns an
// entry's payment depends on, and its delete, while it is in a payment
// batch (added or sent): the bank would pay what the entry no longer
// says, or pay it twice.
func transactionInPaymentBatch(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpCreate {
		return nil
	}
	var changed []string
	if c.Op == OpUpdate {
		for _, col := range paymentFrozenColumns {
			if c.Changed(col) {
				changed = append(changed, col)
			}
		}
		if len(changed) == 0 {
			return nil
		}
	}
	var batch int64
	var status string
	err := tx.QueryRow(ctx, `SELECT m.batch_id, b.status FROM payment_batch_transactions m
		JOIN payment_batches b ON b.company_id = m.company_id AND b.id = m.batch_id
		WHERE m.company_id = $1 AND m.transaction_id = $2 AND m.state = 'added'`, c.Scope.CompanyID, c.ID).Scan(&batch, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("payment batch of entry %d: %w", c.ID, err)
	}
	how := "remove it from the batch (removeTransactions)"
	if status == "closed" {
		how = "revert it in the batch (revertTransactions)"
	}
	if c.Op == OpDelete {
		return Errorf(Conflict, "The transaction is in payment batch %d: %s before deleting it.", batch, how)
	}
	return Errorf(Conflict, "The transaction is in payment batch %d: its %s cannot change; %s first.",
		batch, strings.Join(changed, ", "), how)
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
