package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// generatedColumns are the scheduled invoices as parallel arrays, one
// entry an invoice, and their lines as parallel arrays keyed by their
// invoice's slot (contract, period_initial): the parameters of
// insertGenerated.
type generatedColumns struct {
	contract, payer, building, business, account, billing, lateFeeItem []int64
	method, description, discMode, discAction                          []string
	total                                                              []string
	lateFeePct, lateFeeInt, discFixed, discPct                         []*string // nil: null
	date, due, periodInitial, periodFinal                              []time.Time
	lateFee, discount                                                  []bool
	discDays                                                           []*int32 // nil: null

	lineContract          []int64
	linePeriod            []time.Time
	lineItem              []int64
	lineAmount, lineDescr []string
}

func generatedColumnsOf(invoices []GeneratedInvoice) *generatedColumns {
	n := len(invoices)
	c := &generatedColumns{
		contract: make([]int64, 0, n), payer: make([]int64, 0, n), building: make([]int64, 0, n),
		business: make([]int64, 0, n), account: make([]int64, 0, n), billing: make([]int64, 0, n),
		lateFeeItem: make([]int64, 0, n), method: make([]string, 0, n), description: make([]string, 0, n),
		discMode: make([]string, 0, n), discAction: make([]string, 0, n), total: make([]string, 0, n),
		lateFeePct: make([]*string, 0, n), lateFeeInt: make([]*string, 0, n), discFixed: make([]*string, 0, n),
		discPct: make([]*string, 0, n), date: make([]time.Time, 0, n), due: make([]time.Time, 0, n),
		periodInitial: make([]time.Time, 0, n), periodFinal: make([]time.Time, 0, n),
		lateFee: make([]bool, 0, n), discount: make([]bool, 0, n), discDays: make([]*int32, 0, n),
	}
	for i := range invoices {
		c.add(&invoices[i])
	}
	return c
}

func (c *generatedColumns) add(g *GeneratedInvoice) {
	inv := &g.Invoice
	pi := dateTime(inv.PeriodInitial)
	c.contract = append(c.contract, inv.ContractID)
	c.payer = append(c.payer, inv.PayerID)
	c.building = append(c.building, g.BuildingID)
	c.business = append(c.business, inv.BusinessID)
	c.account = append(c.account, inv.AccountID)
	c.billing = append(c.billing, inv.BillingID)
	c.lateFeeItem = append(c.lateFeeItem, inv.TicketLateFeeItemID)
	c.method = append(c.method, inv.BillingMethod)
	c.description = append(c.description, inv.Description)
	c.discMode = append(c.discMode, string(inv.TicketDiscountMode))
	c.discAction = append(c.discAction, string(inv.TicketDiscountAction))
	c.total = append(c.total, inv.Total.String())
	c.lateFeePct = append(c.lateFeePct, unlessUnset(g.Unset.LateFeePercentage, inv.TicketLateFeePercentage.String()))
	c.lateFeeInt = append(c.lateFeeInt, unlessUnset(g.Unset.LateFeeInterest, inv.TicketLateFeeInterest.String()))
	c.discFixed = append(c.discFixed, unlessUnset(g.Unset.DiscountFixed, inv.TicketDiscountFixed.String()))
	c.discPct = append(c.discPct, unlessUnset(g.Unset.DiscountPercentage, inv.TicketDiscountPercentage.String()))
	c.date = append(c.date, dateTime(inv.Date))
	c.due = append(c.due, dateTime(inv.DueDate))
	c.periodInitial = append(c.periodInitial, pi)
	c.periodFinal = append(c.periodFinal, dateTime(inv.PeriodFinal))
	c.lateFee = append(c.lateFee, inv.TicketLateFee)
	c.discount = append(c.discount, inv.TicketDiscount)
	c.discDays = append(c.discDays, unlessUnset(g.Unset.DiscountDays, int32(inv.TicketDiscountDays)))
	for _, l := range inv.Items {
		c.lineContract = append(c.lineContract, inv.ContractID)
		c.linePeriod = append(c.linePeriod, pi)
		c.lineItem = append(c.lineItem, l.ItemID)
		c.lineAmount = append(c.lineAmount, l.Amount.String())
		c.lineDescr = append(c.lineDescr, l.Description)
	}
}

