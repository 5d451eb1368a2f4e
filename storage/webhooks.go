package storage

// The webhooks of integrators (docs/api.md, "Webhooks"): the endpoints a
// company declares (/webhooks), the events written with the changes that
// cause them (/webhookEvents, webhooks_events.go) and their deliveries
// (/webhooks/{id}/deliveries, webhooks_deliveries.go), carried by the
// webhook:deliver job.

import (
	"context"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Resource names of the webhooks.
const (
	Webhooks          = "webhooks"
	WebhookEvents     = "webhook_events"
	WebhookDeliveries = "webhook_deliveries"
)

// The event types (docs/api.md, "Webhooks"): the change each stands for.
const (
	EventInvoiceCreated         = "invoice.created"
	EventInvoiceUpdated         = "invoice.updated"
	EventInvoicePaid            = "invoice.paid"
	EventInvoicePaymentReversed = "invoice.payment_reversed"
	EventInvoiceOverdue         = "invoice.overdue"
	EventInvoiceCanceled        = "invoice.canceled"
	EventBatchFileReady         = "batch.file_ready"
	EventBatchReturnProcessed   = "batch.return_processed"
	EventContractReadjusted     = "contract.readjusted"
	EventContractTerminated     = "contract.terminated"
	EventTransferPaid           = "transfer.paid"
	EventJobSucceeded           = "job.succeeded"
	EventJobFailed              = "job.failed"
	EventWebhookDisabled        = "webhook.disabled"
	EventPing                   = "ping"
)

// WebhookEventTypes are every event type, in the order docs/api.md lists them.
var WebhookEventTypes = []string{EventInvoiceCreated, EventInvoiceUpdated, EventInvoicePaid, EventInvoicePaymentReversed,
	EventInvoiceOverdue, EventInvoiceCanceled, EventBatchFileReady, EventBatchReturnProcessed, EventContractReadjusted,
	EventContractTerminated, EventTransferPaid, EventJobSucceeded, EventJobFailed, EventWebhookDisabled, EventPing}

// AllEvents subscribes an endpoint to every event type.
const AllEvents = "*"

// The delivery job's kind and queue: the kind's handler is in package
// jobs (jobs/webhooks.go); the emission writes its rows set-based here.
const (
	KindWebhookDeliver = "webhook:deliver"
	QueueWebhooks      = "webhooks"
)

// WebhookLane is the lane of an endpoint's deliveries (docs/jobs.md,
// "Lanes"): the deliveries of one endpoint run at most the kind's lane
// limit at a time in a worker.
func WebhookLane(endpointID int64) string {
	return "webhook:" + strconv.FormatInt(endpointID, 10)
}

// The delivery statuses: pending until its first attempt, retrying after a
// failed one, then delivered (a 2xx) or failed (out of retries, or the
// endpoint disabled).
const (
	DeliveryPending   = "pending"
	DeliveryRetrying  = "retrying"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// DeliveryStatuses are the statuses of a delivery.
var DeliveryStatuses = []string{DeliveryPending, DeliveryRetrying, DeliveryDelivered, DeliveryFailed}

// webhooksResource is /webhooks: a company's endpoints. The secret is
// write-only (given or generated on create, shown in the create's answer
// alone: api/webhooks.go); the URL is checked against the network policy
// by the API, at create and update, and again at every dial.
func webhooksResource() *Resource {
	events := Column{Name: "events", Type: TextArray, Filterable: true, Writable: true, NotNull: true,
		Enum: append([]string{AllEvents}, WebhookEventTypes...)}
	return &Resource{
		Name: Webhooks, Table: "webhook_endpoints",
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "url", Type: String, Filterable: true, Writable: true, Required: true},
			events,
			{Name: "description", Type: String, Filterable: true, Writable: true},
			{Name: "active", Type: Bool, Filterable: true, Writable: true, NotNull: true},
			{Name: "secret", Type: String, Writable: true, WriteOnly: true, CreateOnly: true},
			// after a rotation, the previous secret signs beside the new one until then
			{Name: "previous_secret_expires_at", Type: DateTime, Filterable: true},
			{Name: "failing_since", Type: DateTime, Filterable: true},
			{Name: "disabled_at", Type: DateTime, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "deliveries", Kind: HasMany, Resource: WebhookDeliveries, Key: "endpoint_id"},
		},
		Hooks: Hooks{Before: []Hook{webhookEndpointRules}},
		Filters: []SpecialFilter{
			eventsOverlap(),
		},
	}
}

