package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// Renegotiation agreements (/financial/agreements; docs/api.md and
// docs/finance.md, "Renegotiation agreements"): the resource the query
// language reads, and the agreement's creation (its preview is the same
// code without the write). Cancel, break and the status the payments keep
// are in agreements_end.go, the rules the agreements set on invoice writes
// in agreements_rules.go, the company's setting in agreements_settings.go.

// Agreements is the resource of the agreements.
const Agreements = "agreements"

// The statuses of an agreement.
const (
	AgreementActive    = "active"    // installments to pay
	AgreementFulfilled = "fulfilled" // every installment is paid
	AgreementBroken    = "broken"    // the originals given back less what was paid
	AgreementCanceled  = "canceled"  // the originals restored, before any installment was paid
)

// AgreementStatuses are the values of an agreement's status.
var AgreementStatuses = []string{AgreementActive, AgreementFulfilled, AgreementBroken, AgreementCanceled}

// Origins of the invoice history rows the agreements write.
const (
	OriginAgreement         = "agreement"          // renegotiated, or an installment created
	OriginAgreementCanceled = "agreement_canceled" // restored, or an installment canceled
	OriginAgreementBroken   = "agreement_broken"   // given back, or an installment canceled
)

func agreementsResource() *Resource {
	money := func(name string) Column {
		return Column{Name: name, Type: Decimal, Filterable: true, Precision: 14, Scale: 2}
	}
	percent := func(name string) Column {
		return Column{Name: name, Type: Decimal, Filterable: true, Precision: 5, Scale: 2}
	}
	return &Resource{
		Name: Agreements, Table: "agreements", ReadOnly: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "payer_id", Type: Int, Filterable: true},
			{Name: "business_id", Type: Int, Filterable: true},
			{Name: "account_id", Type: Int, Filterable: true},
			{Name: "status", Type: String, Filterable: true, Enum: AgreementStatuses},
			{Name: "date", Type: Date, Filterable: true},
			{Name: "installment_count", Type: Int, Filterable: true},
			{Name: "first_due_date", Type: Date, Filterable: true},
			{Name: "interval_months", Type: Int, Filterable: true},
			percent("late_fee_waiver"), percent("interest_waiver"), money("discount"),
			money("principal"), money("late_fee"), money("late_fee_waived"), money("interest"), money("interest_waived"),
			money("total"),
			// what the installments paid so far: their paid_amount, summed
			{Name: "paid_amount", Type: Decimal, Filterable: true, Precision: 14, Scale: 2, Expr: agreementPaidAmount},
			{Name: "invoice_ids", Type: IntArray, Filterable: true},
			{Name: "installment_ids", Type: IntArray, Filterable: true},
			{Name: "debts", Type: JSON},
			{Name: "fulfilled_at", Type: Date, Filterable: true},
			{Name: "broken_at", Type: Date, Filterable: true},
			{Name: "broken_by", Type: String, Filterable: true, Enum: []string{BrokenByRequest, BrokenByOverdue}},
			{Name: "canceled_at", Type: Date, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "invoices", Kind: InArray, Resource: Invoices, Key: "invoice_ids"},
			{Name: "installments", Kind: InArray, Resource: Invoices, Key: "installment_ids"},
			{Name: "payer", Kind: BelongsTo, Resource: Persons, Key: "payer_id"},
			{Name: "business", Kind: BelongsTo, Resource: Businesses, Key: "business_id"},
			{Name: "account", Kind: BelongsTo, Resource: Accounts, Key: "account_id"},
		},
		Filters: []SpecialFilter{
			ColumnIn("payerIn", "payer_id", Int),
			enumIn(ColumnIn("statusIn", "status", String), AgreementStatuses),
			ArrayOverlap("invoiceIn", "invoice_ids"),
		},
	}
}

