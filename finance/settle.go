package finance

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// Settlement is what an invoice costs when paid on a given date, each
// part separately. Total = Invoice + LateFee + Interest - Discount.
type Settlement struct {
	// Invoice is the invoice's total.
	Invoice decimal.Decimal `json:"invoice"`
	// Base is what the late fee, the interest and a percentage discount
	// are computed on: the ticket_late_fee_item_id lines, or the total.
	Base decimal.Decimal `json:"base"`
	// DaysLate counts the days after the due date (0 when on time).
	DaysLate int             `json:"days_late"`
	LateFee  decimal.Decimal `json:"late_fee"`
	Interest decimal.Decimal `json:"interest"`
	Discount decimal.Decimal `json:"discount"`
	Total    decimal.Decimal `json:"total"`
	// Abatement is the part of Discount that is an abatement (abatimento)
	// the beneficiary granted at the bank, as a return file reports it:
	// no punctuality discount, so PostPayment books it on a line of its
	// own, borne by the business (docs/ledger.md, "Settlement lines").
	// Settle never sets it; zero everywhere but a bank's settlement.
	Abatement decimal.Decimal `json:"-"`
}

// Settle returns the amount due when inv is paid on paidAt. Paying on
// the due date is on time. Late: late fee = base × ticket_late_fee_percentage
// / 100, interest = base × ticket_late_fee_interest / 100 × days late / 30
// (percent a month, pro rata die, simple), each rounded to the cent, when
// ticket_late_fee is set. Early: the punctuality discount when
// ticket_discount is set and paidAt is at least ticket_discount_days before
// the due date (on the due date itself when the days are 0).
func Settle(inv Invoice, paidAt Date) (Settlement, error) {
	var ps Problems
	if inv.DueDate.IsZero() {
		ps.add("due_date", "required")
	}
	if paidAt.IsZero() {
		ps.add("paid_at", "required")
	}
	ps.lateFee(&inv.LateFee)
	ps.amount("total", inv.Total)
	for i, it := range inv.Items {
		if !below(it.Amount, maxAmountDigits) {
			ps.amount(fmt.Sprintf("items[%d].amount", i), it.Amount)
		}
	}
	if len(ps) > 0 {
		return Settlement{}, ps
	}
	return settleRest(&inv, paidAt, inv.Total, true), nil
}

// settleRest is Settle on the rest of an invoice still open: the late fee
// and the interest on rest's part of the base (the base × rest / total,
// rounded to the cent; the whole base when rest is the total), and the
// punctuality discount only when discount is allowed (a whole payment: no
// earlier part). Settle is the case of the whole total.
func settleRest(inv *Invoice, paidAt Date, rest decimal.Decimal, discount bool) Settlement {
	s := Settlement{Invoice: rest, Base: restOf(lateFeeBase(inv), rest, inv.Total)}
	if days := inv.DueDate.DaysUntil(paidAt); days > 0 {
		s.DaysLate = days
		if inv.TicketLateFee {
			s.LateFee = percentOf(s.Base, inv.TicketLateFeePercentage)
			// base × rate/100 × days/30, divided once with the rounding.
			s.Interest = s.Base.Mul(inv.TicketLateFeeInterest).Mul(decimal.NewFromInt(int64(days))).
				DivRound(percentMonthDays, 2)
		}
	} else if discount && inv.TicketDiscount && -days >= inv.TicketDiscountDays {
		s.Discount = discountOf(inv, s.Base)
	}
	s.Total = s.Invoice.Add(s.LateFee).Add(s.Interest).Sub(s.Discount)
	return s
}

// restOf is amount's part of rest over total, rounded to the cent: amount
// itself when rest is the total (or the total is zero).
func restOf(amount, rest, total decimal.Decimal) decimal.Decimal {
	if rest.Equal(total) || total.IsZero() {
		return amount
	}
	return RoundCents(amount.Mul(rest).Div(total))
}

// lateFeeBase is the sum of the lines of ticket_late_fee_item_id, or the
// invoice total when that item is not set or not on the invoice.
func lateFeeBase(inv *Invoice) decimal.Decimal {
	if inv.TicketLateFeeItemID == 0 {
		return inv.Total
	}
	var base decimal.Decimal
	found := false
	for _, it := range inv.Items {
		switch {
		case it.ItemID != inv.TicketLateFeeItemID:
		case found:
			base = base.Add(it.Amount)
		default:
			base, found = it.Amount, true
		}
	}
	if !found {
		return inv.Total
	}
	return base
}

func discountOf(inv *Invoice, base decimal.Decimal) decimal.Decimal {
	var d decimal.Decimal
	switch inv.TicketDiscountMode {
	case DiscountFixed:
		d = RoundCents(inv.TicketDiscountFixed)
	case DiscountPercentage:
		d = percentOf(base, inv.TicketDiscountPercentage)
	}
	if d.GreaterThan(base) { // a discount never makes the base negative
		d = base
	}
	return d
}
