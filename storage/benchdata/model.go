package benchdata

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// leadDays is how far ahead of a due date its invoice exists: the
// companies' invoice_lead_days as created, so that the nightly run of the
// data set's day finds every invoice it would generate already there.
const leadDays = 30

// otherPersons is how many persons of a company are neither tenants nor
// owners (guarantors, brokers, former clients).
const otherPersons = 10

// companyPlan is one company of the data set: its size, its catalogue,
// the first id of each table whose ids the generator assigns, and the
// dates everything is drawn around.
type companyPlan struct {
	name      string
	id        int64
	seed      uint64
	contracts int
	owners    int
	closing   bool // Options.Closing
	*catalogue

	// first ids, reserved from the tables' identity sequences
	firstPerson, firstBuilding, firstContract, firstInvoice int64
	invoiceCount                                            int // the number the schedule gives, counted before writing

	today finance.Date  // the data set's day, in the company's time zone
	until finance.Date  // the last due date billed: today and the lead time
	start finance.Month // the month the contracts begin
}

func newCompanyPlan(name string, seed uint64, contracts int, today finance.Date, months int) *companyPlan {
	return &companyPlan{
		name: name, seed: seed, contracts: contracts, owners: max(1, contracts*3/5),
		today: today, until: today.AddDays(leadDays), start: finance.MonthOf(today).Add(-(months - 1)),
	}
}

// persons is the company's number of persons: a tenant per contract, the
// owners, and a few others.
func (cp *companyPlan) persons() int { return cp.contracts + cp.owners + otherPersons }

func (cp *companyPlan) tenantID(k int) int64 { return cp.firstPerson + int64(k) }
func (cp *companyPlan) ownerID(j int) int64  { return cp.firstPerson + int64(cp.contracts+j) }

// rng is the random stream of one record: the company's seed, a stream
// number per kind of record, and the record's index.
func (cp *companyPlan) rng(stream uint64, n int) *rand.Rand {
	return rand.New(rand.NewPCG(cp.seed^stream<<56, uint64(n)))
}

// The streams of rng.
const (
	streamContract uint64 = iota + 1
	streamPayment
	streamPerson
	streamBuilding
	streamBill
	streamClosing
)

// payer is how a tenant pays: the chance of paying an invoice about when
// it is due (otherwise it is paid one to four months late), of paying
// early (up to a week) or late (up to maxLate days), and, for those who
// stopped paying, how many of their last invoices due are still open.
type payer struct {
	pays, early, late float64
	maxLate           int
	stopped           int
}

// contractPlan is one contract with what its rows need beside the rule's
// contract: its items, building, owners and the tenant's habits.
type contractPlan struct {
	k          int
	c          finance.Contract
	items      []finance.ContractItem
	buildingID int64
	owners     []finance.Share // by person id, as storage reads them
	action     finance.DiscountAction
	signedAt   finance.Date
	guarantee  string
	payer      payer
	// with Closing: the administration fee, in percent of the rent, and
	// whether the tenant is a company
	adminFee      decimal.Decimal
	companyTenant bool
}

