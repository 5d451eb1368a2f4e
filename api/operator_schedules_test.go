package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// scheduleOf finds a schedule in GET /operator/schedules's answer.
func scheduleOf(t *testing.T, r response, name string) map[string]any {
	t.Helper()
	for _, s := range r.body["data"].([]any) {
		if m := s.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no schedule %s in %s", name, r.raw)
	return nil
}

func numbers(t *testing.T, v any) []int64 {
	t.Helper()
	var out []int64
	for _, x := range v.([]any) {
		n, _ := x.(json.Number).Int64()
		out = append(out, n)
	}
	return out
}

// TestOperatorSchedules: a date's failed and missing runs by company, the
// last run and the spec; a run made by hand answers the existing run, makes
// the missing one, and with rerun makes a new run of the failed one; each
// is audited.
func TestOperatorSchedules(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	failed, date := consoleFixture(t, e) // A failed, B succeeded
	c, key := newCompanyKey(t, e.pool, "Company C")
	_ = key
	e.exec(t, `UPDATE companies SET created_at = now() - interval '30 days'`)

	r := e.operatorDo(t, http.MethodGet, "/operator/schedules?date="+date, bearer(anaToken), nil)
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	s := scheduleOf(t, r, "finance-overdue")
	if s["spec"] != "5 0 * * *" || s["override"] != "PROPFIN_SCHEDULE_FINANCE_OVERDUE" || s["date"] != date ||
		len(s["next_runs"].([]any)) != 1 || s["zone_rule"] == "" {
		t.Errorf("schedule: %v", s)
	}
	if got := numbers(t, s["failed"]); !slices.Equal(got, []int64{e.compA}) {
		t.Errorf("failed %v, want A", got)
	}
	if got := numbers(t, s["missing"]); !slices.Equal(got, []int64{c}) {
		t.Errorf("missing %v, want C", got)
	}
	for _, co := range s["companies"].([]any) {
		m := co.(map[string]any)
		if m["company_id"] == json.Number(strconv.FormatInt(e.compA, 10)) {
			last := m["last_run"].(map[string]any)
			if m["state"] != "failed" || m["error"] != "the ledger was locked" || last["key"] != date || last["state"] != "failed" ||
				m["job_id"] != json.Number(strconv.FormatInt(failed, 10)) {
				t.Errorf("company A: %v", m)
			}
		}
	}
	if r := e.operatorDo(t, http.MethodGet, "/operator/schedules?date=24-11-2026", bearer(anaToken), nil); r.status != http.StatusUnprocessableEntity {
		t.Errorf("bad date: %d", r.status)
	}

	path := "/operator/schedules/finance-overdue/run"
	if r := e.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"date": date}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("no reason: %d %s", r.status, r.raw)
	}
	if r := e.operatorDo(t, http.MethodPost, "/operator/schedules/nope/run", bearer(anaToken), map[string]any{"date": date, "reason": "x"}); r.status != http.StatusNotFound {
		t.Errorf("unknown schedule: %d %s", r.status, r.raw)
	}
	all := e.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"date": date, "reason": "C missed the night"})
	if all.status != http.StatusOK {
		t.Fatalf("run: %d %s", all.status, all.raw)
	}
	outcomes := map[int64]string{}
	for _, x := range all.body["data"].(map[string]any)["runs"].([]any) {
		m := x.(map[string]any)
		id, _ := m["company_id"].(json.Number).Int64()
		outcomes[id] = m["outcome"].(string)
	}
	if outcomes[e.compA] != "existing" || outcomes[e.compB] != "existing" || outcomes[c] != "created" {
		t.Errorf("outcomes %v", outcomes)
	}
	if all.body["message"] != "1 run created, 2 existing." {
		t.Errorf("message %q", all.body["message"])
	}
	if n := e.countRows(t, `SELECT count(*) FROM jobs WHERE company_id = $1 AND kind = 'finance:overdue' AND unique_key = $2
		AND submitted_by = 'operator:ana'`, c, date); n != 1 {
		t.Errorf("company C has %d runs of the date", n)
	}

	rerun := e.operatorDo(t, http.MethodPost, path, bearer(anaToken),
		map[string]any{"date": date, "company_id": e.compA, "rerun": true, "reason": "the lock is gone"})
	runs := rerun.body["data"].(map[string]any)["runs"].([]any)
	if len(runs) != 1 || runs[0].(map[string]any)["outcome"] != "created" {
		t.Fatalf("rerun: %s", rerun.raw)
	}
	if n := e.countRows(t, `SELECT count(*) FROM jobs WHERE company_id = $1 AND unique_key = $2 AND rerun = 1 AND state = 'pending'`, e.compA, date); n != 1 {
		t.Error("no new run of A's failed night")
	}
	audit := e.operatorDo(t, http.MethodGet, "/operator/audit", bearer(anaToken), nil)
	entries := audit.body["data"].([]any)
	if len(entries) != 2 || entries[0].(map[string]any)["selection"] != "schedule=finance-overdue date="+date+" company="+
		strconv.FormatInt(e.compA, 10)+" rerun=true" || entries[1].(map[string]any)["count"] != json.Number("1") ||
		entries[0].(map[string]any)["action"] != "schedules.run" {
		t.Errorf("audit: %s", audit.raw)
	}
	// the new run is under way: the night shows it
	after := scheduleOf(t, e.operatorDo(t, http.MethodGet, "/operator/schedules?date="+date, bearer(anaToken), nil), "finance-overdue")
	if got := numbers(t, after["failed"]); len(got) != 0 {
		t.Errorf("failed after the rerun: %v", got)
	}
}

