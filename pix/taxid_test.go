package pix

import "testing"

func TestBareTaxID(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"123.456.789-09", "12345678909"},
		{"12345678909", "12345678909"},
		{"11.222.333/0001-81", "11222333000181"},
		{"11222333000181", "11222333000181"},
		{"12.ABC.345/01DE-35", "12ABC34501DE35"},
		{"12.abc.345/01de-35", "12ABC34501DE35"},
		{"12abc34501de35", "12ABC34501DE35"},
		// not one of the masks: left for CheckKey to refuse
		{"123.456.78909", "123.456.78909"},
		{"123456789-09", "123456789-09"},
		{"11.222.333/0001-8A", "11.222.333/0001-8A"},
		{"123.456.789-09 ", "123.456.789-09 "},
		{"12.abc.345/01de-3x", "12.abc.345/01de-3x"},
		// other PIX keys are never touched
		{"fulano.de-tal@example.com", "fulano.de-tal@example.com"},
		{"+5511987654321", "+5511987654321"},
		{"123e4567-e12b-12d1-a456-426655440000", "123e4567-e12b-12d1-a456-426655440000"},
		{"", ""},
	}
	for _, c := range cases {
		if got := BareTaxID(c.in); got != c.want {
			t.Errorf("BareTaxID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, formatted := range []string{"123.456.789-09", "11.222.333/0001-81", "12.abc.345/01de-35"} {
		if _, err := CheckKey(BareTaxID(formatted)); err != nil {
			t.Errorf("%s, made bare, is refused: %v", formatted, err)
		}
	}
}
