package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/api/receipt/browsertest"
	"github.com/propfin/propfin/storage"
)

// yesterdayInSaoPaulo is the date of last night's runs of a company in
// the default zone.
func yesterdayInSaoPaulo() string {
	loc, _ := time.LoadLocation("America/Sao_Paulo")
	return time.Now().In(loc).AddDate(0, 0, -1).Format(time.DateOnly)
}

// consoleFixture is company A's failed overdue run of last night and
// company B's that succeeded, both companies a month old.
func consoleFixture(t *testing.T, e *testEnv) (failed int64, date string) {
	t.Helper()
	e.exec(t, `UPDATE companies SET created_at = now() - interval '30 days'`)
	date = yesterdayInSaoPaulo()
	payload := `{"date": "` + date + `"}`
	failed = e.testJob(t, e.compA, "finance:overdue", date, payload, "failed", "the ledger was locked")
	e.testJob(t, e.compB, "finance:overdue", date, payload, "succeeded", "")
	return failed, date
}

// runAsWorker plays a worker's successful run of a job's generation.
func runAsWorker(t *testing.T, e *testEnv, company, id int64, generation int) {
	t.Helper()
	ctx := context.Background()
	job, ok, err := storage.StartJob(ctx, e.pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: company, ID: id}, Generation: generation})
	if err != nil || !ok {
		t.Fatalf("start job %d: %v %v", id, ok, err)
	}
	if ok, err := storage.FinishJob(ctx, e.pool, storage.Outcome{RunRef: job.Run(), State: storage.JobSucceeded, Result: json.RawMessage(`{}`)}); err != nil || !ok {
		t.Fatalf("finish job %d: %v %v", id, ok, err)
	}
}

// TestOperatorConsoleInBrowser loads /operator/ in headless Chromium at a
// desktop's and a phone's width: last night's failed run is red in the
// matrix, its retry button retries it (audited, under the token's label),
// and once a worker has run it the matrix shows it green; the page never
// overflows the screen, logs nothing and asks nothing off the machine.
func TestOperatorConsoleInBrowser(t *testing.T) {
	t.Parallel()
	browser := browsertest.Chromium(t)
	for _, vp := range []struct {
		name          string
		width, height int
		mobile        bool
	}{{"desktop", 1280, 900, false}, {"phone", 375, 740, true}} {
		t.Run(vp.name, func(t *testing.T) {
			e := setup(t, withLabelledTokens())
			failed, date := consoleFixture(t, e)
			page := browsertest.OpenPage(t, browser)
			page.SetHeaders(map[string]string{"Authorization": "Bearer " + anaToken})
			page.SetViewport(vp.width, vp.height, vp.mobile)
			page.Navigate(e.url + "/operator/")
			cell := `document.querySelector('table[data-schedule="finance-overdue"] td[data-company="` +
				strconv.FormatInt(e.compA, 10) + `"][data-date="` + date + `"]')`
			other := strings.Replace(cell, strconv.FormatInt(e.compA, 10), strconv.FormatInt(e.compB, 10), 1)
			if !page.WaitFor(cell+` && `+cell+`.dataset.state === 'failed'`, 30*time.Second) {
				t.Fatalf("the failed run is not in the matrix; console: %v", page.Console())
			}
			const red, green = `"rgb(201, 48, 44)"`, `"rgb(46, 157, 79)"`
			if got := string(page.Eval(`getComputedStyle(` + cell + `).backgroundColor`)); got != red {
				t.Errorf("the failed run's cell is %s, want red %s", got, red)
			}
			if got := string(page.Eval(`getComputedStyle(` + other + `).backgroundColor`)); got != green {
				t.Errorf("company B's run is %s, want green %s", got, green)
			}
			noOverflow := `document.documentElement.scrollWidth <= window.innerWidth`
			if string(page.Eval(noOverflow)) != "true" {
				t.Errorf("the page is wider than the %d-pixel screen: %s", vp.width, page.Eval(`document.documentElement.scrollWidth`))
			}
			if string(page.Eval(`!!document.querySelector('.failed-job[data-job="`+strconv.FormatInt(failed, 10)+`"] .error')`)) != "true" ||
				!strings.Contains(string(page.Eval(`document.querySelector('#failed').parentNode.textContent`)), "the ledger was locked") {
				t.Error("the failed job is not listed with its error")
			}

			page.Eval(`document.querySelector('button.retry[data-job="` + strconv.FormatInt(failed, 10) + `"]').click()`)
			// the answer's page whole: its flash comes before the matrix, which a
			// page still being parsed may not have yet
			if !page.WaitFor(`document.readyState === 'complete' && !!document.querySelector('#flash') && `+
				`document.querySelector('#flash').textContent.includes('retried')`, 30*time.Second) {
				t.Fatalf("no answer to the retry; console: %v", page.Console())
			}
			if n := e.countRows(t, `SELECT count(*) FROM jobs WHERE id = $1 AND state = 'pending' AND generation = 1`, failed); n != 1 {
				t.Fatal("the retry button did not retry the job")
			}
			if n := e.countRows(t, `SELECT count(*) FROM operator_audit WHERE operator = 'ana' AND action = 'jobs.retry' AND count = 1`); n != 1 {
				t.Error("the retry is not in the audit log under the token's label")
			}
			if !page.WaitFor(cell+` && `+cell+`.dataset.state === 'running'`, 30*time.Second) {
				t.Errorf("after the retry the cell is %s, want running", page.Eval(`(`+cell+` || {dataset: {}}).dataset.state`))
			}

			runAsWorker(t, e, e.compA, failed, 1)
			page.Navigate(e.url + "/operator/")
			if !page.WaitFor(cell+` && `+cell+`.dataset.state === 'succeeded'`, 30*time.Second) {
				t.Fatalf("the matrix did not turn green: %s", page.Eval(cell+`.dataset.state`))
			}
			if got := string(page.Eval(`getComputedStyle(` + cell + `).backgroundColor`)); got != green {
				t.Errorf("the run's cell is %s after it succeeded, want green", got)
			}
			if string(page.Eval(`!!document.querySelector('.failed-job[data-job="`+strconv.FormatInt(failed, 10)+`"]')`)) != "false" {
				t.Error("the job is still listed as failed")
			}
			if off := browsertest.OffMachine(page.Requests()); len(off) > 0 {
				t.Errorf("the page asked for something off the machine: %v", off)
			}
			if console := page.Console(); len(console) > 0 {
				t.Errorf("the page logged: %v", console)
			}
		})
	}
}

