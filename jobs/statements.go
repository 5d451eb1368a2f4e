package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// KindOwnersStatements closes a month of the owners' statements
// (prestação de contas): docs/ledger.md, "Owner statements".
const KindOwnersStatements = "owners:statements"

// MonthPayload is the payload of the work done once per company and month
// (owners:statements): the month, YYYY-MM, also the job's unique key.
type MonthPayload struct {
	Month string `json:"month"`
}

// Check implements Checker: a month from 2000-01, not after the current
// one (in UTC; whether it is over in the company's time zone is the run's
// to say).
func (p MonthPayload) Check() []finance.Problem {
	if p.Month == "" {
		return []finance.Problem{{Field: "payload.month", Message: "is required: the month to close, YYYY-MM"}}
	}
	m, err := finance.ParseMonth(p.Month)
	if err != nil || len(p.Month) != 7 || m.Year() < 2000 {
		return []finance.Problem{{Field: "payload.month", Message: "must be a month, YYYY-MM, from 2000-01"}}
	}
	now := time.Now().UTC()
	if m > finance.NewMonth(now.Year(), now.Month()) {
		return []finance.Problem{{Field: "payload.month", Message: "must not be after the current month"}}
	}
	return nil
}

// CheckCompany implements CompanyChecker: the month must be over in the
// company's time zone and not before its first closed month (whose
// opening balances hold what came before), as the run requires.
func (p MonthPayload) CheckCompany(ctx context.Context, q storage.DBTX, companyID int64) error {
	m, err := finance.ParseMonth(p.Month)
	if err != nil {
		return fmt.Errorf("owner statements payload: %w", err) // Check refused it first
	}
	_, err = storage.StatementMonths(ctx, q, companyID, m)
	var e *finance.Error
	if errors.As(err, &e) && e.Code == finance.Invalid && len(e.Problems) == 0 {
		return finance.InvalidInput([]finance.Problem{{Field: "payload.month", Message: e.Message}})
	}
	return err
}

// UniqueKey implements Keyed: one run per company and month.
func (p MonthPayload) UniqueKey() string { return p.Month }

// monthBefore is the payload of a schedule firing on date: the month
// before the date's.
func monthBefore(date string) any {
	d, err := finance.ParseDate(date)
	if err != nil {
		return MonthPayload{Month: date} // refused by the kind's check
	}
	return MonthPayload{Month: finance.MonthOf(d).Add(-1).String()}
}

// StatementsKind declares owners:statements: once per company and month,
// on the critical queue; clients may start it for a month, and the
// scheduler runs it on the 1st for the month before. A run closes, in
// order, every month after the company's last closed one up to the
// payload's (a month the scheduler missed is closed with the next), one
// chunk and one transaction each (storage.CloseOwnerStatements); a month
// closed already is not written again, so a run again writes nothing.
func StatementsKind() *Kind {
	return Define(KindOwnersStatements, Options{Heavy: true, Queue: QueueCritical, Direct: true, Rerun: true},
		func(ctx context.Context, r *Run, p MonthPayload) (any, error) {
			m, err := finance.ParseMonth(p.Month)
			if err != nil {
				return nil, Permanent(fmt.Errorf("owners:statements: %w", err))
			}
			months, err := statementMonthsOf(ctx, r, m)
			if err != nil {
				return nil, err
			}
			if len(months) == 0 { // closed already: what is there is reported
				return closedAlready(ctx, r, m)
			}
			outs, err := r.Chunks(ctx, len(months), int64(len(months)), func(ctx context.Context, tx pgx.Tx, i int) (any, int64, error) {
				s, err := storage.CloseOwnerStatements(ctx, tx, r.CompanyID(), r.Job.ID, months[i])
				if finance.ErrorCode(err) == finance.Invalid {
					err = Permanent(err)
				}
				out := statementsOutput{StatementSummary: s}
				if i == 0 {
					out.From = months[0].String()
				}
				return out, 1, err
			})
			if err != nil {
				return nil, err
			}
			return statementsResult(p.Month, outs)
		})
}

// statementsOutput is a chunk's output: the month's summary, and with the
// first chunk the first month of the run (its plan).
type statementsOutput struct {
	storage.StatementSummary
	From string `json:"from,omitempty"`
}

// statementMonthsOf is the run's months: from the first month a resumed
// run recorded with its first chunk, else as storage.StatementMonths says.
func statementMonthsOf(ctx context.Context, r *Run, m finance.Month) ([]finance.Month, error) {
	done, err := r.ChunkOutputs(ctx)
	if err != nil {
		return nil, err
	}
	if raw, ok := done[0]; ok {
		var out statementsOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("owners:statements: the plan of job %d: %w", r.Job.ID, err)
		}
		from, err := finance.ParseMonth(out.From)
		if err != nil {
			return nil, fmt.Errorf("owners:statements: the plan of job %d: %w", r.Job.ID, err)
		}
		var months []finance.Month
		for next := from; next <= m; next = next.Add(1) {
			months = append(months, next)
		}
		return months, nil
	}
	months, err := storage.StatementMonths(ctx, r.Pool(), r.CompanyID(), m)
	if finance.ErrorCode(err) == finance.Invalid {
		return nil, Permanent(err)
	}
	return months, err
}

// closedAlready is the result of a run for a month closed before: nothing
// written, its statements skipped.
func closedAlready(ctx context.Context, r *Run, m finance.Month) (any, error) {
	var s storage.StatementSummary
	err := pgx.BeginFunc(ctx, r.Pool(), func(tx pgx.Tx) (err error) {
		s, err = storage.CloseOwnerStatements(ctx, tx, r.CompanyID(), r.Job.ID, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	return StatementsResult{Month: m.String(), Months: []string{}, StatementSummary: s}, nil
}

// StatementsResult is the result of an owners:statements job: the month
// asked for, the months the run closed (those before it the company had
// not closed, then it; none when it was closed already), and the sums of
// their summaries.
type StatementsResult struct {
	Month  string   `json:"month"`
	Months []string `json:"months"`
	storage.StatementSummary
}

// statementsResult sums the chunks' summaries.
func statementsResult(month string, outs []json.RawMessage) (StatementsResult, error) {
	res := StatementsResult{Month: month, Months: []string{}}
	for i, raw := range outs {
		var out statementsOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			return res, fmt.Errorf("owners:statements: chunk %d output: %w", i, err)
		}
		res.StatementSummary = res.StatementSummary.Add(out.StatementSummary)
		res.Months = append(res.Months, out.Month)
	}
	res.StatementSummary.Month = month
	return res, nil
}
