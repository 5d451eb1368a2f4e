package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// Write rules of the batches (docs/api.md, "Batches"), run as hooks in the
// write's transaction.

// checkBatchAccount is the hook of a batch type's batches: it requires,
// on create, an account (already known to be the company's) that can send
// the kind's remittances (BatchType.AccountProblems; one 422 naming
// account_id, with the account and every reason: the columns to fix).
func checkBatchAccount(bt *BatchType) Hook {
	return func(ctx context.Context, tx pgx.Tx, c *Change) error {
		id, given := c.New.Values["account_id"]
		if c.Op != OpCreate || !given || id == nil {
			return nil
		}
		terms, found, err := readAccountTerms(ctx, tx, c.Scope.CompanyID, id)
		if err != nil {
			return fmt.Errorf("account of a %s: %w", bt.Label, err)
		}
		if !found {
			return nil // the reference check names it
		}
		if ps := bt.AccountProblems(terms); len(ps) > 0 {
			return problem("account_id", fmt.Sprintf("account %v cannot send the remittances of a %s: %s", id, bt.Label,
				ProblemsText(ps)))
		}
		return nil
	}
}

// deleteBatch is the hook of a batch type's batches: it refuses (409) to
// delete a batch whose file is written (the bank has its titles or
// payments: revert them instead), and takes the members out of an open
// one first, as the remove operation does.
func deleteBatch(bt *BatchType) Hook {
	return func(ctx context.Context, tx pgx.Tx, c *Change) error {
		if c.Op != OpDelete {
			return nil
		}
		if c.OldValue("status") != "open" {
			return finance.Errorf(finance.Conflict, "The batch's file is written: the batch is kept; take its %s back with revert%s.",
				bt.Members, capitalized(bt.Members))
		}
		b, err := LockBatch(ctx, tx, bt, c.Scope.CompanyID, c.ID)
		if err != nil {
			return err
		}
		_, err = RemoveMembers(ctx, tx, b, ActorOf(c.Scope), nil)
		return err
	}
}

// FrozenInBatch is the hook of a batch type's member records: it refuses
// (409) a change of the columns the record's place in a batch depends on
// (BatchType.Frozen), and its delete, while it is in a batch (added or
// sent). A slip or a bank's payment would no longer be the record's: an
// invoice's title carries its amount and due date; an entry's payment
// what is paid and to whom, or it would be paid twice.
func FrozenInBatch(bt *BatchType) Hook {
	remove := "remove" + capitalized(bt.Members)
	revert := "revert" + capitalized(bt.Members)
	return func(ctx context.Context, tx pgx.Tx, c *Change) error {
		if c.Op == OpCreate {
			return nil
		}
		var changed []string
		if c.Op == OpUpdate {
			for _, col := range bt.Frozen {
				if c.Changed(col) {
					changed = append(changed, col)
				}
			}
			if len(changed) == 0 {
				return nil
			}
		}
		var batch int64
		var status string
		err := tx.QueryRow(ctx, `SELECT m.batch_id, b.status FROM `+bt.MemberTable+` m
			JOIN `+bt.Table+` b ON b.company_id = m.company_id AND b.id = m.batch_id
			WHERE m.company_id = $1 AND m.`+bt.MemberColumn+` = $2 AND m.state = 'added'`, c.Scope.CompanyID, c.ID).Scan(&batch, &status)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s of %s %d: %w", bt.Label, bt.Noun, c.ID, err)
		}
		how := "remove it from the batch (" + remove + ")"
		if status == "closed" {
			how = "revert it in the batch (" + revert + ")"
		}
		if c.Op == OpDelete {
			return finance.Errorf(finance.Conflict, "The %s is in %s %d: %s before deleting it.", bt.Noun, bt.Label, batch, how)
		}
		return finance.Errorf(finance.Conflict, "The %s is in %s %d: its %s cannot change; %s first.",
			bt.Noun, bt.Label, batch, strings.Join(changed, ", "), how)
	}
}
