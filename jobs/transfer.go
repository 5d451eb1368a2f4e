package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// KindContractsTransfer pays the owners of contracts' invoices their share
// of the payments (repasse) due by the payload's date, and advances it
// under a guaranteed transfer when the tenant has not paid
// (docs/ledger.md, "Transfers to the owners").
const KindContractsTransfer = "contracts:transfer"

// transferPart is about how many invoices one chunk of a transfer run
// takes.
const transferPart = 500

// TransferKind declares contracts:transfer: once per company and date
// (a DatePayload), on the critical queue; clients may start it for a date
// and the scheduler runs it nightly. The company's invoices with work are
// split in parts by id (id modulo the number of parts), one chunk each,
// so that a run resumed after an interruption finds its parts as they
// were; each chunk is idempotent (storage.TransferOwners).
func TransferKind() *Kind {
	return Define(KindContractsTransfer, Options{Heavy: true, Queue: QueueCritical, Direct: true, Rerun: true},
		func(ctx context.Context, r *Run, p DatePayload) (any, error) {
			on, err := finance.ParseDate(p.Date)
			if err != nil {
				return nil, permanent(fmt.Errorf("contracts:transfer: date %q: %w", p.Date, err))
			}
			total := r.Job.Progress.Total // an interrupted run's size keeps its parts
			if total == 0 {
				if total, err = storage.CountTransferInvoices(ctx, r.Pool(), r.CompanyID(), on); err != nil {
					return nil, err
				}
			}
			parts := int(total/transferPart) + 1
			outs, err := r.Chunks(ctx, parts, total, func(ctx context.Context, tx pgx.Tx, i int) (any, int64, error) {
				s, err := storage.TransferOwners(ctx, tx, r.CompanyID(), r.Job.ID, on, parts, i)
				return s, s.Invoices, err
			})
			if err != nil {
				return nil, err
			}
			return transferResult(p.Date, outs)
		})
}

// TransferResult is the result of a contracts:transfer job: the date and
// the sums of its parts.
type TransferResult struct {
	Date string `json:"date"`
	storage.TransferSummary
}

// transferResult sums the chunks' summaries.
func transferResult(date string, outs []json.RawMessage) (TransferResult, error) {
	res := TransferResult{Date: date, TransferSummary: storage.TransferSummary{Skipped: []storage.TransferSkipped{}}}
	for i, raw := range outs {
		var s storage.TransferSummary
		if err := json.Unmarshal(raw, &s); err != nil {
			return res, fmt.Errorf("contracts:transfer: chunk %d output: %w", i, err)
		}
		res.TransferSummary = res.TransferSummary.Add(s)
	}
	return res, nil
}
