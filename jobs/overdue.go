package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// KindFinanceOverdue recalculates a company's overdue statuses on a date:
// invoice status, contract payment_status and calendar event status.
const KindFinanceOverdue = "finance:overdue"

// The size of a chunk, one statement and one transaction: how many
// invoices it moves, and how many ids of the contracts and events it
// covers.
const overdueChunkInvoices = 50_000

var overdueChunkIDs = map[string]int64{"contracts": 10_000, "events": 50_000}

// overdueRangedTables are the tables a run cuts into id ranges, in the
// order it writes them, after the invoices.
var overdueRangedTables = []string{"contracts", "events"}

// overduePlan is what a run covers: the payload's date, where the runs of
// overdueChunkInvoices invoices whose status changes on it begin (their
// first ids, in id order), and, per table cut into id ranges, the span of
// the company's ids, all read when the run began. It is recorded with the
// first chunk, so that a resumed run cuts the same chunks even when rows
// were added or removed meanwhile.
type overduePlan struct {
	Date   string                    `json:"date"`
	Moving []int64                   `json:"moving"`
	Spans  map[string]storage.IDSpan `json:"spans"` // per table of overdueRangedTables
}

// overdueChunk is one id range of one table. First and Last mark the
// run's first and last range of contracts.
type overdueChunk struct {
	Table       string
	From, To    int64
	First, Last bool
}

// overdueOutput is what a chunk records: its table and range, how many
// rows it changed, for contracts how many it recalculated and
// whether those were all of the range, and, for the first chunk, the plan.
type overdueOutput struct {
	Plan    *overduePlan `json:"plan,omitempty"`
	Table   string       `json:"table"`
	From    int64        `json:"from"`
	To      int64        `json:"to"`
	Visited int64        `json:"visited,omitempty"`
	All     bool         `json:"all,omitempty"`
	Updated int64        `json:"updated"`
}

// OverdueResult is the result of a finance:overdue job: the date, how many
// rows of each table changed (Events nil when the events table has no
// status to recalculate), and how many contracts were recalculated to
// find the ones that changed.
type OverdueResult struct {
	Date             string `json:"date"`
	Invoices         int64  `json:"invoices"`
	Contracts        int64  `json:"contracts"`
	ContractsVisited int64  `json:"contracts_visited"`
	Events           *int64 `json:"events"`
}

// OverdueKind declares finance:overdue: bring the company's invoice,
// contract and event statuses to what package finance's rules say on the
// payload's date, set-based, reading only the rows that can change.
// Clients may start it for a date; the scheduler runs it just after
// midnight.
func OverdueKind() *Kind {
	return Define(KindFinanceOverdue, Options{Queue: QueueCritical, Direct: true},
		func(ctx context.Context, r *Run, p DatePayload) (any, error) {
			asOf, err := finance.ParseDate(p.Date)
			if err != nil {
				return nil, Permanent(fmt.Errorf("payload date: %w", err))
			}
			plan, err := overduePlanOf(ctx, r, p.Date)
			if err != nil {
				return nil, err
			}
			chunks := plan.chunks()
			outputs, err := r.Chunks(ctx, len(chunks), int64(len(chunks)), func(ctx context.Context, tx pgx.Tx, i int) (any, int64, error) {
				out, err := runOverdueChunk(ctx, tx, r, asOf, chunks[i])
				if i == 0 {
					out.Plan = &plan
				}
				return out, 1, err
			})
			if err != nil {
				return nil, err
			}
			return overdueResult(plan, outputs)
		})
}

// overduePlanOf returns the plan a resumed run recorded with its first
// chunk, or a new one.
func overduePlanOf(ctx context.Context, r *Run, date string) (overduePlan, error) {
	done, err := storage.JobChunkOutputs(ctx, r.Pool(), r.CompanyID(), r.Job.ID)
	if err != nil {
		return overduePlan{}, err
	}
	if raw, ok := done[0]; ok {
		var out overdueOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			return overduePlan{}, fmt.Errorf("read the plan of job %d: %w", r.Job.ID, err)
		}
		if out.Plan == nil {
			return overduePlan{}, fmt.Errorf("job %d: its first chunk recorded no plan", r.Job.ID)
		}
		return *out.Plan, nil
	}
	return newOverduePlan(ctx, r, date)
}

