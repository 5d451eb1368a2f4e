package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// The load of the fault tests: clients working the API while something
// breaks. Each client loops over one round of requests (a list, a create,
// an update, a payment, a job submission, a job read), and every answer
// is counted by the phase of the fault it came in, its operation and
// its status (or "refused" and "cut" when no answer came). What the
// clients were told is kept too: the after-checks hold the database to it.

// Operations of a round.
const (
	opList   = "list"   // GET /invoices with their lines
	opCreate = "create" // POST /invoices, two lines
	opUpdate = "update" // PUT /invoices/{id}: a line added, the total with it
	opPay    = "pay"    // PUT /invoices/{id}: paid, which posts the payment
	opPix    = "pix"    // POST /pix/validate past the inline limit: a job
	opJob    = "job"    // POST /jobs invoices:generate for one contract
	opRead   = "read"   // GET /jobs/{id}
	opFile   = "file"   // GET a batch's downloadBatchFile: 202 with its job, then the file
	opReturn = "return" // POST a bank's return file: 202 with its job
)

// Statuses of requests without an answer: refused (nothing listened:
// the request never reached a server) and cut (sent, and the connection
// failed before the answer: it may have been served).
const (
	statusRefused = 0
	statusCut     = -1
)

// faultOps is the order rounds and reports follow.
var faultOps = []string{opList, opCreate, opUpdate, opPay, opPix, opJob, opRead, opFile, opReturn}

// faultLoadRateLimit is the API's rate limit under the load: out of the
// way (the limiter's own behaviour is not what is counted).
const faultLoadRateLimit = 1_000_000

// Amounts of the load's invoices: created with a rent line and a
// condominium line; an update adds a condominium line of 10.00.
const (
	loadRent, loadCondo, loadAdded = "1000.00", "350.00", "10.00"
	loadTotal, loadTotalUpdated    = "1350.00", "1360.00"
)

// faultLoad is the clients of one fault test and what they saw.
type faultLoad struct {
	api       string // base URL
	key       string
	b         storagetest.Billing
	contracts []int64 // the contracts POST /jobs generates invoices for
	until     string  // ... up to this due date
	pixBody   []byte
	pixN      int
	pixBroken map[int]bool
	http      *http.Client

	phase atomic.Pointer[string]
	stop  chan struct{}
	wg    sync.WaitGroup

	mu     sync.Mutex
	phases []string
	counts map[string]map[string]map[int]int     // phase, op, status
	took   map[string]map[string][]time.Duration // phase, op
	bad    []string                              // answers out of the envelope, or a 500
	told   told
}

// told is what the clients were told, by request: the after-checks compare
// the database with it. "Unsure" requests got no clear answer (none, or a
// 5xx): what they asked may or may not have happened, but never twice.
type told struct {
	created       map[string]int64 // an invoice's description: its id, answered 201
	unsureCreated map[string]bool
	added         map[string]int64 // a line's description: its invoice, answered 200
	unsureAdded   map[string]int64
	paid          map[int64]bool // invoices a payment answered 200
	unsurePaid    map[int64]bool
	jobs          map[string]int64 // Idempotency-Key: the job, answered 202
	unsureJobs    map[string]faultRequest
	retried       map[string]time.Time // keys sent again after no clear answer, and when
	refused       []string             // 4xx answers: none is expected
}

// faultRequest is a request as sent, to send it again.
type faultRequest struct {
	op, method, path string
	body             []byte
	key              string // Idempotency-Key
}

// newFaultLoad prepares the load on the API at addr for company, with its
// billing fixture and that many contracts to generate invoices for.
func newFaultLoad(t *testing.T, f *faultEnv, addr string, company int64, contracts int) *faultLoad {
	t.Helper()
	l := newFaultClients(t, f, addr, company)
	l.b = storagetest.NewBilling(t, f.pool, company)
	l.contracts = l.b.MonthlyContracts(t, f.pool, contracts, "2026-10-01", "2026-10-05")
	payloads, broken := fakePayloads(t, jobs.MaxInlinePix+20)
	l.pixBody, _ = json.Marshal(map[string]any{"payloads": payloads})
	l.pixN, l.pixBroken = len(payloads), broken
	l.told = told{created: map[string]int64{}, unsureCreated: map[string]bool{}, added: map[string]int64{},
		unsureAdded: map[string]int64{}, paid: map[int64]bool{}, unsurePaid: map[int64]bool{},
		jobs: map[string]int64{}, unsureJobs: map[string]faultRequest{}, retried: map[string]time.Time{}}
	return l
}

