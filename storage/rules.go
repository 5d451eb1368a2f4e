package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The write rules several resources declare (docs/storage.md, "Child
// collections, hooks, delete options"); a rule of one area is in that
// area's _rules.go.

// DatesInOrder is the rule that a record's period does not end before it
// starts: the date column to is not before from, as they are after the
// write (a value the write gives, else the stored one). It refuses before
// the row is written, naming to; the table's CHECK is the backstop.
func DatesInOrder(from, to string) Hook {
	return func(_ context.Context, _ pgx.Tx, c *Change) error {
		if c.Op == OpDelete || !c.Given(from) && !c.Given(to) {
			return nil
		}
		start, ok1 := c.Value(from).(time.Time)
		end, ok2 := c.Value(to).(time.Time)
		if !ok1 || !ok2 || !end.Before(start) {
			return nil
		}
		return finance.InvalidInput([]finance.Problem{{Field: columnKey(c.Resource, to), Message: fmt.Sprintf("cannot be before %s (%s)",
			columnKey(c.Resource, from), start.Format(time.DateOnly))}})
	}
}

// SameParent is the rule that a sub-resource's record points, through
// column, at a record of the same parent: the row of table whose id is the
// column's value must have parentKey equal to the record's own parentKey
// (a contract item's parent_id an item of the same contract, a unit's
// group_id a group of the same condominium). It refuses with a 422 naming
// column; the reference check has already made sure the record is the
// company's. noun names the pointed-at record and parent the parent in
// the message.
func SameParent(column, table, parentKey, noun, parent string) Hook {
	return func(ctx context.Context, tx pgx.Tx, c *Change) error {
		target, _ := c.New.Values[column].(int64)
		if c.Op == OpDelete || target == 0 {
			return nil
		}
		owner, _ := asInt64(c.Value(parentKey))
		if owner == 0 {
			owner = c.Scope.Parent
		}
		var same bool
		err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+ident(table)+` WHERE company_id = $1 AND id = $2 AND `+
			ident(parentKey)+` = $3)`, c.Scope.CompanyID, target, owner).Scan(&same)
		if err != nil {
			return fmt.Errorf("check %s %d: %w", noun, target, err)
		}
		if !same {
			return finance.InvalidInput([]finance.Problem{{Field: column, Message: fmt.Sprintf("%s %d is not a %s of this %s", noun, target, noun, parent)}})
		}
		return nil
	}
}

// columnKey is the body key of a declared column.
func columnKey(res *Resource, column string) string {
	if col, ok := res.Column(column); ok {
		return col.Key()
	}
	return column
}
