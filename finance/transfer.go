package finance

import (
	"cmp"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// The owners' transfers (repasse): when what a payment credited to an
// owner's statement is paid out to the owner, and the guaranteed
// transfer the business advances before the tenant pays. docs/ledger.md,
// "Transfers to the owners".

// TransferSchedule is how a contract pays its owners out: its
// transfer_mode and transfer_after_days, which is the number of days
// after the credit for after_receive and the day of the month (1 to 31)
// for fixed_day and fixed_day_or_next.
type TransferSchedule struct {
	Mode      TransferMode
	AfterDays int
}

// Automatic reports whether the transfers of the schedule are made by the
// nightly run: after_receive, and the fixed days with a day from 1 to 31.
// manually, none and a fixed day out of range are left to people.
func (s TransferSchedule) Automatic() bool {
	switch s.Mode {
	case TransferAfterReceive:
		return s.AfterDays >= 0
	case TransferFixedDay, TransferFixedDayOrNext:
		return s.AfterDays >= 1 && s.AfterDays <= 31
	}
	return false
}

// DueOn returns the day an owner's credit dated credited (the day the
// money is in the account) is transferred, and false when the schedule
// is not automatic:
//   - after_receive: credited plus AfterDays days;
//   - fixed_day: the first day AfterDays of a month on or after credited
//     (a day past the month's end is its last day: 31 is April 30);
//   - fixed_day_or_next: the same, moved to the Monday after when it falls
//     on a Saturday or a Sunday (holidays are not known: out of scope).
func (s TransferSchedule) DueOn(credited Date) (Date, bool) {
	if !s.Automatic() {
		return Date{}, false
	}
	if s.Mode == TransferAfterReceive {
		return credited.AddDays(s.AfterDays), true
	}
	d := dayInMonth(MonthOf(credited), s.AfterDays)
	if d.Before(credited) {
		d = dayInMonth(MonthOf(credited).Add(1), s.AfterDays)
	}
	if s.Mode == TransferFixedDayOrNext {
		d = NextBusinessDay(d)
	}
	return d, true
}

// NextBusinessDay is d, or the Monday after when d is a Saturday or a
// Sunday. Holidays are not considered.
func NextBusinessDay(d Date) Date {
	switch d.Weekday() {
	case time.Saturday:
		return d.AddDays(2)
	case time.Sunday:
		return d.AddDays(1)
	}
	return d
}

// Guaranty is a contract's guaranteed transfer: whether it has one, for
// how many months from its start (0: the whole contract), and how many
// days after an invoice's due date the guaranteed share is released.
type Guaranty struct {
	Active       bool
	Start        Date
	Months       int
	ReleaseAfter int
}

// Covers reports whether an invoice due on due is guaranteed: the
// guaranty is active and, when it has months and the contract a start,
// the due date is before the start plus the months.
func (g Guaranty) Covers(due Date) bool {
	if !g.Active {
		return false
	}
	if g.Months <= 0 || g.Start.IsZero() {
		return true
	}
	return due.Before(g.Start.AddMonths(g.Months))
}

// ReleaseOn is the day the guaranteed share of an invoice due on due is
// advanced and transferred: the due date plus the release days.
func (g Guaranty) ReleaseOn(due Date) Date { return due.AddDays(g.ReleaseAfter) }

// OwnerAmount is an amount of one owner, with its share of the building
// (zero when the owner was named by the line).
type OwnerAmount struct {
	OwnerID    int64           `json:"owner_id"`
	Amount     decimal.Decimal `json:"amount"`
	Percentage decimal.Decimal `json:"percentage"`
}

// OwnersNet sums entries by owner: each owner's credits less its debits
// and transfers, in owner id order. The share is the one the entries
// carry.
func OwnersNet(entries []Entry) []OwnerAmount {
	var out []OwnerAmount
	for _, e := range entries {
		if e.Extract != PartyOwner {
			continue
		}
		i := slices.IndexFunc(out, func(o OwnerAmount) bool { return o.OwnerID == e.OwnerID })
		if i < 0 {
			out = append(out, OwnerAmount{OwnerID: e.OwnerID, Percentage: e.Percentage})
			i = len(out) - 1
		}
		out[i].Amount = out[i].Amount.Add(e.Signed())
	}
	slices.SortFunc(out, func(a, b OwnerAmount) int { return cmp.Compare(a.OwnerID, b.OwnerID) })
	return out
}

// GuaranteedShares is what a guaranteed transfer advances each owner for
// an unpaid invoice: the owners' net of its lines booked at face value
// (PostPayment with no late fee, interest or discount), so the
// administration fee and what lines assign to others are deducted as the
// payment would. Owners netting zero or less are left out. The problems
// are PostPayment's. Of an invoice partly paid (in.Part set, the
// principal still open in in.Settlement.Invoice), the owners' net of the
// lines' share of the rest: what the parts paid is not advanced again.
func GuaranteedShares(in PostingInput) ([]OwnerAmount, error) {
	in.Settlement = Settlement{}
	if in.Part != nil {
		in.Settlement = Settlement{Invoice: in.Invoice.Total.Sub(in.Part.Before)}
	}
	posting, err := PostPayment(in)
	if err != nil {
		return nil, err
	}
	net := OwnersNet(posting.Entries)
	return slices.DeleteFunc(net, func(o OwnerAmount) bool { return !o.Amount.IsPositive() }), nil
}

// UnguaranteedShares is what of the owners' shares the open guarantees
// (each owner's, summed) do not cover: what a run advances when a part
// undone left the principal it paid open again, with a guarantee written
// for the rest only. Owners covered in full are left out.
func UnguaranteedShares(shares []OwnerAmount, open []Guarantee) []OwnerAmount {
	covered := map[int64]decimal.Decimal{}
	for _, g := range open {
		covered[g.OwnerID] = covered[g.OwnerID].Add(g.Amount)
	}
	out := make([]OwnerAmount, 0, len(shares))
	for _, s := range shares {
		if s.Amount = s.Amount.Sub(covered[s.OwnerID]); s.Amount.IsPositive() {
			out = append(out, s)
		}
	}
	return out
}

// GuaranteeEntries are the entries of a guaranteed transfer, mode
// guaranteed_rent: per owner, a credit of the share on the owner's
// statement and a debit of it on the business's (the business carries
// it until the tenant pays). Balanced.
func GuaranteeEntries(shares []OwnerAmount, businessID int64, description string) []Entry {
	out := make([]Entry, 0, 2*len(shares))
	for _, s := range shares {
		e := Entry{Mode: ModeGuaranteedRent, Amount: s.Amount, BusinessID: businessID, Description: description}
		owner, business := e, e
		owner.Type, owner.Extract, owner.PersonID, owner.OwnerID, owner.Percentage = Credit, PartyOwner, s.OwnerID, s.OwnerID, s.Percentage
		business.Type, business.Extract = Debit, PartyBusiness
		out = append(out, owner, business)
	}
	return out
}

// Guarantee is an open guaranteed transfer of an invoice: the id of its
// credit on an owner's statement, the owner and the amount advanced not
// settled yet (a part payment settles its share of it).
type Guarantee struct {
	ID      int64
	OwnerID int64
	Amount  decimal.Decimal
}

// SettleGuarantees returns the entries that make the business whole when
// the payment of a guaranteed invoice is posted: per open guarantee, a
// debit of the amount advanced on the owner's statement and a credit of
// it on the business's, mode invoice (they belong to the payment and are
// undone with it), pointing at the guarantee (GuaranteedTransferID). The
// owner keeps what the payment credited beyond the guarantee (late fee,
// interest) and owes what it credited less. Balanced.
func SettleGuarantees(open []Guarantee, businessID int64) []Entry {
	out := make([]Entry, 0, 2*len(open))
	for _, g := range open {
		e := Entry{Mode: ModeInvoice, Amount: g.Amount, BusinessID: businessID, GuaranteedTransferID: g.ID,
			Description: "Compensação de repasse garantido"}
		owner, business := e, e
		owner.Type, owner.Extract, owner.PersonID, owner.OwnerID = Debit, PartyOwner, g.OwnerID, g.OwnerID
		business.Type, business.Extract = Credit, PartyBusiness
		out = append(out, owner, business)
	}
	return out
}

// PendingEntry is an entry on an owner's statement, of an invoice, not
// paid out yet (no transfer_id).
type PendingEntry struct {
	ID        int64
	InvoiceID int64
	OwnerID   int64
	Type      EntryType
	Mode      EntryMode
	Amount    decimal.Decimal
	Date      Date
	// ReversesID is the entry this one reverses (an undo's reversal, a
	// refund's undone), 0 for none; ReversesPaidOut says that entry was
	// paid out already (it has a transfer_id).
	ReversesID      int64
	ReversesPaidOut bool
}

// Payout is one transfer to make: what an owner is paid for an invoice,
// the day it fell due (the latest of the credits it pays out), and the
// entries it pays out.
type Payout struct {
	InvoiceID int64           `json:"invoice_id"`
	OwnerID   int64           `json:"owner_id"`
	Amount    decimal.Decimal `json:"amount"`
	DueOn     Date            `json:"due_on"`
	EntryIDs  []int64         `json:"entry_ids"`
}

// Payouts says what the run on day on transfers, from the owners' entries
// not paid out yet and the schedule of each invoice's contract. Per
// invoice and owner it counts:
//   - a credit of the payment (mode invoice) once due by the schedule
//     (TransferSchedule.DueOn of its date) on or before on;
//   - a guaranteed_rent credit once dated on or before on (it is released
//     on its date);
//   - a debit of the payment (mode invoice: the administration fee, what
//     a line assigns to others, the settlement of a guarantee) once due
//     as the payment's credits are, from the same date (the part's credit
//     day): a part's fee is taken from that part's credits, on the day
//     they are paid out, never from an earlier part's transfer;
//   - any other debit (a chargeback, a refund's, a write-off's) once
//     dated on or before on: it never waits for a due day, so a transfer
//     never pays out more than the owner is owed;
//   - the reversal of an entry paid out already (an undo after the
//     transfer), credit or debit, at once: the owner was paid what it
//     takes back, and owes it whatever the run's day;
//   - an entry and its reversal, both not paid out, together or not at
//     all (once both count): they net to zero, and a run never pays out
//     what was undone, nor takes back what it did not pay.
//
// When what is counted adds up to more than zero, it is one payout, of
// the sum, paying out every counted entry. Zero or less is left for later
// (the owner owes it: it nets against the invoice's next credits).
// Payouts are in invoice, then owner order.
func Payouts(pending []PendingEntry, schedules map[int64]TransferSchedule, on Date) []Payout {
	type key struct{ invoice, owner int64 }
	due, counted := countedEntries(pending, schedules, on)
	byKey := map[key]*Payout{}
	var keys []key
	for i, e := range pending {
		if !counted[i] {
			continue
		}
		k := key{e.InvoiceID, e.OwnerID}
		p, ok := byKey[k]
		if !ok {
			p = &Payout{InvoiceID: e.InvoiceID, OwnerID: e.OwnerID}
			byKey[k] = p
			keys = append(keys, k)
		}
		p.EntryIDs = append(p.EntryIDs, e.ID)
		if e.Type == Credit {
			p.Amount = p.Amount.Add(e.Amount)
			if due[i].After(p.DueOn) {
				p.DueOn = due[i]
			}
		} else {
			p.Amount = p.Amount.Sub(e.Amount)
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.invoice, b.invoice), cmp.Compare(a.owner, b.owner)) })
	var out []Payout
	for _, k := range keys {
		if p := byKey[k]; p.Amount.IsPositive() {
			if p.DueOn.IsZero() { // a reversal's credits alone: due on the run's day
				p.DueOn = on
			}
			slices.Sort(p.EntryIDs)
			out = append(out, *p)
		}
	}
	return out
}

