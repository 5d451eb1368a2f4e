package boleto

import "strconv"

// Banco do Brasil (001). The document followed is listed in docs/boleto.md.
// The form depends on the covenant's length:
//
//	covenant  nosso número                         free field
//	4 digits  covenant + 7-digit sequence + DV     nosso número (11), agency (4), account (8), wallet (2)
//	6 digits  covenant + 5-digit sequence + DV     nosso número (11), agency (4), account (8), wallet (2)
//	7 digits  covenant + 10-digit sequence, no DV  "000000", nosso número (17), wallet (2)
//
// The DV is modulo 11 with weights 9 to 2 from the right, "X" for a
// remainder of 10. The 6-digit covenant's 17-digit "free numbering" form
// (service code 21) is not implemented.
func init() {
	banks["001"] = bankRule{name: "Banco do Brasil", check: checkWith(bbParse), nossoNumero: bbNossoNumero, digit: bbDigit, freeField: bbFreeField}
}

const bancoDoBrasil = "001"

type bbFields struct{ agency, account, wallet, covenant string }

func bbParse(b Beneficiary) (bbFields, error) {
	var f bbFields
	var err error
	if !isDigits(b.Covenant) {
		return f, fieldErr(bancoDoBrasil, "Covenant", b.Covenant, "must be the 4, 6 or 7 digits of the covenant")
	}
	switch len(b.Covenant) {
	case 4, 6, 7:
		f.covenant = b.Covenant
	default:
		return f, unsupported(bancoDoBrasil, "Covenant", b.Covenant, "covenants of %d digits are not implemented (4, 6 or 7)", len(b.Covenant))
	}
	if f.wallet, err = digits(bancoDoBrasil, "Wallet", b.Wallet, 2); err != nil {
		return f, err
	}
	if len(f.covenant) == 7 {
		return f, nil // agency and account are not in the 7-digit form
	}
	if f.agency, err = digits(bancoDoBrasil, "Agency", b.Agency, 4); err != nil {
		return f, err
	}
	if f.account, err = digits(bancoDoBrasil, "Account", b.Account, 8); err != nil {
		return f, err
	}
	return f, nil
}

func bbNumber(b Beneficiary, sequence int64) (string, error) {
	f, err := bbParse(b)
	if err != nil {
		return "", err
	}
	width := 17 - len(f.covenant) // 4+7, 6+5 (11 digits with DV) or 7+10
	if len(f.covenant) < 7 {
		width = 11 - len(f.covenant)
	}
	seq, err := sequenceDigits(bancoDoBrasil, sequence, width)
	if err != nil {
		return "", err
	}
	return f.covenant + seq, nil
}

// bbDigit is the nosso número's DV; the 17-digit nosso número of a 7-digit
// covenant has none.
func bbDigit(_ Beneficiary, number string) string {
	if len(number) == 17 {
		return ""
	}
	return bbModulo11(number)
}

// bbModulo11 is modulo 11 with weights 9 to 2 from the right: the
// remainder itself, "X" for 10.
func bbModulo11(number string) string {
	r := (11 - mod11Sum(number, 9)) % 11 // weights 9..2 are 11 minus weights 2..9
	if r == 10 {
		return "X"
	}
	return strconv.Itoa(r)
}

func bbFreeField(b Beneficiary, nn NossoNumero, _ int64) (string, error) {
	f, err := bbParse(b)
	if err != nil {
		return "", err
	}
	if len(nn.Number) < len(f.covenant) || nn.Number[:len(f.covenant)] != f.covenant {
		return "", fieldErr(bancoDoBrasil, "NossoNumero", nn.Number, "must start with the covenant %s", f.covenant)
	}
	if len(f.covenant) == 7 {
		number, err := nossoNumeroDigits(bancoDoBrasil, nn, 17)
		if err != nil {
			return "", err
		}
		return "000000" + number + f.wallet, nil
	}
	number, err := nossoNumeroDigits(bancoDoBrasil, nn, 11)
	if err != nil {
		return "", err
	}
	return number + f.agency + f.account + f.wallet, nil
}

func bbNossoNumero(b Beneficiary, sequence int64) (NossoNumero, error) {
	number, err := bbNumber(b, sequence)
	if err != nil {
		return NossoNumero{}, err
	}
	return dashed(number, bbDigit(b, number)), nil
}
