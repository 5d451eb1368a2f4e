package cnab

import (
	"strings"

	"github.com/propfin/propfin/cnab/fixedwidth"
)

// field is one column range of a record, as the bank's document lists it
// (see package fixedwidth); its values are read from the writer's state.
type field = fixedwidth.Field[*state]

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
var (
	blank  = fixedwidth.NewBlank[*state]
	zero   = fixedwidth.NewZero[*state]
	lit    = fixedwidth.NewLit[*state]
	num    = fixedwidth.NewNum[*state]
	digits = fixedwidth.NewDigits[*state]
	taxID  = fixedwidth.NewTaxID[*state]
	text   = fixedwidth.NewText[*state]
	// unused leaves a field blank when its value is zero or there is no
	// date.
	unused = fixedwidth.Unused[*state]
	// fields concatenates runs of fields into one record table.
	fields = fixedwidth.Concat[*state]
)

func date6(start, end int, name, input string, v func(*state) Date) field {
	return fixedwidth.NewDate(fixedwidth.Date6, start, end, name, input, v)
}

func date8(start, end int, name, input string, v func(*state) Date) field {
	return fixedwidth.NewDate(fixedwidth.Date8, start, end, name, input, v)
}

func dateYMD(start, end int, name, input string, v func(*state) Date) field {
	return fixedwidth.NewDate(fixedwidth.DateYMD, start, end, name, input, v)
}

// compile renders the record's constant fields once into its template.
func (r *record) compile(width int) {
	if r.template != nil {
		return
	}
	r.template, r.dynamic = fixedwidth.Template(r.fields, width, r.name)
	for _, i := range r.dynamic {
		if remittanceInput(r.fields[i].Input) {
			r.perFile = append(r.perFile, i)
		} else {
			r.perTitle = append(r.perTitle, i)
		}
	}
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
