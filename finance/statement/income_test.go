package statement

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/finance"
)

// incomeLine is a shown line of owner A's statement of month (YYYY-MM),
// business 1, contract 1: its section is kind's, or adjustments when
// corrects (YYYY-MM) is given.
func incomeLine(month string, kind Section, itemType string, cents int64, corrects string) IncomeLine {
	l := IncomeLine{Month: mustMonth(month), BusinessID: 1,
		Line: Line{Section: kind, Kind: kind, ItemType: itemType, Cents: cents, ContractID: 1}}
	if corrects != "" {
		l.Section, l.CorrectsMonth = Adjustments, mustMonth(corrects)
	}
	return l
}

func mustMonth(s string) finance.Month {
	m, err := finance.ParseMonth(s)
	if err != nil {
		panic(err)
	}
	return m
}

// incomeText writes a report as one line per contract and month with a
// figure, then the year: "b/c YYYY-MM gross fee withheld net".
func incomeText(r IncomeYear) string {
	var b strings.Builder
	for _, c := range r.Contracts {
		for i, m := range c.Months {
			if !m.IsZero() {
				fmt.Fprintf(&b, "%d/%d %s %d %d %d %d\n", c.BusinessID, c.ContractID, finance.NewMonth(r.Year, time.Month(i+1)),
					m.Gross, m.AdminFee, m.Withheld, m.Net())
			}
		}
		t := c.Total
		fmt.Fprintf(&b, "%d/%d year %d %d %d %d\n", c.BusinessID, c.ContractID, t.Gross, t.AdminFee, t.Withheld, t.Net())
	}
	t := r.Total
	fmt.Fprintf(&b, "total %d %d %d %d; %d lines", t.Gross, t.AdminFee, t.Withheld, t.Net(), r.Lines)
	return b.String()
}

// workedMarch is owner A's statement of March 2024 in docs/ledger.md's
// worked month, as the income report reads it.
func workedMarch() []IncomeLine {
	return []IncomeLine{
		incomeLine("2024-03", Income, "rent", 120000, ""),           // Aluguel
		incomeLine("2024-03", Income, "default", 21000, ""),         // Condomínio
		incomeLine("2024-03", Income, "fee", 2820, ""),              // Multa por atraso
		incomeLine("2024-03", Income, "fee", 705, ""),               // Juros de mora (15 dias)
		incomeLine("2024-03", Deductions, "default", -15000, ""),    // Reparo hidráulico
		incomeLine("2024-03", Deductions, "commission", -12000, ""), // Taxa de administração
		incomeLine("2024-03", Guarantee, "rent", 129000, ""),        // Repasse garantido
		incomeLine("2024-03", Guarantee, "rent", -129000, ""),       // Compensação de repasse garantido
		incomeLine("2024-03", Transfers, "", -129000, ""),
		incomeLine("2024-03", Transfers, "", -3525, ""),
	}
}

// workedApril is owner A's April 2024: the IPTU written late and the
// payment undone, all adjustments of March.
func workedApril() []IncomeLine {
	return []IncomeLine{
		incomeLine("2024-04", Deductions, "iptu", -8000, "2024-03"),
		incomeLine("2024-04", Income, "rent", -120000, "2024-03"),
		incomeLine("2024-04", Income, "default", -21000, "2024-03"),
		incomeLine("2024-04", Deductions, "commission", 12000, "2024-03"),
		incomeLine("2024-04", Income, "fee", -2820, "2024-03"),
		incomeLine("2024-04", Income, "fee", -705, "2024-03"),
		incomeLine("2024-04", Guarantee, "rent", 129000, "2024-03"),
	}
}