// countedEntries says, entry by entry, whether pending entries count in
// the run on day on (countedOn), an entry and its reversal pending
// together only when both do, and the day each credit fell due.
func countedEntries(pending []PendingEntry, schedules map[int64]TransferSchedule, on Date) ([]Date, []bool) {
	due, counted := make([]Date, len(pending)), make([]bool, len(pending))
	at := make(map[int64]int, len(pending))
	for i, e := range pending {
		due[i], counted[i] = countedOn(e, schedules[e.InvoiceID], on)
		at[e.ID] = i
	}
	for i, e := range pending {
		if j, ok := at[e.ReversesID]; ok && e.ReversesID != 0 {
			both := counted[i] && counted[j]
			counted[i], counted[j] = both, both
		}
	}
	return due, counted
}

// countedOn says whether a pending entry counts in the run on day on, on
// its own, and the day a credit fell due.
func countedOn(e PendingEntry, s TransferSchedule, on Date) (Date, bool) {
	switch {
	case e.ReversesPaidOut: // no due day of its own: it moves no payout's
		return Date{}, true
	case e.Mode == ModeInvoice && e.ReversesID == 0 && e.Type != Credit:
		// a payment's (a part's) debit falls due with its credits, dated
		// the same credit day: the owner is paid each part's net
		due, ok := s.DueOn(e.Date)
		return Date{}, ok && !due.After(on)
	case e.Type != Credit:
		return Date{}, !e.Date.After(on)
	case e.Mode == ModeGuaranteedRent:
		return e.Date, !e.Date.After(on)
	}
	due, ok := s.DueOn(e.Date)
	return due, ok && !due.After(on)
}

