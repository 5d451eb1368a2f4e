package storage

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// Invoice generation (docs/jobs.md, invoices:generate): contracts are read
// a batch at a time with everything finance.ScheduleInvoices reads, the
// rule schedules their invoices, and the invoices are written in one
// statement with their lines and history rows. A preview is the same
// call without the write, so it shows exactly what a run inserts.

// GeneratedInvoice is an invoice the schedule asks for: the rule's
// invoice, with the contract's property (building_id), the late-fee and
// discount settings the contract leaves null (so does the invoice) and,
// after a run, its id (0 when its slot was already taken).
type GeneratedInvoice struct {
	finance.Invoice
	BuildingID int64
	Unset      TicketUnset
}

// TicketUnset names the numeric late-fee and discount settings an invoice
// leaves null (none): the rule reads a null as zero, and the invoice
// shows and stores it as its contract has it.
type TicketUnset struct {
	LateFeePercentage, LateFeeInterest              bool
	DiscountFixed, DiscountPercentage, DiscountDays bool
}

// SkippedContract is a contract the rule does not bill at all (canceled,
// finished, suspended, not active).
type SkippedContract struct {
	ContractID int64              `json:"contract_id"`
	Reason     finance.SkipReason `json:"reason"`
}

// RefusedContract is a contract that cannot be billed as it stands: its
// fields or items break a rule, or the company has no rent item for it.
type RefusedContract struct {
	ContractID int64             `json:"contract_id"`
	Problems   []finance.Problem `json:"problems"`
}

// Generation is what one call of GenerateInvoices did.
type Generation struct {
	// Contracts is how many of the asked contracts exist for the company.
	Contracts int
	// Invoices are the invoices scheduled, by contract id then due date.
	Invoices []GeneratedInvoice
	// Created are the ids of the invoices a run inserted (none in a
	// preview), in the order of Invoices.
	Created  []int64
	Skipped  []SkippedContract
	Refused  []RefusedContract
	notFound []int64
}

// NotFound lists the asked contracts the company does not have.
func (g *Generation) NotFound() []int64 { return g.notFound }

// GenerateOptions say whether the call writes, and who writes.
type GenerateOptions struct {
	Preview bool  // schedule only; nothing is written
	Actor   Actor // the history rows' actor (a job)
}

// GenerateInvoices schedules the invoices, due up to until, of the
// company's contracts named by contractIDs, and unless opts.Preview
// writes them in q (the caller's transaction), with their lines and a
// history row each. Writing never checks before inserting: the unique
// slot of a contract's period (invoices_contract_slot) decides, so a
// repeated or concurrent run inserts each invoice once.
func GenerateInvoices(ctx context.Context, q DBTX, companyID int64, contractIDs []int64, until finance.Date, opts GenerateOptions) (Generation, error) {
	batch, err := loadBilling(ctx, q, companyID, contractIDs)
	if err != nil {
		return Generation{}, err
	}
	gen := scheduleBatch(batch, contractIDs, until)
	if opts.Preview || len(gen.Invoices) == 0 {
		return gen, nil
	}
	if err := writeGenerated(ctx, q, companyID, &gen, opts.Actor); err != nil {
		return Generation{}, err
	}
	return gen, nil
}

// contractBilling is one contract as generation reads it: the rule's
// input, what is copied onto its invoices beside it, and what makes it
// unbillable before the rule runs.
type contractBilling struct {
	in             finance.ScheduleInput
	buildingID     int64
	discountAction finance.DiscountAction
	unset          TicketUnset // the contract's ticket settings left null
	problems       []finance.Problem
	// lineItems are the transaction items its invoices' lines are booked
	// as (the rent item and the billed contract items'), for the checks
	// of what the lines book.
	lineItems []finance.TransactionItem
}

// scheduleBatch runs the rule on each contract of batch, in id order.
func scheduleBatch(batch []*contractBilling, asked []int64, until finance.Date) Generation {
	gen := Generation{Contracts: len(batch)}
	found := make(map[int64]bool, len(batch))
	for _, b := range batch {
		found[b.in.Contract.ID] = true
		b.in.Until = until
		scheduleOne(&gen, b)
	}
	for _, id := range asked {
		if !found[id] {
			gen.notFound = append(gen.notFound, id)
			found[id] = true
		}
	}
	return gen
}

