package finance

import (
	"slices"
	"testing"

	"github.com/shopspring/decimal"
)

func TestRentOn(t *testing.T) {
	t.Parallel()
	c := Contract{Amount: dec("1800.00"), CurrentAmount: nullDec("1896.31"), RentHistory: []RentChange{
		{At: MustDate("2027-11-01"), Before: dec("1859.13")}, // out of order: RentOn does not rely on it
		{At: MustDate("2026-11-01"), Before: dec("1800.00")},
	}}
	tests := []struct{ day, want string }{
		{"2025-11-01", "1800.00"},
		{"2026-10-31", "1800.00"},
		{"2026-11-01", "1859.13"}, // the readjustment's day bills the new rent
		{"2027-10-01", "1859.13"},
		{"2027-11-01", "1896.31"}, // from the last readjustment on: the current rent
		{"2030-01-01", "1896.31"},
	}
	for _, tc := range tests {
		if got := c.RentOn(MustDate(tc.day)); got.StringFixed(2) != tc.want {
			t.Errorf("RentOn(%s) = %s, want %s", tc.day, got.StringFixed(2), tc.want)
		}
	}
	if got := (&Contract{Amount: dec("1500.00")}).RentOn(MustDate("2024-01-01")); got.StringFixed(2) != "1500.00" {
		t.Errorf("without history RentOn = %s, want amount 1500.00", got)
	}
}

func nullDec(s string) decimal.NullDecimal { return decimal.NewNullDecimal(dec(s)) }

// TestScheduleBillsTheRentOfEachPeriod: each period bills the rent in
// force on its first day, prorated from it when partial; a percentage
// item follows that rent, a fixed one does not.
func TestScheduleBillsTheRentOfEachPeriod(t *testing.T) {
	t.Parallel()
	reserve := ContractItem{ItemID: 3, Description: "Fundo de reserva", CalculateMode: CalculatePercentage,
		Percentage: dec("5"), PercentageMode: PercentRentalValue}
	condo := ContractItem{ItemID: 2, Description: "Condomínio", CalculateMode: CalculateFixed, Amount: dec("350.00")}
	tests := []struct {
		name   string
		edit   func(*Contract)
		items  []ContractItem
		until  string
		expect []string
	}{
		{
			name: "H1 the partial first month prorated from the rent before the readjustment",
			edit: func(c *Contract) {
				c.RentHistory = []RentChange{{At: MustDate("2024-03-01"), Before: dec("1400.00")}}
			},
			items: []ContractItem{reserve, condo},
			until: "2024-04-30",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 1156.13 [1:767.74 3:38.39 2:350.00]", // 1,400 × 17 / 31
				"2024-02-01..2024-02-29 due 2024-02-05 total 1820.00 [1:1400.00 3:70.00 2:350.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1925.00 [1:1500.00 3:75.00 2:350.00]",
				"2024-04-01..2024-04-30 due 2024-04-05 total 1925.00 [1:1500.00 3:75.00 2:350.00]",
			},
		},
		{
			name: "H2 a unified first invoice whose two periods straddle a readjustment",
			edit: func(c *Contract) {
				c.UnifyFirstInvoice = true
				c.RentHistory = []RentChange{{At: MustDate("2024-02-01"), Before: dec("1400.00")}}
			},
			items: []ContractItem{reserve},
			until: "2024-03-31",
			expect: []string{
				"2024-01-15..2024-02-29 due 2024-01-15 total 2381.13 [1:2267.74 3:113.39]", // 767.74 + 1,500.00; 38.39 + 75.00
				"2024-03-01..2024-03-31 due 2024-03-05 total 1575.00 [1:1500.00 3:75.00]",
			},
		},
		{
			name: "H3 a readjustment dated within a period: that period keeps the rent before",
			edit: func(c *Contract) {
				c.RentHistory = []RentChange{{At: MustDate("2024-03-15"), Before: dec("1400.00")}}
			},
			until: "2024-04-30",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 767.74 [1:767.74]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1400.00 [1:1400.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1400.00 [1:1400.00]",
				"2024-04-01..2024-04-30 due 2024-04-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "H4 three rents: before each readjustment, the rent it found",
			edit: func(c *Contract) {
				c.CurrentAmount = nullDec("1600.00")
				c.RentHistory = []RentChange{{At: MustDate("2024-03-01"), Before: dec("1400.00")}, {At: MustDate("2024-04-01"), Before: dec("1500.00")}}
			},
			until: "2024-04-30",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 767.74 [1:767.74]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1400.00 [1:1400.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1500.00 [1:1500.00]",
				"2024-04-01..2024-04-30 due 2024-04-05 total 1600.00 [1:1600.00]",
			},
		},
		{
			name: "H5 a daily contract: each day its rent",
			edit: func(c *Contract) {
				c.Recurrency, c.StartAt, c.DueDate, c.Amount = Daily, MustDate("2024-01-30"), MustDate("2024-01-30"), dec("200.00")
				c.RentHistory = []RentChange{{At: MustDate("2024-02-01"), Before: dec("180.00")}}
			},
			until: "2024-02-01",
			expect: []string{
				"2024-01-30..2024-01-30 due 2024-01-30 total 180.00 [1:180.00]",
				"2024-01-31..2024-01-31 due 2024-01-31 total 180.00 [1:180.00]",
				"2024-02-01..2024-02-01 due 2024-02-01 total 200.00 [1:200.00]",
			},
		},
		{
			name: "H6 a sale's installments do not follow the rent",
			edit: func(c *Contract) {
				c.Type, c.RecurrencyAmount, c.Amount = ContractSale, 3, dec("3000.00")
				c.RentHistory = []RentChange{{At: MustDate("2024-03-01"), Before: dec("900.00")}}
			},
			until: "2024-03-31",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 1000.00 [1:1000.00]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1000.00 [1:1000.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1000.00 [1:1000.00]",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := rentContract()
			tc.edit(&c)
			got := briefs(schedule(t, c, tc.items, nil, tc.until))
			if !slices.Equal(got, tc.expect) {
				t.Errorf("got\n%s\nwant\n%s", join(got), join(tc.expect))
			}
		})
	}
}

