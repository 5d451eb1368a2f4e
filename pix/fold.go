package pix

import (
	"strings"
	"unicode/utf8"
)

// folds maps the accented letters and typographic marks of Portuguese and
// other Latin-script text to the EMV common character set.
var folds = map[rune]string{
	'À': "A", 'Á': "A", 'Â': "A", 'Ã': "A", 'Ä': "A", 'Å': "A", 'Æ': "AE",
	'Ç': "C", 'È': "E", 'É': "E", 'Ê': "E", 'Ë': "E",
	'Ì': "I", 'Í': "I", 'Î': "I", 'Ï': "I", 'Ñ': "N",
	'Ò': "O", 'Ó': "O", 'Ô': "O", 'Õ': "O", 'Ö': "O", 'Ø': "O",
	'Ù': "U", 'Ú': "U", 'Û': "U", 'Ü': "U", 'Ý': "Y",
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'æ': "ae",
	'ç': "c", 'è': "e", 'é': "e", 'ê': "e", 'ë': "e",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ñ': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ý': "y", 'ÿ': "y", 'ß': "ss",
	'ª': "a", 'º': "o", '°': "o",
	'‘': "'", '’': "'", '“': `"`, '”': `"`, '–': "-", '—': "-", '…': "...",
	'\u00a0': " ", '\t': " ", '\n': " ", '\r': " ",
}

// Fold turns text into the EMV common character set that BR Code text
// fields allow: accented letters lose their accents ("São João" gives
// "Sao Joao"), typographic quotes and dashes become ASCII, other
// characters outside printable ASCII are dropped, and runs of spaces
// become one, trimmed at both ends.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true // drop leading spaces
	for _, r := range s {
		var piece string
		switch {
		case r == ' ':
			piece = " "
		case r > ' ' && r < utf8.RuneSelf && r != 0x7F:
			piece = string(r)
		default:
			piece = folds[r]
		}
		if piece == " " {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		if piece != "" {
			b.WriteString(piece)
			space = false
		}
	}
	return strings.TrimRight(b.String(), " ")
}
