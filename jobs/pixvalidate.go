package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/propfin/propfin/pix"
	"github.com/propfin/propfin/storage"
)

// KindPixValidate validates PIX copy-and-paste payloads in bulk.
const KindPixValidate = "pix:validate"

// Limits of PIX validation.
const (
	// MaxInlinePix is the most payloads POST /pix/validate checks in the
	// request itself; more become a job.
	MaxInlinePix = 100
	// MaxPixPayloads is the most payloads one job checks.
	MaxPixPayloads = 100_000
	// pixChunk is how many payloads one chunk of the job checks.
	pixChunk = 1_000
)

// PixValidatePayload is the payload of a pix:validate job.
type PixValidatePayload struct {
	Payloads []string `json:"payloads"`
}

// NewPixValidate is the submission of a pix:validate job.
func NewPixValidate(payloads []string) (Submission, error) {
	raw, err := json.Marshal(PixValidatePayload{Payloads: payloads})
	if err != nil {
		return Submission{}, fmt.Errorf("encode pix:validate payload: %w", err)
	}
	return Submission{Kind: KindPixValidate, Payload: raw}, nil
}

// Check implements Checker.
func (p PixValidatePayload) Check() []storage.Problem {
	switch {
	case len(p.Payloads) == 0:
		return []storage.Problem{{Field: "payloads", Message: "must hold at least one payload"}}
	case len(p.Payloads) > MaxPixPayloads:
		return []storage.Problem{{Field: "payloads", Message: fmt.Sprintf("holds %d payloads; at most %d", len(p.Payloads), MaxPixPayloads)}}
	}
	return nil
}

// PixResult is the validation of one payload, by its index in the list.
type PixResult struct {
	Index    int          `json:"index"`
	Valid    bool         `json:"valid"`
	Problems pix.Problems `json:"problems"`
}

// PixReport is the validation of a short list, in the request: totals and
// every payload's result.
type PixReport struct {
	Total   int         `json:"total"`
	Valid   int         `json:"valid"`
	Invalid int         `json:"invalid"`
	Results []PixResult `json:"results"`
}

// PixInvalid is one invalid payload of a job, by its index in the list.
type PixInvalid struct {
	Index    int          `json:"index"`
	Problems pix.Problems `json:"problems"`
}

// PixJobResult is the result of a pix:validate job: totals, and the
// invalid payloads with their problems, in index order.
type PixJobResult struct {
	Total    int          `json:"total"`
	Valid    int          `json:"valid"`
	Invalid  int          `json:"invalid"`
	Problems []PixInvalid `json:"problems"`
}

// ValidatePix checks payloads and reports every one of them.
func ValidatePix(payloads []string) PixReport {
	rep := PixReport{Total: len(payloads), Results: make([]PixResult, len(payloads))}
	for i, p := range payloads {
		_, probs := pix.Validate(p)
		if probs == nil {
			probs = pix.Problems{}
		}
		rep.Results[i] = PixResult{Index: i, Valid: len(probs) == 0, Problems: probs}
		if len(probs) == 0 {
			rep.Valid++
		} else {
			rep.Invalid++
		}
	}
	return rep
}

// pixChunkOutput is what one chunk of the job records.
type pixChunkOutput struct {
	Valid   int          `json:"valid"`
	Invalid []PixInvalid `json:"invalid"`
}

// PixValidateKind declares pix:validate: the payloads are checked a
// thousand at a time, each chunk recorded, and the result lists every
// invalid payload by index with its problems, and the totals.
func PixValidateKind() *Kind {
	return Define(KindPixValidate, Options{Queue: QueueDefault}, runPixValidate)
}

func runPixValidate(ctx context.Context, r *Run, p PixValidatePayload) (any, error) {
	n := (len(p.Payloads) + pixChunk - 1) / pixChunk
	outputs, err := r.Chunks(ctx, n, int64(len(p.Payloads)), func(_ context.Context, i int) (any, int64, error) {
		from := i * pixChunk
		part := p.Payloads[from:min(from+pixChunk, len(p.Payloads))]
		out := pixChunkOutput{Invalid: []PixInvalid{}}
		for j, payload := range part {
			if _, probs := pix.Validate(payload); len(probs) > 0 {
				out.Invalid = append(out.Invalid, PixInvalid{Index: from + j, Problems: probs})
			} else {
				out.Valid++
			}
		}
		return out, int64(len(part)), nil
	})
	if err != nil {
		return nil, err
	}
	rep := PixJobResult{Total: len(p.Payloads), Problems: []PixInvalid{}}
	for i, raw := range outputs {
		var out pixChunkOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("chunk %d output: %w", i, err)
		}
		rep.Valid += out.Valid
		rep.Problems = append(rep.Problems, out.Invalid...)
	}
	rep.Invalid = len(rep.Problems)
	return rep, nil
}
