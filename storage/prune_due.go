package storage

import (
	"context"
	"time"
)

// PruneDue says which of a company's prunes have rows to look at: alerts
// raised before cutoff, jobs finished before it, Idempotency-Keys
// recorded before it, webhook events written before webhookCutoff. One
// statement of four index probes, each a superset of what its prune
// deletes (an old alert that still holds, an old event a delivery still
// needs, are kept by the prune itself), so that a company with nothing
// old, most of them on most nights, is one look rather than four deletes
// (docs/performance.md, "The kinds' own cost").
type PruneDue struct {
	Alerts, Jobs, Keys, Events bool
}

// Any reports whether one prune has rows to look at.
func (d PruneDue) Any() bool { return d.Alerts || d.Jobs || d.Keys || d.Events }

// ReadPruneDue reads PruneDue for the company.
func ReadPruneDue(ctx context.Context, q DBTX, companyID int64, cutoff, webhookCutoff time.Time) (PruneDue, error) {
	var d PruneDue
	err := q.QueryRow(ctx, `SELECT
			EXISTS (SELECT 1 FROM operator_alerts WHERE company_id = $1 AND raised_at < $2),
			EXISTS (SELECT 1 FROM jobs WHERE company_id = $1 AND state IN ('succeeded', 'failed', 'canceled') AND finished_at < $2),
			EXISTS (SELECT 1 FROM idempotency_keys WHERE company_id = $1 AND created_at < $2),
			EXISTS (SELECT 1 FROM webhook_events WHERE company_id = $1 AND created_at < $3)`,
		companyID, cutoff, webhookCutoff).Scan(&d.Alerts, &d.Jobs, &d.Keys, &d.Events)
	return d, translate(err, "prune due")
}
