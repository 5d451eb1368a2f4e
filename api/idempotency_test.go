package api

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The Idempotency-Key of the operations that answer at once (docs/api.md,
// "Idempotency-Key"), through the API on PostgreSQL: the refund, the
// write-off and the termination (the agreements' in
// idempotency_agreements_test.go).

// keyed posts body to path with company A's API key and the
// Idempotency-Key key ("": none).
func (e *testEnv) keyed(t *testing.T, path, key, body string) response {
	t.Helper()
	var h map[string]string
	if key != "" {
		h = map[string]string{"Idempotency-Key": key}
	}
	return e.send(t, http.MethodPost, path, e.keyA, body, h)
}

// refusedOn reports whether r is a 422 naming field alone.
func refusedOn(t *testing.T, r response, field string) bool {
	t.Helper()
	return r.status == http.StatusUnprocessableEntity && slices.Equal(r.problemFields(t), []string{field})
}

// refundsOf counts the refunds an invoice's ledger holds (one split each)
// and their entries.
func (f *invoiceFixture) refundsOf(t *testing.T, id int64) (refunds, entries int64) {
	t.Helper()
	refunds = f.scalar(t, `SELECT count(DISTINCT split) FROM transactions WHERE company_id = $1 AND invoice_id = $2
		AND refunds_id IS NOT NULL`, f.compA, id)
	entries = f.scalar(t, `SELECT count(*) FROM transactions WHERE company_id = $1 AND invoice_id = $2
		AND refunds_id IS NOT NULL`, f.compA, id)
	return refunds, entries
}

// TestIdempotentRefund: a partial refund sent twice with one key refunds
// once and answers the first answer again, byte for byte; the key with
// another body is a 422 naming the header and writes nothing; two keys
// refund twice. A preview neither reads nor records its key; a refused
// request leaves its key free; keys are the company's, and one set with
// the keys of the job-starting requests; a malformed key is a 422.
func TestIdempotentRefund(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.create(t, "/invoices", f.refundBody(10))
	f.pay(t, id, today(-3))
	path := fmt.Sprintf("/invoices/%d/refund", id)
	body := `{"amount": "250.00", "reason": "cobrança em duplicidade"}`
	check := func(what string, refunds, entries int64, refunded string) {
		t.Helper()
		r, e := f.refundsOf(t, id)
		got := fmt.Sprint(f.get(t, fmt.Sprintf("/invoices/%d", id), http.StatusOK).record(t)["refunded_amount"])
		if r != refunds || e != entries || got != refunded {
			t.Errorf("%s: %d refunds of %d entries, refunded_amount %s; want %d, %d, %s", what, r, e, got, refunds, entries, refunded)
		}
	}

	first := f.keyed(t, path, "refund-1", body)
	again := f.keyed(t, path, "refund-1", body)
	if first.status != http.StatusOK || again.status != first.status || again.raw != first.raw {
		t.Fatalf("the same key and body: %d %s\nthen %d %s", first.status, first.raw, again.status, again.raw)
	}
	check("sent twice with one key", 1, 4, "250.00")
	if r := f.keyed(t, path, "refund-1", `{"amount": "100.00", "reason": "cobrança em duplicidade"}`); !refusedOn(t, r, "Idempotency-Key") {
		t.Errorf("the key with another body: %d %s", r.status, r.raw)
	}
	if r := f.keyed(t, path, "refund-1", strings.ReplaceAll(body, " ", "")); !refusedOn(t, r, "Idempotency-Key") {
		t.Errorf("the key with the body written otherwise: %d %s (the body is compared as sent)", r.status, r.raw)
	}
	check("the key with other bodies", 1, 4, "250.00")
	second := f.keyed(t, path, "refund-2", body)
	if second.status != http.StatusOK || second.record(t)["split"] != fmt.Sprintf("invoice-%d-payment-1-refund-2", id) {
		t.Fatalf("another key: %d %s", second.status, second.raw)
	}
	check("two keys", 2, 8, "500.00")
	if r := f.keyed(t, path, "refund-1", body); r.raw != first.raw {
		t.Errorf("the first key, after another refund: %s, want the first answer %s", r.raw, first.raw)
	}

	// a preview neither reads nor records its key
	preview := `{"amount": "100.00", "reason": "devolução", "preview": true}`
	if r := f.keyed(t, path, "refund-1", preview); r.status != http.StatusOK || r.record(t)["preview"] != true {
		t.Errorf("a preview with a key recorded: %d %s, want the preview", r.status, r.raw)
	}
	if r := f.keyed(t, path, "refund-3", preview); r.status != http.StatusOK || r.record(t)["preview"] != true {
		t.Fatalf("a preview with a new key: %d %s", r.status, r.raw)
	}
	if r := f.keyed(t, path, "refund-3", `{"amount": "100.00", "reason": "devolução"}`); r.status != http.StatusOK ||
		r.record(t)["preview"] != false {
		t.Errorf("the run after the preview, with its key: %d %s, want the refund", r.status, r.raw)
	}
	check("the preview and its run", 3, 12, "600.00")

	// a refused request records nothing: its key is free for the request corrected
	if r := f.keyed(t, path, "refund-4", `{"amount": "9999.00", "reason": "demais"}`); !refusedOn(t, r, "amount") {
		t.Fatalf("too much: %d %s", r.status, r.raw)
	}
	if r := f.keyed(t, path, "refund-4", `{"amount": "10.00", "reason": "corrigido"}`); r.status != http.StatusOK {
		t.Errorf("the key of a refused request, corrected: %d %s", r.status, r.raw)
	}
	check("a refusal and its correction", 4, 16, "610.00")
	if keys := f.scalar(t, `SELECT count(*) FROM idempotency_keys WHERE company_id = $1`, f.compA); keys != 4 {
		t.Errorf("%d keys recorded, want refund-1 to refund-4 (no preview's)", keys)
	}

	// keys are the company's: company B with A's key is B's own request (404), not A's answer
	if r := f.send(t, http.MethodPost, path, f.keyB, body, map[string]string{"Idempotency-Key": "refund-1"}); r.status != http.StatusNotFound {
		t.Errorf("company B with company A's key: %d %s", r.status, r.raw)
	}
	// one set with the keys of the job-starting requests
	prune := `{"kind": "jobs:prune", "payload": {"date": "` + today(0) + `"}}`
	if r := f.keyed(t, "/jobs", "refund-1", prune); !refusedOn(t, r, "Idempotency-Key") {
		t.Errorf("a job with a refund's key: %d %s", r.status, r.raw)
	}
	if r := f.keyed(t, "/jobs", "prune-1", prune); r.status != http.StatusAccepted {
		t.Fatalf("a job: %d %s", r.status, r.raw)
	}
	if r := f.keyed(t, path, "prune-1", body); !refusedOn(t, r, "Idempotency-Key") {
		t.Errorf("a refund with a job's key: %d %s", r.status, r.raw)
	}
	// a malformed key, before anything is read
	for _, key := range []string{strings.Repeat("k", 256), "chave-çã"} {
		if r := f.keyed(t, path, key, body); !refusedOn(t, r, "Idempotency-Key") {
			t.Errorf("key %q: %d %s", key, r.status, r.raw)
		}
	}
	check("the end", 4, 16, "610.00")
}

// TestIdempotentWriteOff: a write-off sent twice with one key answers the
// first answer, not the 422 on status, and books its loss once; the key
// with another body is refused; another key is the 422 on status. Once
// the write-off is undone, its key still answers its first answer and
// writes nothing, and a new key writes the invoice off again.
func TestIdempotentWriteOff(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	loss := f.item(t, "Perda com inadimplência", "business", "customer", "default")
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"write_off_item_id": loss}); r.status != http.StatusOK {
		t.Fatalf("setting: %d %s", r.status, r.raw)
	}
	id := f.create(t, "/invoices", f.refundBody(-5))
	path := fmt.Sprintf("/invoices/%d/writeOff", id)
	body := `{"reason": "inquilino não localizado"}`
	// losses counts the write-offs booked (their reversals apart)
	check := func(what string, losses int64, status string) {
		t.Helper()
		n := f.scalar(t, `SELECT count(DISTINCT split) FROM transactions WHERE company_id = $1 AND invoice_id = $2
			AND mode = 'chargeback' AND refunds_id IS NULL AND reverses_id IS NULL`, f.compA, id)
		if got := f.get(t, fmt.Sprintf("/invoices/%d", id), http.StatusOK).record(t)["status"]; n != losses || got != status {
			t.Errorf("%s: %d losses booked, invoice %v; want %d, %s", what, n, got, losses, status)
		}
	}

	first := f.keyed(t, path, "write-off-1", body)
	again := f.keyed(t, path, "write-off-1", body)
	if first.status != http.StatusOK || first.record(t)["status"] != "uncollectible" || again.status != http.StatusOK ||
		again.raw != first.raw {
		t.Fatalf("the same key and body: %d %s\nthen %d %s", first.status, first.raw, again.status, again.raw)
	}
	check("sent twice with one key", 1, "uncollectible")
	if r := f.keyed(t, path, "write-off-1", `{"reason": "outro motivo"}`); !refusedOn(t, r, "Idempotency-Key") {
		t.Errorf("the key with another body: %d %s", r.status, r.raw)
	}
	if r := f.keyed(t, path, "write-off-2", body); !refusedOn(t, r, "status") {
		t.Errorf("another key: %d %s, want the 422 on status", r.status, r.raw)
	}
	check("another key", 1, "uncollectible")

	if r := f.put(t, id, map[string]any{"status": "unpaid"}); r.status != http.StatusOK {
		t.Fatalf("undo: %d %s", r.status, r.raw)
	}
	if r := f.keyed(t, path, "write-off-1", body); r.raw != first.raw {
		t.Errorf("the first key after the undo: %s, want the first answer", r.raw)
	}
	check("the first key after the undo", 1, "overdue")
	if r := f.keyed(t, path, "write-off-3", body); r.status != http.StatusOK {
		t.Fatalf("a new key after the undo: %d %s", r.status, r.raw)
	}
	check("a new key after the undo", 2, "uncollectible")
}

