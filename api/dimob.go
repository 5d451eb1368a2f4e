package api

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// The DIMOB (docs/dimob.md, "The API and the job"): POST /financial/dimob
// checks a business's year (preview) or starts the dimob:file job that
// writes its file; the runs are read through the dimob_runs resource, and
// a run's file downloaded as the Receita's program imports it.

// dimobPath is where the DIMOB routes live.
const dimobPath = "/financial/dimob"

// dimobContentType is the file's type: text, every byte printable ASCII or
// CRLF, as the Receita's program reads it (docs/dimob.md, "Conventions").
const dimobContentType = "text/plain; charset=us-ascii"

// dimobReads are the DIMOB runs' list and get, through the declared
// resource (the POST and the file are by hand).
func (s *Server) dimobReads() (resourceHandlers, resourceDoc) {
	reg := s.store.Registry()
	h := resourceHandlers{store: s.store, reads: s.reads, res: reg.MustResource(storage.DimobRuns), path: dimobPath}
	return h, resourceDoc{reg: reg, res: h.res, path: dimobPath}
}

// dimobBody is the body of POST /financial/dimob.
type dimobBody struct {
	payload jobs.DimobPayload
	preview bool
}

// readDimobBody reads {"business_id", "year", "amended", "receipt_number",
// "preview"}: business_id and year required, every problem named.
func readDimobBody(w http.ResponseWriter, r *http.Request) (dimobBody, error) {
	var b dimobBody
	obj, problems, err := readObject(w, r)
	if err != nil {
		return b, err
	}
	bad := func(field, message string) {
		problems = append(problems, finance.Problem{Field: field, Message: message})
	}
	p := &b.payload
	for _, key := range sortedKeys(obj) {
		raw := obj[key]
		switch key {
		case "business_id":
			if json.Unmarshal(raw, &p.BusinessID) != nil || p.BusinessID <= 0 {
				bad(key, "must be the id of a business")
				p.BusinessID = -1 // named once
			}
		case "year":
			if json.Unmarshal(raw, &p.Year) != nil {
				bad(key, "must be a calendar year (an integer)")
				p.Year = -1
			}
		case "amended":
			if json.Unmarshal(raw, &p.Amended) != nil {
				bad(key, "must be true or false")
			}
		case "receipt_number":
			if string(raw) != "null" && json.Unmarshal(raw, &p.ReceiptNumber) != nil {
				bad(key, "must be a string of 1 to 10 digits")
				p.ReceiptNumber = "x"
			}
		case "preview":
			if json.Unmarshal(raw, &b.preview) != nil {
				bad(key, "must be true or false")
			}
		default:
			bad(key, "unknown field")
		}
	}
	for _, key := range []string{"business_id", "year"} {
		if _, given := obj[key]; !given {
			bad(key, "is required")
		}
	}
	for _, pr := range p.Problems("") {
		if !named(problems, pr.Field) {
			problems = append(problems, pr)
		}
	}
	if len(problems) > 0 {
		return b, finance.InvalidInput(problems)
	}
	return b, nil
}

// checkDimobRequest holds the request to the company's records: the
// business must be the company's and the year over on its today (a year
// to come is refused, the current one for a file), every problem named.
func (s *Server) checkDimobRequest(ctx context.Context, companyID int64, p jobs.DimobPayload, preview bool) error {
	today, err := storage.CompanyToday(ctx, s.store.Pool(), companyID)
	if err != nil {
		return err
	}
	problems := p.YearProblems("", today, preview)
	ref := []storage.Reference{{Field: "business_id", Resource: storage.Businesses, ID: p.BusinessID}}
	err = s.store.Registry().CheckReferences(ctx, s.store.Pool(), companyID, ref)
	var coded *finance.Error
	switch {
	case err != nil && (!errors.As(err, &coded) || coded.Code != finance.Invalid):
		return err
	case err != nil:
		problems = append(coded.Problems, problems...)
	}
	if len(problems) > 0 {
		return finance.InvalidInput(problems)
	}
	return nil
}

// named reports whether a problem names field already.
func named(problems []finance.Problem, field string) bool {
	for _, p := range problems {
		if p.Field == field {
			return true
		}
	}
	return false
}