// AutoTransferStatus is an invoice's auto_transfer_status: where the
// automatic transfer of its owners' share stands (docs/ledger.md, "The
// invoice's auto_transfer_status"). AutoTransferNone is null.
type AutoTransferStatus string

// The values of auto_transfer_status.
const (
	// AutoTransferNone (null): the run does not transfer the invoice, or
	// nothing of it is owed to its owners yet.
	AutoTransferNone AutoTransferStatus = ""
	// AutoTransferWaiting: an owner is owed a share of the invoice the run
	// has not paid out yet; it will be on its day.
	AutoTransferWaiting AutoTransferStatus = "waiting"
	// AutoTransferGuaranteed: the owners' share was advanced (and paid out)
	// under a guaranteed transfer, and the tenant's payment is not posted.
	AutoTransferGuaranteed AutoTransferStatus = "guaranteed"
	// AutoTransferTransferred: the payment is posted and every owner has
	// been paid out all the invoice owes them.
	AutoTransferTransferred AutoTransferStatus = "transferred"
	// AutoTransferChargeback: the owners were paid out a payment that was
	// undone since: they owe what they were paid.
	AutoTransferChargeback AutoTransferStatus = "chargeback"
)

// AutoTransferStatuses are the values auto_transfer_status takes besides
// null.
var AutoTransferStatuses = []AutoTransferStatus{
	AutoTransferWaiting, AutoTransferGuaranteed, AutoTransferTransferred, AutoTransferChargeback,
}

