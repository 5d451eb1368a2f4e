package finance

import (
	"fmt"
	"slices"

	"github.com/shopspring/decimal"
)

// The termination of a lease before, at or after its term (docs/finance.md,
// "Termination"): the fine of Lei 8.245/91 art. 4, which of the
// contract's invoices are canceled and kept, and the final invoice (the
// last period's rent pro rata, the fine, less the deposit). Terminate is
// the preview and the run both; the caller writes what it answers.

// Requester is who asks for the termination.
type Requester string

// Requesters.
const (
	// RequesterTenant: the tenant returns the property (art. 4: before the
	// term, paying the fine in proportion to the term not served).
	RequesterTenant Requester = "tenant"
	// RequesterOwner: the owner asks for it. Art. 4 does not let the owner
	// take the property back during the term (only art. 9's cases, or at
	// its end): the request is recorded and the tenant owes no fine.
	RequesterOwner Requester = "owner"
	// RequesterMutual: both agree (distrato); the contract's fine is for a
	// tenant's early return, so none is charged.
	RequesterMutual Requester = "mutual"
)

// Valid reports whether r is one of the requesters.
func (r Requester) Valid() bool {
	return r == RequesterTenant || r == RequesterOwner || r == RequesterMutual
}

// FineReason says why a termination's fine is what it is, the first of
// these that holds.
type FineReason string

// Fine reasons, in the order they are decided.
const (
	FineAfterTerm      FineReason = "after_term"      // termination_at on or after the term's last day: the term was served
	FineNoTerm         FineReason = "no_term"         // the contract has no term (no end_at nor recurrency_amount): art. 6, no fine
	FineOwnerRequested FineReason = "owner_requested" // the owner asked: no fine for the tenant
	FineMutual         FineReason = "mutual"          // both agreed: no fine
	FineExempt         FineReason = "exempt"          // termination_fee_exemption, or the request's exemption (art. 4, sole paragraph)
	FineNone           FineReason = "no_fine"         // the contract sets no fine (termination_fee nor termination_fee_months)
	FineEarlyReturn    FineReason = "early_return"    // the tenant leaves before the term: the fine, reduced
)

// Fine is a termination's fine: the contract's fine (Base), the days of
// the term and those not served after termination_at, and what is
// charged, Base × RemainingDays / TermDays rounded once to the cent (zero
// unless the reason is early_return).
type Fine struct {
	Reason        FineReason      `json:"reason"`
	Base          decimal.Decimal `json:"base"`
	TermDays      int             `json:"term_days"`
	RemainingDays int             `json:"remaining_days"`
	Amount        decimal.Decimal `json:"amount"`
}

// TermEnd is the last day of the contract's term: end_at; without it, for
// a contract with recurrency_amount, start_at plus that many months (days
// for a daily one) less a day; zero when the term is undetermined.
func (c *Contract) TermEnd() Date {
	switch {
	case !c.EndAt.IsZero():
		return c.EndAt
	case c.RecurrencyAmount <= 0 || c.StartAt.IsZero():
		return Date{}
	case c.Recurrency == Daily:
		return c.StartAt.AddDays(c.RecurrencyAmount - 1)
	}
	return c.StartAt.AddMonths(c.RecurrencyAmount).AddDays(-1)
}

// FineBase is the contract's fine before its reduction: termination_fee
// when set and above zero, else termination_fee_months × the current rent
// (RentAmount), else zero.
func (c *Contract) FineBase() decimal.Decimal {
	if c.TerminationFee.Valid && c.TerminationFee.Decimal.IsPositive() {
		return RoundCents(c.TerminationFee.Decimal)
	}
	if c.TerminationFeeMonths > 0 {
		return RoundCents(c.RentAmount()).Mul(decimal.NewFromInt(int64(c.TerminationFeeMonths)))
	}
	return decimal.Zero
}