// nameContractItems prefixes the message of each problem of a contract
// item (named items[i], by its position among the contract's items in id
// order) with the item's id and description, which the caller knows it
// by.
func nameContractItems(problems []finance.Problem, items []finance.ContractItem) []finance.Problem {
	for i, p := range problems {
		rest, ok := strings.CutPrefix(p.Field, "items[")
		if !ok {
			continue
		}
		digits, _, ok := strings.Cut(rest, "]")
		n, err := strconv.Atoi(digits)
		if !ok || err != nil || n < 0 || n >= len(items) || items[n].ID == 0 {
			continue
		}
		name := fmt.Sprintf("contract item %d", items[n].ID)
		if d := items[n].Description; d != "" {
			name += fmt.Sprintf(" (%s)", d)
		}
		problems[i].Message = name + ": " + p.Message
	}
	return problems
}

func scheduleOne(gen *Generation, b *contractBilling) {
	id := b.in.Contract.ID
	sched, err := finance.ScheduleInvoices(b.in)
	var problems []finance.Problem
	if e, ok := finance.AsInvalid(err, nil); ok {
		problems = e.Problems
	}
	// a contract the rule skips is skipped whatever else is wrong with it
	if err == nil && sched.Skip != "" {
		gen.Skipped = append(gen.Skipped, SkippedContract{ContractID: id, Reason: sched.Skip})
		return
	}
	if problems = append(problems, b.problems...); len(problems) > 0 {
		gen.Refused = append(gen.Refused, RefusedContract{ContractID: id, Problems: nameContractItems(problems, b.in.Items)})
		return
	}
	for _, inv := range sched.Invoices {
		inv.TicketDiscountAction = b.discountAction
		gen.Invoices = append(gen.Invoices, GeneratedInvoice{Invoice: inv, BuildingID: b.buildingID, Unset: b.unset})
	}
}

// loadBilling reads the contracts of ids with their rent history, their
// items, their existing contract invoices and the rent item they bill on,
// in five set-based queries.
func loadBilling(ctx context.Context, q DBTX, companyID int64, ids []int64) ([]*contractBilling, error) {
	batch, byID, err := loadContracts(ctx, q, companyID, ids)
	if err != nil || len(batch) == 0 {
		return batch, err
	}
	if err := loadRentHistory(ctx, q, companyID, ids, byID); err != nil {
		return nil, err
	}
	if err := loadContractItems(ctx, q, companyID, ids, byID); err != nil {
		return nil, err
	}
	if err := loadContractInvoices(ctx, q, companyID, ids, byID); err != nil {
		return nil, err
	}
	if err := pickRentItems(ctx, q, companyID, batch); err != nil {
		return nil, err
	}
	if err := checkOwnerShares(ctx, q, companyID, batch); err != nil {
		return nil, err
	}
	return batch, nil
}

// checkOwnerShares refuses the contracts whose invoices would have a line
// booked to `owner` that could never be posted: the generated lines name
// no owner, so the contract's building must have owners to share them
// (finance.OwnerSideGap, the posting's rule). The owners of the batch's
// buildings are read in one query, only when a contract's lines book an
// owner.
func checkOwnerShares(ctx context.Context, q DBTX, companyID int64, batch []*contractBilling) error {
	var buildings []int64
	for _, b := range batch {
		if len(ownerItems(b)) > 0 {
			buildings = append(buildings, b.buildingID)
		}
	}
	if len(buildings) == 0 {
		return nil
	}
	owners, err := buildingsOwners(ctx, q, companyID, buildings)
	if err != nil {
		return translate(err, "owners of the contracts' buildings")
	}
	for _, b := range batch {
		items := ownerItems(b)
		if len(items) == 0 {
			continue
		}
		gap := finance.OwnerSideGap(0, finance.Parties{BuildingID: b.buildingID, Owners: owners[b.buildingID]})
		if msg := ownerGapOfContract(gap, items, b.buildingID); msg != "" {
			b.problems = append(b.problems, finance.Problem{Field: "building_id", Message: msg})
		}
	}
	return nil
}

