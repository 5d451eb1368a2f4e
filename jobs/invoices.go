package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// KindInvoicesGenerate generates contracts' invoices: one contract's up to
// a date (POST /financial/contracts/{id}/invoicesCreate), or, nightly,
// those of every active contract of a company due within its lead time.
const KindInvoicesGenerate = "invoices:generate"

// generateChunk is how many contracts one chunk of the nightly run bills.
const generateChunk = 1_000

// maxRefusedListed bounds the refused contracts a nightly result lists
// (their count is always exact).
const maxRefusedListed = 1_000

// GeneratePayload is the payload of invoices:generate: either a date (the
// nightly run of the company for that date, its unique key) or a
// contract and the last due date to bill it up to.
type GeneratePayload struct {
	Date       string `json:"date,omitempty"`
	ContractID int64  `json:"contract_id,omitempty"`
	Until      string `json:"until,omitempty"`
}

// NewContractGeneration is the submission of one contract's generation.
func NewContractGeneration(contractID int64, until finance.Date) (Submission, error) {
	raw, err := json.Marshal(GeneratePayload{ContractID: contractID, Until: until.String()})
	if err != nil {
		return Submission{}, fmt.Errorf("encode invoices:generate payload: %w", err)
	}
	return Submission{Kind: KindInvoicesGenerate, Payload: raw}, nil
}

// Check implements Checker: a date (DatePayload's rules), or a contract
// with an until date from 2000-01-01; not both.
func (p GeneratePayload) Check() []finance.Problem {
	switch {
	case p.ContractID == 0 && p.Until == "":
		return DatePayload{Date: p.Date}.Check()
	case p.Date != "":
		return []finance.Problem{{Field: "payload.date", Message: "is the nightly run's; a contract's generation gives contract_id and until"}}
	case p.ContractID <= 0:
		return []finance.Problem{{Field: "payload.contract_id", Message: "must be a contract id"}}
	}
	if d, err := finance.ParseDate(p.Until); err != nil || d.Year() < 2000 {
		return []finance.Problem{{Field: "payload.until", Message: "must be a date, YYYY-MM-DD, from 2000-01-01"}}
	}
	return nil
}

// CheckCompany implements CompanyChecker: the nightly run's date is not
// after tomorrow in the company's time zone (DatePayload's rule); a
// contract's until date is not bounded.
func (p GeneratePayload) CheckCompany(ctx context.Context, q storage.DBTX, companyID int64) error {
	if p.ContractID != 0 || p.Date == "" {
		return nil
	}
	return DatePayload{Date: p.Date}.CheckCompany(ctx, q, companyID)
}

// UniqueKey implements Keyed: the nightly run once per company and date.
// A contract's generation has no key: a repeat inserts nothing twice (the
// slot index), and fills a slot whose invoice was deleted since.
func (p GeneratePayload) UniqueKey() string { return p.Date }

// InvoicesGenerateKind declares invoices:generate. A nightly run may be
// run again (it inserts only the invoices missing); a contract's
// generation names a contract of the company.
func InvoicesGenerateKind() *Kind {
	return Define(KindInvoicesGenerate, Options{Heavy: true, Queue: QueueCritical, Direct: true, Rerun: true,
		References: map[string]string{"contract_id": storage.Contracts}}, runGenerate)
}

func runGenerate(ctx context.Context, r *Run, p GeneratePayload) (any, error) {
	if p.ContractID != 0 {
		return generateContract(ctx, r, p)
	}
	return generateNightly(ctx, r, p)
}

// ContractGeneration is the result of one contract's generation.
type ContractGeneration struct {
	ContractID int64   `json:"contract_id"`
	Until      string  `json:"until"`
	Created    int     `json:"created"`
	InvoiceIDs []int64 `json:"invoice_ids"`
}

// generateContract bills one contract in one chunk. A contract that is
// gone or cannot be billed fails the job at once (nothing to retry).
func generateContract(ctx context.Context, r *Run, p GeneratePayload) (any, error) {
	until, _ := finance.ParseDate(p.Until) // checked with the payload
	outputs, err := r.Chunks(ctx, 1, 1, func(ctx context.Context, tx pgx.Tx, _ int) (any, int64, error) {
		gen, err := storage.GenerateInvoices(ctx, tx, r.CompanyID(), []int64{p.ContractID}, until,
			storage.GenerateOptions{Actor: jobActor(r)})
		if err != nil {
			return nil, 0, err
		}
		if err := gen.ContractError(p.ContractID); err != nil {
			return nil, 0, Permanent(err)
		}
		ids := gen.Created
		if ids == nil {
			ids = []int64{}
		}
		return ContractGeneration{ContractID: p.ContractID, Until: p.Until, Created: len(ids), InvoiceIDs: ids}, 1, nil
	})
	if err != nil {
		return nil, err
	}
	return outputs[0], nil
}