// TerminationFine is the fine of a termination on at asked for by who,
// exempt when the request says so. The term counts from start_at to
// TermEnd, both inclusive; at is the lease's last day, so the days not
// served are those after it, up to the term's end. The reduction is by
// days, as courts compute art. 4's proportion: Base × remaining / term,
// rounded once.
func TerminationFine(c *Contract, at Date, who Requester, exempt bool) Fine {
	f := Fine{Base: c.FineBase(), Amount: decimal.Zero}
	end := c.TermEnd()
	if !end.IsZero() {
		f.TermDays = c.StartAt.DaysUntil(end) + 1
		if at.Before(end) {
			f.RemainingDays = at.DaysUntil(end)
		}
	}
	switch {
	case !end.IsZero() && !at.Before(end):
		f.Reason = FineAfterTerm
	case end.IsZero():
		f.Reason = FineNoTerm
	case who == RequesterOwner:
		f.Reason = FineOwnerRequested
	case who == RequesterMutual:
		f.Reason = FineMutual
	case exempt || c.TerminationFeeExemption:
		f.Reason = FineExempt
	case !f.Base.IsPositive():
		f.Reason = FineNone
	default:
		f.Reason = FineEarlyReturn
		f.Amount = f.Base.Mul(decimal.NewFromInt(int64(f.RemainingDays))).
			DivRound(decimal.NewFromInt(int64(f.TermDays)), 2)
	}
	return f
}

// TerminationInvoice is an invoice of type contract of the contract, as
// the termination reads it. InBatch: its boleto is in a collection batch
// not reverted (the bank holds it).
type TerminationInvoice struct {
	ID            int64           `json:"id"`
	Status        InvoiceStatus   `json:"status"`
	Paid          bool            `json:"paid"`
	Total         decimal.Decimal `json:"total"`
	Date          Date            `json:"date"`
	DueDate       Date            `json:"due_date"`
	PeriodInitial Date            `json:"period_initial"`
	PeriodFinal   Date            `json:"period_final"`
	InBatch       bool            `json:"in_batch"`
}

// TerminationInput is everything Terminate reads.
type TerminationInput struct {
	Contract Contract
	Items    []ContractItem
	// Invoices are the contract's invoices of type contract, in any status.
	Invoices []TerminationInvoice
	// RentItemID is the item the schedule bills the rent on.
	RentItemID int64
	// At is termination_at, the lease's last day.
	At        Date
	Requester Requester
	Exemption bool
	// Today is the company's date: the status, and the final invoice's due
	// date, depend on it.
	Today Date
	// FineItem and DepositItem are the items the fine and the deposit's
	// deduction are booked as; nil when the company has none.
	FineItem, DepositItem *TransactionItem
	// Parties are the final invoice's payer, business, building and the
	// building's owners: whom the fine is shared among. The contract's
	// billing parties (tenant, business, account, billing method) are the
	// caller's to check, as for the generation of its invoices.
	Parties Parties
}

// Termination is what a termination does.
type Termination struct {
	At Date `json:"termination_at"`
	// Status is the contract's status: terminating up to At, terminated
	// after it.
	Status ContractStatus `json:"status"`
	Fine   Fine           `json:"fine"`
	// FineOwners is each owner's share of the fine as its payment would
	// credit it (the fine item's credit party, split by the building's
	// shares); empty when the fine is not the owners'.
	FineOwners []OwnerAmount `json:"fine_owners"`
	// Canceled are the unpaid invoices whose period is not wholly served
	// (it ends after At; without a period, due after At).
	Canceled []int64 `json:"canceled"`
	// Open are the invoices kept that are still owed (unpaid, overdue, in
	// protest, partially paid).
	Open []int64 `json:"open"`
	// PaidAfter are the paid invoices of a period that starts after At:
	// their payment is owed back to the tenant.
	PaidAfter []int64 `json:"paid_after"`
	// Unserved is the part after At of a kept invoice whose period holds At
	// (paid for the whole period); nil when there is none.
	Unserved *Unserved `json:"unserved"`
	// Final is the final invoice (type single, the contract's): the last
	// period's rent pro rata to At with the charges the contract bills
	// with it, the fine, less the deposit; nil when it would have no line.
	Final   *Invoice `json:"final"`
	Deposit Deposit  `json:"deposit"`
	// RefundDue is what is owed back to the tenant: the deposit not
	// deducted, the unserved part of a paid invoice, and the paid invoices
	// of periods after At.
	RefundDue decimal.Decimal `json:"refund_due"`
}