// TestIdempotentTermination: a termination sent twice with one key
// answers the first answer, not the 422 on status, and writes one final
// invoice and cancels once; the key with another body is refused; another
// key, or none, is the 422 on status.
func TestIdempotentTermination(t *testing.T) {
	t.Parallel()
	f := termEnv(t)
	id := f.lease(t, "2025-02-10", nil)
	path := contractPath(id, "terminate")
	body := `{"termination_at": "2024-12-31", "requester": "tenant", "motive": "transferência"}`
	check := func(what string) {
		t.Helper()
		finals := f.scalar(t, `SELECT count(*) FROM invoices WHERE company_id = $1 AND contract_id = $2 AND type = 'single'`, f.compA, id)
		canceled := f.scalar(t, `SELECT count(*) FROM invoices WHERE company_id = $1 AND contract_id = $2 AND status = 'canceled'`, f.compA, id)
		histories := f.scalar(t, `SELECT count(*) FROM invoice_history WHERE company_id = $1 AND origin = 'termination'`, f.compA)
		if finals != 1 || canceled != 1 || histories != 1 {
			t.Errorf("%s: %d final invoices, %d canceled, %d history rows of the cancellation; want 1 each", what, finals, canceled, histories)
		}
	}

	first := f.keyed(t, path, "terminate-1", body)
	again := f.keyed(t, path, "terminate-1", body)
	if first.status != http.StatusOK || again.status != http.StatusOK || again.raw != first.raw {
		t.Fatalf("the same key and body: %d %s\nthen %d %s", first.status, first.raw, again.status, again.raw)
	}
	check("sent twice with one key")
	if r := f.keyed(t, path, "terminate-1", `{"termination_at": "2025-01-15", "requester": "tenant"}`); !refusedOn(t, r, "Idempotency-Key") {
		t.Errorf("the key with another body: %d %s", r.status, r.raw)
	}
	if r := f.keyed(t, path, "terminate-2", body); !refusedOn(t, r, "status") {
		t.Errorf("another key: %d %s, want the 422 on status", r.status, r.raw)
	}
	if r := f.keyed(t, path, "", body); !refusedOn(t, r, "status") {
		t.Errorf("no key: %d %s, want the 422 on status", r.status, r.raw)
	}
	check("another key, and none")
}