// unlessUnset is v, or nil (null) when the setting is unset.
func unlessUnset[T any](unset bool, v T) *T {
	if unset {
		return nil
	}
	return &v
}

// insertGenerated inserts the invoices whose slot is free, in order, then
// the lines of those it inserted, a history row each and, when an
// endpoint of the company listens, their invoice.created events, in one
// statement; it returns the inserted invoices' slots and ids. Line ids
// follow the rule's order of lines. It takes a share lock on the
// invoices' contracts and leaves out, as the rule does, the invoices a
// termination bills (a period ending on or after termination_at of a
// terminating or terminated contract): a termination committed after the
// rule read its contract (it holds the contract's row) is waited for and
// seen, so the last period is never billed twice. insertGenerated is the
// statement, with the invoice.created events when listening.
func insertGenerated(listening bool) string {
	em := emissionOf(listening, invoicesResource(), "$1", EventInvoiceCreated, "ins")
	return `
WITH contract AS MATERIALIZED (
	SELECT id, status, termination_at FROM contracts WHERE company_id = $1 AND id = any($2::bigint[])
	ORDER BY id FOR SHARE
), inv AS (
	SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
		$8::text[], $9::text[], $10::text[]::numeric[], $11::date[], $12::date[], $13::date[], $14::date[],
		$15::boolean[], $16::bigint[], $17::text[]::numeric[], $18::text[]::numeric[], $19::boolean[], $20::text[],
		$21::text[]::numeric[], $22::text[]::numeric[], $23::integer[], $24::text[])
		WITH ORDINALITY AS t (contract_id, payer_id, building_id, business_id, account_id, billing_id,
			billing_method, description, total, date, due_date, period_initial, period_final,
			ticket_late_fee, ticket_late_fee_item_id, ticket_late_fee_percentage, ticket_late_fee_interest,
			ticket_discount, ticket_discount_mode, ticket_discount_fixed, ticket_discount_percentage,
			ticket_discount_days, ticket_discount_action, ord)
), ins AS (
	INSERT INTO invoices (company_id, type, contract_id, payer_id, building_id, business_id, account_id, billing_id,
		billing_method, description, total, date, due_date, period_initial, period_final,
		ticket_late_fee, ticket_late_fee_item_id, ticket_late_fee_percentage, ticket_late_fee_interest,
		ticket_discount, ticket_discount_mode, ticket_discount_fixed, ticket_discount_percentage,
		ticket_discount_days, ticket_discount_action)
	SELECT $1, 'contract', contract_id, payer_id, nullif(building_id, 0), business_id, account_id, nullif(billing_id, 0),
		billing_method, description, total, date, due_date, period_initial, period_final,
		ticket_late_fee, nullif(ticket_late_fee_item_id, 0), ticket_late_fee_percentage, ticket_late_fee_interest,
		ticket_discount, nullif(ticket_discount_mode, ''), ticket_discount_fixed, ticket_discount_percentage,
		ticket_discount_days, nullif(ticket_discount_action, '')
	FROM inv
	WHERE NOT EXISTS (SELECT 1 FROM contract c WHERE c.id = inv.contract_id
		AND c.status IN ('terminating', 'terminated') AND inv.period_final >= c.termination_at)
	ORDER BY ord
	ON CONFLICT (company_id, contract_id, period_initial)
		WHERE type = 'contract' AND contract_id IS NOT NULL AND period_initial IS NOT NULL DO NOTHING
	RETURNING company_id, id, contract_id, period_initial, ` + em.doc + ` AS doc
), lines AS (
	INSERT INTO invoice_items (company_id, invoice_id, item_id, amount, description)
	SELECT $1, ins.id, l.item_id, l.amount, nullif(l.description, '')
	FROM unnest($25::bigint[], $26::date[], $27::bigint[], $28::text[]::numeric[], $29::text[])
		WITH ORDINALITY AS l (contract_id, period_initial, item_id, amount, description, ord)
	JOIN ins ON ins.contract_id = l.contract_id AND ins.period_initial = l.period_initial
	ORDER BY l.ord
), history AS (
	INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, note)
	SELECT $1, id, $30, nullif($31::bigint, 0), 'create', 'generated from contract ' || contract_id
	FROM ins
)` + em.ctes + `
SELECT id, contract_id, period_initial, ` + em.woke + ` FROM ins`
}

