package boleto

import "strconv"

// Santander (033). The document followed is listed in docs/boleto.md.
//
// Nosso número: 12 digits chosen by the beneficiary; its DV is modulo 11
// with weights 2 to 9: remainder 10 gives 1, remainders 0 and 1 give 0,
// otherwise 11 minus the remainder.
//
// Free field: "9", beneficiary code (Covenant, 7), nosso número with DV
// (13), IOF "0" (other values are for insurance companies only), wallet
// (3, for example 101).
func init() {
	banks["033"] = bankRule{name: "Santander", check: checkWith(santanderParse), nossoNumero: santanderNossoNumero, digit: santanderDigit, freeField: santanderFreeField}
}

const santander = "033"

type santanderFields struct{ covenant, wallet string }

func santanderParse(b Beneficiary) (santanderFields, error) {
	var f santanderFields
	var err error
	if f.covenant, err = digits(santander, "Covenant", b.Covenant, 7); err != nil {
		return f, err
	}
	if f.wallet, err = digits(santander, "Wallet", b.Wallet, 3); err != nil {
		return f, err
	}
	return f, nil
}

func santanderNumber(b Beneficiary, sequence int64) (string, error) {
	if _, err := santanderParse(b); err != nil {
		return "", err
	}
	return sequenceDigits(santander, sequence, 12)
}

func santanderDigit(_ Beneficiary, number string) string {
	switch r := mod11Sum(number, 9); r {
	case 10:
		return "1"
	case 0, 1:
		return "0"
	default:
		return strconv.Itoa(11 - r)
	}
}

func santanderFreeField(b Beneficiary, nn NossoNumero, _ int64) (string, error) {
	f, err := santanderParse(b)
	if err != nil {
		return "", err
	}
	number, err := nossoNumeroDigits(santander, nn, 12)
	if err != nil {
		return "", err
	}
	return "9" + f.covenant + number + santanderDigit(b, number) + "0" + f.wallet, nil
}

func santanderNossoNumero(b Beneficiary, sequence int64) (NossoNumero, error) {
	number, err := santanderNumber(b, sequence)
	if err != nil {
		return NossoNumero{}, err
	}
	return dashed(number, santanderDigit(b, number)), nil
}
