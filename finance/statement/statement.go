// Package statement is the owner's monthly statement (prestação de
// contas): from an owner's ledger entries (extract owner) of a month, the
// balance the previous statement closed with, and the entries that change
// months already closed, the lines the owner reads, section by section and
// per building and contract, the totals, and the closing balance.
//
// The rule is pure: storage reads the entries (docs/ledger.md, "Owner
// statements", says which) and writes what Build returns. Amounts are
// int64 cents, signed as the owner sees them: a credit is positive (the
// manager holds it for the owner), a debit and a transfer negative.
//
// The balance is the ledger's, whatever the owner is shown: closing =
// opening + the sum of every line, the lines of items the owner's report
// leaves out (owner_report false) included; those lines are flagged
// Hidden, and Totals counts them apart.
package statement

import (
	"cmp"
	"slices"

	"github.com/propfin/propfin/finance"
)

// Section is where a line is shown.
type Section string

// The sections of a statement, in the order they are shown.
const (
	// Income is what the tenants paid: the owner's share credited from the
	// settled lines of the invoices (rent, condominium, IPTU, late fee,
	// interest), and any other credit to the owner. The section follows
	// the entry's side, never its item's type.
	Income Section = "income"
	// Deductions are the items debited to the owner: the administration
	// fee, commissions, an IPTU or condominium the owner pays, repairs,
	// tariffs.
	Deductions Section = "deductions"
	// Guarantee is the rent the business advanced under a guaranteed
	// transfer (a credit) and recovered when the tenant paid (a debit).
	Guarantee Section = "guarantee"
	// Transfers are the amounts paid out to the owner (repasses).
	Transfers Section = "transfers"
	// Adjustments change a month already closed: a reversal of an entry of
	// that month, or an entry dated in it written after it was closed.
	// Each names the month it corrects.
	Adjustments Section = "adjustments"
)

// Sections lists the sections in the order a statement shows them.
var Sections = []Section{Income, Deductions, Guarantee, Transfers, Adjustments}

// Entry is one ledger entry of the owner (extract owner), as the statement
// reads it.
type Entry struct {
	ID    int64
	Date  finance.Date
	Type  finance.EntryType
	Mode  finance.EntryMode
	Cents int64 // the entry's amount, positive, in cents
	// ItemID and ItemType are the entry's transaction item and its type
	// (rent, fee, duty, ...); 0 and "" when it has none.
	ItemID   int64
	ItemType string
	// Hidden: the entry's transaction item has owner_report false. An
	// entry without an item is shown.
	Hidden      bool
	Description string
	ContractID  int64
	BuildingID  int64
	InvoiceID   int64
	// Guaranteed: the entry settles a guaranteed transfer (its
	// guaranteed_transfer_id, or that of the entry it reverses, is set).
	Guaranteed bool
	// ReversesID is the entry a reversal reverses (0: none), ReversedDate
	// that entry's date.
	ReversesID   int64
	ReversedDate finance.Date
	// BillingMethod is how a transfer was paid (pix, ted, ...).
	BillingMethod string
}

// Signed is the entry's amount as the owner sees it: positive for a
// credit, negative for a debit and for a transfer.
func (e Entry) Signed() int64 {
	if e.Type == finance.Debit || e.Type == finance.Transfer {
		return -e.Cents
	}
	return e.Cents
}

// Kind is the section an entry belongs to by what it is: a transfer, the
// advance or the recovery of a guaranteed rent, a credit (income) or a
// debit (deduction). A reversal belongs where the entry it reverses does
// (its sides are swapped back to tell), with the opposite sign.
func (e Entry) Kind() Section {
	t := e.Type
	if e.Mode == finance.ModeChargeback {
		switch t {
		case finance.Debit:
			t = finance.Credit
		case finance.Credit:
			t = finance.Debit
		}
	}
	switch {
	case t == finance.Transfer:
		return Transfers
	case e.Mode == finance.ModeGuaranteedRent || e.Guaranteed:
		return Guarantee
	case t == finance.Credit:
		return Income
	}
	return Deductions
}

// Input is what a statement is built from.
type Input struct {
	Month finance.Month
	// Opening is the balance the owner's previous statement closed with
	// (for a first statement, the balance of the owner's entries before
	// it).
	Opening int64
	// Entries are the owner's entries dated in Month not stated before.
	Entries []Entry
	// Late are the owner's entries dated before Month and stated in no
	// statement: written after their month was closed.
	Late []Entry
	// Payee is where the owner is paid, shown on the transfers.
	Payee Payee
}

// Line is one line of a statement.
type Line struct {
	TransactionID int64
	// Section is where the line is shown; Kind what the entry is (the same
	// but for an adjustment, whose Kind is the section it corrects).
	Section Section
	Kind    Section
	Date    finance.Date
	// Description is the entry's, "Estorno: " before it for a reversal.
	Description string
	Cents       int64 // signed as the owner sees it
	ContractID  int64
	BuildingID  int64
	InvoiceID   int64
	ItemID      int64
	ItemType    string
	// CorrectsMonth is the closed month an adjustment corrects; meaningful
	// only when Section is Adjustments.
	CorrectsMonth finance.Month
	Hidden        bool
	// Destination and BillingMethod say where and how a transfer was paid.
	Destination   string
	BillingMethod string
}

