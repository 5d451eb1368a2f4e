package fixedwidth

import (
	"strings"
	"testing"
)

func TestPutText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want            string
		truncated, replaced bool
	}{
		{"Conceição", "CONCEICAO ", false, false},
		{"São João", "SAO JOAO  ", false, false},
		{"ÀÉÎÕÜ çñ ý", "AEIOU CN Y", false, false},
		{"Straße", "STRASSE   ", false, false},
		{"Nº 12", "NO 12     ", false, false},
		{"Ação: 50%", "ACAO: 50  ", false, true},
		{"a_b", "A B       ", false, true},
		{"tab\there", "TAB HERE  ", false, true},
		{"日本", "          ", false, true},
		{"café ☕", "CAFE      ", false, true},
		{"Paralelepípedo", "PARALELEPI", true, false},
		{"exactly10!", "EXACTLY10 ", false, true},
		{"fits     ", "FITS      ", false, false},
		{"ten chars.   ", "TEN CHARS.", false, false},
		{"Açaí açaí açaí", "ACAI ACAI ", true, false},
	}
	for _, tt := range tests {
		dst := make([]byte, 10)
		tr, rep := PutText(dst, tt.in)
		if string(dst) != tt.want || tr != tt.truncated || rep != tt.replaced {
			t.Errorf("PutText(%q) = %q, %v, %v; want %q, %v, %v", tt.in, dst, tr, rep, tt.want, tt.truncated, tt.replaced)
		}
	}
}

// FuzzPutText checks that any string, valid UTF-8 or not, fills exactly
// the field with upper-case printable ASCII.
func FuzzPutText(f *testing.F) {
	for _, s := range []string{"", "Conceição", "日本", "\xff\xfe", "a\x00b", strings.Repeat("é", 50)} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, width int) {
		if width < 1 || width > 400 {
			return
		}
		dst := make([]byte, width)
		PutText(dst, s)
		for i, c := range dst {
			if c < ' ' || c > 'Z' && c != '_' {
				t.Fatalf("PutText(%q): byte %d is %q", s, i, c)
			}
		}
	})
}
