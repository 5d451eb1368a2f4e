package storage

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The deliveries of webhook events: what the webhook:deliver job reads
// and writes (jobs/webhooks.go), the resend, and the rotation of an
// endpoint's secret.

// WebhookDisableAfter is how long an endpoint may fail in a row (every
// attempt since the first failure failed) before its next failure
// disables it.
const WebhookDisableAfter = 5 * 24 * time.Hour

// SecretOverlap is how long the previous secret signs beside the new one
// after a rotation.
const SecretOverlap = 24 * time.Hour

// Delivery is one delivery as its job reads it: the event's body (the
// event as GET /webhookEvents/{id} returns it), its endpoint, and the
// secrets that sign it.
type Delivery struct {
	CompanyID  int64
	ID         int64
	EndpointID int64
	EventID    int64
	Status     string
	Attempts   int
	URL        string
	Active     bool
	EventType  string
	// Secrets are the endpoint's current secret, then the previous one
	// while it still signs.
	Secrets []string
	Body    []byte
}

// ReadDelivery reads a company's delivery with its endpoint and event.
// NotFound when it is gone (its endpoint deleted, or, once it ended, its
// event pruned).
func ReadDelivery(ctx context.Context, q DBTX, companyID, id int64) (*Delivery, error) {
	d := &Delivery{CompanyID: companyID, ID: id}
	var secret string
	var previous *string
	err := q.QueryRow(ctx, `SELECT d.endpoint_id, d.event_id, d.status, d.attempts, e.url, e.active, ev.type, e.secret,
			CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END,
			(`+RecordJSONSQL(eventResource(WebhookEvents), "$1", "ev")+`)
		FROM webhook_deliveries d
		JOIN webhook_endpoints e ON e.company_id = d.company_id AND e.id = d.endpoint_id
		JOIN webhook_events ev ON ev.company_id = d.company_id AND ev.id = d.event_id
		WHERE d.company_id = $1 AND d.id = $2`, companyID, id).Scan(
		&d.EndpointID, &d.EventID, &d.Status, &d.Attempts, &d.URL, &d.Active, &d.EventType, &secret, &previous, &d.Body)
	if err == pgx.ErrNoRows {
		return nil, recordNotFound(id)
	}
	if err != nil {
		return nil, translate(err, "webhook delivery")
	}
	d.Secrets = []string{secret}
	if previous != nil {
		d.Secrets = append(d.Secrets, *previous)
	}
	return d, nil
}

// Attempt is what one attempt of a delivery got.
type Attempt struct {
	Status   int // the HTTP status; 0 when no answer came
	Body     string
	Duration time.Duration
	Err      string // "" for a delivery taken
	// Final: no attempt follows a failure (out of retries, or the
	// endpoint disabled): the delivery is failed, not retrying.
	Final bool
}

// Delivered says whether the attempt delivered.
func (a Attempt) Delivered() bool { return a.Err == "" }

// RecordAttempt writes an attempt of a delivery, in one transaction, with
// what it means for its endpoint: a delivery clears the endpoint's run of
// failures; a failure starts one, or, when the run is older than
// WebhookDisableAfter, disables the endpoint and keeps a webhook.disabled
// event (delivered to the company's other endpoints subscribed to it).
// disabled says whether this attempt disabled it.
func RecordAttempt(ctx context.Context, db Beginner, d *Delivery, a Attempt) (disabled bool, err error) {
	status := DeliveryDelivered
	switch {
	case !a.Delivered() && a.Final:
		status = DeliveryFailed
	case !a.Delivered():
		status = DeliveryRetrying
	}
	err = pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = $3, attempts = attempts + 1,
				response_status = nullif($4, 0), duration_ms = $5, response_body = $6, error = nullif($7, ''),
				last_attempt_at = now(), delivered_at = CASE WHEN $3 = 'delivered' THEN now() END, updated_at = now()
			WHERE company_id = $1 AND id = $2`, d.CompanyID, d.ID, status, a.Status, a.Duration.Milliseconds(),
			storableText(a.Body), storableText(a.Err))
		if err != nil {
			return translate(err, "record delivery attempt")
		}
		if a.Delivered() {
			_, err = tx.Exec(ctx, `UPDATE webhook_endpoints SET failing_since = NULL
				WHERE company_id = $1 AND id = $2 AND failing_since IS NOT NULL`, d.CompanyID, d.EndpointID)
			return translate(err, "endpoint delivered")
		}
		if disabled, err = failEndpoint(ctx, tx, d.CompanyID, d.EndpointID); err != nil || !disabled {
			return err
		}
		// no attempt follows on a disabled endpoint
		_, err = tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed' WHERE company_id = $1 AND id = $2`,
			d.CompanyID, d.ID)
		return translate(err, "record delivery attempt")
	})
	return disabled, err
}

