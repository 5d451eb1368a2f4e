package receipt

import (
	"testing"
	"time"
)

func TestFormatMoney(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"0", "R$ 0,00"},
		{"0.5", "R$ 0,50"},
		{"1", "R$ 1,00"},
		{"999.99", "R$ 999,99"},
		{"1000", "R$ 1.000,00"},
		{"1234.56", "R$ 1.234,56"},
		{"123456.7", "R$ 123.456,70"},
		{"1234567.89", "R$ 1.234.567,89"},
		{"99999999.99", "R$ 99.999.999,99"},
		{"-1", "-R$ 1,00"},
		{"-1234.5", "-R$ 1.234,50"},
		{"0.005", "R$ 0,01"},       // half away from zero
		{"-0.005", "-R$ 0,01"},     // half away from zero
		{"-0.004", "R$ 0,00"},      // rounds to zero: no sign
		{"1.994999", "R$ 1,99"},    // not rounded twice
		{"1500.00", "R$ 1.500,00"}, // the exponent of the input does not matter
	}
	for _, tt := range tests {
		if got := formatMoney(dec(tt.in)); got != tt.want {
			t.Errorf("formatMoney(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatDate(t *testing.T) {
	t.Parallel()
	saoPaulo := time.FixedZone("BRT", -3*3600)
	tests := []struct {
		in   time.Time
		want string
	}{
		{date(2026, 11, 24), "24/11/2026"},
		{date(2027, 1, 5), "05/01/2027"},
		{time.Date(2026, 11, 24, 23, 30, 0, 0, saoPaulo), "24/11/2026"}, // its own location, not UTC
		{time.Time{}, ""},
	}
	for _, tt := range tests {
		if got := formatDate(tt.in); got != tt.want {
			t.Errorf("formatDate(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatTaxID(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want, label string }{
		{"12345678909", "123.456.789-09", "CPF"},
		{"123.456.789-09", "123.456.789-09", "CPF"},
		{"12345678000195", "12.345.678/0001-95", "CNPJ"},
		{"12.345.678/0001-95", "12.345.678/0001-95", "CNPJ"},
		{"12abc34501de35", "12.ABC.345/01DE-35", "CNPJ"}, // alphanumeric CNPJ
		{"12ABC34501DEXX", "12ABC34501DEXX", "CNPJ"},     // letters in the check digits: as given
		{" 1234 ", "1234", "CPF/CNPJ"},
		{"", "", "CPF/CNPJ"},
	}
	for _, tt := range tests {
		if got := formatTaxID(tt.in); got != tt.want {
			t.Errorf("formatTaxID(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := taxIDLabel(tt.in); got != tt.label {
			t.Errorf("taxIDLabel(%q) = %q, want %q", tt.in, got, tt.label)
		}
	}
}

func TestFormatLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"34191090080101527124880212460002425480000675787", testLine},
		{testLine, testLine},
		{"123", "123"},
	}
	for _, tt := range tests {
		if got := formatLine(tt.in); got != tt.want {
			t.Errorf("formatLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMethodLabel(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"ticket", "Boleto"},
		{"pix", "PIX"},
		{"debit_account", "Débito em conta"},
		{"barter", "barter"},
	}
	for _, tt := range tests {
		if got := methodLabel(tt.in); got != tt.want {
			t.Errorf("methodLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
