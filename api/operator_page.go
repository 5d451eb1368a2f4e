package api

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/api/operatorpage"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The operator console (/operator/, docs/operations.md, "Operator
// console"): one server-rendered page behind the admin token, as the
// dashboard is (basic auth in a browser), whose one form that writes
// (retry) is held to the same cross-origin rule.

// consoleNights is how many nights the console's matrix shows.
const consoleNights = 7

// consoleListed bounds the failed jobs and the search results shown.
const consoleListed = 50

var operatorPageOp = operation{
	access: byOperator, tag: "operators", summary: "The operator console",
	description: "An HTML page: the last 7 nights of every schedule for every company (succeeded, failed, missing, " +
		"running), the failed jobs of the last 7 days with their errors and a retry button, a search over every " +
		"company's jobs (`q`: filters of `GET /operator/jobs` written `name=value`, space-separated) and a link to the " +
		"queue dashboard. It loads nothing else.",
	params: []*openapi.Parameter{queryParam("q", "Filters, `name=value` separated by spaces.", openapi.String()),
		queryParam("done", "A message to show (after a retry).", openapi.String())},
	responses: map[int]*openapi.Response{http.StatusOK: htmlAnswer("The page.")},
}

var consoleRetryOp = operation{
	access: byOperator, tag: "operators", summary: "Retry a failed job from the console",
	description: "The console's retry button: a form (`job`, its `company`, `reason`) that retries the job as " +
		"`POST /operator/jobs/retry?filter[id]=<job>` does, audited, then a 303 back to the console. A job that is not " +
		"failed is a 303 saying so.",
	body: &openapi.RequestBody{Required: true, Content: map[string]*openapi.MediaType{
		"application/x-www-form-urlencoded": {Schema: openapi.Object(map[string]*openapi.Schema{
			"job": openapi.Integer(), "company": openapi.Integer(), "reason": openapi.String()}, "job")}}},
	responses: answers(map[int]*openapi.Response{http.StatusSeeOther: {Description: "Back to the console."}},
		http.StatusUnprocessableEntity),
}

