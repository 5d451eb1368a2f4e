package retorno

import "testing"

// TestPayerDocument: the payer's document as the field writes it (zero-
// filled, 14 or 15 wide) comes out as a CPF of 11 digits or a CNPJ of 14,
// by the record's inscription type, else by the number's length.
func TestPayerDocument(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		written, typ, want string
	}{
		{"000012345678909", "cpf", "12345678909"}, // CNAB 240, 15 wide
		{"00012345678909", "cpf", "12345678909"},  // CNAB 400, 14 wide
		{"12345678909", "cpf", "12345678909"},
		{"011222333000181", "cnpj", "11222333000181"},
		{"11222333000181", "cnpj", "11222333000181"},
		{"012ABC34501DE35", "cnpj", "12ABC34501DE35"}, // the alphanumeric CNPJ
		{"000000000000191", "cnpj", "00000000000191"}, // Banco do Brasil's, its root all zeros
		{"000000000000000", "cpf", ""},                // no document
		{"000000000000000", "", ""},
		{"", "", ""},
		{"100012345678909", "cpf", "100012345678909"}, // digits past a CPF's: left as written
		{"000012345678909", "3", "000012345678909"},   // a bank's own type: left as written
		// without a type, by the number's length
		{"00012345678909", "", "12345678909"},
		{"000011222333000181", "", "11222333000181"},
		{"000360305000104", "", "00360305000104"}, // 12 digits: a CNPJ (Caixa's), its root starting with zeros
		{"000012345000165", "", "00012345000165"}, // 11 digits, no CPF's check, a CNPJ's: the CNPJ
		{"000000000000191", "", "00000000191"},    // both checks pass: taken for a CPF (the type would say)
		{"0012ABC34501DE35", "", "12ABC34501DE35"},
		{"123456789012345", "", "123456789012345"}, // too long for either
	} {
		if got := payerDocument(c.written, c.typ); got != c.want {
			t.Errorf("payerDocument(%q, %q) = %q, want %q", c.written, c.typ, got, c.want)
		}
	}
}
