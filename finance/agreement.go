package finance

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/shopspring/decimal"
)

// Renegotiation agreements (acordos): one payer's open invoices replaced
// by installments (docs/finance.md, "Renegotiation agreements"). PlanAgreement
// reckons the debt on the agreement's date and cuts it into installments
// whose lines keep where each part came from, so that the owners are paid
// their share as the installments are; BrokenLines gives the originals back
// less what the paid installments carried of them.

// AgreementTerms are what an agreement is asked with. The waivers are
// percentages (50 waives half); Discount is an amount off the debt left
// after the waivers.
type AgreementTerms struct {
	// Date is the agreement's date: the late fee and interest are reckoned
	// on it, and no installment falls due before it.
	Date           Date
	Installments   int
	FirstDueDate   Date
	IntervalMonths int
	LateFeeWaiver  decimal.Decimal
	InterestWaiver decimal.Decimal
	Discount       decimal.Decimal
}

// The bounds of an agreement's terms.
const (
	MaxAgreementInstallments = 120
	MaxAgreementInterval     = 12
	// MaxAgreementYears bounds how far after the agreement its first
	// installment may fall due.
	MaxAgreementYears = 5
)

// AgreementOriginal is an invoice asked to be renegotiated: the invoice
// with its client lines (kind line) and the owners of its building (its
// own, else its contract's), which a line booked to `owner` without an
// owner of its own is shared among.
type AgreementOriginal struct {
	Invoice Invoice
	Owners  []Share
}

// AgreementInput is what PlanAgreement reckons: the terms, the originals
// in the order they were asked for, the transaction items of their lines,
// and the company's active item of type fee (nil when none), which the
// late fee and interest kept are carried with, as a payment books them.
type AgreementInput struct {
	Terms     AgreementTerms
	Originals []AgreementOriginal
	Items     []TransactionItem
	FeeItem   *TransactionItem
}

// AgreementPart says what part of an original an installment's line
// carries.
type AgreementPart string

// The parts of an original.
const (
	PartLine     AgreementPart = "line"     // a part of one of its lines
	PartLateFee  AgreementPart = "late_fee" // of the late fee kept
	PartInterest AgreementPart = "interest" // of the interest kept
)

// AgreementLine is one line of an installment: a share of one part of one
// original. OriginLineID is the original's line it is a share of (0 for
// the late fee and interest); a line of the original booked to the
// building's owners is cut by their shares first, so that each owner's
// part names its owner.
type AgreementLine struct {
	Part            AgreementPart   `json:"part"`
	OriginInvoiceID int64           `json:"origin_invoice_id"`
	OriginLineID    int64           `json:"origin_line_id"`
	ItemID          int64           `json:"item_id"`
	Amount          decimal.Decimal `json:"amount"`
	Description     string          `json:"description"`
	OwnerID         int64           `json:"owner_id"`
	BrokerID        int64           `json:"broker_id"`
}

// AgreementDebt is one original's debt on the agreement's date: its total,
// the days late, the late fee and interest its rules give (Settle) and
// what of them is waived, its share of the discount, and what it adds to
// the agreement (Amount = Total + LateFee - LateFeeWaived + Interest -
// InterestWaived - Discount).
type AgreementDebt struct {
	InvoiceID      int64           `json:"invoice_id"`
	DueDate        Date            `json:"due_date"`
	Total          decimal.Decimal `json:"total"`
	DaysLate       int             `json:"days_late"`
	LateFee        decimal.Decimal `json:"late_fee"`
	LateFeeWaived  decimal.Decimal `json:"late_fee_waived"`
	Interest       decimal.Decimal `json:"interest"`
	InterestWaived decimal.Decimal `json:"interest_waived"`
	Discount       decimal.Decimal `json:"discount"`
	Amount         decimal.Decimal `json:"amount"`
}

// AgreementInstallment is one installment: its number (1 is the first),
// due date, amount and lines. Its lines charge the payer its amount
// (Charged, summed).
type AgreementInstallment struct {
	Number  int             `json:"number"`
	DueDate Date            `json:"due_date"`
	Amount  decimal.Decimal `json:"amount"`
	Lines   []AgreementLine `json:"lines"`
}

