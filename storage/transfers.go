package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The owners' transfers (repasse) of a company on a date, the work of the
// contracts:transfer run: docs/ledger.md, "Transfers to the owners". The
// rules are finance's (TransferSchedule, Guaranty, GuaranteedShares,
// Payouts); this file reads and writes them set-based, a part of the
// company's invoices at a time.

// TransferSummary is what a part of a transfer run wrote.
type TransferSummary struct {
	Invoices   int64             `json:"invoices"`   // invoices looked at
	Guarantees int64             `json:"guarantees"` // invoices whose owners' share was advanced
	Guaranteed finance.Money     `json:"guaranteed"` // the amount advanced
	Transfers  int64             `json:"transfers"`  // transfer entries written
	Amount     finance.Money     `json:"amount"`     // the amount paid out
	Skipped    []TransferSkipped `json:"skipped"`    // invoices whose guarantee could not be computed
	Statuses   int64             `json:"statuses"`   // invoices whose auto_transfer_status changed
}

// TransferSkipped is an invoice the run could not guarantee, and why.
type TransferSkipped struct {
	InvoiceID int64             `json:"invoice_id"`
	Problems  []finance.Problem `json:"problems"`
}

// Add sums two summaries.
func (s TransferSummary) Add(o TransferSummary) TransferSummary {
	s.Invoices += o.Invoices
	s.Guarantees += o.Guarantees
	s.Guaranteed = finance.Money(s.Guaranteed.Decimal().Add(o.Guaranteed.Decimal()))
	s.Transfers += o.Transfers
	s.Amount = finance.Money(s.Amount.Decimal().Add(o.Amount.Decimal()))
	s.Skipped = append(s.Skipped, o.Skipped...)
	s.Statuses += o.Statuses
	return s
}

// transferCandidates is the condition on invoices i (joined to their
// contract c) the run on $2 has work for, in company $1: a contract's
// invoice the run transfers (automaticTransfer: after_receive, or a fixed
// day from 1 to 31, not disabled on the invoice), with owners' entries not
// paid out yet, or unpaid, guaranteed, due by $2 and not guaranteed yet
// (or with a part undone since its guarantee was written: that part's
// principal is open again, and no one advanced its share).
// Neither a renegotiated invoice (its agreement's installments are owed)
// nor an installment (a break cancels it, and would leave its guarantee
// owed) is guaranteed.
const transferCandidates = `
	i.company_id = $1 AND ` + automaticTransfer + `
	AND (EXISTS (SELECT 1 FROM transactions t
	             WHERE t.company_id = $1 AND t.invoice_id = i.id AND ` + ownerPending + `)
	     OR (c.guaranteed_transfer AND NOT i.paid AND i.status NOT IN ('canceled', 'refunded', 'renegotiated')
	         AND i.agreement_installment IS NULL
	         AND i.due_date <= $2::date AND ` + guaranteeDue + `))`

// guaranteeDue: invoice i's guaranteed transfer is not written, or a part
// of it was undone since (guaranteeReopened).
const guaranteeDue = `(NOT EXISTS (` + guaranteeWritten + `) OR EXISTS (` + guaranteeReopened + `))`

// guaranteeWritten: the run has written invoice i's guaranteed transfer.
const guaranteeWritten = `SELECT 1 FROM transactions g WHERE g.company_id = $1
	AND g.invoice_id = i.id AND g.mode = 'guaranteed_rent' AND g.transfer_key IS NOT NULL`

// guaranteeReopened: the parts of invoice i undone after the run last
// wrote its guaranteed transfer (the principal they paid was left out of
// it, and is open again).
const guaranteeReopened = `SELECT p.n FROM invoice_payments p WHERE p.company_id = $1 AND p.invoice_id = i.id
	AND p.undone_at > (SELECT max(g.created_at) FROM transactions g WHERE g.company_id = $1
	    AND g.invoice_id = i.id AND g.mode = 'guaranteed_rent' AND g.transfer_key IS NOT NULL)`