// newFaultClients prepares clients of the API at addr, with a key of
// company, and no fixture: for runReads.
func newFaultClients(t *testing.T, f *faultEnv, addr string, company int64) *faultLoad {
	t.Helper()
	key, err := storage.CreateAPIKey(context.Background(), f.pool, company, firstUser(t, f.pool, company), "fault load")
	if err != nil {
		t.Fatal(err)
	}
	return &faultLoad{api: "http://" + addr, key: key.Key, until: "2026-12-20",
		http: &http.Client{Timeout: 20 * time.Second}, stop: make(chan struct{}),
		counts: map[string]map[string]map[int]int{}, took: map[string]map[string][]time.Duration{}}
}

// setPhase names the phase the answers from now on are counted in.
func (l *faultLoad) setPhase(name string) {
	l.mu.Lock()
	if !slices.Contains(l.phases, name) {
		l.phases = append(l.phases, name)
	}
	l.mu.Unlock()
	l.phase.Store(&name)
}

// run starts n clients, in phase; they loop until halt.
func (l *faultLoad) run(n int, phase string) {
	l.setPhase(phase)
	for i := range n {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			c := &faultClient{load: l, id: i}
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				c.round()
			}
		}()
	}
}

// runReads starts n clients that send reads, in order, every 100 ms
// until halt.
func (l *faultLoad) runReads(n int, phase string, reads ...faultRequest) {
	l.setPhase(phase)
	for range n {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for {
				for _, r := range reads {
					select {
					case <-l.stop:
						return
					default:
					}
					l.send(r)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
}

// halt stops the clients and waits for their last requests.
func (l *faultLoad) halt() {
	close(l.stop)
	l.wg.Wait()
}

// phaseFor runs the clients in phase for d.
func (l *faultLoad) phaseFor(phase string, d time.Duration) {
	l.setPhase(phase)
	time.Sleep(d)
}

// retryAfter is how long a client waits after a 503: the Retry-After the
// API sends with it.
const retryAfter = time.Second

// send sends one request and counts its answer in the phase it was sent
// in (a request cut or refused by a kill, or answered 503 by an outage,
// counts where the kill or the outage is). It returns the
// status and the body. Like a careful client, it backs off after a
// failure: 100 ms when no answer came, Retry-After after a 503.
func (l *faultLoad) send(r faultRequest) (int, []byte) {
	req, err := http.NewRequest(r.method, l.api+r.path, bytes.NewReader(r.body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("Authorization", "Bearer "+l.key)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.key != "" {
		req.Header.Set("Idempotency-Key", r.key)
	}
	start, phase := time.Now(), *l.phase.Load()
	status, raw := statusCut, []byte(nil)
	res, err := l.http.Do(req)
	if err == nil {
		raw, err = io.ReadAll(res.Body)
		res.Body.Close()
		if err == nil {
			status = res.StatusCode
		}
		if err == nil && status >= 300 {
			l.checkEnvelope(r, res, raw)
		}
	} else if errors.Is(err, syscall.ECONNREFUSED) {
		status = statusRefused
	}
	if status <= statusRefused || status == http.StatusServiceUnavailable {
		// cut or refused by the kill, or answered 503 by the outage, of
		// the phase it ends in: a request sent a moment before the kill
		// or PostgreSQL's stop meets the fault, not the phase it was
		// sent in
		phase = *l.phase.Load()
	}
	l.count(phase, r.op, status, time.Since(start))
	switch {
	case status <= statusRefused:
		time.Sleep(100 * time.Millisecond)
	case status == http.StatusServiceUnavailable:
		time.Sleep(retryAfter)
	}
	return status, raw
}

// checkEnvelope records an error answer that is not the spec's envelope
// with its status, or is a 500, or a 503 without Retry-After.
func (l *faultLoad) checkEnvelope(r faultRequest, res *http.Response, raw []byte) {
	var env struct {
		Return  *bool  `json:"return"`
		Status  int    `json:"status"`
		Message string `json:"message"`
		Errors  []any  `json:"errors"`
	}
	ok := json.Unmarshal(raw, &env) == nil && env.Return != nil && !*env.Return && env.Status == res.StatusCode &&
		env.Message != "" && env.Errors != nil && res.StatusCode != http.StatusInternalServerError &&
		(res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "")
	if !ok {
		l.mu.Lock()
		l.bad = append(l.bad, fmt.Sprintf("%s %s: %d %.200s", r.method, r.path, res.StatusCode, raw))
		l.mu.Unlock()
	}
}

func (l *faultLoad) count(phase, op string, status int, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts[phase] == nil {
		l.counts[phase] = map[string]map[int]int{}
		l.took[phase] = map[string][]time.Duration{}
	}
	if l.counts[phase][op] == nil {
		l.counts[phase][op] = map[int]int{}
	}
	l.counts[phase][op][status]++
	l.took[phase][op] = append(l.took[phase][op], d)
}

// statuses returns the statuses answered in phase (all operations, or
// those named), with their counts.
func (l *faultLoad) statuses(phase string, ops ...string) map[int]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[int]int{}
	for op, byStatus := range l.counts[phase] {
		if len(ops) > 0 && !slices.Contains(ops, op) {
			continue
		}
		for status, n := range byStatus {
			out[status] += n
		}
	}
	return out
}

// report is what the clients saw, one line per phase and operation:
// "pg down  list  200×412 503×37  p50 4ms p99 1.2s".
func (l *faultLoad) report() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, phase := range l.phases {
		for _, op := range faultOps {
			byStatus := l.counts[phase][op]
			if len(byStatus) == 0 {
				continue
			}
			fmt.Fprintf(&b, "%-10s %-7s %-28s %s\n", phase, op, formatStatuses(byStatus), percentiles(l.took[phase][op]))
		}
		fmt.Fprintf(&b, "%-10s %-7s %s\n", phase, "all", formatStatuses(l.sumLocked(phase)))
	}
	return b.String()
}

func (l *faultLoad) sumLocked(phase string) map[int]int {
	out := map[int]int{}
	for _, byStatus := range l.counts[phase] {
		for status, n := range byStatus {
			out[status] += n
		}
	}
	return out
}

// formatStatuses writes counts as "200×412 503×37", by status.
func formatStatuses(byStatus map[int]int) string {
	statuses := make([]int, 0, len(byStatus))
	for s := range byStatus {
		statuses = append(statuses, s)
	}
	sort.Ints(statuses)
	parts := make([]string, len(statuses))
	for i, s := range statuses {
		name := strconv.Itoa(s)
		switch s {
		case statusRefused:
			name = "refused"
		case statusCut:
			name = "cut"
		}
		parts[i] = name + "×" + strconv.Itoa(byStatus[s])
	}
	return strings.Join(parts, " ")
}

func percentiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return ""
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return fmt.Sprintf("p50 %s p99 %s", at(0.50).Round(time.Millisecond), at(0.99).Round(time.Millisecond))
}

// only fails the test when phase saw a status outside allowed.
func (l *faultLoad) only(t *testing.T, phase string, allowed ...int) {
	t.Helper()
	for status, n := range l.statuses(phase) {
		if !okStatus(status, allowed) {
			t.Errorf("%s: %d answers %d; want only %v", phase, n, status, allowed)
		}
	}
}

// okStatus says whether status is allowed; 200 stands for every 2xx.
func okStatus(status int, allowed []int) bool {
	for _, a := range allowed {
		if status == a || (a == http.StatusOK && status >= 200 && status < 300) {
			return true
		}
	}
	return false
}

// checkAnswers fails the test on an answer out of the error envelope (or
// a 500, or a 503 without Retry-After), and on a 4xx: the load's requests
// are all valid.
func (l *faultLoad) checkAnswers(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, b := range l.bad {
		if i == 5 {
			t.Errorf("... and %d more", len(l.bad)-5)
			break
		}
		t.Errorf("an answer out of the error envelope: %s", b)
	}
	for i, r := range l.told.refused {
		if i == 5 {
			t.Errorf("... and %d more", len(l.told.refused)-5)
			break
		}
		t.Errorf("a valid request refused: %s", r)
	}
}

// faultClient is one client: it creates its own invoices, then updates
// and pays them, one step each round, and submits jobs under keys of its
// own.
type faultClient struct {
	load    *faultLoad
	id, n   int
	created []int64 // created and not updated yet
	updated []int64 // updated and not paid yet
	lastJob int64
}

// round sends one request of each operation.
func (c *faultClient) round() {
	c.n++
	c.list()
	c.create()
	c.update()
	c.pay()
	if c.n%2 == 0 {
		c.submit(faultRequest{op: opPix, method: http.MethodPost, path: "/pix/validate", body: c.load.pixBody})
	} else {
		contract := c.load.contracts[(c.id+c.n)%len(c.load.contracts)]
		body, _ := json.Marshal(map[string]any{"kind": jobs.KindInvoicesGenerate,
			"payload": map[string]any{"contract_id": contract, "until": c.load.until}})
		c.submit(faultRequest{op: opJob, method: http.MethodPost, path: "/jobs", body: body})
	}
	if c.lastJob != 0 {
		c.load.send(faultRequest{op: opRead, method: http.MethodGet, path: "/jobs/" + strconv.FormatInt(c.lastJob, 10)})
	}
}

func (c *faultClient) list() {
	c.load.send(faultRequest{op: opList, method: http.MethodGet, path: "/invoices?perPage=20&sort=-id&include[items]"})
}

// create posts an invoice named "fault c<client> n<round>".
func (c *faultClient) create() {
	l := c.load
	desc := fmt.Sprintf("fault c%d n%d", c.id, c.n)
	body, _ := json.Marshal(map[string]any{
		"type": "single", "payer_id": l.b.Tenant, "business_id": l.b.Business, "account_id": l.b.Account,
		"building_id": l.b.Building, "description": desc, "total": loadTotal, "date": "2026-11-01",
		"due_date": "2026-12-10", "billing_method": "ticket",
		"items": []any{map[string]any{"item_id": l.b.RentItem, "amount": loadRent, "description": "Aluguel"},
			map[string]any{"item_id": l.b.CondoItem, "amount": loadCondo, "description": "Condomínio"}},
	})
	r := faultRequest{op: opCreate, method: http.MethodPost, path: "/invoices", body: body}
	status, raw := l.send(r)
	id := dataID(raw)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case status == http.StatusCreated && id > 0:
		l.told.created[desc] = id
		c.created = append(c.created, id)
	case isUnsure(status):
		l.told.unsureCreated[desc] = true
	default:
		l.told.refused = append(l.told.refused, fmt.Sprintf("%s: %d %.200s", desc, status, raw))
	}
}

// update adds a line "fault line c<client> n<round>" to the client's
// oldest invoice not updated yet, with the new total.
func (c *faultClient) update() {
	if len(c.created) == 0 {
		return
	}
	l := c.load
	id := c.created[0]
	c.created = c.created[1:]
	desc := fmt.Sprintf("fault line c%d n%d", c.id, c.n)
	body, _ := json.Marshal(map[string]any{"billing_method": "ticket", "total": loadTotalUpdated,
		"items": []any{map[string]any{"item_id": l.b.CondoItem, "amount": loadAdded, "description": desc}}})
	status, raw := l.send(faultRequest{op: opUpdate, method: http.MethodPut, path: "/invoices/" + strconv.FormatInt(id, 10), body: body})
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case status == http.StatusOK:
		l.told.added[desc] = id
		c.updated = append(c.updated, id)
	case isUnsure(status):
		l.told.unsureAdded[desc] = id
	default:
		l.told.refused = append(l.told.refused, fmt.Sprintf("%s on %d: %d %.200s", desc, id, status, raw))
	}
}

