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

// parentOfSameContract refuses a contract item whose parent_id is an item
// of another contract (422 naming parent_id); the reference check has
// already made sure it is one of the company's.
func parentOfSameContract(ctx context.Context, tx pgx.Tx, c *Change) error {
	parent, _ := c.New.Values["parent_id"].(int64)
	if c.Op == OpDelete || parent == 0 {
		return nil
	}
	contract, _ := asInt64(c.Value("contract_id"))
	if contract == 0 {
		contract = c.Scope.Parent
	}
	var same bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM contract_items WHERE company_id = $1 AND id = $2 AND contract_id = $3)`,
		c.Scope.CompanyID, parent, contract).Scan(&same)
	if err != nil {
		return fmt.Errorf("check parent item %d: %w", parent, err)
	}
	if !same {
		return InvalidInput([]Problem{{Field: "parent_id", Message: fmt.Sprintf("contract item %d is not an item of this contract", parent)}})
	}
	return nil
}