// CountTransferInvoices counts the company's invoices the transfer run on
// day on has work for: the run's size, for its progress and its parts.
func CountTransferInvoices(ctx context.Context, db DBTX, companyID int64, on finance.Date) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, `SELECT count(*) FROM invoices i
		JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		WHERE `+transferCandidates, companyID, on).Scan(&n)
	if err != nil {
		return 0, translate(err, "transfer invoices")
	}
	return n, nil
}

// TransferOwners does, in tx, part k of n of the company's transfer run
// (job jobID) on day on: of the invoices it has work for whose id is k
// modulo n, it locks them (FOR UPDATE, as the posting of a payment does),
// advances the owners' share of those due under a guaranteed transfer,
// pays out what each owner is owed, and brings their auto_transfer_status
// to what it wrote (a history row for each one changed, actor the job,
// origin transfer). The transfers are written paid or due as the company
// pays them (transfer_payment). Every entry it writes has a unique key (transfer_key)
// and is inserted ON CONFLICT DO NOTHING, an entry is paid out only by the
// transfer inserted with it, and a status is written only when it
// changes: done twice, it writes nothing the second time.
func TransferOwners(ctx context.Context, tx pgx.Tx, companyID, jobID int64, on finance.Date, n, k int) (TransferSummary, error) {
	var sum TransferSummary
	ids, how, err := lockTransferInvoices(ctx, tx, companyID, on, n, k)
	if err != nil || len(ids) == 0 {
		return sum, err
	}
	sum.Invoices = int64(len(ids))
	g, err := writeGuarantees(ctx, tx, companyID, on, ids)
	if err != nil {
		return sum, err
	}
	t, err := writeTransfers(ctx, tx, companyID, on, ids, how == TransferPaidAtOnce)
	if err != nil {
		return sum, err
	}
	if sum.Statuses, err = writeAutoTransferStatus(ctx, tx, companyID, ids, Actor{Kind: ActorJob, ID: jobID}, OriginTransfer, true); err != nil {
		return sum, err
	}
	return sum.Add(g).Add(t), nil
}

// lockTransferInvoices locks the invoices of part k of n, in id order,
// and reads the company's transfer_payment with them (how the run pays
// the owners, read in the same statement: "" when there is no invoice).
func lockTransferInvoices(ctx context.Context, tx pgx.Tx, companyID int64, on finance.Date, n, k int) ([]int64, string, error) {
	rows, err := tx.Query(ctx, `SELECT i.id, (SELECT transfer_payment FROM companies WHERE id = $1) FROM invoices i
		JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		WHERE `+transferCandidates+` AND i.id % $3 = $4
		ORDER BY i.id FOR UPDATE OF i`, companyID, on, n, k)
	if err != nil {
		return nil, "", translate(err, "lock transfer invoices")
	}
	defer rows.Close()
	var ids []int64
	var how string
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &how); err != nil {
			return nil, "", translate(err, "lock transfer invoices")
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, "", translate(err, "lock transfer invoices")
	}
	return ids, how, nil
}

// guaranteedInvoice is an unpaid invoice under a guaranteed transfer, as
// the run reads it.
type guaranteedInvoice struct {
	inv         finance.Invoice
	buildingID  int64
	guaranty    finance.Guaranty
	billingTo   string // the contract's billing_method: how owners are paid
	description string
	paid        decimal.Decimal // the principal its standing parts paid
	// reopened is the latest part undone since its guarantee was written
	// (0: none, the guarantee is not written yet): the run then advances
	// what the guarantee written does not cover, dated the run's day
	reopened int
	on       finance.Date
}