// AutoTransferFacts are what an invoice's auto_transfer_status is read
// from: its contract's schedule and the ledger.
type AutoTransferFacts struct {
	// Automatic: a contract's invoice whose contract's schedule is
	// Automatic, without transfer_auto_disabled.
	Automatic bool
	// Posted: its payment is posted and not undone.
	Posted bool
	// Guaranteed: the run advanced its owners' share under a guaranteed
	// transfer.
	Guaranteed bool
	// Owed: the entries of an owner of the invoice not paid out yet add up
	// to more than zero (credits less debits).
	Owed bool
	// Transferred: the run has paid out some of the invoice to an owner,
	// by a transfer not voided (an unpaid transfer is voided with the
	// payment it paid out when that payment is undone), or by one voided
	// that the bank paid all the same.
	Transferred bool
	// Overpaid: the bank paid an owner a transfer of the invoice after it
	// was voided, and that owner's entries not paid out still add up to
	// less than zero: the owner owes what they were paid, and no later
	// credit has netted it yet. Or a part of the payment was undone after
	// it was paid out, the other parts standing, and the owner's entries
	// not paid out, its reversal among them, add up to less than zero.
	Overpaid bool
}

// Status is the auto_transfer_status the facts say, the first that holds:
//   - none when the run does not transfer the invoice;
//   - guaranteed when its share was advanced and its payment is not
//     posted (before the tenant pays, or after the payment is undone);
//   - waiting when an owner is owed something not paid out yet;
//   - transferred when the payment is posted and something was paid out
//     (every owner has what the invoice owes them), and no owner was
//     overpaid;
//   - chargeback when something was paid out and the payment is no longer
//     posted (undone), or an owner was overpaid: the bank paid a voided
//     transfer, and the owner owes it;
//   - else none: nothing was owed to the owners (not paid yet, or the
//     owners' share nets to zero or less).
//
// There is no partial state: the credits of one payment (or one guarantee)
// fall due on the same day for every owner, so the run pays all the
// owners of an invoice in the same run; an owner whose entries net to zero
// or less is owed nothing.
func (f AutoTransferFacts) Status() AutoTransferStatus {
	switch {
	case !f.Automatic:
		return AutoTransferNone
	case f.Guaranteed && !f.Posted:
		return AutoTransferGuaranteed
	case f.Owed:
		return AutoTransferWaiting
	case f.Transferred && f.Posted && !f.Overpaid:
		return AutoTransferTransferred
	case f.Transferred:
		return AutoTransferChargeback
	}
	return AutoTransferNone
}

// PartGuarantees is what of the open guarantees a part payment settles:
// all that is open when the part settles the invoice (SettleGuarantees),
// else, per owner, the owner's net of the part's lines (the share of the
// rent the guarantee advanced that the tenant has now paid), at most what
// is open. A part's late fee and interest are the owner's beyond the
// guarantee, as a whole payment's.
func PartGuarantees(open []Guarantee, part []Entry, settles bool) []Guarantee {
	if settles {
		return open
	}
	net := map[int64]decimal.Decimal{}
	for _, e := range part {
		if e.Extract == PartyOwner && e.Kind == LineLine {
			net[e.OwnerID] = net[e.OwnerID].Add(e.Signed())
		}
	}
	out := make([]Guarantee, 0, len(open))
	for _, g := range open {
		amount := decimal.Min(g.Amount, net[g.OwnerID])
		if !amount.IsPositive() {
			continue
		}
		net[g.OwnerID] = net[g.OwnerID].Sub(amount)
		g.Amount = amount
		out = append(out, g)
	}
	return out
}
