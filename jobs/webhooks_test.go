package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// receiver is a real HTTP server the test starts: it keeps every request
// and answers with what answer says for the n-th one of a webhook-id.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(id string, n int) int
}

type received struct {
	header http.Header
	body   []byte
	at     time.Time
}

func newReceiver(t *testing.T, answer func(id string, n int) int) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{header: r.Header.Clone(), body: body, at: time.Now()})
		n := 0
		for _, g := range rc.got {
			if g.header.Get(webhook.HeaderID) == r.Header.Get(webhook.HeaderID) {
				n++
			}
		}
		rc.mu.Unlock()
		status := http.StatusOK
		if rc.answer != nil {
			status = rc.answer(r.Header.Get(webhook.HeaderID), n)
		}
		w.WriteHeader(status)
		w.Write([]byte(`{"ok":` + strconv.FormatBool(status < 300) + `}`)) //nolint:errcheck // a test server
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// webhookKinds is every kind, with deliveries allowed to loopback and
// retried after 50 ms.
func webhookKinds(t *testing.T) *Registry {
	t.Helper()
	kinds, err := Kinds(KindsConfig{Webhooks: WebhooksConfig{Policy: webhook.Policy{AllowLoopback: true}, Timeout: 2 * time.Second,
		RetryDelay: func(int) time.Duration { return 50 * time.Millisecond }}})
	if err != nil {
		t.Fatal(err)
	}
	return kinds
}

// runPlatformOn starts a relay and a worker on pool's database.
func runPlatformOn(t *testing.T, pool *pgxpool.Pool) *platform {
	t.Helper()
	p := &platform{pool: pool, redis: storagetest.NewRedis(t), kinds: webhookKinds(t)}
	p.run(t)
	return p
}

// addEndpoint inserts an endpoint of company at url subscribed to events
// and returns its id and secret.
func addEndpoint(t *testing.T, pool *pgxpool.Pool, company int64, url string, events ...string) (int64, string) {
	t.Helper()
	secret := webhook.NewSecret()
	var id int64
	if err := pool.QueryRow(context.Background(), `INSERT INTO webhook_endpoints (company_id, url, events, secret)
		VALUES ($1, $2, $3, $4) RETURNING id`, company, url, events, secret).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id, secret
}

