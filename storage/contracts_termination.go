package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/propfin/propfin/finance"
)

// The termination of a contract (docs/finance.md, "Termination"; docs/api.md,
// "Terminating a contract"): the contract is read with everything
// finance.Terminate reads, in the transaction that locks it, the rule says
// what the termination does, and unless previewed it is written in that
// transaction: the invoices canceled with their history, the final invoice
// with its lines and history, the contract's status and termination
// fields. A preview is the same call without the writes, rolled back.

// OriginTermination is the origin of the history rows of the invoices a
// termination cancels.
const OriginTermination = "termination"

// TerminationRequest is what is asked: the body of the operation.
type TerminationRequest struct {
	At        finance.Date
	Requester finance.Requester
	Motive    string
	Exemption bool
	Preview   bool
}

// ContractTermination is what a termination did, or in a preview would do:
// the rule's answer, the contract and its building, the item the fine is
// booked as, the settings the final invoice leaves null (FinalUnset) and
// its id (0 in a preview, or without one).
type ContractTermination struct {
	finance.Termination
	ContractID int64
	Request    TerminationRequest
	BuildingID int64
	FineItemID int64
	FinalUnset TicketUnset
	FinalID    int64
	today      finance.Date
}

// TerminateContract terminates the scope's company's contract id as asked,
// in one transaction of db (a pool, or the transaction of a keyed write: a
// savepoint of it), or with req.Preview answers what it would do and
// writes nothing. Another
// company's contract, or none, is a 404; a contract that cannot be
// terminated as asked is a 422 naming every problem.
func TerminateContract(ctx context.Context, db Beginner, sc Scope, id int64, req TerminationRequest) (ContractTermination, error) {
	var out ContractTermination
	err := runOrPreview(ctx, db, req.Preview, func(tx pgx.Tx) error {
		var err error
		if out, err = terminateContract(ctx, tx, sc, id, req); err != nil || req.Preview {
			return err
		}
		return writeTermination(ctx, tx, sc, &out)
	})
	return out, err
}

// terminateContract locks the contract, reads what the rule reads and
// answers what the termination does, writing nothing.
func terminateContract(ctx context.Context, tx pgx.Tx, sc Scope, id int64, req TerminationRequest) (ContractTermination, error) {
	out := ContractTermination{ContractID: id, Request: req}
	var locked int64
	err := tx.QueryRow(ctx, `SELECT id FROM contracts WHERE company_id = $1 AND id = $2 FOR UPDATE`, sc.CompanyID, id).Scan(&locked)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, recordNotFound(id)
	}
	if err != nil {
		return out, translate(err, "lock contract")
	}
	today, err := companyToday(ctx, tx, sc.CompanyID)
	if err != nil {
		return out, err
	}
	batch, err := loadBilling(ctx, tx, sc.CompanyID, []int64{id})
	if err != nil {
		return out, err
	}
	b := batch[0]
	in := finance.TerminationInput{Contract: b.in.Contract, Items: b.in.Items, RentItemID: b.in.RentItemID,
		At: req.At, Requester: req.Requester, Exemption: req.Exemption, Today: finance.DateOf(today),
		Parties: finance.Parties{PayerID: b.in.Contract.TenantID, BusinessID: b.in.Contract.BusinessID, BuildingID: b.buildingID}}
	if in.FineItem, in.DepositItem, err = terminationItems(ctx, tx, sc.CompanyID, &in.Contract); err != nil {
		return out, err
	}
	if in.Parties.Owners, err = buildingOwners(ctx, tx, sc.CompanyID, b.buildingID); err != nil {
		return out, translate(err, "owners of the contract's building")
	}
	if in.Invoices, err = terminationInvoices(ctx, tx, sc.CompanyID, id); err != nil {
		return out, err
	}
	t, err := finance.Terminate(in)
	problems := slices.Clone(b.problems)
	if e, ok := finance.AsInvalid(err, nil); ok {
		problems = append(problems, e.Problems...)
	} else if err != nil {
		return out, err
	}
	if problems = distinctProblems(problems); len(problems) > 0 {
		return out, &finance.Error{Code: finance.Invalid, Message: "The contract cannot be terminated.", Problems: problems}
	}
	out.Termination, out.BuildingID, out.FinalUnset, out.today = t, b.buildingID, finalInvoiceUnset(b.unset), in.Today
	if in.FineItem != nil {
		out.FineItemID = in.FineItem.ID
	}
	return out, nil
}

