package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// Queues and their weights: a worker takes from critical six times as
// often as from low, and never starves low.
const (
	QueueCritical = "critical"
	QueueDefault  = "default"
	QueueLow      = "low"
)

// QueueWeights are the asynq queue priorities of every worker.
var QueueWeights = map[string]int{QueueCritical: 6, QueueDefault: 3, QueueLow: 1}

// QueueWebhooks is the queue of the webhook deliveries.
const QueueWebhooks = storage.QueueWebhooks

// DedicatedQueues are the queues a worker serves apart, each with a
// concurrency of its own (the default here; WorkerConfig.Dedicated sets
// another): their jobs never take a slot of the queues above, nor those
// jobs one of theirs. The webhook deliveries wait on other companies'
// servers, up to 10 s each: a slow endpoint must not hold up a nightly
// run, nor the other way round.
var DedicatedQueues = map[string]int{QueueWebhooks: 16}

// knownQueue says whether a kind may run on queue.
func knownQueue(queue string) bool {
	_, weighted := QueueWeights[queue]
	_, dedicated := DedicatedQueues[queue]
	return weighted || dedicated
}

// Kind is one kind of work: its name (the asynq task type), where it runs,
// how often it is retried, how its payload is checked and what it does.
// Kinds are declared with Define and listed in a Registry.
type Kind struct {
	Name  string
	Queue string
	// MaxRetry is how many times a failed run is retried before the job
	// ends failed (the worker counts, not asynq); Timeout bounds one run.
	MaxRetry int
	Timeout  time.Duration
	// Direct kinds may be started by clients through POST /jobs.
	Direct bool
	// Rerun kinds may run a unique key again (Submission.Rerun).
	Rerun bool
	// Heavy kinds' chunks count against their company's limit of heavy
	// chunks in flight (WorkerConfig.CompanyChunks, jobs/fairness.go).
	Heavy bool
	// References are the payload fields naming records of the company,
	// by the storage resource they name (Options.References).
	References map[string]string
	// Payload is the Go type a payload decodes into (Define's P): the API
	// describes the payload from it (GET /openapi.json).
	Payload reflect.Type
	// RetryDelay is the wait before retry n (from 0); nil: the worker's.
	RetryDelay func(n int) time.Duration
	// LaneLimit is how many jobs of one lane run at once in a worker
	// (Options.LaneLimit); 0: no limit.
	LaneLimit int
	// Quiet kinds emit no job.succeeded or job.failed events.
	Quiet bool
	// SucceededEvent is the webhook event type a success emits beside
	// job.succeeded ("": none).
	SucceededEvent string

	// prepare checks a payload and returns what to store and the job's
	// unique key ("" for none).
	prepare func(raw json.RawMessage) (json.RawMessage, string, error)
	// checkCompany applies a prepared payload's rules that read the
	// submitting company's records (a CompanyChecker's), nil when it has none.
	checkCompany func(ctx context.Context, q storage.DBTX, companyID int64, payload json.RawMessage) error
	// run does the work of one job whose payload was prepared.
	run func(ctx context.Context, r *Run, raw json.RawMessage) (any, error)
}

// DefaultMaxRetry is how many times a failed run is retried when the kind
// does not say.
const DefaultMaxRetry = 5

// Options are a kind's settings; zero values take the defaults.
type Options struct {
	Queue    string        // default QueueDefault
	MaxRetry int           // default 5; -1 means never retry
	Timeout  time.Duration // default 30 minutes
	Direct   bool
	// Rerun: a run of a unique key may be asked again (Submission.Rerun),
	// as a new job. Only for work that is idempotent and writes only what
	// changed since the last run (the nightly runs of a date).
	Rerun bool
	// Heavy: the kind's chunks are bulk database work (the nightly runs, a
	// return file), held to a per-company limit of such chunks in flight
	// across every worker (docs/jobs.md, "Fairness").
	Heavy bool
	// References declares the payload fields (integer ids) that name a
	// record of the submitting company, each by its storage resource
	// ({"contract_id": storage.Contracts}). Submit refuses a payload
	// naming a record the company does not have, as a write's reference
	// columns are refused (422 naming payload.<field>); a field absent or
	// 0 names none.
	References map[string]string
	// RetryDelay is the wait before retry n (from 0), for a kind whose
	// retries follow a schedule of their own (the webhook deliveries'
	// three days); nil: the worker's (RetryDelay).
	RetryDelay func(n int) time.Duration
	// LaneLimit bounds the jobs of one lane (a job row's lane: a webhook
	// endpoint's deliveries) running at once in one worker process; a task
	// over the limit goes back to Redis for about a second without
	// touching its row or spending a retry. 0: no limit.
	LaneLimit int
	// Quiet: the kind's outcomes emit no job.succeeded or job.failed
	// webhook events (the deliveries' own, which would feed themselves).
	Quiet bool
	// SucceededEvent is a webhook event type a success emits beside
	// job.succeeded, with the job as its data (batch:file's
	// batch.file_ready).
	SucceededEvent string
}

