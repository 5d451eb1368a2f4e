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

// readjustWorkers is how many chunks of a run are in flight at once: two
// transactions, each on its own contracts, so that the writes of a run
// use two of the database's CPUs.
const readjustWorkers = MaxChunksAtOnce

// ReadjustKind declares contracts:readjust: every active contract in
// progress (or awaiting its readjustment) with readjust_active and its
// readjustment date on or before the payload's date is readjusted, in
// chunks of contracts in id order. Clients may start it for a date; the
// scheduler runs it nightly.
func ReadjustKind() *Kind {
	return Define(KindContractsReadjust, Options{Heavy: true, Direct: true, Rerun: true}, runReadjust)
}

// readjustPlan is what a run covers: the contracts due when it began, cut
// into chunks by the last contract id of each, and how many they were. It
// is recorded with the first chunk, so that a resumed run cuts the same
// chunks.
type readjustPlan struct {
	Lasts []int64 `json:"lasts"`
	Due   int64   `json:"due"`
}

// ReadjustChunk is the output of one chunk: the contract ids it covered,
// (After, Through], what happened, and, for the first chunk, the plan.
type ReadjustChunk struct {
	Plan    *readjustPlan `json:"plan,omitempty"`
	After   int64         `json:"after"`
	Through int64         `json:"through"`
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

// runReadjust does the run: the plan and the company's readjustment
// settings are read once (one statement for a new plan), and the indices
// when a contract is due, then the plan's chunks, two at a time (the
// first alone, with the plan). A company with no contract due, most of
// them on most nights, reads the plan alone.
func runReadjust(ctx context.Context, r *Run, p DatePayload) (any, error) {
	date, err := finance.ParseDate(p.Date)
	if err != nil {
		return nil, permanent(err)
	}
	plan, settings, err := readjustPlanOf(ctx, r, date)
	if err != nil {
		return nil, err
	}
	var idx finance.Indices
	if len(plan.Lasts) > 0 {
		if idx, err = storage.LoadIndices(ctx, r.Pool()); err != nil {
			return nil, err
		}
	}
	base := storage.ReadjustSelection{CompanyID: r.CompanyID(), Date: date,
		Actor: storage.Actor{Kind: storage.ActorJob, ID: r.Job.ID}, Options: settings.Options()}
	outputs, err := r.ChunksAtOnce(ctx, len(plan.Lasts), readjustWorkers, plan.Due, func(ctx context.Context, tx pgx.Tx, i int) (any, int64, error) {
		sel := base
		sel.Through = plan.Lasts[i]
		if i > 0 {
			sel.After = plan.Lasts[i-1]
		}
		rs, err := storage.ReadjustContracts(ctx, tx, idx, sel)
		if err != nil {
			return nil, 0, err
		}
		out := summarize(rs)
		out.After, out.Through = sel.After, sel.Through
		if i == 0 {
			out.Plan = &plan
		}
		return out, out.Contracts, nil
	})
	if err != nil {
		return nil, err
	}
	return totalOf(outputs)
}

// readjustPlanOf returns the plan a resumed run recorded with its first
// chunk, or a new one, and the company's readjustment settings.
func readjustPlanOf(ctx context.Context, r *Run, date finance.Date) (readjustPlan, storage.ReadjustSettings, error) {
	done, err := r.ChunkOutputs(ctx)
	if err != nil {
		return readjustPlan{}, storage.ReadjustSettings{}, err
	}
	if raw, ok := done[0]; ok {
		var out ReadjustChunk
		if err := json.Unmarshal(raw, &out); err != nil {
			return readjustPlan{}, storage.ReadjustSettings{}, permanent(fmt.Errorf("read the plan of job %d: %w", r.Job.ID, err))
		}
		if out.Plan == nil {
			return readjustPlan{}, storage.ReadjustSettings{}, permanent(fmt.Errorf("job %d: its first chunk recorded no plan", r.Job.ID))
		}
		settings, err := storage.ReadjustSettingsOf(ctx, r.Pool(), r.CompanyID())
		return *out.Plan, settings, err
	}
	lasts, due, settings, err := storage.PlanReadjustRun(ctx, r.Pool(), r.CompanyID(), date, readjustChunk)
	return readjustPlan{Lasts: lasts, Due: due}, settings, err
}

// summarize counts a chunk's answers.
func summarize(rs []storage.ContractReadjustment) ReadjustChunk {
	var out ReadjustChunk
	seen := map[int64]bool{}
	for _, r := range rs {
		if !seen[r.ContractID] {
			seen[r.ContractID] = true
			out.Contracts++
		}
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