// AgreementPlan is an agreement reckoned: the originals' debts (oldest due
// first), their sums, and the installments. Total = Principal + LateFee -
// LateFeeWaived + Interest - InterestWaived - Discount, the sum of the
// installments.
type AgreementPlan struct {
	Debts          []AgreementDebt        `json:"debts"`
	Principal      decimal.Decimal        `json:"principal"`
	LateFee        decimal.Decimal        `json:"late_fee"`
	LateFeeWaived  decimal.Decimal        `json:"late_fee_waived"`
	Interest       decimal.Decimal        `json:"interest"`
	InterestWaived decimal.Decimal        `json:"interest_waived"`
	Discount       decimal.Decimal        `json:"discount"`
	Total          decimal.Decimal        `json:"total"`
	Installments   []AgreementInstallment `json:"installments"`
}

// RenegotiableStatuses are the statuses of an invoice an agreement takes:
// open and still owed as it is.
var RenegotiableStatuses = []InvoiceStatus{InvoiceUnpaid, InvoiceOverdue, InvoiceInProtest}

// PlanAgreement reckons an agreement (docs/finance.md, "Renegotiation
// agreements"):
//   - each original's debt on Terms.Date: its total, and the late fee and
//     interest of its own rules (Settle on that date; none when not late),
//     less LateFeeWaiver and InterestWaiver percent of them (each rounded);
//   - the discount taken off the debt left, pro rata over every part (each
//     line of each original, each late fee and interest kept), so that
//     every party bears it in proportion to what the debt owes it;
//   - the total cut into Installments installments of equal cents, the
//     rounding cents on the first, due on FirstDueDate and every
//     IntervalMonths months after (AddMonths of the first due date);
//   - each installment's lines a share of every part in proportion to the
//     installment (installments 2 to n are cut from what is left, the
//     first takes the rest), so that a part's shares add up to the part
//     and an installment's lines charge the payer its amount exactly.
//
// Every problem of the input is answered at once, named by the API's
// fields (invoices.N for the N-th invoice asked for).
func PlanAgreement(in AgreementInput) (AgreementPlan, error) {
	ag := newAgreementBuilder(&in)
	if ps := ag.check(); len(ps) > 0 {
		return AgreementPlan{}, ps
	}
	plan, err := ag.cut()
	if err != nil {
		return AgreementPlan{}, err
	}
	return plan, nil
}

// AgreementProblems are the problems of in PlanAgreement answers before it
// cuts the debt: the terms' by themselves and each original's (its payer,
// business, state, and what its settlement today needs), none of which
// depends on the debt as a whole. A request naming invoices not found
// answers these of the others with them, so that one 422 lists every
// problem its caller can fix.
func AgreementProblems(in AgreementInput) Problems {
	return newAgreementBuilder(&in).check()
}

func newAgreementBuilder(in *AgreementInput) *agreementBuilder {
	ag := &agreementBuilder{in: in, items: make(map[int64]TransactionItem, len(in.Items))}
	for _, it := range in.Items {
		ag.items[it.ID] = it
	}
	return ag
}

// check is the terms' and the originals' problems, the originals'
// debts reckoned when there are none.
func (ag *agreementBuilder) check() Problems {
	ps := checkTerms(&ag.in.Terms)
	ag.checkOriginals(&ps)
	if len(ps) > 0 {
		return ps
	}
	ag.reckon(&ps)
	return ps
}

// checkTerms checks the terms by themselves.
func checkTerms(t *AgreementTerms) Problems {
	var ps Problems
	switch {
	case t.Installments < 1:
		ps.add("installments", "must be at least 1; got %d", t.Installments)
	case t.Installments > MaxAgreementInstallments:
		ps.add("installments", "must be at most %d; got %d", MaxAgreementInstallments, t.Installments)
	}
	if t.IntervalMonths < 1 || t.IntervalMonths > MaxAgreementInterval {
		ps.add("interval_months", "must be between 1 and %d; got %d", MaxAgreementInterval, t.IntervalMonths)
	}
	switch {
	case t.FirstDueDate.IsZero():
		ps.add("first_due_date", "required")
	case t.FirstDueDate.Before(t.Date):
		ps.add("first_due_date", "%s is in the past: the agreement is made on %s, and its first installment falls due on that day or after",
			t.FirstDueDate, t.Date)
	case t.FirstDueDate.After(t.Date.AddMonths(12 * MaxAgreementYears)):
		ps.add("first_due_date", "%s is more than %d years after the agreement's date, %s", t.FirstDueDate, MaxAgreementYears, t.Date)
	}
	for _, w := range []struct {
		field string
		pct   decimal.Decimal
	}{{"late_fee_waiver", t.LateFeeWaiver}, {"interest_waiver", t.InterestWaiver}} {
		if w.pct.IsNegative() || w.pct.GreaterThan(hundred) || !w.pct.Equal(w.pct.Round(2)) {
			ps.add(w.field, "must be a percentage from 0 to 100 with at most two decimal places; got %s", w.pct)
		}
	}
	if t.Discount.IsNegative() || !t.Discount.Equal(RoundCents(t.Discount)) || !below(t.Discount, maxAmountDigits) {
		ps.add("discount", "must be an amount of at least 0.00 with at most two decimal places; got %s", t.Discount)
	}
	return ps
}