// contract draws contract k of the company.
func (cp *companyPlan) contract(k int) *contractPlan {
	r := cp.rng(streamContract, k)
	p := &contractPlan{k: k, buildingID: cp.firstBuilding + int64(k)}
	c := &p.c
	startDay := 1
	if r.Float64() < 0.25 {
		startDay = 2 + r.IntN(19)
	}
	dueDay := []int{5, 10, 10, 15, 20, 25}[r.IntN(6)]
	start := finance.NewDate(cp.start.Year(), cp.start.Month(), startDay)
	due := finance.NewDate(cp.start.Year(), cp.start.Month(), dueDay)
	if due.Before(start) {
		due = start.AddDays(3)
	}
	method, billing, biz := "ticket", cp.billings.ticket, 0
	if r.Float64() < 0.2 {
		method, billing = "pix", cp.billings.pix
	}
	if r.Float64() < 0.1 {
		biz = 1
	}
	*c = finance.Contract{
		ID: cp.firstContract + int64(k), ID2: int64(k + 1), Type: finance.ContractRent, Active: finance.ActiveActive,
		Status: finance.StatusProgress, PaymentStatus: finance.PaymentNothing, BuildingID: p.buildingID,
		TenantID: cp.tenantID(k), BillingID: billing, BusinessID: cp.businesses[biz], AccountID: cp.accounts[biz],
		BillingMethod: method, Reference: cp.reference(k), StartAt: start, EndAt: start.AddMonths(30).AddDays(-1),
		Recurrency: finance.Monthly, Modality: finance.ModalityMonthly, Amount: rentAmount(r), DueDay: dueDay,
		DueDate: due, BillingTiming: finance.BillingPre, Proportional: startDay != 1, ReadjustActive: true,
		ReadjustIndicator: []finance.Indicator{finance.IGPM, finance.IGPM, finance.IPCA}[r.IntN(3)], ReadjustWith: 12,
		TransferMode: finance.TransferAfterReceive,
	}
	// the anniversary the contract is readjusted on, in the coming year
	next := finance.MonthOf(cp.today).Add(1 + r.IntN(12))
	c.ReadjustAt = finance.NewDate(next.Year(), next.Month(), startDay)
	if r.Float64() < 0.3 {
		c.TransferMode = finance.TransferFixedDay
	}
	p.lateFee(r, cp)
	p.addItems(r, cp)
	p.drawOwners(r, cp)
	p.signedAt = start.AddDays(-1 - r.IntN(20))
	p.guarantee = []string{"guarantor", "deposit", "insurance", "capitalization"}[r.IntN(4)]
	p.payer = drawPayer(r)
	if cp.closing {
		p.companyTenant, p.adminFee = cp.closingDraws(k)
	}
	return p
}

// reference is contract k's: six digits with Closing (the DIMOB's contract
// number holds six characters), CT- and six digits otherwise.
func (cp *companyPlan) reference(k int) string {
	if cp.closing {
		return fmt.Sprintf("%06d", k+1)
	}
	return fmt.Sprintf("CT-%06d", k+1)
}

// adminFees are the administration fees drawn, in percent of the rent:
// 10% on seven contracts in ten, 8% on two, 6% on one.
var adminFees = []decimal.Decimal{decimal.NewFromInt(10), decimal.NewFromInt(10), decimal.NewFromInt(10),
	decimal.NewFromInt(10), decimal.NewFromInt(10), decimal.NewFromInt(10), decimal.NewFromInt(10),
	decimal.NewFromInt(8), decimal.NewFromInt(8), decimal.NewFromInt(6)}

// closingDraws are what Closing draws for contract k: whether its tenant
// is a company (one in twenty: it has a CNPJ and withholds the income tax
// on the rent it pays to the owners), and its administration fee.
func (cp *companyPlan) closingDraws(k int) (companyTenant bool, adminFee decimal.Decimal) {
	r := cp.rng(streamClosing, k)
	return r.Float64() >= 0.95, adminFees[r.IntN(len(adminFees))]
}

// rentAmount is a rent between about 700.00 and 15,000.00, most of them
// near 1,500.00, in steps of 50.00.
func rentAmount(r *rand.Rand) decimal.Decimal {
	v := 700 + r.ExpFloat64()*1200
	return decimal.NewFromInt(min(int64(v/50)*50, 15_000))
}

