package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// refuseClosedMonthEntry refuses to change or delete an owner's entry
// (extract owner, with its owner_id) dated in a month the company has
// closed, and to make an entry one by an update: a closed statement never
// changes, and a change of a closed month is made with a new entry (docs/
// ledger.md, "Owner statements"), which the next close states as an
// adjustment. Creating such an entry is allowed, and so is changing a
// run's unpaid transfer (its billing_method, its account, its mark of
// paid by hand on a day of a closed month): it is on no statement while
// unpaid, and is stated once paid like an entry created then. While
// a close runs, an owner's entry is not changed (409 to try again).
func refuseClosedMonthEntry(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpCreate {
		return nil
	}
	if c.Memo[unpaidTransferChanged] == true { // on no statement while unpaid
		return closeInProgress(ctx, tx, c)
	}
	var dates []finance.Date
	if ownerEntry(c.OldValue("extract"), c.OldValue("owner_id")) {
		dates = append(dates, entryDate(c.OldValue("date")))
	}
	if c.Op == OpUpdate && ownerEntry(c.Value("extract"), c.Value("owner_id")) {
		dates = append(dates, entryDate(c.Value("date")))
	}
	if len(dates) == 0 {
		return nil
	}
	if err := closeInProgress(ctx, tx, c); err != nil {
		return err
	}
	var last *string
	if err := tx.QueryRow(ctx, `SELECT max(month) FROM owner_statement_months WHERE company_id = $1`,
		c.Scope.CompanyID).Scan(&last); err != nil {
		return translate(err, "owner statement months")
	}
	if last == nil {
		return nil
	}
	for _, d := range dates {
		if !d.IsZero() && finance.MonthOf(d).String() <= *last {
			return finance.Errorf(finance.Conflict, "This entry is an owner's, dated in %s, a month whose owner statements are closed, "+
				"and cannot be %s; write a new entry to correct it: the next statement shows it as an adjustment of %s.",
				finance.MonthOf(d), map[Op]string{OpUpdate: "changed", OpDelete: "deleted"}[c.Op], finance.MonthOf(d))
		}
	}
	return nil
}

// closeInProgress refuses (409) a change of an owner's entry while the
// company's owner statements are being closed: a close in progress holds
// the lock, and the change would be read, or not, by its statements; it
// is refused until the close is over, without waiting (the close may be
// waiting for this entry's row).
func closeInProgress(ctx context.Context, tx pgx.Tx, c *Change) error {
	var free bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock_shared(`+statementsLock+`)`, c.Scope.CompanyID).Scan(&free); err != nil {
		return translate(err, "owner statements lock")
	}
	if !free {
		return finance.Errorf(finance.Conflict, "The company's owner statements are being closed; try again in a moment.")
	}
	return nil
}

// ownerEntry reports whether an entry's extract and owner_id make it a
// line of an owner's statement.
func ownerEntry(extract, ownerID any) bool {
	e, _ := extract.(string)
	return e == "owner" && ownerID != nil
}

// entryDate is a date column's value as a hook sees it; zero when unset.
func entryDate(v any) finance.Date {
	if t, ok := v.(time.Time); ok {
		return finance.DateOf(t)
	}
	return finance.Date{}
}