// distinctProblems drops the repeats of a problem (the same field and
// message), keeping the first of each.
func distinctProblems(ps []finance.Problem) []finance.Problem {
	out := ps[:0]
	for _, p := range ps {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// terminationItems reads the items the final invoice books the fine and
// the deposit's deduction as: the company's settings; for the fine without
// one, the contract's late-fee item (ticket_late_fee_item_id), else the
// company's active item of type fee (the lowest id, the one a late fee is
// booked as). Nil when there is none.
func terminationItems(ctx context.Context, tx pgx.Tx, companyID int64, c *finance.Contract) (fine, deposit *finance.TransactionItem, err error) {
	var fineID, depositID int64
	var fineSet, depositSet *int64
	err = tx.QueryRow(ctx, `SELECT termination_fee_item_id, termination_deposit_item_id,
			coalesce(termination_fee_item_id, nullif($2::bigint, 0),
			(SELECT min(id) FROM transaction_items WHERE company_id = $1 AND active AND type = 'fee'), 0),
			coalesce(termination_deposit_item_id, 0)
		FROM companies WHERE id = $1`, companyID, c.TicketLateFeeItemID).Scan(&fineSet, &depositSet, &fineID, &depositID)
	if err != nil {
		return nil, nil, translate(err, "termination items")
	}
	items, err := transactionItemsByID(ctx, tx, companyID, []int64{fineID, depositID})
	if err != nil {
		return nil, nil, err
	}
	var ps []finance.Problem
	for _, set := range []struct {
		field string
		id    *int64
	}{{"termination_fee_item_id", fineSet}, {"termination_deposit_item_id", depositSet}} {
		if set.id != nil && items[*set.id] == nil {
			ps = append(ps, finance.Problem{Field: set.field, Message: fmt.Sprintf("the company's item %d is gone: set %s "+
				"(PUT /financial/settings) to an item of yours, or to null", *set.id, set.field)})
		}
	}
	if len(ps) > 0 {
		return nil, nil, finance.InvalidInput(ps)
	}
	return items[fineID], items[depositID], nil
}

// transactionItemsByID reads the company's items of ids with their
// parties.
func transactionItemsByID(ctx context.Context, q DBTX, companyID int64, ids []int64) (map[int64]*finance.TransactionItem, error) {
	rows, err := q.Query(ctx, `SELECT id, description, coalesce(debit, ''), coalesce(credit, ''), type
		FROM transaction_items WHERE company_id = $1 AND id = any($2)`, companyID, ids)
	if err != nil {
		return nil, translate(err, "transaction items")
	}
	out := map[int64]*finance.TransactionItem{}
	for rows.Next() {
		var it finance.TransactionItem
		var debit, credit, typ string
		if err := rows.Scan(&it.ID, &it.Description, &debit, &credit, &typ); err != nil {
			rows.Close()
			return nil, translate(err, "transaction items")
		}
		it.Debit, it.Credit, it.Type = finance.Party(debit), finance.Party(credit), finance.TransactionItemType(typ)
		out[it.ID] = &it
	}
	return out, translate(rows.Err(), "transaction items")
}

// terminationInvoices reads and locks the contract's invoices of type
// contract, in id order, with whether each is in a collection batch not
// reverted.
func terminationInvoices(ctx context.Context, tx pgx.Tx, companyID, contractID int64) ([]finance.TerminationInvoice, error) {
	rows, err := tx.Query(ctx, `SELECT i.id, i.status, i.paid, i.total, i.date, i.due_date, i.period_initial, i.period_final,
			EXISTS (SELECT 1 FROM ticket_batch_invoices b WHERE b.company_id = i.company_id AND b.invoice_id = i.id AND b.state = 'added')
		FROM invoices i WHERE i.company_id = $1 AND i.contract_id = $2 AND i.type = 'contract'
		ORDER BY i.id FOR UPDATE OF i`, companyID, contractID)
	if err != nil {
		return nil, translate(err, "contract invoices")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.TerminationInvoice, error) {
		var inv finance.TerminationInvoice
		var status string
		var total pgtype.Numeric
		var date, due, pi, pf pgtype.Date
		err := row.Scan(&inv.ID, &status, &inv.Paid, &total, &date, &due, &pi, &pf, &inv.InBatch)
		inv.Status, inv.Total = finance.InvoiceStatus(status), numericDecimal(total)
		inv.Date, inv.DueDate, inv.PeriodInitial, inv.PeriodFinal = dateOf(date), dateOf(due), dateOf(pi), dateOf(pf)
		return inv, err
	})
	return out, translate(err, "contract invoices")
}

// writeTermination writes what the termination does, in tx.
func writeTermination(ctx context.Context, tx pgx.Tx, sc Scope, t *ContractTermination) error {
	actor := ActorOf(sc)
	note := fmt.Sprintf("contract %d terminated on %s", t.ContractID, t.At)
	if err := cancelTerminated(ctx, tx, sc.CompanyID, t.Canceled, actor, note); err != nil {
		return err
	}
	if t.Final != nil {
		id, err := insertFinalInvoice(ctx, tx, sc.CompanyID, t.Final, t.BuildingID, t.FinalUnset)
		if err != nil {
			return err
		}
		t.FinalID, t.Final.ID = id, id
		if err := writeHistories(ctx, tx, sc.CompanyID, actor, OriginCreate,
			[]historyRow{{invoiceID: id, note: "final invoice of the termination of contract " + fmt.Sprint(t.ContractID) + " on " + t.At.String()}}); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, `UPDATE contracts SET status = $3, status_date = $4, termination_at = $5,
			termination_fee_amount = $6::text::numeric, termination_fee_requester = $7, termination_fee_motive = nullif($8, ''),
			refund_amount = $9::text::numeric, updated_at = now()
		WHERE company_id = $1 AND id = $2`, sc.CompanyID, t.ContractID, string(t.Status), dateTime(t.today), dateTime(t.At),
		t.Fine.Amount.String(), string(t.Request.Requester), t.Request.Motive, t.RefundDue.String())
	if err != nil {
		return translate(err, "terminate contract")
	}
	return emitTermination(ctx, tx, sc.CompanyID, t)
}

// emitTermination writes the termination's events, with it: the invoices
// canceled, the final invoice created, and the contract terminated (the
// contract as GET returns it).
func emitTermination(ctx context.Context, tx pgx.Tx, companyID int64, t *ContractTermination) error {
	if _, err := EmitRecordEvents(ctx, tx, companyID, EventInvoiceCanceled, Invoices, t.Canceled, ""); err != nil {
		return err
	}
	if t.FinalID != 0 {
		if _, err := EmitRecordEvents(ctx, tx, companyID, EventInvoiceCreated, Invoices, []int64{t.FinalID}, ""); err != nil {
			return err
		}
	}
	_, err := EmitRecordEvents(ctx, tx, companyID, EventContractTerminated, Contracts, []int64{t.ContractID}, "")
	return err
}

// cancelTerminated cancels the invoices ids, each with a history row of
// its status, from what it was to canceled.
func cancelTerminated(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64, actor Actor, note string) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `UPDATE invoices i SET status = 'canceled', updated_at = now()
		FROM (SELECT id, status FROM invoices WHERE company_id = $1 AND id = any($2)) old
		WHERE i.company_id = $1 AND i.id = old.id
		RETURNING i.id, old.status`, companyID, ids)
	if err != nil {
		return translate(err, "cancel invoices")
	}
	history, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (historyRow, error) {
		var h historyRow
		var from string
		err := row.Scan(&h.invoiceID, &from)
		h.changes, h.note = []FieldChange{{Field: "status", From: from, To: string(finance.InvoiceCanceled)}}, note
		return h, err
	})
	if err != nil {
		return translate(err, "cancel invoices")
	}
	slices.SortFunc(history, func(a, b historyRow) int { return int(a.invoiceID - b.invoiceID) })
	return writeHistories(ctx, tx, companyID, actor, OriginTermination, history)
}