// agreementPaidAmount sums what the agreement's installments paid.
const agreementPaidAmount = `(SELECT coalesce(sum(i.paid_amount), 0)::numeric(14,2) FROM invoices i
	WHERE i.company_id = "agreements"."company_id" AND i.id = any("agreements"."installment_ids") AND i.paid)`

// AgreementRequest is what POST /financial/agreements asks for.
type AgreementRequest struct {
	InvoiceIDs     []int64
	Installments   int
	FirstDueDate   finance.Date
	IntervalMonths int
	LateFeeWaiver  decimal.Decimal
	InterestWaiver decimal.Decimal
	Discount       decimal.Decimal
}

// InstallmentInvoice is an installment as the invoice it is written as:
// its fields (Invoice, without its lines: Lines are its lines with their
// origins), its building (0: none) and, once written, its id.
type InstallmentInvoice struct {
	ID         int64
	Number     int
	Invoice    finance.Invoice
	BuildingID int64
	Lines      []finance.AgreementLine
}

// AgreementRun is an agreement as its creation reckons it (and, in a
// preview, would write it): ID and the installments' ids are 0 in a
// preview.
type AgreementRun struct {
	ID         int64
	Status     string
	PayerID    int64
	BusinessID int64
	AccountID  int64
	Terms      finance.AgreementTerms
	InvoiceIDs []int64
	// Statuses are the originals' statuses before the agreement, by id.
	Statuses     map[int64]string
	Plan         finance.AgreementPlan
	Installments []InstallmentInvoice
}

// agreementOriginal is an original as the agreement reads it.
type agreementOriginal struct {
	inv        finance.Invoice
	buildingID int64 // its own, else its contract's
	status     string
	pixCode    *string
	inBatch    int64 // the collection batch it is in (added or sent), 0: none
	guaranteed bool  // an open guaranteed transfer advanced its owners' share
}

