package finance

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// The rent a period bills (docs/finance.md, "The rent of each period"): a
// contract's rent changes on its readjustments, whose history
// (contract_readjustments) keeps the rent each one found in force. A
// period bills the rent in force on its first day: that of the first
// readjustment dated after that day, else the contract's current rent.

// RentChange is a readjustment of a contract's rent as the schedule reads
// it: its date, and the rent in force until the day before (the
// readjustment's old_amount). Periods starting before At and on or after
// the previous change's At bill Before.
type RentChange struct {
	At     Date            `json:"at"`
	Before decimal.Decimal `json:"before"`
}

// RentOn is the rent of a period starting on d: the Before of the
// earliest change of RentHistory dated after d, or, when none is, the
// current rent (RentAmount). RentHistory may be in any order.
func (c *Contract) RentOn(d Date) decimal.Decimal {
	var next *RentChange
	for i := range c.RentHistory {
		ch := &c.RentHistory[i]
		if d.Before(ch.At) && (next == nil || ch.At.Before(next.At)) {
			next = ch
		}
	}
	if next == nil {
		return c.RentAmount()
	}
	return next.Before
}

// rentHistory reports a change without a date, or with a negative rent
// or one out of range, named rent_history[i].
func (ps *Problems) rentHistory(h []RentChange) {
	for i, ch := range h {
		field := fmt.Sprintf("rent_history[%d]", i)
		if ch.At.IsZero() {
			ps.add(field+".at", "required")
		}
		if ch.Before.IsNegative() {
			ps.add(field+".before", "must not be negative; got %s", ch.Before)
		}
		ps.amount(field+".before", ch.Before)
	}
}
