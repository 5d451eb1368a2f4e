package storage

import (
	"errors"

	"github.com/propfin/propfin/pix"
)

// Value checks of the declared columns (Column.Check). The CPF, CNPJ and
// PIX key rules are the pix package's (pix.CheckKey), a pure package
// storage may import for them.

// Problem texts of the value checks.
const (
	taxIDShape = "must be a CPF (11 digits) or a CNPJ (12 letters or digits, then 2 check digits), without punctuation"
	cnpjShape  = "must be a CNPJ: 12 letters or digits, then 2 check digits, without punctuation"
	pixShape   = "must be a PIX key: a CPF or CNPJ without punctuation, an e-mail address, " +
		"a +55 mobile phone number or a random key (UUID)"
	wrongDigits = "has wrong check digits"
)

// CheckTaxID accepts a CPF or a CNPJ (numeric or alphanumeric) with valid
// check digits.
func CheckTaxID(v string) string {
	return checkKeyOf(v, taxIDShape, pix.KeyCPF, pix.KeyCNPJ)
}

// CheckCNPJ accepts a CNPJ (numeric or alphanumeric) with valid check
// digits.
func CheckCNPJ(v string) string {
	return checkKeyOf(v, cnpjShape, pix.KeyCNPJ)
}

// CheckPixKey accepts a PIX key of any type: CPF, CNPJ, e-mail, +55 mobile
// phone, random key (EVP).
func CheckPixKey(v string) string {
	return checkKeyOf(v, pixShape)
}

// checkKeyOf runs pix.CheckKey on v and accepts it when its type is one of
// types (any type when none is given); shape is the problem of a value of
// another form, a wrong check digit has its own.
func checkKeyOf(v, shape string, types ...pix.KeyType) string {
	kt, err := pix.CheckKey(v)
	if err != nil {
		var probs pix.Problems
		if errors.As(err, &probs) && len(probs) > 0 && probs[0].Code == pix.CodeKeyCheckDigit {
			return wrongDigits
		}
		return shape
	}
	if len(types) == 0 {
		return ""
	}
	for _, t := range types {
		if kt == t {
			return ""
		}
	}
	return shape
}
