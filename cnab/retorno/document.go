package retorno

import (
	"strings"

	"github.com/propfin/propfin/pix"
)

// The payer's inscription (CPF or CNPJ) as an event gives it. The layouts
// write it right-aligned and zero-filled in a field wider than either (15
// digits in CNAB 240's segment T, 14 in most CNAB 400 details), so a CPF
// comes as 000012345678909. An event gives the number itself: a CPF in its
// 11 digits, a CNPJ in its 14 characters.

// Lengths of a bare CPF and CNPJ.
const (
	cpfLen  = 11
	cnpjLen = 14
)

// payerDocument is the payer's document of a record, written as wide as
// its field, as an event gives it, by the inscription type (docType's
// "cpf" or "cnpj"; "" when the record has none):
//
//   - a CPF is its last 11 digits, a CNPJ its last 14 characters (the
//     alphanumeric CNPJ's letters included), when what is left of the
//     field before them is zero-fill;
//   - without a type, the length of the number once its zero-fill is
//     taken away says which: up to 11 digits a CPF, unless those 11 digits
//     fail a CPF's check and the 14 pass a CNPJ's (a CNPJ whose root
//     starts with zeros); up to 14 a CNPJ;
//   - a field of zeros alone is no document ("");
//   - anything else (a bank's own type code, digits past the zero-fill of
//     the type's length) is left as written.
func payerDocument(written, typ string) string {
	if strings.Trim(written, "0") == "" {
		return ""
	}
	switch typ {
	case "cpf":
		return lastOf(written, cpfLen)
	case "cnpj":
		return lastOf(written, cnpjLen)
	case "":
		return byLength(written)
	}
	return written
}

// lastOf is the last n characters of s when those before them are zeros,
// else s as it is.
func lastOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if strings.Trim(s[:len(s)-n], "0") != "" {
		return s
	}
	return s[len(s)-n:]
}

// byLength reads a document without its type by the length of its number.
func byLength(s string) string {
	number := strings.TrimLeft(s, "0")
	switch {
	case !allDigits(number):
		return lastOf(s, cnpjLen) // only a CNPJ has letters
	case len(number) <= cpfLen:
		cpf, cnpj := zeroFill(number, cpfLen), zeroFill(number, cnpjLen)
		if !pix.ValidTaxID(cpf) && pix.ValidTaxID(cnpj) {
			return cnpj
		}
		return cpf
	case len(number) <= cnpjLen:
		return zeroFill(number, cnpjLen)
	}
	return s
}

// zeroFill writes s right-aligned in n characters, zero-filled.
func zeroFill(s string, n int) string {
	return strings.Repeat("0", n-len(s)) + s
}
