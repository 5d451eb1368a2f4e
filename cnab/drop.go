package cnab

import (
	"fmt"
	"strings"

	"github.com/propfin/propfin/cnab/fixedwidth"
)

// Drops (pedido de baixa, docs/cnab.md "Drops"). A request to drop a title
// is one record: the layout's first detail record of an entry (the CNAB
// 400 detail, the CNAB 240 segment P) with the movement code 02 where the
// entry has 01, the beneficiary's fields and the title's identification
// (nosso número, seu número, the beneficiary's control, amount and due
// date) as in the entry, and every other field of the title (payer,
// kind, issue date, fee, interest, discount, protest, write-off) empty:
// zeros in numeric fields, blanks in text (blanks in both where the
// layout asks unused numeric fields in blanks). Each layout's drop record
// is derived from its entry's table when the layout is registered, so
// that the two cannot drift apart; TestLayoutTables checks it as any
// other record, and the drop goldens (testdata/drops) read it at the
// document's positions.

// dropMovement is the movement code (código de movimento remessa,
// ocorrência, comando, instrução) of a request to drop a title: 02 in
// FEBRABAN's C004 and in every CNAB 400 layout here.
const dropMovement = "02"

// movementField is where a layout's first detail record carries the
// movement code: segment P 16-17 in CNAB 240, 109-110 in every CNAB 400
// layout here.
func movementField(l Layout) (start, end int) {
	if l == CNAB240 {
		return 16, 17
	}
	return 109, 110
}

// dropInputs are the title's inputs a drop's record keeps.
var dropInputs = map[string]bool{
	"our_number": true, "document_number": true, "control": true, "amount": true, "due": true,
}

// dropRecord derives a layout's drop record from its entry's first
// detail record. A table without the entry's movement code 01 where the
// layout has it is a mistake in the tables and panics when the package
// loads.
func dropRecord(sp *spec) *record {
	entry := sp.detail[0]
	start, end := movementField(sp.layout)
	rec := &record{name: entry.name + " (drop)"}
	found := false
	for _, f := range entry.fields {
		switch {
		case f.Start == start && f.End == end:
			if f.Kind != fixedwidth.Const || f.Lit != "01" {
				panic(fmt.Sprintf("cnab: %s/%d %s: no entry movement 01 at %d-%d", sp.bank, sp.layout, entry.name, start, end))
			}
			f = lit(start, end, f.Name, dropMovement)
			found = true
		case !keptInDrop(f):
			f = emptied(f, sp.blankNumbers)
		}
		rec.fields = append(rec.fields, f)
	}
	if !found {
		panic(fmt.Sprintf("cnab: %s/%d %s: no field at %d-%d for the movement code", sp.bank, sp.layout, entry.name, start, end))
	}
	return rec
}

// keptInDrop reports whether a drop's record keeps a field of the entry's
// as it is: constants, counters, the remittance's fields and the title's
// identification.
func keptInDrop(f field) bool {
	switch f.Kind {
	case fixedwidth.Blank, fixedwidth.Zero, fixedwidth.Const:
		return true
	}
	return f.Input == "" || remittanceInput(f.Input) || dropInputs[f.Input]
}

// emptied is f left empty: blanks for text, zeros for a number or a date,
// or blanks where the layout (or the field) leaves unused numbers blank.
func emptied(f field, blankNumbers bool) field {
	if f.Kind == fixedwidth.Text || f.Kind == fixedwidth.Raw || f.BlankZero || blankNumbers {
		return blank(f.Start, f.End, f.Name)
	}
	return zero(f.Start, f.End, f.Name)
}

// checkDrop records the problems of the current drop and derives its
// amount.
func checkDrop(s *state) {
	t := s.t
	if t.OurNumber <= 0 {
		s.Fail("our_number", "required, 1 or more")
	}
	if strings.TrimSpace(t.DocumentNumber) == "" {
		s.Fail("document_number", "required")
	}
	s.amount = s.hundredths(t.Amount, "amount")
	if t.Amount.Sign() == 0 {
		s.Fail("amount", "must be more than zero")
	}
	if !t.Due.valid() {
		s.Fail("due", "required, a date between 2000 and 2099")
	}
}
