package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The operator job API (docs/operations.md, "Operator job API"): every
// company's jobs, behind the admin token. The list is the query language
// over the operator_jobs resource (shared: not scoped to a company); a job
// comes with its payload and the errors of its runs; a filter's jobs are
// retried or canceled in bulk, previewed first by the same selection, and
// each action is recorded in the audit log with the token's label.

// operatorPayloadMax is the largest payload GET /operator/jobs/{id} shows;
// a larger one (a bulk validation's) is given by its size alone.
const operatorPayloadMax = 64 << 10

// maxOperatorReason bounds the reason of an operator action, in bytes.
const maxOperatorReason = 500

func (s *Server) operatorJobsResource() *storage.Resource {
	return s.store.Registry().MustResource(storage.OperatorJobs)
}

func operatorJobsListOp(reg *storage.Registry, res *storage.Resource) operation {
	op := resourceDoc{reg: reg, res: res, path: "/operator/jobs"}.list()
	op.access, op.tag = byOperator, "operators"
	op.summary = "List every company's jobs"
	op.description = "Every company's jobs, with the query language: `filter[company_id]`, `filter[companyIn][]`, " +
		"`filter[kind]`, `filter[state]`, `filter[error]` (`%` patterns), date ranges on `created_at`, `started_at` and " +
		"`finished_at`, and `filter[payload.<key>]` on the text of a key of the payload (`filter[payload.month]=2026-11`; " +
		"every string operator). Not scoped to a company."
	op.params = append(op.params, queryParam("filter[payload.{key}]",
		"The text of a top-level key of the payload, compared as a string column is (1 to 64 letters, digits and `_`).",
		openapi.String()))
	return op
}

// operatorJobsList is GET /operator/jobs.
func (s *Server) operatorJobsList(w http.ResponseWriter, r *http.Request) {
	s.operatorList(w, r, s.operatorJobsResource())
}

// jobErrorJSON is one failed run of a job as the operator API writes it.
type jobErrorJSON struct {
	storage.JobError
	At        string  `json:"at"`
	StartedAt *string `json:"started_at"`
}

// newJobErrorJSON writes the times of e in UTC.
func newJobErrorJSON(e storage.JobError) jobErrorJSON {
	out := jobErrorJSON{JobError: e, At: e.At.UTC().Format(time.DateTime)}
	if e.StartedAt != nil {
		started := e.StartedAt.UTC().Format(time.DateTime)
		out.StartedAt = &started
	}
	return out
}

func operatorJobOp() operation {
	errs := openapi.Array(openapi.Object(map[string]*openapi.Schema{
		"attempt": openapi.Integer(), "generation": openapi.Integer(), "error": openapi.String(),
		"final": openapi.Boolean(), "at": openapi.String(), "started_at": openapi.Nullable(openapi.String())},
		"attempt", "generation", "error", "final", "at", "started_at"))
	return operation{
		access: byOperator, tag: "operators", summary: "One job of any company, with its payload and its runs' errors",
		description: "The job as `GET /operator/jobs` lists it, with `payload` (null when larger than 64 KiB; " +
			"`payload_bytes` gives its size) and `errors`, the error of each failed run in order (`final`: the run that " +
			"ended the job failed), a run interrupted before it recorded an outcome (its worker lost) among them, " +
			"with `started_at`, the run's start, and `at`, when its error was recorded.",
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The job.", envelope(openapi.Object(
			map[string]*openapi.Schema{"job": openapi.Ref(storage.OperatorJobs), "payload": openapi.Any(),
				"payload_bytes": openapi.Integer(), "errors": errs}, "job", "payload", "payload_bytes", "errors"), false))},
			http.StatusNotFound),
	}
}

