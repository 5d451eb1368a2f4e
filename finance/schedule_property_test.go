package finance

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shopspring/decimal"
)

// randomInput draws a contract, items and an until date covering the
// whole space of settings, from a seeded source so failures reproduce.
func randomInput(r *rand.Rand) ScheduleInput {
	pick := func(n int) int { return r.IntN(n) }
	start := MustDate("2020-01-01").AddDays(pick(6 * 365))
	c := Contract{
		ID: int64(pick(1000) + 1), Type: []ContractType{ContractRent, ContractSeason, ContractSale, ContractSubscription}[pick(4)],
		Active: ActiveActive, StartAt: start, Recurrency: Monthly,
		Modality:      []Modality{"", ModalityStart, ModalityDueDate, ModalityMonthly}[pick(4)],
		BillingTiming: []BillingTiming{"", BillingPre, BillingPost}[pick(3)],
		Amount:        decimal.New(int64(pick(1_000_000)+1), -2),
		DueDay:        pick(32), Proportional: pick(2) == 0, UnifyFirstInvoice: pick(2) == 0,
		RecurrencyAmount: []int{0, 1, 2, 12, 30, pick(60)}[pick(6)],
	}
	if pick(10) == 0 {
		c.Recurrency, c.RecurrencyAmount = Daily, pick(40)
	}
	if c.Type == ContractSale && c.RecurrencyAmount == 0 {
		c.RecurrencyAmount = 1 + pick(48)
	}
	c.DueDate = start.AddDays(pick(40))
	if pick(3) == 0 {
		c.EndAt = start.AddDays(pick(3 * 365))
	}
	if pick(4) == 0 {
		c.CurrentAmount = decimal.NewNullDecimal(decimal.New(int64(pick(1_000_000)+1), -3))
	}
	var items []ContractItem
	for range pick(4) {
		it := ContractItem{ItemID: int64(pick(50) + 2), Description: "item", Amount: decimal.New(int64(pick(100_000)), -2)}
		if pick(2) == 0 {
			it.CalculateMode, it.Percentage = CalculatePercentage, decimal.New(int64(pick(2000)), -2)
		}
		if pick(2) == 0 {
			it.StartAt = start.AddDays(pick(400))
		}
		if pick(2) == 0 {
			it.EndAt = start.AddDays(400 + pick(400))
		}
		items = append(items, it)
	}
	return ScheduleInput{Contract: c, Items: items, RentItemID: 1, Until: start.AddDays(pick(4 * 365))}
}

func mustSchedule(t *testing.T, in ScheduleInput) []Invoice {
	t.Helper()
	s, err := ScheduleInvoices(in)
	if err != nil {
		t.Fatalf("contract %+v: %v", in.Contract, err)
	}
	return s.Invoices
}

func TestSchedulePropertyIdempotent(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		in := randomInput(r)
		first := mustSchedule(t, in)
		in.Invoices = first
		if again := mustSchedule(t, in); len(again) != 0 {
			t.Fatalf("case %d: %d invoices more on its own output, first %s\ncontract %+v", i, len(again), brief(again[0]), in.Contract)
		}
	}
}

func TestSchedulePropertyIncrementalEqualsAtOnce(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		in := randomInput(r)
		all := mustSchedule(t, in)
		// Run the nightly way: up to a middle date, then up to the end
		// with what the first run created.
		final := in.Until
		in.Until = in.Contract.StartAt.AddDays(in.Contract.StartAt.DaysUntil(final) / 2)
		part := mustSchedule(t, in)
		in.Until, in.Invoices = final, part
		rest := mustSchedule(t, in)
		// The same invoices in the same order: due dates only go forward.
		got := append(briefs(part), briefs(rest)...)
		want := briefs(all)
		if len(got) != len(want) {
			t.Fatalf("case %d: %d+%d invoices in two runs, %d at once", i, len(part), len(rest), len(all))
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("case %d invoice %d: two runs %s, at once %s", i, k, got[k], want[k])
			}
		}
	}
}