func jobActor(r *Run) storage.Actor { return storage.Actor{Kind: storage.ActorJob, ID: r.Job.ID} }

// generateWorkers is how many chunks of a nightly run are in flight at
// once: the chunks bill disjoint contracts, so two transactions write at
// the same time and the run uses two of the database's CPUs, and one
// chunk's reads and schedule overlap the other's write.
const generateWorkers = MaxChunksAtOnce

// nightlyChunk is what one chunk of the nightly run records: the last
// contract id it covered, its counts, and, for the first chunk, the
// run's plan (Lasts: the last contract id of every chunk but the last,
// which takes every contract above the one before it), which a resumed
// run reads back so that each chunk covers the contracts it covered
// first. A chunk recorded without a plan is of a run begun before runs
// had one: it resumes one chunk after the other, after its last chunk.
type nightlyChunk struct {
	LastID    int64                     `json:"last_id"`
	Contracts int                       `json:"contracts"`
	Created   int                       `json:"created"`
	Skipped   int                       `json:"skipped"`
	Refused   []storage.RefusedContract `json:"refused"`
	Lasts     []int64                   `json:"lasts,omitempty"`
}

// NightlyGeneration is the result of a nightly run.
type NightlyGeneration struct {
	Date      string                    `json:"date"`
	Until     string                    `json:"until"`
	Contracts int                       `json:"contracts"`
	Created   int                       `json:"created"`
	Skipped   int                       `json:"skipped"`
	Refused   int                       `json:"refused"`
	Problems  []storage.RefusedContract `json:"problems"`
}

// generateNightly bills the company's active contracts a thousand at a
// time, each chunk in its transaction with its record, two chunks at a
// time. The chunks are keyed by contract id: the first records the plan
// of every chunk's contracts (nightlyChunk.Lasts), a resumed run reads it
// and does the chunks not recorded, so a run killed anywhere leaves no
// gap, and the slot index leaves no duplicate.
func generateNightly(ctx context.Context, r *Run, p GeneratePayload) (any, error) {
	date, _ := finance.ParseDate(p.Date) // checked with the payload
	_, lead, err := storage.InvoiceLead(ctx, r.Pool(), r.CompanyID())
	if err != nil {
		return nil, err
	}
	until := date.AddDays(lead)
	first, resumed, err := firstChunk(ctx, r)
	if err != nil {
		return nil, err
	}
	if resumed && first.Lasts == nil {
		return generateInOrder(ctx, r, p, until)
	}
	ids, err := storage.BillableContractIDs(ctx, r.Pool(), r.CompanyID(), 0)
	if err != nil {
		return nil, err
	}
	lasts := first.Lasts
	if !resumed {
		lasts = chunkLasts(ids, generateChunk)
	}
	var parts [][]int64
	if resumed || len(ids) > 0 { // a run of no contract has no chunk
		parts = splitAfter(ids, lasts)
	}
	var refreshed atomic.Bool
	outputs, err := r.ChunksAtOnce(ctx, len(parts), generateWorkers, int64(len(ids)), func(ctx context.Context, tx pgx.Tx, i int) (any, int64, error) {
		out, err := generateChunkOf(ctx, tx, r, parts[i], until, !refreshed.Swap(true))
		if i == 0 {
			out.Lasts = lasts
		}
		return out, int64(len(parts[i])), err
	})
	if err != nil {
		return nil, err
	}
	return joinNightly(p.Date, until, outputs)
}

// generateChunkOf bills one chunk's contracts in tx. The run's first
// chunk refreshes the statistics of invoices when they were taken on an
// empty table (plans made on it would stay).
func generateChunkOf(ctx context.Context, tx pgx.Tx, r *Run, part []int64, until finance.Date, first bool) (nightlyChunk, error) {
	if len(part) == 0 {
		return nightlyChunk{Refused: []storage.RefusedContract{}}, nil
	}
	gen, err := storage.GenerateInvoices(ctx, tx, r.CompanyID(), part, until, storage.GenerateOptions{Actor: jobActor(r)})
	if err != nil {
		return nightlyChunk{}, err
	}
	if first {
		if err := storage.RefreshInvoiceStats(ctx, tx, len(gen.Created)); err != nil {
			return nightlyChunk{}, err
		}
	}
	return nightlyChunk{LastID: part[len(part)-1], Contracts: gen.Contracts, Created: len(gen.Created),
		Skipped: len(gen.Skipped), Refused: gen.Refused}, nil
}