// finalInvoiceUnset are the settings the final invoice leaves null, given
// those its contract leaves null: the late-fee rates the contract leaves
// null, as the generated invoices keep them; and the punctuality
// discount's amounts and days always, as on an invoice of a contract
// without one, since a final settlement grants no discount for paying
// early (docs/finance.md, "The final invoice").
func finalInvoiceUnset(contract TicketUnset) TicketUnset {
	return TicketUnset{LateFeePercentage: contract.LateFeePercentage, LateFeeInterest: contract.LateFeeInterest,
		DiscountFixed: true, DiscountPercentage: true, DiscountDays: true}
}

// insertFinalInvoice inserts the final invoice with its lines, the
// settings unset null; its id. It grants no punctuality discount
// (ticket_discount false, its mode and who bears it null).
func insertFinalInvoice(ctx context.Context, tx pgx.Tx, companyID int64, inv *finance.Invoice, buildingID int64, unset TicketUnset) (int64, error) {
	var pi, pf *time.Time
	if !inv.PeriodInitial.IsZero() {
		a, b := dateTime(inv.PeriodInitial), dateTime(inv.PeriodFinal)
		pi, pf = &a, &b
	}
	var id int64
	err := tx.QueryRow(ctx, `INSERT INTO invoices (company_id, type, contract_id, payer_id, building_id, business_id, account_id,
			billing_id, billing_method, description, total, date, due_date, period_initial, period_final,
			ticket_late_fee, ticket_late_fee_item_id, ticket_late_fee_percentage, ticket_late_fee_interest,
			ticket_discount, ticket_discount_fixed, ticket_discount_percentage, ticket_discount_days)
		VALUES ($1, $2, $3, $4, nullif($5::bigint, 0), $6, $7, nullif($8::bigint, 0), $9, $10, $11::text::numeric, $12, $13, $14, $15,
			$16, nullif($17::bigint, 0), $18::text::numeric, $19::text::numeric, false, $20::text::numeric, $21::text::numeric, $22)
		RETURNING id`, companyID, string(inv.Type), inv.ContractID, inv.PayerID, buildingID, inv.BusinessID, inv.AccountID,
		inv.BillingID, inv.BillingMethod, inv.Description, inv.Total.String(), dateTime(inv.Date), dateTime(inv.DueDate), pi, pf,
		inv.TicketLateFee, inv.TicketLateFeeItemID,
		unlessUnset(unset.LateFeePercentage, inv.TicketLateFeePercentage.String()),
		unlessUnset(unset.LateFeeInterest, inv.TicketLateFeeInterest.String()),
		unlessUnset(unset.DiscountFixed, inv.TicketDiscountFixed.String()),
		unlessUnset(unset.DiscountPercentage, inv.TicketDiscountPercentage.String()),
		unlessUnset(unset.DiscountDays, int32(inv.TicketDiscountDays))).Scan(&id)
	if err != nil {
		return 0, translate(err, "final invoice")
	}
	items, amounts, descriptions := make([]int64, len(inv.Items)), make([]string, len(inv.Items)), make([]string, len(inv.Items))
	for i, l := range inv.Items {
		items[i], amounts[i], descriptions[i] = l.ItemID, l.Amount.String(), l.Description
	}
	_, err = tx.Exec(ctx, `INSERT INTO invoice_items (company_id, invoice_id, item_id, amount, description)
		SELECT $1, $2, l.item_id, l.amount, nullif(l.description, '')
		FROM unnest($3::bigint[], $4::text[]::numeric[], $5::text[]) WITH ORDINALITY AS l (item_id, amount, description, ord)
		ORDER BY l.ord`, companyID, id, items, amounts, descriptions)
	if err != nil {
		return 0, translate(err, "final invoice lines")
	}
	return id, nil
}

// EndTerminations moves the company's terminating contracts with ids from
// to to (inclusive) whose termination_at is before asOf to terminated
// (status_date asOf), and returns how many: the nightly overdue run's step
// (docs/jobs.md, finance:overdue). Done twice, it moves nothing the second
// time.
func EndTerminations(ctx context.Context, q DBTX, companyID, from, to int64, asOf finance.Date) (int64, error) {
	tag, err := q.Exec(ctx, `UPDATE contracts SET status = 'terminated', status_date = $4, updated_at = now()
		WHERE company_id = $1 AND status = 'terminating' AND id BETWEEN $2 AND $3 AND termination_at < $4`,
		companyID, from, to, dateTime(asOf))
	if err != nil {
		return 0, translate(err, "end terminations")
	}
	return tag.RowsAffected(), nil
}
