package boleto

import "strconv"

// Banrisul (041). The document followed is listed in docs/boleto.md.
//
// Nosso número: 8 digits chosen by the beneficiary and a double check digit
// "NC" (see banrisulNC).
//
// Free field: product "2" (slips issued by the beneficiary), "1", agency
// (4), beneficiary code (Covenant, 7), nosso número (8), "40", and the NC
// of these 23 digits.
//
// Covenant is the 7-digit beneficiary code without its own NC; the slip
// and the remittances print it with the NC (see BanrisulCode).
func init() {
	banks["041"] = bankRule{name: "Banrisul", check: checkWith(banrisulParse), nossoNumero: banrisulNossoNumero, digit: banrisulDigit, freeField: banrisulFreeField}
}

const banrisul = "041"

type banrisulFields struct{ agency, covenant string }

func banrisulParse(b Beneficiary) (banrisulFields, error) {
	var f banrisulFields
	var err error
	if f.agency, err = digits(banrisul, "Agency", b.Agency, 4); err != nil {
		return f, err
	}
	if f.covenant, err = banrisulCovenant(b.Covenant); err != nil {
		return f, err
	}
	return f, nil
}

// banrisulCovenant is the 7-digit beneficiary code. Nine digits whose
// last two are the NC of the first seven are the code as the bank prints
// it: they are rejected with a reason that says so, rather than read as
// another code once their leading zeros are dropped.
func banrisulCovenant(covenant string) (string, error) {
	if len(covenant) == 9 && isDigits(covenant) && banrisulNC(covenant[:7]) == covenant[7:] {
		return "", fieldErr(banrisul, "Covenant", covenant,
			"is the beneficiary code %s followed by its NC %s: give the 7 digits alone", covenant[:7], covenant[7:])
	}
	return digits(banrisul, "Covenant", covenant, 7)
}

// BanrisulCode returns Banrisul's código do beneficiário as the bank
// prints it and as its CNAB 240 and CNAB 400 remittances carry it: the
// 7-digit code (the Covenant of the slip's rules) followed by its two
// check digits, the same NC as the nosso número's (9000150 gives
// 900015046). An error is a *FieldError on "Covenant".
func BanrisulCode(covenant string) (string, error) {
	code, err := banrisulCovenant(covenant)
	if err != nil {
		return "", err
	}
	return code + banrisulNC(code), nil
}

func banrisulNumber(b Beneficiary, sequence int64) (string, error) {
	if _, err := banrisulParse(b); err != nil {
		return "", err
	}
	return sequenceDigits(banrisul, sequence, 8)
}

func banrisulDigit(_ Beneficiary, number string) string { return banrisulNC(number) }

// banrisulNC is Banrisul's double check digit. The first is modulo 10 of
// the digits. The second is modulo 11 with weights 2 to 7 of the digits
// followed by the first: remainder 0 gives 0; remainder 1 is not allowed,
// so the first digit is increased by one (10 becoming 0) and the second
// computed again; otherwise 11 minus the remainder.
func banrisulNC(digits string) string {
	first := mod10(digits)
	for {
		r := mod11Sum(digits+strconv.Itoa(first), 7)
		switch r {
		case 0:
			return strconv.Itoa(first) + "0"
		case 1:
			first = (first + 1) % 10
		default:
			return strconv.Itoa(first) + strconv.Itoa(11-r)
		}
	}
}

func banrisulFreeField(b Beneficiary, nn NossoNumero, _ int64) (string, error) {
	f, err := banrisulParse(b)
	if err != nil {
		return "", err
	}
	number, err := nossoNumeroDigits(banrisul, nn, 8)
	if err != nil {
		return "", err
	}
	free := "21" + f.agency + f.covenant + number + "40"
	return free + banrisulNC(free), nil
}

func banrisulNossoNumero(b Beneficiary, sequence int64) (NossoNumero, error) {
	number, err := banrisulNumber(b, sequence)
	if err != nil {
		return NossoNumero{}, err
	}
	return dashed(number, banrisulDigit(b, number)), nil
}
