package statement

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/finance"
)

// incomeLine is a line of owner A's statement of month (YYYY-MM),
// business 1, contract 1, declared as figure on day (YYYY-MM-DD): its
// section is kind's, or adjustments when corrects (YYYY-MM) is given.
func incomeLine(month string, kind Section, figure finance.Declared, cents int64, day, corrects string) IncomeLine {
	l := IncomeLine{Month: mustMonth(month), BusinessID: 1, Declared: figure, Day: finance.MustDate(day),
		Line: Line{Section: kind, Kind: kind, Cents: cents, ContractID: 1}}
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

// The figures, short.
const (
	none       = finance.Undeclared
	rent       = finance.DeclaredRent
	commission = finance.DeclaredCommission
	tax        = finance.DeclaredTax
)

// workedMarch is owner A's statement of March 2024 in docs/ledger.md's
// worked month, each line with the figure finance.DeclaredAs gives its
// item (storage reads no line the rule leaves out: they are here to be
// left out again), the payment's on the day the tenant paid.
func workedMarch() []IncomeLine {
	return []IncomeLine{
		incomeLine("2024-03", Income, rent, 120000, "2024-03-25", ""),           // Aluguel
		incomeLine("2024-03", Income, none, 21000, "2024-03-25", ""),            // Condomínio
		incomeLine("2024-03", Income, rent, 2820, "2024-03-25", ""),             // Multa por atraso
		incomeLine("2024-03", Income, rent, 705, "2024-03-25", ""),              // Juros de mora (15 dias)
		incomeLine("2024-03", Deductions, none, -15000, "2024-03-20", ""),       // Reparo hidráulico
		incomeLine("2024-03", Deductions, commission, -12000, "2024-03-25", ""), // Taxa de administração
		incomeLine("2024-03", Guarantee, none, 129000, "2024-03-15", ""),        // Repasse garantido
		incomeLine("2024-03", Guarantee, none, -129000, "2024-03-26", ""),       // Compensação de repasse garantido
		incomeLine("2024-03", Transfers, none, -129000, "2024-03-15", ""),
		incomeLine("2024-03", Transfers, none, -3525, "2024-03-28", ""),
	}
}

// workedApril is owner A's April 2024: the IPTU written late and the
// payment undone, all adjustments of March, the reversals on the day of
// the payment they reverse.
func workedApril() []IncomeLine {
	return []IncomeLine{
		incomeLine("2024-04", Deductions, none, -8000, "2024-03-31", "2024-03"),
		incomeLine("2024-04", Income, rent, -120000, "2024-03-26", "2024-03"),
		incomeLine("2024-04", Income, none, -21000, "2024-03-26", "2024-03"),
		incomeLine("2024-04", Deductions, commission, 12000, "2024-03-26", "2024-03"),
		incomeLine("2024-04", Income, rent, -2820, "2024-03-26", "2024-03"),
		incomeLine("2024-04", Income, rent, -705, "2024-03-26", "2024-03"),
		incomeLine("2024-04", Guarantee, none, 129000, "2024-03-26", "2024-03"),
	}
}

func TestBuildIncome(t *testing.T) {
	t.Parallel()
	hidden := incomeLine("2024-05", Deductions, commission, -5000, "2024-05-10", "")
	hidden.Hidden = true
	otherContract := incomeLine("2024-05", Income, rent, 90000, "2024-05-10", "")
	otherContract.ContractID = 2
	otherBusiness := incomeLine("2024-05", Income, rent, 30000, "2024-05-10", "")
	otherBusiness.BusinessID, otherBusiness.ContractID = 2, 7
	noContract := incomeLine("2024-06", Deductions, commission, -40000, "2024-06-03", "")
	noContract.ContractID = 0
	noDay := incomeLine("2024-05", Income, rent, 1000, "2024-05-10", "")
	noDay.Day = finance.Date{}

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
		{"April's adjustments count on the day of the payment they undo, which they cancel: nothing received", 2024,
			append(workedMarch(), workedApril()...), `total 0 0 0 0; 8 lines`},
		{"a month of rent, fee and IR withheld by a tenant company", 2024, []IncomeLine{
			incomeLine("2024-01", Income, rent, 1000000, "2024-01-10", ""),
			incomeLine("2024-01", Deductions, commission, -100000, "2024-01-10", ""),
			incomeLine("2024-01", Deductions, tax, -15000, "2024-01-10", ""),
		}, `1/1 2024-01 1000000 100000 15000 885000
1/1 year 1000000 100000 15000 885000
total 1000000 100000 15000 885000; 3 lines`},
		{"a reversal within the month nets there; a punctuality discount borne by the owner lowers the gross", 2024, []IncomeLine{
			incomeLine("2024-02", Income, rent, 120000, "2024-02-05", ""),
			incomeLine("2024-02", Income, rent, -120000, "2024-02-05", ""), // its reversal, on the payment's day
			incomeLine("2024-02", Income, rent, 120000, "2024-02-08", ""),  // paid again
			incomeLine("2024-02", Deductions, rent, -6000, "2024-02-08", ""),
			incomeLine("2024-02", Deductions, tax, -1800, "2024-02-08", ""),
			incomeLine("2024-02", Income, tax, 1800, "2024-02-09", ""), // the tax refunded: nothing withheld
		}, `1/1 2024-02 114000 0 0 114000
1/1 year 114000 0 0 114000
total 114000 0 0 114000; 6 lines`},
		{"a line counts on its day: paid on February 29th, credited and stated in March, it is February's", 2024, []IncomeLine{
			incomeLine("2024-03", Income, rent, 120000, "2024-02-29", ""),
			incomeLine("2024-03", Income, rent, 2400, "2024-02-29", ""),
			incomeLine("2024-03", Income, rent, 120000, "2024-03-08", ""),
		}, `1/1 2024-02 122400 0 0 122400
1/1 2024-03 120000 0 0 120000
1/1 year 242400 0 0 242400
total 242400 0 0 242400; 3 lines`},
		{"an entry written after its month was closed counts on its day", 2024, []IncomeLine{
			incomeLine("2024-07", Income, rent, 50000, "2024-07-10", ""),
			incomeLine("2024-08", Income, rent, 1234, "2024-07-31", "2024-07"),
			incomeLine("2024-08", Income, rent, 50000, "2024-08-10", ""),
		}, `1/1 2024-07 51234 0 0 51234
1/1 2024-08 50000 0 0 50000
1/1 year 101234 0 0 101234
total 101234 0 0 101234; 3 lines`},
		{"paid on December 31st, credited and stated in January: the year before's; so is January's correction of December", 2024, []IncomeLine{
			incomeLine("2024-12", Income, rent, 70000, "2024-12-10", ""),
			incomeLine("2025-01", Income, rent, -70000, "2024-12-10", "2024-12"),
			incomeLine("2025-01", Income, rent, 70000, "2024-12-31", ""),
			incomeLine("2025-01", Income, rent, 70000, "2025-01-10", ""),
			incomeLine("2024-01", Income, rent, 5000, "2023-12-28", "2023-12"),
		}, `1/1 2024-12 70000 0 0 70000
1/1 year 70000 0 0 70000
total 70000 0 0 70000; 3 lines`},
		{"the next year reads January's own days only", 2025, []IncomeLine{
			incomeLine("2024-12", Income, rent, 70000, "2024-12-10", ""),
			incomeLine("2025-01", Income, rent, -70000, "2024-12-10", "2024-12"),
			incomeLine("2025-01", Income, rent, 70000, "2024-12-31", ""),
			incomeLine("2025-01", Income, rent, 70000, "2025-01-10", ""),
		}, `1/1 2025-01 70000 0 0 70000
1/1 year 70000 0 0 70000
total 70000 0 0 70000; 1 lines`},
		{"a line the statement hides counts; contracts by business, then contract; lines without a contract apart; " +
			"one without a day is left out", 2024, []IncomeLine{
			noContract, otherBusiness, otherContract, hidden, noDay,
			incomeLine("2024-05", Income, rent, 120000, "2024-05-10", ""),
			incomeLine("2024-05", Deductions, commission, -12000, "2024-05-10", ""),
		}, `1/0 2024-06 0 40000 0 -40000
1/0 year 0 40000 0 -40000
1/1 2024-05 120000 17000 0 103000
1/1 year 120000 17000 0 103000
1/2 2024-05 90000 0 0 90000
1/2 year 90000 0 0 90000
2/7 2024-05 30000 0 0 30000
2/7 year 30000 0 0 30000
total 240000 57000 0 183000; 6 lines`},
		{"no line", 2024, nil, `total 0 0 0 0; 0 lines`},
	} {
		if got := incomeText(BuildIncome(c.year, c.lines)); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// TestBuildIncomeBusinesses: the report adds each business's contracts
// up, month by month and in the year, in the contracts' order (entries of
// no business first, as business 0); a business whose contracts are all
// left out (a payment undone in its month) has none, and the businesses
// add up to the report.
func TestBuildIncomeBusinesses(t *testing.T) {
	t.Parallel()
	line := func(business, contract int64, figure finance.Declared, cents int64, day string) IncomeLine {
		l := incomeLine("2024-05", Income, figure, cents, day, "")
		l.BusinessID, l.ContractID = business, contract
		return l
	}
	r := BuildIncome(2024, []IncomeLine{
		line(2, 7, rent, 30000, "2024-05-10"),
		line(1, 1, rent, 120000, "2024-05-10"),
		line(1, 1, commission, -12000, "2024-05-10"),
		line(1, 2, rent, 90000, "2024-06-10"),
		line(0, 0, commission, -4000, "2024-05-03"),
		line(3, 9, rent, 50000, "2024-05-10"),
		line(3, 9, rent, -50000, "2024-05-10"), // undone in its month: business 3 has nothing
		line(2, 8, tax, -1500, "2024-07-10"),
	})
	var got []string
	var sum IncomeMonth
	for _, b := range r.Businesses {
		var months []string
		for i, m := range b.Months {
			if !m.IsZero() {
				months = append(months, fmt.Sprintf("%02d: %d %d %d", i+1, m.Gross, m.AdminFee, m.Withheld))
			}
		}
		got = append(got, fmt.Sprintf("%d [%s] year %d %d %d", b.BusinessID, strings.Join(months, ", "), b.Total.Gross,
			b.Total.AdminFee, b.Total.Withheld))
		sum = sum.Plus(b.Total)
	}
	want := []string{
		"0 [05: 0 4000 0] year 0 4000 0",
		"1 [05: 120000 12000 0, 06: 90000 0 0] year 210000 12000 0",
		"2 [05: 30000 0 0, 07: 0 0 1500] year 30000 0 1500",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("businesses:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if sum != r.Total {
		t.Errorf("the businesses add up to %+v, the report to %+v", sum, r.Total)
	}
	if r := BuildIncome(2024, nil); r.Businesses != nil {
		t.Errorf("no line: businesses %+v", r.Businesses)
	}
}
