package api

import (
	"fmt"
	"net/http"
	"testing"
)

// TestAgreementBreakTakesSlipsOut: POST /financial/agreements/{id}/break
// of an agreement whose installments are in collection batches takes the
// one added to a batch without a file out of it and reverts the one sent,
// as removeInvoices and revertInvoices do; the answer is the agreement,
// as before. Sent again with its Idempotency-Key, the break answers the
// first answer and writes nothing (no history row, no batch changed).
func TestAgreementBreakTakesSlipsOut(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	original := f.ticketInvoice(t, nil)
	run := f.do(t, http.MethodPost, "/financial/agreements", f.keyA, map[string]any{"invoices": []int64{original},
		"installments": 2, "first_due_date": today(0), "interval_months": 1})
	if run.status != http.StatusCreated {
		t.Fatalf("the agreement: %d %s", run.status, run.raw)
	}
	agreement := run.record(t)
	var installments []int64
	for _, in := range agreement["installments"].([]any) {
		installments = append(installments, num(t, in.(map[string]any)["id"]))
	}
	added, sent := installments[0], installments[1]
	closed := f.newBatch(t)
	addedNumbers(t, f.members(t, closed, "addInvoices", sent))
	f.batchFile(t, closed)
	open := f.newBatch(t)
	addedNumbers(t, f.members(t, open, "addInvoices", added))

	path := fmt.Sprintf("/financial/agreements/%d/break", num(t, agreement["id"]))
	first := f.keyed(t, path, "break-1", "")
	if first.status != http.StatusOK || first.record(t)["status"] != "broken" {
		t.Fatalf("the break: %d %s", first.status, first.raw)
	}
	if states := f.ticketStates(t, closed); len(states) != 1 || states[sent] != "reverted" {
		t.Errorf("the closed batch's titles after the break: %v, want %d reverted", states, sent)
	}
	if states := f.ticketStates(t, open); len(states) != 0 {
		t.Errorf("the open batch's titles after the break: %v, want none", states)
	}
	for _, b := range []int64{open, closed} {
		if rec := f.get(t, fmt.Sprintf("/financial/ticketBatch/%d", b), http.StatusOK).record(t); num(t, rec["titles"]) != 0 {
			t.Errorf("batch %d after the break: %v, want no titles", b, rec)
		}
	}
	history := func() int64 {
		return f.scalar(t, `SELECT count(*) FROM invoice_history WHERE company_id = $1`, f.compA)
	}
	before := history()
	again := f.keyed(t, path, "break-1", "")
	if again.status != first.status || again.raw != first.raw {
		t.Errorf("the break again with its key: %d %s\nwant %d %s", again.status, again.raw, first.status, first.raw)
	}
	if after := history(); after != before {
		t.Errorf("the break again wrote %d history rows", after-before)
	}
	if states := f.ticketStates(t, closed); states[sent] != "reverted" || f.dropBatches(t, closed)[sent] != 0 {
		t.Errorf("the closed batch after the repeat: %v", states)
	}
}
