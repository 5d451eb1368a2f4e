package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// KindFinanceOverdue recalculates a company's overdue statuses on a date:
// invoice status, contract payment_status and calendar event status.
const KindFinanceOverdue = "finance:overdue"

// How many ids of each table one chunk covers: a chunk is one statement
// and one transaction.
var overdueChunkIDs = map[string]int64{"invoices": 50_000, "contracts": 10_000, "events": 50_000}

// overduePlan is what a run covers: the payload's date and, per table, the
// span of the company's ids when the run began. It is recorded with the
// first chunk, so that a resumed run cuts the same chunks even when rows
// were added or removed meanwhile.
type overduePlan struct {
	Date  string                    `json:"date"`
	Spans map[string]storage.IDSpan `json:"spans"` // no events entry: the events table has no status yet
}

// overdueChunk is one id range of one table.
type overdueChunk struct {
	Table    string
	From, To int64
}

// overdueOutput is what a chunk records: its range, how many rows it
// changed, and, for the first chunk, the plan.
type overdueOutput struct {
	Plan    *overduePlan `json:"plan,omitempty"`
	Table   string       `json:"table"`
	From    int64        `json:"from"`
	To      int64        `json:"to"`
	Updated int64        `json:"updated"`
}

// OverdueResult is the result of a finance:overdue job: the date and how
// many rows of each table changed (Events nil when the events table has no
// status to recalculate).
type OverdueResult struct {
	Date      string `json:"date"`
	Invoices  int64  `json:"invoices"`
	Contracts int64  `json:"contracts"`
	Events    *int64 `json:"events"`
}

// OverdueKind declares finance:overdue: bring the company's invoice,
// contract and event statuses to what package finance's rules say on the
// payload's date, set-based, one id range per chunk. Clients may start it
// for a date; the scheduler runs it just after midnight.
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

// newOverduePlan reads the spans of the company's ids.
func newOverduePlan(ctx context.Context, r *Run, date string) (overduePlan, error) {
	plan := overduePlan{Date: date, Spans: map[string]storage.IDSpan{}}
	for _, table := range storage.OverdueTables {
		span, err := storage.CompanyIDSpan(ctx, r.Pool(), table, r.CompanyID())
		if err != nil {
			return overduePlan{}, err
		}
		plan.Spans[table] = span
	}
	return plan, nil
}

// chunks cuts each table's span into ranges of overdueChunkIDs ids, in
// the order of storage.OverdueTables.
func (p overduePlan) chunks() []overdueChunk {
	var out []overdueChunk
	for _, table := range storage.OverdueTables {
		span, ok := p.Spans[table]
		if !ok || span.Empty() {
			continue
		}
		width := overdueChunkIDs[table]
		for from := span.Min; from <= span.Max; from += width {
			out = append(out, overdueChunk{Table: table, From: from, To: min(from+width-1, span.Max)})
		}
	}
	return out
}

// runOverdueChunk brings one range of one table up to date in tx.
func runOverdueChunk(ctx context.Context, tx pgx.Tx, r *Run, asOf finance.Date, c overdueChunk) (overdueOutput, error) {
	out := overdueOutput{Table: c.Table, From: c.From, To: c.To}
	var err error
	switch c.Table {
	case "invoices":
		out.Updated, err = storage.UpdateInvoiceStatuses(ctx, tx, r.CompanyID(), r.Job.ID, c.From, c.To, asOf)
	case "contracts":
		out.Updated, err = storage.UpdatePaymentStatuses(ctx, tx, r.CompanyID(), c.From, c.To, asOf)
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
		case "events":
			*res.Events += out.Updated
		}
	}
	return res, nil
}