// failEndpoint records a failed attempt on its endpoint and disables the
// endpoint when its run of failures is over WebhookDisableAfter.
func failEndpoint(ctx context.Context, tx pgx.Tx, companyID, endpointID int64) (bool, error) {
	var off bool
	err := tx.QueryRow(ctx, `WITH old AS (
			SELECT coalesce(active AND failing_since <= now() - $3::interval, false) AS off FROM webhook_endpoints
			WHERE company_id = $1 AND id = $2 FOR UPDATE)
		UPDATE webhook_endpoints e SET failing_since = coalesce(e.failing_since, now()),
			active = e.active AND NOT old.off, disabled_at = CASE WHEN old.off THEN now() ELSE e.disabled_at END,
			updated_at = CASE WHEN old.off THEN now() ELSE e.updated_at END
		FROM old WHERE e.company_id = $1 AND e.id = $2
		RETURNING coalesce(old.off, false)`, companyID, endpointID, WebhookDisableAfter).Scan(&off)
	if err == pgx.ErrNoRows {
		return false, nil // the endpoint was deleted meanwhile
	}
	if err != nil {
		return false, translate(err, "endpoint failed")
	}
	if !off {
		return false, nil
	}
	_, err = EmitRecordEvents(ctx, tx, companyID, EventWebhookDisabled, Webhooks, []int64{endpointID}, "")
	return err == nil, err
}

// storableText is text PostgreSQL takes: valid UTF-8 without NUL.
func storableText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// ResendDelivery delivers the event of a delivery of an endpoint again: a
// new delivery, with its job, in q. It returns the new delivery's id.
// NotFound when the delivery is gone, its event pruned meanwhile
// included (the prune held the event: the new delivery's key to it
// fails once the prune commits).
func ResendDelivery(ctx context.Context, q DBTX, companyID, endpointID, deliveryID int64) (int64, error) {
	sql := `WITH ev AS (
		SELECT d.company_id, d.event_id AS id, ''::text AS type FROM webhook_deliveries d
		WHERE d.company_id = $1 AND d.endpoint_id = $2 AND d.id = $3)` + deliveriesCTEs("we.id = $2")
	sql = strings.Replace(sql, "(SELECT count(*) FROM dl)", "(SELECT coalesce(max(id), 0) FROM dl)", 1)
	e, err := scanEmitted(q.QueryRow(ctx, sql, companyID, endpointID, deliveryID))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23503" && pgErr.ConstraintName == "webhook_deliveries_event_fk" {
		return 0, recordNotFound(deliveryID)
	}
	if err != nil {
		return 0, translate(err, "resend delivery")
	}
	if e.Events == 0 {
		return 0, recordNotFound(deliveryID)
	}
	return e.Deliveries, nil
}

// RotateSecret gives an endpoint a new secret; the one it replaces signs
// beside it for SecretOverlap (a rotation within the overlap drops the
// oldest). NotFound for an endpoint the company does not have.
func RotateSecret(ctx context.Context, q DBTX, companyID, endpointID int64, secret string) (expires time.Time, err error) {
	err = q.QueryRow(ctx, `UPDATE webhook_endpoints SET previous_secret = secret,
			previous_secret_expires_at = now() + $4::interval, secret = $3, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING previous_secret_expires_at`,
		companyID, endpointID, secret, SecretOverlap).Scan(&expires)
	if err == pgx.ErrNoRows {
		return time.Time{}, recordNotFound(endpointID)
	}
	if err != nil {
		return time.Time{}, translate(err, "rotate secret")
	}
	return expires, nil
}

// DeliveryOf says which endpoint a delivery is of, so that a route under
// another endpoint answers 404.
func DeliveryOf(ctx context.Context, q DBTX, companyID, deliveryID int64) (int64, error) {
	var endpoint int64
	err := q.QueryRow(ctx, `SELECT endpoint_id FROM webhook_deliveries WHERE company_id = $1 AND id = $2`,
		companyID, deliveryID).Scan(&endpoint)
	if err == pgx.ErrNoRows {
		return 0, recordNotFound(deliveryID)
	}
	return endpoint, translate(err, "webhook delivery")
}