// agreementBuilder reckons an agreement: the parts of the debt, their
// discounted amounts and their installments.
type agreementBuilder struct {
	in    *AgreementInput
	items map[int64]TransactionItem
	order []int // the originals' indexes, oldest due first
	debts []AgreementDebt
	parts []debtPart
}

// debtPart is one part of the debt: what an installment line carries a
// share of, with what the part charges the payer (+1, -1 or 0 times its
// amount).
type debtPart struct {
	line   AgreementLine
	debt   int // index in debts
	charge int
}

func (p *debtPart) charged() decimal.Decimal {
	return p.line.Amount.Abs().Mul(decimal.NewFromInt(int64(p.charge)))
}

// checkOriginals checks the originals: at least one, each once, one payer
// and one business, each open.
func (ag *agreementBuilder) checkOriginals(ps *Problems) {
	originals := ag.in.Originals
	if len(originals) == 0 {
		ps.add("invoices", "must name at least one invoice")
		return
	}
	first := &originals[0].Invoice
	for i := range originals {
		inv := &originals[i].Invoice
		field := fmt.Sprintf("invoices.%d", i)
		switch {
		case slices.IndexFunc(originals[:i], func(o AgreementOriginal) bool { return o.Invoice.ID == inv.ID }) >= 0:
			ps.add(field, "invoice %d is named twice", inv.ID)
		case inv.PayerID != first.PayerID:
			ps.add(field, "invoice %d is of payer %d, not of payer %d (invoice %d's): an agreement is of one payer's invoices",
				inv.ID, inv.PayerID, first.PayerID, first.ID)
		case inv.BusinessID != first.BusinessID:
			ps.add(field, "invoice %d is booked to business %d, not to business %d (invoice %d's): an agreement is of one business's invoices",
				inv.ID, inv.BusinessID, first.BusinessID, first.ID)
		default:
			if msg := renegotiable(inv); msg != "" {
				ps.add(field, "invoice %d %s", inv.ID, msg)
			}
		}
	}
}

// renegotiable says why an invoice cannot be renegotiated; "" when it can.
func renegotiable(inv *Invoice) string {
	switch {
	case inv.Status == InvoicePartiallyPaid:
		// an installment's lines are shares of the originals' whole lines:
		// docs/ledger.md, "Part payments"
		return "is partially paid: its parts stand, and an agreement renegotiates whole invoices; let the payer pay the rest, " +
			"or undo its parts (DELETE /invoices/{id}/payments/{part}) and renegotiate it whole"
	case inv.Paid || inv.Status == InvoicePaid:
		return "is paid: only an open invoice is renegotiated"
	case inv.Status == InvoiceRenegotiated:
		return "is renegotiated already: cancel or break its agreement first"
	case !slices.Contains(RenegotiableStatuses, inv.Status):
		return fmt.Sprintf("is %s: only an unpaid, overdue or protested invoice is renegotiated", inv.Status)
	case inv.DueDate.IsZero():
		return "has no due date"
	}
	return ""
}

// reckon computes each original's debt and parts, oldest due first.
func (ag *agreementBuilder) reckon(ps *Problems) {
	ag.order = make([]int, len(ag.in.Originals))
	for i := range ag.order {
		ag.order[i] = i
	}
	slices.SortStableFunc(ag.order, func(a, b int) int {
		x, y := &ag.in.Originals[a].Invoice, &ag.in.Originals[b].Invoice
		return cmp.Or(x.DueDate.Compare(y.DueDate), cmp.Compare(x.ID, y.ID))
	})
	for _, i := range ag.order {
		ag.reckonOriginal(ps, i)
	}
}

