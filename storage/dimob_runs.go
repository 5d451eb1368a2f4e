package storage

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The runs of the DIMOB (docs/dimob.md, "The API and the job"): one row
// per POST /financial/dimob that starts a dimob:file job, recorded with the
// job, finished by it with the check's problems and, when nothing blocked,
// the file. Read through the dimob_runs resource (GET /financial/dimob).

// DimobRuns is the resource of the DIMOB runs.
const DimobRuns = "dimob_runs"

// The states of a run.
const (
	DimobPending = "pending" // its job has not finished
	DimobWritten = "written" // the file is stored
	DimobBlocked = "blocked" // the check found blocking problems: no file
)

// DimobRunStatuses are the values of dimob_runs.status.
var DimobRunStatuses = []string{DimobPending, DimobWritten, DimobBlocked}

func dimobRunsResource() *Resource {
	return &Resource{
		Name: DimobRuns, Table: "dimob_runs", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "business_id", Type: Int, Filterable: true, References: Businesses},
			{Name: "year", Type: Int, Filterable: true},
			{Name: "amended", Type: Bool, Filterable: true},
			{Name: "receipt_number", Type: String, Filterable: true},
			{Name: "status", Type: String, Filterable: true, Enum: DimobRunStatuses},
			{Name: "problems", Type: JSON},
			{Name: "warnings", Type: JSON},
			{Name: "rentals", Type: Int, Filterable: true},
			{Name: "sales", Type: Int, Filterable: true},
			{Name: "file_name", Type: String, Filterable: true},
			{Name: "file_size", Type: Int, Filterable: true},
			{Name: "job_id", Type: Int, Filterable: true, References: Jobs},
			{Name: "created_at", Type: DateTime, Filterable: true},
			{Name: "finished_at", Type: DateTime, Filterable: true},
		},
		Relations: []Relation{
			{Name: "business", Kind: BelongsTo, Resource: Businesses, Key: "business_id"},
			{Name: "job", Kind: BelongsTo, Resource: Jobs, Key: "job_id"},
		},
	}
}

// NewDimobRun is what a run is asked for.
type NewDimobRun struct {
	BusinessID    int64
	Year          int
	Amended       bool
	ReceiptNumber string // "" for none
	JobID         int64
}

// InsertDimobRun records a run, pending, in q (the transaction that
// records its job); its id.
func InsertDimobRun(ctx context.Context, q DBTX, companyID int64, n NewDimobRun) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO dimob_runs (company_id, business_id, year, amended, receipt_number, job_id)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		companyID, n.BusinessID, n.Year, n.Amended, nullText(n.ReceiptNumber), nullID(n.JobID)).Scan(&id)
	if err != nil {
		return 0, translate(err, "dimob run")
	}
	return id, nil
}

// DimobRun is a run as its job reads it.
type DimobRun struct {
	ID            int64
	BusinessID    int64
	Year          int
	Amended       bool
	ReceiptNumber string
	Status        string
	Problems      json.RawMessage
	Warnings      json.RawMessage
	Rentals       int
	Sales         int
	FileName      string
	FileSize      int64
}

// LockDimobRunOfJob reads and locks (FOR UPDATE) the run job jobID was
// recorded with; NotFound when there is none.
func LockDimobRunOfJob(ctx context.Context, tx pgx.Tx, companyID, jobID int64) (*DimobRun, error) {
	r := &DimobRun{}
	err := tx.QueryRow(ctx, `SELECT id, business_id, year, amended, coalesce(receipt_number, ''), status, problems, warnings,
			coalesce(rentals, 0), coalesce(sales, 0), coalesce(file_name, ''), coalesce(file_size, 0)
		FROM dimob_runs WHERE company_id = $1 AND job_id = $2 FOR UPDATE`, companyID, jobID).
		Scan(&r.ID, &r.BusinessID, &r.Year, &r.Amended, &r.ReceiptNumber, &r.Status, &r.Problems, &r.Warnings,
			&r.Rentals, &r.Sales, &r.FileName, &r.FileSize)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("the dimob run of job %d", jobID))
	}
	return r, nil
}

