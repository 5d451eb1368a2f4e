package receipt

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// formatMoney writes an amount in reais the Brazilian way, "R$ 1.234,56",
// rounded half away from zero to the cent (the finance package's rule);
// a negative amount is "-R$ 1,00".
func formatMoney(d decimal.Decimal) string {
	r := d.Round(2)
	s := r.Abs().StringFixed(2) // "1234.56"
	whole, cents := s[:len(s)-3], s[len(s)-2:]
	out := "R$ " + groupThousands(whole) + "," + cents
	if r.IsNegative() {
		out = "-" + out
	}
	return out
}

// groupThousands puts a dot between groups of three digits.
func groupThousands(digits string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// formatDate writes a calendar date as dd/mm/yyyy, in t's own location;
// the zero time is "".
func formatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("02/01/2006")
}

// formatTaxID writes a CPF as 000.000.000-00 and a CNPJ as
// 00.000.000/0000-00, from digits with or without punctuation. A CNPJ may
// be alphanumeric (letters in its first 12 characters, as the Receita
// Federal issues them from July 2026). Anything else is returned trimmed,
// as given.
func formatTaxID(s string) string {
	id := strings.ToUpper(stripPunct(s))
	switch {
	case len(id) == 11 && isDigits(id):
		return id[0:3] + "." + id[3:6] + "." + id[6:9] + "-" + id[9:11]
	case len(id) == 14 && isAlnum(id[:12]) && isDigits(id[12:]):
		return id[0:2] + "." + id[2:5] + "." + id[5:8] + "/" + id[8:12] + "-" + id[12:14]
	}
	return strings.TrimSpace(s)
}

// taxIDLabel names a tax id by its length: "CPF", "CNPJ" or "CPF/CNPJ".
func taxIDLabel(s string) string {
	switch len(stripPunct(s)) {
	case 11:
		return "CPF"
	case 14:
		return "CNPJ"
	}
	return "CPF/CNPJ"
}

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

// stripPunct drops the spaces and the punctuation printed in tax ids,
// digitable lines and barcodes: . - / and space.
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

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}
