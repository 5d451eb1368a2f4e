package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// An invoice's auto_transfer_status (docs/ledger.md, "The invoice's
// auto_transfer_status"): finance.AutoTransferFacts read from the invoice,
// its contract and the ledger, and the status they say, written in the
// transaction of every operation that changes those facts: the transfer
// run, the posting of a payment and its undoing, a payment return that
// pays a voided transfer, and the writes that change whether the run
// transfers the invoice (the invoice's contract_id or
// transfer_auto_disabled, its contract's transfer_mode or
// transfer_after_days). Each writes only the invoices whose status
// changes, so doing it again writes nothing.

// Origins of the invoice history rows of an auto_transfer_status changed
// outside the invoice's own write.
const (
	OriginTransfer = "transfer" // by the transfer run (actor: its job)
	OriginContract = "contract" // by a change of the contract's transfer settings
	// by a payment return that paid a voided transfer of the invoice
	// (actor: the return's job; transfers_void_paid.go)
	OriginTransferPaid = "transfer_paid"
)

// automaticTransfer holds for an invoice i of a contract c that the run
// transfers: finance.TransferSchedule.Automatic (after_receive; a fixed
// day from 1 to 31), and not transfer_auto_disabled on the invoice.
const automaticTransfer = `NOT i.transfer_auto_disabled AND (
	c.transfer_mode = 'after_receive' AND coalesce(c.transfer_after_days, 0) >= 0
	OR c.transfer_mode IN ('fixed_day', 'fixed_day_or_next') AND c.transfer_after_days BETWEEN 1 AND 31)`

// ownerPending holds for an entry t the run pays out and has not yet: on
// an owner's statement, a debit or credit of a payment, its reversal or a
// guarantee, without transfer_id. The void of a transfer (a chargeback
// credit: transfers_void.go) is paid out by the transfer it voids, and so
// never counted.
const ownerPending = `t.transfer_id IS NULL AND t.extract = 'owner' AND t.owner_id IS NOT NULL
	AND t.type IN ('debit', 'credit') AND t.mode IN ('invoice', 'chargeback', 'guaranteed_rent')`

// autoTransferFactsSQL reads, for the invoices $2 of company $1, the
// stored status and the facts of finance.AutoTransferFacts, one boolean
// column each. A transfer voided with an undone payment (its reversal
// written, the transfer unpaid: transfers_void.go) is not one the run
// transferred; one the bank paid all the same is. An owner is overpaid
// while the entries of the owner not paid out, among them the reversal of
// such a transfer's void (the one keyed reversal the run counts), add up
// to less than zero; or while they add up to less than zero with the
// reversal of an entry paid out among them (a part undone after the run
// paid it out, the invoice's other parts standing).
const autoTransferFactsSQL = `
SELECT i.id, i.auto_transfer_status AS stored,
    coalesce(` + automaticTransfer + `, false) AS automatic,
    i.paid_amount IS NOT NULL AS posted,
    EXISTS (` + guaranteeWritten + `) AS guaranteed,
    EXISTS (SELECT 1 FROM transactions t WHERE t.company_id = $1 AND t.invoice_id = i.id AND ` + ownerPending + `
            GROUP BY t.owner_id HAVING sum(CASE t.type WHEN 'credit' THEN t.amount ELSE -t.amount END) > 0) AS owed,
    EXISTS (SELECT 1 FROM transactions x WHERE x.company_id = $1 AND x.invoice_id = i.id
            AND x.mode = 'transfer' AND x.transfer_key IS NOT NULL
            AND (x.paid OR NOT EXISTS (SELECT 1 FROM transactions v WHERE v.company_id = $1 AND v.reverses_id = x.id))) AS transferred,
    EXISTS (SELECT 1 FROM transactions t WHERE t.company_id = $1 AND t.invoice_id = i.id AND ` + ownerPending + `
            GROUP BY t.owner_id HAVING sum(CASE t.type WHEN 'credit' THEN t.amount ELSE -t.amount END) < 0
               AND bool_or(t.reverses_id IS NOT NULL AND (t.transfer_key IS NOT NULL
                   OR EXISTS (SELECT 1 FROM transactions o WHERE o.company_id = $1 AND o.id = t.reverses_id
                              AND o.transfer_id IS NOT NULL)))) AS overpaid
FROM invoices i
LEFT JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
WHERE i.company_id = $1 AND i.id IN (SELECT unnest($2::bigint[]) LIMIT cardinality($2::bigint[]))`

// autoTransferStatusCase is finance.AutoTransferFacts.Status over the
// columns of autoTransferFactsSQL; TestAutoTransferStatusSQL holds it
// against the Go rule.
const autoTransferStatusCase = `CASE
	WHEN NOT automatic THEN NULL
	WHEN guaranteed AND NOT posted THEN 'guaranteed'
	WHEN owed THEN 'waiting'
	WHEN transferred AND posted AND NOT overpaid THEN 'transferred'
	WHEN transferred THEN 'chargeback' END`

