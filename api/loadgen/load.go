package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/benchdata"
)

// request is one request of the load; body, when set, is sent as
// JSON.
type request struct {
	method, path string
	body         any
}

// route is one kind of request of the mix: weight of every hundred
// requests are of it, and status is the answer that is a success.
type route struct {
	name   string
	weight int
	status int
	build  func(r *rand.Rand, l *Load) request
}

// routes is the mix, weighted as an office's front end uses the API:
// mostly lists and records opened, a fifth writes, now and then a job.
// docs/performance.md lists each request in full.
var routes = []route{
	{"GET /invoices (due month, status)", 18, http.StatusOK, invoicesByMonth},
	{"GET /invoices (overdue, 120 days)", 8, http.StatusOK, invoicesOverdue},
	{"GET /invoices (a contract's)", 8, http.StatusOK, invoicesOfContract},
	{"GET /financial/contracts (filters)", 10, http.StatusOK, contractsFiltered},
	{"GET /transactions (owner statement)", 10, http.StatusOK, ownerStatement},
	{"GET /invoices/{id}", 14, http.StatusOK, getInvoice},
	{"GET /financial/contracts/{id}", 10, http.StatusOK, getContract},
	{"POST /invoices", 4, http.StatusCreated, createInvoice},
	{"PUT /invoices/{id} (edit)", 5, http.StatusOK, editInvoice},
	{"PUT /invoices/{id} (pay)", 4, http.StatusOK, payInvoice},
	{"POST /transactions", 4, http.StatusCreated, createBill},
	{"PUT /transactions/{id}", 3, http.StatusOK, updateBill},
	{"POST /jobs (jobs:prune)", 2, http.StatusAccepted, submitPrune},
}

// sampleSize is how many records of each kind the load draws its
// requests from.
const sampleSize = 50_000

// RouteNames are the names of the mix's routes, in the order the report
// lists them.
func RouteNames() []string {
	names := make([]string, len(routes))
	for i, rt := range routes {
		names[i] = rt.name
	}
	return names
}

// Load is what the clients share: the records they send requests
// about, their keys, and the invoices left to pay and the job dates left
// to submit, each taken once.
type Load struct {
	s          benchdata.Sample
	keys       []string
	edits      []benchdata.OpenInvoice
	payable    []benchdata.OpenInvoice
	pruneDates []string
	nextPay    atomic.Int64
	nextPrune  atomic.Int64
	seed       uint64
	level      int
}

// New samples the company's records and issues a key per client.
// The open invoices are split in two: those the load edits and those it
// pays (each once), so that no edit meets a paid invoice.
func New(ctx context.Context, pool *pgxpool.Pool, company benchdata.Company, clients int, seed uint64) (*Load, error) {
	s, err := benchdata.SampleOf(ctx, pool, company, sampleSize)
	if err != nil {
		return nil, err
	}
	for what, n := range map[string]int{"invoices": len(s.Invoices), "open invoices": len(s.Open) / 2,
		"contracts": len(s.Contracts), "owners": len(s.Owners), "tenants": len(s.Payers), "bills": len(s.Bills),
		"service items": len(s.ChargeItems), "expense plans": len(s.ExpensePlans)} {
		if n == 0 {
			return nil, fmt.Errorf("%s has no %s (or too few) for the load to work on", company.Name, what)
		}
	}
	l := &Load{s: s, edits: s.Open[:len(s.Open)/2], payable: s.Open[len(s.Open)/2:], seed: seed}
	used, err := benchdata.UsedJobKeys(ctx, pool, company.ID, jobs.KindJobsPrune)
	if err != nil {
		return nil, err
	}
	for d := s.Today.AddDays(1); !d.Before(finance.NewDate(2000, time.January, 1)); d = d.AddDays(-1) {
		if !used[d.String()] {
			l.pruneDates = append(l.pruneDates, d.String())
		}
	}
	if len(l.pruneDates) == 0 { // every date taken: the submissions return the jobs they name
		l.pruneDates = []string{s.Today.String()}
	}
	for i := range clients {
		key, err := storage.CreateAPIKey(ctx, pool, company.ID, company.UserID, fmt.Sprintf("bench %d", i+1))
		if err != nil {
			return nil, err
		}
		l.keys = append(l.keys, key.Key)
	}
	return l, nil
}

// Run sends the mix from clients clients: warmup unmeasured, then
// duration measured, and returns what each route answered.
func (l *Load) Run(ctx context.Context, base string, clients int, warmup, duration time.Duration) Level {
	l.level++
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	defer hc.CloseIdleConnections()
	from := time.Now().Add(warmup)
	until := from.Add(duration)
	results := make([][]routeResult, clients)
	last := make([]time.Time, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(l.seed, uint64(l.level)<<32|uint64(c)))
			results[c], last[c] = l.client(ctx, hc, base, l.keys[c], r, c, from, until)
		}()
	}
	wg.Wait()
	lv := Level{clients: clients, warmup: warmup, elapsed: duration, routes: make([]routeResult, len(routes))}
	for c := range clients {
		for i := range routes {
			lv.routes[i].merge(&results[c][i])
		}
		lv.elapsed = max(lv.elapsed, last[c].Sub(from))
	}
	return lv
}

