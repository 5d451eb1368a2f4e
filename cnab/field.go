package cnab

import (
	"strconv"
	"strings"
)

// kind is how a field is filled.
type kind uint8

const (
	kindBlank   kind = iota // spaces (brancos, uso exclusivo)
	kindZero                // zeros
	kindConst               // the literal lit, exactly as wide as the field
	kindNum                 // an integer, zero-padded on the left
	kindDigits              // a string of digits, zero-padded on the left
	kindText                // upper-case ASCII text, space-padded on the right
	kindDate6               // DDMMAA, zeros when there is no date
	kindDate8               // DDMMAAAA, zeros when there is no date
	kindDateYMD             // AAAAMMDD, zeros when there is no date
)

var kindNames = [...]string{"blank", "zero", "const", "num", "digits", "text", "date6", "date8", "dateYMD"}

func (k kind) String() string { return kindNames[k] }

// field is one column range of a record, as the bank's document lists it.
// Start and end are 1-based and inclusive, the way the documents print
// them, so a table can be read side by side with the document.
type field struct {
	name       string // the field's name in the bank's document
	start, end int
	kind       kind
	lit        string // kindConst
	input      string // the input field it comes from, for problems
	// blankZero leaves a number of zero, or no date, in blanks: some
	// banks (Banrisul) ask for unused numeric fields in blanks.
	blankZero bool
	num       func(*state) int64
	str       func(*state) string
	date      func(*state) Date
}

func (f *field) width() int { return f.end - f.start + 1 }

// record is the table of one record type (header, detail, segment,
// trailer) of one bank and layout.
type record struct {
	// template is the record with its constant fields (blanks, zeros,
	// literals) already in place, and dynamic the indexes of the fields
	// filled for each record; both are built by compile.
	template []byte
	dynamic  []int
	// perFile are the dynamic fields that depend on the remittance only
	// (beneficiary, dates of the file): a Writer renders them once into
	// its own copy of a detail record's template. perTitle are the rest.
	perFile, perTitle []int

	name string
	// when, if set, decides whether a title has this (optional) record.
	when   func(*state) bool
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

// unused leaves f blank when its value is zero or there is no date.
func unused(f field) field {
	f.blankZero = true
	return f
}

func text(start, end int, name, input string, v func(*state) string) field {
	return field{name: name, start: start, end: end, kind: kindText, input: input, str: v}
}

func date6(start, end int, name, input string, v func(*state) Date) field {
	return field{name: name, start: start, end: end, kind: kindDate6, input: input, date: v}
}

func date8(start, end int, name, input string, v func(*state) Date) field {
	return field{name: name, start: start, end: end, kind: kindDate8, input: input, date: v}
}

func dateYMD(start, end int, name, input string, v func(*state) Date) field {
	return field{name: name, start: start, end: end, kind: kindDateYMD, input: input, date: v}
}

// compile renders the record's constant fields once into its template.
func (r *record) compile(width int) {
	if r.template != nil {
		return
	}
	t := make([]byte, width)
	setAll(t, ' ')
	for i := range r.fields {
		f := &r.fields[i]
		if f.start < 1 || f.end > width || f.end < f.start {
			panic("cnab: field " + f.name + " of record " + r.name + " outside the record")
		}
		switch dst := t[f.start-1 : f.end]; f.kind {
		case kindBlank:
		case kindZero:
			setAll(dst, '0')
		case kindConst:
			copy(dst, f.lit)
		default:
			r.dynamic = append(r.dynamic, i)
			if remittanceInput(f.input) {
				r.perFile = append(r.perFile, i)
			} else {
				r.perTitle = append(r.perTitle, i)
			}
		}
	}
	r.template = t
}

// remittanceInput reports whether a field's value comes from the
// remittance alone, so that it is the same in every title's records.
func remittanceInput(input string) bool {
	switch input {
	case "created", "sequence", "version", "test":
		return true
	}
	return strings.HasPrefix(input, "beneficiary.")
}

// fill writes the dynamic fields of rec into line, which holds a copy of
// the record's template. Problems go to s.
func fill(line []byte, rec *record, s *state) { fillFields(line, rec, rec.dynamic, s) }

// fillFields writes the fields of rec at the given indexes into line.
func fillFields(line []byte, rec *record, idx []int, s *state) {
	for _, i := range idx {
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
			v := f.num(s)
			if v == 0 && f.blankZero {
				setAll(dst, ' ')
				continue
			}
			putNum(dst, v, f, s)
		case kindDigits:
			putDigits(dst, f.str(s), f, s)
		case kindText:
			tr, rep := putText(dst, f.str(s))
			if tr {
				s.warn(f.input, "truncated to "+strconv.Itoa(len(dst))+" characters for "+f.name)
			}
			if rep {
				s.warn(f.input, "characters the bank does not accept were replaced by spaces")
			}
		case kindDate6, kindDate8:
			d := f.date(s)
			if d.IsZero() && f.blankZero {
				setAll(dst, ' ')
				continue
			}
			putDate(dst, d)
		case kindDateYMD:
			putDateYMD(dst, f.date(s))
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
	i := len(dst)
	for ; i > 0 && v != 0; i-- {
		dst[i-1] = byte('0' + v%10)
		v /= 10
	}
	setAll(dst[:i], '0')
	if v != 0 {
		s.fail(f.input, "too large for "+f.name+" ("+strconv.Itoa(len(dst))+" digits)")
	}
}

// putDigits writes a string of digits right-aligned and zero-padded. The
// string must be digits only and fit the field.
func putDigits(dst []byte, v string, f *field, s *state) {
	if len(v) > len(dst) {
		if trimmed := trimZeros(v, len(dst)); len(trimmed) <= len(dst) {
			v = trimmed
		} else {
			s.fail(f.input, "has "+strconv.Itoa(len(v))+" digits, "+f.name+" holds "+strconv.Itoa(len(dst)))
			setAll(dst, '0')
			return
		}
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

// trimZeros drops leading zeros of v but keeps at least width characters.
func trimZeros(v string, width int) string {
	for len(v) > width && v[0] == '0' {
		v = v[1:]
	}
	return v
}

func putDate(dst []byte, d Date) {
	if d.IsZero() {
		setAll(dst, '0')
		return
	}
	put2(dst[0:2], d.Day)
	put2(dst[2:4], int(d.Month))
	if len(dst) == 6 {
		put2(dst[4:6], d.Year%100)
		return
	}
	put2(dst[4:6], d.Year/100)
	put2(dst[6:8], d.Year%100)
}

func putDateYMD(dst []byte, d Date) {
	if d.IsZero() {
		setAll(dst, '0')
		return
	}
	put2(dst[0:2], d.Year/100)
	put2(dst[2:4], d.Year%100)
	put2(dst[4:6], int(d.Month))
	put2(dst[6:8], d.Day)
}

func put2(dst []byte, v int) {
	dst[0] = byte('0' + v/10%10)
	dst[1] = byte('0' + v%10)
}
