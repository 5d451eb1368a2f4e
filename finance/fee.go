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
// parties, and either charge the payer (debit customer) or be an
// administration fee; a fee is a percentage of the rent or a fixed amount.
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
	if !Charged(one, item).Equal(one) {
		return fmt.Sprintf("transaction item %d debits %s and credits %s: a line of the contract's invoices must charge the payer "+
			"(debit customer), or be an administration fee the owners pay the business (debit owner, credit business), "+
			"which is on the invoice but not in its total", item.ID, item.Debit, item.Credit)
	}
	return ""
}

// feeItemIDs lists the transaction items of the fees among items: the
// lines booked as them are not in an invoice's total.
func feeItemIDs(items []ContractItem) []int64 {
	var ids []int64
	for i := range items {
		if items[i].Fee() && !slices.Contains(ids, items[i].ItemID) {
			ids = append(ids, items[i].ItemID)
		}
	}
	return ids
}

// chargedTotal is what lines charge the payer: the sum of those not booked
// as one of the fee items fees.
func chargedTotal(lines []InvoiceItem, fees []int64) decimal.Decimal {
	total := decimal.Zero
	for i, l := range lines {
		switch {
		case len(fees) > 0 && slices.Contains(fees, l.ItemID):
		case i == 0:
			total = l.Amount
		default:
			total = total.Add(l.Amount)
		}
	}
	return total
}
