package storage

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
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

// readjustOffWarning warns a contract's write that sets how it is
// readjusted (a readjust_indicator or readjust_with) and leaves it off:
// readjust_active is false by default, and only readjust_active true makes
// the nightly run readjust the rent. A write that gives readjust_active,
// false included, says what it means and is not warned.
func readjustOffWarning(w Write, rec *Record) []finance.Problem {
	if _, given := w.Values["readjust_active"]; given {
		return nil
	}
	if w.Values["readjust_indicator"] == nil && w.Values["readjust_with"] == nil {
		return nil
	}
	if on, _ := rec.Value("readjust_active"); on != false {
		return nil
	}
	return []finance.Problem{{Field: "readjust_active", Message: "is false: the nightly run does not readjust this contract, " +
		"whatever readjust_indicator and readjust_with say; send readjust_active true to readjust it on readjust_at_effective"}}
}