// IsAdjustment reports whether the line corrects a closed month.
func (l Line) IsAdjustment() bool { return l.Section == Adjustments }

// Totals are a statement's sums: the shown lines by section, and the
// hidden lines apart.
type Totals struct {
	Income      int64
	Deductions  int64
	Guarantee   int64
	Transfers   int64
	Adjustments int64
	Shown       int   // lines shown
	HiddenCount int   // lines left out (owner_report false)
	HiddenCents int64 // their sum
}

// Of is the total of section s.
func (t Totals) Of(s Section) int64 {
	switch s {
	case Income:
		return t.Income
	case Deductions:
		return t.Deductions
	case Guarantee:
		return t.Guarantee
	case Transfers:
		return t.Transfers
	}
	return t.Adjustments
}

// Movement is the month's change of balance: every section and the hidden
// lines.
func (t Totals) Movement() int64 {
	return t.Income + t.Deductions + t.Guarantee + t.Transfers + t.Adjustments + t.HiddenCents
}

func (t *Totals) add(l Line) {
	if l.Hidden {
		t.HiddenCount++
		t.HiddenCents += l.Cents
		return
	}
	t.Shown++
	switch l.Section {
	case Income:
		t.Income += l.Cents
	case Deductions:
		t.Deductions += l.Cents
	case Guarantee:
		t.Guarantee += l.Cents
	case Transfers:
		t.Transfers += l.Cents
	default:
		t.Adjustments += l.Cents
	}
}

// Statement is an owner's statement of a month.
type Statement struct {
	Month   finance.Month
	Opening int64
	Closing int64
	// Lines are every line, hidden ones included, in the order shown:
	// by section, then date and entry.
	Lines  []Line
	Totals Totals
}

// Build makes the statement of in.Month. Every entry of in.Entries and
// in.Late gives one line of its signed amount: an entry dated in the month
// goes to its Kind's section, except a reversal of an entry dated in an
// earlier month, which is an adjustment correcting that month; a late entry
// is an adjustment correcting its own month. Closing is Opening plus every
// line.
func Build(in Input) Statement {
	s := Statement{Month: in.Month, Opening: in.Opening, Lines: make([]Line, 0, len(in.Entries)+len(in.Late))}
	first := in.Month.First()
	for _, e := range in.Entries {
		l := lineOf(e, in.Payee)
		if e.ReversesID != 0 && !e.ReversedDate.IsZero() && e.ReversedDate.Before(first) {
			l.Section, l.CorrectsMonth = Adjustments, finance.MonthOf(e.ReversedDate)
		}
		s.Lines = append(s.Lines, l)
	}
	for _, e := range in.Late {
		l := lineOf(e, in.Payee)
		l.Section, l.CorrectsMonth = Adjustments, finance.MonthOf(e.Date)
		s.Lines = append(s.Lines, l)
	}
	slices.SortStableFunc(s.Lines, compareLines)
	for _, l := range s.Lines {
		s.Totals.add(l)
	}
	s.Closing = s.Opening + s.Totals.Movement()
	return s
}

// lineOf is an entry's line in its Kind's section.
func lineOf(e Entry, payee Payee) Line {
	kind := e.Kind()
	l := Line{TransactionID: e.ID, Section: kind, Kind: kind, Date: e.Date, Description: e.Description,
		Cents: e.Signed(), ContractID: e.ContractID, BuildingID: e.BuildingID, InvoiceID: e.InvoiceID,
		ItemID: e.ItemID, ItemType: e.ItemType, Hidden: e.Hidden, BillingMethod: e.BillingMethod}
	if e.Mode == finance.ModeChargeback {
		l.Description = "Estorno: " + e.Description
	}
	if kind == Transfers {
		l.Destination = payee.Destination(e.BillingMethod)
	}
	return l
}

// compareLines orders lines by section, an adjustment's corrected month,
// date and entry.
func compareLines(a, b Line) int {
	return cmp.Or(
		cmp.Compare(slices.Index(Sections, a.Section), slices.Index(Sections, b.Section)),
		cmp.Compare(a.CorrectsMonth, b.CorrectsMonth),
		a.Date.Compare(b.Date),
		cmp.Compare(a.TransactionID, b.TransactionID))
}

// Shown are the lines the owner sees.
func (s Statement) Shown() []Line {
	out := make([]Line, 0, s.Totals.Shown)
	for _, l := range s.Lines {
		if !l.Hidden {
			out = append(out, l)
		}
	}
	return out
}

// Group is the shown lines of one building and contract of the owner,
// with their totals (a line naming neither is in the group of 0 and 0).
type Group struct {
	BuildingID int64
	ContractID int64
	Lines      []Line
	Totals     Totals
}

// Groups are the shown lines per building and contract, in the order of
// the building's id, then the contract's; within a group, as in Lines.
func (s Statement) Groups() []Group {
	var groups []Group
	index := map[[2]int64]int{}
	for _, l := range s.Shown() {
		key := [2]int64{l.BuildingID, l.ContractID}
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, Group{BuildingID: l.BuildingID, ContractID: l.ContractID})
		}
		groups[i].Lines = append(groups[i].Lines, l)
		groups[i].Totals.add(l)
	}
	slices.SortStableFunc(groups, func(a, b Group) int {
		return cmp.Or(cmp.Compare(a.BuildingID, b.BuildingID), cmp.Compare(a.ContractID, b.ContractID))
	})
	return groups
}
