package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/jobs/webhook"
)

// hookReceiver is a webhook endpoint in the test's process: it keeps the
// body and headers of every request and answers 200.
type hookReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []hookRequest
}

type hookRequest struct {
	header http.Header
	body   []byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	rc := &hookReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, hookRequest{header: r.Header.Clone(), body: body})
		rc.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *hookReceiver) requests() []hookRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hookRequest(nil), rc.got...)
}

// transferEvents waits until every delivery of company A is made and the
// receiver has n requests (failing after 30 s, or when more come within
// 300 ms after), and answers each as "type transaction-id owner paid date
// amount", its signature checked with secret.
func (f *transferBatchFixture) transferEvents(t *testing.T, rc *hookReceiver, secret string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var open int
		if err := f.pool.QueryRow(t.Context(), `SELECT count(*) FROM webhook_deliveries WHERE company_id = $1
			AND status IN ('pending', 'retrying')`, f.compA).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if open == 0 && len(rc.requests()) >= n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: %d deliveries open, %d requests received, want %d", open, len(rc.requests()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // nothing more comes
	got := rc.requests()
	if len(got) != n {
		t.Fatalf("the receiver got %d requests, want %d", len(got), n)
	}
	out := make([]string, len(got))
	for i, r := range got {
		var ev struct {
			ID   int64          `json:"id"`
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		dec := json.NewDecoder(bytes.NewReader(r.body))
		dec.UseNumber()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("body %s: %v", r.body, err)
		}
		at, err := strconv.ParseInt(r.header.Get(webhook.HeaderTimestamp), 10, 64)
		if err != nil {
			t.Fatalf("webhook-timestamp %q", r.header.Get(webhook.HeaderTimestamp))
		}
		sig, err := webhook.Sign(secret, strconv.FormatInt(ev.ID, 10), time.Unix(at, 0), r.body)
		if err != nil || r.header.Get(webhook.HeaderID) != strconv.FormatInt(ev.ID, 10) ||
			!strings.Contains(r.header.Get(webhook.HeaderSignature), sig) {
			t.Errorf("request %d is not signed with the endpoint's secret: %v", i, r.header)
		}
		d := ev.Data
		if d["mode"] != "transfer" || d["type"] != "transfer" {
			t.Errorf("event %s: not a transfer", r.body)
		}
		out[i] = fmt.Sprintf("%s %v %v %v %v %v", ev.Type, d["id"], d["owner_id"], d["paid"], d["date"], d["amount"])
	}
	return out
}

// TestTransferPaidWebhook: an endpoint subscribed to transfer.paid, a real
// receiver. In batch mode the night's transfers, written unpaid, emit
// nothing (nor does the run again); Ana's paid by the payment batch's
// return file arrives once, paid on the day the bank paid (2024-03-28),
// after that file is read; Bruno's marked paid by hand arrives once, after
// that write (2024-03-29); a transfer voided with its undone payment emits
// nothing. The company then paying at once, the night writes the next
// invoice's transfers paid and emits them: two more, dated the night.
// Nothing else ever arrives.
func TestTransferPaidWebhook(t *testing.T) {
	t.Parallel()
	loopback := webhook.Policy{AllowLoopback: true}
	f := transferBatchEnvOf(t, jobs.KindsConfig{Webhooks: jobs.WebhooksConfig{Policy: loopback, Timeout: 5 * time.Second}},
		withWebhookPolicy(loopback))
	rc := newHookReceiver(t)
	r := f.do(t, http.MethodPost, "/webhooks", f.keyA, map[string]any{"url": rc.srv.URL + "/repasses", "events": []string{"transfer.paid"}})
	if r.status != http.StatusCreated {
		t.Fatalf("endpoint: %d %s", r.status, r.raw)
	}
	secret := r.record(t)["secret"].(string)
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"transfer_payment": "batch"}); r.status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.status, r.raw)
	}

	// the night: two transfers written unpaid, no event
	inv := f.paidRent(t)
	f.run(t, "contracts:transfer", `{"date":"2024-03-11"}`)
	f.rerun(t, "2024-03-11")
	_, ids := f.transfersOf(t, inv)
	if len(ids) != 2 {
		t.Fatalf("the night's transfers: %v", ids)
	}
	if got := f.transferEvents(t, rc, secret, 0); len(got) != 0 {
		t.Errorf("after the night: %v", got)
	}

	// Ana's paid by the bank's return of a payment batch
	batch := f.create(t, "/financial/paymentBatch", map[string]any{"description": "Repasses de março", "account_id": f.account})
	if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ids[f.owner60]), "added"); len(refused) != 0 {
		t.Fatalf("adding Ana's transfer: %v", refused)
	}
	file, _, _ := f.paymentFile(t, batch)
	if got := f.transferEvents(t, rc, secret, 0); len(got) != 0 {
		t.Errorf("after the batch's file: %v", got)
	}
	ret := paymentReturn(t, file, map[string]paidLine{ref(ids[f.owner60]): {codes: "00",
		date: time.Date(2024, 3, 28, 0, 0, 0, 0, saoPaulo(t)), amount: 129000}})
	r = f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, string(ret))
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	if done := f.waitJob(t, f.keyA, num(t, r.record(t)["id"])); done["state"] != "succeeded" {
		t.Fatalf("batch:return job: %v", done)
	}
	ana := fmt.Sprintf("transfer.paid %d %d true 2024-03-28 1290.00", ids[f.owner60], f.owner60)
	checkStrings(t, "after the return", f.transferEvents(t, rc, secret, 1), []string{ana})

	// Bruno's marked paid by hand
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/transactions/%d", ids[f.owner40]), f.keyA,
		map[string]any{"paid": true, "date": "2024-03-29"}); r.status != http.StatusOK {
		t.Fatalf("Bruno's paid by hand: %d %s", r.status, r.raw)
	}
	bruno := fmt.Sprintf("transfer.paid %d %d true 2024-03-29 860.00", ids[f.owner40], f.owner40)
	checkStrings(t, "after the payment by hand", f.transferEvents(t, rc, secret, 2), []string{ana, bruno})
	f.rerun(t, "2024-03-11")

	// a transfer voided with its undone payment emits nothing
	undone := f.paidRent(t)
	f.run(t, "contracts:transfer", `{"date":"2024-03-12"}`)
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", undone), f.keyA, map[string]any{"paid": false,
		"billing_method": "ticket"}); r.status != http.StatusOK {
		t.Fatalf("undo: %d %s", r.status, r.raw)
	}
	checkStrings(t, "after the void", f.transferEvents(t, rc, secret, 2), []string{ana, bruno})

	// paying at once, the night's transfers are paid and emitted
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"transfer_payment": "at_once"}); r.status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.status, r.raw)
	}
	next := f.paidRent(t)
	f.run(t, "contracts:transfer", `{"date":"2024-03-13"}`)
	_, paidAtOnce := f.transfersOf(t, next)
	got := f.transferEvents(t, rc, secret, 4)
	checkStrings(t, "the night paying at once", got[:2], []string{ana, bruno})
	at := map[string]bool{
		fmt.Sprintf("transfer.paid %d %d true 2024-03-13 1290.00", paidAtOnce[f.owner60], f.owner60): true,
		fmt.Sprintf("transfer.paid %d %d true 2024-03-13 860.00", paidAtOnce[f.owner40], f.owner40):  true,
	}
	if !at[got[2]] || !at[got[3]] || got[2] == got[3] {
		t.Errorf("the night paying at once: %q, want %v", got[2:], at)
	}
}

// checkStrings fails when got is not want.
func checkStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
