package finance

import (
	"fmt"
	"slices"

	"github.com/shopspring/decimal"
)

// Entry is one ledger entry (`/transactions`): an amount, always
// positive, debited or credited on one party's statement (Extract). The
// party is named by its id column: PersonID and OwnerID for an owner,
// PersonID and BrokerID for a broker, PersonID (and TenantID on a
// contract's invoice) for the customer, BusinessID for the business.
// BusinessID is set on every entry: it is the business whose books hold
// it. ID and ReversesID are 0 until the entry is stored.
type Entry struct {
	ID         int64           `json:"id,omitempty"`
	ReversesID int64           `json:"reverses_id,omitempty"`
	Mode       EntryMode       `json:"mode"`
	Kind       LineKind        `json:"kind"` // the kind of line the entry books
	Type       EntryType       `json:"type"`
	Extract    Party           `json:"extract"`
	Amount     decimal.Decimal `json:"amount"`
	ItemID     int64           `json:"item_id"`
	PlanID     int64           `json:"plan_id,omitempty"`
	PersonID   int64           `json:"person_id,omitempty"`
	OwnerID    int64           `json:"owner_id,omitempty"`
	TenantID   int64           `json:"tenant_id,omitempty"`
	BrokerID   int64           `json:"broker_id,omitempty"`
	BusinessID int64           `json:"business_id,omitempty"`
	// Percentage is the owner's share when a line was split among the
	// building's owners; zero otherwise.
	Percentage  decimal.Decimal `json:"percentage"`
	Description string          `json:"description,omitempty"`
	// GuaranteedTransferID is, on the entries settling a guaranteed
	// transfer, the guarantee's credit on the owner's statement.
	GuaranteedTransferID int64 `json:"guaranteed_transfer_id,omitempty"`
}

// Holder is whose statement an entry is on: the extract and the party's
// id (the business id for `business`, the person id otherwise).
type Holder struct {
	Extract Party
	ID      int64
}

func (h Holder) String() string { return fmt.Sprintf("%s %d", h.Extract, h.ID) }

// Holder returns whose statement e is on.
func (e Entry) Holder() Holder {
	if e.Extract == PartyBusiness {
		return Holder{PartyBusiness, e.BusinessID}
	}
	return Holder{e.Extract, e.PersonID}
}

// Signed is e's amount as its party sees it: positive for a credit (the
// party is owed it), negative for a debit (the party owes it) and for a
// transfer (the party was paid it).
func (e Entry) Signed() decimal.Decimal {
	if e.Type == Debit || e.Type == Transfer {
		return e.Amount.Neg()
	}
	return e.Amount
}

// Balances sums the entries by statement: a party's balance is the sum of
// its credits less the sum of its debits. Parties netting to zero are
// kept with a zero balance.
func Balances(entries []Entry) map[Holder]decimal.Decimal {
	b := make(map[Holder]decimal.Decimal)
	for _, e := range entries {
		h := e.Holder()
		b[h] = b[h].Add(e.Signed())
	}
	return b
}

// Totals returns the sum of the debits and the sum of the credits; a
// balanced set of entries has them equal. A transfer is both: the debit of
// its party and the credit of the bank account it leaves.
func Totals(entries []Entry) (debits, credits decimal.Decimal) {
	for _, e := range entries {
		switch e.Type {
		case Debit:
			debits = debits.Add(e.Amount)
		case Transfer:
			debits, credits = debits.Add(e.Amount), credits.Add(e.Amount)
		default:
			credits = credits.Add(e.Amount)
		}
	}
	return debits, credits
}

// Reverse returns the entries that undo entries: each one with the same
// parties, item, plan, amount and description, debit and credit swapped,
// mode chargeback, pointing at the entry it reverses (ReversesID). The
// original entries stay: history is never deleted.
func Reverse(entries []Entry) []Entry {
	out := make([]Entry, len(entries))
	for i, e := range entries {
		e.ReversesID, e.ID, e.Mode = e.ID, 0, ModeChargeback
		if e.Type == Debit {
			e.Type = Credit
		} else {
			e.Type = Debit
		}
		out[i] = e
	}
	return out
}

// Share is an owner's share of a building, in percent.
type Share struct {
	PersonID   int64           `json:"person_id"`
	Percentage decimal.Decimal `json:"percentage"`
}

