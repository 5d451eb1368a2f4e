package jobs

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/propfin/propfin/finance"
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
	// Rerun asks for the payload's run again when its unique key has one
	// (kinds declared Rerun only): a new job, unless a run of the key has
	// not finished, which is answered instead.
	Rerun bool
}

// Submit checks a submission against its kind (the kind, a rerun, the
// payload, the records the payload names) and records the job in q, the
// transaction of the business write that asks for it when there is one.
// The relay enqueues it after commit. found says what was there already
// and answered instead of a new job (the same idempotency key, a run of
// the same unique key).
func (reg *Registry) Submit(ctx context.Context, q storage.DBTX, companyID int64, s Submission) (job storage.Job, found storage.Found, err error) {
	k, ok := reg.Kind(s.Kind)
	if !ok || (s.DirectOnly && !k.Direct) {
		return storage.Job{}, storage.FoundNothing, finance.InvalidInput([]finance.Problem{{Field: "kind",
			Message: "is not a kind of job that can be started here; the kinds that can: " +
				strings.Join(reg.startableNames(s.DirectOnly), ", ")}})
	}
	if s.Rerun && !k.Rerun {
		return storage.Job{}, storage.FoundNothing, finance.InvalidInput([]finance.Problem{{Field: "rerun",
			Message: "applies only to the kinds whose runs can be run again: " + strings.Join(reg.rerunNames(s.DirectOnly), ", ")}})
	}
	payload, key, err := k.prepare(s.Payload)
	if err != nil {
		return storage.Job{}, storage.FoundNothing, err
	}
	refs, err := k.references(payload)
	if err == nil {
		err = reg.resources.CheckReferences(ctx, q, companyID, refs)
	}
	if err == nil && k.checkCompany != nil {
		err = k.checkCompany(ctx, q, companyID, payload)
	}
	if err != nil {
		return storage.Job{}, storage.FoundNothing, err
	}
	return storage.SubmitJob(ctx, q, companyID, storage.NewJob{
		Kind: k.Name, Queue: k.Queue, Payload: payload, UniqueKey: key, Rerun: s.Rerun,
		SubmittedBy: s.SubmittedBy, UserID: s.UserID,
		IdempotencyKey: s.IdempotencyKey, RequestHash: s.RequestHash,
	})
}
