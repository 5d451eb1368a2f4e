package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The DIMOB of a business and a calendar year (docs/dimob.md): the check
// that POST /financial/dimob answers with "preview", and the dimob:file
// job that runs it again and writes the file when nothing blocks.

// KindDimobFile writes the DIMOB file of a business and year.
const KindDimobFile = "dimob:file"

// FirstDimobYear is the first calendar year a DIMOB is asked for
// (finance/dimob's own bound).
const FirstDimobYear = 2000

// DimobPayload is what a DIMOB is asked for: the declaring business (its
// CNPJ), the calendar year, and for an amended declaration (retificadora)
// the receipt number of the declaration it replaces.
type DimobPayload struct {
	BusinessID    int64  `json:"business_id"`
	Year          int    `json:"year"`
	Amended       bool   `json:"amended,omitempty"`
	ReceiptNumber string `json:"receipt_number,omitempty"`
}

// lastDimobYear bounds the year before the clock is read (finance/dimob's
// own bound); YearProblems holds it to the company's today.
const lastDimobYear = 9999

// Check implements Checker.
func (p DimobPayload) Check() []finance.Problem { return p.Problems("payload.") }

// CheckCompany implements CompanyChecker: the year must be over in the
// company's time zone (YearProblems, for a file).
func (p DimobPayload) CheckCompany(ctx context.Context, q storage.DBTX, companyID int64) error {
	today, err := storage.CompanyToday(ctx, q, companyID)
	if err != nil {
		return err
	}
	if ps := p.YearProblems("payload.", today, false); len(ps) > 0 {
		return finance.InvalidInput(ps)
	}
	return nil
}

// Problems are the request's own problems, each field named with prefix:
// a business id, a year from 2000 (YearProblems holds it to the clock), a
// receipt number (up to ten digits) given for an amended declaration and
// only for one.
func (p DimobPayload) Problems(prefix string) []finance.Problem {
	var ps []finance.Problem
	add := func(field, message string) { ps = append(ps, finance.Problem{Field: prefix + field, Message: message}) }
	if p.BusinessID <= 0 {
		add("business_id", "must be the id of a business")
	}
	if p.Year < FirstDimobYear || p.Year > lastDimobYear {
		add("year", fmt.Sprintf("must be a calendar year from %d", FirstDimobYear))
	}
	n := p.ReceiptNumber
	switch {
	case p.Amended && n == "":
		add("receipt_number", "is required for an amended declaration: the receipt number of the declaration it replaces")
	case p.Amended && (len(n) > 10 || strings.Trim(n, "0123456789") != ""):
		add("receipt_number", "must be the receipt number of the declaration replaced: 1 to 10 digits")
	case !p.Amended && n != "":
		add("receipt_number", "is given only with amended: true (it names the declaration an amended one replaces)")
	}
	return ps
}

// YearProblems are the problems of the payload's year on today, the
// company's: a year after today's is refused, and today's own year, not
// over, is refused for a file (preview false: a DIMOB declares a closed
// calendar year); its preview is answered, with DimobYearOpen's warning
// (buildDimob). Fields are named with prefix.
func (p DimobPayload) YearProblems(prefix string, today finance.Date, preview bool) []finance.Problem {
	switch current := today.Year(); {
	case p.Year < FirstDimobYear || p.Year > lastDimobYear:
		return nil // Problems names it
	case p.Year > current:
		return []finance.Problem{{Field: prefix + "year", Message: fmt.Sprintf(
			"must be a calendar year from %d to %d: %d is to come (today is %s in the company's time zone)",
			FirstDimobYear, current, p.Year, today)}}
	case p.Year == current && !preview:
		return []finance.Problem{{Field: prefix + "year", Message: DimobYearOpen(p.Year, today) +
			"; ask with preview: true to check the year so far"}}
	}
	return nil
}

// DimobYearOpen says why the DIMOB of year is not filed on today, the
// company's: the year is not over (a DIMOB declares a closed calendar
// year, from the next January 1st to the last business day of its
// February); "" when it is over.
func DimobYearOpen(year int, today finance.Date) string {
	if year < today.Year() {
		return ""
	}
	return fmt.Sprintf("%d is not over (today is %s in the company's time zone): a DIMOB declares a closed calendar year, "+
		"filed from %d-01-01 to the last business day of February %d", year, today, year+1, year+1)
}

// NewDimobFile is the submission of a DIMOB's job.
func NewDimobFile(p DimobPayload) Submission {
	raw, _ := json.Marshal(p) // plain values: cannot fail
	return Submission{Kind: KindDimobFile, Payload: raw}
}

