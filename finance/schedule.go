package finance

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/shopspring/decimal"
)

// maxInvoices bounds the invoices of one contract: ten thousand is 27
// years of daily invoices or 833 years of monthly ones, so only a typing
// error (a start_at in year 1) reaches it.
const maxInvoices = 10_000

// ScheduleInput is everything ScheduleInvoices reads. It holds plain
// values, so a worker can load it in one transaction and a test can
// write it inline.
type ScheduleInput struct {
	Contract Contract
	// Items are the contract's items. Items of mode commission are splits
	// between parties, never billed, and are ignored here, except an
	// administration fee (ContractItem.Fee): its lines are billed, outside
	// the total, whatever its mode.
	Items []ContractItem
	// Invoices are the invoices the contract already has, in any status.
	// Only those of type contract (or with no type) occupy a slot; one
	// whose contract_id names another contract is ignored.
	Invoices []Invoice
	// RentItemID is the transaction item the rent (or sale installment)
	// line is booked on: the company's item of type rent for the
	// contract's purpose.
	RentItemID int64
	// Until is the last due date to schedule, inclusive.
	Until Date
}

// Schedule is the answer of ScheduleInvoices: the invoices to create, or
// the reason there are none to create.
type Schedule struct {
	Invoices []Invoice  `json:"invoices"`
	Skip     SkipReason `json:"skip,omitempty"`
}

// SkipReason says why a contract is not billed at all.
type SkipReason string

// Reasons a contract yields no invoice.
const (
	SkipNotActive SkipReason = "not_active" // active is pre_reserved or reserved
	SkipSuspended SkipReason = "suspended"  // active or status is suspended
	SkipCanceled  SkipReason = "canceled"   // active or status is canceled
	SkipFinished  SkipReason = "finished"   // active finished, status finished, or terminated without termination_at
)

// skipReason returns why c is not billed, or "" when it is.
func skipReason(c *Contract) SkipReason {
	switch {
	case c.Active == ActiveSuspended || c.Status == StatusSuspended:
		return SkipSuspended
	case c.Active == ActiveCanceled || c.Status == StatusCanceled:
		return SkipCanceled
	case c.Active == ActiveFinished || c.Status == StatusFinished ||
		c.Status == StatusTerminated && c.TerminationAt.IsZero():
		return SkipFinished
	case c.Active != ActiveActive:
		return SkipNotActive
	}
	return ""
}

// ScheduleInvoices returns the invoices the contract should have with a
// due date up to in.Until that it does not have yet, oldest first. It is
// the preview and the generator both: feeding its output back as existing
// invoices yields nothing more. The rules are in docs/finance.md.
// The error is a Problems when the contract or its items are not usable.
func ScheduleInvoices(in ScheduleInput) (Schedule, error) {
	c := &in.Contract
	var ps Problems
	if err := c.Validate(); err != nil {
		ps = append(ps, err.(Problems)...)
	}
	ps = append(ps, validateItems(in.Items)...)
	if in.Until.IsZero() {
		ps.add("until", "required")
	}
	if len(ps) > 0 {
		return Schedule{}, ps
	}
	if r := skipReason(c); r != "" {
		return Schedule{Skip: r}, nil
	}
	var g generator
	g.init(c, in.Items, in.RentItemID)
	taken := takenSlots(in.Invoices, c.ID)
	ends := c.terminationCut()
	var (
		out          []Invoice
		installments []int
	)
	for g.next() {
		if g.due.After(in.Until) {
			break // due dates only go forward
		}
		if !ends.IsZero() && !g.last.end.Before(ends) {
			break // the termination's final invoice bills this one (termination.go)
		}
		if g.n > maxInvoices {
			return Schedule{}, Problems{{Field: "until", Message: fmt.Sprintf(
				"the contract would have more than %d invoices up to %s; check start_at and recurrency", maxInvoices, in.Until)}}
		}
		if taken.covers(g.first.start, g.last.end, g.due) {
			continue
		}
		if out == nil { // room for the rest of the contract, or a year
			n := 12
			if r := c.RecurrencyAmount - g.n + 1; r > 0 && r <= 360 {
				n = r
			}
			out, installments = make([]Invoice, 0, n), make([]int, 0, n)
		}
		out = append(out, g.invoice())
		if msg := withheldPastTotal(&out[len(out)-1]); msg != "" {
			return Schedule{}, Problems{{Field: "items", Message: msg}}
		}
		installments = append(installments, g.n)
	}
	g.describe(out, installments)
	return Schedule{Invoices: out}, nil
}