// waitDeliveries waits until every delivery of the company is delivered
// or failed, and returns them by status.
func waitDeliveries(t *testing.T, pool *pgxpool.Pool, company int64) map[string]int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		counts := map[string]int{}
		rows, err := pool.Query(context.Background(), `SELECT status, count(*) FROM webhook_deliveries WHERE company_id = $1 GROUP BY 1`, company)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			var n int
			if err := rows.Scan(&s, &n); err != nil {
				t.Fatal(err)
			}
			counts[s] = n
		}
		rows.Close()
		if counts[storage.DeliveryPending]+counts[storage.DeliveryRetrying] == 0 {
			return counts
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries after 60 s: %v", counts)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// event is a delivered body.
type event struct {
	ID        int64           `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	CompanyID int64           `json:"company_id"`
	Data      json.RawMessage `json:"data"`
}

// TestReturnFilePaidDeliveredOnce: the invoices a bank return file pays
// give exactly one invoice.paid delivery each to every endpoint of the
// company subscribed to the type (by name or by *), posted to a real
// receiver, signed so that the Standard Webhooks reference library
// accepts it with the endpoint's secret; the body is the event (id, type,
// created_at, company_id) and its data the invoice as GET returns it,
// paid. An endpoint subscribed to another type, an inactive one and
// another company's get nothing.
func TestReturnFilePaidDeliveredOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rs := newReturnSetup(t, 3, 0, nil)
	rc := newReceiver(t, nil)
	byName, secretA := addEndpoint(t, rs.pool, rs.company, rc.srv.URL+"/a", storage.EventInvoicePaid)
	star, secretB := addEndpoint(t, rs.pool, rs.company, rc.srv.URL+"/b", "*")
	addEndpoint(t, rs.pool, rs.company, rc.srv.URL+"/c", storage.EventInvoiceOverdue)
	off, _ := addEndpoint(t, rs.pool, rs.company, rc.srv.URL+"/d", "*")
	if _, err := rs.pool.Exec(ctx, `UPDATE webhook_endpoints SET active = false WHERE company_id = $1 AND id = $2`, rs.company, off); err != nil {
		t.Fatal(err)
	}
	other := newCompany(t, rs.pool, "Outra")
	addEndpoint(t, rs.pool, other, rc.srv.URL+"/e", "*")

	res := rs.run(t)
	if res.Outcomes["settled"] != 3 {
		t.Fatalf("outcomes %v, want 3 settled", res.Outcomes)
	}
	runPlatformOn(t, rs.pool)
	if counts := waitDeliveries(t, rs.pool, rs.company); counts[storage.DeliveryDelivered] != 6 || len(counts) != 1 {
		t.Fatalf("deliveries %v, want 6 delivered", counts)
	}
	time.Sleep(300 * time.Millisecond) // nothing more comes
	secrets := map[string]string{"/a": secretA, "/b": secretB}
	paid := map[string]map[int64]int{"/a": {}, "/b": {}}
	requests := rc.requests()
	if len(requests) != 6 {
		t.Fatalf("the receiver got %d requests, want 6", len(requests))
	}
	for _, r := range requests {
		var ev event
		if err := json.Unmarshal(r.body, &ev); err != nil {
			t.Fatalf("body %s: %v", r.body, err)
		}
		var inv struct {
			ID     int64  `json:"id"`
			Paid   bool   `json:"paid"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal(ev.Data, &inv); err != nil {
			t.Fatal(err)
		}
		if ev.Type != storage.EventInvoicePaid || ev.CompanyID != rs.company || !inv.Paid || inv.Status != "paid" || ev.CreatedAt == "" {
			t.Errorf("event %s", r.body)
		}
		if r.header.Get(webhook.HeaderID) != strconv.FormatInt(ev.ID, 10) {
			t.Errorf("webhook-id %q for event %d", r.header.Get(webhook.HeaderID), ev.ID)
		}
		verified := ""
		for p, secret := range secrets {
			wh, err := standardwebhooks.NewWebhook(secret)
			if err != nil {
				t.Fatal(err)
			}
			if wh.Verify(r.body, r.header) == nil {
				verified = p
			}
		}
		if verified == "" {
			t.Errorf("no endpoint's secret verifies the delivery of event %d", ev.ID)
			continue
		}
		paid[verified][inv.ID]++
	}
	for p, byInvoice := range paid {
		for _, id := range rs.invoices {
			if byInvoice[id] != 1 {
				t.Errorf("endpoint %s got invoice %d paid %d times, want once", p, id, byInvoice[id])
			}
		}
	}
	var events int
	if err := rs.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE company_id = $1 AND type = 'invoice.paid'`,
		rs.company).Scan(&events); err != nil || events != 3 {
		t.Errorf("%d invoice.paid events (%v), want 3", events, err)
	}
	for _, id := range []int64{byName, star} {
		var n int
		rs.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE company_id = $1 AND endpoint_id = $2
			AND status = 'delivered' AND attempts = 1 AND response_status = 200 AND response_body = '{"ok":true}'`,
			rs.company, id).Scan(&n) //nolint:errcheck // n stays 0
		if n != 3 {
			t.Errorf("endpoint %d: %d deliveries delivered at the first attempt with the answer kept, want 3", id, n)
		}
	}
}