// payBody marks an invoice paid on 2026-11-20, before its due date (no
// late fee: the posting is one debit and one credit entry a line).
var payBody, _ = json.Marshal(map[string]any{"billing_method": "ticket", "paid": true, "paid_at": "2026-11-20"})

// pay marks the client's oldest updated invoice paid.
func (c *faultClient) pay() {
	if len(c.updated) == 0 {
		return
	}
	id := c.updated[0]
	c.updated = c.updated[1:]
	c.load.payOnce(id)
}

// payOnce sends the payment of invoice id and records the answer.
func (l *faultLoad) payOnce(id int64) int {
	status, raw := l.send(faultRequest{op: opPay, method: http.MethodPut, path: "/invoices/" + strconv.FormatInt(id, 10), body: payBody})
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case status == http.StatusOK:
		l.told.paid[id] = true
		delete(l.told.unsurePaid, id)
	case isUnsure(status):
		l.told.unsurePaid[id] = true
	default:
		l.told.refused = append(l.told.refused, fmt.Sprintf("pay %d: %d %.200s", id, status, raw))
	}
	return status
}

// submit sends a job-starting request under a key of its own.
func (c *faultClient) submit(r faultRequest) {
	r.key = fmt.Sprintf("fault-c%d-n%d", c.id, c.n)
	if id := c.load.submitOnce(r); id > 0 {
		c.lastJob = id
	}
}