// period is a billing period, both ends inclusive.
type period struct {
	start, end Date
	partial    bool // shorter than a full period: first or last one
	// cutFrom is, for a full period cut short by end_at, the days of the
	// full period; 0 otherwise.
	cutFrom int
}

func (p period) days() int { return p.start.DaysUntil(p.end) + 1 }

// generator walks the contract's invoices in order: installment number,
// the one or two periods each covers, and its due date.
type generator struct {
	c          Contract
	items      []ContractItem
	rentItemID int64
	rent       decimal.Decimal // full-period rent or sale installment
	dueDay     int
	label      string

	// What a full period bills, computed once per contract: each item's
	// amount, and the total of the last set of items that applied.
	fullItem   []decimal.Decimal
	cacheMask  uint64
	cacheTotal decimal.Decimal
	cacheOK    bool
	lineBuf    []InvoiceItem // backing store the invoices' lines are cut from
	signs      []lineSign    // the fee and withholding items, whose lines are not added to the total (fee.go)

	n           int           // installments produced so far
	cursor      Date          // start of the next period
	boundaryDay int           // day of the month where monthly periods begin
	timing      BillingTiming // billing_timing, or the type's default
	first, last period        // periods of the current installment
	due         Date          // of the current installment
	done        bool
}

// init prepares g to walk the installments of c.
func (g *generator) init(c *Contract, items []ContractItem, rentItemID int64) {
	*g = generator{c: *c, items: items, rentItemID: rentItemID, cursor: c.StartAt, label: typeLabel(c.Type),
		signs: lineSigns(items)}
	g.timing = c.BillingTiming
	if g.timing == "" {
		g.timing = DefaultBillingTiming(c.Type)
	}
	g.dueDay = c.DueDay
	if g.dueDay == 0 {
		g.dueDay = c.DueDate.Day()
	}
	switch c.Modality {
	case ModalityMonthly:
		g.boundaryDay = 1
	case ModalityDueDate:
		g.boundaryDay = g.dueDay
	default:
		g.boundaryDay = c.StartAt.Day()
	}
	g.rent = RoundCents(c.RentAmount())
	if c.Type == ContractSale {
		g.rent = c.Amount.Sub(c.SignalAmount).DivRound(decimal.NewFromInt(int64(c.RecurrencyAmount)), 2)
	}
}

// fullItems computes, on the first invoice built, each item's amount for
// a full period.
func (g *generator) fullItems() {
	g.fullItem = make([]decimal.Decimal, len(g.items))
	for i := range g.items {
		g.fullItem[i] = itemAmount(&g.items[i], g.rent)
	}
}

func typeLabel(t ContractType) string {
	switch t {
	case ContractSeason:
		return "Temporada"
	case ContractSale:
		return "Parcela"
	case ContractSubscription:
		return "Assinatura"
	}
	return "Aluguel"
}

// next advances to the next installment; false when the contract has no more.
func (g *generator) next() bool {
	if g.done || (g.c.RecurrencyAmount > 0 && g.n >= g.c.RecurrencyAmount) {
		return false
	}
	p, ok := g.nextPeriod()
	if !ok {
		return false
	}
	g.first, g.last = p, p
	if g.n == 0 && p.partial && g.c.UnifyFirstInvoice && g.c.Type != ContractSale {
		if q, ok := g.nextPeriod(); ok {
			g.last = q
		}
	}
	g.n++
	g.due = g.dueDate()
	return true
}