// Unserved is the part of an invoice's period after the termination: what
// the invoice bills for the whole period less what it bills up to At.
type Unserved struct {
	InvoiceID int64           `json:"invoice_id"`
	Amount    decimal.Decimal `json:"amount"`
}

// Deposit is the contract's deposit (signal_amount): held, deducted from
// the final invoice (never more than it charges) and returned.
type Deposit struct {
	Held     decimal.Decimal `json:"held"`
	Deducted decimal.Decimal `json:"deducted"`
	Returned decimal.Decimal `json:"returned"`
}

// Terminate works out the termination of in.Contract on in.At. Every
// problem of the input is answered at once as Problems, named by the
// request's or the contract's fields.
func Terminate(in TerminationInput) (Termination, error) {
	c := &in.Contract
	var ps Problems
	ps.terminable(c, in.At, in.Requester)
	if err := c.Validate(); err != nil {
		ps = append(ps, err.(Problems)...)
	}
	ps = append(ps, validateItems(in.Items)...)
	if c.TerminationFee.Valid && c.TerminationFee.Decimal.IsNegative() {
		ps.add("termination_fee", "must not be negative; got %s", c.TerminationFee.Decimal)
	}
	if c.TerminationFeeMonths < 0 {
		ps.add("termination_fee_months", "must not be negative; got %d", c.TerminationFeeMonths)
	}
	if len(ps) > 0 {
		return Termination{}, ps
	}
	t := Termination{At: in.At, Status: StatusTerminating, Fine: TerminationFine(c, in.At, in.Requester, in.Exemption),
		FineOwners: []OwnerAmount{}, Canceled: []int64{}, Open: []int64{}, PaidAfter: []int64{}}
	if in.At.Before(in.Today) {
		t.Status = StatusTerminated
	}
	t.sortInvoices(in.Invoices, &ps)
	lines, start, err := t.lastPeriod(&in)
	if err != nil {
		return Termination{}, err
	}
	lines = t.fineLine(&in, lines, &ps)
	t.deduct(&in, &lines, &ps)
	if len(lines) > 0 {
		t.Final = finalInvoice(&in, lines, start)
		if msg := withheldPastTotal(t.Final); msg != "" {
			ps.add("items", "%s", msg)
		}
	}
	t.refund(in.Invoices)
	if len(ps) > 0 {
		return Termination{}, ps
	}
	return t, nil
}

// terminable names what keeps the contract from being terminated on at
// by who.
func (ps *Problems) terminable(c *Contract, at Date, who Requester) {
	if !who.Valid() {
		ps.add("requester", "must be tenant, owner or mutual; got %q", who)
	}
	switch {
	case at.IsZero():
		ps.add("termination_at", "required (the lease's last day)")
	case !c.StartAt.IsZero() && at.Before(c.StartAt):
		ps.add("termination_at", "%s is before the contract's start_at %s", at, c.StartAt)
	}
	if c.Type == ContractSale {
		ps.add("type", "a sale is not a lease: Lei 8.245/91 art. 4 does not apply, and its signal_amount is a down payment, not a deposit")
	}
	if c.Active != ActiveActive {
		ps.add("active", "the contract is %s: only an active contract can be terminated", c.Active)
	}
	switch c.Status {
	case StatusTerminating, StatusTerminated:
		ps.add("status", "the contract is already %s (termination_at %s)", c.Status, c.TerminationAt)
	case StatusFinished, StatusCanceled:
		ps.add("status", "the contract is %s: it cannot be terminated", c.Status)
	}
}