// lateFee sets the late fee (2% and 1% a month on nearly every contract,
// on the rent alone for some) and a punctuality discount on some.
func (p *contractPlan) lateFee(r *rand.Rand, cp *companyPlan) {
	lf := &p.c.LateFee
	if r.Float64() < 0.95 {
		lf.TicketLateFee, lf.TicketLateFeePercentage, lf.TicketLateFeeInterest = true, decimal.NewFromInt(2), decimal.NewFromInt(1)
		if r.Float64() < 0.4 {
			lf.TicketLateFeeItemID = cp.rent.ID
		}
	}
	if r.Float64() < 0.15 {
		lf.TicketDiscount, lf.TicketDiscountDays = true, 5
		lf.TicketDiscountMode, lf.TicketDiscountPercentage = finance.DiscountPercentage, decimal.NewFromInt(5)
		if r.Float64() < 0.3 {
			lf.TicketDiscountMode, lf.TicketDiscountPercentage, lf.TicketDiscountFixed =
				finance.DiscountFixed, decimal.Zero, decimal.NewFromInt(50)
		}
		p.action = finance.DiscountByOwner
		if r.Float64() < 0.2 {
			p.action = finance.DiscountByBusiness
		}
	}
}

// addItems gives the contract its lines beside the rent: a condominium
// fee on about half, IPTU on a third, fire insurance on a fifth.
func (p *contractPlan) addItems(r *rand.Rand, cp *companyPlan) {
	add := func(share float64, item finance.TransactionItem, lo, hi int) {
		if r.Float64() >= share {
			return
		}
		amount := decimal.New(int64(lo*100+r.IntN((hi-lo)*100+1)), -2)
		p.items = append(p.items, finance.ContractItem{Mode: finance.ItemModeItem, ItemID: item.ID, ContractID: p.c.ID,
			Description: item.Description, CalculateMode: finance.CalculateFixed, Amount: amount})
	}
	add(0.55, cp.condo, 200, 1800)
	add(0.3, cp.iptu, 30, 450)
	add(0.2, cp.insurance, 18, 90)
}

// drawOwners gives the building one owner, or two (60/40 or 50/50) on a
// fifth of them; an owner owns about 1.7 buildings.
func (p *contractPlan) drawOwners(r *rand.Rand, cp *companyPlan) {
	first := r.IntN(cp.owners)
	if cp.owners < 2 || r.Float64() >= 0.2 {
		p.owners = []finance.Share{{PersonID: cp.ownerID(first), Percentage: decimal.NewFromInt(100)}}
		return
	}
	second := (first + 1 + r.IntN(cp.owners-1)) % cp.owners
	shares := [][2]int64{{60, 40}, {50, 50}}[r.IntN(2)]
	p.owners = []finance.Share{
		{PersonID: cp.ownerID(first), Percentage: decimal.NewFromInt(shares[0])},
		{PersonID: cp.ownerID(second), Percentage: decimal.NewFromInt(shares[1])},
	}
	slices.SortFunc(p.owners, func(a, b finance.Share) int { return int(a.PersonID - b.PersonID) })
}

// drawPayer: most tenants pay nearly always and on time; some are
// irregular; a few stopped paying their last invoices.
func drawPayer(r *rand.Rand) payer {
	switch u := r.Float64(); {
	case u < 0.85:
		return payer{pays: 0.98, early: 0.35, late: 0.15, maxLate: 12}
	case u < 0.97:
		return payer{pays: 0.9, early: 0.1, late: 0.45, maxLate: 40}
	default:
		return payer{pays: 0.95, early: 0.05, late: 0.6, maxLate: 30, stopped: 1 + r.IntN(4)}
	}
}

// invoicePlan is one invoice of a contract: the rule's invoice with its
// id, payment and stored status, and what a payment settled.
type invoicePlan struct {
	finance.Invoice
	creditAt   finance.Date
	settlement finance.Settlement
}

// schedule returns the contract's invoices: what finance.ScheduleInvoices
// gives up to the lead time, as the nightly run writes them.
func (cp *companyPlan) schedule(p *contractPlan) ([]finance.Invoice, error) {
	s, err := finance.ScheduleInvoices(finance.ScheduleInput{Contract: p.c, Items: p.items, RentItemID: cp.rent.ID, Until: cp.until})
	if err != nil {
		return nil, fmt.Errorf("contract %d: %w", p.c.ID, err)
	}
	return s.Invoices, nil
}