// submitOnce sends a job submission and records the answer; the job's id
// when it was accepted.
func (l *faultLoad) submitOnce(r faultRequest) int64 {
	status, raw := l.send(r)
	id := dataID(raw)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case status == http.StatusAccepted && id > 0:
		if earlier, ok := l.told.jobs[r.key]; ok && earlier != id {
			l.told.refused = append(l.told.refused, fmt.Sprintf("key %s answered job %d, then job %d", r.key, earlier, id))
		}
		l.told.jobs[r.key] = id
		delete(l.told.unsureJobs, r.key)
		return id
	case isUnsure(status):
		l.told.unsureJobs[r.key] = r
	default:
		l.told.refused = append(l.told.refused, fmt.Sprintf("%s %s key %s: %d %.200s", r.method, r.path, r.key, status, raw))
	}
	return 0
}

// retryUnsure sends again, as a client would after a failure, every job
// submission (same key, same body) and every payment that got no clear
// answer, in phase.
func (l *faultLoad) retryUnsure(phase string) {
	l.setPhase(phase)
	l.mu.Lock()
	var subs []faultRequest
	for _, r := range l.told.unsureJobs {
		subs = append(subs, r)
	}
	var pays []int64
	for id := range l.told.unsurePaid {
		pays = append(pays, id)
	}
	l.mu.Unlock()
	l.mu.Lock()
	for _, r := range subs {
		l.told.retried[r.key] = time.Now()
	}
	l.mu.Unlock()
	for _, r := range subs {
		l.submitOnce(r)
	}
	for _, id := range pays {
		l.payOnce(id)
	}
}