// DimobOutcome is how a run ends: written with its file (Content), or
// blocked without one.
type DimobOutcome struct {
	Status   string // DimobWritten or DimobBlocked
	Problems any    // JSON: the blocking problems
	Warnings any    // JSON: the warnings
	Rentals  int
	Sales    int
	FileName string
	Content  *FileContent // nil when blocked
}

// FinishDimobRun writes a pending run's outcome, in the job's transaction;
// a run already finished is a Conflict (its job ran twice).
func FinishDimobRun(ctx context.Context, tx pgx.Tx, companyID, id int64, o DimobOutcome) error {
	problems, err := json.Marshal(o.Problems)
	if err != nil {
		return fmt.Errorf("dimob run %d: problems: %w", id, err)
	}
	warnings, err := json.Marshal(o.Warnings)
	if err != nil {
		return fmt.Errorf("dimob run %d: warnings: %w", id, err)
	}
	var content []byte
	var size *int64
	var encoding, name *string
	if o.Content != nil {
		if content, err = o.Content.gzipped(); err != nil {
			return fmt.Errorf("dimob run %d: file: %w", id, err)
		}
		n, gz := o.Content.Size(), encodingGzip
		size, encoding, name = &n, &gz, &o.FileName
	}
	tag, err := tx.Exec(ctx, `UPDATE dimob_runs SET status = $3, problems = $4, warnings = $5, rentals = $6, sales = $7,
			file_name = $8, file_size = $9, content = $10, content_encoding = $11, finished_at = now()
		WHERE company_id = $1 AND id = $2 AND status = 'pending'`,
		companyID, id, o.Status, problems, warnings, o.Rentals, o.Sales, name, size, content, encoding)
	if err != nil {
		return translate(err, fmt.Sprintf("dimob run %d", id))
	}
	if tag.RowsAffected() != 1 {
		return finance.Errorf(finance.Conflict, "The DIMOB run %d is finished already.", id)
	}
	return nil
}

// DimobFile is the file a run wrote.
type DimobFile struct {
	RunID    int64
	Name     string
	Size     int64
	stored   []byte
	encoding string
}

// ReadDimobFile reads the file of run id: NotFound for a run the company
// does not have, Conflict for a run without a file (pending, or blocked:
// the message says which).
func ReadDimobFile(ctx context.Context, q DBTX, companyID, id int64) (*DimobFile, error) {
	f := &DimobFile{RunID: id}
	var status string
	var problems int
	err := q.QueryRow(ctx, `SELECT status, jsonb_array_length(problems), coalesce(file_name, ''), coalesce(file_size, 0),
			coalesce(content, ''::bytea), coalesce(content_encoding, '')
		FROM dimob_runs WHERE company_id = $1 AND id = $2`, companyID, id).
		Scan(&status, &problems, &f.Name, &f.Size, &f.stored, &f.encoding)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("dimob run %d", id))
	}
	switch status {
	case DimobPending:
		return nil, finance.Errorf(finance.Conflict, "The DIMOB run %d has not finished: its file is not written yet.", id)
	case DimobBlocked:
		return nil, finance.Errorf(finance.Conflict, "The DIMOB run %d wrote no file: %d blocking problems (see its problems).", id, problems)
	}
	return f, nil
}

// WriteTo writes the file's bytes, as the Receita's program imports them.
// A stored file that does not read back whole is an error, found at its
// end.
func (f *DimobFile) WriteTo(w io.Writer) (int64, error) {
	if f.encoding == encodingIdentity {
		n, err := w.Write(f.stored)
		return int64(n), err
	}
	zr, err := gzip.NewReader(bytes.NewReader(f.stored))
	if err != nil {
		return 0, fmt.Errorf("dimob run %d: %w", f.RunID, err)
	}
	n, err := io.Copy(w, zr)
	if err == nil && n != f.Size {
		err = fmt.Errorf("dimob run %d: %d bytes read back, %d stored", f.RunID, n, f.Size)
	}
	return n, err
}
