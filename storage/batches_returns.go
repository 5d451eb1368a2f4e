package storage

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The bank return files of the batches (docs/jobs.md, batch:return): the
// file as uploaded, stored once per content and account, and the record
// of each line read, which makes a line acted on once.

// ReturnFile is a bank return file as uploaded for a kind of batch.
type ReturnFile struct {
	Type      *BatchType
	CompanyID int64
	ID        int64
	SHA256    []byte
	Name      string
	AccountID int64 // the account the upload named; 0: none
	Content   []byte
}

// SaveReturnFile stores an uploaded return file once per content and
// account named: the same bytes uploaded again with the same account are
// the row stored first (existed), whatever the name given, and so are the
// same bytes uploaded naming no account (accountID 0), whatever account
// the first upload named (the first row of that content). accountID,
// when not 0, must be an account of the company (422 naming account_id).
func SaveReturnFile(ctx context.Context, q DBTX, bt *BatchType, companyID int64, name string, accountID int64, content []byte) (f *ReturnFile, existed bool, err error) {
	sum := sha256.Sum256(content)
	f = &ReturnFile{Type: bt, CompanyID: companyID, SHA256: sum[:], Name: name, AccountID: accountID, Content: content}
	var account *int64
	if accountID != 0 {
		account = &accountID
		var ok bool
		if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE company_id = $1 AND id = $2)`,
			companyID, accountID).Scan(&ok); err != nil {
			return nil, false, translate(err, "account of a return file")
		}
		if !ok {
			return nil, false, finance.InvalidInput([]finance.Problem{{Field: "account_id", Message: fmt.Sprintf("no accounts with id %d", accountID)}})
		}
	}
	if accountID == 0 {
		err = q.QueryRow(ctx, `SELECT id, coalesce(name, ''), coalesce(account_id, 0) FROM batch_return_files
			WHERE company_id = $1 AND batch_type = $2 AND sha256 = $3 ORDER BY id LIMIT 1`,
			companyID, bt.Name, f.SHA256).Scan(&f.ID, &f.Name, &f.AccountID)
		if err == nil {
			return f, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, false, translate(err, "save a return file")
		}
	}
	err = q.QueryRow(ctx, `INSERT INTO batch_return_files (company_id, batch_type, sha256, name, account_id, content)
		VALUES ($1, $2, $3, nullif($4, ''), $5, $6)
		ON CONFLICT (company_id, batch_type, sha256, (coalesce(account_id, 0))) DO NOTHING RETURNING id`,
		companyID, bt.Name, f.SHA256, name, account, content).Scan(&f.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		err = q.QueryRow(ctx, `SELECT id, coalesce(name, '') FROM batch_return_files
			WHERE company_id = $1 AND batch_type = $2 AND sha256 = $3 AND coalesce(account_id, 0) = $4`,
			companyID, bt.Name, f.SHA256, accountID).Scan(&f.ID, &f.Name)
		existed = true
	}
	if err != nil {
		return nil, false, translate(err, "save a return file")
	}
	return f, existed, nil
}

// ReadReturnFile reads a stored return file of the company.
func ReadReturnFile(ctx context.Context, q DBTX, bt *BatchType, companyID, id int64) (*ReturnFile, error) {
	f := &ReturnFile{Type: bt, CompanyID: companyID, ID: id}
	err := q.QueryRow(ctx, `SELECT sha256, coalesce(name, ''), coalesce(account_id, 0), content FROM batch_return_files
		WHERE company_id = $1 AND id = $2 AND batch_type = $3`, companyID, id, bt.Name).Scan(&f.SHA256, &f.Name, &f.AccountID, &f.Content)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, recordNotFound(id)
	}
	if err != nil {
		return nil, translate(err, fmt.Sprintf("return file %d", id))
	}
	return f, nil
}

// ReturnLine is what reading one line of a return file did: the line and
// what the bank said (code, occurrence class, its number for the title),
// the member it is about (an invoice, a ledger entry; 0: none matched),
// the outcome and a message for people, and for a payment the amounts
// paid and expected and their difference.
type ReturnLine struct {
	Line       int              `json:"line"`
	Code       string           `json:"code,omitempty"`
	Occurrence string           `json:"occurrence,omitempty"`
	OurNumber  string           `json:"our_number,omitempty"`
	MemberID   int64            `json:"-"`
	Outcome    string           `json:"outcome"`
	Message    string           `json:"message,omitempty"`
	Paid       *decimal.Decimal `json:"paid,omitempty"`
	Expected   *decimal.Decimal `json:"expected,omitempty"`
	Difference *decimal.Decimal `json:"difference,omitempty"`
	// Tariff is the bank's tariff on a settled title, when it has one,
	// or of a fee line (a tariff on a line of its own).
	Tariff *decimal.Decimal `json:"tariff,omitempty"`

	// DocumentNumber is the company's number of the title or payment as
	// the line gives it (seu número: a payment's reference).
	DocumentNumber string `json:"document_number,omitempty"`

	// Credited is what the bank credited for a paid title. The amounts
	// below it and the dates are what the line reports, given on a line
	// that did nothing with them (unmatched, ambiguous, not settled), so
	// that the money can be found; they are not stored with the line.
	Credited      *decimal.Decimal `json:"credited,omitempty"`
	Amount        *decimal.Decimal `json:"amount,omitempty"`
	Interest      *decimal.Decimal `json:"interest,omitempty"`
	Fine          *decimal.Decimal `json:"fine,omitempty"`
	Discount      *decimal.Decimal `json:"discount,omitempty"`
	Abatement     *decimal.Decimal `json:"abatement,omitempty"`
	IOF           *decimal.Decimal `json:"iof,omitempty"`
	OtherExpenses *decimal.Decimal `json:"other_expenses,omitempty"`
	OtherCredits  *decimal.Decimal `json:"other_credits,omitempty"`
	Date          string           `json:"date,omitempty"`
	CreditDate    string           `json:"credit_date,omitempty"`
}

// The outcomes of a return file's line that every kind shares.
const (
	// OutcomeDuplicate: the line was read before (the same file): nothing
	// was done again.
	OutcomeDuplicate = "duplicate"
	// OutcomeUnreadable: the line could not be read (its message says
	// why).
	OutcomeUnreadable = "unreadable"
	// OutcomeUnmatched: no title or payment of the company has the line's
	// number; nothing was done.
	OutcomeUnmatched = "unmatched"
	// OutcomeAmbiguous: several accounts of the bank have a title with the
	// line's number; nothing was done (upload it with account_id).
	OutcomeAmbiguous = "ambiguous"
	// OutcomeRecorded: an occurrence that changes nothing (an instruction
	// confirmed, a fee, a protest step): recorded only.
	OutcomeRecorded = "recorded"
)

// ReturnLinesRead lists which of lines of a return file have their record
// already (read before: by an earlier run, or another job of the same
// file): one index range read. The caller acts on the others and records
// them with RecordReturnLines in the same tx.
func ReturnLinesRead(ctx context.Context, tx pgx.Tx, f *ReturnFile, lines []int) (map[int]bool, error) {
	out := map[int]bool{}
	if len(lines) == 0 {
		return out, nil
	}
	rows, err := tx.Query(ctx, `SELECT line FROM batch_return_lines WHERE company_id = $1 AND file_id = $2
		AND line BETWEEN $3 AND $4`, f.CompanyID, f.ID, slices.Min(lines), slices.Max(lines))
	if err != nil {
		return nil, translate(err, fmt.Sprintf("lines read of return file %d", f.ID))
	}
	read, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, translate(err, fmt.Sprintf("lines read of return file %d", f.ID))
	}
	for _, l := range read {
		out[l] = true
	}
	return out, nil
}

// RecordReturnLines writes what reading lines of a return file did, one
// row per line with its outcome, in one COPY: each line is written once.
// The primary key (file, line) is what makes a line acted on once: a line
// another transaction recorded meanwhile (two runs of one file at once)
// fails the COPY with a Conflict, and the caller's transaction with it,
// so that nothing it did for its lines stays.
func RecordReturnLines(ctx context.Context, tx pgx.Tx, f *ReturnFile, jobID int64, lines []ReturnLine) error {
	if len(lines) == 0 {
		return nil
	}
	job := nullID(jobID)
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"batch_return_lines"},
		[]string{"company_id", "file_id", "line", "batch_type", "code", "occurrence", "our_number", "member_id",
			"outcome", "message", "paid", "expected", "difference", "job_id"},
		pgx.CopyFromSlice(len(lines), func(i int) ([]any, error) {
			l := &lines[i]
			return []any{f.CompanyID, f.ID, int32(l.Line), f.Type.Name, nullText(l.Code), nullText(l.Occurrence),
				nullText(l.OurNumber), nullID(l.MemberID), l.Outcome, nullText(l.Message), nullNumeric(l.Paid),
				nullNumeric(l.Expected), nullNumeric(l.Difference), job}, nil
		}))
	if err != nil {
		return translate(err, fmt.Sprintf("lines of return file %d", f.ID))
	}
	return nil
}
