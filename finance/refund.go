package finance

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/shopspring/decimal"
)

// Refunds (docs/ledger.md, "Refunds"; docs/finance.md, "Refunds and
// write-offs"). A refund gives the payer back part or all of a payment
// that stands: the payment's entries stay, and the refund adds entries that
// take back, from every party, the same proportion of what the payment
// booked to it. The proportional split, to the cent, is RefundPayment.

// RefundBase is an entry of the payment a refund takes back from: the
// entry as posted (its ID set) and the part of its amount that earlier
// refunds took back already.
type RefundBase struct {
	Entry    Entry
	Refunded decimal.Decimal
}

// remaining is what is left of the entry to refund.
func (b RefundBase) remaining() decimal.Decimal { return b.Entry.Amount.Sub(b.Refunded) }

// RefundEntry is an entry of a refund: part of payment entry RefundsID
// taken back, its parties, item, plan and description, debit and credit
// swapped, mode chargeback.
type RefundEntry struct {
	Entry
	RefundsID int64 `json:"refunds_id"`
}

// refundLine is one line of the payment, as its entries hold it: the
// entries that share an item, a description and a guarantee (a line's
// debit side and credit side, the owners' parts of a side split by share).
type refundLine struct {
	debits, credits []int // indexes into the bases
	rem             decimal.Decimal
	first           int
	payer           int // +1: the line charges the payer; -1: it credits the payer (a discount); 0: neither
	part            decimal.Decimal
}

// Refundable is what the payer may still be refunded of a payment: what
// the payment's entries left standing charge the payer (the customer's
// debits less its credits, less what earlier refunds took back of each).
// It is the payment's settled total (the invoice's paid_amount) less the
// refunds so far.
func Refundable(base []RefundBase) decimal.Decimal {
	total := decimal.Zero
	for _, b := range base {
		if b.Entry.Extract != PartyCustomer {
			continue
		}
		if b.Entry.Type == Debit {
			total = total.Add(b.remaining())
		} else if b.Entry.Type == Credit {
			total = total.Sub(b.remaining())
		}
	}
	return total
}

// RefundPayment computes the entries of a refund of amount of the payment
// whose entries are base. The rule, in cents:
//
//   - The payment's entries are taken line by line: the entries sharing an
//     item, a description and a guarantee (the settlement of a guaranteed
//     transfer) are one line, whose debits and credits balance. A line of
//     debits on the business alone is the bank's tariff (BankTariff): the
//     bank kept it, and it is not refunded.
//   - Each line's part is what is left of it (its amount less earlier
//     refunds) × amount / what the payer has left to refund (Refundable),
//     rounded down, and up for a line crediting the payer (a discount), so
//     that the payer's lines never give back more than amount; the cents
//     the payer's lines then lack go to the payer's charged lines, the
//     largest left first (on a tie, the first posted), each up to what is
//     left of it. The payer is refunded amount exactly.
//   - Within a line, each side's part is split among its entries in
//     proportion to what is left of each (the owners' parts of a split),
//     rounded down, the cents left over to the largest first.
//
// Refunding all that is left gives every entry its remainder exactly. Each
// refund entry is its entry with debit and credit swapped, mode
// chargeback, RefundsID the entry; a part of zero gives no entry. They
// come line by line, in the order of the lines' first entries, each
// line's debit side first. The refund balances line by line. Problems
// name amount.
func RefundPayment(base []RefundBase, amount decimal.Decimal) ([]RefundEntry, error) {
	refundable := Refundable(base)
	var ps Problems
	switch {
	case !amount.IsPositive():
		ps.add("amount", "must be more than zero")
	case !amount.Equal(RoundCents(amount)):
		ps.add("amount", "%s has more than two decimal places", amount)
	case amount.GreaterThan(refundable):
		ps.add("amount", "%s is more than the payment has left to refund (%s)", amount.StringFixed(2), refundable.StringFixed(2))
	}
	if len(ps) > 0 {
		return nil, ps
	}
	lines, err := refundLines(base)
	if err != nil {
		return nil, err
	}
	apportionLines(lines, toCents(amount), toCents(refundable))
	var out []RefundEntry
	for _, l := range lines {
		for _, side := range [][]int{l.debits, l.credits} {
			weights := make([]decimal.Decimal, len(side))
			for i, idx := range side {
				weights[i] = toCents(base[idx].remaining())
			}
			for i, part := range apportion(l.part, weights) {
				if part.IsPositive() {
					out = append(out, refundEntry(base[side[i]].Entry, part.Shift(-2)))
				}
			}
		}
	}
	return out, nil
}

// refundLines groups the bases into lines, in the order of their first
// entry, leaving the bank's tariff out. A line whose sides do not balance
// is an error: the entries are not a payment's.
func refundLines(base []RefundBase) ([]*refundLine, error) {
	type key struct {
		item, guarantee int64
		description     string
	}
	byKey := map[key]*refundLine{}
	var lines []*refundLine
	for i, b := range base {
		e := b.Entry
		if b.Refunded.IsNegative() || b.remaining().IsNegative() {
			return nil, fmt.Errorf("refund: entry %d of %s has %s refunded", e.ID, e.Amount, b.Refunded)
		}
		k := key{e.ItemID, e.GuaranteedTransferID, e.Description}
		l := byKey[k]
		if l == nil {
			l = &refundLine{first: i}
			byKey[k] = l
			lines = append(lines, l)
		}
		switch e.Type {
		case Debit:
			l.debits = append(l.debits, i)
			if e.Extract == PartyCustomer {
				l.payer++
			}
		case Credit:
			l.credits = append(l.credits, i)
			if e.Extract == PartyCustomer {
				l.payer--
			}
		default:
			return nil, fmt.Errorf("refund: entry %d is a %s, not a payment's debit or credit", e.ID, e.Type)
		}
	}
	kept := lines[:0]
	for _, l := range lines {
		debits, credits := sumRemaining(base, l.debits), sumRemaining(base, l.credits)
		switch {
		case debits.Equal(credits):
		case len(l.credits) == 0 && onlyBusiness(base, l.debits):
			continue // the bank's tariff: the bank kept it
		default:
			return nil, fmt.Errorf("refund: the line of entry %d has %s left of its debits and %s of its credits",
				base[l.first].Entry.ID, debits, credits)
		}
		l.rem = toCents(debits)
		l.payer = cmp.Compare(l.payer, 0)
		kept = append(kept, l)
	}
	return kept, nil
}