// CheckWebhookEvents says what is wrong with an endpoint's events as a
// write reads them ("" when nothing): it subscribes to at least one type.
func CheckWebhookEvents(v any) string {
	if list, _ := v.([]string); len(list) == 0 {
		return "must name at least one event type, or " + AllEvents
	}
	return ""
}

// webhookEndpointRules: an endpoint subscribes to at least one type; an
// endpoint made active again (after it was disabled for failing) starts a
// new run without failures.
func webhookEndpointRules(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpDelete {
		return nil
	}
	if v, given := c.New.Values["events"]; given {
		if msg := CheckWebhookEvents(v); msg != "" {
			return problem("events", msg)
		}
	}
	if c.Op == OpUpdate && c.Changed("active") && c.Value("active") == true {
		c.Set("failing_since", nil)
		c.Set("disabled_at", nil)
	}
	return nil
}

// webhookEventsResource is GET /webhookEvents: the company's events, for
// replay. A record is the event as its deliveries post it.
func webhookEventsResource() *Resource {
	return &Resource{
		Name: WebhookEvents, Table: "webhook_events", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "type", Type: String, Filterable: true, Enum: WebhookEventTypes},
			{Name: "created_at", Type: DateTime, Filterable: true},
			{Name: "company_id", Type: Int},
			{Name: "data", Type: JSON},
		},
		Relations: []Relation{
			{Name: "deliveries", Kind: HasMany, Resource: WebhookDeliveries, Key: "event_id"},
		},
		Filters: []SpecialFilter{
			enumIn(ColumnIn("typeIn", "type", String), WebhookEventTypes),
		},
	}
}

// webhookDeliveriesResource is GET /webhooks/{id}/deliveries: the
// deliveries of one endpoint, read-only; a resend is a new delivery.
func webhookDeliveriesResource() *Resource {
	return &Resource{
		Name: WebhookDeliveries, Table: "webhook_deliveries", ReadOnly: true,
		Parent: &Parent{Resource: Webhooks, Key: "endpoint_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "endpoint_id", Type: Int, Filterable: true},
			{Name: "event_id", Type: Int, Filterable: true},
			{Name: "status", Type: String, Filterable: true, Enum: DeliveryStatuses},
			{Name: "attempts", Type: Int, Filterable: true},
			{Name: "response_status", Type: Int, Filterable: true},
			{Name: "duration_ms", Type: Int, Filterable: true},
			{Name: "response_body", Type: String},
			{Name: "error", Type: String, Filterable: true},
			{Name: "last_attempt_at", Type: DateTime, Filterable: true},
			{Name: "delivered_at", Type: DateTime, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "event", Kind: BelongsTo, Resource: WebhookEvents, Key: "event_id"},
			{Name: "webhook", Kind: BelongsTo, Resource: Webhooks, Key: "endpoint_id"},
		},
		Filters: []SpecialFilter{
			enumIn(ColumnIn("statusIn", "status", String), DeliveryStatuses),
		},
	}
}

// eventsOverlap is filter[eventsIn][]: the endpoints subscribed to one of
// the types named (* included as a name of its own).
func eventsOverlap() SpecialFilter {
	return SpecialFilter{Name: "eventsIn", Elem: String, Enum: append([]string{AllEvents}, WebhookEventTypes...),
		Condition: func(f *FilterSQL) string { return ident("events") + " && " + f.Value() }}
}

// IsEventType says whether name is an event type.
func IsEventType(name string) bool { return slices.Contains(WebhookEventTypes, name) }
