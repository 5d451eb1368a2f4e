package pagamento

import (
	"strconv"

	"github.com/propfin/propfin/cnab"
)

// kind is how a field is filled.
type kind uint8

const (
	kindBlank  kind = iota // spaces (brancos)
	kindZero               // zeros
	kindConst              // the literal lit, exactly as wide as the field
	kindNum                // an integer, zero-padded on the left
	kindDigits             // a string of digits, zero-padded on the left
	kindText               // upper-case ASCII text, space-padded on the right
	kindDate               // DDMMAAAA, zeros when there is no date
	kindRaw                // ASCII written as it is (a PIX key), space-padded
)

// field is one column range of a record as the bank's document lists it:
// start and end are 1-based and inclusive, so that a table reads side by
// side with the document.
type field struct {
	name       string // the field's name in the bank's document
	start, end int
	kind       kind
	lit        string // kindConst
	input      string // the input field it comes from, for problems
	num        func(*state) int64
	str        func(*state) string
	date       func(*state) cnab.Date
}

func (f *field) width() int { return f.end - f.start + 1 }

// record is the table of one record type of one bank.
type record struct {
	name   string
	detail bool // a detail segment (type 3), numbered within its batch
	fields []field
}

// Constructors, one per kind, so that tables read as the documents do.

func blank(start, end int, name string) field {
	return field{name: name, start: start, end: end, kind: kindBlank}
}

func zero(start, end int, name string) field {
	return field{name: name, start: start, end: end, kind: kindZero}
}

func lit(start, end int, name, value string) field {
	return field{name: name, start: start, end: end, kind: kindConst, lit: value}
}

func num(start, end int, name, input string, v func(*state) int64) field {
	return field{name: name, start: start, end: end, kind: kindNum, input: input, num: v}
}

func digits(start, end int, name, input string, v func(*state) string) field {
	return field{name: name, start: start, end: end, kind: kindDigits, input: input, str: v}
}

func text(start, end int, name, input string, v func(*state) string) field {
	return field{name: name, start: start, end: end, kind: kindText, input: input, str: v}
}

// raw is a field whose value is written exactly as given (a PIX key,
// where case and symbols matter), padded with spaces.
func raw(start, end int, name, input string, v func(*state) string) field {
	return field{name: name, start: start, end: end, kind: kindRaw, input: input, str: v}
}

func date(start, end int, name, input string, v func(*state) cnab.Date) field {
	return field{name: name, start: start, end: end, kind: kindDate, input: input, date: v}
}

// fields concatenates runs of fields into one record table.
func fields(runs ...[]field) []field {
	var out []field
	for _, r := range runs {
		out = append(out, r...)
	}
	return out
}

// fill writes every field of rec into line, which is exactly 240 bytes.
// Problems go to s.
func fill(line []byte, rec *record, s *state) {
	for i := range rec.fields {
		f := &rec.fields[i]
		dst := line[f.start-1 : f.end]
		switch f.kind {
		case kindBlank:
			setAll(dst, ' ')
		case kindZero:
			setAll(dst, '0')
		case kindConst:
			copy(dst, f.lit)
		case kindNum:
			putNum(dst, f.num(s), f, s)
		case kindDigits:
			putDigits(dst, f.str(s), f, s)
		case kindText:
			tr, rep := cnab.PutText(dst, f.str(s))
			if tr {
				s.warn(f.input, "truncated to "+strconv.Itoa(len(dst))+" characters for "+f.name)
			}
			if rep {
				s.warn(f.input, "characters the bank does not accept were replaced by spaces")
			}
		case kindDate:
			putDate(dst, f.date(s))
		case kindRaw:
			putRaw(dst, f.str(s), f, s)
		}
	}
}

func setAll(dst []byte, c byte) {
	for i := range dst {
		dst[i] = c
	}
}

// putNum writes v right-aligned and zero-padded. A negative value or one
// with more digits than the field is an error: a number is never cut.
func putNum(dst []byte, v int64, f *field, s *state) {
	if v < 0 {
		s.fail(f.input, "must not be negative")
		setAll(dst, '0')
		return
	}
	for i := len(dst); i > 0; i-- {
		dst[i-1] = byte('0' + v%10)
		v /= 10
	}
	if v != 0 {
		s.fail(f.input, "too large for "+f.name+" ("+strconv.Itoa(len(dst))+" digits)")
	}
}

// putDigits writes a string of digits right-aligned and zero-padded.
// Leading zeros beyond the width are dropped; any other excess, or a
// character that is not a digit, is an error.
func putDigits(dst []byte, v string, f *field, s *state) {
	for len(v) > len(dst) && v[0] == '0' {
		v = v[1:]
	}
	if len(v) > len(dst) {
		s.fail(f.input, "has "+strconv.Itoa(len(v))+" digits, "+f.name+" holds "+strconv.Itoa(len(dst)))
		setAll(dst, '0')
		return
	}
	pad := len(dst) - len(v)
	setAll(dst[:pad], '0')
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			s.fail(f.input, "must contain digits only")
			setAll(dst, '0')
			return
		}
		dst[pad+i] = c
	}
}

// putRaw writes printable ASCII as it is, left-aligned and space-padded;
// a longer value or another character is an error.
func putRaw(dst []byte, v string, f *field, s *state) {
	if len(v) > len(dst) {
		s.fail(f.input, "longer than the "+strconv.Itoa(len(dst))+" characters of "+f.name)
		setAll(dst, ' ')
		return
	}
	for i := 0; i < len(v); i++ {
		if v[i] < ' ' || v[i] >= 0x7f {
			s.fail(f.input, "must be printable ASCII")
			setAll(dst, ' ')
			return
		}
	}
	n := copy(dst, v)
	setAll(dst[n:], ' ')
}

func putDate(dst []byte, d cnab.Date) {
	if d.IsZero() {
		setAll(dst, '0')
		return
	}
	put2(dst[0:2], d.Day)
	put2(dst[2:4], int(d.Month))
	put2(dst[4:6], d.Year/100)
	put2(dst[6:8], d.Year%100)
}

func put2(dst []byte, v int) {
	dst[0] = byte('0' + v/10%10)
	dst[1] = byte('0' + v%10)
}