// sortInvoices sorts the contract's invoices: canceled when unpaid and
// not wholly served, kept open when owed, paid after At when paid for a
// period after it. An invoice to cancel whose boleto is at the bank is a
// problem: its title is reverted first.
func (t *Termination) sortInvoices(invoices []TerminationInvoice, ps *Problems) {
	for _, inv := range invoices {
		switch {
		case inv.Status == InvoiceCanceled:
		case unpaidOpen(inv) && servedAfter(inv, t.At):
			if inv.InBatch {
				ps.add("invoices", "invoice %d (due %s) would be canceled, but its boleto is in a collection batch: revert its title first", inv.ID, inv.DueDate)
				continue
			}
			t.Canceled = append(t.Canceled, inv.ID)
		case !inv.Paid && inv.Status != InvoicePaid && inv.Status != InvoiceRefunded && inv.Status != InvoiceUncollectible &&
			inv.Status != InvoiceRenegotiated: // a renegotiated one is owed through its agreement
			t.Open = append(t.Open, inv.ID)
		case inv.Status == InvoicePaid && !inv.PeriodInitial.IsZero() && inv.PeriodInitial.After(t.At):
			t.PaidAfter = append(t.PaidAfter, inv.ID)
		}
	}
}

// unpaidOpen: not paid, and unpaid or overdue (an invoice in protest or
// partly paid is not canceled).
func unpaidOpen(inv TerminationInvoice) bool {
	return !inv.Paid && (inv.Status == "" || inv.Status == InvoiceUnpaid || inv.Status == InvoiceOverdue)
}

// servedAfter: the invoice bills days after at (its period ends after
// it; without a period, it is due after it).
func servedAfter(inv TerminationInvoice, at Date) bool {
	if inv.PeriodFinal.IsZero() {
		return inv.DueDate.After(at)
	}
	return inv.PeriodFinal.After(at)
}

// lastPeriod returns the final invoice's lines for the installment of the
// schedule whose periods hold At, cut at At: its rent prorated by the
// days billed (as the schedule prorates a period end_at cuts) and the
// contract's items as the schedule bills them with it, with the period
// they bill. None when no installment holds At (after the schedule's
// end), or when an invoice the termination keeps holds it: then, when
// that invoice bills past At, the difference between the whole
// installment and the cut one is Unserved.
func (t *Termination) lastPeriod(in *TerminationInput) ([]InvoiceItem, Date, error) {
	cut := in.Contract
	if cut.EndAt.IsZero() || t.At.Before(cut.EndAt) {
		cut.EndAt, cut.Proportional = t.At, true
	}
	last, n, err := installmentAt(&cut, in.Items, in.RentItemID, t.At, 0)
	if err != nil || n == 0 {
		return nil, Date{}, err
	}
	holder, held := t.holder(in.Invoices, last)
	if !held {
		return slices.Clone(last.Items), last.PeriodInitial, nil
	}
	if holder.Status == InvoiceCanceled || !holder.PeriodFinal.After(t.At) {
		return nil, Date{}, nil // canceled before (not billed again), or served whole
	}
	whole, _, err := installmentAt(&in.Contract, in.Items, in.RentItemID, t.At, n)
	if err != nil {
		return nil, Date{}, err
	}
	if d := whole.Total.Sub(last.Total); d.IsPositive() {
		t.Unserved = &Unserved{InvoiceID: holder.ID, Amount: d}
	}
	return nil, Date{}, nil
}