// Checker is implemented by payloads with rules beyond their JSON shape;
// the problems name payload fields.
type Checker interface {
	Check() []finance.Problem
}

// CompanyChecker is implemented by payloads with rules that read the
// submitting company's records (its time zone, what it has closed): they
// are checked at submission, in the submitting transaction, so a payload
// the run would refuse is refused then (a 422), not accepted to fail later.
type CompanyChecker interface {
	CheckCompany(ctx context.Context, q storage.DBTX, companyID int64) error
}

// Keyed is implemented by payloads of work that may happen once per key:
// a second submission with the same key returns the first job.
type Keyed interface {
	UniqueKey() string
}

// Handler does the work of one job of payload type P and returns its
// result (encoded as JSON in the job row).
type Handler[P any] func(ctx context.Context, r *Run, p P) (any, error)

// Define declares a kind whose payload is a P, decoded strictly (unknown
// fields are refused) and checked when P is a Checker.
func Define[P any](name string, opts Options, h Handler[P]) *Kind {
	k := &Kind{Name: name, Queue: opts.Queue, MaxRetry: opts.MaxRetry, Timeout: opts.Timeout, Direct: opts.Direct,
		Rerun: opts.Rerun, Heavy: opts.Heavy, References: opts.References, Payload: reflect.TypeFor[P](),
		RetryDelay: opts.RetryDelay, LaneLimit: opts.LaneLimit, Quiet: opts.Quiet, SucceededEvent: opts.SucceededEvent}
	if k.Queue == "" {
		k.Queue = QueueDefault
	}
	switch {
	case k.MaxRetry == 0:
		k.MaxRetry = DefaultMaxRetry
	case k.MaxRetry < 0:
		k.MaxRetry = 0
	}
	if k.Timeout == 0 {
		k.Timeout = 30 * time.Minute
	}
	k.prepare = func(raw json.RawMessage) (json.RawMessage, string, error) {
		p, err := decodePayload[P](raw)
		if err != nil {
			return nil, "", err
		}
		key := ""
		if keyed, ok := any(p).(Keyed); ok {
			key = keyed.UniqueKey()
		}
		return orEmptyObject(raw), key, nil // stored as given: it decoded strictly
	}
	if _, ok := any(new(P)).(CompanyChecker); ok {
		k.checkCompany = func(ctx context.Context, q storage.DBTX, companyID int64, raw json.RawMessage) error {
			p, err := decodePayload[P](raw)
			if err != nil {
				return err
			}
			return any(&p).(CompanyChecker).CheckCompany(ctx, q, companyID)
		}
	}
	k.run = func(ctx context.Context, r *Run, raw json.RawMessage) (any, error) {
		p, err := decodePayload[P](raw)
		if err != nil {
			return nil, permanent(err)
		}
		return h(ctx, r, p)
	}
	return k
}

// decodePayload reads a payload strictly and checks it; every problem is
// an Invalid error naming payload fields.
func decodePayload[P any](raw json.RawMessage) (P, error) {
	var p P
	raw = orEmptyObject(raw)
	var err error
	if u, ok := any(&p).(json.Unmarshaler); ok {
		err = u.UnmarshalJSON(raw) // the payload type reads itself, strictly (PixValidatePayload)
	} else {
		err = decodeStrict(raw, &p)
	}
	if err != nil {
		return p, payloadError(err)
	}
	return p, checkPayload(p)
}

// payloadError is a payload that does not decode, as a 422: a coded error
// as it is, a field of the wrong type named (payload.date), anything else
// on the payload.
func payloadError(err error) error {
	var coded *finance.Error
	if errors.As(err, &coded) {
		return err
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return finance.InvalidInput([]finance.Problem{{Field: "payload." + typeErr.Field, Message: "has the wrong type (" + typeErr.Value + ")"}})
	}
	return finance.InvalidInput([]finance.Problem{{Field: "payload", Message: payloadMessage(err)}})
}

// errTrailing is JSON after the payload's one value.
var errTrailing = errors.New("trailing data after the JSON value")

// decodeStrict decodes one JSON value into v, refusing unknown fields and
// anything after the value.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailing
	}
	return nil
}

