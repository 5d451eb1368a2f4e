package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The rules around the contracts' writes (docs/api.md, "Contracts").

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
		return InvalidInput([]Problem{{Field: columnKey(c.Resource, to), Message: fmt.Sprintf("cannot be before %s (%s)",
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
			return InvalidInput([]Problem{{Field: column, Message: fmt.Sprintf("%s %d is not a %s of this %s", noun, target, noun, parent)}})
		}
		return nil
	}
}

// stampChangeDate dates a change of a status column: when a write changes
// status and does not give its date column, the date is today in the
// company's time zone.
func stampChangeDate(status, date string) Hook {
	return func(ctx context.Context, tx pgx.Tx, c *Change) error {
		if c.Op == OpDelete || !c.Changed(status) || c.Given(date) || c.Value(status) == nil {
			return nil
		}
		today, err := companyToday(ctx, tx, c.Scope.CompanyID)
		if err != nil {
			return err
		}
		c.Set(date, today)
		return nil
	}
}

// companyToday is today's date in the company's time zone.
func companyToday(ctx context.Context, tx pgx.Tx, companyID int64) (time.Time, error) {
	var today time.Time
	err := tx.QueryRow(ctx, `SELECT (now() AT TIME ZONE coalesce(time_zone, 'America/Sao_Paulo'))::date
		FROM companies WHERE id = $1`, companyID).Scan(&today)
	if err != nil {
		return today, fmt.Errorf("today of company %d: %w", companyID, err)
	}
	return today, nil
}
