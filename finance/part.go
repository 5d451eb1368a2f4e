package finance

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// Part payments of an invoice (docs/ledger.md, "Part payments"). A tenant
// may pay an invoice in parts: each part pays, pro rata, the principal
// still open (the rest of the invoice's total) and the late fee and
// interest due on that rest on the part's day; what it leaves of the rest
// stays open and keeps accruing. A whole payment is the one part that pays
// everything due: the same numbers as Settle.

// PaidSoFar is what the standing parts of an invoice have paid of it: the
// principal (the part of the invoice's total they settled) and how many
// they are.
type PaidSoFar struct {
	Principal decimal.Decimal
	Parts     int
}

// Part is one payment of an invoice as SettlePart reckons it: what was
// due on its day (Due: Due.Invoice the rest of the principal, its late
// fee, interest and discount, Due.Total the whole of it), what the payer
// paid (Amount), and what of it is principal and charges. Amount =
// Principal + LateFee + Interest - Discount, exactly; Rest is the
// principal still open after it. OverPaid is what the payer paid beyond
// Amount, which nothing books (a payment by the discount date of more
// than the discounted amount, SettlePart); zero otherwise.
type Part struct {
	Due       Settlement      `json:"due"`
	Amount    decimal.Decimal `json:"amount"`
	Principal decimal.Decimal `json:"principal"`
	LateFee   decimal.Decimal `json:"late_fee"`
	Interest  decimal.Decimal `json:"interest"`
	Discount  decimal.Decimal `json:"discount"`
	Rest      decimal.Decimal `json:"rest"`
	OverPaid  decimal.Decimal `json:"over_paid"`
}

// Settles reports whether the part settles the invoice: nothing of its
// principal is left open.
func (p Part) Settles() bool { return !p.Rest.IsPositive() }

// Settlement is the part as PostPayment books it: its principal as the
// invoice's amount, its own late fee, interest and discount.
func (p Part) Settlement() Settlement {
	return Settlement{Invoice: p.Principal, Base: p.Due.Base, DaysLate: p.Due.DaysLate, LateFee: p.LateFee,
		Interest: p.Interest, Discount: p.Discount, Total: p.Amount}
}

// DueOn is what is due for the rest of inv when paid on paidAt, the
// standing parts having paid paid: the rest R = total - paid principal,
// the late fee and interest of Settle computed on R's part of the base,
// and the punctuality discount only for an invoice no part has paid yet
// (the discount rewards paying the whole on time in one payment; a part
// on time does not keep the right to it for the rest).
func DueOn(inv Invoice, paidAt Date, paid PaidSoFar) (Settlement, error) {
	s, err := Settle(inv, paidAt) // checks the invoice and the date
	if err != nil || (paid.Parts == 0 && paid.Principal.IsZero()) {
		return s, err
	}
	rest := inv.Total.Sub(paid.Principal)
	return settleRest(&inv, paidAt, rest, false), nil
}

// SettlePart reckons a payment of amount on paidAt against what is due on
// that day (DueOn). Amount equal to what is due settles the invoice, with
// the discount when one applies; so does an amount above it by no more
// than the discount (a payment by the discount date of the discounted
// amount or more, up to the face value), the excess in
// OverPaid, booked nowhere. Less than what is due pays, pro rata,
// principal and charges, no discount: the late fee and the interest each
// amount × theirs / what is due without discount, rounded to the cent,
// the principal what is left, so that the three add up to amount exactly;
// the rest of the principal stays open. Refused (Problems on amount): not
// positive (zero only when nothing at all is due), or more than is due
// (more than the face value, when a discount applies).
func SettlePart(inv Invoice, paidAt Date, paid PaidSoFar, amount decimal.Decimal) (Part, error) {
	due, err := DueOn(inv, paidAt, paid)
	if err != nil {
		return Part{}, err
	}
	var ps Problems
	switch {
	case !amount.Equal(RoundCents(amount)):
		ps.add("amount", "%s has more than two decimal places", amount)
	case amount.IsNegative() || (amount.IsZero() && !due.Total.IsZero()):
		ps.add("amount", "must be more than zero")
	case amount.GreaterThan(due.Total.Add(due.Discount)):
		msg := fmt.Sprintf("%s is more than the %s due on %s (the rest %s, late fee %s, interest %s, discount %s)",
			amount.StringFixed(2), due.Total.StringFixed(2), paidAt, due.Invoice.StringFixed(2),
			due.LateFee.StringFixed(2), due.Interest.StringFixed(2), due.Discount.StringFixed(2))
		if due.Discount.IsPositive() {
			msg += fmt.Sprintf(" and more than the %s the invoice charges without its discount: up to that, a payment by "+
				"the discount date settles it, the excess reported", due.Total.Add(due.Discount).StringFixed(2))
		}
		ps.add("amount", "%s", msg)
	}
	if len(ps) > 0 {
		return Part{}, ps
	}
	if amount.GreaterThanOrEqual(due.Total) {
		return Part{Due: due, Amount: due.Total, Principal: due.Invoice, LateFee: due.LateFee, Interest: due.Interest,
			Discount: due.Discount, Rest: decimal.Zero, OverPaid: amount.Sub(due.Total)}, nil
	}
	return shortPart(due, amount), nil
}