// invoices returns the contract's invoices with ids from next on, each
// paid or not as its tenant would have paid it by the data set's day,
// and sets the contract's payment status from them.
func (cp *companyPlan) invoices(p *contractPlan, next int64) ([]invoicePlan, error) {
	sched, err := cp.schedule(p)
	if err != nil {
		return nil, err
	}
	r := cp.rng(streamPayment, p.k)
	due := 0 // invoices due by today, the last `stopped` of which stay open
	for _, inv := range sched {
		if !inv.DueDate.After(cp.today) {
			due++
		}
	}
	out := make([]invoicePlan, len(sched))
	for i, inv := range sched {
		inv.ID, inv.TicketDiscountAction = next+int64(i), p.action
		if cp.closing {
			cp.closingLines(p, &inv)
		}
		out[i].Invoice = inv
		stopped := p.payer.stopped > 0 && i >= due-p.payer.stopped
		if err := cp.pay(r, p, &out[i], stopped); err != nil {
			return nil, err
		}
		sched[i] = out[i].Invoice
	}
	p.c.PaymentStatus = finance.PaymentStatusAsOf(sched, cp.today)
	return out, nil
}

// closingLines adds to a rent invoice, with Closing, the administration
// fee (the contract's percentage of the rent line) and, when the tenant
// is a company, the income tax it withholds on each owner's share of the
// rent line (irrf), one line per owner who owes some, the invoice's total
// less the tax.
func (cp *companyPlan) closingLines(p *contractPlan, inv *finance.Invoice) {
	i := slices.IndexFunc(inv.Items, func(l finance.InvoiceItem) bool { return l.ItemID == cp.rent.ID })
	if i < 0 {
		return
	}
	rent := inv.Items[i].Amount
	lines := append(slices.Clip(inv.Items), finance.InvoiceItem{ItemID: cp.admin.ID, Description: cp.admin.Description,
		Amount: finance.RoundCents(rent.Mul(p.adminFee).Div(hundred))})
	if p.companyTenant {
		for _, o := range p.owners {
			tax := irrf(finance.RoundCents(rent.Mul(o.Percentage).Div(hundred)))
			if tax.IsPositive() {
				lines = append(lines, finance.InvoiceItem{ItemID: cp.irrf.ID, Description: cp.irrf.Description,
					Amount: tax, OwnerID: o.PersonID})
				inv.Total = inv.Total.Sub(tax)
			}
		}
	}
	inv.Items = lines
}

var hundred = decimal.NewFromInt(100)

// irrfBands is the monthly income tax table withheld on rent paid to a
// person (Lei 14.848/2024): up to each bound, the rate, less the
// deduction; above the last bound, 27.5% less 896.00.
var irrfBands = []struct{ upTo, rate, deduction decimal.Decimal }{
	{decimal.RequireFromString("2259.20"), decimal.Zero, decimal.Zero},
	{decimal.RequireFromString("2826.65"), decimal.RequireFromString("0.075"), decimal.RequireFromString("169.44")},
	{decimal.RequireFromString("3751.05"), decimal.RequireFromString("0.15"), decimal.RequireFromString("381.44")},
	{decimal.RequireFromString("4664.68"), decimal.RequireFromString("0.225"), decimal.RequireFromString("662.77")},
}

// irrfTop is the rate and deduction above the table's last bound;
// irrfMinimum, the withholding that is not withheld (10.00 or less).
var (
	irrfTopRate, irrfTopDeduction = decimal.RequireFromString("0.275"), decimal.RequireFromString("896.00")
	irrfMinimum                   = decimal.NewFromInt(10)
)

// irrf is the tax withheld on a month's rent of one owner by the table
// (without the simplified discount); zero when 10.00 or less.
func irrf(base decimal.Decimal) decimal.Decimal {
	rate, deduction := irrfTopRate, irrfTopDeduction
	for _, b := range irrfBands {
		if base.LessThanOrEqual(b.upTo) {
			rate, deduction = b.rate, b.deduction
			break
		}
	}
	tax := finance.RoundCents(base.Mul(rate).Sub(deduction))
	if tax.LessThanOrEqual(irrfMinimum) {
		return decimal.Zero
	}
	return tax
}

