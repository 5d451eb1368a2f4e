package jobs

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
)

// TestOperatorWebhook: an alert is POSTed to the operator webhook signed
// so that the Standard Webhooks reference library verifies it, with the
// alert in the event envelope; a receiver's 500 is an error (the alert
// stays unsent) and the retry carries the same webhook-id.
func TestOperatorWebhook(t *testing.T) {
	t.Parallel()
	secret := webhook.NewSecret()
	verifier, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ids []string
	var bodies [][]byte
	fail := true
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := verifier.Verify(body, r.Header); err != nil {
			t.Errorf("signature refused: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		ids, bodies = append(ids, r.Header.Get("webhook-id")), append(bodies, body)
		if fail {
			fail = false
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	job, gen, kind := int64(42), 1, "invoices:generate"
	alert := storage.Alert{CompanyID: 7, ID: 3, Kind: storage.AlertJobFailed, JobID: &job, Generation: &gen, JobKind: &kind,
		Message: "boom", RaisedAt: time.Date(2026, 11, 30, 3, 4, 5, 0, time.UTC)}
	send := OperatorWebhook(webhook.NewClient(webhook.Policy{AllowLoopback: true}, 10*time.Second), receiver.URL, secret)
	if err := send(context.Background(), alert); err == nil {
		t.Fatal("a 500 was taken as delivered")
	}
	if err := send(context.Background(), alert); err != nil {
		t.Fatalf("second attempt: %v", err)
	}
	if len(ids) != 2 || ids[0] != "alert-3" || ids[1] != ids[0] {
		t.Errorf("webhook-ids %v", ids)
	}
	var got map[string]any
	if err := json.Unmarshal(bodies[1], &got); err != nil {
		t.Fatal(err)
	}
	data, _ := got["data"].(map[string]any)
	if got["type"] != OperatorAlertEvent || got["company_id"] != float64(7) || data["kind"] != "job_failed" ||
		data["job_id"] != float64(42) || data["message"] != "boom" || data["raised_at"] != "2026-11-30 03:04:05" {
		t.Errorf("event %s", bodies[1])
	}
}

// TestOperatorWebhookNamesTheTransfer: a void_transfer_paid alert's event
// carries its transfer (transaction_id), null for the other kinds.
func TestOperatorWebhookNamesTheTransfer(t *testing.T) {
	t.Parallel()
	transfer := int64(815)
	for _, c := range []struct {
		alert storage.Alert
		want  string
	}{
		{storage.Alert{Kind: storage.AlertVoidTransferPaid, TransactionID: &transfer, Message: "The bank paid transfer 815"}, `815`},
		{storage.Alert{Kind: storage.AlertRunMissing, Message: "late"}, `null`},
	} {
		body, err := json.Marshal(alertEventOf(c.alert))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if string(got.Data["transaction_id"]) != c.want || string(got.Data["kind"]) != `"`+c.alert.Kind+`"` {
			t.Errorf("%s: %s", c.alert.Kind, body)
		}
	}
}

// TestOperatorWebhookSaysTheState: an alert's event says whether it still
// holds when it is posted: open, or resolved (the failed job succeeded on
// a retry before the alert was delivered).
func TestOperatorWebhookSaysTheState(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		open bool
		want string
	}{{true, `{"open":true,"state":"open"}`}, {false, `{"open":false,"state":"resolved"}`}} {
		body, err := json.Marshal(alertEventOf(storage.Alert{Kind: storage.AlertJobFailed, Message: "boom", Open: c.open}))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Data struct {
				Open  bool   `json:"open"`
				State string `json:"state"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(got.Data); string(b) != c.want {
			t.Errorf("open %v: %s, want %s", c.open, b, c.want)
		}
	}
}
