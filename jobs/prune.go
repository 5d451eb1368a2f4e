package jobs

import (
	"context"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// KindJobsPrune deletes a company's finished jobs older than the
// retention, and the Idempotency-Keys of its operations recorded before
// it (storage.KeyedWrite).
const KindJobsPrune = "jobs:prune"

// DefaultRetention is how long finished jobs are kept.
const DefaultRetention = 30 * 24 * time.Hour

// pruneBatch is how many rows one delete statement removes.
const pruneBatch = 1_000

// DatePayload is the payload of the work done once per company and date
// (the nightly runs): the date in the company's time zone, which is also
// the job's unique key. It names the run: work that depends on the date
// reads it (a readjustment due on it); jobs:prune does not (it always
// removes what is older than the retention when it runs).
type DatePayload struct {
	Date string `json:"date"`
}

// Check implements Checker. A date after tomorrow (in UTC, a day ahead
// of every company's zone) is refused: its run would take the key of a
// night that has not come.
func (p DatePayload) Check() []finance.Problem {
	d, err := time.Parse(time.DateOnly, p.Date)
	if err != nil || d.Year() < 2000 {
		return []finance.Problem{{Field: "payload.date", Message: "must be a date, YYYY-MM-DD, from 2000-01-01"}}
	}
	if d.After(time.Now().UTC().AddDate(0, 0, 1)) {
		return []finance.Problem{{Field: "payload.date", Message: "must not be after tomorrow"}}
	}
	return nil
}

// UniqueKey implements Keyed: one run per company and date.
func (p DatePayload) UniqueKey() string { return p.Date }

// PruneKind declares jobs:prune: delete the company's jobs that finished
// more than retention ago, and its operations' Idempotency-Keys recorded
// more than retention ago, a thousand rows a statement. Clients may start
// it for a date; the scheduler runs it nightly.
func PruneKind(retention time.Duration) *Kind {
	if retention <= 0 {
		retention = DefaultRetention
	}
	return Define(KindJobsPrune, Options{Queue: QueueLow, Direct: true, Rerun: true},
		func(ctx context.Context, r *Run, _ DatePayload) (any, error) {
			cutoff := time.Now().Add(-retention)
			n, err := storage.PruneJobs(ctx, r.Pool(), r.CompanyID(), cutoff, pruneBatch)
			if err != nil {
				return nil, err
			}
			keys, err := storage.PruneIdempotencyKeys(ctx, r.Pool(), r.CompanyID(), cutoff, pruneBatch)
			if err != nil {
				return nil, err
			}
			return map[string]any{"deleted": n, "keys_deleted": keys, "finished_before": cutoff.UTC().Format(time.DateTime)}, nil
		})
}