// TestOperatorConsoleSearch: the search box filters every company's jobs
// with the query language; a bad filter is said on the page.
func TestOperatorConsoleSearch(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	a := e.testJob(t, e.compA, "owners:statements", "2026-11", `{"month": "2026-11"}`, "succeeded", "")
	b := e.testJob(t, e.compB, "owners:statements", "2026-11", `{"month": "2026-11"}`, "failed", "no owners")
	e.testJob(t, e.compB, "owners:statements", "2026-10", `{"month": "2026-10"}`, "failed", "no owners")
	r := e.call(t, http.MethodGet, "/operator/?q=payload.month%3D2026-11+kind%3Downers:statements", bearer(anaToken))
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("%d %s", r.status, r.header.Get("Content-Type"))
	}
	results := r.body[strings.Index(r.body, `id="results"`):]
	for id, want := range map[int64]bool{a: true, b: true} {
		if got := strings.Contains(results, `<tr data-job="`+strconv.FormatInt(id, 10)+`">`); got != want {
			t.Errorf("job %d listed: %v", id, got)
		}
	}
	if strings.Count(results, "<tr data-job=") != 2 {
		t.Errorf("results: %s", results)
	}
	bad := e.call(t, http.MethodGet, "/operator/?q=nope%3D1", bearer(anaToken))
	if !strings.Contains(bad.body, `id="search-error"`) || !strings.Contains(bad.body, "unknown filter") {
		t.Errorf("a bad filter: %.300s", bad.body)
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	// a retry posted from another site is refused
	cross := e.call(t, http.MethodPost, "/operator/retry", bearer(anaToken), "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
	wantEnvelope(t, "cross-site retry", cross, http.StatusForbidden)
}