// apportionLines sets each line's part of a refund of amount cents out of
// refundable cents (RefundPayment's rule).
func apportionLines(lines []*refundLine, amount, refundable decimal.Decimal) {
	given := decimal.Zero // what the payer's lines give back so far
	var charged []*refundLine
	for _, l := range lines {
		q, r := l.rem.Mul(amount).QuoRem(refundable, 0)
		if l.payer < 0 && !r.IsZero() {
			q = q.Add(one)
		}
		l.part = q
		switch l.payer {
		case 1:
			given = given.Add(q)
			charged = append(charged, l)
		case -1:
			given = given.Sub(q)
		}
	}
	slices.SortStableFunc(charged, func(a, b *refundLine) int { return b.rem.Cmp(a.rem) })
	left := amount.Sub(given)
	for _, l := range charged {
		if !left.IsPositive() {
			break
		}
		more := decimal.Min(left, l.rem.Sub(l.part))
		l.part = l.part.Add(more)
		left = left.Sub(more)
	}
}

// apportion splits total among weights in proportion, rounded down, the
// units left over one by one to the largest weights first (on a tie, the
// first), never more than a weight; total is at most the sum of weights.
func apportion(total decimal.Decimal, weights []decimal.Decimal) []decimal.Decimal {
	parts := make([]decimal.Decimal, len(weights))
	sum := decimal.Zero
	for _, w := range weights {
		sum = sum.Add(w)
	}
	if sum.IsZero() {
		for i := range parts {
			parts[i] = decimal.Zero
		}
		return parts
	}
	left := total
	order := make([]int, len(weights))
	for i, w := range weights {
		parts[i], _ = w.Mul(total).QuoRem(sum, 0)
		left = left.Sub(parts[i])
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return weights[b].Cmp(weights[a]) })
	for left.IsPositive() {
		moved := false
		for _, i := range order {
			if left.IsPositive() && parts[i].LessThan(weights[i]) {
				parts[i], left, moved = parts[i].Add(one), left.Sub(one), true
			}
		}
		if !moved {
			break
		}
	}
	return parts
}

// refundEntry is the refund of part of e: e with debit and credit
// swapped, mode chargeback, pointing at e.
func refundEntry(e Entry, part decimal.Decimal) RefundEntry {
	r := RefundEntry{Entry: e, RefundsID: e.ID}
	r.ID, r.ReversesID, r.Mode, r.Amount = 0, 0, ModeChargeback, part
	if e.Type == Debit {
		r.Type = Credit
	} else {
		r.Type = Debit
	}
	return r
}

func sumRemaining(base []RefundBase, idx []int) decimal.Decimal {
	s := decimal.Zero
	for _, i := range idx {
		s = s.Add(base[i].remaining())
	}
	return s
}

func onlyBusiness(base []RefundBase, idx []int) bool {
	for _, i := range idx {
		if base[i].Entry.Extract != PartyBusiness {
			return false
		}
	}
	return true
}

// toCents is an amount in cents.
func toCents(d decimal.Decimal) decimal.Decimal { return d.Shift(2) }

// WriteOffLoss books the loss of an invoice written off (docs/ledger.md,
// "Write-offs") with item, the company's write-off item: one line of the
// invoice's total booked as the item books it, as a payment books a line
// (PostPayment: a debit on its debit party's statement, which must be the
// business, whose loss it is, and a credit on its credit party's, split
// among the building's owners by share when it is `owner`), mode
// chargeback: nothing was received, and the entries are the invoice's,
// written outside its payment. No entry when the total is zero. Problems
// name write_off_item_id.
func WriteOffLoss(inv Invoice, item TransactionItem, p Parties) ([]Entry, error) {
	if item.Debit != PartyBusiness {
		return nil, Problems{{Field: "write_off_item_id", Message: fmt.Sprintf(
			"transaction item %d debits %q: the loss of a write-off is the business's, so the item must debit business", item.ID, item.Debit)}}
	}
	line := inv
	line.Items = []InvoiceItem{{Kind: LineLine, ItemID: item.ID, Amount: inv.Total}}
	line.Total = Charged(inv.Total, item)
	posting, err := PostPayment(PostingInput{Invoice: line, Items: []TransactionItem{item}, Parties: p})
	if err != nil {
		var ps Problems
		if errors.As(err, &ps) {
			for i := range ps {
				ps[i] = Problem{Field: "write_off_item_id", Message: ps[i].Field + ": " + ps[i].Message}
			}
			return nil, ps
		}
		return nil, err
	}
	for i := range posting.Entries {
		posting.Entries[i].Mode = ModeChargeback
	}
	return posting.Entries, nil
}
