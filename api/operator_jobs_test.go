package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/propfin/propfin/storage"
)

// labelledTokens are two admin tokens with their labels.
const (
	anaToken = "ana-token-0123456789abcdef"
	ciToken  = "ci-token-0123456789abcdef0"
)

func withLabelledTokens() envOption {
	return withAdminToken("ana:" + anaToken + ", ci:" + ciToken)
}

// operatorDo sends a JSON body (nil: none) to an operator route with cred
// and decodes the answer.
func (e *testEnv) operatorDo(t *testing.T, method, path string, cred credential, body any) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	cred(req)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, raw: string(raw)}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&r.body); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %s", method, path, res.StatusCode, raw)
	}
	return r
}

// testJob records a job of company with payload, then puts it in state
// with errText.
func (e *testEnv) testJob(t *testing.T, company int64, kind, key, payload, state, errText string) int64 {
	t.Helper()
	job, _, err := storage.SubmitJob(context.Background(), e.pool, company, storage.NewJob{Kind: kind, Queue: "default",
		Payload: json.RawMessage(payload), UniqueKey: key, SubmittedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	e.exec(t, `UPDATE jobs SET state = $3, error = nullif($4, ''),
		finished_at = CASE WHEN $3 IN ('succeeded', 'failed', 'canceled') THEN now() END
		WHERE company_id = $1 AND id = $2`, company, job.ID, state, errText)
	return job.ID
}

// ids reads the ids of a list's records, or of a bulk answer's jobs.
func ids(t *testing.T, items []any) []int64 {
	t.Helper()
	var out []int64
	for _, it := range items {
		n, err := it.(map[string]any)["id"].(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// TestOperatorJobRoutesNeedTheToken: every operator job route refuses no
// credential and a wrong token (401), a company's API key (403), and answers the
// admin token.
func TestOperatorJobRoutesNeedTheToken(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	id := e.testJob(t, e.compA, "test:thing", "", `{}`, "failed", "boom")
	routes := []struct{ method, path string }{
		{http.MethodGet, "/operator/jobs"},
		{http.MethodGet, "/operator/jobs/" + strconv.FormatInt(id, 10)},
		{http.MethodPost, "/operator/jobs/retry"},
		{http.MethodPost, "/operator/jobs/cancel"},
		{http.MethodGet, "/operator/audit"},
		{http.MethodGet, "/operator/schedules"},
		{http.MethodPost, "/operator/schedules/finance-overdue/run"},
		{http.MethodGet, "/operator/alerts"},
		{http.MethodGet, "/operator/"},
		{http.MethodPost, "/operator/retry"},
	}
	for _, rt := range routes {
		for name, cred := range map[string]credential{"none": noCredential, "wrong token": bearer(anaToken + "x"),
			"token as user": basic(anaToken, "")} {
			r := e.call(t, rt.method, rt.path, cred)
			wantEnvelope(t, rt.method+" "+rt.path+" with "+name, r, http.StatusUnauthorized)
		}
		for name, cred := range map[string]credential{"company key": bearer(e.keyA), "other company's key": bearer(e.keyB)} {
			r := e.call(t, rt.method, rt.path, cred)
			wantEnvelope(t, rt.method+" "+rt.path+" with "+name, r, http.StatusForbidden)
		}
		body := map[string]any{"preview": true}
		if rt.method == http.MethodGet {
			body = nil
		}
		for _, cred := range []credential{bearer(anaToken), basic("x", ciToken)} {
			r := e.operatorDoRaw(t, rt.method, rt.path, cred, body)
			if r.status == http.StatusUnauthorized || r.status == http.StatusNotFound || r.status >= 500 {
				t.Errorf("%s %s with the token: %d %s", rt.method, rt.path, r.status, r.body)
			}
		}
	}
}

// operatorDoRaw is operatorDo without decoding (the console answers HTML).
func (e *testEnv) operatorDoRaw(t *testing.T, method, path string, cred credential, body any) operatorResponse {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	cred(req)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return operatorResponse{status: res.StatusCode, header: res.Header, body: string(raw)}
}

// TestOperatorJobsAcrossCompanies: the operator list holds both
// companies' jobs and filters them by company, kind, state, a payload key
// and the error text.
func TestOperatorJobsAcrossCompanies(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	a1 := e.testJob(t, e.compA, "owners:statements", "2026-11", `{"month": "2026-11"}`, "failed", "the ledger is locked")
	b1 := e.testJob(t, e.compB, "owners:statements", "2026-11", `{"month": "2026-11"}`, "succeeded", "")
	b2 := e.testJob(t, e.compB, "owners:statements", "2026-10", `{"month": "2026-10"}`, "failed", "no owners")
	a2 := e.testJob(t, e.compA, "finance:overdue", "2026-11-24", `{"date": "2026-11-24"}`, "queued", "")
	cases := []struct {
		query string
		want  []int64
	}{
		{"", []int64{a1, b1, b2, a2}},
		{"filter[payload.month]=2026-11", []int64{a1, b1}},
		{"filter[payload.month]=2026-%25", []int64{a1, b1, b2}},
		{"filter[payload.month|empty]", []int64{a2}},
		{"filter[kind]=owners:statements&filter[state]=failed", []int64{a1, b2}},
		{"filter[error]=%25locked%25", []int64{a1}},
		{"filter[company_id]=" + strconv.FormatInt(e.compB, 10), []int64{b1, b2}},
		{"filter[companyIn][]=" + strconv.FormatInt(e.compA, 10) + "&filter[stateIn][]=queued", []int64{a2}},
		{"filter[created_at|ge]=2000-01-01&filter[finished_at|empty]", []int64{a2}},
	}
	for _, c := range cases {
		r := e.operatorDo(t, http.MethodGet, "/operator/jobs?"+c.query, bearer(anaToken), nil)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", c.query, r.status, r.raw)
		}
		items, _ := r.body["data"].([]any)
		if got := ids(t, items); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	first := e.operatorDo(t, http.MethodGet, "/operator/jobs?filter[id]="+strconv.FormatInt(b1, 10), bearer(anaToken), nil)
	rec := first.data(t)[0]
	if rec["company_id"] != json.Number(strconv.FormatInt(e.compB, 10)) || rec["unique_key"] != "2026-11" {
		t.Errorf("record: %v", rec)
	}
	if _, shown := rec["payload"]; shown {
		t.Error("the list shows payloads")
	}
	for _, bad := range []string{"filter[payload.a-b]=1", "filter[result.x]=1", "filter[payload.month][]=1", "filter[nope]=1"} {
		r := e.operatorDo(t, http.MethodGet, "/operator/jobs?"+bad, bearer(anaToken), nil)
		if r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", bad, r.status, r.raw)
		}
	}
	// the company API still sees only its own
	own := e.get(t, "/jobs", http.StatusOK)
	if got := ids(t, own.body["data"].([]any)); !slices.Equal(got, []int64{a1, a2}) {
		t.Errorf("company A's /jobs: %v", got)
	}
}

// TestOperatorBulkRetry: the preview lists what the retry then retries,
// across companies; the retry is recorded in the audit log with the
// token's label, the reason and the jobs; a run without a reason, or with
// a stale expected count, changes nothing.
func TestOperatorBulkRetry(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	a1 := e.testJob(t, e.compA, "owners:statements", "2026-11", `{"month": "2026-11"}`, "failed", "locked")
	b1 := e.testJob(t, e.compB, "owners:statements", "2026-11", `{"month": "2026-11"}`, "failed", "locked")
	e.testJob(t, e.compB, "owners:statements", "2026-10", `{"month": "2026-10"}`, "failed", "no owners") // other month
	e.testJob(t, e.compA, "finance:overdue", "2026-11-24", `{"month": "2026-11"}`, "succeeded", "")      // not failed
	path := "/operator/jobs/retry?filter[payload.month]=2026-11&filter[kind]=owners:statements"

	preview := e.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"preview": true})
	if preview.status != http.StatusOK {
		t.Fatalf("preview: %d %s", preview.status, preview.raw)
	}
	data := preview.body["data"].(map[string]any)
	previewed := ids(t, data["jobs"].([]any))
	if !slices.Equal(previewed, []int64{a1, b1}) || data["count"] != json.Number("2") || data["audit_id"] != nil {
		t.Fatalf("preview: %s", preview.raw)
	}
	if n := e.countRows(t, `SELECT count(*) FROM jobs WHERE state = 'failed'`); n != 3 {
		t.Fatalf("the preview changed jobs: %d failed", n)
	}
	if n := e.countRows(t, `SELECT count(*) FROM operator_audit`); n != 0 {
		t.Fatalf("the preview was audited")
	}

	if r := e.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("no reason: %d %s", r.status, r.raw)
	}
	if r := e.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"reason": "x", "expected": 3}); r.status != http.StatusConflict {
		t.Errorf("stale expected: %d %s", r.status, r.raw)
	}
	if r := e.operatorDo(t, http.MethodPost, path+"&page=2", bearer(anaToken), map[string]any{"reason": "x"}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("page on a bulk action: %d %s", r.status, r.raw)
	}
	one := e.operatorDo(t, http.MethodPost, path+"&filter[company_id]="+strconv.FormatInt(e.compA, 10), bearer(anaToken),
		map[string]any{"preview": true})
	if one.body["message"] != "1 job would be retried; nothing was changed." {
		t.Errorf("preview of one job: %d %s", one.status, one.raw)
	}

	run := e.operatorDo(t, http.MethodPost, path, basic("any", ciToken), map[string]any{"reason": "the ledger lock is fixed", "expected": 2})
	if run.status != http.StatusOK {
		t.Fatalf("retry: %d %s", run.status, run.raw)
	}
	data = run.body["data"].(map[string]any)
	if got := ids(t, data["jobs"].([]any)); !slices.Equal(got, previewed) {
		t.Errorf("retried %v, previewed %v", got, previewed)
	}
	// each job as the retry left it, as POST /jobs/{id}/retry answers it
	for _, j := range data["jobs"].([]any) {
		if m := j.(map[string]any); m["state"] != "pending" || m["error"] != "" {
			t.Errorf("retried job answered as %v, want pending without its error", m)
		}
	}
	for _, id := range previewed {
		if n := e.countRows(t, `SELECT count(*) FROM jobs WHERE id = $1 AND state = 'pending' AND generation = 1`, id); n != 1 {
			t.Errorf("job %d not pending at generation 1", id)
		}
	}
	if n := e.countRows(t, `SELECT count(*) FROM jobs WHERE state = 'failed'`); n != 1 {
		t.Errorf("%d failed jobs left, want the other month's", n)
	}

	audit := e.operatorDo(t, http.MethodGet, "/operator/audit", bearer(anaToken), nil)
	entries := audit.body["data"].([]any)
	if len(entries) != 1 {
		t.Fatalf("audit: %s", audit.raw)
	}
	entry := entries[0].(map[string]any)
	wantJobs := []any{[]any{json.Number(strconv.FormatInt(e.compA, 10)), json.Number(strconv.FormatInt(a1, 10))},
		[]any{json.Number(strconv.FormatInt(e.compB, 10)), json.Number(strconv.FormatInt(b1, 10))}}
	sel, _ := url.QueryUnescape(entry["selection"].(string))
	if entry["operator"] != "ci" || entry["action"] != "jobs.retry" || entry["reason"] != "the ledger lock is fixed" ||
		entry["count"] != json.Number("2") || sel != "filter[payload.month]=2026-11&filter[kind]=owners:statements" ||
		entry["at"] == "" || !jsonEqual(entry["jobs"], wantJobs) {
		t.Errorf("audit row: %s", audit.raw)
	}
	if data["audit_id"] != entry["id"] {
		t.Errorf("the answer names audit row %v, the log has %v", data["audit_id"], entry["id"])
	}

	// a second retry finds nothing: the jobs are no longer failed
	again := e.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"reason": "again"})
	if again.body["data"].(map[string]any)["count"] != json.Number("0") {
		t.Errorf("second retry: %s", again.raw)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func (e *testEnv) countRows(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := e.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOperatorBulkCancel: the jobs not finished of a filter end canceled,
// those finished stay.
func TestOperatorBulkCancel(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	queued := e.testJob(t, e.compA, "finance:overdue", "2026-11-24", `{"date": "2026-11-24"}`, "queued", "")
	pending := e.testJob(t, e.compB, "finance:overdue", "2026-11-24", `{"date": "2026-11-24"}`, "pending", "")
	done := e.testJob(t, e.compB, "finance:overdue", "2026-11-23", `{"date": "2026-11-23"}`, "succeeded", "")
	path := "/operator/jobs/cancel?filter[kind]=finance:overdue"
	preview := e.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"preview": true})
	if got := ids(t, preview.body["data"].(map[string]any)["jobs"].([]any)); !slices.Equal(got, []int64{queued, pending}) {
		t.Fatalf("preview: %s", preview.raw)
	}
	run := e.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"reason": "wrong date"})
	if got := ids(t, run.body["data"].(map[string]any)["jobs"].([]any)); !slices.Equal(got, []int64{queued, pending}) {
		t.Fatalf("cancel: %s", run.raw)
	}
	for _, j := range run.body["data"].(map[string]any)["jobs"].([]any) {
		if m := j.(map[string]any); m["state"] != "canceled" {
			t.Errorf("canceled job answered as %v", m)
		}
	}
	if n := e.countRows(t, `SELECT count(*) FROM jobs WHERE state = 'canceled'`); n != 2 {
		t.Errorf("%d canceled", n)
	}
	if n := e.countRows(t, `SELECT count(*) FROM jobs WHERE id = $1 AND state = 'succeeded'`, done); n != 1 {
		t.Error("a finished job changed")
	}
}