// writeGuarantees advances the owners' share of the unpaid invoices among
// ids whose guaranteed transfer is released by day on.
func writeGuarantees(ctx context.Context, tx pgx.Tx, companyID int64, on finance.Date, ids []int64) (TransferSummary, error) {
	var sum TransferSummary
	due, err := guaranteedInvoices(ctx, tx, companyID, on, ids)
	if err != nil || len(due) == 0 {
		return sum, err
	}
	inputs, err := guaranteeInputs(ctx, tx, companyID, due)
	if err != nil {
		return sum, err
	}
	var rows guaranteeRows
	var guaranteed decimal.Decimal
	for i, gi := range due {
		shares, err := finance.GuaranteedShares(inputs[i])
		if err != nil {
			sum.Skipped = append(sum.Skipped, TransferSkipped{InvoiceID: gi.inv.ID, Problems: financeProblems(err)})
			continue
		}
		if gi.reopened > 0 {
			open, err := openGuarantees(ctx, tx, companyID, gi.inv.ID)
			if err != nil {
				return sum, translate(err, fmt.Sprintf("invoice %d: open guarantees", gi.inv.ID))
			}
			shares = finance.UnguaranteedShares(shares, open)
		}
		entries := finance.GuaranteeEntries(shares, gi.inv.BusinessID, "Repasse garantido: "+gi.description)
		if len(entries) == 0 {
			continue
		}
		rows.add(gi, entries)
		sum.Guarantees++
		for _, s := range shares {
			guaranteed = guaranteed.Add(s.Amount)
		}
	}
	sum.Guaranteed = finance.Money(guaranteed)
	if err := rows.insert(ctx, tx, companyID); err != nil {
		return sum, translate(err, "guaranteed transfers")
	}
	return sum, nil
}

// guaranteedInvoices reads the unpaid invoices among ids whose contract
// guarantees them (finance.Guaranty.Covers) and whose guaranteed transfer
// is released on or before day on, not written yet.
func guaranteedInvoices(ctx context.Context, tx pgx.Tx, companyID int64, on finance.Date, ids []int64) ([]guaranteedInvoice, error) {
	rows, err := tx.Query(ctx, `
		SELECT i.id, i.type, i.payer_id, i.contract_id, coalesce(i.building_id, c.building_id, 0), i.business_id,
		       i.account_id, i.billing_method, i.total::text, i.date, i.due_date, i.description,
		       c.start_at, coalesce(c.guaranteed_transfer_months, 0), coalesce(c.guaranteed_transfer_release_after_days, 0),
		       coalesce(c.billing_method, ''),
		       coalesce((SELECT sum(p.principal) FROM invoice_payments p WHERE p.company_id = i.company_id
		                 AND p.invoice_id = i.id AND p.undone_at IS NULL), 0)::text,
		       coalesce((SELECT max(r.n) FROM (`+guaranteeReopened+`) r), 0)
		FROM invoices i
		JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		WHERE i.company_id = $1 AND i.id = any($2) AND c.guaranteed_transfer AND NOT i.paid
		  AND i.status NOT IN ('canceled', 'refunded', 'renegotiated') AND i.agreement_installment IS NULL
		  AND `+guaranteeDue+`
		ORDER BY i.id`, companyID, ids)
	if err != nil {
		return nil, translate(err, "guaranteed invoices")
	}
	all, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (guaranteedInvoice, error) {
		var g guaranteedInvoice
		var typ string
		var start *finance.Date
		err := row.Scan(&g.inv.ID, &typ, &g.inv.PayerID, &g.inv.ContractID, &g.buildingID, &g.inv.BusinessID,
			&g.inv.AccountID, &g.inv.BillingMethod, &g.inv.Total, &g.inv.Date, &g.inv.DueDate, &g.description,
			&start, &g.guaranty.Months, &g.guaranty.ReleaseAfter, &g.billingTo, &g.paid, &g.reopened)
		g.on = on
		g.inv.Type, g.guaranty.Active = finance.InvoiceType(typ), true
		if start != nil {
			g.guaranty.Start = *start
		}
		return g, err
	})
	if err != nil {
		return nil, translate(err, "guaranteed invoices")
	}
	due := all[:0]
	for _, g := range all {
		if g.guaranty.Covers(g.inv.DueDate) && !g.guaranty.ReleaseOn(g.inv.DueDate).After(on) {
			due = append(due, g)
		}
	}
	return due, nil
}

