package storage

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Batches (docs/api.md, "Batches"). A batch gathers what goes to a bank in
// one remittance file of one account: the invoices of a collection batch
// (ticket_batches.go), the payable ledger entries of a payment batch. What
// every kind of batch shares is here: the batch's row and its lock, the
// answer of adding, removing and reverting members, the remittance file
// with its sequence number (NSA), and the bank return files with a record
// of each line read. The bank formats are package jobs' (it may use
// package cnab); this file holds the rows.

// withValues plans a statement over arrays of ids or references with
// their values each time (an unnamed statement; its description cached).
// Every statement of a return file's chunk over its arrays takes it: a
// plan cached for any values does not know how long the arrays are, and
// chose, after a few chunks of a payment return, to scan the whole table
// and test each row against the 2,000 values of "= any($n)" one by one:
// seconds per statement instead of milliseconds.
const withValues = pgx.QueryExecModeCacheDescribe

// BatchType declares one kind of batch to the shared machinery.
type BatchType struct {
	// Name is the kind's name in job payloads and in the shared tables
	// (batch_files.batch_type): "ticket", "payment".
	Name string
	// Resource is the registry name of its batches, Table their table.
	Resource, Table string
	// Members is the body key of its member lists (addInvoices:
	// {"invoices": [...]}) and the last segment of its members' route.
	Members string
	// MemberResource is the resource its members are listed through, and
	// MemberFilter that resource's special filter keeping a batch's.
	MemberResource, MemberFilter string
	// SequenceColumn is the accounts column counting the kind's file
	// sequence numbers: the next one to use.
	SequenceColumn string
	// FilePrefix starts the name of its remittance files.
	FilePrefix string
	// MemberTable holds the batches' members, MemberColumn the id of the
	// record each is; Label names a batch and Noun a member in messages
	// ("collection batch", "invoice").
	MemberTable, MemberColumn, Label, Noun string
	// Frozen are the member record's columns its place in a batch depends
	// on: while the record is added or sent they cannot change
	// (FrozenInBatch).
	Frozen []string
	// AccountProblems says why an account with the terms given cannot
	// send the kind's remittances, by the account column to fix; none
	// when it can. The batch's create, the writes of an account and the
	// kind's own work (jobs) all ask it.
	AccountProblems func(AccountTerms) []Problem
	// RemoveAll takes every member out of an open batch, as its remove
	// operation does (the batch's delete).
	RemoveAll func(ctx context.Context, tx pgx.Tx, b *Batch, actor Actor) error
}

// TicketBatch is the collection batch (/financial/ticketBatch).
var TicketBatch = &BatchType{Name: "ticket", Resource: TicketBatches, Table: "ticket_batches",
	Members: "invoices", MemberResource: Invoices, MemberFilter: "ticketBatchIn",
	SequenceColumn: "next_file_sequence", FilePrefix: "cobranca",
	MemberTable: "ticket_batch_invoices", MemberColumn: "invoice_id", Label: "collection batch", Noun: "invoice",
	// the amount and due date its slip carries, the account and billing
	// method that made it a slip of that batch
	Frozen:          []string{"total", "due_date", "account_id", "billing_method"},
	AccountProblems: remittanceAccountProblems,
	RemoveAll: func(ctx context.Context, tx pgx.Tx, b *Batch, actor Actor) error {
		_, err := RemoveTicketInvoices(ctx, tx, b, actor, nil)
		return err
	}}

// BatchTypes are the kinds of batch, by name.
var BatchTypes = map[string]*BatchType{TicketBatch.Name: TicketBatch, PaymentBatch.Name: PaymentBatch}

// Batch is a batch's row as the shared machinery reads it.
type Batch struct {
	Type      *BatchType
	CompanyID int64
	ID        int64
	AccountID int64
	Open      bool // no file yet: members may be added and removed
	Titles    int64
	FileID    int64 // 0: none yet
}

// LockBatch reads a batch of the company and locks its row for the rest
// of tx (FOR UPDATE): member changes and the writing of its file are
// serialised on it. NotFound for another company's batch or none.
func LockBatch(ctx context.Context, tx pgx.Tx, bt *BatchType, companyID, id int64) (*Batch, error) {
	return readBatch(ctx, tx, bt, companyID, id, " FOR UPDATE")
}

