package statement

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/propfin/propfin/api/ptbr"
)

// KindTotal is the total of one kind of line.
type KindTotal struct {
	Kind   LineKind
	Label  string // the label of the total, in Portuguese
	Amount Cents
	Count  int
}

// Group is the lines of one kind within a section, in their given order.
type Group struct {
	Kind  LineKind
	Label string // the group's heading, in Portuguese
	Lines []Line
	Total KindTotal
}

// SectionTotals is a section with its lines grouped by kind (the kinds it
// has, in the order of the kinds) and its net: the sum of its lines.
type SectionTotals struct {
	Section
	Groups []Group
	Net    Cents
}

// StatementTotals is what a statement adds up to: each section's groups
// and net, and the month's total of every kind (all kinds, zero ones
// included, in their order).
type StatementTotals struct {
	Sections []SectionTotals
	Kinds    []KindTotal
	Lines    int   // the number of lines shown
	Net      Cents // the sum of every line shown
}

// Totals checks the statement and adds it up. A statement whose month is
// not YYYY-MM, with an untitled section, a line of unknown kind, an
// adjustment without the earlier
// month it corrects, hidden entries of a negative count, or whose closing
// balance is not its opening balance plus its lines (and the hidden
// amount when it is in the balance), is an error.
func (s *OwnerStatement) Totals() (StatementTotals, error) {
	month, err := parseMonth(s.Month)
	if err != nil {
		return StatementTotals{}, invalid("statement month: %v", err)
	}
	if strings.TrimSpace(s.Company.Name) == "" {
		return StatementTotals{}, invalid("statement has no company name")
	}
	if s.Hidden.Count < 0 || (s.Hidden.Count == 0 && s.Hidden.Amount != 0) {
		return StatementTotals{}, invalid("hidden entries: %d adding up to %d cents", s.Hidden.Count, s.Hidden.Amount)
	}
	t := StatementTotals{Kinds: make([]KindTotal, len(lineKinds))}
	for i, k := range lineKinds {
		t.Kinds[i] = KindTotal{Kind: k.kind, Label: k.total}
	}
	for i, sec := range s.Sections {
		st, err := sectionTotals(sec, month)
		if err != nil {
			return StatementTotals{}, invalid("section %d (%q): %v", i+1, sec.Title, err)
		}
		for _, g := range st.Groups {
			k := &t.Kinds[kindIndex(g.Kind)]
			k.Amount += g.Total.Amount
			k.Count += g.Total.Count
			t.Lines += g.Total.Count
		}
		t.Net += st.Net
		t.Sections = append(t.Sections, st)
	}
	want := s.Opening + t.Net
	if s.Hidden.InBalance {
		want += s.Hidden.Amount
	}
	if s.Closing != want {
		return StatementTotals{}, invalid("closing balance %s is not the opening balance %s plus the lines (%s): %s",
			ptbr.Cents(s.Closing), ptbr.Cents(s.Opening), ptbr.Cents(want-s.Opening), ptbr.Cents(want))
	}
	return t, nil
}

// sectionTotals groups a section's lines by kind and checks each line.
func sectionTotals(sec Section, month time.Time) (SectionTotals, error) {
	if strings.TrimSpace(sec.Title) == "" {
		return SectionTotals{}, errors.New("section has no title")
	}
	groups := make([]Group, len(lineKinds))
	st := SectionTotals{Section: sec}
	for i, l := range sec.Lines {
		if err := checkLine(l, month); err != nil {
			return SectionTotals{}, fmt.Errorf("line %d (%q): %w", i+1, l.Description, err)
		}
		g := &groups[kindIndex(l.Kind)]
		g.Lines = append(g.Lines, l)
		g.Total.Amount += l.Amount
		g.Total.Count++
		st.Net += l.Amount
	}
	for i, k := range lineKinds {
		if len(groups[i].Lines) == 0 {
			continue
		}
		g := groups[i]
		g.Kind, g.Label = k.kind, k.label
		g.Total.Kind, g.Total.Label = k.kind, k.total
		st.Groups = append(st.Groups, g)
	}
	return st, nil
}

// checkLine checks what a line's kind requires.
func checkLine(l Line, month time.Time) error {
	if kindIndex(l.Kind) < 0 {
		return fmt.Errorf("kind %q is unknown", l.Kind)
	}
	switch l.Kind {
	case Adjustment:
		c, err := parseMonth(l.Corrects)
		if err != nil {
			return fmt.Errorf("adjustment: the month it corrects: %w", err)
		}
		if !c.Before(month) {
			return fmt.Errorf("adjustment corrects %s, not a month before the statement's", l.Corrects)
		}
	}
	return nil
}

func kindIndex(k LineKind) int {
	for i, lk := range lineKinds {
		if lk.kind == k {
			return i
		}
	}
	return -1
}

// kindLabel is a kind's group heading.
func kindLabel(k LineKind) string {
	if i := kindIndex(k); i >= 0 {
		return lineKinds[i].label
	}
	return string(k)
}

