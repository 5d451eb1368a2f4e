package storage

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/propfin/propfin/finance"
)

// Write rules of the payment batches (docs/api.md, "Payment batches"), run
// as hooks in the write's transaction.

// paymentRequired are the banks package cnab/pagamento writes payment
// remittances for, each with the account columns its payment header
// carries (the payer's account and, at the banks that take one, the
// payment agreement's code: pagamento.Required, payment_covenant being
// its covenant; package jobs's tests hold this table to it). A payment
// remittance is always a CNAB 240 file, whatever the account's layout
// (the collection layout), and takes no wallet.
var paymentRequired = map[string][]string{
	"001": {"agency", "account", "account_digit", "payment_covenant"},
	"033": {"agency", "account", "account_digit", "payment_covenant"},
	"237": {"agency", "account", "account_digit", "payment_covenant"},
	"341": {"agency", "account", "account_digit"},
	"756": {"agency", "account", "account_digit", "payment_covenant"},
}

// PaymentBanks lists the banks a payment batch's account may be at,
// sorted.
func PaymentBanks() []string { return slices.Sorted(maps.Keys(paymentRequired)) }

// PaymentRequired lists the account columns a payment account at bank
// must have set (nil for a bank not written).
func PaymentRequired(bank string) []string { return slices.Clone(paymentRequired[bank]) }

// paymentAccountProblems says why an account cannot send payment
// remittances, by the column to fix: its bank must be one they are
// written for, with the columns its payment header carries; none when it
// can. Its layout is not read: it is the collection layout, and payment
// remittances are CNAB 240 files whatever it is (a CNAB 400 collection
// account pays by CNAB 240 at the same bank). The form of each column
// (digits, lengths) is the bank layout's to check when payments join a
// batch (package jobs).
func paymentAccountProblems(a AccountTerms) []finance.Problem {
	bank := a.Get("bank")
	required, known := paymentRequired[bank]
	switch {
	case bank == "":
		return []finance.Problem{{Field: "bank", Message: "the account needs its bank to send a payment remittance"}}
	case !known:
		return []finance.Problem{{Field: "bank", Message: fmt.Sprintf("bank %s has no payment remittance layout here; the banks are %s",
			bank, strings.Join(PaymentBanks(), ", "))}}
	}
	var ps []finance.Problem
	for _, col := range required {
		if a.Get(col) != "" {
			continue
		}
		what := "payment remittances (CNAB 240) carry it"
		if col == "payment_covenant" {
			what = "payment remittances (CNAB 240) carry the payment agreement's code, apart from the collection covenant"
		}
		ps = append(ps, finance.Problem{Field: col, Message: fmt.Sprintf("required: bank %s's %s", bank, what)})
	}
	return ps
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