// nextPeriod cuts the period that starts at the cursor.
func (g *generator) nextPeriod() (period, bool) {
	start := g.cursor
	if !g.c.EndAt.IsZero() && start.After(g.c.EndAt) {
		g.done = true
		return period{}, false
	}
	var p period
	if g.c.Recurrency == Daily {
		p = period{start: start, end: start}
	} else {
		m := MonthOf(start)
		boundary := dayInMonth(m, g.boundaryDay)
		if !boundary.After(start) {
			boundary = dayInMonth(m.Add(1), g.boundaryDay)
		}
		// A period is full when it starts on a boundary.
		p = period{start: start, end: boundary.AddDays(-1), partial: dayInMonth(m, g.boundaryDay) != start}
	}
	if !g.c.EndAt.IsZero() && p.end.After(g.c.EndAt) {
		if !p.partial {
			p.cutFrom = p.days()
		}
		p.end, p.partial = g.c.EndAt, true
	}
	g.cursor = p.end.AddDays(1)
	return p, true
}

// dueDate is due_date for the first installment. A later one falls on
// the due day of its period's due month (see dueMonth), or of the month
// after the previous installment's due date when that is later: a
// due_date set after the first period moves the whole sequence, and due
// dates never repeat nor go back. With daily recurrence: the period's day
// (pre) or the next day (post), and at least the day after the previous
// due date. A sale's installments are due on their dates, month after
// month (day after day) from due_date: its periods are only a reference,
// and billing_timing does not apply. It reads g.due, still the previous
// installment's.
func (g *generator) dueDate() Date {
	if g.n == 1 {
		return g.c.DueDate
	}
	sale := g.c.Type == ContractSale
	if g.c.Recurrency == Daily {
		d, next := g.first.start, g.due.AddDays(1)
		if g.timing == BillingPost {
			d = d.AddDays(1)
		}
		if sale || d.Before(next) {
			return next
		}
		return d
	}
	m := MonthOf(g.due).Add(1)
	if !sale {
		m = max(m, g.dueMonth())
	}
	return dayInMonth(m, g.dueDay)
}

// dueMonth is the month of the first due day on or after the period's
// first day (pre) or the first day of the period after it (post), for a
// monthly installment after the first, which bills one period starting
// on a boundary. Due day and boundary day are compared as numbers, before
// clamping: a due day of the 30th comes before a boundary day of the
// 31st also in April, where both fall on the 30th, so the due date is
// always the same number of months after the period's start. A period
// cut short by end_at is due when the full period would have been.
func (g *generator) dueMonth() Month {
	m := MonthOf(g.first.start)
	if g.timing == BillingPost {
		m = m.Add(1)
	}
	if g.dueDay < g.boundaryDay {
		m = m.Add(1)
	}
	return m
}

// periodRent is the rent line for one period: the full rent, or the
// prorated rent when the period is partial and the contract proportional
// (or a sale's last installment); full tells which. The rent is the one
// in force on the period's first day (rentOf).
func (g *generator) periodRent(p period) (rent decimal.Decimal, full bool) {
	c := &g.c
	if c.Type == ContractSale {
		if g.n == c.RecurrencyAmount { // the last installment takes the rounding rest
			total := RoundCents(c.Amount.Sub(c.SignalAmount))
			return total.Sub(g.rent.Mul(decimal.NewFromInt(int64(g.n - 1)))), false
		}
		return g.rent, true
	}
	exact, rounded := g.rentOf(p.start)
	if !p.partial || !c.Proportional || c.Recurrency == Daily {
		return rounded, true
	}
	return exact.Mul(decimal.NewFromInt(int64(p.days()))).
		DivRound(decimal.NewFromInt(int64(p.prorateOver())), 2), false
}

// rentOf is the rent of the period starting on d (Contract.RentOn): exact,
// what a partial period is prorated from, and rounded to the cent, what
// a full period bills.
func (g *generator) rentOf(d Date) (exact, rounded decimal.Decimal) {
	if len(g.c.RentHistory) == 0 {
		return g.c.RentAmount(), g.rent
	}
	exact = g.c.RentOn(d)
	return exact, RoundCents(exact)
}

