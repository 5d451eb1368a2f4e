package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// generationGroup is a set of like contracts of the crash test, and the
// dates its contracts are seeded with.
type generationGroup struct {
	n          int
	start, due string
}

// expectedSlots is what finance schedules for the contracts of a group
// seeded by storagetest.Billing.MonthlyContracts, up to until: one line
// per invoice, "contract period due total description".
func expectedSlots(t *testing.T, b storagetest.Billing, ids []int64, g generationGroup, until finance.Date) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		due := finance.MustDate(g.due)
		sched, err := finance.ScheduleInvoices(finance.ScheduleInput{
			Contract: finance.Contract{ID: id, Type: finance.ContractRent, Active: finance.ActiveActive,
				Status: "progress", PaymentStatus: "nothing", StartAt: finance.MustDate(g.start),
				Recurrency: finance.Monthly, Modality: finance.ModalityMonthly, Amount: decimal.RequireFromString("2000.00"),
				DueDate: due, DueDay: due.Day(), BillingTiming: finance.BillingPre, TenantID: b.Tenant},
			Items: []finance.ContractItem{{Mode: finance.ItemModeItem, ItemID: b.CondoItem, Description: "Condomínio",
				CalculateMode: finance.CalculateFixed, Amount: decimal.RequireFromString("350.00")}},
			RentItemID: b.RentItem,
			Until:      until,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range sched.Invoices {
			out = append(out, fmt.Sprintf("%d %s %s %s %s", id, inv.PeriodInitial, inv.DueDate, inv.Total.StringFixed(2), inv.Description))
		}
	}
	return out
}

// TestNightlyGenerationKilledMidRun kills a worker (kill -9) in the middle
// of the nightly generation of 10,000 contracts, while clients read the
// job and the invoices through the API; a new worker finishes the run.
// The clients are answered 200 throughout; the invoices are exactly those
// finance schedules for each contract, none twice, none missing, each
// whole (its two lines, its total, one history row); one job row, two
// attempts; no ledger entry.
func TestNightlyGenerationKilledMidRun(t *testing.T) {
	t.Parallel()
	// ten chunks of 1,000, 400 ms apart: the kill lands between them
	f := newFaultEnv(t, "PROPFIN_JOB_CHUNK_PAUSE=400ms", "PROPFIN_WORKER_CONCURRENCY=2",
		fmt.Sprintf("PROPFIN_RATE_LIMIT=%d", faultLoadRateLimit))
	company := f.company(t, "Generation Kill Test", jobs.DefaultTimeZone)
	b := storagetest.NewBilling(t, f.pool, company)
	until := finance.MustDate("2026-12-20") // the date below plus the default lead of 30 days
	groups := []generationGroup{
		{2_500, "2026-10-01", "2026-10-05"}, // three invoices each
		{2_500, "2026-11-01", "2026-11-10"}, // two
		{2_500, "2026-12-01", "2026-12-15"}, // one
		{2_500, "2026-12-01", "2026-12-25"}, // none yet
	}
	var want []string
	for _, g := range groups {
		ids := b.MonthlyContracts(t, f.pool, g.n, g.start, g.due)
		want = append(want, expectedSlots(t, b, ids, g, until)...)
	}
	kinds, err := jobs.Kinds(jobs.KindsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	job, _, err := kinds.Submit(context.Background(), f.pool, company, jobs.Submission{
		Kind: jobs.KindInvoicesGenerate, Payload: json.RawMessage(`{"date":"2026-11-20"}`)})
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	f.startAPI(t, "api", addr)
	clients := newFaultClients(t, f, addr, company)
	watch := clients.watchJob(job.ID)
	clients.runReads(2, "worker 1",
		faultRequest{op: opList, method: http.MethodGet, path: "/invoices?perPage=50&sort=-id&include[items]"},
		faultRequest{op: opRead, method: http.MethodGet, path: "/jobs?filter[kind]=" + jobs.KindInvoicesGenerate})
	first := startProc(t, "worker 1", f.env, "worker")
	f.waitProgress(t, job, 3_000)
	clients.setPhase("killed")
	first.kill()
	killed := time.Now()
	atKill := f.job(t, company, job.ID)
	if atKill.State != storage.JobRunning || atKill.Progress.Done >= 10_000 {
		t.Fatalf("after kill -9 the job is %s at %+v; the kill came too late to test anything", atKill.State, atKill.Progress)
	}
	startProc(t, "worker 2", f.env, "worker")
	done := f.waitFinished(t, job, 4*time.Minute)
	time.Sleep(500 * time.Millisecond) // the watching client sees the end too
	clients.halt()
	clients.checkAnswers(t)
	for _, phase := range clients.phases {
		clients.only(t, phase, http.StatusOK)
	}
	if done.State != storage.JobSucceeded || done.Attempts != 2 {
		t.Fatalf("job %s after %d attempts (%s)", done.State, done.Attempts, done.Error)
	}
	got := storedSlots(t, f, company)
	if len(got) != len(want) {
		t.Errorf("%d invoices, want %d", len(got), len(want))
	}
	wantSet := map[string]bool{}
	for _, w := range want {
		wantSet[w] = true
	}
	seen := map[string]bool{}
	for _, g := range got {
		if seen[g] || !wantSet[g] {
			t.Fatalf("invoice %q: twice, or not scheduled", g)
		}
		seen[g] = true
	}
	for _, w := range want {
		if !seen[w] {
			t.Fatalf("invoice %q missing", w)
		}
	}
	var res jobs.NightlyGeneration
	if err := json.Unmarshal(done.Result, &res); err != nil || res.Created != len(want) || res.Contracts != 10_000 {
		t.Errorf("result %s (%v), want %d created of 10000 contracts", done.Result, err, len(want))
	}
	var lines, entries, jobRows int
	err = f.pool.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM invoice_items WHERE company_id = $1),
			(SELECT count(*) FROM transactions WHERE company_id = $1),
			(SELECT count(*) FROM jobs WHERE company_id = $1)`, company).Scan(&lines, &entries, &jobRows)
	if err != nil || lines != 2*len(want) || entries != 0 || jobRows != 1 {
		t.Errorf("%d invoice lines (want %d), %d ledger entries (want 0), %d job rows (want 1): %v",
			lines, 2*len(want), entries, jobRows, err)
	}
	var a afterFault
	checkWholeInvoices(t, f, company, &a)
	t.Logf("killed at %d of 10000 contracts; %d invoices after the restart, %d attempts", atKill.Progress.Done, len(got), done.Attempts)
	t.Logf("what the clients saw (status×count):\n%sthe job as a client polling it saw it, from the kill: %s",
		clients.report(), watch.since(killed))
}

// storedSlots reads the company's contract invoices as expectedSlots
// writes them.
func storedSlots(t *testing.T, f *faultEnv, company int64) []string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `SELECT contract_id, period_initial::text, due_date::text, total::text, description
		FROM invoices WHERE company_id = $1 AND type = 'contract' ORDER BY id`, company)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var pi, due, total, desc string
		if err := rows.Scan(&id, &pi, &due, &total, &desc); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d %s %s %s %s", id, pi, due, total, desc))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