// postRaw posts body to url+path with the API key and the
// Idempotency-Key key ("": none), from any goroutine.
func postRaw(url, apiKey, path, key, body string) (int, string, error) {
	req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, string(raw), err
}

// TestIdempotentRefundAtOnce: two identical refunds with one key in
// flight together refund once: the second waits for the first and answers
// its answer. The test holds the invoice's row, so that the first request
// claims the key and waits on the row, and sends the second once the
// first waits; both then wait, on the row and on the key, before the row
// is let go. Without a key the same two requests refund twice (what the
// test would see if the key did not hold). Then eight requests at once,
// free: one refund more.
func TestIdempotentRefundAtOnce(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.create(t, "/invoices", f.refundBody(10))
	f.pay(t, id, today(-3))
	path := fmt.Sprintf("/invoices/%d/refund", id)
	body := `{"amount": "100.00", "reason": "em dobro"}`
	type answer struct {
		status int
		raw    string
		err    error
	}
	waiting := func() int64 {
		return f.scalar(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
	}
	waitFor := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); waiting() < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d requests waiting on a lock, want %d", waiting(), n)
			}
		}
	}
	pair := func(key string) []answer {
		t.Helper()
		tx, err := f.pool.Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(t.Context(), `SELECT 1 FROM invoices WHERE company_id = $1 AND id = $2 FOR UPDATE`, f.compA, id); err != nil {
			t.Fatal(err)
		}
		answers := make([]answer, 2)
		var wg sync.WaitGroup
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := &answers[i]
				a.status, a.raw, a.err = postRaw(f.url, f.keyA, path, key, body)
			}()
			waitFor(int64(i + 1))
		}
		if err := tx.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for i, a := range answers {
			if a.err != nil || a.status != http.StatusOK {
				t.Fatalf("request %d: %d %s %v", i, a.status, a.raw, a.err)
			}
		}
		return answers
	}

	keyed := pair("at-once")
	if keyed[0].raw != keyed[1].raw {
		t.Errorf("two answers:\n%s\n%s", keyed[0].raw, keyed[1].raw)
	}
	if refunds, _ := f.refundsOf(t, id); refunds != 1 {
		t.Errorf("%d refunds made by two requests with one key, want 1", refunds)
	}
	pair("")
	if refunds, _ := f.refundsOf(t, id); refunds != 3 {
		t.Errorf("%d refunds after two requests without a key, want 3", refunds)
	}

	postAtOnce(t, f.testEnv, 8, path, "eight", body, http.StatusOK)
	if refunds, _ := f.refundsOf(t, id); refunds != 4 {
		t.Errorf("%d refunds after eight requests with one key, want 4", refunds)
	}
}