func TestSchedulePropertyTotalsAndPeriods(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 3000; i++ {
		in := randomInput(r)
		invs := mustSchedule(t, in)
		if n := in.Contract.RecurrencyAmount; n > 0 && len(invs) > n {
			t.Fatalf("case %d: %d invoices for recurrency_amount %d", i, len(invs), n)
		}
		for k, inv := range invs {
			var sum decimal.Decimal
			for _, it := range inv.Items {
				sum = sum.Add(it.Amount)
				if it.Amount.Exponent() < -2 && !it.Amount.Equal(it.Amount.Round(2)) {
					t.Fatalf("case %d invoice %d: item amount %s is not in cents", i, k, it.Amount)
				}
			}
			if !sum.Equal(inv.Total) {
				t.Fatalf("case %d invoice %d: items sum to %s, total %s", i, k, sum, inv.Total)
			}
			if inv.PeriodFinal.Before(inv.PeriodInitial) || inv.DueDate.After(in.Until) {
				t.Fatalf("case %d invoice %d: %s", i, k, brief(inv))
			}
			if !in.Contract.EndAt.IsZero() && inv.PeriodFinal.After(in.Contract.EndAt) {
				t.Fatalf("case %d invoice %d: %s beyond end_at %s", i, k, brief(inv), in.Contract.EndAt)
			}
			if k == 0 {
				// Due dates only go forward, so the first invoice is always
				// the first installment.
				if inv.PeriodInitial != in.Contract.StartAt {
					t.Fatalf("case %d: first period starts %s, contract %s", i, inv.PeriodInitial, in.Contract.StartAt)
				}
				continue
			}
			// Periods follow each other without gap or overlap, so no two
			// invoices share a day of their periods.
			if prev := invs[k-1]; inv.PeriodInitial != prev.PeriodFinal.AddDays(1) {
				t.Fatalf("case %d: %s then %s", i, brief(prev), brief(inv))
			}
		}
		if in.Contract.Type == ContractSale && len(invs) == in.Contract.RecurrencyAmount {
			var sum decimal.Decimal
			for _, inv := range invs {
				sum = sum.Add(inv.Items[0].Amount)
			}
			if want := in.Contract.Amount.Sub(in.Contract.SignalAmount); !sum.Equal(want) {
				t.Fatalf("case %d: sale installments sum to %s, want %s", i, sum, want)
			}
		}
	}
}

func TestSchedulePropertySubsetExisting(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 2000; i++ {
		in := randomInput(r)
		all := mustSchedule(t, in)
		var kept []Invoice
		for _, inv := range all {
			if r.IntN(2) == 0 {
				kept = append(kept, inv)
			}
		}
		in.Invoices = kept
		missing := mustSchedule(t, in)
		if len(missing)+len(kept) != len(all) {
			t.Fatalf("case %d: %d kept + %d scheduled != %d", i, len(kept), len(missing), len(all))
		}
		// Existing and new invoices never share a day of their periods.
		union := append(append([]Invoice(nil), kept...), missing...)
		slices.SortFunc(union, func(a, b Invoice) int { return a.PeriodInitial.Compare(b.PeriodInitial) })
		for k := 1; k < len(union); k++ {
			if !union[k].PeriodInitial.After(union[k-1].PeriodFinal) {
				t.Fatalf("case %d: %s overlaps %s", i, brief(union[k-1]), brief(union[k]))
			}
		}
	}
}