// Parties are the persons and the business a payment is booked between.
type Parties struct {
	PayerID    int64   `json:"payer_id"`    // the customer
	BusinessID int64   `json:"business_id"` // the business (company books)
	BuildingID int64   `json:"building_id"` // the invoice's building (its own, else its contract's); 0: none
	Owners     []Share `json:"owners"`      // the building's owners
}

// OwnerGap is what a side booked to `owner` lacks to be booked: nothing,
// a building, or the building's owners.
type OwnerGap string

// The gaps of an owner side.
const (
	NoOwnerGap          OwnerGap = ""                   // the line's owner, or the building's owners by share
	GapNoBuilding       OwnerGap = "no_building"        // no owner on the line, and no building
	GapNoBuildingOwners OwnerGap = "no_building_owners" // no owner on the line, and the building has none
)

// OwnerSideGap decides whether a side booked to `owner` has someone to
// be booked to: the line's owner when it names one (ownerID), else the
// building's owners, by share (SplitByShares). PostPayment refuses a line
// with a gap; the writes of an invoice and the generation of a
// contract's invoices ask the same of every line, so that an invoice that
// could never be paid is refused where it is written, not at its payment.
func OwnerSideGap(ownerID int64, p Parties) OwnerGap {
	switch {
	case ownerID > 0 || len(p.Owners) > 0:
		return NoOwnerGap
	case p.BuildingID == 0:
		return GapNoBuilding
	}
	return GapNoBuildingOwners
}

// BooksOwner reports whether a transaction item debits or credits `owner`.
func BooksOwner(item TransactionItem) bool {
	return item.Debit == PartyOwner || item.Credit == PartyOwner
}

// LineOwnerProblem says why an invoice line booked as item, naming the
// owner ownerID (0: none), could never be posted for want of an owner
// (OwnerSideGap), and the two ways to fix it; "" when it can be.
func LineOwnerProblem(item TransactionItem, ownerID int64, p Parties) string {
	if !BooksOwner(item) {
		return ""
	}
	return ownerGapProblem(item.ID, OwnerSideGap(ownerID, p), p.BuildingID)
}

// ownerGapProblem words a gap of a line of transaction item itemID.
func ownerGapProblem(itemID int64, gap OwnerGap, buildingID int64) string {
	switch gap {
	case GapNoBuilding:
		return fmt.Sprintf("transaction item %d books the line to an owner, and the invoice has no building (of its own or "+
			"its contract's) whose owners would share it: set the line's owner_id, or the invoice's building_id to a building with owners", itemID)
	case GapNoBuildingOwners:
		return fmt.Sprintf("transaction item %d books the line to an owner, and building %d has no owners to share it: "+
			"set the line's owner_id, or add the building's owners (/buildings/%d/owners)", itemID, buildingID, buildingID)
	}
	return ""
}

// PostingInput is what PostPayment books: the paid invoice with its lines
// (kind line only), the transaction items they use, the parties, the
// settlement from Settle on the payment date, and the company's active
// items of type `fee` and `discount` the settlement lines are booked with
// (nil when the company has none).
type PostingInput struct {
	Invoice      Invoice
	Items        []TransactionItem
	Parties      Parties
	Settlement   Settlement
	FeeItem      *TransactionItem
	DiscountItem *TransactionItem
	// Part, for a part payment (docs/ledger.md, "Part payments"), places
	// it in the invoice: Settlement.Invoice is the principal it pays, and
	// each line is booked for its share of it (linesThrough), each owner
	// for its part of that share (splitDelta). Nil: the whole invoice.
	Part *PartShare
}

// Posting is a payment booked: the settlement lines to add to the invoice
// (non-zero only) and the ledger entries, balanced.
type Posting struct {
	Lines   []InvoiceItem `json:"lines"`
	Entries []Entry       `json:"entries"`
}

// PostPayment books the payment of an invoice, line by line: each line
// gives a debit entry on its item's debit party's statement and a credit
// entry on its credit party's statement, of the line's amount. A side on
// `owner` with no owner on the line is split among the building's owners
// by share (SplitByShares). The settlement's late fee and interest are two
// more lines of the fee item, debit customer, credit the fee item's credit
// party; its discount a line of the discount item, debit the party of
// ticket_discount_action, credit customer. A negative line is booked with
// its sides swapped (each party keeps its side's plan). With in.Part, it
// books a part of the invoice's payment: each line for its share of the
// part's principal, the settlement the part's own. Every problem of the
// input is answered at once as Problems. docs/ledger.md.
func PostPayment(in PostingInput) (Posting, error) {
	p := poster{in: &in, items: make(map[int64]TransactionItem, len(in.Items))}
	for _, it := range in.Items {
		p.items[it.ID] = it
	}
	p.checkParties()
	p.bookLines()
	p.bookSettlement()
	if len(p.ps) > 0 {
		return Posting{}, p.ps
	}
	return Posting{Lines: p.lines, Entries: p.entries}, nil
}

