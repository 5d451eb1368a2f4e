package dimob

import "testing"

func TestFold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		replaced bool
	}{
		{"Conceição", "Conceicao", false},
		{"SÃO JOÃO", "SAO JOAO", false},
		{"àáâãäå èéêë ìíîï òóôõö ùúûü ýÿ ñ ç", "aaaaaa eeee iiii ooooo uuuu yy n c", false},
		{"ÀÁÂÃÄÅ ÈÉÊË ÌÍÎÏ ÒÓÔÕÖ ÙÚÛÜ Ý Ñ Ç", "AAAAAA EEEE IIII OOOOO UUUU Y N C", false},
		{"Straße Æon Œuvre Øre", "Strasse AEon OEuvre Ore", false},
		{"Nº 12, 3ª via", "No 12, 3a via", false},
		{"d’Oeste – “sala” …", "d'Oeste - \"sala\" ...", false},
		{"Rua\u00a0Augusta", "Rua Augusta", false},
		{"  aparas  ", "aparas", false},
		{"a\tb\nc", "a b c", true},
		{"2 × 3 ÷ 1", "2   3   1", true},
		{"日本", "", true},
		{"café ☕ bar", "cafe   bar", true},
		{"\xff\xfe", "", true},
		{"~^`{}|", "~^`{}|", false},
	}
	for _, tt := range tests {
		got, replaced := fold(tt.in)
		if got != tt.want || replaced != tt.replaced {
			t.Errorf("fold(%q) = %q, %v; want %q, %v", tt.in, got, replaced, tt.want, tt.replaced)
		}
		for i := 0; i < len(got); i++ {
			if got[i] < 0x20 || got[i] > 0x7e {
				t.Errorf("fold(%q) holds byte %#x", tt.in, got[i])
			}
		}
	}
}

func TestOnlyLettersAndDigits(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Santa Bárbara d'Oeste", "santabarbaradoeste"},
		{"SANTA-BARBARA D OESTE", "santabarbaradoeste"},
		{"Olho-d'Água do Borges", "olhodaguadoborges"},
		{"Augusto Severo (Campo Grande)", "augustoseverocampogrande"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := onlyLettersAndDigits(tt.in); got != tt.want {
			t.Errorf("onlyLettersAndDigits(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