// rentFor makes g.rent the full-period rent of the period starting on d,
// and forgets the items' amounts and the total computed from the rent
// before when it changes. A contract never readjusted keeps the rent
// init set; a sale's installments do not follow the rent.
func (g *generator) rentFor(d Date) {
	if len(g.c.RentHistory) == 0 || g.c.Type == ContractSale {
		return
	}
	if _, r := g.rentOf(d); !r.Equal(g.rent) {
		g.rent, g.fullItem, g.cacheOK = r, nil, false
	}
}

// prorateOver is the days a partial period's rent is a fraction of: the
// days of the full period it was cut from when end_at cut it, otherwise
// the days of the calendar month it starts in. The two differ only when
// a boundary day of 29 to 31 is clamped to a shorter month: 2024-02-29 to
// 2024-03-30 has 31 days, February 29.
func (p period) prorateOver() int {
	if p.cutFrom > 0 {
		return p.cutFrom
	}
	return MonthOf(p.start).Days()
}

// invoice builds the current installment's invoice.
func (g *generator) invoice() Invoice {
	c := &g.c
	g.rentFor(g.first.start)
	if g.fullItem == nil && len(g.items) > 0 {
		g.fullItems()
	}
	lines := g.lines()
	rent, full := g.periodRent(g.first)
	rents := [2]decimal.Decimal{rent}
	// A single full period bills what every full period bills: the items'
	// amounts computed once, and the cached total.
	full = full && g.first == g.last && len(g.items) <= 64
	if g.first != g.last {
		rents[1], _ = g.periodRent(g.last)
		rent = rent.Add(rents[1])
	}
	lines = append(lines, InvoiceItem{ItemID: g.rentItemID, Amount: rent, Description: g.label})
	months := [2]Month{MonthOf(g.first.start), MonthOf(g.last.start)}
	np := 1
	if g.first != g.last {
		np = 2
	}
	var mask uint64
	for i := range g.items {
		it := &g.items[i]
		amount, ok := decimal.Decimal{}, false
		for k := 0; k < np; k++ {
			if !itemApplies(it, months[k]) {
				continue
			}
			a := g.fullItem[i]
			if !full {
				a = itemAmount(it, rents[k])
			}
			if ok {
				amount = amount.Add(a)
			} else {
				amount, ok = a, true
			}
		}
		if !ok {
			continue
		}
		if i < 64 {
			mask |= 1 << i
		}
		lines = append(lines, InvoiceItem{ItemID: it.ItemID, Amount: amount, Description: it.Description})
	}
	var total decimal.Decimal
	if full && g.cacheOK && mask == g.cacheMask {
		total = g.cacheTotal
	} else {
		total = g.total(lines)
		if full {
			g.cacheMask, g.cacheTotal, g.cacheOK = mask, total, true
		}
	}
	return Invoice{
		Type:          InvoiceContract,
		PayerID:       c.TenantID,
		ContractID:    c.ID,
		BusinessID:    c.BusinessID,
		AccountID:     c.AccountID,
		BillingID:     c.BillingID,
		BillingMethod: c.InvoiceMethod(),
		Total:         total,
		Date:          g.first.start,
		DueDate:       g.due,
		Items:         lines,
		PeriodInitial: g.first.start,
		PeriodFinal:   g.last.end,
		LateFee:       c.LateFee,
	}
}

// lines returns an empty slice with room for one invoice's lines, cut
// from a buffer shared by the contract's invoices (its capacity is capped,
// so appending to one invoice's lines never touches another's).
func (g *generator) lines() []InvoiceItem {
	n := 1 + len(g.items)
	if len(g.lineBuf) < n {
		batch := 12
		if r := g.c.RecurrencyAmount - g.n + 1; r > 0 && r < batch {
			batch = r
		}
		g.lineBuf = make([]InvoiceItem, n*batch)
	}
	l := g.lineBuf[:0:n]
	g.lineBuf = g.lineBuf[n:]
	return l
}

// total is what an invoice's lines charge the payer: all of them but
// the administration fees', less the withholdings'.
func (g *generator) total(lines []InvoiceItem) decimal.Decimal {
	if len(g.signs) > 0 {
		return chargedTotal(lines, g.signs)
	}
	return sumLines(lines)
}

