package boleto

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Beneficiary is the account that issues boletos (the "beneficiário",
// formerly "cedente"). Every field is a plain string of digits as the bank
// prints it; leading zeros may be omitted. Which fields a bank needs is in
// the package documentation; a field a bank does not use is ignored.
type Beneficiary struct {
	Bank         string // bank code: "001", "033", "041", "104", "237", "341", "748", "756"
	Agency       string // agência (cooperativa at Sicredi and Sicoob), without its digit
	AgencyDigit  string // dígito da agência
	Account      string // conta corrente, without its digit
	AccountDigit string // dígito da conta (DAC)
	Wallet       string // carteira
	Covenant     string // convênio (Banco do Brasil) or código do beneficiário / cedente (other banks)
	Station      string // posto (Sicredi)
	Modality     string // modalidade (Sicoob); "01" when empty
}

// NossoNumero is the bank's identification of one title, with its check
// digit.
type NossoNumero struct {
	// Number is the nosso número without its check digit, zero-padded to
	// the width the bank defines (Itaú 8, Bradesco 11, Santander 12,
	// Banrisul 8, Caixa 17, Banco do Brasil 11 or 17, Sicredi 8, Sicoob 7).
	Number string
	// Digit is the check digit: usually one digit, "P" at Bradesco and "X"
	// at Banco do Brasil for a remainder of 10 and 1, two digits ("NC") at
	// Banrisul, empty where the bank has none (Banco do Brasil with a
	// 7-digit covenant).
	Digit string
	// Printed is the form printed in the "Nosso número" box of the slip.
	Printed string
}

// Full returns the number followed by its check digit, the form most
// remittance layouts carry.
func (n NossoNumero) Full() string { return n.Number + n.Digit }

// bankRule is one bank's nosso número and free field.
type bankRule struct {
	name string
	// check validates the beneficiary fields the bank needs.
	check func(b Beneficiary) error
	// nossoNumero checks the beneficiary fields the bank needs and builds
	// the nosso número from a non-negative sequence.
	nossoNumero func(b Beneficiary, sequence int64) (NossoNumero, error)
	// digit is the check digit of a number of the bank's form, for a
	// beneficiary that check accepted ("" when the form has none).
	digit     func(b Beneficiary, number string) string
	freeField func(b Beneficiary, nn NossoNumero, amount int64) (string, error)
}

// dashed is the most common printed form, "number-digit".
func dashed(number, digit string) NossoNumero {
	if digit == "" {
		return NossoNumero{Number: number, Printed: number}
	}
	return NossoNumero{Number: number, Digit: digit, Printed: number + "-" + digit}
}

var banks = map[string]bankRule{}

// Banks returns the codes of the banks this package implements, in
// ascending order.
func Banks() []string {
	return slices.Sorted(maps.Keys(banks))
}

// BankName returns the name of a supported bank, "" for any other code.
func BankName(code string) string { return banks[code].name }

func ruleFor(bank string) (bankRule, error) {
	r, ok := banks[bank]
	if !ok {
		return bankRule{}, &FieldError{Field: "Bank", Value: bank, Err: ErrUnsupported,
			Reason: "not a supported bank (" + strings.Join(Banks(), ", ") + ")"}
	}
	return r, nil
}

// checkWith adapts a bank's field parser to bankRule.check.
func checkWith[T any](parse func(Beneficiary) (T, error)) func(Beneficiary) error {
	return func(b Beneficiary) error {
		_, err := parse(b)
		return err
	}
}

// Validate reports whether the beneficiary's bank is supported and has the
// fields its rules need, as a *FieldError naming the first field that is
// wrong. It lets a caller reject a beneficiary once, before its titles.
func (b Beneficiary) Validate() error {
	r, err := ruleFor(b.Bank)
	if err != nil {
		return err
	}
	return r.check(b)
}

// NewNossoNumero computes the nosso número of the title with the given
// sequence number for the beneficiary, by the beneficiary's bank's rule. The
// sequence is the part of the number the beneficiary chooses; at Sicredi it
// is the eight digits YYBNNNNN (see SicrediSequence). An error is a
// *FieldError naming the field the bank's rule could not use.
func NewNossoNumero(b Beneficiary, sequence int64) (NossoNumero, error) {
	r, err := ruleFor(b.Bank)
	if err != nil {
		return NossoNumero{}, err
	}
	if sequence < 0 {
		return NossoNumero{}, fieldErr(b.Bank, "Sequence", strconv.FormatInt(sequence, 10), "must not be negative")
	}
	return r.nossoNumero(b, sequence)
}

// FreeField returns the 25-digit free field (campo livre) of the barcode
// for the beneficiary and the nosso número (as returned by NewNossoNumero).
// A nosso número whose Digit is not empty must have the right check digit.
// The amount in cents matters to Sicredi only, whose free field says
// whether the slip has an amount.
func FreeField(b Beneficiary, nn NossoNumero, amount int64) (string, error) {
	r, err := ruleFor(b.Bank)
	if err != nil {
		return "", err
	}
	free, err := r.freeField(b, nn, amount)
	if err != nil {
		return "", err
	}
	if nn.Digit != "" {
		if want := r.digit(b, nn.Number); nn.Digit != want {
			return "", fieldErr(b.Bank, "NossoNumero", nn.Number+"-"+nn.Digit, "check digit should be %q", want)
		}
	}
	if len(free) != freeFieldLen || !isDigits(free) {
		// A bug in a bank rule, never the caller's input.
		panic("boleto: bank " + b.Bank + " built free field " + strconv.Quote(free))
	}
	return free, nil
}

// digits checks that value is made of digits and fits in width, and returns
// it left-padded with zeros to width. Leading zeros beyond width are
// dropped. An empty value is an error.
func digits(bank, field, value string, width int) (string, error) {
	if value == "" {
		return "", fieldErr(bank, field, value, "is required")
	}
	if !isDigits(value) {
		return "", fieldErr(bank, field, value, "must be digits only")
	}
	if len(value) == width {
		return value, nil
	}
	trimmed := strings.TrimLeft(value, "0")
	if len(trimmed) > width {
		return "", fieldErr(bank, field, value, "has more than %d digits", width)
	}
	return zeroPad(trimmed, width), nil
}

// zeroPad left-pads a string of at most 20 digits with zeros to width.
func zeroPad(s string, width int) string {
	var buf [20]byte
	pad := buf[:width-len(s)]
	for i := range pad {
		pad[i] = '0'
	}
	return string(append(pad, s...))
}

// sequenceDigits formats a sequence number zero-padded to width, or names
// the field when it does not fit.
func sequenceDigits(bank string, sequence int64, width int) (string, error) {
	var buf [20]byte // an int64 has at most 19 digits
	s := strconv.AppendInt(buf[:0], sequence, 10)
	if len(s) > width {
		return "", fieldErr(bank, "Sequence", string(s), "has more than %d digits", width)
	}
	return zeroPad(string(s), width), nil
}

// nossoNumeroDigits checks that nn.Number has the width the bank defines.
func nossoNumeroDigits(bank string, nn NossoNumero, width int) (string, error) {
	if len(nn.Number) != width || !isDigits(nn.Number) {
		return "", fieldErr(bank, "NossoNumero", nn.Number, "must be %d digits", width)
	}
	return nn.Number, nil
}