// reckonOriginal adds one original's debt and parts.
func (ag *agreementBuilder) reckonOriginal(ps *Problems, i int) {
	o := &ag.in.Originals[i]
	inv := &o.Invoice
	field := fmt.Sprintf("invoices.%d", i)
	s, err := Settle(*inv, ag.in.Terms.Date)
	var settleProblems Problems
	if errors.As(err, &settleProblems) {
		for _, p := range settleProblems {
			ps.add(field+"."+p.Field, "%s", p.Message)
		}
		return
	}
	if err != nil {
		ps.add(field, "invoice %d: %v", inv.ID, err)
		return
	}
	t := &ag.in.Terms
	d := AgreementDebt{InvoiceID: inv.ID, DueDate: inv.DueDate, Total: inv.Total, DaysLate: s.DaysLate,
		LateFee: s.LateFee, Interest: s.Interest,
		LateFeeWaived: percentOf(s.LateFee, t.LateFeeWaiver), InterestWaived: percentOf(s.Interest, t.InterestWaiver)}
	k := len(ag.debts)
	ag.debts = append(ag.debts, d)
	charged := decimal.Zero
	for j, l := range inv.Items {
		it, ok := ag.items[l.ItemID]
		if !ok {
			ps.add(field, "invoice %d: line %d's transaction item %d not found", inv.ID, j, l.ItemID)
			continue
		}
		if msg := Bookable(it); msg != "" {
			ps.add(field, "invoice %d: line %d: %s", inv.ID, j, msg)
			continue
		}
		charged = charged.Add(Charged(l.Amount, it))
		desc := l.Description
		if desc == "" {
			desc = it.Description
		}
		ag.addParts(ps, field, o, k, it, AgreementLine{Part: PartLine, OriginInvoiceID: inv.ID, OriginLineID: l.ID,
			ItemID: l.ItemID, Amount: l.Amount, Description: fmt.Sprintf("%s (fatura %d)", desc, inv.ID),
			OwnerID: l.OwnerID, BrokerID: l.BrokerID})
	}
	if len(*ps) == 0 && !charged.Equal(inv.Total) {
		ps.add(field, "invoice %d: its total %s is not what its lines charge the payer (%s)", inv.ID,
			inv.Total.StringFixed(2), charged.StringFixed(2))
	}
	ag.addFee(ps, field, o, k, PartLateFee, d.LateFee.Sub(d.LateFeeWaived), fmt.Sprintf("Multa por atraso (fatura %d)", inv.ID))
	ag.addFee(ps, field, o, k, PartInterest, d.Interest.Sub(d.InterestWaived),
		fmt.Sprintf("Juros de mora (fatura %d, %s)", inv.ID, Dias(d.DaysLate)))
}

// addFee adds the late fee or interest kept of an original as a part of
// the company's fee item, which must charge the payer.
func (ag *agreementBuilder) addFee(ps *Problems, field string, o *AgreementOriginal, k int, part AgreementPart, amount decimal.Decimal, desc string) {
	if !amount.IsPositive() {
		return
	}
	fee := ag.in.FeeItem
	switch {
	case fee == nil:
		ps.add(field, "invoice %d owes %s of %s, but the company has no active transaction item of type fee to carry it",
			o.Invoice.ID, amount.StringFixed(2), part)
		return
	case !Charged(one, *fee).Equal(one):
		ps.add(field, "invoice %d owes %s of %s, but the company's fee item %d does not debit the customer (debit %q, credit %q)",
			o.Invoice.ID, amount.StringFixed(2), part, fee.ID, fee.Debit, fee.Credit)
		return
	}
	ag.addParts(ps, field, o, k, *fee, AgreementLine{Part: part, OriginInvoiceID: o.Invoice.ID, ItemID: fee.ID,
		Amount: amount, Description: desc})
}

