package boleto

import "strconv"

// Caixa Econômica Federal (104), SIGCB. The document followed is listed in
// docs/boleto.md.
//
// Nosso número: 17 digits, "14" (registered collection, slip issued by the
// beneficiary) and a 15-digit sequence; its DV is modulo 11 with weights 2
// to 9, 11 minus the remainder, 0 when that is above 9.
//
// Free field: beneficiary code (Covenant) in 6 digits with its modulo 11
// DV, or, from code 1100000, in 7 digits without DV; nosso número digits
// 3-5; "1" (registered); digits 6-8; "4" (issued by the beneficiary);
// digits 9-17; the modulo 11 DV of the previous 24 digits.
//
// Wallet "1" or "RG" (or empty) is registered collection; unregistered
// collection ("2", "SR") no longer exists and is rejected.
func init() {
	banks["104"] = bankRule{name: "Caixa Econômica Federal", check: checkWith(caixaParse), nossoNumero: caixaNossoNumero, digit: caixaNumberDigit, freeField: caixaFreeField}
}

const caixa = "104"

// caixaParse returns the beneficiary code as it goes into the free field:
// 7 digits, with the DV when the code has 6.
func caixaParse(b Beneficiary) (string, error) {
	switch b.Wallet {
	case "", "1", "RG":
	case "2", "SR":
		return "", unsupported(caixa, "Wallet", b.Wallet, "unregistered collection no longer exists")
	default:
		return "", fieldErr(caixa, "Wallet", b.Wallet, `must be "1" or "RG" (registered collection)`)
	}
	code, err := digits(caixa, "Covenant", b.Covenant, 7)
	if err != nil {
		return "", err
	}
	n, _ := strconv.Atoi(code)
	switch {
	case n == 0:
		return "", fieldErr(caixa, "Covenant", b.Covenant, "must not be zero")
	case n <= 999999:
		six := code[1:]
		return six + caixaDigit(six), nil
	case n < 1100000:
		return "", fieldErr(caixa, "Covenant", b.Covenant, "codes from 1000000 to 1099999 are not issued; 7-digit codes start at 1100000")
	}
	return code, nil
}

// caixaDigit is modulo 11 with weights 2 to 9: 11 minus the remainder, 0
// when that is above 9.
func caixaDigit(digits string) string {
	dv := 11 - mod11Sum(digits, 9)
	if dv > 9 {
		dv = 0
	}
	return strconv.Itoa(dv)
}

func caixaNumber(b Beneficiary, sequence int64) (string, error) {
	if _, err := caixaParse(b); err != nil {
		return "", err
	}
	seq, err := sequenceDigits(caixa, sequence, 15)
	if err != nil {
		return "", err
	}
	return "14" + seq, nil
}

func caixaNumberDigit(_ Beneficiary, number string) string { return caixaDigit(number) }

func caixaFreeField(b Beneficiary, nn NossoNumero, _ int64) (string, error) {
	code, err := caixaParse(b)
	if err != nil {
		return "", err
	}
	number, err := nossoNumeroDigits(caixa, nn, 17)
	if err != nil {
		return "", err
	}
	if number[:2] != "14" {
		return "", fieldErr(caixa, "NossoNumero", nn.Number, `must start with "14" (registered, issued by the beneficiary)`)
	}
	free := code + number[2:5] + "1" + number[5:8] + "4" + number[8:17]
	return free + caixaDigit(free), nil
}

func caixaNossoNumero(b Beneficiary, sequence int64) (NossoNumero, error) {
	number, err := caixaNumber(b, sequence)
	if err != nil {
		return NossoNumero{}, err
	}
	return dashed(number, caixaNumberDigit(b, number)), nil
}
