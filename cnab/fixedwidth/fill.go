package fixedwidth

import (
	"strconv"
	"strings"
)

// Template returns a line of width bytes with the constant fields of fs
// (blanks, zeros, literals) in place, and the indexes of the others, the
// fields Fill writes for each record. It panics when a field lies outside
// the line: a table is wrong, not an input.
func Template[S Reporter](fs []Field[S], width int, record string) (line []byte, dynamic []int) {
	line = make([]byte, width)
	setAll(line, ' ')
	for i := range fs {
		f := &fs[i]
		if f.Start < 1 || f.End > width || f.End < f.Start {
			panic("fixedwidth: field " + f.Name + " of record " + record + " outside the record")
		}
		switch dst := line[f.Start-1 : f.End]; f.Kind {
		case Blank:
		case Zero:
			setAll(dst, '0')
		case Const:
			copy(dst, f.Lit)
		default:
			dynamic = append(dynamic, i)
		}
	}
	return line, dynamic
}

// FillAll writes every field of fs into line. Problems go to s.
func FillAll[S Reporter](line []byte, fs []Field[S], s S) { fill(line, fs, nil, s) }

// Fill writes the fields of fs at the indexes idx into line, which
// already holds the others (see Template). Problems go to s.
func Fill[S Reporter](line []byte, fs []Field[S], idx []int, s S) {
	if idx != nil {
		fill(line, fs, idx, s)
	}
}

// fill writes the fields of fs at the indexes idx, or every field when
// idx is nil, into line. The loop holds the switch itself: a call per
// field costs a measurable share of a record.
func fill[S Reporter](line []byte, fs []Field[S], idx []int, s S) {
	n := len(fs)
	if idx != nil {
		n = len(idx)
	}
	for k := range n {
		f := &fs[k]
		if idx != nil {
			f = &fs[idx[k]]
		}
		dst := line[f.Start-1 : f.End]
		switch f.Kind {
		case Blank:
			setAll(dst, ' ')
		case Zero:
			setAll(dst, '0')
		case Const:
			copy(dst, f.Lit)
		case Num:
			v := f.Num(s)
			if v == 0 && f.BlankZero {
				setAll(dst, ' ')
				continue
			}
			putNum(dst, v, f, s)
		case Digits:
			putDigits(dst, f.Str(s), f, s)
		case Text:
			tr, rep := PutText(dst, f.Str(s))
			if tr {
				s.Warn(f.Input, "truncated to "+strconv.Itoa(len(dst))+" characters for "+f.Name)
			}
			if rep {
				s.Warn(f.Input, "characters the bank does not accept were replaced by spaces")
			}
		case Raw:
			putRaw(dst, f.Str(s), f, s)
		case Date6, Date8:
			d := f.Date(s)
			if d == (Date{}) && f.BlankZero {
				setAll(dst, ' ')
				continue
			}
			putDate(dst, d)
		case DateYMD:
			putDateYMD(dst, f.Date(s))
		}
	}
}

// spaces and zeros are runs that setAll copies: a copy is much faster
// than a loop over a long field.
var (
	spaces = strings.Repeat(" ", 512)
	zeros  = strings.Repeat("0", 512)
)

func setAll(dst []byte, c byte) {
	run := spaces
	if c == '0' {
		run = zeros
	}
	if len(dst) > 8 && len(dst) <= len(run) {
		copy(dst, run)
		return
	}
	for i := range dst {
		dst[i] = c
	}
}

// putNum writes v right-aligned and zero-padded. A negative value or one
// with more digits than the field is an error: a number is never cut.
func putNum[S Reporter](dst []byte, v int64, f *Field[S], s S) {
	if v < 0 {
		s.Fail(f.Input, "must not be negative")
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
		s.Fail(f.Input, "too large for "+f.Name+" ("+strconv.Itoa(len(dst))+" digits)")
	}
}

// putDigits writes a string of digits right-aligned and zero-padded.
// Leading zeros beyond the width are dropped; any other excess, or a
// character that is not a digit (nor an upper-case letter, in a field of
// Letters), is an error.
func putDigits[S Reporter](dst []byte, v string, f *Field[S], s S) {
	if len(v) > len(dst) {
		trimmed := trimZeros(v, len(dst))
		if len(trimmed) > len(dst) {
			n := len(v)
			if f.CountSignificant {
				n = len(trimmed)
			}
			s.Fail(f.Input, "has "+strconv.Itoa(n)+" digits, "+f.Name+" holds "+strconv.Itoa(len(dst)))
			setAll(dst, '0')
			return
		}
		v = trimmed
	}
	pad := len(dst) - len(v)
	setAll(dst[:pad], '0')
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < '0' || c > '9') && !(f.Letters && 'A' <= c && c <= 'Z') {
			if f.Letters {
				s.Fail(f.Input, "must contain digits and upper-case letters only")
				setAll(dst, '0')
				return
			}
			s.Fail(f.Input, "must contain digits only")
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

// putRaw writes printable ASCII as it is, left-aligned and space-padded;
// a longer value or another character is an error.
func putRaw[S Reporter](dst []byte, v string, f *Field[S], s S) {
	if len(v) > len(dst) {
		s.Fail(f.Input, "longer than the "+strconv.Itoa(len(dst))+" characters of "+f.Name)
		setAll(dst, ' ')
		return
	}
	for i := 0; i < len(v); i++ {
		if v[i] < ' ' || v[i] >= 0x7f {
			s.Fail(f.Input, "must be printable ASCII")
			setAll(dst, ' ')
			return
		}
	}
	n := copy(dst, v)
	setAll(dst[n:], ' ')
}

// putDate writes DDMMAA into 6 bytes or DDMMAAAA into 8, zeros for no
// date.
func putDate(dst []byte, d Date) {
	if d == (Date{}) {
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

// putDateYMD writes AAAAMMDD, zeros for no date.
func putDateYMD(dst []byte, d Date) {
	if d == (Date{}) {
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
