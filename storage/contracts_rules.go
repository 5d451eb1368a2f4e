package storage

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// The rules around the contracts' writes (docs/api.md, "Contracts").

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