// chunkLasts is the plan of a run over ids (ascending): the last id of
// every chunk of size but the last.
func chunkLasts(ids []int64, size int) []int64 {
	lasts := []int64{}
	for end := size; end < len(ids); end += size {
		lasts = append(lasts, ids[end-1])
	}
	return lasts
}

// splitAfter splits ids (ascending) by a plan: chunk i holds the ids above
// lasts[i-1] up to lasts[i], the last chunk every id above the plan's
// last.
func splitAfter(ids, lasts []int64) [][]int64 {
	parts := make([][]int64, 0, len(lasts)+1)
	rest := ids
	for _, last := range lasts {
		n, _ := slices.BinarySearch(rest, last+1)
		parts = append(parts, rest[:n])
		rest = rest[n:]
	}
	return append(parts, rest)
}

// firstChunk reads the run's recorded first chunk, if an earlier run
// of the job recorded one.
func firstChunk(ctx context.Context, r *Run) (nightlyChunk, bool, error) {
	outputs, err := r.ChunkOutputs(ctx)
	if err != nil || len(outputs) == 0 {
		return nightlyChunk{}, false, err
	}
	raw, ok := outputs[0]
	if !ok {
		return nightlyChunk{}, true, nil
	}
	var c nightlyChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return nightlyChunk{}, false, fmt.Errorf("chunk 0 output: %w", err)
	}
	return c, true, nil
}

// generateInOrder resumes a run recorded without a plan: its chunks were
// done in order, so it goes on after the last recorded chunk's last
// contract, one chunk after the other.
func generateInOrder(ctx context.Context, r *Run, p GeneratePayload, until finance.Date) (any, error) {
	done, after, err := recordedChunks(ctx, r)
	if err != nil {
		return nil, err
	}
	ids, err := storage.BillableContractIDs(ctx, r.Pool(), r.CompanyID(), after)
	if err != nil {
		return nil, err
	}
	n := done + (len(ids)+generateChunk-1)/generateChunk
	total := r.Job.Progress.Done + int64(len(ids))
	outputs, err := r.Chunks(ctx, n, total, func(ctx context.Context, tx pgx.Tx, i int) (any, int64, error) {
		from := (i - done) * generateChunk
		part := ids[from:min(from+generateChunk, len(ids))]
		out, err := generateChunkOf(ctx, tx, r, part, until, i == done)
		return out, int64(len(part)), err
	})
	if err != nil {
		return nil, err
	}
	return joinNightly(p.Date, until, outputs)
}

// recordedChunks reads the chunks earlier runs of the job recorded: how
// many (they are done in order, so they are chunks 0 to done-1) and the
// last contract id they covered.
func recordedChunks(ctx context.Context, r *Run) (done int, after int64, err error) {
	outputs, err := r.ChunkOutputs(ctx)
	if err != nil || len(outputs) == 0 {
		return 0, 0, err
	}
	for i := range outputs {
		done = max(done, i+1)
	}
	var last nightlyChunk
	if err := json.Unmarshal(outputs[done-1], &last); err != nil {
		return 0, 0, fmt.Errorf("chunk %d output: %w", done-1, err)
	}
	return done, last.LastID, nil
}

func joinNightly(date string, until finance.Date, outputs []json.RawMessage) (NightlyGeneration, error) {
	res := NightlyGeneration{Date: date, Until: until.String(), Problems: []storage.RefusedContract{}}
	for i, raw := range outputs {
		var c nightlyChunk
		if err := json.Unmarshal(raw, &c); err != nil {
			return res, fmt.Errorf("chunk %d output: %w", i, err)
		}
		res.Contracts += c.Contracts
		res.Created += c.Created
		res.Skipped += c.Skipped
		res.Refused += len(c.Refused)
		for _, rc := range c.Refused {
			if len(res.Problems) < maxRefusedListed {
				res.Problems = append(res.Problems, rc)
			}
		}
	}
	return res, nil
}

// DefaultUntil is the until of a contract's generation asked on now: the
// company's today plus its lead time.
func DefaultUntil(now time.Time, zone string, leadDays int) finance.Date {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc, _ = time.LoadLocation(DefaultTimeZone)
	}
	if loc == nil {
		loc = time.UTC
	}
	return finance.DateOf(now.In(loc)).AddDays(leadDays)
}