// TestRetriedWithTheSameID: a receiver answering 500 gets the delivery
// again, with the same webhook-id and a signature valid for its own
// timestamp, until it answers 2xx; the delivery counts the attempts and
// keeps the last answer. After a rotation both the new and the previous
// secret verify a delivery (two v1 signatures).
func TestRetriedWithTheSameID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company := newCompany(t, pool, "Retentativas")
	rc := newReceiver(t, func(_ string, n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	endpoint, secret := addEndpoint(t, pool, company, rc.srv.URL, storage.EventPing)
	delivery, err := storage.EmitPing(ctx, pool, company, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	runPlatformOn(t, pool)
	if counts := waitDeliveries(t, pool, company); counts[storage.DeliveryDelivered] != 1 {
		t.Fatalf("deliveries %v", counts)
	}
	got := rc.requests()
	if len(got) != 3 {
		t.Fatalf("%d requests, want 3 (two 500s, then 204)", len(got))
	}
	wh, _ := standardwebhooks.NewWebhook(secret)
	for i, r := range got {
		if r.header.Get(webhook.HeaderID) != got[0].header.Get(webhook.HeaderID) {
			t.Errorf("attempt %d: webhook-id %q, first %q", i, r.header.Get(webhook.HeaderID), got[0].header.Get(webhook.HeaderID))
		}
		if err := wh.Verify(r.body, r.header); err != nil {
			t.Errorf("attempt %d: %v", i, err)
		}
	}
	var attempts, status int
	if err := pool.QueryRow(ctx, `SELECT attempts, response_status FROM webhook_deliveries WHERE company_id = $1 AND id = $2`,
		company, delivery).Scan(&attempts, &status); err != nil || attempts != 3 || status != 204 {
		t.Errorf("delivery: %d attempts, last status %d (%v); want 3, 204", attempts, status, err)
	}
	var failingSince *time.Time
	if err := pool.QueryRow(ctx, `SELECT failing_since FROM webhook_endpoints WHERE company_id = $1 AND id = $2`,
		company, endpoint).Scan(&failingSince); err != nil || failingSince != nil {
		t.Errorf("after a delivery the endpoint is failing since %v (%v), want no run of failures", failingSince, err)
	}

	// a rotation: the old secret signs beside the new one
	fresh := webhook.NewSecret()
	if _, err := storage.RotateSecret(ctx, pool, company, endpoint, fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.EmitPing(ctx, pool, company, endpoint); err != nil {
		t.Fatal(err)
	}
	waitDeliveries(t, pool, company)
	last := rc.requests()[len(rc.requests())-1]
	for name, s := range map[string]string{"previous": secret, "new": fresh} {
		wh, _ := standardwebhooks.NewWebhook(s)
		if err := wh.Verify(last.body, last.header); err != nil {
			t.Errorf("after the rotation, the %s secret: %v", name, err)
		}
	}
	// once the overlap is over, only the new one signs
	if _, err := pool.Exec(ctx, `UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second'
		WHERE company_id = $1 AND id = $2`, company, endpoint); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.EmitPing(ctx, pool, company, endpoint); err != nil {
		t.Fatal(err)
	}
	waitDeliveries(t, pool, company)
	last = rc.requests()[len(rc.requests())-1]
	if old, _ := standardwebhooks.NewWebhook(secret); old.Verify(last.body, last.header) == nil {
		t.Error("the previous secret still signs after its 24 hours")
	}
}

// TestFailingEndpointDisabled: an endpoint failing since more than five
// days is disabled by its next failure, and a webhook.disabled event is
// kept (and delivered to the company's other endpoint subscribed to it);
// its delivery ends failed.
func TestFailingEndpointDisabled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company := newCompany(t, pool, "Desativado")
	down := newReceiver(t, func(string, int) int { return http.StatusBadGateway })
	up := newReceiver(t, nil)
	failing, _ := addEndpoint(t, pool, company, down.srv.URL, "*")
	addEndpoint(t, pool, company, up.srv.URL, storage.EventWebhookDisabled)
	if _, err := pool.Exec(ctx, `UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute'
		WHERE company_id = $1 AND id = $2`, company, failing); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.EmitPing(ctx, pool, company, failing); err != nil {
		t.Fatal(err)
	}
	runPlatformOn(t, pool)
	counts := waitDeliveries(t, pool, company)
	if counts[storage.DeliveryFailed] != 1 || counts[storage.DeliveryDelivered] != 1 {
		t.Fatalf("deliveries %v, want the ping failed and webhook.disabled delivered", counts)
	}
	var active bool
	var disabledAt *time.Time
	if err := pool.QueryRow(ctx, `SELECT active, disabled_at FROM webhook_endpoints WHERE company_id = $1 AND id = $2`,
		company, failing).Scan(&active, &disabledAt); err != nil || active || disabledAt == nil {
		t.Errorf("endpoint active %v, disabled at %v (%v)", active, disabledAt, err)
	}
	if got := up.requests(); len(got) != 1 {
		t.Fatalf("the other endpoint got %d requests", len(got))
	} else {
		var ev event
		json.Unmarshal(got[0].body, &ev) //nolint:errcheck // checked below
		var hook struct {
			ID     int64 `json:"id"`
			Active bool  `json:"active"`
		}
		json.Unmarshal(ev.Data, &hook) //nolint:errcheck // checked below
		if ev.Type != storage.EventWebhookDisabled || hook.ID != failing || hook.Active {
			t.Errorf("event %s", got[0].body)
		}
	}
	if n := len(down.requests()); n != 1 {
		t.Errorf("the failing endpoint was asked %d times, want once (then disabled)", n)
	}
}

// TestJobOutcomesEmitEvents: a job's outcome emits job.succeeded or
// job.failed (and the kind's own event on a success) in the statement that
// writes it, the data the job as GET /jobs/{id} returns it; the delivery
// jobs themselves emit none (they would feed themselves).
func TestJobOutcomesEmitEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ok := Define("test:ok", Options{SucceededEvent: storage.EventBatchFileReady}, func(context.Context, *Run, struct{}) (any, error) {
		return map[string]int{"files": 1}, nil
	})
	bad := Define("test:bad", Options{}, func(context.Context, *Run, struct{}) (any, error) {
		return nil, Permanent(errors.New("broken on purpose"))
	})
	kinds, err := Kinds(KindsConfig{Webhooks: WebhooksConfig{Policy: webhook.Policy{AllowLoopback: true}}}, ok, bad)
	if err != nil {
		t.Fatal(err)
	}
	p := &platform{pool: storagetest.NewDB(t), redis: storagetest.NewRedis(t), kinds: kinds}
	p.companyA = newCompany(t, p.pool, "Eventos")
	rc := newReceiver(t, nil)
	addEndpoint(t, p.pool, p.companyA, rc.srv.URL, "*")
	p.run(t)
	okJob := p.submit(t, "test:ok", struct{}{})
	badJob := p.submit(t, "test:bad", struct{}{})
	p.wait(t, okJob.ID, storage.JobSucceeded)
	p.wait(t, badJob.ID, storage.JobFailed)
	if counts := waitDeliveries(t, p.pool, p.companyA); counts[storage.DeliveryDelivered] != 3 {
		t.Fatalf("deliveries %v, want 3 delivered", counts)
	}
	time.Sleep(300 * time.Millisecond)
	got := map[string]string{}
	for _, r := range rc.requests() {
		var ev event
		if err := json.Unmarshal(r.body, &ev); err != nil {
			t.Fatal(err)
		}
		var job struct {
			ID     int64           `json:"id"`
			Kind   string          `json:"kind"`
			State  string          `json:"state"`
			Result json.RawMessage `json:"result"`
			Error  *string         `json:"error"`
		}
		json.Unmarshal(ev.Data, &job) //nolint:errcheck // compared below
		errText := ""
		if job.Error != nil {
			errText = *job.Error
		}
		got[ev.Type] = fmt.Sprintf("%s %s %s %s", job.Kind, job.State, job.Result, errText)
	}
	want := map[string]string{
		storage.EventJobSucceeded:   `test:ok succeeded {"files":1} `,
		storage.EventBatchFileReady: `test:ok succeeded {"files":1} `,
		storage.EventJobFailed:      fmt.Sprintf("test:bad failed null Internal error (job %d); the cause is in the worker's log.", badJob.ID),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n%v\nwant\n%v", got, want)
	}
	var n int
	if err := p.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE company_id = $1`, p.companyA).Scan(&n); err != nil || n != 3 {
		t.Errorf("%d events (%v), want 3: the deliveries' own jobs emit none", n, err)
	}
}

// TestSlowEndpointHoldsItsLaneOnly: an endpoint that answers slowly gets
// at most its lane limit of deliveries at once (1 here), and a delivery to
// another endpoint, emitted after all of them, is delivered while they
// still queue.
func TestSlowEndpointHoldsItsLaneOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company := newCompany(t, pool, "Lenta")
	var mu sync.Mutex
	inFlight, most := 0, 0
	slow := newReceiver(t, func(string, int) int {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		time.Sleep(300 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		return http.StatusOK
	})
	fast := newReceiver(t, nil)
	slowID, _ := addEndpoint(t, pool, company, slow.srv.URL, "*")
	fastID, _ := addEndpoint(t, pool, company, fast.srv.URL, "*")
	for range 6 {
		if _, err := storage.EmitPing(ctx, pool, company, slowID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := storage.EmitPing(ctx, pool, company, fastID); err != nil {
		t.Fatal(err)
	}
	kinds, err := Kinds(KindsConfig{Webhooks: WebhooksConfig{Policy: webhook.Policy{AllowLoopback: true}, EndpointConcurrency: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p := &platform{pool: pool, redis: storagetest.NewRedis(t), kinds: kinds}
	p.run(t)
	waitDeliveries(t, pool, company)
	mu.Lock()
	defer mu.Unlock()
	if most != 1 {
		t.Errorf("the slow endpoint had %d deliveries at once, want at most 1", most)
	}
	fastAt := fast.requests()[0].at
	slowDone := slow.requests()[len(slow.requests())-1].at
	if !fastAt.Before(slowDone) {
		t.Errorf("the fast endpoint's delivery (%s) waited for the slow endpoint's last (%s)", fastAt, slowDone)
	}
}
