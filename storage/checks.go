package storage

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/propfin/propfin/pix"
)

// Value checks of the declared columns (Column.Check). The CPF, CNPJ and
// PIX key rules are the pix package's (pix.CheckKey), a pure package
// storage may import for them.

// Problem texts of the value checks.
const (
	taxIDShape = "must be a CPF (11 digits, or 123.456.789-09) or a CNPJ (12 letters or digits, then 2 check digits, " +
		"or 11.222.333/0001-81)"
	cnpjShape = "must be a CNPJ: 12 letters or digits, then 2 check digits (11222333000181 or 11.222.333/0001-81)"
	pixShape  = "must be a PIX key: a CPF or CNPJ, an e-mail address, " +
		"a +55 mobile phone number or a random key (UUID)"
	cpfShape    = "must be a CPF: 11 digits (12345678909 or 123.456.789-09)"
	cepShape    = "must be a CEP: 8 digits (01310200 or 01310-200)"
	wrongDigits = "has wrong check digits"
)

// NormalizeTaxID is the Normalize of the columns holding a CPF or a CNPJ
// (a PIX key too, which may be one): the punctuated forms people paste,
// and lower-case letters of an alphanumeric CNPJ, as stored
// (pix.BareTaxID).
func NormalizeTaxID(v string) string { return pix.BareTaxID(v) }

// cepForms are the ways a CEP is written: 01310-200, and the older
// 01.310-200.
var cepForms = regexp.MustCompile(`^([0-9]{5}-|[0-9]{2}\.[0-9]{3}-)[0-9]{3}$`)

// NormalizeCEP is the Normalize of the postcode columns: a CEP written
// 01310-200 or 01.310-200 as its 8 digits, 01310200.
func NormalizeCEP(v string) string {
	if !cepForms.MatchString(v) {
		return v
	}
	return strings.NewReplacer(".", "", "-", "").Replace(v)
}

var cepDigits = regexp.MustCompile(`^[0-9]{8}$`)

// CheckCEP accepts a CEP as stored: 8 digits.
func CheckCEP(v string) string {
	if cepDigits.MatchString(v) {
		return ""
	}
	return cepShape
}

// CheckTaxID accepts a CPF or a CNPJ (numeric or alphanumeric) with valid
// check digits.
func CheckTaxID(v string) string {
	return checkKeyOf(v, taxIDShape, pix.KeyCPF, pix.KeyCNPJ)
}

// CheckCPF accepts a CPF with valid check digits (a business's
// responsible_cpf, the DIMOB's responsible person).
func CheckCPF(v string) string {
	return checkKeyOf(v, cpfShape, pix.KeyCPF)
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

// CheckMonthText is the FilterCheck of the columns holding a year-month
// as text (a statement's month): YYYY-MM, a month from 01 to 12.
func CheckMonthText(v string) string {
	if len(v) == 7 && v[4] == '-' {
		if _, err := time.Parse("2006-01", v); err == nil {
			return ""
		}
	}
	return "must be a month, YYYY-MM"
}
