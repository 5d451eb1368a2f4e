// Package fixedwidth fills the records of fixed-width text files, such as
// the CNAB remittances banks read, from tables of fields.
//
// A table lists a record's fields in the order and with the positions the
// bank's document prints (1-based, inclusive), each with the kind of
// value it holds and, for a value that varies, a function that reads it
// from S, the writer's state. The renderer pads and checks each value and
// reports what is wrong through S's Fail and Warn methods, naming the
// input field the value came from. Template renders a record's constant
// fields once, and Fill then writes the others for each record. Output
// buffers the records of one item (a title, a payment) until the writer
// knows whether to write or drop them.
package fixedwidth

import "time"

// Reporter receives the problems found while a record is filled: Fail
// for a value that cannot be written, Warn for one written altered.
type Reporter interface {
	Fail(input, msg string)
	Warn(input, msg string)
}

// Kind is how a field is filled.
type Kind uint8

const (
	Blank   Kind = iota // spaces (brancos, uso exclusivo)
	Zero                // zeros
	Const               // the literal Lit, exactly as wide as the field
	Num                 // an integer, zero-padded on the left
	Digits              // a string of digits, zero-padded on the left
	Text                // upper-case ASCII text, space-padded on the right
	Raw                 // printable ASCII as it is (a PIX key), space-padded
	Date6               // DDMMAA, zeros when there is no date
	Date8               // DDMMAAAA, zeros when there is no date
	DateYMD             // AAAAMMDD, zeros when there is no date
)

var kindNames = [...]string{"blank", "zero", "const", "num", "digits", "text", "raw", "date6", "date8", "dateYMD"}

func (k Kind) String() string { return kindNames[k] }

// Date is a calendar date as a date field prints it; the zero Date is no
// date.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// Field is one column range of a record, as the bank's document lists it.
// Start and End are 1-based and inclusive, the way the documents print
// them, so that a table reads side by side with the document.
type Field[S Reporter] struct {
	Name       string // the field's name in the bank's document
	Start, End int
	Kind       Kind
	Lit        string // Const
	Input      string // the input field the value comes from, for problems
	// BlankZero leaves a Num of zero, or a Date6 or Date8 without a date,
	// in blanks: some banks ask for unused numeric fields in blanks.
	BlankZero bool
	// CountSignificant makes the problem of a Digits value too long for
	// the field count its digits without leading zeros.
	CountSignificant bool
	// Letters lets a Digits field hold upper-case ASCII letters too, as
	// the alphanumeric CNPJ (IN RFB 2.229/2024) is written in the fields
	// of a CPF or CNPJ: right-aligned and zero-padded, as digits are.
	Letters bool

	Num  func(S) int64  // Num
	Str  func(S) string // Digits, Text, Raw
	Date func(S) Date   // Date6, Date8, DateYMD
}

// Width is the number of bytes the field takes.
func (f *Field[S]) Width() int { return f.End - f.Start + 1 }

// Constructors, one per kind, so that tables read as the documents do.

// NewBlank is a field of spaces.
func NewBlank[S Reporter](start, end int, name string) Field[S] {
	return Field[S]{Name: name, Start: start, End: end, Kind: Blank}
}

// NewZero is a field of zeros.
func NewZero[S Reporter](start, end int, name string) Field[S] {
	return Field[S]{Name: name, Start: start, End: end, Kind: Zero}
}

// NewLit is a field holding value, which must be exactly as wide.
func NewLit[S Reporter](start, end int, name, value string) Field[S] {
	return Field[S]{Name: name, Start: start, End: end, Kind: Const, Lit: value}
}

// NewNum is a non-negative integer, right-aligned and zero-padded.
func NewNum[S Reporter](start, end int, name, input string, v func(S) int64) Field[S] {
	return Field[S]{Name: name, Start: start, End: end, Kind: Num, Input: input, Num: v}
}

// NewDigits is a string of digits, right-aligned and zero-padded.
func NewDigits[S Reporter](start, end int, name, input string, v func(S) string) Field[S] {
	return Field[S]{Name: name, Start: start, End: end, Kind: Digits, Input: input, Str: v}
}

// NewTaxID is a CPF or CNPJ, right-aligned and zero-padded: digits, and
// the upper-case letters of an alphanumeric CNPJ.
func NewTaxID[S Reporter](start, end int, name, input string, v func(S) string) Field[S] {
	f := NewDigits(start, end, name, input, v)
	f.Letters = true
	return f
}

// NewText is text written as upper-case ASCII (see PutText).
func NewText[S Reporter](start, end int, name, input string, v func(S) string) Field[S] {
	return Field[S]{Name: name, Start: start, End: end, Kind: Text, Input: input, Str: v}
}

// NewRaw is a field whose value is written exactly as given (a PIX key,
// where case and symbols matter), padded with spaces.
func NewRaw[S Reporter](start, end int, name, input string, v func(S) string) Field[S] {
	return Field[S]{Name: name, Start: start, End: end, Kind: Raw, Input: input, Str: v}
}

// DateLike is Date or a date type of the same shape, such as cnab.Date.
type DateLike interface {
	~struct {
		Year  int
		Month time.Month
		Day   int
	}
}

// NewDate is a date field of kind Date6, Date8 or DateYMD.
func NewDate[S Reporter, D DateLike](k Kind, start, end int, name, input string, v func(S) D) Field[S] {
	date := func(s S) Date { return Date(v(s)) }
	return Field[S]{Name: name, Start: start, End: end, Kind: k, Input: input, Date: date}
}

// Unused leaves f blank when its value is zero or there is no date.
func Unused[S Reporter](f Field[S]) Field[S] {
	f.BlankZero = true
	return f
}

// Concat concatenates runs of fields into one record table.
func Concat[S Reporter](runs ...[]Field[S]) []Field[S] {
	var out []Field[S]
	for _, r := range runs {
		out = append(out, r...)
	}
	return out
}