// poster accumulates a posting and the problems found on the way.
type poster struct {
	in      *PostingInput
	items   map[int64]TransactionItem
	ps      Problems
	lines   []InvoiceItem
	entries []Entry
}

// booking is one line to book: its item, amount and sides.
type booking struct {
	field       string // the line's name in problems: items[2], paid
	kind        LineKind
	item        TransactionItem
	amount      decimal.Decimal
	debit       Party
	credit      Party
	ownerID     int64
	brokerID    int64
	description string
	// through is, for a line of a part payment, what of the line the
	// principal paid covers before the part and after it; nil otherwise.
	through *[2]decimal.Decimal
	// swapped: the amount was negative and booked with its sides swapped.
	swapped bool
}

func (p *poster) checkParties() {
	pa := &p.in.Parties
	if pa.PayerID <= 0 {
		p.ps.add("payer_id", "required")
	}
	if pa.BusinessID <= 0 {
		p.ps.add("business_id", "required")
	}
	if err := checkShares(pa.Owners); err != "" {
		p.ps.add("owners", "%s", err)
	}
}

// bookLines books the invoice's lines and checks that what the customer
// is charged by them is the invoice's total; of a part payment, each
// line's share of the part's principal, which the shares charge the
// customer exactly.
func (p *poster) bookLines() {
	charged, want := decimal.Zero, decimal.Zero
	var before, after []decimal.Decimal
	if part := p.in.Part; part != nil {
		want = p.in.Settlement.Invoice
		inv := &p.in.Invoice
		before = linesThrough(inv.Items, p.items, inv.Total, part.Before)
		after = linesThrough(inv.Items, p.items, inv.Total, part.Before.Add(want))
	}
	for i, l := range p.in.Invoice.Items {
		field := fmt.Sprintf("items[%d]", i)
		if l.Kind != "" && l.Kind != LineLine {
			p.ps.add(field+".kind", "only lines are booked (settlement lines come from the settlement); got %q", l.Kind)
			continue
		}
		it, ok := p.items[l.ItemID]
		if !ok {
			p.ps.add(field+".item_id", "transaction item %d not found", l.ItemID)
			continue
		}
		if msg := Bookable(it); msg != "" {
			p.ps.add(field+".item_id", "%s", msg)
			continue
		}
		b := booking{field: field, kind: LineLine, item: it, amount: l.Amount, debit: it.Debit, credit: it.Credit,
			ownerID: l.OwnerID, brokerID: l.BrokerID, description: l.Description}
		if p.in.Part != nil {
			b.amount, b.through = after[i].Sub(before[i]), &[2]decimal.Decimal{before[i], after[i]}
		}
		charged = charged.Add(Charged(l.Amount, it))
		p.book(b)
	}
	if p.in.Part != nil && len(p.ps) == 0 {
		p.checkPartCharged(before, after, want)
		return
	}
	if len(p.ps) == 0 && !charged.Equal(p.in.Invoice.Total) {
		p.ps.add("total", "%s is not what the lines charge the customer (%s: lines debiting the customer less lines crediting it)",
			p.in.Invoice.Total.StringFixed(2), charged.StringFixed(2))
	}
}

// Charged is what a line of amount booked as item charges the payer: the
// amount when the item debits the customer, minus it when the item credits
// the customer, zero otherwise (an administration fee, debit owner and
// credit business, is a deduction from the owner, not a charge). An
// invoice's total is the sum over its lines.
func Charged(amount decimal.Decimal, item TransactionItem) decimal.Decimal {
	switch {
	case item.Debit == PartyCustomer && item.Credit != PartyCustomer:
		return amount
	case item.Credit == PartyCustomer && item.Debit != PartyCustomer:
		return amount.Neg()
	}
	return decimal.Zero
}

// Bookable says why a transaction item cannot book an invoice line ("" when
// it can): both its parties must be set.
func Bookable(item TransactionItem) string {
	if item.Debit == "" || item.Credit == "" {
		return fmt.Sprintf("transaction item %d needs both a debit and a credit party to be booked", item.ID)
	}
	return ""
}

