package statement

import (
	"cmp"
	"slices"

	"github.com/propfin/propfin/finance"
)

// The owner's income report of a calendar year (informe de rendimentos),
// read from the closed statements: per contract, month by month, the gross
// rent received, the administration fee taken from it and the income tax
// withheld, and the net (docs/ledger.md, "Income reports").
//
// Which lines count, as which figure and on which day is the rule the
// DIMOB declares by too (finance.DeclaredAs, finance.DeclaredModes;
// docs/ledger.md, "Rent income: one rule for the informe and the DIMOB"),
// so that the owner's report and the company's DIMOB give the same amounts
// for the same owner, contract and month: storage reads the lines of the
// closed statements whose entries the rule declares, each with its figure
// and its day (the day the tenant paid; a payment undone and its reversal
// on the payment's own date, so that they cancel in its month), and
// BuildIncome adds them up. A line's amount is signed as the statement
// states it: an owner's credit adds to the rent, a debit is a fee or a
// tax taken, and a reversal undoes what it reverses. The report of a year
// changes when a later statement corrects one of its months, as the DIMOB
// of that year does.

// IncomeLine is a line of a closed statement as the income report reads
// it: the line, and the month and books of the statement that carries it,
// with what the rule declares of it.
type IncomeLine struct {
	Month      finance.Month // the statement's month
	BusinessID int64         // the statement's business (0: none)
	Line
	// Declared is the figure the line adds to (finance.DeclaredAs of its
	// entry's item); Day is the day it counts on.
	Declared finance.Declared
	Day      finance.Date
}

// IncomeMonth is a month's figures in cents: the gross rent received
// (signed as the owner's statement has it: a credit positive) and the fee
// and the tax taken from it (positive when taken).
type IncomeMonth struct {
	Gross    int64
	AdminFee int64
	Withheld int64
}

// Net is the gross less the fee and the tax withheld.
func (m IncomeMonth) Net() int64 { return m.Gross - m.AdminFee - m.Withheld }

// IsZero reports whether every figure is zero.
func (m IncomeMonth) IsZero() bool { return m == IncomeMonth{} }

// Plus is the month's figures added to o's.
func (m IncomeMonth) Plus(o IncomeMonth) IncomeMonth {
	return IncomeMonth{Gross: m.Gross + o.Gross, AdminFee: m.AdminFee + o.AdminFee, Withheld: m.Withheld + o.Withheld}
}

// add adds a line of figure f; a debit (negative) is a fee or a tax taken.
func (m *IncomeMonth) add(f finance.Declared, cents int64) {
	switch f {
	case finance.DeclaredRent:
		m.Gross += cents
	case finance.DeclaredCommission:
		m.AdminFee -= cents
	case finance.DeclaredTax:
		m.Withheld -= cents
	}
}

// IncomeContract is one contract of the owner in the year, in the books
// of one business: January to December, and the year.
type IncomeContract struct {
	BusinessID int64
	ContractID int64 // 0: the lines that name no contract
	Months     [12]IncomeMonth
	Total      IncomeMonth
}

// IncomeBusiness is what an owner received in the year through one
// business (the paying source, whose books hold the contracts; 0: entries
// of no business): its contracts' months, added, and their year.
type IncomeBusiness struct {
	BusinessID int64
	Months     [12]IncomeMonth
	Total      IncomeMonth
}

// IncomeYear is an owner's income report of a year.
type IncomeYear struct {
	Year       int
	Contracts  []IncomeContract // by business, then contract
	Businesses []IncomeBusiness // the businesses of Contracts, in their order
	Months     [12]IncomeMonth  // every contract's month, added
	Total      IncomeMonth      // the year of every contract
	Lines      int              // the lines counted
}

// BuildIncome makes the income report of year from the lines of an
// owner's closed statements: every declared line whose day is in the year
// adds its amount to its business and contract's month, and so to its
// business's. A contract whose figures are all zero (a payment undone in
// the month it was made) is left out, and a business without another.
func BuildIncome(year int, lines []IncomeLine) IncomeYear {
	r := IncomeYear{Year: year}
	index := map[[2]int64]int{}
	for _, l := range lines {
		f, m := l.Declared, finance.MonthOf(l.Day)
		if f == finance.Undeclared || l.Day.IsZero() || m.Year() != year {
			continue
		}
		key := [2]int64{l.BusinessID, l.ContractID}
		i, ok := index[key]
		if !ok {
			i = len(r.Contracts)
			index[key] = i
			r.Contracts = append(r.Contracts, IncomeContract{BusinessID: l.BusinessID, ContractID: l.ContractID})
		}
		r.Contracts[i].Months[m.Month()-1].add(f, l.Cents)
		r.Lines++
	}
	kept := r.Contracts[:0]
	for _, c := range r.Contracts {
		for i, m := range c.Months {
			c.Total = c.Total.Plus(m)
			r.Months[i] = r.Months[i].Plus(m)
		}
		if c.Months != [12]IncomeMonth{} {
			kept = append(kept, c)
		}
		r.Total = r.Total.Plus(c.Total)
	}
	r.Contracts = kept
	slices.SortFunc(r.Contracts, func(a, b IncomeContract) int {
		return cmp.Or(cmp.Compare(a.BusinessID, b.BusinessID), cmp.Compare(a.ContractID, b.ContractID))
	})
	for _, c := range r.Contracts {
		if n := len(r.Businesses); n == 0 || r.Businesses[n-1].BusinessID != c.BusinessID {
			r.Businesses = append(r.Businesses, IncomeBusiness{BusinessID: c.BusinessID})
		}
		b := &r.Businesses[len(r.Businesses)-1]
		for i, m := range c.Months {
			b.Months[i] = b.Months[i].Plus(m)
		}
		b.Total = b.Total.Plus(c.Total)
	}
	return r
}