// holder is the invoice the termination does not cancel that holds the
// installment inv's slot, as the schedule's slots say (an overlapping
// period; without a period, the same competence or due date).
func (t *Termination) holder(invoices []TerminationInvoice, inv Invoice) (TerminationInvoice, bool) {
	for _, h := range invoices {
		if slices.Contains(t.Canceled, h.ID) {
			continue
		}
		var holds bool
		if h.PeriodInitial.IsZero() || h.PeriodFinal.IsZero() {
			holds = h.Date == inv.PeriodInitial || h.DueDate == inv.DueDate
		} else {
			holds = !h.PeriodInitial.After(inv.PeriodFinal) && !h.PeriodFinal.Before(inv.PeriodInitial)
		}
		if holds {
			return h, true
		}
	}
	return TerminationInvoice{}, false
}

// installmentAt walks c's schedule to the installment whose periods hold
// at (or, when number is above zero, to that installment) and returns its
// invoice as the schedule bills it, described, with its number; 0 when
// the schedule has no such installment.
func installmentAt(c *Contract, items []ContractItem, rentItemID int64, at Date, number int) (Invoice, int, error) {
	var g generator
	g.init(c, items, rentItemID)
	for g.next() {
		if g.n > maxInvoices {
			return Invoice{}, 0, Problems{{Field: "termination_at", Message: fmt.Sprintf(
				"the contract would have more than %d invoices up to %s; check start_at and recurrency", maxInvoices, at)}}
		}
		if number > 0 && g.n != number || number == 0 && g.last.end.Before(at) {
			continue
		}
		if g.first.start.After(at) {
			break
		}
		out := []Invoice{g.invoice()}
		g.describe(out, []int{g.n})
		return out[0], g.n, nil
	}
	return Invoice{}, 0, nil
}

// fineLine adds the fine's line when there is a fine, booked as the fine
// item, and each owner's share of it.
func (t *Termination) fineLine(in *TerminationInput, lines []InvoiceItem, ps *Problems) []InvoiceItem {
	f := &t.Fine
	if !f.Amount.IsPositive() {
		return lines
	}
	item, ok := lineItem(in.FineItem, "termination_fee_item_id", "the fine", ps)
	if !ok {
		return lines
	}
	line := InvoiceItem{ItemID: item.ID, Amount: f.Amount,
		Description: fmt.Sprintf("Multa rescisória (%d de %s por cumprir)", f.RemainingDays, Dias(f.TermDays))}
	if msg := LineOwnerProblem(item, 0, in.Parties); msg != "" {
		ps.add("building_id", "%s", msg)
		return append(lines, line)
	}
	if BooksOwner(item) && in.Parties.PayerID > 0 && in.Parties.BusinessID > 0 { // else the caller names the missing party
		shares, err := GuaranteedShares(PostingInput{Invoice: Invoice{Total: f.Amount, Items: []InvoiceItem{line}},
			Items: []TransactionItem{item}, Parties: in.Parties})
		if err != nil {
			*ps = append(*ps, err.(Problems)...)
		}
		t.FineOwners = append(t.FineOwners, shares...)
	}
	return append(lines, line)
}

// lineItem checks the item a line of the final invoice is booked as: set,
// bookable, and charging the payer (debit customer), as every line the
// schedule writes. field names the company setting that chooses it.
func lineItem(item *TransactionItem, field, what string, ps *Problems) (TransactionItem, bool) {
	switch {
	case item == nil:
		ps.add(field, "the company has no transaction item to book %s as: set %s (PUT /financial/settings)", what, field)
	case Bookable(*item) != "":
		ps.add(field, "%s", Bookable(*item))
	case !Charged(one, *item).Equal(one):
		ps.add(field, "transaction item %d does not charge the payer (debit customer), so it cannot book %s", item.ID, what)
	default:
		return *item, true
	}
	return TransactionItem{}, false
}

