package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// KindContractsReadjust readjusts a company's contracts due on a date
// (docs/jobs.md, docs/finance.md "Readjustment").
const KindContractsReadjust = "contracts:readjust"

// readjustChunk is how many contracts one chunk reads and writes.
const readjustChunk = 2_000

// ReadjustKind declares contracts:readjust: every active contract in
// progress (or awaiting its readjustment) with readjust_active and its
// readjustment date on or before the payload's date is readjusted, in
// chunks of contracts in id order. Clients may start it for a date; the
// scheduler runs it nightly.
func ReadjustKind() *Kind {
	return Define(KindContractsReadjust, Options{Direct: true}, runReadjust)
}

// ReadjustChunk is the output of one chunk: the last contract it read
// (where the next chunk starts) and what happened.
type ReadjustChunk struct {
	LastID int64 `json:"last_id"`
	ReadjustSummary
}

// ReadjustSummary counts the answers of a run: contracts read, and
// readjustments by outcome (one per period for a contract behind).
type ReadjustSummary struct {
	Contracts       int64 `json:"contracts"`
	Readjusted      int64 `json:"readjusted"`
	Kept            int64 `json:"kept"`
	Waiting         int64 `json:"waiting"`
	NotDue          int64 `json:"not_due"`
	InvoicesUpdated int64 `json:"invoices_updated"`
}

func (s *ReadjustSummary) add(o ReadjustSummary) {
	s.Contracts += o.Contracts
	s.Readjusted += o.Readjusted
	s.Kept += o.Kept
	s.Waiting += o.Waiting
	s.NotDue += o.NotDue
	s.InvoicesUpdated += o.InvoicesUpdated
}

// runReadjust does the run: the indices and the company's readjustment
// settings are read once, then chunks of due contracts after the last one
// done (so that a resumed run goes on where it stopped).
func runReadjust(ctx context.Context, r *Run, p DatePayload) (any, error) {
	date, err := finance.ParseDate(p.Date)
	if err != nil {
		return nil, permanent(err)
	}
	idx, err := storage.LoadIndices(ctx, r.Pool())
	if err != nil {
		return nil, err
	}
	settings, err := storage.ReadjustSettingsOf(ctx, r.Pool(), r.CompanyID())
	if err != nil {
		return nil, err
	}
	done, err := storage.JobChunkOutputs(ctx, r.Pool(), r.CompanyID(), r.Job.ID)
	if err != nil {
		return nil, err
	}
	after, err := lastReadjusted(done)
	if err != nil {
		return nil, permanent(err)
	}
	remaining, err := storage.CountDueReadjustments(ctx, r.Pool(), r.CompanyID(), date, after)
	if err != nil {
		return nil, err
	}
	n := len(done) + int((remaining+readjustChunk-1)/readjustChunk)
	sel := storage.ReadjustSelection{CompanyID: r.CompanyID(), Date: date, Limit: readjustChunk,
		Actor: storage.Actor{Kind: storage.ActorJob, ID: r.Job.ID}, Options: settings.Options()}
	outputs, err := r.Chunks(ctx, n, r.Job.Progress.Done+remaining, func(ctx context.Context, tx pgx.Tx, _ int) (any, int64, error) {
		sel.After = after
		rs, err := storage.ReadjustContracts(ctx, tx, idx, sel)
		if err != nil {
			return nil, 0, err
		}
		out := summarize(rs, after)
		after = out.LastID
		return out, out.Contracts, nil
	})
	if err != nil {
		return nil, err
	}
	return totalOf(outputs)
}

// lastReadjusted is the last contract id of the chunks done already.
func lastReadjusted(done map[int]json.RawMessage) (int64, error) {
	var last int64
	for i, raw := range done {
		var c ReadjustChunk
		if err := json.Unmarshal(raw, &c); err != nil {
			return 0, fmt.Errorf("chunk %d output: %w", i, err)
		}
		last = max(last, c.LastID)
	}
	return last, nil
}

// summarize counts a chunk's answers; LastID stays after when it read
// nothing.
func summarize(rs []storage.ContractReadjustment, after int64) ReadjustChunk {
	out := ReadjustChunk{LastID: after}
	seen := map[int64]bool{}
	for _, r := range rs {
		if !seen[r.ContractID] {
			seen[r.ContractID] = true
			out.Contracts++
		}
		out.LastID = max(out.LastID, r.ContractID)
		out.InvoicesUpdated += int64(len(r.InvoicesUpdated))
		switch r.Outcome {
		case finance.ReadjustApplied:
			out.Readjusted++
		case finance.ReadjustKept:
			out.Kept++
		case finance.ReadjustWaiting:
			out.Waiting++
		default:
			out.NotDue++
		}
	}
	return out
}

// totalOf adds the chunks' outputs up: the job's result.
func totalOf(outputs []json.RawMessage) (ReadjustSummary, error) {
	var total ReadjustSummary
	for i, raw := range outputs {
		var c ReadjustChunk
		if err := json.Unmarshal(raw, &c); err != nil {
			return total, fmt.Errorf("chunk %d output: %w", i, err)
		}
		total.add(c.ReadjustSummary)
	}
	return total, nil
}