// CheckDimob reads the year of the business from the ledger, in a
// transaction of its own on db, and checks its declaration, writing
// nothing: the preview; of a year not over, with a warning that says so
// (DimobYearOpen). NotFound for a business the company does not have.
func CheckDimob(ctx context.Context, db storage.Beginner, companyID int64, p DimobPayload) (DimobCheck, error) {
	var y *storage.DimobYear
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) (err error) {
		y, err = storage.ReadDimobYear(ctx, tx, companyID, p.BusinessID, p.Year)
		return err
	})
	if err != nil {
		return DimobCheck{}, err
	}
	return buildDimob(y, p.Amended, p.ReceiptNumber, false).check(), nil
}

// DimobResult is the result of a dimob:file job: the run it finished, how
// it ended (written or blocked), the records, the problems counted (the
// run lists them) and the file.
type DimobResult struct {
	RunID      int64  `json:"run_id"`
	BusinessID int64  `json:"business_id"`
	Year       int    `json:"year"`
	Amended    bool   `json:"amended"`
	Status     string `json:"status"`
	Rentals    int    `json:"rentals"`
	Sales      int    `json:"sales"`
	Blocking   int    `json:"blocking"`
	Warnings   int    `json:"warnings"`
	FileName   string `json:"file_name,omitempty"`
	Bytes      int64  `json:"bytes"`
}

// DimobFileKind declares dimob:file: in one transaction (one chunk, recorded
// with it) the run the job was recorded with is locked, the year read from
// the ledger, the declaration checked, and the run finished: written, with
// its file, when nothing blocks; blocked, with the problems and no file,
// otherwise (a year not over blocks: POST /financial/dimob refuses it, and
// so does the submission, CheckCompany). A run already finished is answered as it is: a job run again
// writes nothing.
func DimobFileKind() *Kind {
	return Define(KindDimobFile, Options{Queue: QueueDefault,
		References: map[string]string{"business_id": storage.Businesses}}, runDimobFile)
}

func runDimobFile(ctx context.Context, r *Run, _ DimobPayload) (any, error) {
	outputs, err := r.Chunks(ctx, 1, 1, func(ctx context.Context, tx pgx.Tx, _ int) (any, int64, error) {
		res, err := writeDimob(ctx, tx, r.CompanyID(), r.Job.ID)
		return res, 1, err
	})
	if err != nil {
		var coded *finance.Error
		if errors.As(err, &coded) && (coded.Code == finance.Invalid || coded.Code == finance.NotFound) {
			return nil, permanent(err)
		}
		return nil, err
	}
	return outputs[0], nil
}

// writeDimob finishes the run of job jobID, or reads it finished.
func writeDimob(ctx context.Context, tx pgx.Tx, companyID, jobID int64) (*DimobResult, error) {
	run, err := storage.LockDimobRunOfJob(ctx, tx, companyID, jobID)
	if err != nil {
		return nil, err
	}
	res := &DimobResult{RunID: run.ID, BusinessID: run.BusinessID, Year: run.Year, Amended: run.Amended}
	if run.Status != storage.DimobPending {
		res.Status, res.Rentals, res.Sales, res.FileName, res.Bytes = run.Status, run.Rentals, run.Sales, run.FileName, run.FileSize
		res.Blocking, res.Warnings = jsonLength(run.Problems), jsonLength(run.Warnings)
		return res, nil
	}
	y, err := storage.ReadDimobYear(ctx, tx, companyID, run.BusinessID, run.Year)
	if err != nil {
		return nil, err
	}
	b := buildDimob(y, run.Amended, run.ReceiptNumber, true)
	c := b.check()
	o := storage.DimobOutcome{Status: storage.DimobBlocked, Problems: c.Problems, Warnings: c.Warnings,
		Rentals: c.Rentals, Sales: c.Sales}
	if !c.Blocks {
		o.Status, o.FileName, o.Content = storage.DimobWritten, dimobFileName(b), storage.NewFileContent()
		if err := dimobOptions.Write(o.Content, b.decl); err != nil {
			return nil, fmt.Errorf("dimob run %d: %w", run.ID, err)
		}
		res.FileName, res.Bytes = o.FileName, o.Content.Size()
	}
	if err := storage.FinishDimobRun(ctx, tx, companyID, run.ID, o); err != nil {
		return nil, err
	}
	res.Status, res.Rentals, res.Sales = o.Status, c.Rentals, c.Sales
	res.Blocking, res.Warnings = len(c.Problems), len(c.Warnings)
	return res, nil
}

// dimobFileName names a file by the declarant's CNPJ and the year, and an
// amended one as such: DIMOB-11444777000161-2024.txt,
// DIMOB-11444777000161-2024-retificadora.txt.
func dimobFileName(b *dimobBuild) string {
	d := b.decl.Declarant
	name := fmt.Sprintf("DIMOB-%s-%d", d.CNPJ, d.Year)
	if d.Amended {
		name += "-retificadora"
	}
	return name + ".txt"
}

// jsonLength is the length of a JSON array (0 for anything else).
func jsonLength(raw json.RawMessage) int {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return 0
	}
	return len(list)
}