// bookSettlement books the late fee, the interest and the discount as
// settlement lines.
func (p *poster) bookSettlement() {
	s := &p.in.Settlement
	if s.LateFee.IsPositive() || s.Interest.IsPositive() {
		p.bookFees(s)
	}
	if s.Discount.IsPositive() {
		p.bookDiscount(s)
	}
}

func (p *poster) bookFees(s *Settlement) {
	fee := p.in.FeeItem
	switch {
	case fee == nil:
		p.ps.add("paid", "a late fee of %s and interest of %s are due, but the company has no active transaction item of type fee to book them",
			s.LateFee.StringFixed(2), s.Interest.StringFixed(2))
		return
	case fee.Credit == "":
		p.ps.add("paid", "the fee item %d has no credit party to book the late fee and interest to", fee.ID)
		return
	}
	p.settlementLine(booking{field: "paid", kind: LineLateFee, item: *fee, amount: s.LateFee,
		debit: PartyCustomer, credit: fee.Credit, description: "Multa por atraso"})
	p.settlementLine(booking{field: "paid", kind: LineInterest, item: *fee, amount: s.Interest,
		debit: PartyCustomer, credit: fee.Credit, description: fmt.Sprintf("Juros de mora (%s)", Dias(s.DaysLate))})
}

// bookDiscount books the settlement's discount: the punctuality discount
// (debit the party of ticket_discount_action) and the bank's abatement in
// it (debit the business: the beneficiary granted it at the bank, and
// ticket_discount_action names who bears the punctuality discount only),
// each a line of the discount item, credit customer.
func (p *poster) bookDiscount(s *Settlement) {
	abatement := decimal.Min(decimal.Max(s.Abatement, decimal.Zero), s.Discount)
	punctuality := s.Discount.Sub(abatement)
	item, action := p.in.DiscountItem, p.in.Invoice.TicketDiscountAction
	if item == nil {
		p.ps.add("paid", "%s, but the company has no active transaction item of type discount to book it",
			discountWords(punctuality, abatement))
		return
	}
	if punctuality.IsPositive() {
		if action == "" || !action.Valid() {
			p.ps.add("ticket_discount_action", "must be owner or business to book a discount of %s; got %q",
				punctuality.StringFixed(2), action)
			return
		}
		p.settlementLine(booking{field: "paid", kind: LineDiscount, item: *item, amount: punctuality,
			debit: Party(action), credit: PartyCustomer, description: DescPunctualityDiscount})
	}
	p.settlementLine(booking{field: "paid", kind: LineDiscount, item: *item, amount: abatement,
		debit: PartyBusiness, credit: PartyCustomer, description: DescBankAbatement})
}

// The descriptions of the discount's settlement lines.
const (
	DescPunctualityDiscount = "Desconto de pontualidade"
	DescBankAbatement       = "Abatimento concedido no banco"
)

// discountWords says what discount applies: the punctuality discount, the
// bank's abatement, or both.
func discountWords(punctuality, abatement decimal.Decimal) string {
	switch {
	case abatement.IsZero():
		return fmt.Sprintf("a discount of %s applies", punctuality.StringFixed(2))
	case punctuality.IsZero():
		return fmt.Sprintf("the bank reports an abatement of %s", abatement.StringFixed(2))
	}
	return fmt.Sprintf("a discount of %s and the bank's abatement of %s apply", punctuality.StringFixed(2), abatement.StringFixed(2))
}

// settlementLine books a non-zero settlement amount and adds its line.
func (p *poster) settlementLine(b booking) {
	if b.amount.IsZero() {
		return
	}
	p.lines = append(p.lines, InvoiceItem{Kind: b.kind, ItemID: b.item.ID, Amount: b.amount, Description: b.description})
	p.book(b)
}

// book adds the entries of one line: its debit side, then its credit side.
func (p *poster) book(b booking) {
	if !b.amount.Equal(RoundCents(b.amount)) {
		p.ps.add(b.field+".amount", "%s has more than two decimal places", b.amount)
		return
	}
	if b.amount.IsZero() {
		return
	}
	debitPlan, creditPlan := b.item.DebitPlanID, b.item.CreditPlanID
	if b.amount.IsNegative() { // a rebate: the sides swap, each keeps its plan
		b.amount, b.debit, b.credit, b.swapped = b.amount.Neg(), b.credit, b.debit, true
		debitPlan, creditPlan = creditPlan, debitPlan
	}
	if b.description == "" {
		b.description = b.item.Description
	}
	debits, ok := p.side(&b, b.debit, Debit, debitPlan)
	credits, ok2 := p.side(&b, b.credit, Credit, creditPlan)
	if ok && ok2 {
		p.entries = append(append(p.entries, debits...), credits...)
	}
}

