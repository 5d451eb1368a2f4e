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
// invoice status, contract payment_status and calendar event status; and
// it ends the terminations whose date is past (terminating to terminated).
const KindFinanceOverdue = "finance:overdue"

// How many ids of each table a chunk covers, one statement and one
// transaction, when the table is cut into ranges (a pass that looks for
// changes only is one chunk).
var overdueChunkIDs = map[string]int64{"invoices": 50_000, "contracts": 10_000, "events": 50_000}

// overduePlan is what a run covers: the payload's date and, per table, the
// ranges of ids of its chunks, in order, cut when the run began. It is
// recorded with the first chunk, so that a resumed run cuts the same
// chunks even when rows were added or removed meanwhile.
type overduePlan struct {
	Date   string                      `json:"date"`
	Ranges map[string][]storage.IDSpan `json:"ranges"`
}

// overdueChunk is one id range of one table. First and Last mark the
// run's first and last range of the table.
type overdueChunk struct {
	Table       string
	From, To    int64
	First, Last bool
}

// overdueOutput is what a chunk records: its table and range, how many
// rows it looked at and changed, whether it took every row of its range
// that can change or looked for changes only, and, for the first chunk,
// the plan.
type overdueOutput struct {
	Plan    *overduePlan `json:"plan,omitempty"`
	Table   string       `json:"table"`
	From    int64        `json:"from"`
	To      int64        `json:"to"`
	Visited int64        `json:"visited,omitempty"`
	All     bool         `json:"all,omitempty"`
	Updated int64        `json:"updated"`
	// PastDue counts, for a chunk of invoices, the partly paid ones that
	// fell due (their status kept, each sent its invoice.overdue).
	PastDue int64 `json:"past_due,omitempty"`
	// Terminated counts, for a chunk of contracts, those moved from
	// terminating to terminated.
	Terminated int64 `json:"terminated,omitempty"`
	// SlipsRemoved and SlipsReverted count, for a chunk of agreements,
	// the slips of the installments canceled that left their collection
	// batches: removed from a batch without a file, reverted in one whose
	// file is written.
	SlipsRemoved  int64 `json:"slips_removed,omitempty"`
	SlipsReverted int64 `json:"slips_reverted,omitempty"`
}

// OverdueResult is the result of a finance:overdue job: the date, how many
// rows of each table changed (CalendarEvents nil when the calendar events
// table has no status to recalculate; agreements: how many were broken,
// and how many of their installments' slips left a collection batch), how
// many invoices and contracts were looked at to find the ones that
// changed, how many partly paid invoices fell due, and how many
// terminating contracts became terminated.
type OverdueResult struct {
	Date            string `json:"date"`
	Invoices        int64  `json:"invoices"`
	InvoicesVisited int64  `json:"invoices_visited"`
	// InvoicesPastDue counts the partly paid invoices that fell due: their
	// status stays partially_paid (past_due true), and each was sent its
	// invoice.overdue; they are not among Invoices (not moved).
	InvoicesPastDue  int64 `json:"invoices_past_due"`
	Contracts        int64 `json:"contracts"`
	ContractsVisited int64 `json:"contracts_visited"`
	Terminated       int64 `json:"terminated"`
	// CalendarEvents counts the calendar events whose status changed
	// (results stored before it was named so hold it as "events").
	CalendarEvents *int64 `json:"calendar_events"`
	// AgreementsBroken counts the agreements broken for an installment
	// overdue past the company's agreement_break_days.
	AgreementsBroken int64 `json:"agreements_broken"`
	// AgreementSlipsRemoved and AgreementSlipsReverted count their
	// installments canceled that were in a collection batch: removed from
	// a batch without a file, reverted in one whose file is written (the
	// account's next file asks the bank to drop those).
	AgreementSlipsRemoved  int64 `json:"agreement_slips_removed"`
	AgreementSlipsReverted int64 `json:"agreement_slips_reverted"`
}

