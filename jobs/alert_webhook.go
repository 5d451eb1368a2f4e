package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
)

// OperatorAlertEvent is the type of the operator webhook's events.
const OperatorAlertEvent = "operator.alert"

// The states an alert is posted in.
const (
	AlertOpen     = "open"
	AlertResolved = "resolved"
)

// alertEvent is the JSON an operator webhook receives for one alert, in
// the company webhooks' envelope (docs/operations.md, "Alerts").
type alertEvent struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt string    `json:"created_at"`
	CompanyID int64     `json:"company_id"`
	Data      alertData `json:"data"`
}

type alertData struct {
	ID         int64   `json:"id"`
	Kind       string  `json:"kind"`
	JobID      *int64  `json:"job_id"`
	Generation *int    `json:"generation"`
	JobKind    *string `json:"job_kind"`
	Schedule   *string `json:"schedule"`
	RunDate    *string `json:"run_date"`
	// TransactionID is the transfer of a void_transfer_paid alert.
	TransactionID *int64 `json:"transaction_id"`
	// InvoiceID or PaymentID is what a short_payment alert names.
	InvoiceID *int64 `json:"invoice_id"`
	PaymentID *int64 `json:"payment_id"`
	Message   string `json:"message"`
	RaisedAt  string `json:"raised_at"`
	// Open says whether the alert still holds when it is posted; State is
	// "open" or "resolved" (it stopped holding: the failed job succeeded
	// on a retry, the night's run succeeded, the short payment was paid),
	// before it was delivered, or after, in the second post of an alert
	// delivered open.
	Open  bool   `json:"open"`
	State string `json:"state"`
}

// OperatorWebhook is the AlertSender of the operator webhook: one POST
// per post of an alert to url, signed with secret as the company webhooks
// are (Standard Webhooks headers; webhook-id "alert-<id>" for its first
// post and "alert-<id>-resolved" for the resolution of an alert delivered
// open, each the same on every attempt, so that a receiver that drops the
// ids it has seen drops neither). Anything but a 2xx leaves the post
// undelivered, for the scheduler's next round (each minute).
func OperatorWebhook(client *webhook.Client, url, secret string) storage.AlertSender {
	return func(ctx context.Context, a storage.Alert) error {
		event := alertEventOf(a)
		body, err := json.Marshal(event)
		if err != nil {
			return fmt.Errorf("operator alert %d: %w", a.ID, err)
		}
		r := client.Post(ctx, webhook.Request{URL: url, ID: event.ID, Body: body, Secrets: []string{secret}})
		if !r.Delivered() {
			return fmt.Errorf("operator alert %d: %s answered %d: %w", a.ID, url, r.Status, r.Err)
		}
		return nil
	}
}

// alertEventOf is the event of a post of a: its first (a not delivered
// yet), or its resolution (delivered before: SentAt set).
func alertEventOf(a storage.Alert) alertEvent {
	d := alertData{ID: a.ID, Kind: a.Kind, JobID: a.JobID, Generation: a.Generation, JobKind: a.JobKind,
		Schedule: a.Schedule, TransactionID: a.TransactionID, InvoiceID: a.InvoiceID, PaymentID: a.PaymentID,
		Message: a.Message, RaisedAt: a.RaisedAt.UTC().Format(time.DateTime), Open: a.Open, State: AlertResolved}
	if a.Open {
		d.State = AlertOpen
	}
	if a.RunDate != nil {
		s := a.RunDate.Format(time.DateOnly)
		d.RunDate = &s
	}
	id := fmt.Sprintf("alert-%d", a.ID)
	if a.SentAt != nil {
		id += "-" + AlertResolved
	}
	return alertEvent{ID: id, Type: OperatorAlertEvent, CreatedAt: d.RaisedAt,
		CompanyID: a.CompanyID, Data: d}
}