// operatorJob is GET /operator/jobs/{id}.
func (s *Server) operatorJob(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	company, err := storage.JobCompany(ctx, s.store.Pool(), id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	// by company and id: the primary key
	q, err := parseList(s.store.Registry(), s.operatorJobsResource(),
		"filter[company_id]="+strconv.FormatInt(company, 10)+"&filter[id]="+strconv.FormatInt(id, 10))
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := s.store.List(ctx, s.operatorJobsResource(), storage.Scope{}, q)
	if err == nil && len(page.Records) == 0 { // pruned meanwhile
		err = finance.Errorf(finance.NotFound, "Record %d not found.", id)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	rec := page.Records[0]
	payload, size, err := storage.JobPayload(ctx, s.store.Pool(), company, id, operatorPayloadMax)
	if err != nil {
		writeError(w, r, err)
		return
	}
	runs, err := storage.JobErrors(ctx, s.store.Pool(), company, id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	errs := make([]jobErrorJSON, len(runs))
	for i, e := range runs {
		errs[i] = newJobErrorJSON(e)
	}
	if payload == nil {
		payload = json.RawMessage("null")
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Data: map[string]any{
		"job": rec, "payload": payload, "payload_bytes": size, "errors": errs}})
}

// bulkParams are the query parameters a bulk action refuses: its selection
// is every job its filters select, not a page of them.
var bulkParams = []string{"page", "perPage", "sort", "fields", "withTotal", "customFields"}

func bulkJobsOp(action string) operation {
	verb := map[string]string{storage.BulkRetry: "Retry", storage.BulkCancel: "Cancel"}[action]
	applies := map[string]string{
		storage.BulkRetry: "the `failed` jobs the filters select, each the latest run of its payload's key (a failed " +
			"run that a later run of its key replaced is left): each runs again from the start, as `POST /jobs/{id}/retry`",
		storage.BulkCancel: "the jobs not finished (`pending`, `queued`, `running`) the filters select: each ends " +
			"`canceled`, as `POST /jobs/{id}/cancel`",
	}[action]
	job := openapi.Object(map[string]*openapi.Schema{"company_id": openapi.Integer(), "id": openapi.Integer(),
		"kind": openapi.String(), "state": openapi.String(), "error": openapi.String()},
		"company_id", "id", "kind", "state", "error")
	result := openapi.Object(map[string]*openapi.Schema{
		"action": openapi.Enum(action), "preview": openapi.Boolean(), "count": openapi.Integer(),
		"jobs": openapi.Array(job), "audit_id": openapi.Nullable(openapi.Integer())},
		"action", "preview", "count", "jobs", "audit_id")
	return operation{
		access: byOperator, tag: "operators", summary: verb + " a filter's jobs, every company's",
		description: "Acts on " + applies + ". The query string holds the filters of `GET /operator/jobs` (no " +
			"`page`, `perPage`, `sort` or `fields`: the selection is every job they select). `{\"preview\": true}` " +
			"answers how many and the first 100 by id, and changes nothing; otherwise `reason` is required, the " +
			"jobs are changed in one transaction with a row of the audit log (`/operator/audit`), and the answer " +
			"lists them all, each as the action left it (a retried job `pending`, a canceled one `canceled`). " +
			"`expected` (the preview's `count`) refuses the action with a 409 when the selection holds another " +
			"number of jobs by then. More than 10,000 jobs is a 422.",
		params: []*openapi.Parameter{queryParam("filter[...]", "The filters of `GET /operator/jobs`.", openapi.String())},
		body: jsonBody("What to do.", true, openapi.Object(map[string]*openapi.Schema{
			"preview":  openapi.Boolean(),
			"reason":   (&openapi.Schema{Type: "string", MaxLength: openapi.Int(maxOperatorReason)}).WithDescription("Why; required unless previewing."),
			"expected": openapi.Integer(),
		})),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The selection, and what was done.",
			envelope(result, true))}, http.StatusConflict, http.StatusRequestEntityTooLarge,
			http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}

// bulkRequest is the body of a bulk action.
type bulkRequest struct {
	Preview  bool
	Reason   string
	Expected int64 // -1: not given
}

// readBulkRequest reads {"preview", "reason", "expected"}; every problem is
// named.
func readBulkRequest(w http.ResponseWriter, r *http.Request) (bulkRequest, error) {
	req := bulkRequest{Expected: -1}
	obj, problems, err := readObject(w, r)
	if err != nil {
		return req, err
	}
	for _, key := range sortedKeys(obj) {
		raw := obj[key]
		switch key {
		case "preview":
			if json.Unmarshal(raw, &req.Preview) != nil {
				problems = append(problems, finance.Problem{Field: key, Message: "must be true or false"})
			}
		case "reason":
			if json.Unmarshal(raw, &req.Reason) != nil {
				problems = append(problems, finance.Problem{Field: key, Message: "must be a string"})
			}
		case "expected":
			if json.Unmarshal(raw, &req.Expected) != nil || req.Expected < 0 {
				problems = append(problems, finance.Problem{Field: key, Message: "must be a whole number of 0 or more"})
			}
		default:
			problems = append(problems, finance.Problem{Field: key, Message: "unknown field"})
		}
	}
	req.Reason = strings.TrimSpace(req.Reason)
	switch {
	case !req.Preview && req.Reason == "":
		problems = append(problems, finance.Problem{Field: "reason", Message: "is required: say why (it is kept in the audit log)"})
	case len(req.Reason) > maxOperatorReason || !validText(req.Reason):
		problems = append(problems, finance.Problem{Field: "reason", Message: "must be at most 500 bytes of text"})
	}
	if len(problems) > 0 {
		return req, finance.InvalidInput(problems)
	}
	return req, nil
}

// validText is text PostgreSQL stores as given: valid UTF-8 without NUL.
func validText(s string) bool {
	return !strings.ContainsRune(s, 0) && strings.ToValidUTF8(s, "\uFFFD") == s
}

// bulkSelection parses the filters of a bulk action's query string.
func (s *Server) bulkSelection(r *http.Request) (storage.ListQuery, error) {
	params, _ := parseParams(r.URL.RawQuery)
	var problems []finance.Problem
	for _, kv := range params {
		for _, refused := range bulkParams {
			if kv.key == refused {
				problems = append(problems, finance.Problem{Field: kv.key, Message: "a bulk action acts on every job its filters select"})
			}
		}
	}
	if len(problems) > 0 {
		return storage.ListQuery{}, finance.InvalidInput(problems)
	}
	return parseList(s.store.Registry(), s.operatorJobsResource(), r.URL.RawQuery)
}

// bulkJobs is POST /operator/jobs/retry and /operator/jobs/cancel.
func (s *Server) bulkJobs(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, err := s.bulkSelection(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		req, err := readBulkRequest(w, r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		res := s.operatorJobsResource()
		if req.Preview {
			sel, err := s.store.PreviewBulk(r.Context(), s.store.Pool(), res, q, action)
			if err != nil {
				writeError(w, r, err)
				return
			}
			writeBulk(w, action, true, sel, 0, finance.Count(sel.Count, "job", "jobs")+" would be "+pastTense(action)+"; nothing was changed.")
			return
		}
		var sel storage.BulkSelection
		var auditID int64
		err = pgx.BeginFunc(r.Context(), s.store.Pool(), func(tx pgx.Tx) error {
			var err error
			if sel, err = s.store.ActOnBulk(r.Context(), tx, res, q, action, req.Expected); err != nil {
				return err
			}
			auditID, err = recordBulkAudit(r.Context(), tx, operatorOf(r.Context()), "jobs."+action, req.Reason, r.URL.RawQuery, sel)
			return err
		})
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeBulk(w, action, false, sel, auditID, finance.Count(sel.Count, "job", "jobs")+" "+pastTense(action)+".")
	}
}

// recordBulkAudit writes the audit row of an action on jobs.
func recordBulkAudit(ctx context.Context, tx pgx.Tx, operator, action, reason, selection string, sel storage.BulkSelection) (int64, error) {
	jobs := make([][2]int64, len(sel.Jobs))
	for i, j := range sel.Jobs {
		jobs[i] = [2]int64{j.CompanyID, j.ID}
	}
	return storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operator, Action: action, Reason: reason,
		Selection: selection, Count: int(sel.Count), Jobs: jobs})
}