// OverdueKind declares finance:overdue: bring the company's invoice,
// contract and event statuses to what package finance's rules say on the
// payload's date, set-based, reading only the rows that can change, and
// break the agreements with an installment overdue past the company's
// agreement_break_days.
// Clients may start it for a date; the scheduler runs it just after
// midnight.
func OverdueKind() *Kind {
	return Define(KindFinanceOverdue, Options{Heavy: true, Queue: QueueCritical, Direct: true, Rerun: true},
		func(ctx context.Context, r *Run, p DatePayload) (any, error) {
			asOf, err := finance.ParseDate(p.Date)
			if err != nil {
				return nil, Permanent(fmt.Errorf("payload date: %w", err))
			}
			plan, err := overduePlanOf(ctx, r, asOf)
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
func overduePlanOf(ctx context.Context, r *Run, asOf finance.Date) (overduePlan, error) {
	done, err := r.ChunkOutputs(ctx)
	if err != nil {
		return overduePlan{}, err
	}
	if raw, ok := done[0]; ok {
		var out overdueOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			return overduePlan{}, fmt.Errorf("read the plan of job %d: %w", r.Job.ID, err)
		}
		if out.Plan == nil || out.Plan.Ranges == nil {
			return overduePlan{}, fmt.Errorf("job %d: its first chunk recorded no plan", r.Job.ID)
		}
		return *out.Plan, nil
	}
	return newOverduePlan(ctx, r.Pool(), r.CompanyID(), asOf)
}

// newOverduePlan reads what a plan is cut from, in one statement (the
// dates each pass's statuses hold for and the spans of the company's ids:
// storage.OverduePlanFacts), and cuts it (cutOverduePlan).
func newOverduePlan(ctx context.Context, q storage.DBTX, companyID int64, asOf finance.Date) (overduePlan, error) {
	windows, spans, err := storage.OverduePlanFacts(ctx, q, companyID)
	if err != nil {
		return overduePlan{}, err
	}
	return cutOverduePlan(asOf, windows, spans), nil
}

// cutOverduePlan cuts each table into chunks; the agreements, when the
// company has any, are one chunk. A pass whose stored
// statuses hold for dates near asOf (storage.OverdueWindow.Narrow) looks
// for changes only, and is one chunk over every id. Otherwise its table is
// cut into ranges of ids, overdueChunkIDs a range, the first starting at
// id 1 and the last without an upper end, so that the marks of any id are
// read. Events are always cut into ranges. A table without rows has no
// chunk.
func cutOverduePlan(asOf finance.Date, windows map[string]storage.OverdueWindow, spans map[string]storage.IDSpan) overduePlan {
	plan := overduePlan{Date: asOf.String(), Ranges: map[string][]storage.IDSpan{}}
	for _, pass := range []string{storage.PassInvoices, storage.PassContracts} {
		switch {
		case spans[pass].Empty():
		case windows[pass].Narrow(asOf):
			plan.Ranges[pass] = []storage.IDSpan{{Min: 1, Max: math.MaxInt64}}
		default:
			plan.Ranges[pass] = stretched(cut(spans[pass], overdueChunkIDs[pass]))
		}
	}
	plan.Ranges["events"] = cut(spans["events"], overdueChunkIDs["events"])
	if !spans["agreements"].Empty() { // the active ones are few: one chunk
		plan.Ranges["agreements"] = []storage.IDSpan{{Min: 1, Max: math.MaxInt64}}
	}
	return plan
}

// cut cuts span into ranges of width ids.
func cut(span storage.IDSpan, width int64) []storage.IDSpan {
	var out []storage.IDSpan
	if span.Empty() {
		return out
	}
	for from := span.Min; from <= span.Max; from += width {
		out = append(out, storage.IDSpan{Min: from, Max: min(from+width-1, span.Max)})
	}
	return out
}

// stretched returns ranges with the first starting at id 1 and the last
// without an upper end.
func stretched(ranges []storage.IDSpan) []storage.IDSpan {
	if len(ranges) > 0 {
		ranges[0].Min = 1
		ranges[len(ranges)-1].Max = math.MaxInt64
	}
	return ranges
}

// chunks are the plan's ranges as chunks, table after table.
func (p overduePlan) chunks() []overdueChunk {
	var out []overdueChunk
	for _, table := range storage.OverdueTables {
		ranges := p.Ranges[table]
		for i, r := range ranges {
			out = append(out, overdueChunk{Table: table, From: r.Min, To: r.Max, First: i == 0, Last: i == len(ranges)-1})
		}
	}
	return out
}

// runOverdueChunk does one chunk in tx.
func runOverdueChunk(ctx context.Context, tx pgx.Tx, r *Run, asOf finance.Date, c overdueChunk) (overdueOutput, error) {
	out := overdueOutput{Table: c.Table, From: c.From, To: c.To}
	chunk := storage.OverdueChunk{CompanyID: r.CompanyID(), JobID: r.Job.ID, From: c.From, To: c.To, AsOf: asOf, First: c.First, Last: c.Last}
	var res storage.OverdueChunkResult
	var err error
	switch c.Table {
	case "invoices":
		res, err = storage.UpdateInvoiceStatuses(ctx, tx, chunk)
	case "contracts":
		res, err = storage.UpdatePaymentStatuses(ctx, tx, chunk)
		if err == nil { // the terminations whose date is past (docs/jobs.md)
			out.Terminated, err = storage.EndTerminations(ctx, tx, r.CompanyID(), c.From, c.To, asOf)
		}
	case "events":
		res.Updated, err = storage.UpdateEventStatuses(ctx, tx, r.CompanyID(), c.From, c.To, asOf)
	case "agreements":
		var broken storage.BrokenAgreements
		broken, err = storage.BreakOverdueAgreements(ctx, tx, chunk)
		res.Updated, out.SlipsRemoved, out.SlipsReverted = broken.Broken, broken.SlipsRemoved, broken.SlipsReverted
	default:
		err = fmt.Errorf("overdue chunk of unknown table %q", c.Table)
	}
	out.Visited, out.Updated, out.All, out.PastDue = res.Visited, res.Updated, res.All, res.PastDue
	return out, err
}

// overdueResult adds up the chunks' counts.
func overdueResult(plan overduePlan, outputs []json.RawMessage) (OverdueResult, error) {
	res := OverdueResult{Date: plan.Date}
	if _, ok := plan.Ranges["events"]; ok {
		res.CalendarEvents = new(int64)
	}
	for i, raw := range outputs {
		var out overdueOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			return res, fmt.Errorf("read chunk %d: %w", i, err)
		}
		switch out.Table {
		case "invoices":
			res.Invoices += out.Updated
			res.InvoicesVisited += out.Visited
			res.InvoicesPastDue += out.PastDue
		case "contracts":
			res.Contracts += out.Updated
			res.ContractsVisited += out.Visited
			res.Terminated += out.Terminated
		case "events":
			*res.CalendarEvents += out.Updated
		case "agreements":
			res.AgreementsBroken += out.Updated
			res.AgreementSlipsRemoved += out.SlipsRemoved
			res.AgreementSlipsReverted += out.SlipsReverted
		}
	}
	return res, nil
}