// GetBatch reads a batch of the company without locking it.
func GetBatch(ctx context.Context, q DBTX, bt *BatchType, companyID, id int64) (*Batch, error) {
	return readBatch(ctx, q, bt, companyID, id, "")
}

func readBatch(ctx context.Context, q DBTX, bt *BatchType, companyID, id int64, suffix string) (*Batch, error) {
	b := &Batch{Type: bt, CompanyID: companyID, ID: id}
	var status string
	var fileID *int64
	err := q.QueryRow(ctx, `SELECT account_id, status, titles, file_id FROM `+ident(bt.Table)+`
		WHERE company_id = $1 AND id = $2`+suffix, companyID, id).Scan(&b.AccountID, &status, &b.Titles, &fileID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, recordNotFound(id)
	}
	if err != nil {
		return nil, translate(err, fmt.Sprintf("%s batch %d", bt.Name, id))
	}
	b.Open = status == "open"
	if fileID != nil {
		b.FileID = *fileID
	}
	return b, nil
}

// CountMembers moves a batch's count of titles and their total by n and
// amount (negative to take away).
func CountMembers(ctx context.Context, tx pgx.Tx, b *Batch, n int64, amount decimal.Decimal) error {
	_, err := tx.Exec(ctx, `UPDATE `+ident(b.Type.Table)+` SET titles = titles + $3, total = total + $4::numeric,
		updated_at = now() WHERE company_id = $1 AND id = $2`, b.CompanyID, b.ID, n, amount.String())
	if err != nil {
		return translate(err, fmt.Sprintf("count of %s batch %d", b.Type.Name, b.ID))
	}
	return nil
}

// MemberOp is a change of a batch's members: add, remove or revert.
type MemberOp string

// The member operations. Remove takes members out of a batch whose file
// is not written; revert takes them back after it.
const (
	OpAdd    MemberOp = "add"
	OpRemove MemberOp = "remove"
	OpRevert MemberOp = "revert"
)

// Past is the operation's past participle, the key of the ids it changed
// in its answer ("added").
func (op MemberOp) Past() string {
	switch op {
	case OpAdd:
		return "added"
	case OpRemove:
		return "removed"
	}
	return "reverted"
}

// CheckMemberOp refuses (409) an operation the batch's state does not
// allow: adding to or removing from a batch whose file is written,
// reverting in one whose file is not.
func CheckMemberOp(b *Batch, op MemberOp) error {
	switch {
	case op == OpRevert && b.Open:
		return Errorf(Conflict, "The batch's file is not written yet: take %s out with remove%s.", b.Type.Members, capitalized(b.Type.Members))
	case op != OpRevert && !b.Open:
		return Errorf(Conflict, "The batch's file is written: it is closed to changes; take %s back with revert%s.",
			b.Type.Members, capitalized(b.Type.Members))
	}
	return nil
}