// addParts adds a part, cut among the building's owners by share when it
// is booked to `owner` without an owner of its own (as the posting would
// cut it), so that each owner's part names its owner.
func (ag *agreementBuilder) addParts(ps *Problems, field string, o *AgreementOriginal, k int, it TransactionItem, l AgreementLine) {
	charge := int(Charged(l.Amount, it).Sign())
	if !BooksOwner(it) || l.OwnerID != 0 || l.Amount.IsZero() {
		ag.parts = append(ag.parts, debtPart{line: l, debt: k, charge: charge})
		return
	}
	if len(o.Owners) == 0 {
		ps.add(field, "invoice %d: transaction item %d books a line to an owner, and the invoice's building has no owners to share it: "+
			"set the line's owner_id, or add the building's owners", o.Invoice.ID, it.ID)
		return
	}
	shares, err := SplitByShares(l.Amount, o.Owners)
	if err != nil {
		ps.add(field, "invoice %d: %v", o.Invoice.ID, err)
		return
	}
	for j, s := range shares {
		if s.IsZero() {
			continue
		}
		p := l
		p.Amount, p.OwnerID = s, o.Owners[j].PersonID
		ag.parts = append(ag.parts, debtPart{line: p, debt: k, charge: charge})
	}
}

// cut takes the discount off the parts and cuts them into installments.
func (ag *agreementBuilder) cut() (AgreementPlan, error) {
	t := &ag.in.Terms
	gross := sumCharged(ag.parts)
	plan := AgreementPlan{}
	for _, d := range ag.debts {
		plan.Principal = plan.Principal.Add(d.Total)
		plan.LateFee, plan.LateFeeWaived = plan.LateFee.Add(d.LateFee), plan.LateFeeWaived.Add(d.LateFeeWaived)
		plan.Interest, plan.InterestWaived = plan.Interest.Add(d.Interest), plan.InterestWaived.Add(d.InterestWaived)
	}
	if !gross.IsPositive() {
		return plan, Problems{{Field: "invoices", Message: fmt.Sprintf("the invoices owe %s after the waivers: nothing to renegotiate",
			gross.StringFixed(2))}}
	}
	if !t.Discount.LessThan(gross) {
		return plan, Problems{{Field: "discount", Message: fmt.Sprintf("%s is not less than the debt after the waivers, %s",
			t.Discount.StringFixed(2), gross.StringFixed(2))}}
	}
	total := gross.Sub(t.Discount)
	n := int64(t.Installments)
	each := total.Shift(2).Div(decimal.NewFromInt(n)).Floor().Shift(-2)
	if !each.IsPositive() {
		return plan, Problems{{Field: "installments", Message: fmt.Sprintf("the debt of %s cannot be cut into %d installments of at least 0.01",
			total.StringFixed(2), n)}}
	}
	ag.discount(total, gross)
	plan.Discount, plan.Total = t.Discount, total
	for _, d := range ag.debts {
		d.Amount = d.Total.Add(d.LateFee).Sub(d.LateFeeWaived).Add(d.Interest).Sub(d.InterestWaived).Sub(d.Discount)
		plan.Debts = append(plan.Debts, d)
	}
	plan.Installments = ag.installments(total, each)
	return plan, nil
}

// discount scales every part to total out of gross and records each
// debt's share of the discount.
func (ag *agreementBuilder) discount(total, gross decimal.Decimal) {
	shares := apportionParts(ag.parts, total, gross)
	for i := range ag.parts {
		p := &ag.parts[i]
		before := p.charged()
		p.line.Amount = shares[i]
		d := &ag.debts[p.debt]
		d.Discount = d.Discount.Add(before.Sub(p.charged()))
	}
}

// installments cuts the parts (their amounts are the debt, total) into
// installments of each, the first taking the rest.
func (ag *agreementBuilder) installments(total, each decimal.Decimal) []AgreementInstallment {
	t := &ag.in.Terms
	n := t.Installments
	out := make([]AgreementInstallment, n)
	rest := make([]debtPart, len(ag.parts))
	copy(rest, ag.parts)
	left := total
	for k := 1; k < n; k++ {
		shares := apportionParts(rest, each, left)
		out[k] = ag.installment(k, each, rest, shares)
		for i := range rest {
			rest[i].line.Amount = rest[i].line.Amount.Sub(shares[i])
		}
		left = left.Sub(each)
	}
	all := make([]decimal.Decimal, len(rest))
	for i := range rest {
		all[i] = rest[i].line.Amount
	}
	out[0] = ag.installment(0, left, rest, all)
	return out
}