// postDimob is POST /financial/dimob: with preview, 200 and the check of the
// business's year, nothing written; otherwise the run is recorded with its
// dimob:file job, in one transaction, and answered with the job (202). A
// body that is not right, a business the company does not have, or a
// year that is not over in the company's time zone (for a file; its
// preview warns) is a 422 naming the field.
func (s *Server) postDimob(w http.ResponseWriter, r *http.Request) {
	body, err := readDimobBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	ctx, p := r.Context(), body.payload
	companyID := principalOf(ctx).CompanyID
	if err := s.checkDimobRequest(ctx, companyID, p, body.preview); err != nil {
		writeError(w, r, err)
		return
	}
	if body.preview {
		check, err := jobs.CheckDimob(ctx, s.store.Pool(), companyID, p)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, dimobCheckEnvelope{Return: true, Status: http.StatusOK, Data: check,
			Message: counted(len(check.Problems), "blocking problem") + " and " + counted(len(check.Warnings), "warning") +
				"; nothing was written."})
		return
	}
	sub := jobs.NewDimobFile(p)
	digest := requestDigest(r)
	digest.Write(sub.Payload) //nolint:errcheck // a hash takes every write
	if !prepareSubmission(w, r, &sub, digest) {
		return
	}
	var job storage.Job
	err = pgx.BeginFunc(ctx, s.store.Pool(), func(tx pgx.Tx) error {
		var found storage.Found
		var err error
		job, found, err = s.jobs.Submit(ctx, tx, companyID, sub)
		if err != nil || found != storage.FoundNothing {
			return err // the same Idempotency-Key and body: its job, and its run
		}
		_, err = storage.InsertDimobRun(ctx, tx, companyID, storage.NewDimobRun{BusinessID: p.BusinessID, Year: p.Year,
			Amended: p.Amended, ReceiptNumber: p.ReceiptNumber, JobID: job.ID})
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeJob(w, r, http.StatusAccepted, "Accepted.", job.ID)
}

// counted is "no warning", "1 warning", "3 warnings".
func counted(n int, what string) string {
	switch n {
	case 0:
		return "no " + what
	case 1:
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// dimobCheckEnvelope is the answer of a preview.
type dimobCheckEnvelope struct {
	Return  bool            `json:"return"`
	Status  int             `json:"status"`
	Message string          `json:"message"`
	Data    jobs.DimobCheck `json:"data"`
}

// dimobFile is GET /financial/dimob/{id}/file: the run's file as the
// Receita's program imports it, an attachment named by the declarant's
// CNPJ and the year; 409 for a run without a file (pending, or blocked),
// 404 for another company's.
func (s *Server) dimobFile(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	f, err := storage.ReadDimobFile(r.Context(), s.store.Pool(), principalOf(r.Context()).CompanyID, id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", dimobContentType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name}))
	h.Set("Content-Length", strconv.FormatInt(f.Size, 10))
	w.WriteHeader(http.StatusOK)
	if _, err := f.WriteTo(w); err != nil && r.Context().Err() == nil {
		loggerOf(r.Context()).ErrorContext(r.Context(), "dimob file not sent whole", "run", id, "error", err)
	}
}

// postDimobOp describes POST /financial/dimob.
func postDimobOp() operation {
	check, err := reflector.SchemaFor(dimobCheckEnvelope{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{
		tag:     "financial/dimob",
		summary: "Check a business's DIMOB of a year, or write its file",
		description: "The DIMOB of the business (the declaring CNPJ) and calendar year, read from the ledger (docs/dimob.md). " +
			"With `preview`, 200 and the check alone: the blocking problems and the warnings, each naming the record to fix " +
			"(`resource`, `id`, `field`, `path`), nothing written. Otherwise the run is recorded and a `dimob:file` job " +
			"started (202 with the job): it checks again and writes the file only when nothing blocks " +
			"(`GET /financial/dimob?filter[job_id]=…` finds the run at once). A DIMOB declares a closed calendar year: the " +
			"year still running in the company's time zone is refused for a file (422 on `year`, saying so) and previewed " +
			"with a warning on `year`. A year before 2000 or after the current one, an amended declaration without " +
			"`receipt_number` (or one given to an original), a business the company does not have: 422 naming the field.",
		params: []*openapi.Parameter{idempotencyKey()},
		body: jsonBody("The declaration asked for.", true, openapi.Object(map[string]*openapi.Schema{
			"business_id":    openapi.Integer().WithDescription("The declaring business (its CNPJ files)."),
			"year":           openapi.Integer().WithDescription("The calendar year, 2000 to the last one over (the current one with `preview`)."),
			"amended":        openapi.Boolean().WithDescription("An amended declaration (retificadora); default false."),
			"receipt_number": openapi.String().WithDescription("With `amended`: the receipt of the declaration it replaces, 1 to 10 digits."),
			"preview":        openapi.Boolean().WithDescription("Answer the check alone, writing nothing."),
		}, "business_id", "year")),
		responses: answers(map[int]*openapi.Response{
			http.StatusOK:       jsonAnswer("The check (preview).", check),
			http.StatusAccepted: jobAccepted(),
		}, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}

// dimobFileOp describes GET /financial/dimob/{id}/file.
func dimobFileOp() operation {
	return operation{
		tag:     "financial/dimob",
		summary: "Download a DIMOB run's file (.txt)",
		description: "The file the run wrote, as the Receita's DIMOB program imports it: `" + dimobContentType + "`, an " +
			"attachment named `DIMOB-<CNPJ>-<year>.txt` (`-retificadora` before `.txt` for an amended one). A run still " +
			"pending, or blocked by its problems, has no file: 409.",
		responses: answers(map[int]*openapi.Response{
			http.StatusOK: {Description: "The file.", Content: map[string]*openapi.MediaType{
				dimobContentType: {Schema: openapi.String()}}},
		}, http.StatusNotFound, http.StatusConflict),
	}
}
