package storage

import (
	"fmt"

	"github.com/propfin/propfin/finance"
)

// addItem adds a contract item to what generation reads of its contract,
// with the problems of the lines it bills: those of an item of mode item
// or service, and of an administration fee whatever its mode (a fee the
// rule leaves out, a share of a commission base, is named rather than
// silently not billed). Commissions of other items are splits between
// parties, not lines, and are not checked.
func (b *contractBilling) addItem(it finance.ContractItem) {
	if it.ItemID != 0 && (it.Billed() || it.Fee()) {
		field := fmt.Sprintf("items[%d].item_id", len(b.in.Items))
		item := finance.TransactionItem{ID: it.ItemID}
		if it.Item != nil {
			item = *it.Item
		}
		if msg := it.LineProblem(item); msg != "" {
			b.problems = append(b.problems, finance.Problem{Field: field, Message: msg})
		}
		b.lineItems = append(b.lineItems, item)
	}
	b.in.Items = append(b.in.Items, it)
}