// ownerItems lists, once each, the ids of the items a contract's lines
// are booked as that debit or credit `owner`.
func ownerItems(b *contractBilling) []string {
	var ids []string
	for _, it := range b.lineItems {
		id := fmt.Sprint(it.ID)
		if finance.BooksOwner(it) && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// ownerGapOfContract words a gap of a contract's owner lines: what the
// contract lacks, and how to give it.
func ownerGapOfContract(gap finance.OwnerGap, items []string, buildingID int64) string {
	noun := "item"
	if len(items) > 1 {
		noun = "items"
	}
	booked := fmt.Sprintf("the contract's invoices book transaction %s %s to an owner", noun, strings.Join(items, ", "))
	switch gap {
	case finance.GapNoBuilding:
		return booked + ", and the contract has no building whose owners would share them: " +
			"set its building_id to a building with owners, or no invoice of it could be paid"
	case finance.GapNoBuildingOwners:
		return fmt.Sprintf("%s, and building %d has no owners to share them: add the building's owners "+
			"(/buildings/%d/owners), or no invoice of it could be paid", booked, buildingID, buildingID)
	}
	return ""
}

// contractBillingColumns are the contract columns the rule reads and
// the invoices copy, and those the termination reads beside them, with
// the billing_method of the contract's billing profile (how the tenant
// is billed: finance.Contract.ProfileMethod).
const contractBillingColumns = `id, type, active, status, payment_status, coalesce(building_id, 0),
	coalesce(tenant_id, 0), coalesce(billing_id, 0), coalesce(business_id, 0), coalesce(account_id, 0),
	coalesce(billing_method, ''), coalesce((SELECT bl.billing_method FROM billings bl
	    WHERE bl.company_id = contracts.company_id AND bl.id = contracts.billing_id), ''), start_at, end_at, coalesce(recurrency, ''), coalesce(recurrency_amount, 0),
	coalesce(modality, ''), amount, current_amount, signal_amount, coalesce(due_day, 0), due_date,
	coalesce(billing_timing, ''), proportional, unify_first_invoice,
	ticket_late_fee, coalesce(ticket_late_fee_item_id, 0), ticket_late_fee_percentage, ticket_late_fee_interest,
	ticket_discount, coalesce(ticket_discount_mode, ''), ticket_discount_fixed, ticket_discount_percentage,
	ticket_discount_days, coalesce(ticket_discount_action, ''),
	coalesce(reference, ''), termination_fee, coalesce(termination_fee_months, 0), termination_fee_exemption,
	termination_at`

func loadContracts(ctx context.Context, q DBTX, companyID int64, ids []int64) ([]*contractBilling, map[int64]*contractBilling, error) {
	rows, err := q.Query(ctx, `SELECT `+contractBillingColumns+`
		FROM contracts WHERE company_id = $1 AND id = any($2) ORDER BY id`, companyID, ids)
	if err != nil {
		return nil, nil, translate(err, "contracts")
	}
	defer rows.Close()
	batch := make([]*contractBilling, 0, len(ids))
	byID := make(map[int64]*contractBilling, len(ids))
	for rows.Next() {
		b, err := scanContractBilling(rows)
		if err != nil {
			return nil, nil, translate(err, "contracts")
		}
		batch = append(batch, b)
		byID[b.in.Contract.ID] = b
	}
	return batch, byID, translate(rows.Err(), "contracts")
}

// scanContractBilling reads contractBillingColumns into a contract, and
// notes the columns an invoice needs that the contract leaves empty.
func scanContractBilling(row interface{ Scan(...any) error }) (*contractBilling, error) {
	b := &contractBilling{}
	c := &b.in.Contract
	var (
		start, end, due, terminationAt           pgtype.Date
		amount, current, signal, fee             pgtype.Numeric
		lfPct, lfInt, discFixed, discPct         pgtype.Numeric
		typ, active, status, payment, recurrency string
		modality, timing, discMode, action       string
		discDays                                 pgtype.Int4
	)
	err := row.Scan(&c.ID, &typ, &active, &status, &payment, &b.buildingID,
		&c.TenantID, &c.BillingID, &c.BusinessID, &c.AccountID,
		&c.BillingMethod, &c.ProfileMethod, &start, &end, &recurrency, &c.RecurrencyAmount,
		&modality, &amount, &current, &signal, &c.DueDay, &due,
		&timing, &c.Proportional, &c.UnifyFirstInvoice,
		&c.TicketLateFee, &c.TicketLateFeeItemID, &lfPct, &lfInt,
		&c.TicketDiscount, &discMode, &discFixed, &discPct,
		&discDays, &action,
		&c.Reference, &fee, &c.TerminationFeeMonths, &c.TerminationFeeExemption, &terminationAt)
	if err != nil {
		return nil, err
	}
	c.Type, c.Active, c.Status, c.PaymentStatus = finance.ContractType(typ), finance.ContractActive(active),
		finance.ContractStatus(status), finance.PaymentStatus(payment)
	c.Recurrency, c.Modality, c.BillingTiming = finance.Recurrency(recurrency), finance.Modality(modality), finance.BillingTiming(timing)
	c.StartAt, c.EndAt, c.DueDate, c.TerminationAt = dateOf(start), dateOf(end), dateOf(due), dateOf(terminationAt)
	if fee.Valid {
		c.TerminationFee = decimal.NewNullDecimal(numericDecimal(fee))
	}
	c.Amount, c.SignalAmount = numericDecimal(amount), numericDecimal(signal)
	if current.Valid {
		c.CurrentAmount = decimal.NewNullDecimal(numericDecimal(current))
	}
	c.TicketLateFeePercentage, c.TicketLateFeeInterest = numericDecimal(lfPct), numericDecimal(lfInt)
	c.TicketDiscountMode, c.TicketDiscountFixed, c.TicketDiscountPercentage = finance.DiscountMode(discMode), numericDecimal(discFixed), numericDecimal(discPct)
	c.TicketDiscountDays = int(discDays.Int32)
	b.discountAction = finance.DiscountAction(action)
	b.unset = TicketUnset{LateFeePercentage: !lfPct.Valid, LateFeeInterest: !lfInt.Valid,
		DiscountFixed: !discFixed.Valid, DiscountPercentage: !discPct.Valid, DiscountDays: !discDays.Valid}
	b.problems = billingPartyProblems(c, amount.Valid)
	return b, nil
}

// billingPartyProblems names what an invoice needs that the contract
// does not give: its payer, business, account, amount, and billing
// method (its billing profile's, else its own: Contract.InvoiceMethod).
func billingPartyProblems(c *finance.Contract, hasAmount bool) []finance.Problem {
	var ps []finance.Problem
	need := func(missing bool, field, what string) {
		if missing {
			ps = append(ps, finance.Problem{Field: field, Message: "is required to bill the contract (" + what + ")"})
		}
	}
	need(c.TenantID == 0, "tenant_id", "the invoices' payer")
	need(c.BusinessID == 0, "business_id", "the business the invoices are issued by")
	need(c.AccountID == 0, "account_id", "the account the invoices are paid into")
	need(!hasAmount, "amount", "the rent or price the invoices bill")
	if c.InvoiceMethod() == "" {
		ps = append(ps, finance.Problem{Field: "billing_id", Message: "is required to bill the contract: a billing " +
			"profile with a billing_method, how the invoices are paid (the contract has no billing_method to fall back on)"})
	}
	return ps
}

func loadContractItems(ctx context.Context, q DBTX, companyID int64, ids []int64, byID map[int64]*contractBilling) error {
	rows, err := q.Query(ctx, `SELECT ci.contract_id, ci.id, ci.mode, coalesce(ci.item_id, 0), coalesce(ci.parent_id, 0),
			coalesce(ci.description, ''), coalesce(ci.calculate_mode, ''), ci.amount, ci.percentage,
			coalesce(ci.percentage_mode, ''), ci.start_at, ci.end_at, coalesce(ti.debit, ''), coalesce(ti.credit, ''),
			ti.id IS NOT NULL
		FROM contract_items ci
		LEFT JOIN transaction_items ti ON ti.company_id = ci.company_id AND ti.id = ci.item_id
		WHERE ci.company_id = $1 AND ci.contract_id = any($2) ORDER BY ci.contract_id, ci.id`, companyID, ids)
	if err != nil {
		return translate(err, "contract items")
	}
	defer rows.Close()
	for rows.Next() {
		var (
			it                  finance.ContractItem
			mode, calc, pctMode string
			amount, pct         pgtype.Numeric
			start, end          pgtype.Date
			debit, credit       string
			known               bool
		)
		if err := rows.Scan(&it.ContractID, &it.ID, &mode, &it.ItemID, &it.ParentID, &it.Description, &calc,
			&amount, &pct, &pctMode, &start, &end, &debit, &credit, &known); err != nil {
			return translate(err, "contract items")
		}
		it.Mode, it.CalculateMode, it.PercentageMode = finance.ItemMode(mode), finance.CalculateMode(calc), finance.PercentageMode(pctMode)
		it.Amount, it.Percentage = numericDecimal(amount), numericDecimal(pct)
		it.StartAt, it.EndAt = dateOf(start), dateOf(end)
		if known {
			it.Item = &finance.TransactionItem{ID: it.ItemID, Debit: finance.Party(debit), Credit: finance.Party(credit)}
		}
		byID[it.ContractID].addItem(it)
	}
	return translate(rows.Err(), "contract items")
}

// lineProblems says why an invoice line booked as item cannot be
// generated: the item must be bookable (both parties) and charge the
// payer (debit the customer), so that the invoice's total, the sum of its
// lines, is what its lines charge (the rule every invoice write keeps).
func lineProblems(field string, item finance.TransactionItem) []finance.Problem {
	if msg := finance.Bookable(item); msg != "" {
		return []finance.Problem{{Field: field, Message: msg}}
	}
	if !finance.Charged(decimal.NewFromInt(1), item).Equal(decimal.NewFromInt(1)) {
		return []finance.Problem{{Field: field, Message: fmt.Sprintf(
			"transaction item %d does not charge the payer (debit customer), so it cannot be a line of the contract's invoices", item.ID)}}
	}
	return nil
}

func loadContractInvoices(ctx context.Context, q DBTX, companyID int64, ids []int64, byID map[int64]*contractBilling) error {
	rows, err := q.Query(ctx, `SELECT contract_id, date, due_date, period_initial, period_final
		FROM invoices WHERE company_id = $1 AND contract_id = any($2) AND type = 'contract'`, companyID, ids)
	if err != nil {
		return translate(err, "contract invoices")
	}
	defer rows.Close()
	for rows.Next() {
		inv := finance.Invoice{Type: finance.InvoiceContract}
		var date, due, pi, pf pgtype.Date
		if err := rows.Scan(&inv.ContractID, &date, &due, &pi, &pf); err != nil {
			return translate(err, "contract invoices")
		}
		inv.Date, inv.DueDate, inv.PeriodInitial, inv.PeriodFinal = dateOf(date), dateOf(due), dateOf(pi), dateOf(pf)
		b := byID[inv.ContractID]
		b.in.Invoices = append(b.in.Invoices, inv)
	}
	return translate(rows.Err(), "contract invoices")
}

// rentPurpose is the purpose of the rent item a contract type bills on:
// a season rent is a rent.
func rentPurpose(t finance.ContractType) finance.ContractType {
	if t == finance.ContractSeason {
		return finance.ContractRent
	}
	return t
}

// pickRentItems sets each contract's rent item: the company's active
// transaction item of type rent whose purpose is the contract's (a season
// rent's is rent), else one with no purpose; the lowest id of either. A
// contract with none, or whose item is not a line the payer is charged,
// is refused.
func pickRentItems(ctx context.Context, q DBTX, companyID int64, batch []*contractBilling) error {
	rows, err := q.Query(ctx, `SELECT id, coalesce(purpose, ''), coalesce(debit, ''), coalesce(credit, '')
		FROM transaction_items WHERE company_id = $1 AND active AND type = 'rent' ORDER BY id`, companyID)
	if err != nil {
		return translate(err, "rent items")
	}
	defer rows.Close()
	byPurpose := map[finance.ContractType]finance.TransactionItem{}
	for rows.Next() {
		var it finance.TransactionItem
		var purpose, debit, credit string
		if err := rows.Scan(&it.ID, &purpose, &debit, &credit); err != nil {
			return translate(err, "rent items")
		}
		it.Debit, it.Credit = finance.Party(debit), finance.Party(credit)
		if _, seen := byPurpose[finance.ContractType(purpose)]; !seen {
			byPurpose[finance.ContractType(purpose)] = it
		}
	}
	if err := rows.Err(); err != nil {
		return translate(err, "rent items")
	}
	for _, b := range batch {
		purpose := rentPurpose(b.in.Contract.Type)
		it, ok := byPurpose[purpose]
		if !ok {
			it, ok = byPurpose[""]
		}
		if !ok {
			b.problems = append(b.problems, finance.Problem{Field: "rent_item", Message: fmt.Sprintf(
				"the company has no active transaction item of type rent for %s contracts (purpose %s, or none) to bill the rent on",
				b.in.Contract.Type, purpose)})
			continue
		}
		b.in.RentItemID = it.ID
		b.problems = append(b.problems, lineProblems("rent_item", it)...)
		b.lineItems = append([]finance.TransactionItem{it}, b.lineItems...)
	}
	return nil
}

func dateOf(d pgtype.Date) finance.Date {
	if !d.Valid {
		return finance.Date{}
	}
	return finance.DateOf(d.Time)
}

func numericDecimal(n pgtype.Numeric) decimal.Decimal {
	if !n.Valid || n.Int == nil {
		return decimal.Zero
	}
	return decimal.NewFromBigInt(n.Int, n.Exp)
}

// dateTime is a date as pgx writes a date parameter.
func dateTime(d finance.Date) time.Time {
	y, m, day := d.Date()
	return time.Date(y, m, day, 0, 0, 0, 0, time.UTC)
}

// skipMessages say, for the caller, why the rule does not bill a contract.
var skipMessages = map[finance.SkipReason]string{
	finance.SkipCanceled:  "the contract is canceled; a canceled contract is not billed",
	finance.SkipFinished:  "the contract is finished (or terminated); it has no more invoices",
	finance.SkipSuspended: "the contract is suspended; it is not billed while suspended",
	finance.SkipNotActive: "the contract is not active yet (pre_reserved or reserved); it is billed once active",
}

// SkipMessage is the message of a skip reason.
func SkipMessage(r finance.SkipReason) string {
	if m, ok := skipMessages[r]; ok {
		return m
	}
	return "the contract is not billed (" + string(r) + ")"
}

// ContractError is the error of a generation asked for one contract:
// NotFound when the company has no such contract, Invalid, naming why,
// when it cannot be billed (skipped or refused); nil when it can.
func (g *Generation) ContractError(contractID int64) error {
	if len(g.notFound) > 0 {
		return recordNotFound(contractID)
	}
	var problems []finance.Problem
	for _, s := range g.Skipped {
		problems = append(problems, finance.Problem{Field: "contract", Message: SkipMessage(s.Reason)})
	}
	for _, r := range g.Refused {
		problems = append(problems, r.Problems...)
	}
	if len(problems) > 0 {
		return &finance.Error{Code: finance.Invalid, Message: fmt.Sprintf("Contract %d cannot be billed as it stands: "+
			"each problem names what to fix (items[i] is the contract's i-th item in id order, its id in the message).", contractID),
			Problems: problems}
	}
	return nil
}

// InvoiceLead is a company's time zone and how many days ahead of a due
// date its invoices are generated (companies.invoice_lead_days).
func InvoiceLead(ctx context.Context, q DBTX, companyID int64) (zone string, leadDays int, err error) {
	err = q.QueryRow(ctx, `SELECT time_zone, invoice_lead_days FROM companies WHERE id = $1`, companyID).Scan(&zone, &leadDays)
	return zone, leadDays, translate(err, "company")
}

// BillableContractIDs lists, in id order, the company's active contracts
// with an id above after: what the nightly generation walks.
func BillableContractIDs(ctx context.Context, q DBTX, companyID, after int64) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT id FROM contracts WHERE company_id = $1 AND active = 'active' AND id > $2 ORDER BY id`,
		companyID, after)
	if err != nil {
		return nil, translate(err, "contracts")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, translate(err, "contracts")
}