// isUnsure says whether a status leaves the request's outcome open: no
// answer, or the server's failure.
func isUnsure(status int) bool { return status <= statusRefused || status >= 500 }

// dataID reads data.id of an answer; 0 when there is none.
func dataID(raw []byte) int64 {
	var env struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return 0
	}
	return env.Data.ID
}

// jobWatch is a client polling one job, and the changes it saw: what a
// client waiting for its job sees through a fault.
type jobWatch struct {
	mu   sync.Mutex
	seen []jobSeen
}

// jobSeen is the job as read at a time.
type jobSeen struct {
	at       time.Time
	state    string
	attempts int
	done     int64
}

// watchJob polls GET /jobs/{id} every 250 ms (counted as reads) until
// halt, and keeps each change of state, attempts or progress.
func (l *faultLoad) watchJob(id int64) *jobWatch {
	w := &jobWatch{}
	r := faultRequest{op: opRead, method: http.MethodGet, path: "/jobs/" + strconv.FormatInt(id, 10)}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for {
			select {
			case <-l.stop:
				return
			case <-time.After(250 * time.Millisecond):
			}
			status, raw := l.send(r)
			var env struct {
				Data struct {
					State    string `json:"state"`
					Attempts int    `json:"attempts"`
					Progress struct {
						Done int64 `json:"done"`
					} `json:"progress"`
				} `json:"data"`
			}
			if status != http.StatusOK || json.Unmarshal(raw, &env) != nil {
				continue
			}
			s := jobSeen{at: time.Now(), state: env.Data.State, attempts: env.Data.Attempts, done: env.Data.Progress.Done}
			w.mu.Lock()
			if n := len(w.seen); n == 0 || w.seen[n-1].state != s.state || w.seen[n-1].attempts != s.attempts ||
				(w.seen[n-1].done != s.done && s.state != "running") {
				w.seen = append(w.seen, s)
			}
			w.mu.Unlock()
		}
	}()
	return w
}

// since describes the changes seen, in seconds from t0: "+0.0s running,
// attempt 1, 3000 done; +61.2s running, attempt 2, ...".
func (w *jobWatch) since(t0 time.Time) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	parts := make([]string, len(w.seen))
	for i, s := range w.seen {
		parts[i] = fmt.Sprintf("%+.1fs %s, attempt %d, %d done", s.at.Sub(t0).Seconds(), s.state, s.attempts, s.done)
	}
	return strings.Join(parts, "; ")
}
