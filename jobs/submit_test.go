package jobs

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// endRun runs a job of company A to state without a worker: started, then
// finished.
func (p *platform) endRun(t *testing.T, id int64, state string) {
	t.Helper()
	ctx := context.Background()
	started, ok, err := storage.StartJob(ctx, p.pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: p.companyA, ID: id}})
	if err != nil || !ok {
		t.Fatalf("start job %d: %v (started %v)", id, err, ok)
	}
	o := storage.Outcome{RunRef: started.Run(), State: state, Result: []byte(`{}`)}
	if state == storage.JobFailed {
		o.Result, o.Error = nil, "it broke"
	}
	if _, err := storage.FinishJob(ctx, p.pool, o); err != nil {
		t.Fatal(err)
	}
}

// TestRerunIsANewRunOnceTheKeysRunsHaveFinished: a rerun of a date is a
// new job with a number of its own once every run of the date has
// finished; while one has not, that one answers, and a failed run cannot
// be retried beside it.
func TestRerunIsANewRunOnceTheKeysRunsHaveFinished(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	ctx := context.Background()
	plain := Submission{Kind: KindJobsPrune, Payload: []byte(`{"date":"2026-11-24"}`)}
	rerun := plain
	rerun.Rerun = true
	submit := func(what string, s Submission, wantFound storage.Found, wantID int64) storage.Job {
		t.Helper()
		job, found, err := p.kinds.Submit(ctx, p.pool, p.companyA, s)
		if err != nil || found != wantFound || (wantID != 0 && job.ID != wantID) {
			t.Fatalf("%s: job %d found %v err %v; want found %v job %d", what, job.ID, found, err, wantFound, wantID)
		}
		return job
	}

	first := submit("a rerun of a date never run: its first run", rerun, storage.FoundNothing, 0)
	submit("a rerun while the run is pending", rerun, storage.FoundSameKey, first.ID)
	p.endRun(t, first.ID, storage.JobSucceeded)
	submit("the date again", plain, storage.FoundSameKey, first.ID)
	second := submit("a rerun once the run finished", rerun, storage.FoundNothing, 0)
	submit("a rerun while the rerun is pending", rerun, storage.FoundSameKey, second.ID)
	submit("the date while its rerun is pending", plain, storage.FoundSameKey, second.ID)
	if sub, err := storage.SubmitForZone(ctx, p.pool, "America/Sao_Paulo", storage.NewJob{Kind: KindJobsPrune, Queue: QueueLow,
		Payload: plain.Payload, UniqueKey: "2026-11-24", SubmittedBy: "scheduler:jobs-prune"}, 10); err != nil ||
		sub.Count != 1 || len(sub.First) != 1 || sub.First[0].CompanyID != p.companyB {
		t.Fatalf("the scheduler's run of the date: %+v, %v; want company B's only", sub, err)
	}
	p.endRun(t, second.ID, storage.JobFailed)
	third := submit("a rerun after a failed rerun", rerun, storage.FoundNothing, 0)
	_, err := storage.RetryJob(ctx, p.pool, p.companyA, second.ID)
	if finance.ErrorCode(err) != finance.Conflict || !strings.Contains(err.(*finance.Error).Message, fmt.Sprintf("while job %d", third.ID)) {
		t.Fatalf("retry of the failed rerun beside the pending one: %v, want Conflict naming job %d", err, third.ID)
	}
	p.endRun(t, third.ID, storage.JobSucceeded)
	if _, err := storage.RetryJob(ctx, p.pool, p.companyA, second.ID); err != nil {
		t.Fatalf("retry of the failed rerun once the others finished: %v", err)
	}

	var runs string
	if err := p.pool.QueryRow(ctx, `SELECT string_agg(rerun || ':' || state, ',' ORDER BY id) FROM jobs
		WHERE company_id = $1 AND kind = $2 AND unique_key = '2026-11-24'`, p.companyA, KindJobsPrune).Scan(&runs); err != nil {
		t.Fatal(err)
	}
	if runs != "0:succeeded,1:pending,2:succeeded" {
		t.Errorf("company A's runs of the date (rerun:state) %s", runs)
	}
}