// guaranteeInputs reads, for every invoice at once, what its payment
// would be booked with: its lines, their items and its building's owners.
func guaranteeInputs(ctx context.Context, tx pgx.Tx, companyID int64, due []guaranteedInvoice) ([]finance.PostingInput, error) {
	ids, buildings := make([]int64, len(due)), make([]int64, len(due))
	for i, g := range due {
		ids[i], buildings[i] = g.inv.ID, g.buildingID
	}
	lines, err := linesOf(ctx, tx, companyID, ids)
	if err != nil {
		return nil, translate(err, "guaranteed invoices: lines")
	}
	var all []finance.InvoiceItem
	for _, ls := range lines {
		all = append(all, ls...)
	}
	c, err := postingItems(ctx, tx, companyID, all)
	items := c.items
	if err != nil {
		return nil, translate(err, "guaranteed invoices: items")
	}
	owners, err := buildingsOwners(ctx, tx, companyID, buildings)
	if err != nil {
		return nil, translate(err, "guaranteed invoices: owners")
	}
	inputs := make([]finance.PostingInput, len(due))
	for i, g := range due {
		inv := g.inv
		inv.Items = lines[inv.ID]
		inputs[i] = finance.PostingInput{Invoice: inv, Items: items,
			Parties: finance.Parties{PayerID: inv.PayerID, BusinessID: inv.BusinessID, BuildingID: g.buildingID,
				Owners: owners[g.buildingID]}}
		if g.paid.IsPositive() { // partly paid: the rest's share is advanced, what the parts paid is the owners' already
			inputs[i].Part = &finance.PartShare{Before: g.paid}
		}
	}
	return inputs, nil
}

// linesOf reads the client lines of invoices, by invoice.
func linesOf(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) (map[int64][]finance.InvoiceItem, error) {
	rows, err := tx.Query(ctx, `
		SELECT invoice_id, id, item_id, amount::text, coalesce(description, ''), coalesce(owner_id, 0), coalesce(broker_id, 0)
		FROM invoice_items
		WHERE company_id = $1 AND invoice_id = any($2) AND kind = 'line'
		ORDER BY invoice_id, id`, companyID, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64][]finance.InvoiceItem{}
	var inv int64
	l := finance.InvoiceItem{Kind: finance.LineLine}
	_, err = pgx.ForEachRow(rows, []any{&inv, &l.ID, &l.ItemID, &l.Amount, &l.Description, &l.OwnerID, &l.BrokerID}, func() error {
		out[inv] = append(out[inv], l)
		return nil
	})
	return out, err
}

// buildingsOwners reads the owners of buildings, by building (as buildingOwners).
func buildingsOwners(ctx context.Context, q DBTX, companyID int64, buildings []int64) (map[int64][]finance.Share, error) {
	rows, err := q.Query(ctx, `
		SELECT building_id, person_id, coalesce(percentage, 0)::text
		FROM building_owners
		WHERE company_id = $1 AND building_id = any($2)
		ORDER BY building_id, person_id`, companyID, buildings)
	if err != nil {
		return nil, err
	}
	out := map[int64][]finance.Share{}
	var b int64
	var s finance.Share
	_, err = pgx.ForEachRow(rows, []any{&b, &s.PersonID, &s.Percentage}, func() error {
		out[b] = append(out[b], s)
		return nil
	})
	return out, err
}

// financeProblems turns the Problems of a finance rule into problems
// named as the API names fields.
func financeProblems(err error) []finance.Problem {
	var e *finance.Error
	if errors.As(problemsError(err, "guarantee"), &e) && len(e.Problems) > 0 {
		return e.Problems
	}
	return []finance.Problem{{Field: "invoice", Message: err.Error()}}
}

// guaranteeRows are guaranteed transfers' entries, column by column.
type guaranteeRows struct {
	invoices, persons, owners, businesses, contracts, buildings, accounts []int64
	keys, types, extracts, amounts, percentages, descriptions             []string
	dates, competences, dueDates, billing                                 []string
}

