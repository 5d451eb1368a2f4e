package finance

import (
	"fmt"
	"slices"

	"github.com/shopspring/decimal"
)

// The administration fee (taxa de administração) of a contract: a contract
// item whose transaction item moves money from the owners to the business
// (debit owner, credit business). Its line is on every invoice it applies
// to, as a percentage of the rent line (so it follows the rent's
// proration) or a fixed amount, but it charges no one: the invoice's total
// is what the payer is charged (Charged), and the payment posts the line as
// debits to the owners by their shares and a credit to the business.
// docs/finance.md, "Amounts", and docs/ledger.md, "The administration fee".

// AdministrationFee reports whether item books a fee the owners pay the
// business: it debits `owner` and credits `business`.
func AdministrationFee(item TransactionItem) bool {
	return item.Debit == PartyOwner && item.Credit == PartyBusiness
}

// Withholding reports whether item books a deduction the owners bear from
// what the payer is charged: it debits `owner` and credits `customer`.
// The income tax a tenant company withholds (IRRF, an item of type duty)
// is one: the tenant pays the invoice net of it and pays the tax to the
// Receita itself. docs/ledger.md, "A withholding".
func Withholding(item TransactionItem) bool {
	return item.Debit == PartyOwner && item.Credit == PartyCustomer
}

// Withholding reports whether the contract item is a withholding: its
// transaction item (Item) is known and Withholding. Its lines are taken
// off the invoice's total.
func (it *ContractItem) Withholding() bool {
	return it.Item != nil && Withholding(*it.Item)
}

// Fee reports whether the contract item is an administration fee: its
// transaction item (Item) is known and AdministrationFee.
func (it *ContractItem) Fee() bool {
	return it.Item != nil && AdministrationFee(*it.Item)
}

// Billed reports whether the contract item has lines on the contract's
// invoices, its months aside: a fee whatever its mode; an item of mode
// item or service; never a percentage of a commission base
// (recurring_commission, first_commission), nor another item of mode
// commission (a split between parties, not a line).
func (it *ContractItem) Billed() bool {
	if it.CalculateMode == CalculatePercentage && it.PercentageMode != "" && it.PercentageMode != PercentRentalValue {
		return false
	}
	return it.Mode != ItemModeCommission || it.Fee()
}

// LineProblem says why the lines of a contract item booked as item cannot
// be on the contract's invoices ("" when they can): item must name both
// parties, and either charge the payer (debit customer), be an
// administration fee or a withholding (Withholding, taken off the total);
// a fee is a percentage of the rent or a fixed amount.
func (it *ContractItem) LineProblem(item TransactionItem) string {
	if msg := Bookable(item); msg != "" {
		return msg
	}
	if AdministrationFee(item) {
		if it.CalculateMode == CalculatePercentage && it.PercentageMode != "" && it.PercentageMode != PercentRentalValue {
			return fmt.Sprintf("transaction item %d is an administration fee (debit owner, credit business), a percentage of the rent: "+
				"percentage_mode must be rental_value or empty, not %s (a share of a commission)", item.ID, it.PercentageMode)
		}
		return ""
	}
	if !Withholding(item) && !Charged(one, item).Equal(one) {
		return fmt.Sprintf("transaction item %d debits %s and credits %s: a line of the contract's invoices must charge the payer "+
			"(debit customer), be an administration fee the owners pay the business (debit owner, credit business), "+
			"which is on the invoice but not in its total, or be a withholding the owners bear (debit owner, credit customer: "+
			"the IRRF a tenant company withholds), which the total is net of", item.ID, item.Debit, item.Credit)
	}
	return ""
}

// lineSign is how the lines of one transaction item count in an
// invoice's total: not at all (an administration fee) or taken off it (a
// withholding). The lines of any other item are added.
type lineSign struct {
	itemID int64
	off    bool // true: taken off the total; false: left out of it
}

// lineSigns lists the transaction items among items whose lines are not
// added to an invoice's total: the fees' and the withholdings'.
func lineSigns(items []ContractItem) []lineSign {
	var signs []lineSign
	for i := range items {
		it := &items[i]
		if !it.Fee() && !it.Withholding() {
			continue
		}
		if !slices.ContainsFunc(signs, func(s lineSign) bool { return s.itemID == it.ItemID }) {
			signs = append(signs, lineSign{itemID: it.ItemID, off: it.Withholding()})
		}
	}
	return signs
}

// chargedTotal is what lines charge the payer: the sum of their amounts,
// but those of a fee item of signs (left out) and of a withholding item
// (taken off).
func chargedTotal(lines []InvoiceItem, signs []lineSign) decimal.Decimal {
	total := decimal.Zero
	for _, l := range lines {
		k := -1
		if len(signs) > 0 {
			k = slices.IndexFunc(signs, func(s lineSign) bool { return s.itemID == l.ItemID })
		}
		switch {
		case k < 0:
			total = total.Add(l.Amount)
		case signs[k].off:
			total = total.Sub(l.Amount)
		}
	}
	return total
}

// withheldPastTotal says why an invoice whose withholdings take off more
// than its other lines charge cannot be issued ("" when it can): its total
// would be negative, and a boleto charges no negative amount.
func withheldPastTotal(inv *Invoice) string {
	if !inv.Total.IsNegative() {
		return ""
	}
	which := fmt.Sprintf("of %s to %s", inv.PeriodInitial, inv.PeriodFinal)
	if inv.PeriodInitial.IsZero() {
		which = fmt.Sprintf("dated %s", inv.Date)
	}
	return fmt.Sprintf("the invoice %s would charge the payer %s: its withholdings (debit owner, credit customer) take off "+
		"more than its other lines charge; lower the withholding, or end its contract item before that month",
		which, inv.Total.StringFixed(2))
}