func TestBuildIncome(t *testing.T) {
	t.Parallel()
	hidden := incomeLine("2024-05", Deductions, "commission", -5000, "")
	hidden.Hidden = true
	otherContract := incomeLine("2024-05", Income, "rent", 90000, "")
	otherContract.ContractID = 2
	otherBusiness := incomeLine("2024-05", Income, "rent", 30000, "")
	otherBusiness.BusinessID, otherBusiness.ContractID = 2, 7
	noContract := incomeLine("2024-06", Deductions, "single_commission", -40000, "")
	noContract.ContractID = 0

	for _, c := range []struct {
		name  string
		year  int
		lines []IncomeLine
		want  string
	}{
		{"the worked March: rent with its late fee and interest, the fee; no condominium, repair, guarantee or transfer", 2024,
			workedMarch(), `1/1 2024-03 123525 12000 0 111525
1/1 year 123525 12000 0 111525
total 123525 12000 0 111525; 4 lines`},
		{"April's adjustments count in March, which they cancel: nothing received", 2024,
			append(workedMarch(), workedApril()...), `total 0 0 0 0; 8 lines`},
		{"a month of rent, fee and IR withheld by a tenant company", 2024, []IncomeLine{
			incomeLine("2024-01", Income, "rent", 1000000, ""),
			incomeLine("2024-01", Deductions, "commission", -100000, ""),
			incomeLine("2024-01", Deductions, "duty", -15000, ""),
		}, `1/1 2024-01 1000000 100000 15000 885000
1/1 year 1000000 100000 15000 885000
total 1000000 100000 15000 885000; 3 lines`},
		{"a reversal within the month nets there; a punctuality discount borne by the owner lowers the gross", 2024, []IncomeLine{
			incomeLine("2024-02", Income, "rent", 120000, ""),
			incomeLine("2024-02", Income, "rent", -120000, ""), // its reversal, the same month: no adjustment
			incomeLine("2024-02", Income, "rent", 120000, ""),  // paid again
			incomeLine("2024-02", Deductions, "discount", -6000, ""),
			incomeLine("2024-02", Deductions, "duty", -1800, ""),
			incomeLine("2024-02", Income, "duty", 1800, ""), // the tax refunded: nothing withheld
		}, `1/1 2024-02 114000 0 0 114000
1/1 year 114000 0 0 114000
total 114000 0 0 114000; 6 lines`},
		{"an entry written after its month was closed counts in its own month", 2024, []IncomeLine{
			incomeLine("2024-07", Income, "rent", 50000, ""),
			incomeLine("2024-08", Income, "fee", 1234, "2024-07"),
			incomeLine("2024-08", Income, "rent", 50000, ""),
		}, `1/1 2024-07 51234 0 0 51234
1/1 2024-08 50000 0 0 50000
1/1 year 101234 0 0 101234
total 101234 0 0 101234; 3 lines`},
		{"January's correction of December counts in the year before; December's own lines are the year's", 2024, []IncomeLine{
			incomeLine("2024-12", Income, "rent", 70000, ""),
			incomeLine("2025-01", Income, "rent", -70000, "2024-12"),
			incomeLine("2025-01", Income, "rent", 70000, ""),
			incomeLine("2024-01", Income, "rent", 5000, "2023-12"),
		}, `total 0 0 0 0; 2 lines`},
		{"the next year reads January's own lines, not its correction of December", 2025, []IncomeLine{
			incomeLine("2024-12", Income, "rent", 70000, ""),
			incomeLine("2025-01", Income, "rent", -70000, "2024-12"),
			incomeLine("2025-01", Income, "rent", 70000, ""),
		}, `1/1 2025-01 70000 0 0 70000
1/1 year 70000 0 0 70000
total 70000 0 0 70000; 1 lines`},
		{"a hidden line is left out; contracts by business, then contract; lines without a contract apart", 2024, []IncomeLine{
			noContract, otherBusiness, otherContract, hidden,
			incomeLine("2024-05", Income, "rent", 120000, ""),
			incomeLine("2024-05", Deductions, "commission", -12000, ""),
		}, `1/0 2024-06 0 40000 0 -40000
1/0 year 0 40000 0 -40000
1/1 2024-05 120000 12000 0 108000
1/1 year 120000 12000 0 108000
1/2 2024-05 90000 0 0 90000
1/2 year 90000 0 0 90000
2/7 2024-05 30000 0 0 30000
2/7 year 30000 0 0 30000
total 240000 52000 0 188000; 5 lines`},
		{"no line", 2024, nil, `total 0 0 0 0; 0 lines`},
	} {
		if got := incomeText(BuildIncome(c.year, c.lines)); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestIncomeFigure(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind     Section
		itemType string
		hidden   bool
		want     Figure
	}{
		{Income, "rent", false, Gross},
		{Income, "fee", false, Gross},
		{Deductions, "discount", false, Gross},
		{Deductions, "rent", false, Gross}, // a rent refunded
		{Deductions, "commission", false, AdminFee},
		{Deductions, "single_commission", false, AdminFee},
		{Deductions, "duty", false, Withheld},
		{Deductions, "default", false, NoFigure}, // a repair, a condominium
		{Income, "default", false, NoFigure},
		{Deductions, "iptu", false, NoFigure},
		{Income, "iptu", false, NoFigure}, // the IPTU the tenant pays: the owner's, not rent
		{Deductions, "tariff", false, NoFigure},
		{Income, "", false, NoFigure}, // an entry without an item
		{Guarantee, "rent", false, NoFigure},
		{Transfers, "rent", false, NoFigure},
		{Income, "rent", true, NoFigure},
		{Deductions, "commission", true, NoFigure},
	} {
		l := incomeLine("2024-03", c.kind, c.itemType, 100, "")
		l.Hidden = c.hidden
		if got := l.Figure(); got != c.want {
			t.Errorf("%s %q hidden %v: figure %d, want %d", c.kind, c.itemType, c.hidden, got, c.want)
		}
	}
}
