package jobs

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/hibiken/asynq"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
)

// KindWebhookDeliver posts one webhook event to one endpoint: the job of
// a delivery (docs/jobs.md, "webhook:deliver").
const KindWebhookDeliver = storage.KindWebhookDeliver

// WebhooksConfig is how deliveries go out.
type WebhooksConfig struct {
	// Policy is where they may go (PROPFIN_WEBHOOK_ALLOW_LOOPBACK,
	// PROPFIN_WEBHOOK_ALLOW_PRIVATE).
	Policy webhook.Policy
	// Timeout bounds an attempt (default webhook.Timeout, 10 s).
	Timeout time.Duration
	// EndpointConcurrency is how many deliveries to one endpoint a worker
	// process makes at once (default DefaultEndpointConcurrency;
	// PROPFIN_WEBHOOK_ENDPOINT_CONCURRENCY).
	EndpointConcurrency int
	// RetryDelay replaces WebhookRetryDelay (tests).
	RetryDelay func(n int) time.Duration
}

// DefaultEndpointConcurrency is a worker's deliveries in flight to one
// endpoint when the configuration does not say.
const DefaultEndpointConcurrency = 4

// webhookRetries are the waits before the retries of a delivery: about
// three days in all (71 h 42 min), the first ones close together for an
// endpoint that blinked, then every 8 hours for one that is down.
var webhookRetries = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour,
	8 * time.Hour, 8 * time.Hour, 8 * time.Hour, 8 * time.Hour, 8 * time.Hour, 8 * time.Hour, 8 * time.Hour, 8 * time.Hour}

// WebhookRetries is how many times a failed delivery is tried again.
var WebhookRetries = len(webhookRetries)

// WebhookRetryDelay is the wait before retry n of a delivery: the
// schedule's, with a tenth of jitter either way so that the retries of
// many deliveries to one endpoint spread out.
func WebhookRetryDelay(n int) time.Duration {
	d := webhookRetries[min(max(n, 0), len(webhookRetries)-1)]
	return d - d/10 + time.Duration(rand.Int64N(int64(d/5)+1))
}

// WebhookDeliverPayload names the delivery.
type WebhookDeliverPayload struct {
	DeliveryID int64 `json:"delivery_id"`
}

// Check refuses a payload that names no delivery.
func (p WebhookDeliverPayload) Check() []finance.Problem {
	if p.DeliveryID <= 0 {
		return []finance.Problem{{Field: "payload.delivery_id", Message: "must name a delivery"}}
	}
	return nil
}

// deliveryResult is a delivery job's result.
type deliveryResult struct {
	DeliveryID int64  `json:"delivery_id"`
	Status     string `json:"status"`
	Response   int    `json:"response_status,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// WebhookDeliverKind is the webhook:deliver kind: on the dedicated webhooks
// queue, one lane per endpoint, retried on WebhookRetryDelay's schedule,
// quiet (its outcomes are no job events).
func WebhookDeliverKind(cfg WebhooksConfig) *Kind {
	client := webhook.NewClient(cfg.Policy, cfg.Timeout)
	limit := cfg.EndpointConcurrency
	if limit <= 0 {
		limit = DefaultEndpointConcurrency
	}
	delay := cfg.RetryDelay
	if delay == nil {
		delay = WebhookRetryDelay
	}
	return Define(KindWebhookDeliver, Options{Queue: QueueWebhooks, MaxRetry: WebhookRetries, RetryDelay: delay,
		LaneLimit: limit, Quiet: true, Timeout: time.Minute},
		func(ctx context.Context, r *Run, p WebhookDeliverPayload) (any, error) {
			return deliver(ctx, r, client, p.DeliveryID)
		})
}

// deliver makes one attempt of a delivery and records it. A 2xx ends the
// job; anything else is an error the worker retries, until the last
// retry, which fails the delivery. A delivery whose endpoint is gone or
// no longer active, or whose address the policy refuses, fails at once.
func deliver(ctx context.Context, r *Run, client *webhook.Client, id int64) (any, error) {
	d, err := storage.ReadDelivery(ctx, r.Pool(), r.CompanyID(), id)
	if finance.ErrorCode(err) == finance.NotFound {
		return deliveryResult{DeliveryID: id, Status: "gone"}, nil // its endpoint was deleted (jobs:prune never deletes a waiting one)
	}
	if err != nil {
		return nil, err
	}
	if d.Status == storage.DeliveryDelivered || d.Status == storage.DeliveryFailed {
		return deliveryResult{DeliveryID: id, Status: d.Status}, nil
	}
	if !d.Active {
		a := storage.Attempt{Err: "the endpoint is not active", Final: true}
		if _, err := storage.RecordAttempt(ctx, r.Pool(), d, a); err != nil {
			return nil, err
		}
		return nil, Permanent(finance.Errorf(finance.Invalid, "Delivery %d: the endpoint is not active.", id))
	}
	retried, _ := asynq.GetRetryCount(ctx)
	resp := client.Post(ctx, webhook.Request{URL: d.URL, ID: strconv.FormatInt(d.EventID, 10), Body: d.Body, Secrets: d.Secrets})
	refused := errors.Is(resp.Err, webhook.ErrRefused)
	a := storage.Attempt{Status: resp.Status, Body: resp.Body, Duration: resp.Duration,
		Final: refused || retried >= WebhookRetries}
	if resp.Err != nil {
		a.Err = resp.Err.Error()
	}
	disabled, err := storage.RecordAttempt(context.WithoutCancel(ctx), r.Pool(), d, a)
	if err != nil {
		return nil, err
	}
	if resp.Delivered() {
		return deliveryResult{DeliveryID: id, Status: storage.DeliveryDelivered, Response: resp.Status,
			DurationMS: resp.Duration.Milliseconds()}, nil
	}
	failure := finance.Errorf(finance.Invalid, "Delivery %d: %s.", id, a.Err)
	if refused || disabled {
		return nil, Permanent(failure)
	}
	return nil, failure
}
