package pix

import (
	"fmt"
	"unicode/utf8"
)

// object is one EMV data object as read from a container.
type object struct {
	id     string
	num    int    // id as a number
	length int    // declared length, in characters
	value  string // the value, or what remains of the container on overrun
	pos    int    // byte offset of the ID in the scanned container
	at     int    // character offset (from 0) of the ID in the whole payload
}

// scan statuses.
const (
	scanDone = iota
	scanOK
	scanSyntax
	scanOverrun
)

// scanner walks the data objects of one container (the payload or a
// template's value). Lengths count characters, as EMV defines them; for
// the ASCII payloads the standard allows, characters and bytes agree.
type scanner struct {
	s     string
	pos   int    // byte offset of the next object
	chars int    // characters consumed so far
	base  int    // character offset of s in the whole payload
	ascii bool   // s is all ASCII: characters are bytes
	obj   object // the object next read
}

// next reads one object into sc.obj. On scanSyntax and scanOverrun the
// object carries what could be read, for the message, and scanning must
// stop.
func (sc *scanner) next() int {
	o := &sc.obj
	o.pos, o.at = sc.pos, sc.base+sc.chars
	if sc.pos >= len(sc.s) {
		return scanDone
	}
	rest := sc.s[sc.pos:]
	if len(rest) < 4 {
		o.id, o.value = "", rest
		return scanSyntax
	}
	d0, d1, d2, d3 := rest[0]-'0', rest[1]-'0', rest[2]-'0', rest[3]-'0'
	if d0 > 9 || d1 > 9 || d2 > 9 || d3 > 9 {
		o.id, o.value = "", rest
		return scanSyntax
	}
	o.id, o.num, o.length = rest[:2], int(d0)*10+int(d1), int(d2)*10+int(d3)
	end, ok := 4+o.length, len(rest) >= 4+o.length
	if !sc.ascii {
		end, ok = takeChars(rest, 4, o.length)
	}
	if !ok {
		o.value = rest[4:]
		return scanOverrun
	}
	o.value = rest[4:end]
	sc.pos += end
	sc.chars += 4 + o.length
	return scanOK
}

// takeChars returns the byte offset n characters after from, and false
// when s ends first.
func takeChars(s string, from, n int) (int, bool) {
	end := from
	for range n {
		if end >= len(s) {
			return end, false
		}
		if s[end] < utf8.RuneSelf {
			end++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return end, true
}

// isASCII reports whether s has only 7-bit characters, eight bytes at a
// time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return len(s) > 0
}

// scanProblem describes why a container could not be read to its end.
func scanProblem(field string, o *object, status int) Problem {
	if status == scanSyntax {
		if len(o.value) < 4 {
			return Problem{CodeSyntax, field, fmt.Sprintf(
				"at character %d: an object needs a two-digit ID and a two-digit length, but only %q remains", o.at+1, o.value)}
		}
		return Problem{CodeSyntax, field, fmt.Sprintf(
			"at character %d: expected a two-digit ID and a two-digit length, found %q", o.at+1, prefixChars(o.value, 4))}
	}
	return Problem{CodeOverrun, field, fmt.Sprintf(
		"at character %d: object %s declares %d characters but only %d remain",
		o.at+1, o.id, o.length, utf8.RuneCountInString(o.value))}
}

// prefixChars is the first n characters of s.
func prefixChars(s string, n int) string {
	end, ok := takeChars(s, 0, n)
	if !ok {
		return s
	}
	return s[:end]
}

// commonCharset reports whether s holds only the EMV common character set
// (printable ASCII, 0x20 to 0x7E); when it does not, it gives the first
// character outside it and its position, counted in characters from 1.
func commonCharset(s string) (int, rune, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7E {
			r, _ := utf8.DecodeRuneInString(s[i:])
			return utf8.RuneCountInString(s[:i]) + 1, r, false
		}
	}
	return 0, 0, true
}