// side returns the entries of one side of a booking: one entry, or one
// per owner when an owner side has no owner of its own.
func (p *poster) side(b *booking, party Party, t EntryType, plan int64) ([]Entry, bool) {
	e := Entry{Mode: ModeInvoice, Kind: b.kind, Type: t, Extract: party, Amount: b.amount, ItemID: b.item.ID,
		PlanID: plan, BusinessID: p.in.Parties.BusinessID, Description: b.description}
	switch party {
	case PartyCustomer:
		e.PersonID = p.in.Parties.PayerID
		if p.in.Invoice.Type == InvoiceContract { // a contract's payer is its tenant
			e.TenantID = e.PersonID
		}
	case PartyBroker:
		if b.brokerID <= 0 {
			p.ps.add(b.field+".broker_id", "required: transaction item %d is booked to a broker", b.item.ID)
			return nil, false
		}
		e.PersonID, e.BrokerID = b.brokerID, b.brokerID
	case PartyOwner:
		return p.ownerSide(b, e)
	case PartyBusiness:
	default:
		p.ps.add(b.field+".item_id", "transaction item %d has an unknown party %q", b.item.ID, party)
		return nil, false
	}
	return []Entry{e}, true
}

// ownerSide books an owner side: to the line's owner, or split among the
// building's owners by share (parts of zero give no entry).
func (p *poster) ownerSide(b *booking, e Entry) ([]Entry, bool) {
	if b.ownerID > 0 {
		e.PersonID, e.OwnerID = b.ownerID, b.ownerID
		return []Entry{e}, true
	}
	if gap := OwnerSideGap(b.ownerID, p.in.Parties); gap != NoOwnerGap {
		p.ps.add(b.field+".owner_id", "%s", ownerGapProblem(b.item.ID, gap, p.in.Parties.BuildingID))
		return nil, false
	}
	owners := p.in.Parties.Owners
	parts, err := p.ownerParts(b)
	if err != nil { // reported by checkParties
		return nil, false
	}
	out := make([]Entry, 0, len(parts))
	for i, part := range parts {
		if part.IsZero() {
			continue
		}
		o := e
		if part.IsNegative() { // a part's rounding may take a cent back from an owner
			part, o.Type = part.Neg(), opposite(e.Type)
		}
		o.Amount, o.PersonID, o.OwnerID, o.Percentage = part, owners[i].PersonID, owners[i].PersonID, owners[i].Percentage
		out = append(out, o)
	}
	return out, true
}

// ownerParts are the owners' parts of an owner side: the amount split by
// share, or, for a line of a part payment, each owner's part of the
// line's share (splitDelta), signed as the side is booked.
func (p *poster) ownerParts(b *booking) ([]decimal.Decimal, error) {
	if b.through == nil {
		return SplitByShares(b.amount, p.in.Parties.Owners)
	}
	parts, err := splitDelta(b.through[0], b.through[1], p.in.Parties.Owners)
	if err != nil || !b.swapped {
		return parts, err
	}
	for i := range parts {
		parts[i] = parts[i].Neg()
	}
	return parts, nil
}

// opposite is the other side of a debit or a credit.
func opposite(t EntryType) EntryType {
	if t == Debit {
		return Credit
	}
	return Debit
}

// checkPartCharged requires a part's lines to charge the payer the
// principal it pays (linesThrough gives them so).
func (p *poster) checkPartCharged(before, after []decimal.Decimal, want decimal.Decimal) {
	charged := decimal.Zero
	for i, l := range p.in.Invoice.Items {
		it := p.items[l.ItemID]
		charged = charged.Add(Charged(after[i], it)).Sub(Charged(before[i], it))
	}
	if !charged.Equal(want) {
		p.ps.add("amount", "the lines' share %s is not the principal %s the part pays", charged.StringFixed(2), want.StringFixed(2))
	}
}

