package storage

import (
	"fmt"
	"slices"
	"strings"

	"github.com/propfin/propfin/finance"
)

// Write rules of the payment batches (docs/api.md, "Payment batches"), run
// as hooks in the write's transaction.

// paymentBanks are the banks package cnab/pagamento writes payment
// remittances for (always CNAB 240). Package jobs's tests hold this list
// to pagamento.Supported().
var paymentBanks = []string{"001", "033", "237", "341", "756"}

// PaymentBanks lists the banks a payment batch's account may be at.
func PaymentBanks() []string { return slices.Clone(paymentBanks) }

// paymentAccountProblems says why an account cannot send payment
// remittances, by the column to fix; none when it can. (What the bank's
// payment header needs besides, the agreement's code among it, is checked
// by package cnab/pagamento when a payment joins a batch.)
func paymentAccountProblems(a AccountTerms) []finance.Problem {
	bank, layout := a.Get("bank"), a.Get("layout")
	switch {
	case bank == "":
		return []finance.Problem{{Field: "bank", Message: "the account needs its bank to send a payment remittance"}}
	case !slices.Contains(paymentBanks, bank):
		return []finance.Problem{{Field: "bank", Message: fmt.Sprintf("bank %s has no payment remittance layout here; the banks are %s",
			bank, strings.Join(paymentBanks, ", "))}}
	case layout != "cnab240":
		return []finance.Problem{{Field: "layout", Message: fmt.Sprintf(
			"payment remittances are CNAB 240 files: the account's layout must be cnab240, not %q", layout)}}
	}
	return nil
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
