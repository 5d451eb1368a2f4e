package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Write rules of the batches (docs/api.md, "Batches"), run as hooks in the
// write's transaction.

// remittanceLayouts are the banks and layouts package cnab writes
// collection remittances for, as an account names them (bank code and
// layout): the batches of an account must be writable. Package jobs's
// tests hold this table to cnab.Supported().
var remittanceLayouts = map[string][]string{
	"001": {"cnab240", "cnab400"},
	"033": {"cnab240", "cnab400"},
	"041": {"cnab240", "cnab400"},
	"104": {"cnab240"},
	"237": {"cnab240", "cnab400"},
	"341": {"cnab240", "cnab400"},
	"748": {"cnab240", "cnab400"},
	"756": {"cnab240", "cnab400"},
}

// RemittanceLayouts lists the bank and layout pairs a collection batch's
// account may have, as "341/400", sorted.
func RemittanceLayouts() []string {
	var out []string
	for bank, layouts := range remittanceLayouts {
		for _, l := range layouts {
			out = append(out, bank+"/"+strings.TrimPrefix(l, "cnab"))
		}
	}
	slices.Sort(out)
	return out
}

// checkBatchAccount is the hook of a batch type's batches: it requires,
// on create, an account (already known to be the company's) that can send
// the kind's remittances (BatchType.AccountProblem; 422 naming
// account_id).
func checkBatchAccount(bt *BatchType) Hook {
	return func(ctx context.Context, tx pgx.Tx, c *Change) error {
		id, given := c.New.Values["account_id"]
		if c.Op != OpCreate || !given || id == nil {
			return nil
		}
		var bank, layout string
		err := tx.QueryRow(ctx, `SELECT coalesce(bank, ''), coalesce(layout, '') FROM accounts WHERE company_id = $1 AND id = $2`,
			c.Scope.CompanyID, id).Scan(&bank, &layout)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // the reference check names it
		}
		if err != nil {
			return fmt.Errorf("account of a %s: %w", bt.Label, err)
		}
		if msg := bt.AccountProblem(bank, layout); msg != "" {
			return problem("account_id", msg)
		}
		return nil
	}
}

// remittanceAccountProblem says why an account with bank and layout cannot
// send collection remittances; "" when it can.
func remittanceAccountProblem(bank, layout string) string {
	layouts, known := remittanceLayouts[bank]
	switch {
	case bank == "" || layout == "":
		return "the account needs its bank and its layout (cnab240 or cnab400) to send a remittance"
	case !known:
		return fmt.Sprintf("bank %s has no collection remittance layout here; the banks are %s", bank, strings.Join(sortedBanks(), ", "))
	case !slices.Contains(layouts, layout):
		return fmt.Sprintf("bank %s takes collection remittances in %s, not %s", bank, strings.Join(layouts, ", "), layout)
	}
	return ""
}

func sortedBanks() []string {
	banks := make([]string, 0, len(remittanceLayouts))
	for b := range remittanceLayouts {
		banks = append(banks, b)
	}
	slices.Sort(banks)
	return banks
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
			return Errorf(Conflict, "The batch's file is written: the batch is kept; take its %s back with revert%s.",
				bt.Members, capitalized(bt.Members))
		}
		b, err := LockBatch(ctx, tx, bt, c.Scope.CompanyID, c.ID)
		if err != nil {
			return err
		}
		return bt.RemoveAll(ctx, tx, b, ActorOf(c.Scope))
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
			return Errorf(Conflict, "The %s is in %s %d: %s before deleting it.", bt.Noun, bt.Label, batch, how)
		}
		return Errorf(Conflict, "The %s is in %s %d: its %s cannot change; %s first.",
			bt.Noun, bt.Label, batch, strings.Join(changed, ", "), how)
	}
}
