package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// The after-checks of the fault tests: once the fault is over and every
// job has finished, the database holds exactly what the clients were
// told, and nothing half-written. Each check reads the whole company, not
// only what the clients touched.

// afterFault is what the checks found beyond what they assert: how many
// of the requests without a clear answer took effect anyway.
type afterFault struct {
	createsLanded, createsUnsure int
	linesLanded, linesUnsure     int
	jobsLanded, jobsUnsure       int
	jobsRetried, retriesFound    int // submissions sent again, and those whose job the first had made
	maxAttempts                  int
	invoices, entries, jobs      int
}

func (a afterFault) String() string {
	return fmt.Sprintf("%d invoices, %d ledger entries, %d jobs (at most %d attempts each); of the requests left "+
		"without a clear answer, %d of %d creates and %d of %d line additions had taken effect, %d job submissions "+
		"were sent again with their key (%d found the job the first had made), %d were not, of which %d had taken effect",
		a.invoices, a.entries, a.jobs, a.maxAttempts, a.createsLanded, a.createsUnsure, a.linesLanded, a.linesUnsure,
		a.jobsRetried, a.retriesFound, a.jobsUnsure, a.jobsLanded)
}

// checkAfterFault waits for every job of the company to finish, then
// checks invoices, lines, the ledger and the jobs against what the load's
// clients were told.
func checkAfterFault(t *testing.T, f *faultEnv, company int64, l *faultLoad, wait time.Duration) afterFault {
	t.Helper()
	waitJobsFinished(t, f, company, wait)
	l.mu.Lock()
	defer l.mu.Unlock()
	var a afterFault
	checkCreates(t, f, company, l.told, &a)
	checkWholeInvoices(t, f, company, &a)
	checkAddedLines(t, f, company, l.told, &a)
	checkLedger(t, f, company, l.told, &a)
	checkJobs(t, f, company, l, &a)
	checkContractInvoices(t, f, company, l)
	return a
}