// capitalized is s with its first letter in upper case (ASCII).
func capitalized(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// MemberAnswer is what a member operation did, id by id: the ids changed
// (each with what the kind says about it) and the ids refused, each with
// its reason. Ids appear in the order of the request within each list.
type MemberAnswer struct {
	Done    []map[string]any `json:"-"`
	Refused []Refusal        `json:"refused"`
}

// Refusal is an id a member operation did not change, and why.
type Refusal struct {
	ID     int64  `json:"id"`
	Reason string `json:"reason"`
}

// Refuse adds a refusal.
func (a *MemberAnswer) Refuse(id int64, format string, args ...any) {
	a.Refused = append(a.Refused, Refusal{ID: id, Reason: fmt.Sprintf(format, args...)})
}

// MaxMembersPerCall bounds the ids of one member operation.
const MaxMembersPerCall = 100_000

// BatchFile is a batch's remittance file as stored: its number, name and
// length, what it carries, and (read with its content) the bytes as
// stored, which WriteTo and Content give back as the bank takes them.
type BatchFile struct {
	ID        int64
	Sequence  int64
	Name      string
	Size      int64 // the file's length, in bytes
	Titles    int64
	Total     decimal.Decimal
	CreatedAt time.Time

	stored   []byte // batch_files.content
	encoding string // batch_files.content_encoding
}

// TakeFileSequence allocates the next file sequence number (NSA) of the
// batch's account for its kind: one UPDATE ... RETURNING, which holds the
// account's row lock until tx ends, so that two files of the account
// written at once get consecutive numbers, in the order they take it, and
// a number is never used twice (a file rolled back gives its number back
// with everything else).
func TakeFileSequence(ctx context.Context, tx pgx.Tx, b *Batch) (seq int64, bank string, err error) {
	col := ident(b.Type.SequenceColumn)
	var bankText *string
	err = tx.QueryRow(ctx, `UPDATE accounts SET `+col+` = `+col+` + 1, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+col+` - 1, bank`, b.CompanyID, b.AccountID).Scan(&seq, &bankText)
	if err != nil {
		return 0, "", translate(err, fmt.Sprintf("file sequence of account %d", b.AccountID))
	}
	if bankText != nil {
		bank = *bankText
	}
	return seq, bank, nil
}

// SaveBatchFile stores the remittance file of a locked batch, its content
// as written (compressed), and closes the batch (status closed, its
// file's number and name). The file's name is the kind's prefix, the
// bank, the account and the NSA (cobranca-341-7-000012.REM).
func SaveBatchFile(ctx context.Context, tx pgx.Tx, b *Batch, jobID int64, bank string, f *BatchFile, content *FileContent) error {
	what := fmt.Sprintf("file of %s batch %d", b.Type.Name, b.ID)
	f.Name = fmt.Sprintf("%s-%s-%d-%06d.REM", b.Type.FilePrefix, bank, b.AccountID, f.Sequence)
	stored, err := content.gzipped()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	f.Size = content.Size()
	err = tx.QueryRow(ctx, `INSERT INTO batch_files (company_id, batch_type, batch_id, account_id, sequence, name,
		content, content_encoding, size, titles, total, job_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 'gzip', $8, $9, $10::numeric, $11)
		RETURNING id, created_at`, b.CompanyID, b.Type.Name, b.ID, b.AccountID, f.Sequence, f.Name,
		stored, f.Size, f.Titles, f.Total.String(), nullID(jobID)).Scan(&f.ID, &f.CreatedAt)
	if err != nil {
		return translate(err, what)
	}
	_, err = tx.Exec(ctx, `UPDATE `+ident(b.Type.Table)+` SET status = 'closed', file_id = $3, file_sequence = $4,
		file_name = $5, closed_at = $6, updated_at = now() WHERE company_id = $1 AND id = $2`,
		b.CompanyID, b.ID, f.ID, f.Sequence, f.Name, f.CreatedAt)
	if err != nil {
		return translate(err, what+": close the batch")
	}
	b.Open, b.FileID = false, f.ID
	return nil
}

// ReadBatchFile reads a stored remittance file of the company, with its
// content when withContent.
func ReadBatchFile(ctx context.Context, q DBTX, companyID, fileID int64, withContent bool) (*BatchFile, error) {
	f := &BatchFile{ID: fileID}
	content := "NULL::bytea"
	if withContent {
		content = "content"
	}
	var total string
	err := q.QueryRow(ctx, `SELECT sequence, name, size, `+content+`, content_encoding, titles, total::text, created_at
		FROM batch_files WHERE company_id = $1 AND id = $2`, companyID, fileID).Scan(&f.Sequence, &f.Name, &f.Size,
		&f.stored, &f.encoding, &f.Titles, &total, &f.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, recordNotFound(fileID)
	}
	if err != nil {
		return nil, translate(err, fmt.Sprintf("batch file %d", fileID))
	}
	if f.Total, err = decimal.NewFromString(total); err != nil {
		return nil, fmt.Errorf("batch file %d: total: %w", fileID, err)
	}
	return f, nil
}

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
// account named: the same bytes uploaded again with the same account (or
// none) are the row stored first (existed), whatever the name given.
// accountID, when not 0, must be an account of the company (422 naming
// account_id).
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
			return nil, false, InvalidInput([]Problem{{Field: "account_id", Message: fmt.Sprintf("no accounts with id %d", accountID)}})
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
	// Tariff is the bank's tariff on a settled title, when it has one.
	Tariff *decimal.Decimal `json:"tariff,omitempty"`

	// DocumentNumber is the company's number of the title or payment as
	// the line gives it (seu número: a payment's reference).
	DocumentNumber string `json:"document_number,omitempty"`
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
