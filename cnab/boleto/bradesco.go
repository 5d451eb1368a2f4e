package boleto

import "strconv"

// Bradesco (237). The document followed is listed in docs/boleto.md.
//
// Nosso número: 11 digits chosen by the beneficiary; its check digit is
// modulo 11 with weights 2 to 7 over wallet (2) and nosso número (11):
// remainder 0 gives "0", remainder 1 gives "P", otherwise 11 minus the
// remainder.
//
// Free field: agency (4), wallet (2), nosso número (11), account (7), "0".
func init() {
	banks["237"] = bankRule{name: "Bradesco", check: checkWith(bradescoParse), nossoNumero: bradescoNossoNumero, digit: bradescoDigit, freeField: bradescoFreeField}
}

const bradesco = "237"

type bradescoFields struct{ agency, account, wallet string }

func bradescoParse(b Beneficiary) (bradescoFields, error) {
	var f bradescoFields
	var err error
	if f.agency, err = digits(bradesco, "Agency", b.Agency, 4); err != nil {
		return f, err
	}
	if f.account, err = digits(bradesco, "Account", b.Account, 7); err != nil {
		return f, err
	}
	if f.wallet, err = digits(bradesco, "Wallet", b.Wallet, 2); err != nil {
		return f, err
	}
	return f, nil
}

func bradescoNossoNumero(b Beneficiary, sequence int64) (NossoNumero, error) {
	f, err := bradescoParse(b)
	if err != nil {
		return NossoNumero{}, err
	}
	number, err := sequenceDigits(bradesco, sequence, 11)
	if err != nil {
		return NossoNumero{}, err
	}
	dv := bradescoDigitOf(f.wallet, number)
	return NossoNumero{Number: number, Digit: dv, Printed: f.wallet + "/" + number + "-" + dv}, nil
}

// bradescoDigit is called after bradescoParse accepted b.
func bradescoDigit(b Beneficiary, number string) string {
	f, _ := bradescoParse(b)
	return bradescoDigitOf(f.wallet, number)
}

func bradescoDigitOf(wallet, number string) string {
	switch r := mod11Sum(wallet+number, 7); r {
	case 0:
		return "0"
	case 1:
		return "P"
	default:
		return strconv.Itoa(11 - r)
	}
}

func bradescoFreeField(b Beneficiary, nn NossoNumero, _ int64) (string, error) {
	f, err := bradescoParse(b)
	if err != nil {
		return "", err
	}
	number, err := nossoNumeroDigits(bradesco, nn, 11)
	if err != nil {
		return "", err
	}
	return f.agency + f.wallet + number + f.account + "0", nil
}