// SplitByShares divides amount, in cents, among owners in proportion to
// their percentages (which need not add up to 100; when none is set the
// parts are equal): each owner gets its proportion rounded down to the
// cent, and the remainder goes to the largest share (on a tie, the lowest
// person id), so that the parts add up to amount exactly. The parts are in
// the order of owners.
func SplitByShares(amount decimal.Decimal, owners []Share) ([]decimal.Decimal, error) {
	if msg := checkShares(owners); msg != "" {
		return nil, Problems{{Field: "owners", Message: msg}}
	}
	if len(owners) == 0 {
		return nil, Problems{{Field: "owners", Message: "required"}}
	}
	if !amount.Equal(RoundCents(amount)) {
		return nil, Problems{{Field: "amount", Message: amount.String() + " has more than two decimal places"}}
	}
	weights := shareWeights(owners)
	var total decimal.Decimal
	for _, w := range weights {
		total = total.Add(w)
	}
	cents := amount.Abs().Shift(2)
	parts := make([]decimal.Decimal, len(owners))
	rest := cents
	for i, w := range weights {
		q, _ := cents.Mul(w).QuoRem(total, 0) // rounded down: everything is positive
		parts[i] = q
		rest = rest.Sub(q)
	}
	big := largestShare(owners, weights)
	parts[big] = parts[big].Add(rest)
	for i := range parts {
		parts[i] = parts[i].Shift(-2)
		if amount.IsNegative() {
			parts[i] = parts[i].Neg()
		}
	}
	return parts, nil
}

// shareWeights returns the owners' percentages, or 1 each when none is set.
func shareWeights(owners []Share) []decimal.Decimal {
	w := make([]decimal.Decimal, len(owners))
	allZero := true
	for i, o := range owners {
		w[i] = o.Percentage
		allZero = allZero && o.Percentage.IsZero()
	}
	if allZero {
		for i := range w {
			w[i] = one
		}
	}
	return w
}

// largestShare is the index of the largest weight, the lowest person id
// on a tie.
func largestShare(owners []Share, weights []decimal.Decimal) int {
	big := 0
	for i := 1; i < len(owners); i++ {
		c := weights[i].Cmp(weights[big])
		if c > 0 || (c == 0 && owners[i].PersonID < owners[big].PersonID) {
			big = i
		}
	}
	return big
}

// checkShares says what is wrong with a building's owners, "" when
// nothing: ids set and distinct, percentages positive and below 10,000%,
// either all set or none.
func checkShares(owners []Share) string {
	seen := make([]int64, 0, len(owners))
	zeros := 0
	for i, o := range owners {
		switch {
		case o.PersonID <= 0:
			return fmt.Sprintf("owner %d has no person id", i)
		case slices.Contains(seen, o.PersonID):
			return fmt.Sprintf("person %d is an owner twice", o.PersonID)
		case o.Percentage.IsNegative() || !below(o.Percentage, maxPercentDigits):
			return fmt.Sprintf("person %d has a share of %s%%; shares are positive and below 10000%%", o.PersonID, o.Percentage)
		case o.Percentage.IsZero():
			zeros++
		}
		seen = append(seen, o.PersonID)
	}
	if zeros > 0 && zeros < len(owners) {
		return "some owners have a share and others none: give every owner a share, or none for equal parts"
	}
	return ""
}

// BankTariff is the entry of a bank's tariff on a settled title (tarifa
// de liquidação, as the bank's return file reports it): the company's
// expense, one debit on the business's statement with the tariff item the
// company keeps active (type tariff), under its debit plan. Nothing is
// credited inside the book: the bank kept the amount, so the account
// receives what the payer paid less the tariff. docs/ledger.md, "Bank
// tariffs".
func BankTariff(item TransactionItem, businessID int64, amount decimal.Decimal) Entry {
	description := "Tarifa bancária"
	if item.Description != "" {
		description = item.Description
	}
	return Entry{Mode: ModeInvoice, Type: Debit, Extract: PartyBusiness, Amount: amount,
		ItemID: item.ID, PlanID: item.DebitPlanID, BusinessID: businessID, Description: description}
}

// BankFee is the entry of a bank's tariff reported on a line of its own
// (a fee occurrence of a return file: a tariff debited for a title's
// registration, protest or maintenance, a monthly tariff): the company's
// expense as BankTariff books it, but an entry of its own (mode
// transaction), no part of any payment: the bank debited it from the
// account whatever becomes of the title. docs/ledger.md, "Tariffs on lines
// of their own".
func BankFee(item TransactionItem, businessID int64, amount decimal.Decimal) Entry {
	e := BankTariff(item, businessID, amount)
	e.Mode = ModeTransaction
	return e
}