// newOverduePlan cuts the invoices that move into runs and reads the spans
// of the company's ids.
func newOverduePlan(ctx context.Context, r *Run, date string) (overduePlan, error) {
	asOf, err := finance.ParseDate(date)
	if err != nil {
		return overduePlan{}, err
	}
	plan := overduePlan{Date: date, Spans: map[string]storage.IDSpan{}}
	if plan.Moving, err = storage.InvoiceStatusMoveRanges(ctx, r.Pool(), r.CompanyID(), asOf, overdueChunkInvoices); err != nil {
		return overduePlan{}, err
	}
	for _, table := range overdueRangedTables {
		span, err := storage.CompanyIDSpan(ctx, r.Pool(), table, r.CompanyID())
		if err != nil {
			return overduePlan{}, err
		}
		plan.Spans[table] = span
	}
	return plan, nil
}

// chunks are the runs of invoices that move, one id range each (the first
// from id 1, the last without an upper end), and one more over every id,
// which moves those that came to move after the plan in a range already
// done, and, reading the index from the start, clears it of the entries
// that the chunk before left behind (storage.UpdateInvoiceStatuses), so
// that the next run does not visit them; then each ranged table's span cut
// into ranges of overdueChunkIDs ids. The contracts' first range also
// starts at 1 and their last has no upper end, so that the marks of any
// contract id are read, deleted ones' included
// (storage.UpdatePaymentStatuses).
func (p overduePlan) chunks() []overdueChunk {
	var out []overdueChunk
	for i, from := range p.Moving {
		to := int64(math.MaxInt64)
		if i+1 < len(p.Moving) {
			to = p.Moving[i+1] - 1
		}
		out = append(out, overdueChunk{Table: "invoices", From: from, To: to})
	}
	if len(out) > 0 {
		out[0].From = 1
		out = append(out, overdueChunk{Table: "invoices", From: 1, To: math.MaxInt64})
	}
	for _, table := range overdueRangedTables {
		span, ok := p.Spans[table]
		if !ok || span.Empty() {
			continue
		}
		width := overdueChunkIDs[table]
		first := len(out)
		for from := span.Min; from <= span.Max; from += width {
			out = append(out, overdueChunk{Table: table, From: from, To: min(from+width-1, span.Max)})
		}
		if table == "contracts" {
			out[first].First, out[first].From = true, 1
			out[len(out)-1].Last, out[len(out)-1].To = true, math.MaxInt64
		}
	}
	return out
}

// runOverdueChunk does one chunk in tx.
func runOverdueChunk(ctx context.Context, tx pgx.Tx, r *Run, asOf finance.Date, c overdueChunk) (overdueOutput, error) {
	out := overdueOutput{Table: c.Table, From: c.From, To: c.To}
	var err error
	switch c.Table {
	case "invoices":
		out.Updated, err = storage.UpdateInvoiceStatuses(ctx, tx, r.CompanyID(), r.Job.ID, c.From, c.To, asOf)
	case "contracts":
		var res storage.PaymentChunkResult
		res, err = storage.UpdatePaymentStatuses(ctx, tx, storage.PaymentChunk{CompanyID: r.CompanyID(), JobID: r.Job.ID,
			From: c.From, To: c.To, AsOf: asOf, First: c.First, Last: c.Last})
		out.Updated, out.Visited, out.All = res.Updated, res.Visited, res.All
	case "events":
		out.Updated, err = storage.UpdateEventStatuses(ctx, tx, r.CompanyID(), c.From, c.To, asOf)
	default:
		err = fmt.Errorf("overdue chunk of unknown table %q", c.Table)
	}
	return out, err
}

// overdueResult adds up the chunks' counts.
func overdueResult(plan overduePlan, outputs []json.RawMessage) (OverdueResult, error) {
	res := OverdueResult{Date: plan.Date}
	if _, ok := plan.Spans["events"]; ok {
		res.Events = new(int64)
	}
	for i, raw := range outputs {
		var out overdueOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			return res, fmt.Errorf("read chunk %d: %w", i, err)
		}
		switch out.Table {
		case "invoices":
			res.Invoices += out.Updated
		case "contracts":
			res.Contracts += out.Updated
			res.ContractsVisited += out.Visited
		case "events":
			*res.Events += out.Updated
		}
	}
	return res, nil
}