// shortPart splits an amount short of what is due between the principal
// and the charges, pro rata of what is due without a discount. The
// principal always leaves a cent open at least: a part short of what is
// due never settles the invoice.
func shortPart(due Settlement, amount decimal.Decimal) Part {
	p := Part{Due: due, Amount: amount}
	whole := due.Invoice.Add(due.LateFee).Add(due.Interest)
	p.LateFee = RoundCents(due.LateFee.Mul(amount).Div(whole))
	p.Interest = RoundCents(due.Interest.Mul(amount).Div(whole))
	p.Principal = amount.Sub(p.LateFee).Sub(p.Interest)
	if cent := decimal.New(1, -2); p.Principal.GreaterThanOrEqual(due.Invoice) {
		p.Principal = due.Invoice.Sub(cent)
		p.Interest = amount.Sub(p.Principal).Sub(p.LateFee)
	}
	p.Rest = due.Invoice.Sub(p.Principal)
	return p
}

// PartShare places a part in its invoice for PostPayment: the principal
// the standing parts before it paid (Before), the principal it pays
// (Settlement.Invoice of the posting).
type PartShare struct {
	Before decimal.Decimal
}

// linesThrough is what of each line the principal paid through x covers:
// each line × x / total, rounded toward zero to the cent, and the cents
// the lines charging the payer then lack (x less what they charge) given
// to the line charging the payer most (the first on a tie), so that the
// lines charge the payer x exactly. Through the total, every line whole.
// A part's share of a line is linesThrough after it less linesThrough
// before it: the rounding never drifts, and the last part takes what the
// earlier parts left.
func linesThrough(lines []InvoiceItem, items map[int64]TransactionItem, total, x decimal.Decimal) []decimal.Decimal {
	out := make([]decimal.Decimal, len(lines))
	if x.GreaterThanOrEqual(total) || total.IsZero() {
		for i, l := range lines {
			out[i] = l.Amount
		}
		return out
	}
	charged, big := decimal.Zero, -1
	for i, l := range lines {
		q, _ := l.Amount.Shift(2).Mul(x.Shift(2)).QuoRem(total.Shift(2), 0) // toward zero
		out[i] = q.Shift(-2)
		c := Charged(l.Amount, items[l.ItemID])
		charged = charged.Add(Charged(out[i], items[l.ItemID]))
		if c.IsPositive() && (big < 0 || c.GreaterThan(Charged(lines[big].Amount, items[lines[big].ItemID]))) {
			big = i
		}
	}
	if diff := x.Sub(charged); big >= 0 && !diff.IsZero() {
		if l := lines[big]; Charged(l.Amount, items[l.ItemID]).Equal(l.Amount) {
			out[big] = out[big].Add(diff)
		} else {
			out[big] = out[big].Sub(diff)
		}
	}
	return out
}

// splitDelta is each owner's part of a line's share between two points
// of its payment: SplitByShares(after) - SplitByShares(before), so that
// the parts of every payment of the line add up, owner by owner, to the
// split of the whole line.
func splitDelta(before, after decimal.Decimal, owners []Share) ([]decimal.Decimal, error) {
	a, err := SplitByShares(after, owners)
	if err != nil {
		return nil, err
	}
	out := a
	if !before.IsZero() {
		b, err := SplitByShares(before, owners)
		if err != nil {
			return nil, err
		}
		out = make([]decimal.Decimal, len(a))
		for i := range a {
			out[i] = a[i].Sub(b[i])
		}
	}
	return out, nil
}
