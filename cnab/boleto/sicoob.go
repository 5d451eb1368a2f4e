package boleto

import "strconv"

// Sicoob (756). The document followed is listed in docs/boleto.md.
//
// Nosso número: 7 digits chosen by the beneficiary; its DV is modulo 11
// with the weights 3, 1, 9, 7 repeated from the left over cooperative
// (Agency, 4), client code (Covenant, 10) and nosso número (7): remainders
// 0 and 1 give 0, otherwise 11 minus the remainder.
//
// Free field: wallet (1, "1" by default), cooperative (4), modality (2,
// "01" by default), client code (7), nosso número with DV (8), installment
// "001".
func init() {
	banks["756"] = bankRule{name: "Sicoob", check: checkWith(sicoobParse), nossoNumero: sicoobNossoNumero, digit: sicoobDigit, freeField: sicoobFreeField}
}

const sicoob = "756"

var sicoobWeights = []int{3, 1, 9, 7}

type sicoobFields struct{ wallet, cooperative, modality, covenant string }

func sicoobParse(b Beneficiary) (sicoobFields, error) {
	var f sicoobFields
	var err error
	wallet := b.Wallet
	if wallet == "" {
		wallet = "1"
	}
	if f.wallet, err = digits(sicoob, "Wallet", wallet, 1); err != nil {
		return f, err
	}
	if f.cooperative, err = digits(sicoob, "Agency", b.Agency, 4); err != nil {
		return f, err
	}
	modality := b.Modality
	if modality == "" {
		modality = "01"
	}
	if f.modality, err = digits(sicoob, "Modality", modality, 2); err != nil {
		return f, err
	}
	if f.covenant, err = digits(sicoob, "Covenant", b.Covenant, 7); err != nil {
		return f, err
	}
	return f, nil
}

func sicoobNossoNumero(b Beneficiary, sequence int64) (NossoNumero, error) {
	f, err := sicoobParse(b)
	if err != nil {
		return NossoNumero{}, err
	}
	number, err := sequenceDigits(sicoob, sequence, 7)
	if err != nil {
		return NossoNumero{}, err
	}
	return dashed(number, sicoobDigitOf(f, number)), nil
}

// sicoobDigit is called after sicoobParse accepted b.
func sicoobDigit(b Beneficiary, number string) string {
	f, _ := sicoobParse(b)
	return sicoobDigitOf(f, number)
}

func sicoobDigitOf(f sicoobFields, number string) string {
	dv := 0
	if r := mod11Weights(f.cooperative+"000"+f.covenant+number, sicoobWeights); r > 1 {
		dv = 11 - r
	}
	return strconv.Itoa(dv)
}

func sicoobFreeField(b Beneficiary, nn NossoNumero, _ int64) (string, error) {
	f, err := sicoobParse(b)
	if err != nil {
		return "", err
	}
	number, err := nossoNumeroDigits(sicoob, nn, 7)
	if err != nil {
		return "", err
	}
	return f.wallet + f.cooperative + f.modality + f.covenant + number + sicoobDigitOf(f, number) + "001", nil
}