// TestConcurrentRerunsMakeOneJob: reruns asked at once make one new job,
// which answers them all.
func TestConcurrentRerunsMakeOneJob(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	ctx := context.Background()
	sub := Submission{Kind: KindFinanceOverdue, Payload: []byte(`{"date":"2026-11-24"}`), Rerun: true}
	first, _, err := p.kinds.Submit(ctx, p.pool, p.companyA, sub)
	if err != nil {
		t.Fatal(err)
	}
	p.endRun(t, first.ID, storage.JobSucceeded)
	const clients = 8
	ids := make([]int64, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job, _, err := p.kinds.Submit(ctx, p.pool, p.companyA, sub)
			ids[i], errs[i] = job.ID, err
		}()
	}
	wg.Wait()
	for i := range clients {
		if errs[i] != nil || ids[i] != ids[0] || ids[i] == first.ID {
			t.Fatalf("rerun %d: job %d, %v; want the one new job %d", i, ids[i], errs[i], ids[0])
		}
	}
	var n int
	if err := p.pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE company_id = $1`, p.companyA).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d jobs (%v), want the run and one rerun", n, err)
	}
}

// TestRerunOnlyOfTheKindsThatAllowIt: a rerun of a kind not declared
// Rerun is a 422 naming the kinds that allow it; a payload without a
// unique key makes a new job every time anyway.
func TestRerunOnlyOfTheKindsThatAllowIt(t *testing.T) {
	t.Parallel()
	once := Define("test:once", Options{}, func(context.Context, *Run, DatePayload) (any, error) { return nil, nil })
	p := newPlatform(t, []*Kind{once}, false)
	ctx := context.Background()
	for name, c := range map[string]struct {
		sub     Submission
		problem string // "": accepted
	}{
		"a kind run once per key": {Submission{Kind: "test:once", Payload: []byte(`{"date":"2026-11-24"}`), Rerun: true},
			"applies only to the kinds whose runs can be run again: contracts:readjust, contracts:transfer, finance:overdue, invoices:generate, invoices:remind, jobs:prune, owners:statements"},
		"a kind without keys": {Submission{Kind: KindPixValidate, Payload: []byte(`{"payloads":["x"]}`), Rerun: true},
			"applies only to the kinds whose runs can be run again: contracts:readjust, contracts:transfer, finance:overdue, invoices:generate, invoices:remind, jobs:prune, owners:statements"},
		"a contract's generation (no key)": {Submission{Kind: KindInvoicesGenerate, Rerun: true,
			Payload: []byte(fmt.Sprintf(`{"contract_id":%d,"until":"2026-12-31"}`, newContract(t, p, p.companyA)))}, ""},
	} {
		_, found, err := p.kinds.Submit(ctx, p.pool, p.companyA, c.sub)
		if c.problem == "" {
			if err != nil || found != storage.FoundNothing {
				t.Errorf("%s: %v found %v, want a new job", name, err, found)
			}
			continue
		}
		var coded *finance.Error
		if !asCoded(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) != 1 ||
			coded.Problems[0] != (finance.Problem{Field: "rerun", Message: c.problem}) {
			t.Errorf("%s: %v, want Invalid naming rerun: %s", name, err, c.problem)
		}
	}
}

func asCoded(err error, coded **finance.Error) bool {
	e, ok := err.(*finance.Error)
	*coded = e
	return ok
}

// newContract inserts a contract of company with its tenant; its id.
func newContract(t *testing.T, p *platform, company int64) int64 {
	t.Helper()
	var id int64
	err := p.pool.QueryRow(context.Background(), `WITH tenant AS (
			INSERT INTO persons (company_id, name) VALUES ($1, 'Ana Inquilina') RETURNING id)
		INSERT INTO contracts (company_id, type, tenant_id) SELECT $1, 'rent', id FROM tenant RETURNING id`, company).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRerunOfOverdueWritesWhatChangedSince: a second overdue run of the
// same date, asked as a rerun, moves the invoices added since the first
// and writes nothing else.
func TestRerunOfOverdueWritesWhatChangedSince(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	ctx := context.Background()
	seedOverdue(t, p.pool, p.companyA) // one invoice ten days late
	first := runOverdue(t, p)
	if first.Invoices != 1 {
		t.Fatalf("first run: %+v, want the late invoice moved", first)
	}
	// the rows there at the first run: statuses and when they were written
	settled := func(added int64) string {
		t.Helper()
		var s string
		if err := p.pool.QueryRow(ctx, `SELECT concat_ws(' | ',
			(SELECT string_agg(status || ' ' || updated_at, ',' ORDER BY id) FROM invoices WHERE company_id = $1 AND id <> $2),
			(SELECT string_agg(payment_status || ' ' || updated_at, ',' ORDER BY id) FROM contracts WHERE company_id = $1),
			(SELECT string_agg(status || ' ' || updated_at, ',' ORDER BY id) FROM events WHERE company_id = $1))`,
			p.companyA, added).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := settled(0)
	var added int64
	if err := p.pool.QueryRow(ctx, `INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id,
			billing_method, status, description, total, date, due_date)
		SELECT company_id, type, payer_id, contract_id, business_id, account_id, billing_method, 'unpaid', 'Condomínio', 300,
			$2::date - 5, $2::date - 2
		FROM invoices WHERE company_id = $1 AND status = 'overdue' RETURNING id`, p.companyA, overdueDate).Scan(&added); err != nil {
		t.Fatal(err)
	}
	job, found, err := p.kinds.Submit(ctx, p.pool, p.companyA, Submission{Kind: KindFinanceOverdue,
		Payload: mustJSON(DatePayload{Date: overdueDate}), Rerun: true})
	if err != nil || found != storage.FoundNothing {
		t.Fatalf("rerun: %v found %v, want a new job", err, found)
	}
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	again := decodeResult[OverdueResult](t, done)
	if again.Invoices != 1 || again.InvoicesVisited != 1 || again.Contracts != 0 {
		t.Errorf("rerun: %+v, want the added invoice alone moved (its contract's oldest open invoice is the same)", again)
	}
	var status string
	if err := p.pool.QueryRow(ctx, `SELECT status FROM invoices WHERE company_id = $1 AND id = $2`, p.companyA, added).Scan(&status); err != nil || status != "overdue" {
		t.Errorf("the added invoice: %q %v, want overdue", status, err)
	}
	if after := settled(added); after != before {
		t.Errorf("the rows of the first run changed:\n%s\nwas\n%s", after, before)
	}
}

// TestSubmitChecksThePayloadsReferences: a payload naming a record the
// company does not have is refused before anything is recorded, each
// such field named; a kind declaring a reference to an undeclared
// resource is refused by the registry.
func TestSubmitChecksThePayloadsReferences(t *testing.T) {
	t.Parallel()
	two := Define("test:two-refs", Options{References: map[string]string{"contract_id": storage.Contracts, "invoice_id": storage.Invoices}},
		func(context.Context, *Run, struct {
			ContractID int64  `json:"contract_id"`
			InvoiceID  *int64 `json:"invoice_id"`
		}) (any, error) {
			return nil, nil
		})
	p := newPlatform(t, []*Kind{two}, false)
	ctx := context.Background()
	own, others := newContract(t, p, p.companyA), newContract(t, p, p.companyB)
	generation := func(id int64) Submission {
		return Submission{Kind: KindInvoicesGenerate, Payload: []byte(fmt.Sprintf(`{"contract_id":%d,"until":"2026-12-31"}`, id))}
	}
	for name, c := range map[string]struct {
		sub  Submission
		want []finance.Problem // nil: accepted
	}{
		"its own contract":     {generation(own), nil},
		"another company's":    {generation(others), []finance.Problem{{Field: "payload.contract_id", Message: fmt.Sprintf("no contracts with id %d", others)}}},
		"no such contract":     {generation(others + 100), []finance.Problem{{Field: "payload.contract_id", Message: fmt.Sprintf("no contracts with id %d", others+100)}}},
		"a date: no reference": {Submission{Kind: KindInvoicesGenerate, Payload: []byte(`{"date":"2026-11-24"}`)}, nil},
		"a null reference":     {Submission{Kind: "test:two-refs", Payload: []byte(fmt.Sprintf(`{"contract_id":%d,"invoice_id":null}`, own))}, nil},
		"both fields, both gone": {Submission{Kind: "test:two-refs", Payload: []byte(fmt.Sprintf(`{"contract_id":%d,"invoice_id":7}`, others))},
			[]finance.Problem{{Field: "payload.contract_id", Message: fmt.Sprintf("no contracts with id %d", others)}, {Field: "payload.invoice_id", Message: "no invoices with id 7"}}},
	} {
		_, _, err := p.kinds.Submit(ctx, p.pool, p.companyA, c.sub)
		var coded *finance.Error
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s: %v, want accepted", name, err)
		case c.want != nil && (!asCoded(err, &coded) || coded.Code != finance.Invalid || fmt.Sprint(coded.Problems) != fmt.Sprint(c.want)):
			t.Errorf("%s: %v, want Invalid with %v", name, err, c.want)
		}
	}
	var n int
	if err := p.pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE company_id = $1`, p.companyA).Scan(&n); err != nil || n != 3 {
		t.Errorf("%d jobs (%v), want the 3 accepted", n, err)
	}

	bad := Define("test:bad-ref", Options{References: map[string]string{"thing_id": "things"}},
		func(context.Context, *Run, struct{}) (any, error) { return nil, nil })
	if _, err := NewRegistry(bad); err == nil || !strings.Contains(err.Error(), `undeclared resource "things"`) {
		t.Errorf("a reference to an undeclared resource: %v", err)
	}
}
