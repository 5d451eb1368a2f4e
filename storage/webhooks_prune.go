package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// The pruning of webhook events (jobs:prune, docs/jobs.md): a company's
// events older than the retention go with their deliveries, except those
// a delivery still needs.

// Pruned counts what PruneWebhookEvents deleted.
type Pruned struct {
	Events, Deliveries int64
}

// eventKeptSQL holds for an event (alias ev) one of whose deliveries is
// still waiting (pending, retrying: its job may still run and must find
// its row) or was made at or after the cutoff ($2: a resend keeps its
// event for the retention too).
const eventKeptSQL = `EXISTS (SELECT 1 FROM webhook_deliveries d
	WHERE d.company_id = ev.company_id AND d.event_id = ev.id
		AND (d.status IN ('` + DeliveryPending + `', '` + DeliveryRetrying + `') OR d.created_at >= $2))`

// PruneWebhookEvents deletes a company's webhook events written before
// cutoff and their deliveries, batch events a transaction, keeping every
// event eventKeptSQL holds for, and returns how many of each it deleted.
//
// Each batch locks its events first (FOR UPDATE SKIP LOCKED) and only
// then, in a statement of its own and so a snapshot taken after the
// locks, looks again at their deliveries and deletes: a resend's new
// delivery either committed before that snapshot (seen, the event kept),
// or locked the event first (skipped, kept), or waits for the delete and
// finds no event (a foreign key violation, nothing written). No delivery
// ever outlives its event.
func PruneWebhookEvents(ctx context.Context, db Beginner, companyID int64, cutoff time.Time, batch int) (Pruned, error) {
	var total Pruned
	for {
		var taken int
		err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
			var n Pruned
			var err error
			taken, n, err = pruneEventsBatch(ctx, tx, companyID, cutoff, batch)
			total.Events += n.Events
			total.Deliveries += n.Deliveries
			return err
		})
		if err != nil {
			return total, translate(err, "prune webhook events")
		}
		if taken < batch {
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, translate(err, "prune webhook events")
		}
	}
}

// pruneEventsBatch locks up to batch of the oldest events to prune and
// deletes them with their deliveries. taken is how many it locked.
func pruneEventsBatch(ctx context.Context, tx pgx.Tx, companyID int64, cutoff time.Time, batch int) (taken int, n Pruned, err error) {
	rows, err := tx.Query(ctx, `SELECT ev.id FROM webhook_events ev
		WHERE ev.company_id = $1 AND ev.created_at < $2 AND NOT `+eventKeptSQL+`
		ORDER BY ev.created_at LIMIT $3 FOR UPDATE SKIP LOCKED`, companyID, cutoff, batch)
	if err != nil {
		return 0, n, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) == 0 {
		return 0, n, err
	}
	// the deliveries are deleted here, counted, rather than by the
	// foreign key's cascade, which finds none left
	err = tx.QueryRow(ctx, `WITH gone AS (
			DELETE FROM webhook_events ev WHERE ev.company_id = $1 AND ev.id = ANY($3) AND NOT `+eventKeptSQL+`
			RETURNING ev.id),
		dl AS (
			DELETE FROM webhook_deliveries d WHERE d.company_id = $1 AND d.event_id IN (SELECT id FROM gone)
			RETURNING 1)
		SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM dl)`, companyID, cutoff, ids).Scan(&n.Events, &n.Deliveries)
	return len(ids), n, err
}