// postAtOnce posts body to path n times at once with company A's key and
// the Idempotency-Key key, and expects each answer to be status and the
// same body.
func postAtOnce(t *testing.T, e *testEnv, n int, path, key, body string, status int) {
	t.Helper()
	type answer struct {
		status int
		raw    string
		err    error
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			a := &answers[i]
			a.status, a.raw, a.err = postRaw(e.url, e.keyA, path, key, body)
		}()
	}
	close(start)
	wg.Wait()
	for i, a := range answers {
		if a.err != nil || a.status != status || a.raw != answers[0].raw {
			t.Errorf("request %d of %d: %d %s %v", i, n, a.status, a.raw, a.err)
		}
	}
}

// TestKeyedOperationsDeclareTheKey: the document declares the header on
// each keyed operation, as the one the job-starting requests take is.
func TestKeyedOperationsDeclareTheKey(t *testing.T) {
	t.Parallel()
	doc, _ := fetchDocument(t, setup(t))
	for _, path := range []string{"/invoices/{invoice_id}/refund", "/invoices/{invoice_id}/writeOff",
		"/financial/contracts/{id}/terminate", "/financial/agreements", "/financial/agreements/{id}/cancel",
		"/financial/agreements/{id}/break", "/jobs"} {
		item := doc.Paths[path]
		if item == nil || item.Post == nil {
			t.Errorf("POST %s is not in the document", path)
			continue
		}
		var header []string
		for _, p := range item.Post.Parameters {
			if p.In == "header" {
				header = append(header, p.Name)
			}
		}
		if !slices.Equal(header, []string{"Idempotency-Key"}) {
			t.Errorf("POST %s declares the headers %v, want Idempotency-Key", path, header)
		}
	}
}
