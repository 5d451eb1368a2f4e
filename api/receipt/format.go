package receipt

import "strings"

// FormatLine writes a boleto's digitable line as the slip prints it (see
// formatLine), for the other documents that show one.
func FormatLine(line string) string { return formatLine(line) }

// formatLine writes a 47-digit digitable line as printed on the slip:
// AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE.
func formatLine(line string) string {
	l := stripPunct(line)
	if len(l) != 47 {
		return strings.TrimSpace(line)
	}
	return l[0:5] + "." + l[5:10] + " " + l[10:15] + "." + l[15:21] + " " +
		l[21:26] + "." + l[26:32] + " " + l[32:33] + " " + l[33:47]
}

// methodLabels are the spec's billing methods in Portuguese.
var methodLabels = map[string]string{
	"ticket":        "Boleto",
	"cash":          "Dinheiro",
	"deposit":       "Depósito",
	"pix":           "PIX",
	"ted":           "Transferência (DOC/TED)",
	"credit":        "Cartão de crédito",
	"debit":         "Cartão de débito",
	"check":         "Cheque",
	"debit_account": "Débito em conta",
}

// methodLabel names a billing method; an unknown one is shown as given.
func methodLabel(m string) string {
	if l, ok := methodLabels[m]; ok {
		return l
	}
	return m
}

// stripPunct drops the spaces and the punctuation printed in digitable
// lines and barcodes: . - / and space.
func stripPunct(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '.', '-', '/', '\t':
			return -1
		}
		return r
	}, s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// partMethods reports whether any of an invoice's payments says how it was
// paid: the page's list of them then has a column of its own for it.
func partMethods(parts []Payment) bool {
	for _, p := range parts {
		if p.Method != "" {
			return true
		}
	}
	return false
}