// orEmptyObject is raw, or {} when there is no payload at all.
func orEmptyObject(raw json.RawMessage) json.RawMessage {
	if len(trimJSONSpace(raw)) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// checkPayload applies the payload's own rules, when it has some.
func checkPayload[P any](p P) error {
	c, ok := any(p).(Checker)
	if !ok {
		c, ok = any(&p).(Checker)
	}
	if ok {
		if problems := c.Check(); len(problems) > 0 {
			return finance.InvalidInput(problems)
		}
	}
	return nil
}

// payloadMessage says what is wrong with a payload that does not decode,
// without the Go type names of encoding/json's messages.
func payloadMessage(err error) string {
	var syntaxErr *json.SyntaxError
	switch {
	case errors.Is(err, errTrailing):
		return "must be one JSON value"
	case errors.As(err, &syntaxErr):
		return "is not valid JSON"
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "has an unknown field " + field
	}
	return "must be a JSON object of the kind's payload"
}

// references lists the records a prepared payload names, by the kind's
// declared References, in field order.
func (k *Kind) references(payload json.RawMessage) ([]storage.Reference, error) {
	if len(k.References) == 0 {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil {
		return nil, fmt.Errorf("jobs: %s payload: %w", k.Name, err)
	}
	var refs []storage.Reference
	for _, field := range sortedFields(k.References) {
		raw, ok := fields[field]
		if !ok || string(trimJSONSpace(raw)) == "null" {
			continue
		}
		var id int64
		if err := json.Unmarshal(raw, &id); err != nil {
			return nil, payloadError(err) // a declared field that is no id
		}
		if id != 0 {
			refs = append(refs, storage.Reference{Field: "payload." + field, Resource: k.References[field], ID: id})
		}
	}
	return refs, nil
}

func sortedFields(m map[string]string) []string {
	fields := make([]string, 0, len(m))
	for f := range m {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	return fields
}

// events are the webhook event types an outcome of the kind emits:
// job.succeeded or job.failed, and the kind's own on a success; none for
// a quiet kind.
func (k *Kind) events(state string) []string {
	switch {
	case k.Quiet:
		return nil
	case state == storage.JobSucceeded && k.SucceededEvent != "":
		return []string{storage.EventJobSucceeded, k.SucceededEvent}
	case state == storage.JobSucceeded:
		return []string{storage.EventJobSucceeded}
	case state == storage.JobFailed:
		return []string{storage.EventJobFailed}
	}
	return nil
}

// Registry lists the kinds a process knows.
type Registry struct {
	kinds map[string]*Kind
	// resources are the storage declarations the kinds' References name.
	resources *storage.Registry
}

// NewRegistry indexes kinds by name; a name declared twice, an unknown
// queue or a reference to an undeclared resource is an error.
func NewRegistry(kinds ...*Kind) (*Registry, error) {
	reg := &Registry{kinds: make(map[string]*Kind, len(kinds)), resources: storage.DefaultRegistry()}
	for _, k := range kinds {
		if _, dup := reg.kinds[k.Name]; dup {
			return nil, fmt.Errorf("jobs: kind %q declared twice", k.Name)
		}
		if !knownQueue(k.Queue) {
			return nil, fmt.Errorf("jobs: kind %q: unknown queue %q", k.Name, k.Queue)
		}
		for field, res := range k.References {
			if _, ok := reg.resources.Resource(res); !ok {
				return nil, fmt.Errorf("jobs: kind %q: payload field %q references undeclared resource %q", k.Name, field, res)
			}
		}
		reg.kinds[k.Name] = k
	}
	return reg, nil
}

// Kind returns the kind named name.
func (reg *Registry) Kind(name string) (*Kind, bool) {
	k, ok := reg.kinds[name]
	return k, ok
}

// Names lists the kinds in name order.
func (reg *Registry) Names() []string {
	names := make([]string, 0, len(reg.kinds))
	for n := range reg.kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// startableNames lists, in name order, the kinds a submission may start:
// every kind, or with directOnly only those clients may start.
func (reg *Registry) startableNames(directOnly bool) []string {
	var names []string
	for _, n := range reg.Names() {
		if k := reg.kinds[n]; k.Direct || !directOnly {
			names = append(names, n)
		}
	}
	return names
}

// rerunNames lists, in name order, the kinds whose runs may be asked
// again; with directOnly, only those clients may start.
func (reg *Registry) rerunNames(directOnly bool) []string {
	var names []string
	for _, n := range reg.Names() {
		if k := reg.kinds[n]; k.Rerun && (k.Direct || !directOnly) {
			names = append(names, n)
		}
	}
	return names
}

// KindsConfig holds the settings of the kinds that have some.
type KindsConfig struct {
	// Retention is how long finished jobs are kept (jobs:prune).
	Retention time.Duration
	// WebhookRetention is how long webhook events and their deliveries
	// are kept (jobs:prune).
	WebhookRetention time.Duration
	// Reminders is what invoices:remind sends with (nil: a process
	// without a mail server).
	Reminders *RemindersConfig
	// Webhooks is where and how deliveries go (webhook:deliver).
	Webhooks WebhooksConfig
}

// Kinds is the registry of every kind of propfin, plus extra ones (tests
// add kinds of their own).
func Kinds(cfg KindsConfig, extra ...*Kind) (*Registry, error) {
	return NewRegistry(append([]*Kind{
		PixValidateKind(),
		PruneKind(cfg.Retention, cfg.WebhookRetention),
		InvoicesGenerateKind(),
		TransferKind(),
		ReadjustKind(),
		OverdueKind(),
		BatchFileKind(),
		BatchReturnKind(),
		DimobFileKind(),
		StatementsKind(),
		RemindKind(cfg.Reminders),
		WebhookDeliverKind(cfg.Webhooks),
	}, extra...)...)
}