// CreateAgreement renegotiates the invoices of req (docs/api.md,
// "/financial/agreements"), in one transaction of db (a pool, or the
// transaction of a keyed write: a savepoint of it): the originals are locked,
// the plan reckoned on the company's today (finance.PlanAgreement), and,
// unless preview, the agreement written with its installments (new
// invoices, type single), the originals made renegotiated with the
// agreement's id (their PIX code discarded), and a history row per
// invoice. A preview runs the same code up to the write and writes
// nothing. Problems are a 422 naming the field (invoices.N for the N-th
// invoice asked for).
func CreateAgreement(ctx context.Context, db Beginner, sc Scope, req AgreementRequest, preview bool) (*AgreementRun, error) {
	var run *AgreementRun
	err := runOrPreview(ctx, db, preview, func(tx pgx.Tx) error {
		var originals []*agreementOriginal
		var err error
		run, originals, err = planAgreement(ctx, tx, sc.CompanyID, req)
		if err != nil || preview {
			return err
		}
		return writeAgreement(ctx, tx, sc.CompanyID, ActorOf(sc), run, originals)
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

// planAgreement reads and locks the originals, reckons the agreement and
// its installments' invoices.
func planAgreement(ctx context.Context, tx pgx.Tx, companyID int64, req AgreementRequest) (*AgreementRun, []*agreementOriginal, error) {
	now, err := companyToday(ctx, tx, companyID)
	if err != nil {
		return nil, nil, err
	}
	today := finance.DateOf(now)
	found, err := readAgreementOriginals(ctx, tx, companyID, req.InvoiceIDs)
	if err != nil {
		return nil, nil, err
	}
	var ps []finance.Problem
	originals := make([]*agreementOriginal, len(req.InvoiceIDs))
	for i, id := range req.InvoiceIDs {
		field := fmt.Sprintf("invoices.%d", i)
		o := found[id]
		switch {
		case o == nil:
			ps = append(ps, finance.Problem{Field: field, Message: fmt.Sprintf("invoice %d not found", id)})
		case o.inBatch != 0:
			ps = append(ps, finance.Problem{Field: field, Message: fmt.Sprintf("invoice %d is in collection batch %d: "+
				"remove it from the batch, or revert it there once the batch is sent (removeInvoices, revertInvoices)", id, o.inBatch)})
		case o.guaranteed:
			ps = append(ps, finance.Problem{Field: field, Message: fmt.Sprintf("invoice %d's owners' share was advanced by a guaranteed "+
				"transfer: its payment settles the guarantee, which installments cannot", id)})
		}
		originals[i] = o
	}
	if slices.Contains(originals, nil) {
		known, err := knownOriginalsProblems(ctx, tx, companyID, req, today, originals)
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, finance.InvalidInput(append(ps, known...))
	}
	in, err := agreementInput(ctx, tx, companyID, req, today, originals)
	if err != nil {
		return nil, nil, err
	}
	plan, err := finance.PlanAgreement(in)
	if err != nil {
		e, ok := finance.AsInvalid(err, nil)
		if !ok {
			return nil, nil, fmt.Errorf("plan agreement: %w", err)
		}
		ps = append(ps, e.Problems...)
	}
	if len(ps) > 0 {
		return nil, nil, finance.InvalidInput(ps)
	}
	run := &AgreementRun{Status: AgreementActive, PayerID: originals[0].inv.PayerID, BusinessID: originals[0].inv.BusinessID,
		Terms: in.Terms, InvoiceIDs: req.InvoiceIDs, Plan: plan, Statuses: map[int64]string{}}
	for _, o := range originals {
		run.Statuses[o.inv.ID] = o.status
	}
	run.Installments = installmentInvoices(originals, &run.Terms, plan)
	run.AccountID = run.Installments[0].Invoice.AccountID
	return run, originals, nil
}

// knownOriginalsProblems are the problems of a request some of whose
// invoices are not found (nil in originals) that do not depend on them
// (finance.AgreementProblems of the terms and of the invoices found), each
// invoice's named by its place in the request (invoices.N), so that one
// 422 lists them with the ids not found.
func knownOriginalsProblems(ctx context.Context, tx pgx.Tx, companyID int64, req AgreementRequest, today finance.Date,
	originals []*agreementOriginal) ([]finance.Problem, error) {
	var found []*agreementOriginal
	var at []int // the place in the request of each one found
	for i, o := range originals {
		if o != nil {
			found, at = append(found, o), append(at, i)
		}
	}
	in, err := agreementInput(ctx, tx, companyID, req, today, found)
	if err != nil {
		return nil, err
	}
	var out []finance.Problem
	for _, p := range finance.AgreementProblems(in) {
		if p.Field == "invoices" { // of the invoices as a whole: the ones not found come first
			continue
		}
		p.Field = requestField(p.Field, at)
		out = append(out, p)
	}
	return out, nil
}

// requestField is field (invoices.K, invoices.K.…, of the K-th invoice
// found) named by that invoice's place in the request, at[K]; any other
// field as it is.
func requestField(field string, at []int) string {
	rest, ok := strings.CutPrefix(field, "invoices.")
	if !ok {
		return field
	}
	k, tail, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(k)
	if err != nil || n < 0 || n >= len(at) {
		return field
	}
	if tail != "" {
		tail = "." + tail
	}
	return fmt.Sprintf("invoices.%d%s", at[n], tail)
}

// agreementInput reads what the rule reckons with: the originals' lines,
// their items and the company's fee item, their buildings' owners.
func agreementInput(ctx context.Context, tx pgx.Tx, companyID int64, req AgreementRequest, today finance.Date,
	originals []*agreementOriginal) (finance.AgreementInput, error) {
	in := finance.AgreementInput{Terms: finance.AgreementTerms{Date: today, Installments: req.Installments,
		FirstDueDate: req.FirstDueDate, IntervalMonths: req.IntervalMonths, LateFeeWaiver: req.LateFeeWaiver,
		InterestWaiver: req.InterestWaiver, Discount: req.Discount}}
	ids := make([]int64, len(originals))
	for i, o := range originals {
		ids[i] = o.inv.ID
	}
	lines, err := readClientLines(ctx, tx, companyID, ids)
	if err != nil {
		return in, err
	}
	var items []int64
	owners := map[int64][]finance.Share{}
	for _, o := range originals {
		o.inv.Items = lines[o.inv.ID]
		for _, l := range o.inv.Items {
			items = append(items, l.ItemID)
		}
		if _, read := owners[o.buildingID]; !read {
			if owners[o.buildingID], err = buildingOwners(ctx, tx, companyID, o.buildingID); err != nil {
				return in, translate(err, "owners of an agreement's invoices")
			}
		}
		in.Originals = append(in.Originals, finance.AgreementOriginal{Invoice: o.inv, Owners: owners[o.buildingID]})
	}
	slices.Sort(items)
	c, err := postingItemsOf(ctx, tx, companyID, slices.Compact(items))
	if err != nil {
		return in, translate(err, "items of an agreement's invoices")
	}
	in.Items, in.FeeItem = c.items, c.fee
	return in, nil
}

// installmentInvoices are the installments as invoices (docs/api.md,
// "/financial/agreements"): type single, of the payer and the business,
// billed to the account, billing and billing method of the original due
// last (of two due the same day, the later one), with its late-fee
// settings and no punctuality discount; of the originals' contract and
// building when they all share one (else none), dated the agreement's
// date, described "Parcela k/n do acordo".
func installmentInvoices(originals []*agreementOriginal, t *finance.AgreementTerms, plan finance.AgreementPlan) []InstallmentInvoice {
	last := originals[0]
	contract, building := last.inv.ContractID, last.buildingID
	for _, o := range originals {
		if o.inv.DueDate.After(last.inv.DueDate) || o.inv.DueDate == last.inv.DueDate && o.inv.ID > last.inv.ID {
			last = o
		}
		if o.inv.ContractID != contract {
			contract = 0
		}
		if o.buildingID != building {
			building = 0
		}
	}
	out := make([]InstallmentInvoice, len(plan.Installments))
	for i, in := range plan.Installments {
		src := &last.inv
		inv := finance.Invoice{Type: finance.InvoiceSingle, PayerID: src.PayerID, ContractID: contract, BusinessID: src.BusinessID,
			AccountID: src.AccountID, BillingID: src.BillingID, BillingMethod: src.BillingMethod,
			Description: fmt.Sprintf("Parcela %d/%d do acordo", in.Number, len(plan.Installments)),
			Total:       in.Amount, Date: t.Date, DueDate: in.DueDate,
			LateFee: finance.LateFee{TicketLateFee: src.TicketLateFee, TicketLateFeeItemID: src.TicketLateFeeItemID,
				TicketLateFeePercentage: src.TicketLateFeePercentage, TicketLateFeeInterest: src.TicketLateFeeInterest}}
		out[i] = InstallmentInvoice{Number: in.Number, Invoice: inv, BuildingID: building, Lines: in.Lines}
	}
	return out
}

// readAgreementOriginals reads and locks (FOR UPDATE, in id order) the
// company's invoices of ids, with what the agreement checks of them; the
// status as a read shows it today (invoiceStatusExpr).
func readAgreementOriginals(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) (map[int64]*agreementOriginal, error) {
	rows, err := tx.Query(ctx, `
		SELECT i.id, i.type, i.payer_id, coalesce(i.contract_id, 0), coalesce(i.building_id, c.building_id, 0),
		       i.business_id, i.account_id, coalesce(i.billing_id, 0), i.billing_method, i.paid,
		       CASE WHEN NOT i.paid AND i.status IN ('unpaid', 'overdue')
		            THEN CASE WHEN i.due_date < company_today(i.company_id) THEN 'overdue' ELSE 'unpaid' END
		            ELSE i.status END, i.total,
		       i.date, i.due_date, i.ticket_late_fee, coalesce(i.ticket_late_fee_item_id, 0),
		       coalesce(i.ticket_late_fee_percentage, 0), coalesce(i.ticket_late_fee_interest, 0), i.pix_code,
		       coalesce((SELECT m.batch_id FROM ticket_batch_invoices m WHERE m.company_id = i.company_id
		                 AND m.invoice_id = i.id AND m.state = 'added'), 0),
		       EXISTS (SELECT 1 FROM transactions g WHERE g.company_id = i.company_id AND g.invoice_id = i.id
		               AND g.mode = 'guaranteed_rent' AND g.type = 'credit' AND g.transfer_key IS NOT NULL)
		FROM invoices i
		LEFT JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		WHERE i.company_id = $1 AND i.id = any($2)
		ORDER BY i.id
		FOR UPDATE OF i`, companyID, ids)
	if err != nil {
		return nil, translate(err, "invoices of an agreement")
	}
	defer rows.Close()
	out := map[int64]*agreementOriginal{}
	for rows.Next() {
		o := &agreementOriginal{}
		inv := &o.inv
		var typ string
		if err := rows.Scan(&inv.ID, &typ, &inv.PayerID, &inv.ContractID, &o.buildingID, &inv.BusinessID, &inv.AccountID,
			&inv.BillingID, &inv.BillingMethod, &inv.Paid, &o.status, &inv.Total, &inv.Date, &inv.DueDate,
			&inv.TicketLateFee, &inv.TicketLateFeeItemID, &inv.TicketLateFeePercentage, &inv.TicketLateFeeInterest,
			&o.pixCode, &o.inBatch, &o.guaranteed); err != nil {
			return nil, translate(err, "invoices of an agreement")
		}
		inv.Type, inv.Status = finance.InvoiceType(typ), finance.InvoiceStatus(o.status)
		out[inv.ID] = o
	}
	return out, translate(rows.Err(), "invoices of an agreement")
}

// readClientLines reads the client lines (kind line) of invoices ids, by
// invoice, each invoice's by id.
func readClientLines(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) (map[int64][]finance.InvoiceItem, error) {
	rows, err := tx.Query(ctx, `
		SELECT invoice_id, id, item_id, amount, coalesce(description, ''), coalesce(owner_id, 0), coalesce(broker_id, 0)
		FROM invoice_items
		WHERE company_id = $1 AND invoice_id = any($2) AND kind = 'line'
		ORDER BY invoice_id, id`, companyID, ids)
	if err != nil {
		return nil, translate(err, "lines of an agreement's invoices")
	}
	defer rows.Close()
	out := map[int64][]finance.InvoiceItem{}
	for rows.Next() {
		var invoice int64
		l := finance.InvoiceItem{Kind: finance.LineLine}
		if err := rows.Scan(&invoice, &l.ID, &l.ItemID, &l.Amount, &l.Description, &l.OwnerID, &l.BrokerID); err != nil {
			return nil, translate(err, "lines of an agreement's invoices")
		}
		out[invoice] = append(out[invoice], l)
	}
	return out, translate(rows.Err(), "lines of an agreement's invoices")
}

// AgreementDebt is an original's debt as the agreement stores it (debts)
// and the API shows it, with the status the original had.
type AgreementDebt struct {
	InvoiceID      int64         `json:"invoice_id"`
	Status         string        `json:"status"`
	DueDate        finance.Date  `json:"due_date"`
	Total          finance.Money `json:"total"`
	DaysLate       int           `json:"days_late"`
	LateFee        finance.Money `json:"late_fee"`
	LateFeeWaived  finance.Money `json:"late_fee_waived"`
	Interest       finance.Money `json:"interest"`
	InterestWaived finance.Money `json:"interest_waived"`
	Discount       finance.Money `json:"discount"`
	Amount         finance.Money `json:"amount"`
}

// Debts are the plan's debts as the agreement stores them (debts) and the
// API shows them, each with the status its original had.
func (r *AgreementRun) Debts() []AgreementDebt {
	out := make([]AgreementDebt, len(r.Plan.Debts))
	for i, d := range r.Plan.Debts {
		out[i] = AgreementDebt{InvoiceID: d.InvoiceID, Status: r.Statuses[d.InvoiceID], DueDate: d.DueDate, Total: finance.Money(d.Total),
			DaysLate: d.DaysLate, LateFee: finance.Money(d.LateFee), LateFeeWaived: finance.Money(d.LateFeeWaived),
			Interest: finance.Money(d.Interest), InterestWaived: finance.Money(d.InterestWaived),
			Discount: finance.Money(d.Discount), Amount: finance.Money(d.Amount)}
	}
	return out
}

// writeAgreement writes a planned agreement: its row, its installments
// with their lines, the originals renegotiated, the history of each.
func writeAgreement(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, run *AgreementRun, originals []*agreementOriginal) error {
	debts, err := json.Marshal(run.Debts())
	if err != nil {
		return fmt.Errorf("agreement debts: %w", err)
	}
	t, p := &run.Terms, &run.Plan
	err = tx.QueryRow(ctx, `INSERT INTO agreements (company_id, payer_id, business_id, account_id, date, installment_count,
			first_due_date, interval_months, late_fee_waiver, interest_waiver, discount, principal, late_fee, late_fee_waived,
			interest, interest_waived, total, invoice_ids, debts)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19::jsonb) RETURNING id`,
		companyID, run.PayerID, run.BusinessID, run.AccountID, t.Date, t.Installments, t.FirstDueDate, t.IntervalMonths,
		numeric(t.LateFeeWaiver), numeric(t.InterestWaiver), numeric(t.Discount), numeric(p.Principal), numeric(p.LateFee),
		numeric(p.LateFeeWaived), numeric(p.Interest), numeric(p.InterestWaived), numeric(p.Total), run.InvoiceIDs,
		string(debts)).Scan(&run.ID)
	if err != nil {
		return translate(err, "agreement")
	}
	ids := make([]int64, len(run.Installments))
	for i := range run.Installments {
		if err := insertInstallment(ctx, tx, companyID, run.ID, &run.Installments[i]); err != nil {
			return err
		}
		ids[i] = run.Installments[i].ID
	}
	if _, err := tx.Exec(ctx, `UPDATE agreements SET installment_ids = $3 WHERE company_id = $1 AND id = $2`,
		companyID, run.ID, ids); err != nil {
		return translate(err, "agreement's installments")
	}
	if err := renegotiate(ctx, tx, companyID, run.ID, originals); err != nil {
		return err
	}
	if err := agreementHistories(ctx, tx, companyID, actor, run, originals); err != nil {
		return err
	}
	// the events, with the agreement: the installments created, the
	// originals renegotiated
	if _, err := EmitRecordEvents(ctx, tx, companyID, EventInvoiceCreated, Invoices, ids, ""); err != nil {
		return err
	}
	_, err = EmitRecordEvents(ctx, tx, companyID, EventInvoiceUpdated, Invoices, run.InvoiceIDs, "")
	return err
}

// insertInstallment inserts an installment's invoice and lines; it sets
// in.ID.
func insertInstallment(ctx context.Context, tx pgx.Tx, companyID, agreementID int64, in *InstallmentInvoice) error {
	inv := &in.Invoice
	err := tx.QueryRow(ctx, `INSERT INTO invoices (company_id, type, payer_id, contract_id, building_id, business_id, account_id,
			billing_id, billing_method, description, total, date, due_date, ticket_late_fee, ticket_late_fee_item_id,
			ticket_late_fee_percentage, ticket_late_fee_interest, agreement_id, agreement_installment)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id`,
		companyID, string(inv.Type), inv.PayerID, nullID(inv.ContractID), nullID(in.BuildingID), inv.BusinessID, inv.AccountID,
		nullID(inv.BillingID), inv.BillingMethod, inv.Description, numeric(inv.Total), inv.Date, inv.DueDate, inv.TicketLateFee,
		nullID(inv.TicketLateFeeItemID), numeric(inv.TicketLateFeePercentage), numeric(inv.TicketLateFeeInterest),
		agreementID, in.Number).Scan(&in.ID)
	if err != nil {
		return translate(err, fmt.Sprintf("installment %d", in.Number))
	}
	n := len(in.Lines)
	items, owners, brokers, origins, originLines := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	amounts, descs, parts := make([]string, n), make([]string, n), make([]string, n)
	for i, l := range in.Lines {
		items[i], owners[i], brokers[i], origins[i], originLines[i] = l.ItemID, l.OwnerID, l.BrokerID, l.OriginInvoiceID, l.OriginLineID
		amounts[i], descs[i], parts[i] = l.Amount.String(), l.Description, string(l.Part)
	}
	_, err = tx.Exec(ctx, `INSERT INTO invoice_items (company_id, invoice_id, kind, item_id, amount, description, owner_id, broker_id,
			origin_invoice_id, origin_line_id, agreement_part)
		SELECT $1, $2, 'line', u.item_id, u.amount::numeric, nullif(u.description, ''), nullif(u.owner_id, 0), nullif(u.broker_id, 0),
			u.origin, nullif(u.origin_line, 0), u.part
		FROM unnest($3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::text[])
			WITH ORDINALITY AS u(item_id, amount, description, owner_id, broker_id, origin, origin_line, part, ord)
		ORDER BY u.ord`, companyID, in.ID, items, amounts, descs, owners, brokers, origins, originLines, parts)
	return translate(err, fmt.Sprintf("lines of installment %d", in.Number))
}

// renegotiate makes the originals renegotiated, of the agreement, without
// a PIX code.
func renegotiate(ctx context.Context, tx pgx.Tx, companyID, agreementID int64, originals []*agreementOriginal) error {
	ids := make([]int64, len(originals))
	for i, o := range originals {
		ids[i] = o.inv.ID
	}
	_, err := tx.Exec(ctx, `UPDATE invoices SET status = 'renegotiated', agreement_id = $3, pix_code = NULL, updated_at = now()
		WHERE company_id = $1 AND id = any($2)`, companyID, ids, agreementID)
	return translate(err, "renegotiate invoices")
}

// agreementHistories writes the history rows of a new agreement: each
// original's move, each installment's creation.
func agreementHistories(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, run *AgreementRun, originals []*agreementOriginal) error {
	var hist []historyRow
	for _, o := range originals {
		changes := []FieldChange{{Field: "status", From: o.status, To: "renegotiated"}, {Field: "agreement_id", To: run.ID}}
		if o.pixCode != nil {
			changes = append(changes, FieldChange{Field: "pix_code", From: *o.pixCode, To: nil})
		}
		hist = append(hist, historyRow{invoiceID: o.inv.ID, changes: changes,
			note: fmt.Sprintf("renegotiated by agreement %d", run.ID)})
	}
	for _, in := range run.Installments {
		changes := []FieldChange{{Field: "agreement_id", To: run.ID}, {Field: "agreement_installment", To: in.Number},
			{Field: "total", To: finance.Money(in.Invoice.Total)}, {Field: "due_date", To: in.Invoice.DueDate.String()}}
		hist = append(hist, historyRow{invoiceID: in.ID, changes: changes,
			note: fmt.Sprintf("installment %d of %d of agreement %d", in.Number, len(run.Installments), run.ID)})
	}
	return writeHistories(ctx, tx, companyID, actor, OriginAgreement, hist)
}
