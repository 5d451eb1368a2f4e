package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The rules around the calendar events' writes (docs/api.md, "Calendar
// events").

// eventDefaults fills in, on create, what the body leaves out: the creator
// is the acting user. (The time zone, the resource's TimeZone column, is
// filled in by storage before the hooks: the company's when it is one of
// the spec's zones, else America/Sao_Paulo.)
func eventDefaults(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpCreate && !c.Given("created_by") && c.Scope.UserID != 0 {
		c.Set("created_by", c.Scope.UserID)
	}
	return nil
}

// notItsOwn refuses a record whose column names the record itself (an
// event as its own parent or series), naming the column.
func notItsOwn(column string) Hook {
	return func(_ context.Context, _ pgx.Tx, c *Change) error {
		if c.Op != OpUpdate {
			return nil
		}
		if id, _ := asInt64(c.New.Values[column]); id != 0 && id == c.ID {
			return finance.InvalidInput([]finance.Problem{{Field: columnKey(c.Resource, column), Message: "cannot be the record itself"}})
		}
		return nil
	}
}

// feedbackAuthor makes the acting user the author of a new feedback.
func feedbackAuthor(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpCreate && c.Scope.UserID != 0 {
		c.Set("user_id", c.Scope.UserID)
	}
	return nil
}

// keepLastFeedback points the event at its latest feedback after every
// feedback write (include[lastFeedback]).
func keepLastFeedback(ctx context.Context, tx pgx.Tx, c *Change) error {
	event := c.Scope.Parent
	if event == 0 {
		event, _ = asInt64(c.Value("event_id"))
	}
	_, err := tx.Exec(ctx, `UPDATE events SET last_feedback_id = (SELECT max(id) FROM event_feedbacks
		WHERE company_id = $1 AND event_id = $2) WHERE company_id = $1 AND id = $2`, c.Scope.CompanyID, event)
	if err != nil {
		return fmt.Errorf("last feedback of event %d: %w", event, err)
	}
	return nil
}
