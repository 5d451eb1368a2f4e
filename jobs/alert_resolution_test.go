package jobs

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestOperatorWebhookPostsTheResolution: an alert delivered open is posted
// again, once, when it stops holding (its job succeeded on a retry), as
// "resolved" under a webhook-id of its own, with the first post's
// guarantees (a receiver's 500 leaves it for the next round, which posts
// it again under the same id); an alert that stopped holding before its
// delivery is posted once, resolved.
func TestOperatorWebhookPostsTheResolution(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Alerts")
	if err != nil {
		t.Fatal(err)
	}
	secret := webhook.NewSecret()
	verifier, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	type post struct{ id, state string }
	var mu sync.Mutex
	var posts []post
	failNext := false
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := verifier.Verify(body, r.Header); err != nil {
			t.Errorf("signature refused: %v", err)
		}
		var event alertEvent
		if err := json.Unmarshal(body, &event); err != nil {
			t.Errorf("event %s: %v", body, err)
		}
		if event.ID != r.Header.Get("webhook-id") {
			t.Errorf("event id %q, webhook-id %q", event.ID, r.Header.Get("webhook-id"))
		}
		mu.Lock()
		defer mu.Unlock()
		posts = append(posts, post{r.Header.Get("webhook-id"), event.Data.State})
		if failNext {
			failNext = false
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	send := OperatorWebhook(webhook.NewClient(webhook.Policy{AllowLoopback: true}, 10*time.Second), receiver.URL, secret)
	round := func(want int, wantErr bool) []post {
		t.Helper()
		mu.Lock()
		before := len(posts)
		mu.Unlock()
		sent, err := storage.SendAlerts(ctx, pool, send, 100)
		if sent != want || (err != nil) != wantErr {
			t.Fatalf("round: sent %d (%v), want %d (error %v)", sent, err, want, wantErr)
		}
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(posts[before:])
	}

	stays := failedJob(t, pool, company)
	mended := failedJob(t, pool, company)
	succeedOnRetry(t, pool, company, mended) // before its alert is delivered
	alertOf := func(job int64) storage.Alert {
		t.Helper()
		alerts, err := storage.Alerts(ctx, pool, time.Now().Add(-time.Hour), 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range alerts {
			if a.JobID != nil && *a.JobID == job {
				return a
			}
		}
		t.Fatalf("no alert for job %d", job)
		return storage.Alert{}
	}
	idOf := func(job int64) string { return "alert-" + strconv.FormatInt(alertOf(job).ID, 10) }

	got := round(2, false)
	if want := []post{{idOf(stays), "open"}, {idOf(mended), "resolved"}}; !slices.Equal(got, want) {
		t.Fatalf("first round %v, want %v", got, want)
	}
	if got := round(0, false); len(got) != 0 {
		t.Fatalf("nothing changed, yet posted %v", got)
	}

	succeedOnRetry(t, pool, company, stays)
	failNext = true
	if got := round(0, true); len(got) != 1 {
		t.Fatalf("a refused resolution: %v", got)
	}
	if a := alertOf(stays); a.ResolvedSentAt != nil {
		t.Fatalf("a refused resolution was marked delivered: %+v", a)
	}
	resolved := idOf(stays) + "-resolved"
	if got := round(1, false); !slices.Equal(got, []post{{resolved, "resolved"}}) {
		t.Fatalf("the resolution: %v, want %s resolved", got, resolved)
	}
	if got := round(0, false); len(got) != 0 {
		t.Fatalf("posted again after the resolution: %v", got)
	}
	if a := alertOf(stays); a.ResolvedSentAt == nil || a.Open {
		t.Errorf("the resolved alert: %+v", a)
	}
	if a := alertOf(mended); a.ResolvedSentAt != nil {
		t.Errorf("an alert delivered resolved had a resolution posted: %+v", a)
	}

	// an over payment holds until an operator resolves it; its resolution
	// is then posted as any other's
	var over int64
	if err := pool.QueryRow(ctx, `INSERT INTO operator_alerts (company_id, kind, run_key, invoice_id, message)
		VALUES ($1, 'over_payment', 'k', 1, 'over') RETURNING id`, company).Scan(&over); err != nil {
		t.Fatal(err)
	}
	overID := "alert-" + strconv.FormatInt(over, 10)
	if got := round(1, false); !slices.Equal(got, []post{{overID, "open"}}) {
		t.Fatalf("the over payment: %v, want %s open", got, overID)
	}
	if got := round(0, false); len(got) != 0 {
		t.Fatalf("an over payment not resolved, yet posted %v", got)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := storage.ResolveAlert(ctx, tx, over, storage.AlertResolution{Resolution: "refunded", Reason: "given back by PIX",
		Operator: "ana"}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := round(1, false); !slices.Equal(got, []post{{overID + "-resolved", "resolved"}}) {
		t.Fatalf("the over payment resolved: %v, want %s-resolved", got, overID)
	}
}

// failedJob is a job that ended failed at its first run (raising its
// alert).
func failedJob(t *testing.T, pool storage.DBTX, company int64) int64 {
	t.Helper()
	ctx := context.Background()
	job, _, err := storage.SubmitJob(ctx, pool, company, storage.NewJob{Kind: "k", Queue: "default", SubmittedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	runAndFinish(t, pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: company, ID: job.ID}}, storage.JobFailed)
	return job.ID
}

// succeedOnRetry retries a failed job, and its new run succeeds.
func succeedOnRetry(t *testing.T, pool storage.DBTX, company, id int64) {
	t.Helper()
	job, err := storage.RetryJob(context.Background(), pool, company, id)
	if err != nil {
		t.Fatal(err)
	}
	runAndFinish(t, pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: company, ID: id}, Generation: job.Generation}, storage.JobSucceeded)
}

func runAndFinish(t *testing.T, pool storage.DBTX, task storage.TaskRef, state string) {
	t.Helper()
	ctx := context.Background()
	started, ok, err := storage.StartJob(ctx, pool, task)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	o := storage.Outcome{RunRef: started.Run(), State: state, Result: []byte(`{}`)}
	if state == storage.JobFailed {
		o.Result, o.Error = nil, "boom"
	}
	if done, err := storage.FinishJob(ctx, pool, o); err != nil || !done {
		t.Fatal(done, err)
	}
}