// insertGeneratedSQL are insertGenerated's two forms: nobody listening,
// and an endpoint listening.
var insertGeneratedSQL = [2]string{insertGenerated(false), insertGenerated(true)}

// writeGenerated inserts gen's invoices and sets the ids of those
// inserted (gen.Created, and Invoice.ID).
func writeGenerated(ctx context.Context, q DBTX, companyID int64, gen *Generation, actor Actor) error {
	c := generatedColumnsOf(gen.Invoices)
	listening, err := Subscribed(ctx, q, companyID, EventInvoiceCreated)
	if err != nil {
		return err
	}
	sql := insertGeneratedSQL[0]
	if listening {
		sql = insertGeneratedSQL[1]
	}
	rows, err := q.Query(ctx, sql, companyID,
		c.contract, c.payer, c.building, c.business, c.account, c.billing,
		c.method, c.description, c.total, c.date, c.due, c.periodInitial, c.periodFinal,
		c.lateFee, c.lateFeeItem, c.lateFeePct, c.lateFeeInt, c.discount, c.discMode,
		c.discFixed, c.discPct, c.discDays, c.discAction,
		c.lineContract, c.linePeriod, c.lineItem, c.lineAmount, c.lineDescr,
		actor.Kind, actor.ID)
	if err != nil {
		return translate(err, "generated invoices")
	}
	defer rows.Close()
	ids := make(map[slotKey]int64, len(gen.Invoices))
	for rows.Next() {
		var id, contract, woke int64
		var pi time.Time
		if err := rows.Scan(&id, &contract, &pi, &woke); err != nil {
			return translate(err, "generated invoices")
		}
		ids[slotKey{contract, finance.DateOf(pi)}] = id
	}
	if err := rows.Err(); err != nil {
		return translate(err, "generated invoices")
	}
	gen.Created = make([]int64, 0, len(ids))
	for i := range gen.Invoices {
		inv := &gen.Invoices[i].Invoice
		if id, ok := ids[slotKey{inv.ContractID, inv.PeriodInitial}]; ok {
			inv.ID = id
			gen.Created = append(gen.Created, id)
		}
	}
	return nil
}

// slotKey is an invoice's slot: its contract and first day of period.
type slotKey struct {
	contract int64
	period   finance.Date
}

// smallInvoiceTable is the planner's estimate of invoices below which a
// generation run refreshes the statistics after its first chunk.
const smallInvoiceTable = 10_000

// RefreshInvoiceStats analyzes invoices and invoice_items when the
// planner believes invoices nearly empty (a first bulk generation into a
// new database) and the chunk's inserted invoices are at least half as
// many as it believes there are: inside tx, the rows tx inserted count.
// Without it, the foreign-key check of the lines keeps the plan it made
// while invoices was empty, a sequential scan, and each chunk is slower
// than the last; the new statistics make PostgreSQL plan it again, on the
// primary key. A chunk of a few invoices leaves the statistics as they
// are: they are not wrong by much, and an ANALYZE (a lock no two
// transactions hold at once) per small company's run would cost a night
// of many small companies more than their writes (docs/performance.md, "A
// night of many companies"). Each refresh at least doubles the estimate,
// so a database growing from empty is analyzed a few times, not once a
// run.
func RefreshInvoiceStats(ctx context.Context, tx pgx.Tx, inserted int) error {
	var estimate float64
	if err := tx.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'invoices'::regclass`).Scan(&estimate); err != nil {
		return fmt.Errorf("estimate invoices: %w", err)
	}
	if estimate >= smallInvoiceTable || inserted == 0 || float64(2*inserted) < estimate {
		return nil
	}
	if _, err := tx.Exec(ctx, `ANALYZE invoices, invoice_items`); err != nil {
		return fmt.Errorf("analyze invoices: %w", err)
	}
	return nil
}
