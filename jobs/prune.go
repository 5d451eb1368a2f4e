package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// KindJobsPrune deletes a company's finished jobs older than the
// retention, the Idempotency-Keys of its operations recorded before it
// (storage.KeyedWrite) and its operator alerts raised before it that no
// longer hold; and its webhook events older than the webhook retention,
// with their deliveries.
const KindJobsPrune = "jobs:prune"

// DefaultRetention is how long finished jobs are kept.
const DefaultRetention = 30 * 24 * time.Hour

// MinRetention is the shortest retention of finished jobs a process
// takes: the scheduler reads the runs of the last two nights (its start's
// catch-up of 24 h makes again a run it finds none of, and its alerts of
// runs missing look back 48 h), so a shorter one would delete runs it
// still reads, making them again and raising false run_missing alerts.
const MinRetention = 72 * time.Hour

// DefaultWebhookRetention is how long webhook events and their
// deliveries are kept: a month to replay or resend them after an outage,
// ten times the deliveries' own three days of retries (Stripe keeps its
// events 30 days too).
const DefaultWebhookRetention = 30 * 24 * time.Hour

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

// Check implements Checker: a date from 2000-01-01. Whether it is after
// tomorrow is the company's to say (CheckCompany).
func (p DatePayload) Check() []finance.Problem {
	d, err := time.Parse(time.DateOnly, p.Date)
	if err != nil || d.Year() < 2000 {
		return []finance.Problem{{Field: "payload.date", Message: "must be a date, YYYY-MM-DD, from 2000-01-01"}}
	}
	return nil
}

// CheckCompany implements CompanyChecker: a date after tomorrow in the
// company's time zone is refused, its run would take the key of a night
// that has not come (docs/jobs.md, "A run ahead of its night"). The
// company's clock, not UTC's: a company east of UTC+12 (Pacific/Kiritimati)
// is a day ahead of UTC half the day, one in Pago Pago a day behind.
func (p DatePayload) CheckCompany(ctx context.Context, q storage.DBTX, companyID int64) error {
	date, err := finance.ParseDate(p.Date)
	if err != nil {
		return fmt.Errorf("date payload: %w", err) // Check refused it first
	}
	return checkNotAfterTomorrow(ctx, q, companyID, date)
}

// checkNotAfterTomorrow refuses a date after tomorrow in the company's
// time zone, naming that tomorrow.
func checkNotAfterTomorrow(ctx context.Context, q storage.DBTX, companyID int64, date finance.Date) error {
	today, err := storage.CompanyToday(ctx, q, companyID)
	if err != nil {
		return err
	}
	if tomorrow := today.AddDays(1); date.After(tomorrow) {
		return finance.InvalidInput([]finance.Problem{{Field: "payload.date", Message: fmt.Sprintf(
			"must not be after tomorrow, %s, in the company's time zone", tomorrow)}})
	}
	return nil
}

// UniqueKey implements Keyed: one run per company and date.
func (p DatePayload) UniqueKey() string { return p.Date }

// PruneKind declares jobs:prune, a thousand rows a statement: delete the
// company's operator alerts raised more than retention ago that no longer
// hold (first: whether one holds is read from its job, which may go
// next), its jobs that finished more than retention ago, its operations'
// Idempotency-Keys recorded more than retention ago, and its webhook
// events written more than webhookRetention ago with their deliveries
// (storage.PruneWebhookEvents keeps those a delivery still needs). A
// retention of zero or less is the default. Clients may start it for a
// date; the scheduler runs it nightly.
func PruneKind(retention, webhookRetention time.Duration) *Kind {
	if retention <= 0 {
		retention = DefaultRetention
	}
	if webhookRetention <= 0 {
		webhookRetention = DefaultWebhookRetention
	}
	return Define(KindJobsPrune, Options{Queue: QueueLow, Direct: true, Rerun: true},
		func(ctx context.Context, r *Run, _ DatePayload) (any, error) {
			now := time.Now()
			return prune(ctx, r, now.Add(-retention), now.Add(-webhookRetention))
		})
}

// pruneResult is jobs:prune's result.
type pruneResult struct {
	Jobs           int64  `json:"deleted"`
	Keys           int64  `json:"keys_deleted"`
	Alerts         int64  `json:"alerts_deleted"`
	Events         int64  `json:"events_deleted"`
	Deliveries     int64  `json:"deliveries_deleted"`
	FinishedBefore string `json:"finished_before"`
	EventsBefore   string `json:"events_before"`
}

// prune deletes what is older than cutoff (alerts, jobs, keys) and
// webhookCutoff (events) for the run's company: one look first at which
// of the four has old rows (storage.ReadPruneDue), then those prunes
// alone, the alerts before the jobs they name.
func prune(ctx context.Context, r *Run, cutoff, webhookCutoff time.Time) (any, error) {
	pool, company := r.Pool(), r.CompanyID()
	res := pruneResult{FinishedBefore: cutoff.UTC().Format(time.DateTime), EventsBefore: webhookCutoff.UTC().Format(time.DateTime)}
	due, err := storage.ReadPruneDue(ctx, pool, company, cutoff, webhookCutoff)
	if err != nil {
		return nil, err
	}
	if !due.Any() {
		return res, nil
	}
	if due.Alerts {
		if res.Alerts, err = storage.PruneAlerts(ctx, pool, company, cutoff, pruneBatch); err != nil {
			return nil, err
		}
	}
	if due.Jobs {
		if res.Jobs, err = storage.PruneJobs(ctx, pool, company, cutoff, pruneBatch); err != nil {
			return nil, err
		}
	}
	if due.Keys {
		if res.Keys, err = storage.PruneIdempotencyKeys(ctx, pool, company, cutoff, pruneBatch); err != nil {
			return nil, err
		}
	}
	if due.Events {
		events, err := storage.PruneWebhookEvents(ctx, pool, company, webhookCutoff, pruneBatch)
		if err != nil {
			return nil, err
		}
		res.Events, res.Deliveries = events.Events, events.Deliveries
	}
	return res, nil
}