// TestSchedulePropertyCompleteUpToUntil: a run up to a date returns
// exactly the invoices a run up to a later date has with a due date up to
// it.
func TestSchedulePropertyCompleteUpToUntil(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 3000; i++ {
		in := randomInput(r)
		got := briefs(mustSchedule(t, in))
		until := in.Until
		in.Until = until.AddDays(400)
		var want []string
		for _, inv := range mustSchedule(t, in) {
			if !inv.DueDate.After(until) {
				want = append(want, brief(inv))
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d up to %s: got\n%v\nwant\n%v\ncontract %+v", i, until, got, want, in.Contract)
		}
	}
}

// TestSchedulePartialNeverAboveFull: a prorated period never bills more
// rent than a full one, for every start day from the 25th on (where the
// boundary days are clamped in short months) over two years, and every
// end_at in the first 70 days.
func TestSchedulePartialNeverAboveFull(t *testing.T) {
	t.Parallel()
	full := decimal.New(300000, -2)
	for start := MustDate("2023-01-25"); start.Before(MustDate("2025-01-01")); start = start.AddDays(1) {
		if start.Day() < 25 {
			continue
		}
		for _, modality := range []Modality{ModalityStart, ModalityDueDate, ModalityMonthly} {
			for days := 0; days < 70; days++ {
				c := Contract{Type: ContractRent, Active: ActiveActive, Recurrency: Monthly, Modality: modality,
					StartAt: start, EndAt: start.AddDays(days), DueDate: start, DueDay: 31, Amount: full, Proportional: true}
				for _, inv := range mustSchedule(t, ScheduleInput{Contract: c, RentItemID: 1, Until: MustDate("2025-12-31")}) {
					if rent := inv.Items[0].Amount; rent.GreaterThan(full) {
						t.Fatalf("%s: %s bills %s, a full period %s", modality, brief(inv), rent, full)
					}
				}
			}
		}
	}
}

// randomDueInput is randomInput pushed to where due dates used to repeat
// or go back: due days and start days of the 28th to the 31st (clamped in
// short months), and a due_date from ten days before start_at to two
// months after it.
func randomDueInput(r *rand.Rand) ScheduleInput {
	in := randomInput(r)
	c := &in.Contract
	c.DueDay = 1 + r.IntN(31)
	if r.IntN(2) == 0 {
		c.DueDay = 28 + r.IntN(4)
	}
	if r.IntN(3) == 0 {
		m := MonthOf(c.StartAt)
		c.StartAt = dayInMonth(m, 28+r.IntN(4))
		in.Until = c.StartAt.AddDays(r.IntN(4 * 365))
	}
	c.DueDate = c.StartAt.AddDays(r.IntN(70) - 10)
	if !c.EndAt.IsZero() && c.EndAt.Before(c.StartAt) {
		c.EndAt = c.StartAt
	}
	return in
}

// TestSchedulePropertyDueDatesIncrease: from the second invoice on, each
// is due in a later month than the one before (a later day for daily
// recurrence), exactly one month (day) after it from the third on, never
// before its period starts (pre) or ends (post); and the schedule fed its
// own output yields nothing more.
func TestSchedulePropertyDueDatesIncrease(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 5000; i++ {
		in := randomDueInput(r)
		c := &in.Contract
		invs := mustSchedule(t, in)
		timing := c.BillingTiming
		if timing == "" {
			timing = DefaultBillingTiming(c.Type)
		}
		if c.Type == ContractSale {
			timing = "" // installments are due on their dates
		}
		for k := 1; k < len(invs); k++ {
			prev, inv := invs[k-1], invs[k]
			step := MonthOf(prev.DueDate).Add(1) == MonthOf(inv.DueDate)
			later := MonthOf(inv.DueDate) > MonthOf(prev.DueDate)
			if c.Recurrency == Daily {
				step, later = prev.DueDate.AddDays(1) == inv.DueDate, inv.DueDate.After(prev.DueDate)
			}
			if !later || (k >= 2 && !step) {
				t.Fatalf("case %d: invoice %d %s after %s\ncontract %+v", i, k+1, brief(inv), brief(prev), *c)
			}
			if timing == BillingPre && inv.DueDate.Before(inv.PeriodInitial) ||
				timing == BillingPost && !inv.DueDate.After(inv.PeriodFinal) {
				t.Fatalf("case %d: invoice %d %s is not %s\ncontract %+v", i, k+1, brief(inv), timing, *c)
			}
		}
		in.Invoices = invs
		if again := mustSchedule(t, in); len(again) != 0 {
			t.Fatalf("case %d: %d invoices more on its own output, first %s\ncontract %+v", i, len(again), brief(again[0]), *c)
		}
	}
}