// client sends requests until until: once measuring (from on), one of
// every route first, in its own order, then routes drawn by weight. It
// goes on past until while that first round is not over (a short level
// on a slow machine), so that every route is measured.
func (l *Load) client(ctx context.Context, hc *http.Client, base, key string, r *rand.Rand, n int,
	from, until time.Time) ([]routeResult, time.Time) {
	res := make([]routeResult, len(routes))
	var pass []int
	passed, last := false, from
	for ctx.Err() == nil {
		now := time.Now()
		if now.After(until) && passed && len(pass) == 0 {
			break
		}
		measuring := !now.Before(from)
		if measuring && !passed {
			for i := range routes {
				pass = append(pass, (i+n)%len(routes))
			}
			passed = true
		}
		i := pickRoute(r)
		if len(pass) > 0 {
			i, pass = pass[0], pass[1:]
		}
		req := routes[i].build(r, l)
		status, answer, took := send(ctx, hc, base, key, req)
		if measuring {
			res[i].record(status, took, routes[i].status, func() string {
				path, err := url.QueryUnescape(req.path)
				if err != nil {
					path = req.path
				}
				return req.method + " " + path + ": " + string(answer)
			})
			last = now.Add(took)
		}
	}
	return res, last
}

// pickRoute draws a route by its weight.
func pickRoute(r *rand.Rand) int {
	n := r.IntN(100)
	for i, rt := range routes {
		if n < rt.weight {
			return i
		}
		n -= rt.weight
	}
	return len(routes) - 1
}