// waitJobsFinished waits until no job of the company is left to run.
func waitJobsFinished(t *testing.T, f *faultEnv, company int64, wait time.Duration) {
	t.Helper()
	eventually(t, wait, "every job to finish", func() error {
		var left int
		err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs
			WHERE company_id = $1 AND state NOT IN ('succeeded', 'failed', 'canceled')`, company).Scan(&left)
		if err == nil && left > 0 {
			err = fmt.Errorf("%d jobs not finished", left)
		}
		return err
	})
}

// rows runs a query of the checks.
func rows(t *testing.T, f *faultEnv, sql string, args ...any) pgx.Rows {
	t.Helper()
	r, err := f.pool.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return r
}

// checkCreates: every invoice answered 201 is there once, with the id
// answered; one without a clear answer is there at most once; no other
// single invoice exists.
func checkCreates(t *testing.T, f *faultEnv, company int64, told told, a *afterFault) {
	t.Helper()
	r := rows(t, f, `SELECT description, count(*), min(id) FROM invoices
		WHERE company_id = $1 AND type = 'single' GROUP BY description`, company)
	found := map[string]int64{}
	for r.Next() {
		var desc string
		var n int
		var id int64
		if err := r.Scan(&desc, &n, &id); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("invoice %q stored %d times", desc, n)
		}
		if _, ok := told.created[desc]; !ok && !told.unsureCreated[desc] {
			t.Errorf("invoice %q (%d) stored, but no client sent it", desc, id)
		}
		found[desc] = id
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for desc, id := range told.created {
		if found[desc] != id {
			t.Errorf("invoice %q answered 201 with id %d; stored: %d", desc, id, found[desc])
		}
	}
	a.createsUnsure = len(told.unsureCreated)
	for desc := range told.unsureCreated {
		if found[desc] != 0 {
			a.createsLanded++
		}
	}
}

// checkWholeInvoices: every invoice of the company has client lines, its
// total is what they charge the payer, and its history has one create.
func checkWholeInvoices(t *testing.T, f *faultEnv, company int64, a *afterFault) {
	t.Helper()
	r := rows(t, f, `SELECT i.id, i.total::text,
			coalesce(sum(CASE WHEN ti.debit = 'customer' THEN it.amount WHEN ti.credit = 'customer' THEN -it.amount ELSE 0 END)
				FILTER (WHERE it.kind = 'line'), 0)::numeric(14,2)::text,
			count(it.id) FILTER (WHERE it.kind = 'line'),
			(SELECT count(*) FROM invoice_history h WHERE h.company_id = i.company_id AND h.invoice_id = i.id AND h.origin = 'create')
		FROM invoices i
		LEFT JOIN invoice_items it ON it.company_id = i.company_id AND it.invoice_id = i.id
		LEFT JOIN transaction_items ti ON ti.company_id = it.company_id AND ti.id = it.item_id
		WHERE i.company_id = $1 GROUP BY i.company_id, i.id, i.total`, company)
	for r.Next() {
		var id int64
		var total, charged string
		var lines, creates int
		if err := r.Scan(&id, &total, &charged, &lines, &creates); err != nil {
			t.Fatal(err)
		}
		a.invoices++
		if lines == 0 || total != charged {
			t.Errorf("invoice %d half-written: total %s, its %d lines charge %s", id, total, lines, charged)
		}
		if creates != 1 {
			t.Errorf("invoice %d has %d create rows in its history", id, creates)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}

// checkAddedLines: a line an update answered 200 for is on its invoice
// once; one without a clear answer at most once; the invoice's total
// follows (checkWholeInvoices).
func checkAddedLines(t *testing.T, f *faultEnv, company int64, told told, a *afterFault) {
	t.Helper()
	r := rows(t, f, `SELECT description, invoice_id, count(*) FROM invoice_items
		WHERE company_id = $1 AND description LIKE 'fault line %' GROUP BY 1, 2`, company)
	found := map[string]int64{}
	for r.Next() {
		var desc string
		var invoice int64
		var n int
		if err := r.Scan(&desc, &invoice, &n); err != nil {
			t.Fatal(err)
		}
		if n != 1 || found[desc] != 0 {
			t.Errorf("line %q stored more than once", desc)
		}
		found[desc] = invoice
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for desc, invoice := range told.added {
		if found[desc] != invoice {
			t.Errorf("line %q answered 200 on invoice %d; stored on %d", desc, invoice, found[desc])
		}
	}
	for desc, invoice := range found {
		if told.added[desc] != invoice && told.unsureAdded[desc] != invoice {
			t.Errorf("line %q on invoice %d stored, but no client sent it there", desc, invoice)
		}
	}
	a.linesUnsure = len(told.unsureAdded)
	for desc := range told.unsureAdded {
		if found[desc] != 0 {
			a.linesLanded++
		}
	}
}

// checkLedger: a paid invoice has one posting (one split, a debit and a
// credit entry per line, debits equal to credits) and one payment row in
// its history; an unpaid one has no entry; every payment answered 200 is
// paid; no entry is outside an invoice.
func checkLedger(t *testing.T, f *faultEnv, company int64, told told, a *afterFault) {
	t.Helper()
	r := rows(t, f, `SELECT i.id, i.paid,
			(SELECT count(*) FROM invoice_items it WHERE it.company_id = i.company_id AND it.invoice_id = i.id
				AND it.kind = 'line' AND it.amount <> 0),
			count(t.id), count(DISTINCT t.split),
			coalesce(sum(t.amount) FILTER (WHERE t.type = 'debit'), 0)::text,
			coalesce(sum(t.amount) FILTER (WHERE t.type = 'credit'), 0)::text,
			(SELECT count(*) FROM invoice_history h WHERE h.company_id = i.company_id AND h.invoice_id = i.id AND h.origin = 'payment')
		FROM invoices i LEFT JOIN transactions t ON t.company_id = i.company_id AND t.invoice_id = i.id
		WHERE i.company_id = $1 GROUP BY i.company_id, i.id, i.paid`, company)
	paid := map[int64]bool{}
	for r.Next() {
		var id int64
		var isPaid bool
		var lines, entries, splits, payments int
		var debits, credits string
		if err := r.Scan(&id, &isPaid, &lines, &entries, &splits, &debits, &credits, &payments); err != nil {
			t.Fatal(err)
		}
		a.entries += entries
		paid[id] = isPaid
		switch {
		case isPaid && (entries != 2*lines || splits != 1 || debits != credits || payments != 1):
			t.Errorf("paid invoice %d: %d entries in %d postings for %d lines (debits %s, credits %s), %d payment rows",
				id, entries, splits, lines, debits, credits, payments)
		case !isPaid && (entries != 0 || payments != 0):
			t.Errorf("unpaid invoice %d has %d ledger entries and %d payment rows", id, entries, payments)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for id := range told.paid {
		if !paid[id] {
			t.Errorf("invoice %d: its payment answered 200, it is not paid", id)
		}
	}
	var loose int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM transactions
		WHERE company_id = $1 AND invoice_id IS NULL`, company).Scan(&loose); err != nil || loose != 0 {
		t.Errorf("%d ledger entries outside an invoice (%v)", loose, err)
	}
}

// checkJobs: every submission answered 202 is one job row under its key,
// with the id answered; one without a clear answer is at most one row;
// every job succeeded with the right result.
func checkJobs(t *testing.T, f *faultEnv, company int64, l *faultLoad, a *afterFault) {
	t.Helper()
	r := rows(t, f, `SELECT id, coalesce(idempotency_key, ''), kind, state, attempts, coalesce(result, 'null'),
			coalesce(error, ''), created_at FROM jobs WHERE company_id = $1 ORDER BY id`, company)
	byKey := map[string]int64{}
	for r.Next() {
		var job storage.Job
		var key string
		var result []byte
		if err := r.Scan(&job.ID, &key, &job.Kind, &job.State, &job.Attempts, &result, &job.Error, &job.CreatedAt); err != nil {
			t.Fatal(err)
		}
		if at, ok := l.told.retried[key]; ok && job.CreatedAt.Before(at) {
			a.retriesFound++
		}
		job.Result = result
		a.jobs++
		a.maxAttempts = max(a.maxAttempts, job.Attempts)
		if _, sent := l.told.jobs[key]; !sent && l.told.unsureJobs[key].key == "" {
			t.Errorf("job %d under key %q: no client sent it", job.ID, key)
		}
		byKey[key] = job.ID
		checkJobResult(t, f, company, l, job)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for key, id := range l.told.jobs {
		if byKey[key] != id {
			t.Errorf("key %s answered 202 with job %d; stored: %d", key, id, byKey[key])
		}
	}
	a.jobsRetried = len(l.told.retried)
	a.jobsUnsure = len(l.told.unsureJobs)
	for key := range l.told.unsureJobs {
		if byKey[key] != 0 {
			a.jobsLanded++
		}
	}
}

// checkJobResult checks one finished job of the load.
func checkJobResult(t *testing.T, f *faultEnv, company int64, l *faultLoad, job storage.Job) {
	t.Helper()
	if job.State != storage.JobSucceeded {
		t.Errorf("job %d (%s) is %s: %s", job.ID, job.Kind, job.State, job.Error)
		return
	}
	switch job.Kind {
	case jobs.KindPixValidate:
		checkPixResult(t, job, l.pixN, l.pixBroken)
	case jobs.KindInvoicesGenerate:
		var res jobs.ContractGeneration
		if err := json.Unmarshal(job.Result, &res); err != nil {
			t.Errorf("job %d: result %s: %v", job.ID, job.Result, err)
			return
		}
		var theirs int
		err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM invoices
			WHERE company_id = $1 AND id = any($2) AND contract_id = $3`, company, res.InvoiceIDs, res.ContractID).Scan(&theirs)
		if err != nil || theirs != len(res.InvoiceIDs) || res.Created != len(res.InvoiceIDs) {
			t.Errorf("job %d says it created %d invoices %v of contract %d; %d of them are there (%v)",
				job.ID, res.Created, res.InvoiceIDs, res.ContractID, theirs, err)
		}
	default:
		t.Errorf("job %d of kind %s: the load submits none", job.ID, job.Kind)
	}
}

// checkContractInvoices: a contract a generation job ran for has exactly
// the invoices finance schedules up to the load's date, each created by
// one of those jobs; the others have none.
func checkContractInvoices(t *testing.T, f *faultEnv, company int64, l *faultLoad) {
	t.Helper()
	ran := map[int64]bool{}
	r := rows(t, f, `SELECT DISTINCT (payload->>'contract_id')::bigint FROM jobs
		WHERE company_id = $1 AND kind = $2 AND state = 'succeeded'`, company, jobs.KindInvoicesGenerate)
	for r.Next() {
		var id int64
		if err := r.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ran[id] = true
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	var billed []int64
	for _, id := range l.contracts {
		if ran[id] {
			billed = append(billed, id)
		}
	}
	want := expectedSlots(t, l.b, billed, generationGroup{start: "2026-10-01", due: "2026-10-05"}, finance.MustDate(l.until))
	got := storedSlots(t, f, company)
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("the contracts' invoices are not those scheduled: %d stored, %d scheduled for the %d contracts billed",
			len(got), len(want), len(billed))
	}
	var orphans int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM invoices i WHERE i.company_id = $1 AND i.type = 'contract'
		AND NOT EXISTS (SELECT FROM invoice_history h JOIN jobs j ON j.company_id = h.company_id AND j.id = h.actor_id
			WHERE h.company_id = i.company_id AND h.invoice_id = i.id AND h.origin = 'create' AND h.actor = 'job'
			AND j.kind = $2 AND (j.payload->>'contract_id')::bigint = i.contract_id)`, company, jobs.KindInvoicesGenerate).Scan(&orphans); err != nil || orphans != 0 {
		t.Errorf("%d contract invoices not created by a generation job of their contract (%v)", orphans, err)
	}
}
