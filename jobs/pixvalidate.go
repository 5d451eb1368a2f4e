package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/pix"
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
	pixChunk = 5_000
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
func (p PixValidatePayload) Check() []finance.Problem {
	switch {
	case len(p.Payloads) == 0:
		return []finance.Problem{{Field: "payloads", Message: "must hold at least one payload"}}
	case len(p.Payloads) > MaxPixPayloads:
		return []finance.Problem{{Field: "payloads", Message: fmt.Sprintf("holds %d payloads; at most %d", len(p.Payloads), MaxPixPayloads)}}
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
	Valid    int          `json:"valid"`
	Invalid  int          `json:"invalid"`
	Problems []PixInvalid `json:"problems"`
}

// PixValidateKind declares pix:validate: the payloads are checked five
// thousand at a time (each chunk on every CPU, then recorded), and the
// result lists every invalid payload by index with its problems, and the
// totals.
func PixValidateKind() *Kind {
	return Define(KindPixValidate, Options{Queue: QueueDefault}, runPixValidate)
}

func runPixValidate(ctx context.Context, r *Run, p PixValidatePayload) (any, error) {
	n := (len(p.Payloads) + pixChunk - 1) / pixChunk
	outputs, err := r.Chunks(ctx, n, int64(len(p.Payloads)), func(_ context.Context, _ pgx.Tx, i int) (any, int64, error) {
		from := i * pixChunk
		part := p.Payloads[from:min(from+pixChunk, len(p.Payloads))]
		problems := validateInParallel(part)
		out := pixChunkOutput{Problems: []PixInvalid{}}
		for j, probs := range problems {
			if len(probs) > 0 {
				out.Problems = append(out.Problems, PixInvalid{Index: from + j, Problems: probs})
			}
		}
		out.Invalid = len(out.Problems)
		out.Valid = len(part) - out.Invalid
		return out, int64(len(part)), nil
	})
	if err != nil {
		return nil, err
	}
	return joinPixChunks(len(p.Payloads), outputs)
}

// validateInParallel validates payloads on every CPU and returns each
// one's problems, in order.
func validateInParallel(payloads []string) []pix.Problems {
	problems := make([]pix.Problems, len(payloads))
	parts := runtime.GOMAXPROCS(0)
	size := (len(payloads) + parts - 1) / parts
	var wg sync.WaitGroup
	for from := 0; from < len(payloads); from += size {
		wg.Add(1)
		go func(from, to int) {
			defer wg.Done()
			for j := from; j < to; j++ {
				_, problems[j] = pix.Validate(payloads[j])
			}
		}(from, min(from+size, len(payloads)))
	}
	wg.Wait()
	return problems
}

// joinPixChunks writes the job's result from its chunks' outputs: the
// totals, and their problem lists joined as they are, without decoding
// every problem again.
func joinPixChunks(total int, outputs []json.RawMessage) (json.RawMessage, error) {
	var valid, invalid int
	lists := make([][]byte, 0, len(outputs))
	for i, raw := range outputs {
		var out struct {
			Valid    int             `json:"valid"`
			Invalid  int             `json:"invalid"`
			Problems json.RawMessage `json:"problems"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("chunk %d output: %w", i, err)
		}
		valid += out.Valid
		invalid += out.Invalid
		list := bytes.TrimSpace(out.Problems)
		if len(list) < 2 || list[0] != '[' || list[len(list)-1] != ']' {
			return nil, fmt.Errorf("chunk %d output: problems is not a list", i)
		}
		if inner := bytes.TrimSpace(list[1 : len(list)-1]); len(inner) > 0 {
			lists = append(lists, inner)
		}
	}
	b := fmt.Appendf(nil, `{"total":%d,"valid":%d,"invalid":%d,"problems":[`, total, valid, invalid)
	b = append(b, bytes.Join(lists, []byte(","))...)
	return append(b, "]}"...), nil
}

// UnmarshalJSON reads {"payloads": [...]} strictly. The list is read by a
// scanner of its own when the object has exactly that form (as the API
// writes it): encoding/json's reflection costs more than validating the
// payloads themselves, and a job of 100,000 reads its list once per run.
// Any other form goes through encoding/json, unknown fields refused; an
// entry that is not a string (null included) is an Invalid error naming
// it (payloads.N).
func (p *PixValidatePayload) UnmarshalJSON(raw []byte) error {
	const prefix, suffix = `{"payloads":[`, `]}`
	trimmed := trimJSONSpace(raw)
	if bytes.HasPrefix(trimmed, []byte(prefix)) && bytes.HasSuffix(trimmed, []byte(suffix)) {
		list, ok := scanStrings(trimmed[len(prefix) : len(trimmed)-len(suffix)])
		if ok {
			p.Payloads = list
			return nil
		}
	}
	var v struct {
		Payloads []json.RawMessage `json:"payloads"`
	}
	if err := decodeStrict(raw, &v); err != nil {
		return err
	}
	p.Payloads = nil
	var problems []finance.Problem
	for i, entry := range v.Payloads {
		var s string
		if entry[0] != '"' || json.Unmarshal(entry, &s) != nil {
			problems = append(problems, finance.Problem{Field: fmt.Sprintf("payloads.%d", i), Message: "must be a string"})
			continue
		}
		p.Payloads = append(p.Payloads, s)
	}
	if len(problems) > 0 {
		return finance.InvalidInput(problems)
	}
	return nil
}

// scanStrings reads a comma-separated list of JSON strings (the inside of
// an array). ok is false for anything else; a string with escapes or
// bytes outside printable ASCII is decoded by encoding/json.
func scanStrings(b []byte) (list []string, ok bool) {
	list = make([]string, 0, bytes.Count(b, []byte(`","`))+1)
	i := skipSpace(b, 0)
	if i == len(b) {
		return list, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end, plain := i+1, true
		for ; end < len(b) && b[end] != '"'; end++ {
			switch c := b[end]; {
			case c == '\\':
				plain = false
				end++ // the escaped character
			case c < 0x20 || c >= 0x80:
				plain = false
			}
		}
		if end >= len(b) {
			return nil, false
		}
		if plain {
			list = append(list, string(b[i+1:end]))
		} else {
			var s string
			if json.Unmarshal(b[i:end+1], &s) != nil {
				return nil, false
			}
			list = append(list, s)
		}
		i = skipSpace(b, end+1)
		if i == len(b) {
			return list, true
		}
		if b[i] != ',' {
			return nil, false
		}
		i = skipSpace(b, i+1)
	}
}

// trimJSONSpace trims what JSON counts as white space (space, tab, CR,
// LF), and nothing else.
func trimJSONSpace(b []byte) []byte {
	return bytes.TrimRight(b[skipSpace(b, 0):], " \t\r\n")
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
