package pagamento

import (
	"fmt"
	"slices"
)

// bank is one bank's payment layout: its records, line endings and
// codes.
type bank struct {
	code     string
	name     string
	document string // the layout document followed, for docs and errors
	eol      string
	finalEOL bool // whether the last record ends with eol too

	fileHeader   *record
	fileTrailer  *record
	batchTrailer *record
	// batchHeaderA heads batches of transfers and PIX (segments A and B),
	// batchHeaderJ batches of boletos (segments J and J-52).
	batchHeaderA, batchHeaderJ *record
	// detail returns the segments of the current payment.
	detail func(s *state) []*record
	// forma returns the bank's forma de lançamento of the current,
	// checked payment.
	forma func(s *state) string
	// checkPayer applies the bank's own rules to the payer.
	checkPayer func(s *state)
	// checkPayment, when set, applies the bank's own rules to a payment
	// that passed the common checks.
	checkPayment func(s *state)
	// pixFileOnly: the bank takes PIX payments only in a file of their
	// own (Remittance.PIX).
	pixFileOnly bool
	// pixByBankCode: the layout names the institution of a PIX to
	// account data by its bank code and has no place for an ISPB, so
	// Account.Bank is required and Account.ISPB is not.
	pixByBankCode bool
	// covenant: the header carries the payer's payment agreement code
	// (Payer.Covenant), which checkPayer requires.
	covenant bool
}

var banks = map[string]*bank{}

func register(b *bank) *bank {
	banks[b.code] = b
	return b
}

func lookupBank(code string) (*bank, error) {
	b, ok := banks[code]
	if !ok {
		return nil, fmt.Errorf("bank %q has no payment layout here (supported: %v)", code, Supported())
	}
	return b, nil
}

// Supported lists the bank codes this package writes payment remittances
// for, sorted.
func Supported() []string {
	var out []string
	for code := range banks {
		out = append(out, code)
	}
	slices.Sort(out)
	return out
}

// payerRequired are the payer fields every bank's header requires
// beside its name and document (checkRemittance), in their JSON spelling.
var payerRequired = []string{"agency", "account", "account_digit"}

// Required lists the payer's account fields a bank's payment header
// requires, in their JSON spelling without "payer." ("agency", "account",
// "account_digit", and "covenant" at the banks that take a payment
// agreement code), as NewWriter checks them (their form is checked there
// too: digits, lengths); nil for a bank not written here. The payer's
// name and document are required at every bank.
func Required(code string) []string {
	b, ok := banks[code]
	if !ok {
		return nil
	}
	out := slices.Clone(payerRequired)
	if b.covenant {
		out = append(out, "covenant")
	}
	return out
}

// PIXFileOnly reports whether the bank takes PIX payments only in a file
// of their own (Remittance.PIX): Bradesco and Itaú. False for a bank not
// written here.
func PIXFileOnly(code string) bool {
	b, ok := banks[code]
	return ok && b.pixFileOnly
}

// batchHeader returns the header of a batch of the given forma.
func (b *bank) batchHeader(forma string) *record {
	if isBoletoForma(forma) {
		return b.batchHeaderJ
	}
	return b.batchHeaderA
}

// isBoleto reports whether the current batch or payment pays boletos
// (segments J and J-52).
func isBoletoForma(f string) bool { return f == "30" || f == "31" }

// boletoForma is 30 for a boleto of the payer's own bank and 31 for one of
// another bank, in every layout here (FEBRABAN G029, SISPAG note 5).
func boletoForma(s *state) string {
	if s.barcode.Bank() == s.rem.Bank {
		return "30"
	}
	return "31"
}
