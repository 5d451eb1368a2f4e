package api

// escapeProblem scans the text of one valid JSON value for \u escapes that
// would not survive as written: \u0000 (PostgreSQL stores no NUL) and a
// UTF-16 surrogate without its other half (Go decodes it to U+FFFD,
// PostgreSQL's jsonb refuses it). It returns why the value is refused, ""
// when it is not. In valid JSON a backslash only occurs inside strings,
// keys included, and always starts a complete escape.
func escapeProblem(raw []byte) string {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // a two-character escape: \" \\ \/ \b \f \n \r \t
			continue
		}
		r := hex4(raw[i+2 : i+6])
		switch {
		case r == 0:
			return "must not contain NUL characters"
		case isHighSurrogate(r) && i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' && isLowSurrogate(hex4(raw[i+8:i+12])):
			i += 11
		case isHighSurrogate(r) || isLowSurrogate(r):
			return "must not contain a UTF-16 surrogate without its pair"
		default:
			i += 5
		}
	}
	return ""
}

func isHighSurrogate(r rune) bool { return r >= 0xd800 && r < 0xdc00 }

func isLowSurrogate(r rune) bool { return r >= 0xdc00 && r < 0xe000 }

// hex4 reads the four hexadecimal digits of a \u escape; -1 when they are
// not (invalid JSON, which never gets here).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}
