package fixedwidth

import "unicode/utf8"

// PutText writes s into dst as upper-case ASCII, left-aligned and padded
// with spaces. Letters with accents become their base letter (Ç becomes C,
// Ã becomes A), characters outside the set banks accept become a space. It
// reports whether s did not fit (the excess is dropped) and whether a
// character had to be replaced by a space.
func PutText(dst []byte, s string) (truncated, replaced bool) {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		var out string
		if c < utf8.RuneSelf {
			i++
			if c = asciiOut[c]; c == 0 {
				c = ' '
				replaced = true
			}
			if n == len(dst) {
				if c != ' ' || !onlySpaces(s[i:]) {
					truncated = true
				}
				break
			}
			dst[n] = c
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		out = fold(r)
		if out == "" {
			out = " "
			replaced = true
		}
		for j := 0; j < len(out); j++ {
			if n == len(dst) {
				truncated = true
				break
			}
			dst[n] = out[j]
			n++
		}
		if truncated {
			break
		}
	}
	for ; n < len(dst); n++ {
		dst[n] = ' '
	}
	return truncated, replaced
}

func onlySpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			return false
		}
	}
	return true
}

// asciiOut maps each ASCII character to what is written for it: letters
// raised to upper case, digits, space and the punctuation common to the
// banks' lists (Sicredi's manual, section 8.10, is the narrowest that lists
// them) as they are, and 0 for a character that is replaced by a space.
var asciiOut = func() (a [utf8.RuneSelf]byte) {
	for c := 'A'; c <= 'Z'; c++ {
		a[c] = byte(c)
		a[c+'a'-'A'] = byte(c)
	}
	for c := '0'; c <= '9'; c++ {
		a[c] = byte(c)
	}
	for _, c := range " .,-/&()@:" {
		a[c] = byte(c)
	}
	return a
}()

// fold transliterates a non-ASCII rune to upper-case ASCII, or returns ""
// when it has no reasonable ASCII form.
func fold(r rune) string {
	switch r {
	case 'À', 'Á', 'Â', 'Ã', 'Ä', 'Å', 'à', 'á', 'â', 'ã', 'ä', 'å', 'ª':
		return "A"
	case 'Æ', 'æ':
		return "AE"
	case 'Ç', 'ç':
		return "C"
	case 'È', 'É', 'Ê', 'Ë', 'è', 'é', 'ê', 'ë':
		return "E"
	case 'Ì', 'Í', 'Î', 'Ï', 'ì', 'í', 'î', 'ï':
		return "I"
	case 'Ñ', 'ñ':
		return "N"
	case 'Ò', 'Ó', 'Ô', 'Õ', 'Ö', 'Ø', 'ò', 'ó', 'ô', 'õ', 'ö', 'ø', 'º', '°':
		return "O"
	case 'Ù', 'Ú', 'Û', 'Ü', 'ù', 'ú', 'û', 'ü':
		return "U"
	case 'Ý', 'ý', 'ÿ':
		return "Y"
	case 'ß':
		return "SS"
	case '\u00a0': // no-break space
		return " "
	case '–', '—':
		return "-"
	}
	return ""
}