// add appends the entries of one invoice's guaranteed transfer
// (finance.GuaranteeEntries: each owner's credit, then its business
// debit): dated the day it is released, split invoice-<id>-guarantee,
// each keyed by its side and owner; what a run advances after a part is
// undone is dated the run's day and keyed by that part too.
func (r *guaranteeRows) add(g guaranteedInvoice, entries []finance.Entry) {
	c := columnsOf(entries)
	r.types, r.extracts, r.amounts = append(r.types, c.types...), append(r.extracts, c.extracts...), append(r.amounts, c.amounts...)
	r.percentages, r.descriptions = append(r.percentages, c.percentages...), append(r.descriptions, c.descriptions...)
	r.persons, r.owners, r.businesses = append(r.persons, c.persons...), append(r.owners, c.owners...), append(r.businesses, c.businesses...)
	for j, e := range entries {
		owner := entries[j-j%2].OwnerID
		key, date := fmt.Sprintf("invoice-%d-guarantee-%s-%d", g.inv.ID, e.Extract, owner), g.guaranty.ReleaseOn(g.inv.DueDate)
		if g.reopened > 0 {
			key, date = fmt.Sprintf("%s-undone-%d", key, g.reopened), g.on
		}
		r.keys = append(r.keys, key)
		r.invoices, r.contracts = append(r.invoices, g.inv.ID), append(r.contracts, g.inv.ContractID)
		r.buildings, r.accounts = append(r.buildings, g.buildingID), append(r.accounts, g.inv.AccountID)
		r.dates = append(r.dates, date.String())
		r.competences, r.dueDates = append(r.competences, g.inv.Date.String()), append(r.dueDates, g.inv.DueDate.String())
		r.billing = append(r.billing, g.billingTo)
	}
}