func pastTense(action string) string {
	if action == storage.BulkCancel {
		return "canceled"
	}
	return "retried"
}

func writeBulk(w http.ResponseWriter, action string, preview bool, sel storage.BulkSelection, auditID int64, message string) {
	jobs := sel.Jobs
	if jobs == nil {
		jobs = []storage.BulkJob{}
	}
	var audit *int64
	if auditID != 0 {
		audit = &auditID
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Message: message,
		Data: map[string]any{"action": action, "preview": preview, "count": sel.Count, "jobs": jobs, "audit_id": audit}})
}

// auditJSON is an audit row as /operator/audit writes it.
type auditJSON struct {
	storage.AuditEntry
	At string `json:"at"`
}

func operatorAuditOp() operation {
	entry := openapi.Object(map[string]*openapi.Schema{
		"id": openapi.Integer(), "at": openapi.String(), "operator": openapi.String(), "action": openapi.String(),
		"reason": openapi.String(), "selection": openapi.String(), "count": openapi.Integer(),
		"jobs": openapi.Array(openapi.Array(openapi.Integer()))},
		"id", "at", "operator", "action", "reason", "selection", "count", "jobs")
	return operation{
		access: byOperator, tag: "operators", summary: "The audit log of operator actions",
		description: "What operators did, newest first: who (the label of the admin token), what (`jobs.retry`, " +
			"`jobs.cancel`, `schedules.run`, `alerts.resolve`), why, on which selection (the query string, or the schedule, date and " +
			"companies), how many jobs, and which (`[company_id, job_id]`). `page` and `perPage` (at most 100).",
		params: []*openapi.Parameter{queryParam("page", "From 1.", openapi.Integer()),
			queryParam("perPage", "At most 100; 10 unless given.", openapi.Integer())},
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("A page of the log.",
			envelope(openapi.Array(entry), false))}, http.StatusUnprocessableEntity),
	}
}

// operatorAudit is GET /operator/audit.
func (s *Server) operatorAudit(w http.ResponseWriter, r *http.Request) {
	page, perPage, err := pageParams(r.URL.RawQuery)
	if err != nil {
		writeError(w, r, err)
		return
	}
	entries, err := storage.AuditLog(r.Context(), s.store.Pool(), perPage, (page-1)*perPage)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]auditJSON, len(entries))
	for i, e := range entries {
		out[i] = auditJSON{AuditEntry: e, At: e.At.UTC().Format(time.DateTime)}
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Data: out})
}

// pageParams reads page and perPage alone (any other parameter is a 422).
func pageParams(rawQuery string) (page, perPage int, err error) {
	p := &queryParser{}
	page, perPage = 1, DefaultPerPage
	for _, kv := range p.params(rawQuery) {
		switch {
		case kv.key == "page" && p.once(kv.key):
			page = p.positiveInt(kv, MaxOffset)
		case kv.key == "perPage" && p.once(kv.key):
			perPage = p.positiveInt(kv, MaxPerPage)
		case kv.key == "page" || kv.key == "perPage" || kv.key == "_":
		default:
			p.fail(kv.key, "unknown query parameter")
		}
	}
	return page, perPage, p.err()
}
