package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// The Idempotency-Key of the agreements (docs/api.md, "Idempotency-Key"):
// POST /financial/agreements and its cancel and break, through the API on
// PostgreSQL.

// agreementJSON is the worked agreement's body, with the overrides, as
// the bytes sent.
func (f *agreementFixture) agreementJSON(t *testing.T, overrides map[string]any) string {
	t.Helper()
	b, err := json.Marshal(f.body(overrides))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestIdempotentAgreement: an agreement sent twice with one key is made
// once, and the second answer is the first, byte for byte, with its
// Location, not the 422 of invoices already renegotiated; the key with
// another body is a 422 naming the header and writes nothing; another key
// is the 422 on the invoices. A preview with the key before neither
// answers nor records it. Canceling twice with one key answers the first
// answer, not the 409 of an agreement canceled, and cancels once.
func TestIdempotentAgreement(t *testing.T) {
	t.Parallel()
	f := agreementEnv(t)
	const path = "/financial/agreements"
	body := f.agreementJSON(t, nil)
	before := f.counts(t)
	if r := f.keyed(t, path, "agree-1", f.agreementJSON(t, map[string]any{"preview": true})); r.status != http.StatusOK ||
		r.record(t)["id"] != nil {
		t.Fatalf("the preview with a key: %d %s", r.status, r.raw)
	}
	if got := f.counts(t); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("the preview wrote: %v, then %v", before, got)
	}
	first := f.keyed(t, path, "agree-1", body)
	again := f.keyed(t, path, "agree-1", body)
	location := first.header.Get("Location")
	if first.status != http.StatusCreated || location != fmt.Sprintf("%s/%d", path, num(t, first.record(t)["id"])) {
		t.Fatalf("the run after the preview, with its key: %d %q %s", first.status, location, first.raw)
	}
	if again.status != first.status || again.raw != first.raw || again.header.Get("Location") != location {
		t.Fatalf("the same key and body: %d %q %s\nthen %d %q %s", first.status, location, first.raw, again.status,
			again.header.Get("Location"), again.raw)
	}
	if r := f.keyed(t, path, "agree-1", f.agreementJSON(t, map[string]any{"installments": 3})); !refusedOn(t, r, "Idempotency-Key") {
		t.Errorf("the key with another body: %d %s", r.status, r.raw)
	}
	if r := f.keyed(t, path, "agree-2", body); r.status != http.StatusUnprocessableEntity || r.problemFields(t)[0] != "invoices.0" {
		t.Errorf("another key: %d %s, want the 422 on the invoices", r.status, r.raw)
	}
	after := f.counts(t)
	if after["agreements"] != 1 || after["renegotiated"] != 3 || after["invoices"] != before["invoices"]+4 {
		t.Errorf("after the repeats: %v, want one agreement of four installments", after)
	}
	if keys := f.scalar(t, `SELECT count(*) FROM idempotency_keys WHERE company_id = $1`, f.compA); keys != 1 {
		t.Errorf("%d keys recorded, want agree-1 alone (no preview's, no refusal's)", keys)
	}

	cancel := fmt.Sprintf("%s/%d/cancel", path, num(t, first.record(t)["id"]))
	c1 := f.keyed(t, cancel, "cancel-1", "")
	c2 := f.keyed(t, cancel, "cancel-1", "")
	if c1.status != http.StatusOK || c1.record(t)["status"] != "canceled" || c2.status != http.StatusOK || c2.raw != c1.raw {
		t.Fatalf("cancel twice with one key: %d %s\nthen %d %s", c1.status, c1.raw, c2.status, c2.raw)
	}
	if r := f.keyed(t, cancel, "cancel-2", ""); r.status != http.StatusConflict {
		t.Errorf("cancel again with another key: %d %s, want 409", r.status, r.raw)
	}
	if r := f.keyed(t, cancel, "cancel-1", "{}"); !refusedOn(t, r, "Idempotency-Key") {
		t.Errorf("the cancel's key with a body: %d %s", r.status, r.raw)
	}
	canceled := f.scalar(t, `SELECT count(*) FROM invoice_history WHERE company_id = $1 AND origin = 'agreement_canceled'`, f.compA)
	if canceled != 7 {
		t.Errorf("%d history rows of the cancel, want 7 (4 installments, 3 originals): canceled once", canceled)
	}
}

// TestIdempotentAgreementAtOnce: eight identical agreements with one key
// sent at once make one agreement and all answer it, 201 with the same
// body (without the key, all but one would be refused: the originals are
// renegotiated by then).
func TestIdempotentAgreementAtOnce(t *testing.T) {
	t.Parallel()
	f := agreementEnv(t)
	body := f.agreementJSON(t, nil)
	postAtOnce(t, f.testEnv, 8, "/financial/agreements", "at-once", body, http.StatusCreated)
	if n := f.counts(t)["agreements"]; n != 1 {
		t.Errorf("%d agreements made by eight requests with one key, want 1", n)
	}
}