// insert writes the entries in one statement, ON CONFLICT DO NOTHING.
func (r *guaranteeRows) insert(ctx context.Context, tx pgx.Tx, companyID int64) error {
	if len(r.keys) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO transactions (company_id, split, transfer_key, invoice_id, morph_key, mode, type, account_id,
		    business_id, person_id, building_id, contract_id, owner_id, extract, date, position, amount, percentage,
		    competence, description, paid, due_date, billing_method)
		SELECT $1, 'invoice-' || u.invoice_id || '-guarantee', u.key, u.invoice_id, 'invoice', 'guaranteed_rent', u.type,
		    u.account_id, u.business_id, nullif(u.person_id, 0), nullif(u.building_id, 0), u.contract_id,
		    nullif(u.owner_id, 0), u.extract, u.date::date, u.position, u.amount::numeric,
		    nullif(u.percentage, '')::numeric, u.competence::date, u.description, true, u.due_date::date,
		    nullif(u.billing, '')
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
		    $9::bigint[], $10::bigint[], $11::bigint[], $12::text[], $13::text[], $14::bigint[], $15::bigint[],
		    $16::bigint[], $17::text[], $18::text[]) WITH ORDINALITY
		    AS u(invoice_id, key, type, extract, amount, percentage, description, person_id, owner_id, business_id,
		         date, billing, contract_id, building_id, account_id, competence, due_date, position)
		ON CONFLICT (company_id, transfer_key) WHERE transfer_key IS NOT NULL DO NOTHING`,
		companyID, r.invoices, r.keys, r.types, r.extracts, r.amounts, r.percentages, r.descriptions,
		r.persons, r.owners, r.businesses, r.dates, r.billing, r.contracts, r.buildings, r.accounts,
		r.competences, r.dueDates)
	return err
}

// writeTransfers pays out, for the invoices ids, what each owner is owed
// by day on (finance.Payouts): per invoice and owner, one transfer entry
// (mode transfer, type transfer, on the owner's statement, from the
// invoice's bank account, dated on; paid, or unpaid for a payment batch
// to pay), keyed invoice-<id>-owner-<owner>-transfer-<n>, and transfer_id
// set on every entry it pays out, in one statement; an entry is marked
// only by a transfer inserted with it. A transfer written unpaid emits no
// transfer.paid: its payment does.
func writeTransfers(ctx context.Context, tx pgx.Tx, companyID int64, on finance.Date, ids []int64, paid bool) (TransferSummary, error) {
	var sum TransferSummary
	pending, err := pendingOwnerEntries(ctx, tx, companyID, ids)
	if err != nil || len(pending) == 0 {
		return sum, err
	}
	schedules, err := transferSchedules(ctx, tx, companyID, ids)
	if err != nil {
		return sum, err
	}
	payouts := finance.Payouts(pending, schedules, on)
	if len(payouts) == 0 {
		return sum, nil
	}
	var invoices, owners, marked, markedOrd []int64
	var amounts, dueOn []string
	for i, p := range payouts {
		invoices, owners = append(invoices, p.InvoiceID), append(owners, p.OwnerID)
		amounts, dueOn = append(amounts, p.Amount.String()), append(dueOn, p.DueOn.String())
		for _, id := range p.EntryIDs {
			marked, markedOrd = append(marked, id), append(markedOrd, int64(i+1))
		}
	}
	var want, got, woke int64
	var amount decimal.Decimal
	listening, err := Subscribed(ctx, tx, companyID, EventTransferPaid)
	if err != nil {
		return sum, err
	}
	sql := insertTransfersSQL[0]
	if listening && paid {
		sql = insertTransfersSQL[1]
	}
	err = tx.QueryRow(ctx, sql, companyID, on, invoices, owners, amounts, dueOn, marked, markedOrd, paid).
		Scan(&sum.Transfers, &amount, &want, &got, &woke)
	sum.Amount = finance.Money(amount)
	if err != nil {
		return sum, translate(err, "transfers")
	}
	if want != got { // an entry was paid out meanwhile: roll the part back, the run tries again
		return sum, &finance.Error{Code: finance.Retryable, Message: "The database asked to retry the request.",
			Err: fmt.Errorf("transfers: %d entries to pay out, %d marked", want, got)}
	}
	return sum, nil
}

// insertTransfers is the statement that inserts the payouts ($3..$6, in order) as transfer
// entries, paid when $9, and marks the entries they pay out ($7, with the rank of their
// payout in $8), with a transfer.paid event for each transfer inserted
// (paid: the run pays the owners out) when an endpoint listens; it
// answers the transfers inserted, their sum, the marks due to the
// transfers inserted and the marks made.
func insertTransfers(listening bool) string {
	em := emissionOf(listening, transactionsResource(), "$1", EventTransferPaid, "ins")
	return `