// writeAutoTransferStatusSQL sets the status of the invoices $2 of company
// $1 whose status changes and, when the origin $5 is not empty, writes a
// history row for each (actor $3, $4); it answers how many changed, and
// the relay's wake-up of em, the emission of the invoices changed (the
// invoice as written, from the update's RETURNING; emissionOf over the
// CTE upd). The update's FROM names no column of invoices, so that the
// RETURNING reads the invoice's own. The facts are MATERIALIZED: read
// once for the invoices $2 as when inlined, but planned apart from the
// update, which took the planner four times as long (about 4 ms against
// 1 ms at each plan of a connection's first runs; docs/performance.md,
// "The kinds' own cost"). Materialized, the generic plan counted ten
// invoices (the planner's guess at an array's length) and looked dearer
// than a plan for the one or few of a run, so that every run was planned
// on its own; the ids' unnest ends with a limit of their number (no row
// changes), which makes the generic plan count one, and keeps it.
func writeAutoTransferStatusSQL(em emission) string {
	return `
WITH f AS MATERIALIZED (` + autoTransferFactsSQL + `
), s AS (
    SELECT id AS s_id, stored AS s_stored, ` + autoTransferStatusCase + ` AS s_status FROM f
), upd AS (
    UPDATE invoices SET auto_transfer_status = s.s_status, updated_at = now()
    FROM s
    WHERE invoices.company_id = $1 AND invoices.id = s.s_id AND s.s_status IS DISTINCT FROM s.s_stored
    RETURNING invoices.company_id, invoices.id, s.s_stored, s.s_status, ` + em.doc + ` AS doc
), history AS (
    INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes)
    SELECT $1, upd.id, $3::text, $4::bigint, $5::text,
        jsonb_build_array(jsonb_build_object('field', 'auto_transfer_status', 'from', upd.s_stored, 'to', upd.s_status))
    FROM upd WHERE $5::text <> ''
)` + em.ctes + `
SELECT (SELECT count(*) FROM upd), ` + em.woke
}

// writeAutoTransferStatus brings the auto_transfer_status of the company's
// invoices ids to what their facts say now (finance.AutoTransferFacts),
// writing only those whose status changes, and returns how many changed.
// With an origin, each change gets a history row of its own (actor,
// origin, the field from and to); without one, the caller's write
// records it in the history row it writes. With emit, each invoice
// changed emits invoice.updated in the same statement, when an endpoint
// of the company listens (a write of the status alone: the transfer run,
// a contract's transfer settings); without, the caller's write emits the
// invoice's event after it. The caller holds the invoices' locks (FOR
// UPDATE), so that the facts read are the ones written over.
func writeAutoTransferStatus(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64, actor Actor, origin string,
	emit bool) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	var actorID *int64
	if actor.ID != 0 {
		actorID = &actor.ID
	}
	listening := false
	if emit {
		var err error
		if listening, err = Subscribed(ctx, tx, companyID, EventInvoiceUpdated); err != nil {
			return 0, err
		}
	}
	var n, woke int64
	sql := writeAutoTransferStatusSQL(emissionOf(listening, eventResource(Invoices), "$1", EventInvoiceUpdated, "upd"))
	err := tx.QueryRow(ctx, sql, companyID, ids, actor.Kind, actorID, origin).Scan(&n, &woke)
	if err != nil {
		return 0, translate(err, "auto transfer status")
	}
	return n, nil
}

// keepAutoTransferStatus is the invoices' after hook for an update that
// changes whether the run transfers the invoice (contract_id,
// transfer_auto_disabled): its status follows, listed in the write's
// history row. Paying and undoing keep it in PostInvoicePayment and
// UndoInvoicePayment.
func keepAutoTransferStatus(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpUpdate || !c.Changed("contract_id") && !c.Changed("transfer_auto_disabled") {
		return nil
	}
	n, err := writeAutoTransferStatus(ctx, tx, c.Scope.CompanyID, []int64{c.ID}, Actor{}, "", false)
	if err != nil {
		return fmt.Errorf("invoice %d: %w", c.ID, err)
	}
	if n > 0 {
		c.Remember(memoReread, true)
	}
	return nil
}

// memoReread marks an invoice write whose after hooks changed the row, so
// that its history row is taken from the row as they left it.
const memoReread = "reread"

// keepContractAutoTransferStatus is the contracts' after hook for an
// update that changes transfer_mode or transfer_after_days, and so
// whether the run transfers the contract's invoices: it locks them (in id
// order, as the run does) and brings their status to it, each change with
// a history row (origin contract, the write's actor).
func keepContractAutoTransferStatus(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpUpdate || !c.Changed("transfer_mode") && !c.Changed("transfer_after_days") {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT id FROM invoices WHERE company_id = $1 AND contract_id = $2 ORDER BY id FOR UPDATE`,
		c.Scope.CompanyID, c.ID)
	if err != nil {
		return fmt.Errorf("lock the invoices of contract %d: %w", c.ID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("lock the invoices of contract %d: %w", c.ID, err)
	}
	if _, err := writeAutoTransferStatus(ctx, tx, c.Scope.CompanyID, ids, ActorOf(c.Scope), OriginContract, true); err != nil {
		return fmt.Errorf("contract %d: %w", c.ID, err)
	}
	return nil
}
