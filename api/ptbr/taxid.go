package ptbr

import (
	"strings"

	"github.com/propfin/propfin/pix"
)

// TaxID writes a CPF as 000.000.000-00 and a CNPJ as 00.000.000/0000-00
// (the alphanumeric CNPJ too, its letters in upper case), from the bare or
// the punctuated form as pix.BareTaxID reads them, with spaces around;
// anything else is returned trimmed, as given. A PIX key that is a CPF or
// CNPJ is punctuated; an e-mail, phone or random key is not.
func TaxID(s string) string {
	id := strings.TrimSpace(s)
	bare := pix.BareTaxID(id)
	switch {
	case isCPF(bare):
		return bare[0:3] + "." + bare[3:6] + "." + bare[6:9] + "-" + bare[9:11]
	case len(bare) == 14 && isAlnumUpper(bare[:12]) && isDigits(bare[12:]):
		return bare[0:2] + "." + bare[2:5] + "." + bare[5:8] + "/" + bare[8:12] + "-" + bare[12:14]
	}
	return id
}

// TaxIDLabel names a tax id by its form: "CPF" for 11 digits, "CNPJ" for
// 14 characters, else "CPF/CNPJ".
func TaxIDLabel(s string) string {
	bare := pix.BareTaxID(strings.TrimSpace(s))
	switch {
	case isCPF(bare):
		return "CPF"
	case len(bare) == 14:
		return "CNPJ"
	}
	return "CPF/CNPJ"
}

func isCPF(bare string) bool { return len(bare) == 11 && isDigits(bare) }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnumUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}