// installment is installment k (from 0) of amount with the shares of the
// parts; parts with no share give no line.
func (ag *agreementBuilder) installment(k int, amount decimal.Decimal, parts []debtPart, shares []decimal.Decimal) AgreementInstallment {
	t := &ag.in.Terms
	in := AgreementInstallment{Number: k + 1, DueDate: t.FirstDueDate.AddMonths(k * t.IntervalMonths), Amount: amount,
		Lines: []AgreementLine{}}
	for i, s := range shares {
		if s.IsZero() {
			continue
		}
		l := parts[i].line
		l.Amount = s
		in.Lines = append(in.Lines, l)
	}
	return in
}

func sumCharged(parts []debtPart) decimal.Decimal {
	sum := decimal.Zero
	for i := range parts {
		sum = sum.Add(parts[i].charged())
	}
	return sum
}

// apportionParts gives each part its share of target out of base (both
// positive, target at most base; base what the parts charge the payer):
// each part's amount times target / base, rounded toward zero to the cent,
// then one cent more to the parts left furthest from their due (largest
// remainder first, then the earlier part) until what the shares charge
// the payer is target exactly: to parts that charge the payer when short,
// to parts that credit it when over. Parts that charge nothing (a fee the
// owner pays the business) are rounded half up. A share has its part's
// sign and is never larger than its part.
func apportionParts(parts []debtPart, target, base decimal.Decimal) []decimal.Decimal {
	cents, b := target.Shift(2), base.Shift(2)
	shares := make([]decimal.Decimal, len(parts))
	rems := make([]decimal.Decimal, len(parts))
	charged := decimal.Zero
	for i := range parts {
		q, r := parts[i].line.Amount.Abs().Shift(2).Mul(cents).QuoRem(b, 0)
		shares[i], rems[i] = q, r
		switch parts[i].charge {
		case 0:
			if r.Add(r).GreaterThanOrEqual(b) {
				shares[i] = q.Add(one)
			}
		default:
			charged = charged.Add(q.Mul(decimal.NewFromInt(int64(parts[i].charge))))
		}
	}
	short := cents.Sub(charged).IntPart()
	side := 1
	if short < 0 {
		side, short = -1, -short
	}
	var candidates []int
	for i := range parts {
		if parts[i].charge == side {
			candidates = append(candidates, i)
		}
	}
	slices.SortStableFunc(candidates, func(x, y int) int { return rems[y].Cmp(rems[x]) })
	for _, i := range candidates[:min(int(short), len(candidates))] {
		shares[i] = shares[i].Add(one)
	}
	for i := range parts {
		shares[i] = shares[i].Shift(-2)
		if parts[i].line.Amount.IsNegative() {
			shares[i] = shares[i].Neg()
		}
	}
	return shares
}

// ReopenOriginal is an original as a broken agreement gives it back: each
// of its lines less what the paid installments carried of it (their lines
// of PartLine naming it, OriginLineID), and its total what those lines
// charge the payer (items are the lines' transaction items). What the paid
// installments carried of its late fee and interest stays paid: the rest
// of the invoice owes its own late fee and interest again, from its due
// date, when it is paid. A line is never taken below zero in magnitude.
func ReopenOriginal(inv Invoice, items []TransactionItem, paid []AgreementLine) (Invoice, error) {
	byItem := make(map[int64]TransactionItem, len(items))
	for _, it := range items {
		byItem[it.ID] = it
	}
	carried := map[int64]decimal.Decimal{}
	for _, l := range paid {
		if l.Part == PartLine && l.OriginInvoiceID == inv.ID {
			carried[l.OriginLineID] = carried[l.OriginLineID].Add(l.Amount)
		}
	}
	out := inv
	out.Items = make([]InvoiceItem, len(inv.Items))
	out.Total = decimal.Zero
	var ps Problems
	for i, l := range inv.Items {
		it, ok := byItem[l.ItemID]
		if !ok {
			ps.add(fmt.Sprintf("items[%d].item_id", i), "transaction item %d not found", l.ItemID)
			continue
		}
		left := l.Amount.Sub(carried[l.ID])
		if left.Sign()*l.Amount.Sign() < 0 {
			left = decimal.Zero
		}
		l.Amount = left
		out.Items[i] = l
		out.Total = out.Total.Add(Charged(left, it))
	}
	if len(ps) > 0 {
		return inv, ps
	}
	return out, nil
}
