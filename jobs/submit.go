package jobs

import (
	"context"
	"encoding/json"

	"github.com/propfin/propfin/storage"
)

// Submission asks for one job.
type Submission struct {
	Kind    string
	Payload json.RawMessage
	// SubmittedBy says who asked ("api_key:12", "scheduler"); UserID is
	// the user behind it, when there is one.
	SubmittedBy string
	UserID      int64
	// IdempotencyKey and RequestHash come from a client's request: the
	// same key with the same request returns the first job.
	IdempotencyKey string
	RequestHash    []byte
	// DirectOnly refuses kinds that clients may not start themselves.
	DirectOnly bool
}

// Submit checks a submission against its kind and records the job in q,
// the transaction of the business write that asks for it when there is
// one. The relay enqueues it after commit. existed is true when the job
// was there already (same unique key or idempotency key).
func (reg *Registry) Submit(ctx context.Context, q storage.DBTX, companyID int64, s Submission) (job storage.Job, existed bool, err error) {
	k, ok := reg.Kind(s.Kind)
	if !ok || (s.DirectOnly && !k.Direct) {
		return storage.Job{}, false, storage.InvalidInput([]storage.Problem{{Field: "kind",
			Message: "is not a kind of job that can be started here"}})
	}
	payload, key, err := k.prepare(s.Payload)
	if err != nil {
		return storage.Job{}, false, err
	}
	return storage.SubmitJob(ctx, q, companyID, storage.NewJob{
		Kind: k.Name, Queue: k.Queue, Payload: payload, UniqueKey: key,
		SubmittedBy: s.SubmittedBy, UserID: s.UserID,
		IdempotencyKey: s.IdempotencyKey, RequestHash: s.RequestHash,
	})
}