// TestOperatorJobWithErrors: one job with its payload and the error of
// each failed run, the final one marked; failing it raised one alert.
func TestOperatorJobWithErrors(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	ctx := context.Background()
	id := e.testJob(t, e.compB, "finance:overdue", "2026-11-24", `{"date": "2026-11-24"}`, "queued", "")
	task := storage.TaskRef{JobRef: storage.JobRef{CompanyID: e.compB, ID: id}}
	for attempt := 1; attempt <= 3; attempt++ {
		job, ok, err := storage.StartJob(ctx, e.pool, task)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if attempt < 3 {
			if err := storage.RequeueJob(ctx, e.pool, job.Run(), "database busy "+strconv.Itoa(attempt)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for range 2 { // written twice: the second writes nothing
			if _, err := storage.FinishJob(ctx, e.pool, storage.Outcome{RunRef: job.Run(), State: storage.JobFailed, Error: "gave up"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := e.operatorDo(t, http.MethodGet, "/operator/jobs/"+strconv.FormatInt(id, 10), bearer(anaToken), nil)
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	data := r.body["data"].(map[string]any)
	errs := data["errors"].([]any)
	var got []string
	for _, x := range errs {
		m := x.(map[string]any)
		got = append(got, m["attempt"].(json.Number).String()+":"+m["error"].(string)+":"+strconv.FormatBool(m["final"].(bool)))
		if started, _ := m["started_at"].(string); started == "" || started > m["at"].(string) {
			t.Errorf("run %v: started_at %v, at %v", m["attempt"], m["started_at"], m["at"])
		}
	}
	want := []string{"1:database busy 1:false", "2:database busy 2:false", "3:gave up:true"}
	if !slices.Equal(got, want) {
		t.Errorf("errors %v, want %v", got, want)
	}
	if !jsonEqual(data["payload"], map[string]any{"date": "2026-11-24"}) || data["job"].(map[string]any)["state"] != "failed" {
		t.Errorf("job: %s", r.raw)
	}
	if n := e.countRows(t, `SELECT count(*) FROM operator_alerts WHERE kind = 'job_failed' AND job_id = $1 AND sent_at IS NULL`, id); n != 1 {
		t.Errorf("%d alerts for the failed job, want 1", n)
	}
	if r := e.operatorDo(t, http.MethodGet, "/operator/jobs/999999", bearer(anaToken), nil); r.status != http.StatusNotFound {
		t.Errorf("unknown job: %d", r.status)
	}
}