// TestOperatorAlerts: a failed job's alert is listed, open while the job
// is failed.
func TestOperatorAlerts(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	failed, _ := consoleFixture(t, e)
	e.exec(t, `INSERT INTO operator_alerts (company_id, kind, job_id, generation, job_kind, message)
		VALUES ($1, 'job_failed', $2, 0, 'finance:overdue', 'the ledger was locked')`, e.compA, failed)
	r := e.operatorDo(t, http.MethodGet, "/operator/alerts", bearer(anaToken), nil)
	alerts := r.body["data"].([]any)
	if len(alerts) != 1 || alerts[0].(map[string]any)["open"] != true || alerts[0].(map[string]any)["sent_at"] != nil {
		t.Fatalf("alerts: %s", r.raw)
	}
	e.exec(t, `UPDATE jobs SET state = 'succeeded' WHERE id = $1`, failed)
	r = e.operatorDo(t, http.MethodGet, "/operator/alerts", bearer(anaToken), nil)
	if r.body["data"].([]any)[0].(map[string]any)["open"] != false {
		t.Errorf("the alert of a job no longer failed is open: %s", r.raw)
	}
}

// TestOperatorRunAheadOfItsNight: a run an operator makes for tomorrow is
// that night's, and the answer warns as POST /jobs does: on `date`, the
// same message, for the runs created alone (naming their companies when
// the request named none); a run found existing, and a date whose night
// is past, warn of nothing.
func TestOperatorRunAheadOfItsNight(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	tomorrow := today(1)
	path := "/operator/schedules/contracts-transfer/run"
	want := fmt.Sprintf("this run is the night's: schedule contracts-transfer runs contracts:transfer of %s at 06:00 "+
		"that day in the company's time zone, and finds it done, so it will not run that date again", tomorrow)
	warningsOf := func(r response) []map[string]any {
		t.Helper()
		if r.status != http.StatusOK {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		var out []map[string]any
		if ws, ok := r.body["warnings"].([]any); ok {
			for _, w := range ws {
				out = append(out, w.(map[string]any))
			}
		}
		return out
	}

	one := warningsOf(e.operatorDo(t, http.MethodPost, path, bearer(anaToken),
		map[string]any{"date": tomorrow, "company_id": e.compA, "reason": "ahead of the holiday"}))
	if len(one) != 1 || one[0]["field"] != "date" || !strings.HasPrefix(one[0]["message"].(string), want) {
		t.Fatalf("company A's run of tomorrow: warnings %v, want one on date %q...", one, want)
	}
	// the same message as POST /jobs answers for the same run
	own := e.send(t, http.MethodPost, "/jobs", e.keyB, fmt.Sprintf(`{"kind":"contracts:transfer","payload":{"date":%q}}`, tomorrow), nil)
	ownWarnings, _ := own.body["warnings"].([]any)
	if len(ownWarnings) != 1 || ownWarnings[0].(map[string]any)["message"] != one[0]["message"] {
		t.Errorf("POST /jobs warns %s; the operator's run %v", own.raw, one)
	}

	c, _ := newCompanyKey(t, e.pool, "Company C")
	d, _ := newCompanyKey(t, e.pool, "Company D")
	every := warningsOf(e.operatorDo(t, http.MethodPost, path, bearer(anaToken),
		map[string]any{"date": tomorrow, "reason": "ahead of the holiday"}))
	wantFor := fmt.Sprintf("for companies %d and %d: %s", c, d, want)
	if len(every) != 1 || every[0]["field"] != "date" || !strings.HasPrefix(every[0]["message"].(string), wantFor) {
		t.Errorf("every company's run of tomorrow (A and B existing): warnings %v, want one %q...", every, wantFor)
	}
	if again := warningsOf(e.operatorDo(t, http.MethodPost, path, bearer(anaToken),
		map[string]any{"date": tomorrow, "reason": "again"})); len(again) != 0 {
		t.Errorf("every run existing: warnings %v", again)
	}
	if past := warningsOf(e.operatorDo(t, http.MethodPost, path, bearer(anaToken),
		map[string]any{"date": "2024-03-26", "reason": "an old night"})); len(past) != 0 {
		t.Errorf("a night past: warnings %v", past)
	}
}

func TestCompaniesText(t *testing.T) {
	t.Parallel()
	many := make([]int64, aheadCompaniesListed+5)
	for i := range many {
		many[i] = int64(i + 1)
	}
	for _, c := range []struct {
		ids  []int64
		want string
	}{
		{[]int64{3}, "company 3"},
		{[]int64{3, 4}, "companies 3 and 4"},
		{[]int64{3, 4, 7}, "companies 3, 4 and 7"},
		{many, "25 companies: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 5 more"},
	} {
		if got := companiesText(c.ids); got != c.want {
			t.Errorf("%v: %q, want %q", c.ids, got, c.want)
		}
	}
}
