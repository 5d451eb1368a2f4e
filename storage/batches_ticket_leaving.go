package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Invoices that leave their collection batches because they are canceled
// by something else than the batch's own operations: an agreement's end
// cancels its installments (agreements_end.go), and a slip the bank holds
// must then be dropped. They leave through the operations' own code
// (takeOutMembers): removed from a batch whose file is not written,
// reverted in one whose file is, so that the account's next file asks
// the bank to drop them (batches_drops.go).

// lockTicketBatchesOf locks (FOR UPDATE, in id order) the collection
// batches holding one of the invoices ids as a title added or sent, and
// answers them by id. It is called before the invoices are locked: a
// batch operation locks its batch, then its invoices.
func lockTicketBatchesOf(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) (map[int64]*Batch, error) {
	rows, err := tx.Query(ctx, `SELECT b.id, b.account_id, b.status, b.titles, coalesce(b.file_id, 0) FROM ticket_batches b
		WHERE b.company_id = $1 AND b.id IN (SELECT m.batch_id FROM ticket_batch_invoices m
		    WHERE m.company_id = $1 AND m.invoice_id = any($2) AND m.state = 'added')
		ORDER BY b.id FOR UPDATE OF b`, companyID, ids)
	if err != nil {
		return nil, translate(err, "collection batches of invoices")
	}
	out := map[int64]*Batch{}
	for rows.Next() {
		b := &Batch{Type: TicketBatch, CompanyID: companyID}
		var status string
		if err := rows.Scan(&b.ID, &b.AccountID, &status, &b.Titles, &b.FileID); err != nil {
			rows.Close()
			return nil, translate(err, "collection batches of invoices")
		}
		b.Open = status == "open"
		out[b.ID] = b
	}
	return out, translate(rows.Err(), "collection batches of invoices")
}

// slipsTakenOut counts the invoices taken out of their collection
// batches: removed (the bank never had them) and reverted (the next file
// of the account asks the bank to drop them).
type slipsTakenOut struct {
	removed, reverted int64
}

// takeOutOfTicketBatches takes the invoices ids, locked, out of the
// collection batches holding them (added or sent) as removeInvoices and
// revertInvoices do: each batch's members, their slips, the batch's
// count and total, and a history row each, whose note ends with because.
// locked are the batches lockTicketBatchesOf locked before the invoices;
// a batch that took one of them since then is locked now. Every invoice
// must be unpaid (a paid title is not reverted).
func takeOutOfTicketBatches(ctx context.Context, tx pgx.Tx, companyID int64, locked map[int64]*Batch, actor Actor,
	ids []int64, because string) (slipsTakenOut, error) {
	var n slipsTakenOut
	if len(ids) == 0 {
		return n, nil
	}
	rows, err := tx.Query(ctx, `SELECT batch_id, invoice_id FROM ticket_batch_invoices
		WHERE company_id = $1 AND invoice_id = any($2) AND state = 'added' ORDER BY batch_id, invoice_id`, companyID, ids)
	if err != nil {
		return n, translate(err, "collection batches of invoices")
	}
	var batches []int64
	members := map[int64][]int64{}
	for rows.Next() {
		var batch, invoice int64
		if err := rows.Scan(&batch, &invoice); err != nil {
			rows.Close()
			return n, translate(err, "collection batches of invoices")
		}
		if members[batch] == nil {
			batches = append(batches, batch)
		}
		members[batch] = append(members[batch], invoice)
	}
	if err := rows.Err(); err != nil {
		return n, translate(err, "collection batches of invoices")
	}
	for _, id := range batches {
		if err := takeOutOfTicketBatch(ctx, tx, companyID, locked[id], id, actor, members[id], because, &n); err != nil {
			return n, err
		}
	}
	return n, nil
}

// takeOutOfTicketBatch takes invoices out of one collection batch (b,
// or the batch id locked now when b is nil), counting them in n.
func takeOutOfTicketBatch(ctx context.Context, tx pgx.Tx, companyID int64, b *Batch, id int64, actor Actor, ids []int64,
	because string, n *slipsTakenOut) error {
	if b == nil {
		var err error
		if b, err = LockBatch(ctx, tx, TicketBatch, companyID, id); err != nil {
			return err
		}
	}
	op, count := OpRevert, &n.reverted
	if b.Open {
		op, count = OpRemove, &n.removed
	}
	ans, err := takeOutMembers(ctx, tx, b, op, actor, ids, because)
	if err != nil {
		return err
	}
	if len(ans.Refused) > 0 {
		r := ans.Refused[0]
		return fmt.Errorf("take invoice %d out of collection batch %d: it %s", r.ID, b.ID, r.Reason)
	}
	*count += int64(len(ans.Done))
	return nil
}