// IncomeTotals is what an income report adds up to: each contract's year,
// each administrator's and each company tenant's, and the year of all
// contracts, month by month.
type IncomeTotals struct {
	Contracts []IncomeContractTotals
	// Sources are the contracts by the administrator (business) they were
	// received through, in the order of each one's first contract.
	Sources []IncomeSourceTotals
	Months  [12]IncomeMonth // every contract's month, added
	Year    IncomeMonth     // the year of every contract
	// Payers are the company tenants, the paying sources (fontes
	// pagadoras) of their rent, each with its contracts' year, in the
	// order of each one's first contract; Individuals the year of the
	// contracts whose tenant is a person (the carnê-leão's), Unknown of
	// those whose tenant has no CPF or CNPJ.
	Payers      []IncomePayerTotals
	Individuals IncomeMonth
	Unknown     IncomeMonth
}

// IncomePayerTotals is a company tenant with the year of its contracts.
type IncomePayerTotals struct {
	Payer Party
	Year  IncomeMonth
}

// addToPayer adds a contract's year to what its tenant paid.
func (t *IncomeTotals) addToPayer(ct IncomeContractTotals) {
	switch PayerOf(ct.Tenant) {
	case PayerIndividual:
		t.Individuals = t.Individuals.plus(ct.Year)
		return
	case PayerUnknown:
		t.Unknown = t.Unknown.plus(ct.Year)
		return
	}
	i := slices.IndexFunc(t.Payers, func(p IncomePayerTotals) bool { return sameParty(p.Payer, ct.Tenant) })
	if i < 0 {
		i = len(t.Payers)
		t.Payers = append(t.Payers, IncomePayerTotals{Payer: ct.Tenant})
	}
	t.Payers[i].Year = t.Payers[i].Year.plus(ct.Year)
}

// Declaration says where the owner declares the contract's rent: for a
// company tenant, "Fonte pagadora" and the tenant with its CNPJ and the
// IR it withheld in the year; for a person, the carnê-leão.
func (c IncomeContractTotals) Declaration() [2]string {
	switch PayerOf(c.Tenant) {
	case PayerCompany:
		return [2]string{"Fonte pagadora", partyText(c.Tenant) + ", que reteve " + ptbr.Cents(c.Year.Withheld) + " de IR no ano"}
	case PayerIndividual:
		return [2]string{"Declaração", "Aluguel recebido de pessoa física: carnê-leão"}
	}
	return [2]string{"Declaração", "Inquilino sem CPF ou CNPJ no cadastro: a fonte pagadora não é conhecida"}
}

// IncomeSourceTotals is an administrator (IncomeContract.Source, the
// report's Company for a contract of none) with its contracts and what
// they add up to.
type IncomeSourceTotals struct {
	Source    Party
	Contracts []IncomeContractTotals
	Months    [12]IncomeMonth
	Year      IncomeMonth
}

// IncomeContractTotals is a contract with its year's total.
type IncomeContractTotals struct {
	IncomeContract
	Year IncomeMonth
}

// Totals checks the report and adds it up. A year outside 1900 to 9999,
// a missing company name, an untitled contract or a contract ending
// before it starts is an error. Amounts are shown as given: a month may
// be negative when a correction outweighed it.
func (r *IncomeReport) Totals() (IncomeTotals, error) {
	if r.Year < 1900 || r.Year > 9999 {
		return IncomeTotals{}, invalid("report year %d", r.Year)
	}
	if strings.TrimSpace(r.Company.Name) == "" {
		return IncomeTotals{}, invalid("report has no company name")
	}
	var t IncomeTotals
	for i, c := range r.Contracts {
		if strings.TrimSpace(c.Title) == "" {
			return IncomeTotals{}, invalid("contract %d has no title", i+1)
		}
		if !c.Start.IsZero() && !c.End.IsZero() && c.End.Before(c.Start) {
			return IncomeTotals{}, invalid("contract %q ends (%s) before it starts (%s)", c.Title, ptbr.Date(c.End), ptbr.Date(c.Start))
		}
		ct := IncomeContractTotals{IncomeContract: c}
		for m, v := range c.Months {
			ct.Year = ct.Year.plus(v)
			t.Months[m] = t.Months[m].plus(v)
		}
		t.Year = t.Year.plus(ct.Year)
		t.Contracts = append(t.Contracts, ct)
		t.addToSource(r.sourceOf(c), ct)
		t.addToPayer(ct)
	}
	return t, nil
}

// sourceOf is the administrator of a contract: its own, else the
// report's Company.
func (r *IncomeReport) sourceOf(c IncomeContract) Party {
	if strings.TrimSpace(c.Source.Name) == "" {
		return r.Company
	}
	return c.Source
}

// addToSource adds a contract to its source's totals, the source's first
// contract opening them; sources are the same by name and tax id.
func (t *IncomeTotals) addToSource(source Party, ct IncomeContractTotals) {
	i := slices.IndexFunc(t.Sources, func(s IncomeSourceTotals) bool { return sameParty(s.Source, source) })
	if i < 0 {
		i = len(t.Sources)
		t.Sources = append(t.Sources, IncomeSourceTotals{Source: source})
	}
	s := &t.Sources[i]
	s.Contracts = append(s.Contracts, ct)
	for m, v := range ct.Months {
		s.Months[m] = s.Months[m].plus(v)
	}
	s.Year = s.Year.plus(ct.Year)
}

// sameParty reports whether two parties are one: the same name and tax
// id, however punctuated.
func sameParty(a, b Party) bool {
	return strings.TrimSpace(a.Name) == strings.TrimSpace(b.Name) && ptbr.TaxID(a.TaxID) == ptbr.TaxID(b.TaxID)
}
