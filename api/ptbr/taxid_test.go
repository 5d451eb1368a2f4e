package ptbr

import "testing"

func TestTaxID(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want, label string }{
		{"12345678909", "123.456.789-09", "CPF"},
		{"123.456.789-09", "123.456.789-09", "CPF"},
		{"52998224725", "529.982.247-25", "CPF"},
		{"529.982.247-25", "529.982.247-25", "CPF"},
		{"12345678000195", "12.345.678/0001-95", "CNPJ"},
		{"12.345.678/0001-95", "12.345.678/0001-95", "CNPJ"},
		{" 11222333000181 ", "11.222.333/0001-81", "CNPJ"},
		{"12abc34501de35", "12.ABC.345/01DE-35", "CNPJ"},     // alphanumeric CNPJ
		{"12.abc.345/01de-35", "12.ABC.345/01DE-35", "CNPJ"}, // alphanumeric CNPJ, punctuated
		{"12ABC34501DEXX", "12ABC34501DEXX", "CNPJ"},         // letters in the check digits: as given
		{"123456789-09", "123456789-09", "CPF/CNPJ"},         // a mask is taken whole, as the API takes it
		{"ana@example.com", "ana@example.com", "CPF/CNPJ"},
		{" 1234 ", "1234", "CPF/CNPJ"},
		{"123", "123", "CPF/CNPJ"},
		{"", "", "CPF/CNPJ"},
	}
	for _, tt := range tests {
		if got := TaxID(tt.in); got != tt.want {
			t.Errorf("TaxID(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := TaxIDLabel(tt.in); got != tt.label {
			t.Errorf("TaxIDLabel(%q) = %q, want %q", tt.in, got, tt.label)
		}
	}
}