func join(s []string) string {
	out := ""
	for _, l := range s {
		out += "  " + l + "\n"
	}
	return out
}

func TestScheduleRefusesABadRentHistory(t *testing.T) {
	t.Parallel()
	c := rentContract()
	c.RentHistory = []RentChange{{Before: dec("-1.00")}}
	_, err := ScheduleInvoices(ScheduleInput{Contract: c, RentItemID: 1, Until: MustDate("2024-03-31")})
	ps, ok := err.(Problems)
	if !ok {
		t.Fatalf("error %v, want Problems", err)
	}
	for _, field := range []string{"rent_history[0].at", "rent_history[0].before"} {
		if !slices.ContainsFunc(ps, func(p Problem) bool { return p.Field == field }) {
			t.Errorf("problems %v, want one of %s", ps, field)
		}
	}
}

// TestScheduleReadjustedRentExample is docs/finance.md's example of "The
// rent of each period": 1,800.00 from 2025-11-01, readjusted on
// 2026-11-01 to 1,859.13, billed from its start: twelve of 1,800.00, then
// 1,859.13, 23,459.13 in all.
func TestScheduleReadjustedRentExample(t *testing.T) {
	t.Parallel()
	c := rentContract()
	c.StartAt, c.DueDate, c.Amount, c.CurrentAmount = MustDate("2025-11-01"), MustDate("2025-11-05"), dec("1800.00"), nullDec("1859.13")
	c.RentHistory = []RentChange{{At: MustDate("2026-11-01"), Before: dec("1800.00")}}
	invoices := schedule(t, c, nil, nil, "2026-11-30")
	var got, want []string
	sum := decimal.Zero
	for i, inv := range invoices {
		got = append(got, inv.PeriodInitial.String()+" "+inv.Total.StringFixed(2))
		sum = sum.Add(inv.Total)
		amount := "1800.00"
		if i == 12 {
			amount = "1859.13"
		}
		want = append(want, MustDate("2025-11-01").AddMonths(i).String()+" "+amount)
	}
	if len(invoices) != 13 || !slices.Equal(got, want) || sum.StringFixed(2) != "23459.13" {
		t.Errorf("got %v (sum %s), want %v (sum 23459.13)", got, sum.StringFixed(2), want)
	}
}