// send makes one request and reads the whole answer, of which it returns
// the beginning; status 0 is no answer, with the error as the answer.
func send(ctx context.Context, hc *http.Client, base, key string, br request) (status int, answer []byte, took time.Duration) {
	var body io.Reader
	if br.body != nil {
		b, err := json.Marshal(br.body)
		if err != nil {
			return 0, []byte(err.Error()), 0
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, br.method, base+br.path, body)
	if err != nil {
		return 0, []byte(err.Error()), 0
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	res, err := hc.Do(req)
	if err != nil {
		return 0, []byte(err.Error()), time.Since(start)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	took = time.Since(start)
	if err != nil {
		return 0, []byte(err.Error()), took
	}
	return res.StatusCode, b[:min(len(b), 400)], took
}

// query is path with the parameters kv (name, value, ...) escaped; a
// value of "" is a parameter without one (include[items]).
func query(path string, kv ...string) string {
	var b strings.Builder
	b.WriteString(path)
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteByte("?&"[min(i, 1)])
		b.WriteString(url.QueryEscape(kv[i]))
		if kv[i+1] != "" {
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(kv[i+1]))
		}
	}
	return b.String()
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// money is an amount of cents written as the API reads money.
func money(cents int) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

// The requests of the mix.

func invoicesByMonth(r *rand.Rand, l *Load) request {
	first, last := finance.MonthOf(l.s.FirstDue), finance.MonthOf(l.s.LastDue)
	m := first.Add(r.IntN(int(last-first) + 1))
	// a past month's paid or overdue invoices, this month's or the next's open or paid ones
	status := []string{"paid", "paid", "paid", "paid", "paid", "paid", "paid", "overdue", "overdue", "overdue"}[r.IntN(10)]
	if m >= finance.MonthOf(l.s.Today) {
		status = []string{"unpaid", "unpaid", "unpaid", "paid", "paid"}[r.IntN(5)]
	}
	return request{http.MethodGet, query("/invoices", "filter[due_date|b]", m.First().String()+"|"+m.Last().String(),
		"filter[status]", status, "sort", "due_date", "perPage", "25", "include[items]", "", "include[payer]", ""), nil}
}

func invoicesOverdue(_ *rand.Rand, l *Load) request {
	return request{http.MethodGet, query("/invoices", "perPage", "50", "filter[dueDateMin]", l.s.Today.AddDays(-120).String(),
		"filter[overdue]", "true", "sort", "due_date", "include[items]", "", "include[payer]", ""), nil}
}

func invoicesOfContract(r *rand.Rand, l *Load) request {
	return request{http.MethodGet, query("/invoices", "filter[contractIn][]", fmt.Sprint(pick(r, l.s.Contracts)),
		"sort", "-due_date", "perPage", "12", "include[items]", ""), nil}
}

func contractsFiltered(r *rand.Rand, l *Load) request {
	if r.IntN(2) == 0 {
		return request{http.MethodGet, query("/financial/contracts", "filter[activeIn][]", "active",
			"filter[paymentStatusIn][]", pick(r, l.s.PaymentStatuses), "sort", "-id", "perPage", "25",
			"include[tenant]", "", "include[building]", ""), nil}
	}
	month := finance.MonthOf(l.s.Today).Add(r.IntN(12))
	return request{http.MethodGet, query("/financial/contracts", "filter[readjustMonth]", month.String(),
		"sort", "id", "perPage", "25", "include[tenant]", "", "include[owners]", ""), nil}
}

func ownerStatement(r *rand.Rand, l *Load) request {
	return request{http.MethodGet, query("/transactions", "filter[owner_id]", fmt.Sprint(pick(r, l.s.Owners)),
		"filter[forOwner]", "true", "filter[date|b]", l.s.Today.AddDays(-90).String()+"|"+l.s.Today.String(),
		"sort", "date", "perPage", "50", "include[invoice]", "id,description,due_date"), nil}
}

func getInvoice(r *rand.Rand, l *Load) request {
	return request{http.MethodGet, query(fmt.Sprintf("/invoices/%d", pick(r, l.s.Invoices)),
		"include[items]", "", "include[payer]", "", "include[contract]", ""), nil}
}

func getContract(r *rand.Rand, l *Load) request {
	return request{http.MethodGet, query(fmt.Sprintf("/financial/contracts/%d", pick(r, l.s.Contracts)),
		"include[items]", "", "include[tenant]", "", "include[owners]", "", "include[building]", ""), nil}
}

// createInvoice is a single invoice of services to a tenant, of one or
// two lines.
func createInvoice(r *rand.Rand, l *Load) request {
	var items []map[string]any
	total := 0
	for range 1 + r.IntN(2) {
		cents := 5_000 + r.IntN(45_000)
		total += cents
		items = append(items, map[string]any{"item_id": pick(r, l.s.ChargeItems), "amount": money(cents),
			"description": pick(r, []string{"Vistoria", "Segunda via de contrato", "Chaves", "Seguro incêndio"})})
	}
	return request{http.MethodPost, "/invoices", map[string]any{
		"type": "single", "payer_id": pick(r, l.s.Payers), "business_id": l.s.Business, "account_id": l.s.Account,
		"billing_method": "ticket", "description": "Serviços avulsos", "total": money(total),
		"date": l.s.Today.String(), "due_date": l.s.Today.AddDays(10).String(), "items": items}}
}

// editInvoice moves an open invoice's due date by a few days and renames
// it.
func editInvoice(r *rand.Rand, l *Load) request {
	inv := pick(r, l.edits)
	return request{http.MethodPut, fmt.Sprintf("/invoices/%d", inv.ID), map[string]any{
		"billing_method": inv.BillingMethod, "due_date": inv.DueDate.AddDays(r.IntN(6)).String(),
		"description": fmt.Sprintf("Aluguel (vencimento combinado, %d)", r.IntN(1000))}}
}

// payInvoice pays the next open invoice today (posting it to the ledger);
// past the last one it starts again, and those answer 409.
func payInvoice(_ *rand.Rand, l *Load) request {
	inv := l.payable[int(l.nextPay.Add(1)-1)%len(l.payable)]
	return request{http.MethodPut, fmt.Sprintf("/invoices/%d", inv.ID), map[string]any{
		"billing_method": inv.BillingMethod, "paid": true, "paid_at": l.s.Today.String()}}
}

// createBill is a bill of the business, entered by hand.
func createBill(r *rand.Rand, l *Load) request {
	return request{http.MethodPost, "/transactions", map[string]any{
		"type": "debit", "extract": "business", "amount": money(2_000 + r.IntN(300_000)), "date": l.s.Today.String(),
		"due_date": l.s.Today.AddDays(r.IntN(30)).String(), "description": "Manutenção predial", "business_id": l.s.Business,
		"account_id": l.s.Account, "plan_id": pick(r, l.s.ExpensePlans), "billing_method": "ticket"}}
}

// updateBill marks a bill checked and paid.
func updateBill(r *rand.Rand, l *Load) request {
	return request{http.MethodPut, fmt.Sprintf("/transactions/%d", pick(r, l.s.Bills)), map[string]any{
		"paid": true, "notes": fmt.Sprintf("conferido %d", r.IntN(1000))}}
}

// submitPrune submits jobs:prune for the next date not used yet.
func submitPrune(_ *rand.Rand, l *Load) request {
	date := l.pruneDates[int(l.nextPrune.Add(1)-1)%len(l.pruneDates)]
	return request{http.MethodPost, "/jobs", map[string]any{"kind": jobs.KindJobsPrune, "payload": map[string]string{"date": date}}}
}
