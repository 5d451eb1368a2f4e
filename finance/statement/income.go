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
// A line counts by its transaction item's type, with its amount signed as
// the statement states it, whatever its section (a reversal undoes what it
// reverses):
//
//   - gross rent: items of type rent, fee (the late fee and the interest on
//     a rent paid late, taxed with the rent) and discount (a punctuality
//     discount the owner bears lowers what was received);
//   - the administration fee: items of type commission and
//     single_commission (the fee the manager charges for collecting the
//     rent, and the one-off fee for letting the property);
//   - IR withheld: items of type duty (the tax a tenant company withheld).
//
// Everything else is left out: the condominium and the IPTU the tenant
// pays through the rent's invoice are the owner's expenses reimbursed,
// not income; repairs and tariffs are expenses; the guaranteed rent
// advanced and recovered is the business's money (the rent counts when
// the tenant pays it); transfers move the owner's balance, not its
// income; and lines of items the owner's report leaves out (hidden) are
// left out here too.
//
// A line counts in the month the money moved, as the statements date it:
// a line of a month's own statement in that month, an adjustment in the
// month it corrects (a payment undone is taken from the month it was
// made, and an entry written after its month was closed counts in its own
// month). So a payment and its reversal cancel in the month of the
// payment, and a month is never negative because of a later correction;
// the report of a year changes when a later statement corrects one of its
// months, as the DIMOB of that year does.

// Figure is which amount of the income report a line is.
type Figure int

// The figures.
const (
	NoFigure Figure = iota // left out
	Gross                  // gross rent received
	AdminFee               // the administration fee
	Withheld               // IR withheld
)

// The item types of each figure.
var (
	GrossItemTypes    = []finance.TransactionItemType{finance.TxItemRent, finance.TxItemFee, finance.TxItemDiscount}
	AdminFeeItemTypes = []finance.TransactionItemType{finance.TxItemCommission, finance.TxItemSingleCommission}
	WithheldItemTypes = []finance.TransactionItemType{finance.TxItemDuty}
)

// IncomeItemTypes are every item type the report reads.
var IncomeItemTypes = slices.Concat(GrossItemTypes, AdminFeeItemTypes, WithheldItemTypes)

// IncomeLine is a line of a closed statement as the income report reads
// it: the line, and the month and books of the statement that carries it.
type IncomeLine struct {
	Month      finance.Month // the statement's month
	BusinessID int64         // the statement's business (0: none)
	Line
}

// CashMonth is the month the line counts in: the month an adjustment
// corrects, else its statement's.
func (l IncomeLine) CashMonth() finance.Month {
	if l.IsAdjustment() {
		return l.CorrectsMonth
	}
	return l.Month
}

// Figure is which amount the line adds to (NoFigure: none): by its item's
// type, for a shown line of the income or deductions kind.
func (l IncomeLine) Figure() Figure {
	if l.Hidden || (l.Kind != Income && l.Kind != Deductions) {
		return NoFigure
	}
	t := finance.TransactionItemType(l.ItemType)
	switch {
	case slices.Contains(GrossItemTypes, t):
		return Gross
	case slices.Contains(AdminFeeItemTypes, t):
		return AdminFee
	case slices.Contains(WithheldItemTypes, t):
		return Withheld
	}
	return NoFigure
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
func (m *IncomeMonth) add(f Figure, cents int64) {
	switch f {
	case Gross:
		m.Gross += cents
	case AdminFee:
		m.AdminFee -= cents
	case Withheld:
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

// IncomeYear is an owner's income report of a year.
type IncomeYear struct {
	Year      int
	Contracts []IncomeContract // by business, then contract
	Months    [12]IncomeMonth  // every contract's month, added
	Total     IncomeMonth      // the year of every contract
	Lines     int              // the lines counted
}

// BuildIncome makes the income report of year from the lines of an
// owner's closed statements: every line with a figure whose cash month is
// in the year adds its amount to its business and contract's month. A
// contract whose figures are all zero (a payment undone in the month it
// was made) is left out.
func BuildIncome(year int, lines []IncomeLine) IncomeYear {
	r := IncomeYear{Year: year}
	index := map[[2]int64]int{}
	for _, l := range lines {
		f, m := l.Figure(), l.CashMonth()
		if f == NoFigure || m.Year() != year {
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
	return r
}