// operatorPage is GET /operator/.
func (s *Server) operatorPage(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	data, err := s.consoleData(r, now)
	if err != nil {
		writeError(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := operatorpage.Render(&buf, data); err != nil {
		writeError(w, r, fmt.Errorf("render the operator console: %w", err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", operatorpage.CSP)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes()) //nolint:errcheck // the client went away
}

// consoleData gathers what the console shows.
func (s *Server) consoleData(r *http.Request, now time.Time) (operatorpage.Data, error) {
	ctx := r.Context()
	today, _ := operatorDate("", now)
	day, _ := time.Parse(time.DateOnly, today)
	dates := make([]string, consoleNights)
	for i := range dates {
		dates[i] = day.AddDate(0, 0, i-consoleNights+1).Format(time.DateOnly)
	}
	d := operatorpage.Data{Now: now.UTC().Format(time.DateTime), Operator: operatorOf(ctx), Dates: dates,
		Monitoring: s.console.monitoring != nil, Flash: r.URL.Query().Get("done")}
	nights, companies, err := s.schedules.Nights(ctx, s.store.Pool(), dates, now)
	if err != nil {
		return d, err
	}
	names := map[int64]string{}
	for _, c := range companies {
		names[c.ID] = c.Name
	}
	for _, sch := range s.schedules.Schedules() {
		m := operatorpage.Matrix{Name: sch.Name, Kind: sch.Kind, Spec: sch.Spec}
		rows := map[int64]*operatorpage.Row{}
		for _, n := range nights {
			if n.Schedule != sch.Name {
				continue
			}
			row := rows[n.CompanyID]
			if row == nil {
				m.Rows = append(m.Rows, operatorpage.Row{CompanyID: n.CompanyID, Company: names[n.CompanyID]})
				row = &m.Rows[len(m.Rows)-1]
				rows[n.CompanyID] = row
			}
			cell := operatorpage.Cell{Date: n.Date, State: n.State, Title: n.Date + ": " + n.State}
			if n.Run != nil {
				cell.JobID = n.Run.JobID
				cell.Title += " (job " + strconv.FormatInt(n.Run.JobID, 10) + ")"
				if n.Run.Error != "" {
					cell.Title += ": " + n.Run.Error
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		d.Schedules = append(d.Schedules, m)
	}
	since := now.AddDate(0, 0, -consoleNights).UTC().Format(time.DateTime)
	d.Failed, err = s.consoleJobs(r, "filter[state]=failed&filter[finished_at|ge]="+url.QueryEscape(since)+"&sort=-finished_at", names, true)
	if err != nil {
		return d, err
	}
	if q := strings.TrimSpace(r.URL.Query().Get("q")); q != "" {
		d.Query, d.Searched = q, true
		d.Results, err = s.consoleJobs(r, searchQuery(q)+"&sort=-id", names, false)
		if coded, ok := err.(*finance.Error); ok && coded.Code == finance.Invalid {
			d.SearchError, d.Results, err = problemsText(coded), nil, nil
		}
	}
	return d, err
}

// searchQuery turns the console's search, `name=value` space-separated,
// into the filters of the query language.
func searchQuery(q string) string {
	var parts []string
	for _, term := range strings.Fields(q) {
		name, value, _ := strings.Cut(term, "=")
		parts = append(parts, "filter["+url.QueryEscape(name)+"]="+url.QueryEscape(value))
	}
	return strings.Join(parts, "&")
}

func problemsText(e *finance.Error) string {
	var b strings.Builder
	b.WriteString(e.Message)
	for _, p := range e.Problems {
		fmt.Fprintf(&b, " %s: %s.", p.Field, p.Message)
	}
	return b.String()
}

// consoleJobs lists up to consoleListed operator jobs of rawQuery, with
// the errors of each run when withErrors.
func (s *Server) consoleJobs(r *http.Request, rawQuery string, names map[int64]string, withErrors bool) ([]operatorpage.Job, error) {
	res := s.operatorJobsResource()
	q, err := parseList(s.store.Registry(), res, rawQuery+"&perPage="+strconv.Itoa(consoleListed))
	if err != nil {
		return nil, err
	}
	page, err := s.store.List(r.Context(), res, storage.Scope{}, q)
	if err != nil {
		return nil, err
	}
	out := make([]operatorpage.Job, 0, len(page.Records))
	for _, rec := range page.Records {
		j := operatorpage.Job{ID: intValue(rec, "id"), CompanyID: intValue(rec, "company_id"), Kind: textValue(rec, "kind"),
			State: textValue(rec, "state"), Key: textValue(rec, "unique_key"), Error: textValue(rec, "error"),
			CreatedAt: timeValue(rec, "created_at"), Finished: timeValue(rec, "finished_at"), Attempts: intValue(rec, "attempts")}
		j.Company = names[j.CompanyID]
		if withErrors {
			runs, err := storage.JobErrors(r.Context(), s.store.Pool(), j.CompanyID, j.ID)
			if err != nil {
				return nil, err
			}
			for _, e := range runs {
				j.Errors = append(j.Errors, "attempt "+strconv.Itoa(e.Attempt)+": "+e.Error)
			}
		}
		out = append(out, j)
	}
	return out, nil
}

func intValue(rec *storage.Record, col string) int64 {
	v, _ := rec.Value(col)
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	}
	return 0
}

func textValue(rec *storage.Record, col string) string {
	v, _ := rec.Value(col)
	s, _ := v.(string)
	return s
}

func timeValue(rec *storage.Record, col string) string {
	v, _ := rec.Value(col)
	if t, ok := v.(time.Time); ok {
		return t.UTC().Format(time.DateTime)
	}
	return ""
}

// consoleRetry is POST /operator/retry, the console's retry button.
func (s *Server) consoleRetry(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeError(w, r, finance.InvalidInput([]finance.Problem{{Field: "body", Message: "must be a form"}}))
		return
	}
	id, err := strconv.ParseInt(r.PostForm.Get("job"), 10, 64)
	if err != nil || id <= 0 {
		writeError(w, r, finance.InvalidInput([]finance.Problem{{Field: "job", Message: "must be a job id"}}))
		return
	}
	reason := strings.TrimSpace(r.PostForm.Get("reason"))
	if reason == "" {
		reason = "retried from the console"
	}
	if len(reason) > maxOperatorReason || !validText(reason) {
		writeError(w, r, finance.InvalidInput([]finance.Problem{{Field: "reason", Message: "must be at most 500 bytes of text"}}))
		return
	}
	selection := "filter[id]=" + strconv.FormatInt(id, 10)
	if company, err := strconv.ParseInt(r.PostForm.Get("company"), 10, 64); err == nil && company > 0 {
		selection = "filter[company_id]=" + strconv.FormatInt(company, 10) + "&" + selection // the primary key
	}
	q, err := parseList(s.store.Registry(), s.operatorJobsResource(), selection)
	if err != nil {
		writeError(w, r, err)
		return
	}
	var sel storage.BulkSelection
	err = pgx.BeginFunc(r.Context(), s.store.Pool(), func(tx pgx.Tx) error {
		var err error
		if sel, err = s.store.ActOnBulk(r.Context(), tx, s.operatorJobsResource(), q, storage.BulkRetry, -1); err != nil || sel.Count == 0 {
			return err
		}
		_, err = recordBulkAudit(r.Context(), tx, operatorOf(r.Context()), "jobs.retry", reason, selection, sel)
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	done := "Job " + strconv.FormatInt(id, 10) + " is not failed (or a later run replaced it): nothing was retried."
	if sel.Count == 1 {
		done = "Job " + strconv.FormatInt(id, 10) + " retried: it runs again."
	}
	http.Redirect(w, r, "/operator/?done="+url.QueryEscape(done), http.StatusSeeOther)
}