func sumLines(lines []InvoiceItem) decimal.Decimal {
	total := lines[0].Amount
	for _, l := range lines[1:] {
		total = total.Add(l.Amount)
	}
	return total
}

// itemApplies reports whether a contract item bills in competence month m.
func itemApplies(it *ContractItem, m Month) bool {
	if !it.Billed() {
		return false // a commission, or a commission base: not a line
	}
	return (it.StartAt.IsZero() || m >= MonthOf(it.StartAt)) && (it.EndAt.IsZero() || m <= MonthOf(it.EndAt))
}

// itemAmount is what an item bills for a period whose rent line is rent:
// its amount, or its percentage of the rent, rounded to the cent.
func itemAmount(it *ContractItem, rent decimal.Decimal) decimal.Decimal {
	if it.CalculateMode == CalculatePercentage {
		return percentOf(rent, it.Percentage)
	}
	return RoundCents(it.Amount)
}

// describe writes each invoice's description, "Aluguel 3/12 -
// 01/03/2024 a 31/03/2024", all into one string.
func (g *generator) describe(out []Invoice, installments []int) {
	if len(out) == 0 {
		return
	}
	buf := make([]byte, 0, len(out)*(len(g.label)+36))
	ends := make([]int, len(out))
	for i := range out {
		buf = append(buf, g.label...)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(installments[i]), 10)
		if g.c.RecurrencyAmount > 0 {
			buf = append(buf, '/')
			buf = strconv.AppendInt(buf, int64(g.c.RecurrencyAmount), 10)
		}
		buf = append(buf, " - "...)
		buf = out[i].PeriodInitial.appendBR(buf)
		if out[i].PeriodFinal != out[i].PeriodInitial {
			buf = append(buf, " a "...)
			buf = out[i].PeriodFinal.appendBR(buf)
		}
		ends[i] = len(buf)
	}
	all, start := string(buf), 0
	for i := range out {
		out[i].Description = all[start:ends[i]]
		start = ends[i]
	}
}

// slots is what the existing invoices occupy: their periods sorted by
// start (with the furthest end reached so far), and the due and
// competence dates of those that have no period.
type slots struct {
	periods []period
	maxEnd  []Date // maxEnd[i] is the latest end among periods[:i+1]
	undated []period
}

func takenSlots(invoices []Invoice, contractID int64) slots {
	var s slots
	if len(invoices) > 0 {
		s.periods = make([]period, 0, len(invoices))
	}
	for i := range invoices {
		inv := &invoices[i]
		if inv.Type != "" && inv.Type != InvoiceContract ||
			inv.ContractID != 0 && contractID != 0 && inv.ContractID != contractID {
			continue
		}
		if inv.PeriodInitial.IsZero() || inv.PeriodFinal.IsZero() {
			// start holds the competence date, end the due date.
			s.undated = append(s.undated, period{start: inv.Date, end: inv.DueDate})
			continue
		}
		s.periods = append(s.periods, period{start: inv.PeriodInitial, end: inv.PeriodFinal})
	}
	slices.SortFunc(s.periods, func(a, b period) int { return a.start.Compare(b.start) })
	s.maxEnd = make([]Date, len(s.periods))
	for i, p := range s.periods {
		s.maxEnd[i] = p.end
		if i > 0 && s.maxEnd[i-1].After(p.end) {
			s.maxEnd[i] = s.maxEnd[i-1]
		}
	}
	return s
}

// covers reports whether an existing invoice's period overlaps
// [start, end] or, for one without a period, whether its competence date
// is start or its due date is due.
func (s slots) covers(start, end, due Date) bool {
	// periods[:i] are those starting on or before end; one of them overlaps
	// when the furthest end among them reaches start.
	i, _ := slices.BinarySearchFunc(s.periods, end, func(p period, d Date) int {
		if p.start.After(d) {
			return 1
		}
		return -1
	})
	if i > 0 && !s.maxEnd[i-1].Before(start) {
		return true
	}
	for _, u := range s.undated {
		if u.start == start || u.end == due {
			return true
		}
	}
	return false
}
