package dimob

import "strings"

// latin1Fold spells each letter of U+00C0–U+00FF (Latin-1's letters) in
// ASCII, in code point order; "" where the character is not a letter (×
// and ÷), which becomes a space.
var latin1Fold = [64]string{
	"A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
	"D", "N", "O", "O", "O", "O", "O", "", "O", "U", "U", "U", "U", "Y", "TH", "ss",
	"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
	"d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y",
}

// otherFold spells the other characters Brazilian text carries (ordinal
// indicators, a few Latin Extended-A letters, typographic punctuation).
var otherFold = map[rune]string{
	'ª': "a", 'º': "o", '°': "o", 'Œ': "OE", 'œ': "oe", 'Š': "S", 'š': "s", 'Ž': "Z", 'ž': "z", 'Ÿ': "Y",
	'\u00a0': " ", '‘': "'", '’': "'", '´': "'", '“': "\"", '”': "\"", '–': "-", '—': "-", '…': "...",
}

// foldRune spells r in printable ASCII (0x20–0x7E), and reports false
// when it has no spelling there.
func foldRune(r rune) (string, bool) {
	switch {
	case r >= 0x20 && r <= 0x7e:
		return string(r), true
	case r >= 0xc0 && r <= 0xff:
		s := latin1Fold[r-0xc0]
		return s, s != ""
	}
	s, ok := otherFold[r]
	return s, ok
}

// fold turns s into printable ASCII, the characters the DIMOB file may
// hold: accented letters become their base letters (São João is Sao
// Joao), and any other character a space. It reports whether a character
// had to be replaced by a space. Leading and trailing spaces are dropped
// and inner runs of spaces kept as they are.
func fold(s string) (out string, replaced bool) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		f, ok := foldRune(r)
		if !ok {
			f, replaced = " ", true
		}
		b.WriteString(f)
	}
	return strings.TrimSpace(b.String()), replaced
}

// fits reports whether s, folded, fits in width characters.
func fits(s string, width int) bool {
	f, _ := fold(s)
	return len(f) <= width
}

// isDigits reports whether s is made of ASCII digits only (and is not
// empty).
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// onlyLettersAndDigits is the key a municipality name is looked up by:
// folded, in lower case, with everything but letters and digits dropped,
// so that "Santa Bárbara d'Oeste", "SANTA BARBARA D OESTE" and
// "santa-barbara-doeste" are the same key.
func onlyLettersAndDigits(s string) string {
	f, _ := fold(s)
	b := make([]byte, 0, len(f))
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b = append(b, c)
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		}
	}
	return string(b)
}
