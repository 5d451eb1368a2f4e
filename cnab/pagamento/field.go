package pagamento

import (
	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/fixedwidth"
)

// field is one column range of a record as the bank's document lists it
// (see package fixedwidth); its values are read from the writer's state.
type field = fixedwidth.Field[*state]

// record is the table of one record type of one bank.
type record struct {
	name   string
	detail bool // a detail segment (type 3), numbered within its batch
	fields []field
}

// Constructors, one per kind, so that tables read as the documents do.
var (
	blank = fixedwidth.NewBlank[*state]
	zero  = fixedwidth.NewZero[*state]
	lit   = fixedwidth.NewLit[*state]
	num   = fixedwidth.NewNum[*state]
	text  = fixedwidth.NewText[*state]
	// raw is a field whose value is written exactly as given (a PIX key,
	// where case and symbols matter), padded with spaces.
	raw = fixedwidth.NewRaw[*state]
	// fields concatenates runs of fields into one record table.
	fields = fixedwidth.Concat[*state]
)

// digits is a string of digits, right-aligned and zero-padded; a value
// too long is reported with the count of its significant digits.
func digits(start, end int, name, input string, v func(*state) string) field {
	f := fixedwidth.NewDigits(start, end, name, input, v)
	f.CountSignificant = true
	return f
}

// taxID is a CPF or CNPJ, the alphanumeric CNPJ's letters included.
func taxID(start, end int, name, input string, v func(*state) string) field {
	f := fixedwidth.NewTaxID(start, end, name, input, v)
	f.CountSignificant = true
	return f
}

// date is a date written DDMMAAAA, zeros when there is none.
func date(start, end int, name, input string, v func(*state) cnab.Date) field {
	return fixedwidth.NewDate(fixedwidth.Date8, start, end, name, input, v)
}