// deduct takes the deposit off what the final invoice charges, never more:
// a line of the deposit item of the negative amount deducted (the posting
// books it credit customer, debit the item's credit party, who held it).
func (t *Termination) deduct(in *TerminationInput, lines *[]InvoiceItem, ps *Problems) {
	d := &t.Deposit
	d.Held, d.Deducted = decimal.Zero, decimal.Zero
	if in.Contract.SignalAmount.IsPositive() {
		d.Held = RoundCents(in.Contract.SignalAmount)
	}
	charged := chargedTotal(*lines, lineSigns(in.Items))
	if d.Held.IsPositive() && charged.IsPositive() {
		if item, ok := lineItem(in.DepositItem, "termination_deposit_item_id", "the deposit's deduction", ps); ok {
			d.Deducted = decimal.Min(d.Held, charged)
			*lines = append(*lines, InvoiceItem{ItemID: item.ID, Amount: d.Deducted.Neg(), Description: "Caução: abatimento na rescisão"})
			if msg := LineOwnerProblem(item, 0, in.Parties); msg != "" {
				ps.add("building_id", "%s", msg)
			}
		}
	}
	d.Returned = d.Held.Sub(d.Deducted)
}

// refund adds up what is owed back to the tenant.
func (t *Termination) refund(invoices []TerminationInvoice) {
	t.RefundDue = t.Deposit.Returned
	for _, inv := range invoices {
		if t.Unserved != nil && inv.ID == t.Unserved.InvoiceID && inv.Status == InvoicePaid {
			t.RefundDue = t.RefundDue.Add(t.Unserved.Amount)
		}
		if slices.Contains(t.PaidAfter, inv.ID) {
			t.RefundDue = t.RefundDue.Add(inv.Total)
		}
	}
}

// finalInvoice is the final invoice of the lines: type single, of the
// contract, with its parties and late-fee settings (no punctuality
// discount), competence At, due on the contract's due day on or after At
// (or today, when At is past). When it bills the last period's rent, from
// start, its period is start to At.
func finalInvoice(in *TerminationInput, lines []InvoiceItem, start Date) *Invoice {
	c := &in.Contract
	inv := &Invoice{
		Type: InvoiceSingle, PayerID: c.TenantID, ContractID: c.ID, BusinessID: c.BusinessID, AccountID: c.AccountID,
		BillingID: c.BillingID, BillingMethod: c.InvoiceMethod(), Date: in.At, DueDate: finalDueDate(c, in.At, in.Today),
		Items: lines, Total: chargedTotal(lines, lineSigns(in.Items)),
		LateFee: LateFee{TicketLateFee: c.TicketLateFee, TicketLateFeeItemID: c.TicketLateFeeItemID,
			TicketLateFeePercentage: c.TicketLateFeePercentage, TicketLateFeeInterest: c.TicketLateFeeInterest,
			TicketDiscountFixed: decimal.Zero, TicketDiscountPercentage: decimal.Zero},
	}
	if !start.IsZero() {
		inv.PeriodInitial, inv.PeriodFinal = start, in.At
	}
	b := []byte("Rescisão do contrato ")
	if c.Reference != "" {
		b = append(b, c.Reference...)
		b = append(b, ' ')
	}
	b = append(b, "em "...)
	inv.Description = string(in.At.appendBR(b))
	return inv
}

// finalDueDate is the contract's due day (due_day, else the day of
// due_date) on or after At, or after today when At is past.
func finalDueDate(c *Contract, at, today Date) Date {
	from := at
	if today.After(from) {
		from = today
	}
	day := c.DueDay
	if day == 0 {
		day = c.DueDate.Day()
	}
	d := dayInMonth(MonthOf(from), day)
	if d.Before(from) {
		d = dayInMonth(MonthOf(from).Add(1), day)
	}
	return d
}

// terminationCut is the date the schedule of a terminating or terminated
// contract stops at: the installment whose periods reach termination_at is
// the termination's final invoice's, and no later one is billed. Zero for
// any other contract: termination_at alone (written by hand) does not stop
// the billing.
func (c *Contract) terminationCut() Date {
	if c.Status == StatusTerminating || c.Status == StatusTerminated {
		return c.TerminationAt
	}
	return Date{}
}
