package boleto

import "strconv"

// Itaú (341). The document followed is listed in docs/boleto.md.
//
// Nosso número: 8 digits chosen by the beneficiary; its DAC is modulo 10
// over agency (4), account (5), wallet (3) and nosso número (8), or over
// wallet and nosso número alone for wallets 126, 131, 146, 150 and 168.
//
// Free field: wallet (3), nosso número (8), its DAC, agency (4), account
// (5), the account's DAC (modulo 10 over agency and account), "000".
// Wallets 106, 107, 122, 142, 143, 195, 196 and 198 use another free field
// (with "seu número" and a client code) and are not implemented.
func init() {
	banks["341"] = bankRule{name: "Itaú Unibanco", check: itauCheck, nossoNumero: itauNossoNumero, digit: itauDigit, freeField: itauFreeField}
}

const itau = "341"

type itauFields struct{ agency, account, wallet string }

func itauParse(b Beneficiary) (itauFields, error) {
	var f itauFields
	var err error
	if f.agency, err = digits(itau, "Agency", b.Agency, 4); err != nil {
		return f, err
	}
	if f.account, err = digits(itau, "Account", b.Account, 5); err != nil {
		return f, err
	}
	if f.wallet, err = digits(itau, "Wallet", b.Wallet, 3); err != nil {
		return f, err
	}
	if b.AccountDigit != "" {
		if want := strconv.Itoa(mod10(f.agency + f.account)); b.AccountDigit != want {
			return f, fieldErr(itau, "AccountDigit", b.AccountDigit, "agency %s account %s has DAC %s", f.agency, f.account, want)
		}
	}
	return f, nil
}

// itauCheck validates the fields of both the nosso número and the free
// field.
func itauCheck(b Beneficiary) error {
	f, err := itauParse(b)
	if err != nil {
		return err
	}
	return itauSpecialWallet(b, f.wallet)
}

// itauSpecialWallet rejects the wallets whose free field carries "seu
// número" and a client code.
func itauSpecialWallet(b Beneficiary, wallet string) error {
	switch wallet {
	case "106", "107", "122", "142", "143", "195", "196", "198":
		return unsupported(itau, "Wallet", b.Wallet, "free field with seu número and client code is not implemented")
	}
	return nil
}

// itauWalletOnlyDAC lists the wallets whose nosso número DAC leaves out the
// agency and account.
func itauWalletOnlyDAC(wallet string) bool {
	switch wallet {
	case "126", "131", "146", "150", "168":
		return true
	}
	return false
}

func itauNossoNumero(b Beneficiary, sequence int64) (NossoNumero, error) {
	f, err := itauParse(b)
	if err != nil {
		return NossoNumero{}, err
	}
	number, err := sequenceDigits(itau, sequence, 8)
	if err != nil {
		return NossoNumero{}, err
	}
	dac := itauDAC(f, number)
	return NossoNumero{Number: number, Digit: dac, Printed: f.wallet + "/" + number + "-" + dac}, nil
}

// itauDigit is called after itauParse accepted b.
func itauDigit(b Beneficiary, number string) string {
	f, _ := itauParse(b)
	return itauDAC(f, number)
}

func itauDAC(f itauFields, number string) string {
	if itauWalletOnlyDAC(f.wallet) {
		return strconv.Itoa(mod10(f.wallet + number))
	}
	return strconv.Itoa(mod10(f.agency + f.account + f.wallet + number))
}

func itauFreeField(b Beneficiary, nn NossoNumero, _ int64) (string, error) {
	f, err := itauParse(b)
	if err != nil {
		return "", err
	}
	if err := itauSpecialWallet(b, f.wallet); err != nil {
		return "", err
	}
	number, err := nossoNumeroDigits(itau, nn, 8)
	if err != nil {
		return "", err
	}
	accountDAC := strconv.Itoa(mod10(f.agency + f.account))
	return f.wallet + number + itauDAC(f, number) + f.agency + f.account + accountDAC + "000", nil
}