WITH p AS (
    SELECT u.*, i.account_id, i.business_id, i.contract_id, coalesce(i.building_id, c.building_id) AS building_id,
           i.date AS competence, i.description AS invoice_description, c.billing_method,
           (SELECT count(*) FROM transactions x WHERE x.company_id = $1 AND x.invoice_id = u.invoice_id
              AND x.owner_id = u.owner_id AND x.mode = 'transfer' AND x.transfer_key IS NOT NULL) + 1 AS n
    FROM unnest($3::bigint[], $4::bigint[], $5::text[], $6::text[]) WITH ORDINALITY AS u(invoice_id, owner_id, amount, due_on, ord)
    JOIN invoices i ON i.company_id = $1 AND i.id = u.invoice_id
    JOIN contracts c ON c.company_id = $1 AND c.id = i.contract_id
), ins AS (
    INSERT INTO transactions (company_id, split, transfer_key, invoice_id, morph_key, mode, type, account_id,
        business_id, person_id, building_id, contract_id, owner_id, extract, date, amount, competence,
        description, paid, due_date, billing_method)
    SELECT $1, k.key, k.key, p.invoice_id, 'invoice', 'transfer', 'transfer', p.account_id, p.business_id,
        p.owner_id, p.building_id, p.contract_id, p.owner_id, 'owner', $2::date, p.amount::numeric, p.competence,
        'Repasse: ' || p.invoice_description, $9::boolean, p.due_on::date, p.billing_method
    FROM p CROSS JOIN LATERAL (SELECT 'invoice-' || p.invoice_id || '-owner-' || p.owner_id || '-transfer-' || p.n AS key) k
    ORDER BY p.ord
    ON CONFLICT (company_id, transfer_key) WHERE transfer_key IS NOT NULL DO NOTHING
    RETURNING company_id, id, invoice_id, owner_id, amount, ` + em.doc + ` AS doc
), m AS (
    SELECT m.entry_id, ins.id AS transfer_id
    FROM unnest($7::bigint[], $8::bigint[]) AS m(entry_id, ord)
    JOIN p USING (ord)
    JOIN ins ON ins.invoice_id = p.invoice_id AND ins.owner_id = p.owner_id
), upd AS (
    UPDATE transactions t SET transfer_id = m.transfer_id, updated_at = now()
    FROM m
    WHERE t.company_id = $1 AND t.id = m.entry_id AND t.transfer_id IS NULL
    RETURNING t.id
)` + em.ctes + `
SELECT (SELECT count(*) FROM ins), (SELECT coalesce(sum(amount), 0)::text FROM ins),
       (SELECT count(*) FROM m), (SELECT count(*) FROM upd), ` + em.woke
}

// insertTransfersSQL are insertTransfers' two forms: nobody listening,
// and an endpoint listening.
var insertTransfersSQL = [2]string{insertTransfers(false), insertTransfers(true)}

// pendingOwnerEntries reads the owners' entries of invoices ids not paid
// out yet: the payment's, its reversal's and the guarantees', each with
// the entry it reverses and whether that one is paid out
// (finance.Payouts counts a reversal by them).
func pendingOwnerEntries(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) ([]finance.PendingEntry, error) {
	rows, err := tx.Query(ctx, `
		SELECT t.id, t.invoice_id, t.owner_id, t.type, t.mode, t.amount::text, t.date, coalesce(t.reverses_id, 0),
		       coalesce((SELECT o.transfer_id IS NOT NULL FROM transactions o
		                 WHERE o.company_id = $1 AND o.id = t.reverses_id), false)
		FROM transactions t
		WHERE t.company_id = $1 AND t.invoice_id = any($2) AND `+ownerPending+`
		ORDER BY t.id`, companyID, ids)
	if err != nil {
		return nil, translate(err, "pending owner entries")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.PendingEntry, error) {
		var e finance.PendingEntry
		var typ, mode string
		err := row.Scan(&e.ID, &e.InvoiceID, &e.OwnerID, &typ, &mode, &e.Amount, &e.Date, &e.ReversesID, &e.ReversesPaidOut)
		e.Type, e.Mode = finance.EntryType(typ), finance.EntryMode(mode)
		return e, err
	})
	if err != nil {
		return nil, translate(err, "pending owner entries")
	}
	return out, nil
}

// transferSchedules reads the transfer schedule of each invoice's
// contract.
func transferSchedules(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) (map[int64]finance.TransferSchedule, error) {
	rows, err := tx.Query(ctx, `
		SELECT i.id, coalesce(c.transfer_mode, ''), coalesce(c.transfer_after_days, 0)
		FROM invoices i JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		WHERE i.company_id = $1 AND i.id = any($2)`, companyID, ids)
	if err != nil {
		return nil, translate(err, "transfer schedules")
	}
	out := map[int64]finance.TransferSchedule{}
	var id int64
	var mode string
	var days int
	_, err = pgx.ForEachRow(rows, []any{&id, &mode, &days}, func() error {
		out[id] = finance.TransferSchedule{Mode: finance.TransferMode(strings.TrimSpace(mode)), AfterDays: days}
		return nil
	})
	if err != nil {
		return nil, translate(err, "transfer schedules")
	}
	return out, nil
}
