package pix

import "strings"

// BareTaxID gives a CPF or CNPJ written as people write it in the form a
// payload carries, without punctuation and with the alphanumeric CNPJ's
// letters in upper case: 123.456.789-09 is 12345678909,
// 11.222.333/0001-81 is 11222333000181 and 12.abc.345/01de-35 (or
// 12abc34501de35) is 12ABC34501DE35. Any other text comes back unchanged,
// to be judged by [CheckKey]: the masks are taken whole, never a
// punctuation mark here and there, so an e-mail address or a phone key is
// never mistaken for one. The check digits are not looked at.
func BareTaxID(s string) string {
	switch {
	case fitsMask(s, "ddd.ddd.ddd-dd"), fitsMask(s, "aa.aaa.aaa/aaaa-dd"):
		return strings.ToUpper(strings.Map(dropPunctuation, s))
	case fitsMask(s, "aaaaaaaaaaaadd"):
		return strings.ToUpper(s)
	}
	return s
}

// fitsMask reports whether s follows mask character by character: d a
// digit, a an ASCII letter or digit, any other character itself.
func fitsMask(s, mask string) bool {
	if len(s) != len(mask) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch mask[i] {
		case 'd':
			if !isDigit(c) {
				return false
			}
		case 'a':
			if !isDigit(c) && !('A' <= c && c <= 'Z') && !('a' <= c && c <= 'z') {
				return false
			}
		default:
			if c != mask[i] {
				return false
			}
		}
	}
	return true
}

func dropPunctuation(r rune) rune {
	if r == '.' || r == '-' || r == '/' {
		return -1
	}
	return r
}

// ValidTaxID reports whether s, written bare (as BareTaxID gives it), is
// a CPF (11 digits) or a CNPJ (12 upper-case letters or digits and 2
// digits: the alphanumeric CNPJ of IN RFB 2.229/2024 included) whose
// check digits are right. It is the one CPF/CNPJ rule of propfin: PIX
// keys, the API's tax ids and the CNAB files' payers and beneficiaries
// are all held to it (testdata/taxids.txt is its table).
func ValidTaxID(s string) bool {
	switch {
	case len(s) == 11 && allDigits(s):
		return validCPF(s)
	case len(s) == 14 && isCNPJShape(s):
		return validCNPJ(s)
	}
	return false
}