// pay decides whether and when the tenant paid inv (never after the data
// set's day), settles it when paid, and sets its stored status: paid,
// canceled now and then, overdue past its due date, unpaid otherwise.
// The draws are the same whatever is decided, so that one invoice's
// payment does not move the next one's.
func (cp *companyPlan) pay(r *rand.Rand, p *contractPlan, inv *invoicePlan, keepOpen bool) error {
	pays, kind, cancel := r.Float64(), r.Float64(), r.Float64()
	early, late, veryLate := 1+r.IntN(7), 1+r.IntN(p.payer.maxLate), 30+r.IntN(91)
	paidAt := inv.DueDate
	switch b := p.payer; {
	case pays >= b.pays:
		paidAt = paidAt.AddDays(veryLate)
	case kind < b.early:
		paidAt = paidAt.AddDays(-early)
	case kind < b.early+b.late:
		paidAt = paidAt.AddDays(late)
	}
	switch {
	case !keepOpen && !paidAt.After(cp.today):
		return cp.settle(inv, paidAt)
	case cancel < 0.004 && inv.DueDate.Before(cp.today):
		inv.Status = finance.InvoiceCanceled
	case inv.DueDate.Before(cp.today):
		inv.Status = finance.InvoiceOverdue
	default:
		inv.Status = finance.InvoiceUnpaid
	}
	return nil
}

// settle marks inv paid on paidAt, credited the next day for a slip (the
// same day for PIX, and never after the data set's day), and settles it.
func (cp *companyPlan) settle(inv *invoicePlan, paidAt finance.Date) error {
	inv.Paid, inv.PaidAt, inv.Status, inv.creditAt = true, paidAt, finance.InvoicePaid, paidAt
	if inv.BillingMethod == "ticket" && paidAt.Before(cp.today) {
		inv.creditAt = paidAt.AddDays(1)
	}
	s, err := finance.Settle(inv.Invoice, paidAt)
	if err != nil {
		return fmt.Errorf("settle invoice %d: %w", inv.ID, err)
	}
	inv.settlement = s
	return nil
}

// posting books inv's payment as storage.PostInvoicePayment books it.
func (cp *companyPlan) posting(p *contractPlan, inv *invoicePlan) (finance.Posting, error) {
	lines := make([]finance.InvoiceItem, len(inv.Items))
	for i, l := range inv.Items {
		l.Kind = finance.LineLine
		lines[i] = l
	}
	booked := inv.Invoice
	booked.Items = lines
	fee, discount := cp.fee, cp.discount
	posting, err := finance.PostPayment(finance.PostingInput{
		Invoice: booked, Items: cp.items(), Settlement: inv.settlement, FeeItem: &fee, DiscountItem: &discount,
		Parties: finance.Parties{PayerID: inv.PayerID, BusinessID: inv.BusinessID, Owners: p.owners},
	})
	if err != nil {
		return finance.Posting{}, fmt.Errorf("post invoice %d: %w", inv.ID, err)
	}
	return posting, nil
}

// walk calls f with each contract of the company and its invoices, in
// id order, until f returns false or an error stops it.
func (cp *companyPlan) walk(f func(p *contractPlan, invoices []invoicePlan) bool) error {
	next := cp.firstInvoice
	for k := range cp.contracts {
		p := cp.contract(k)
		invoices, err := cp.invoices(p, next)
		if err != nil {
			return err
		}
		next += int64(len(invoices))
		if !f(p, invoices) {
			return nil
		}
	}
	return nil
}

// countInvoices is how many invoices the schedule gives the company's
// contracts (their ids are reserved before they are written).
func (cp *companyPlan) countInvoices() (int, error) {
	n := 0
	for k := range cp.contracts {
		sched, err := cp.schedule(cp.contract(k))
		if err != nil {
			return 0, err
		}
		n += len(sched)
	}
	return n, nil
}
