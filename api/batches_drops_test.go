package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestTicketBatchDrops: an invoice reverted after its file is asked to be
// dropped by the next file of the account, written for another batch:
// after that batch's own titles, a detail of movement 02 (Bradesco 400,
// 109-110) with the title's nosso número, seu número, due date and
// amount; the file job reports it, the title's row names the batch whose
// file asked, and a third file does not ask again. A batch without
// invoices writes a file of drops alone while the account has some to
// ask, and is a 422 once it has none. The bank's return confirming the
// drop (occurrence 10, baixado conforme instruções) writes the title off.
func TestTicketBatchDrops(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	a, b := f.ticketInvoice(t, nil), f.ticketInvoice(t, nil)
	first := f.newBatch(t)
	addedNumbers(t, f.members(t, first, "addInvoices", a, b))
	file1, _, _ := f.batchFile(t, first)
	entries := records(t, file1, 400)[1:3]
	entryOf := map[string]string{}
	for _, e := range entries {
		entryOf[strings.TrimSpace(field(e, 38, 62))] = e
	}
	entryB := entryOf[fmt.Sprint(b)]
	if entryB == "" {
		t.Fatalf("no entry of invoice %d in %v", b, entries)
	}
	if r := f.members(t, first, "revertInvoices", b); r.status != http.StatusOK || r.body["message"] != "1 of 1 invoices reverted." {
		t.Fatalf("revertInvoices: %d %s", r.status, r.raw)
	}

	// the second batch's file: its own title, then the drop of b's
	c := f.ticketInvoice(t, nil)
	second := f.newBatch(t)
	addedNumbers(t, f.members(t, second, "addInvoices", c))
	file2, _, job := f.batchFile(t, second)
	recs := records(t, file2, 400)
	if len(recs) != 4 {
		t.Fatalf("the second file has %d records, want header, title, drop, trailer:\n%s", len(recs), file2)
	}
	title, drop := recs[1], recs[2]
	if field(title, 109, 110) != "01" || strings.TrimSpace(field(title, 38, 62)) != fmt.Sprint(c) {
		t.Errorf("the second file's title: %q", title)
	}
	if field(drop, 109, 110) != "02" {
		t.Errorf("the drop's movement %q, want 02", field(drop, 109, 110))
	}
	for _, s := range []struct {
		from, to int
		name     string
	}{{71, 82, "nosso número"}, {111, 120, "seu número"}, {121, 126, "due date"}, {127, 139, "amount"}, {38, 62, "control"}} {
		if got, want := field(drop, s.from, s.to), field(entryB, s.from, s.to); got != want {
			t.Errorf("the drop's %s %q, want the entry's %q", s.name, got, want)
		}
	}
	if strings.TrimSpace(field(drop, 235, 274)) != "" || field(drop, 151, 156) != "000000" {
		t.Errorf("the drop's payer %q and issue date %q, want them empty", field(drop, 235, 274), field(drop, 151, 156))
	}
	res := job["result"].(map[string]any)
	details := res["details"].(map[string]any)
	if num(t, res["titles"]) != 1 || res["total"] != json.Number("1000.00") || num(t, details["drops"]) != 1 {
		t.Errorf("the second file's report: %v", res)
	}
	listed := details["drop_titles"].([]any)
	if len(listed) != 1 || num(t, listed[0].(map[string]any)["invoice_id"]) != b ||
		num(t, listed[0].(map[string]any)["batch_id"]) != first {
		t.Errorf("the drops listed: %v", listed)
	}
	if asked := f.dropBatches(t, first); asked[b] != second || asked[a] != 0 {
		t.Errorf("drop_batch_id of the first batch's titles: %v, want %d for %d", asked, second, b)
	}

	// a third file does not ask again
	third := f.newBatch(t)
	addedNumbers(t, f.members(t, third, "addInvoices", f.ticketInvoice(t, nil)))
	file3, _, job3 := f.batchFile(t, third)
	for _, r := range records(t, file3, 400) {
		if r[0] == '1' && field(r, 109, 110) != "01" {
			t.Errorf("the third file asks again: %q", r)
		}
	}
	if d := job3["result"].(map[string]any)["details"].(map[string]any); num(t, d["drops"]) != 0 {
		t.Errorf("the third file's report: %v", d)
	}

	// a batch without invoices: 422 while nothing is to be dropped; a
	// file of drops alone once a's title is reverted
	empty := f.newBatch(t)
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/ticketBatch/%d/downloadBatchFile", empty), f.keyA, nil); r.status != http.StatusUnprocessableEntity ||
		!hasProblem(r, "invoices") {
		t.Errorf("the file of an empty batch with nothing to drop: %d %s", r.status, r.raw)
	}
	f.members(t, first, "revertInvoices", a)
	file4, _, job4 := f.batchFile(t, empty)
	recs4 := records(t, file4, 400)
	if len(recs4) != 3 || field(recs4[1], 109, 110) != "02" || field(recs4[1], 71, 82) != field(entryOf[fmt.Sprint(a)], 71, 82) {
		t.Errorf("the file of drops alone:\n%s", file4)
	}
	if res4 := job4["result"].(map[string]any); num(t, res4["titles"]) != 0 || num(t, res4["details"].(map[string]any)["drops"]) != 1 {
		t.Errorf("the file of drops alone's report: %v", res4)
	}
	if b := f.get(t, fmt.Sprintf("/financial/ticketBatch/%d", empty), http.StatusOK).record(t); b["status"] != "closed" || num(t, b["titles"]) != 0 {
		t.Errorf("the batch of drops alone: %v", b)
	}
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/ticketBatch/%d/downloadBatchFile", f.newBatch(t)), f.keyA, nil); r.status != http.StatusUnprocessableEntity {
		t.Errorf("another empty batch once every drop is asked: %d %s", r.status, r.raw)
	}

	// the bank confirms b's drop
	now := f.now(t)
	ret := bradescoReturn(now, retTitle{nosso: field(entryB, 71, 81), digit: field(entryB, 82, 82), code: "10", date: now})
	up := f.do(t, http.MethodPost, "/financial/ticketBatch/returnFile", f.keyA, string(ret))
	if up.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", up.status, up.raw)
	}
	done := f.waitJob(t, f.keyA, num(t, up.record(t)["id"]))
	if out := done["result"].(map[string]any)["outcomes"].(map[string]any); out["written_off"] != json.Number("1") {
		t.Errorf("the return confirming the drop: %v", done["result"])
	}
	if states := f.ticketStates(t, first); states[b] != "written_off" || states[a] != "reverted" {
		t.Errorf("the first batch's titles after the return: %v", states)
	}
}

// dropBatches reads a collection batch's titles (include[items]): the
// batch whose file asked to drop each (0: none).
func (f *batchFixture) dropBatches(t *testing.T, batch int64) map[int64]int64 {
	t.Helper()
	rec := f.get(t, fmt.Sprintf("/financial/ticketBatch/%d?include[items]=invoice_id,drop_batch_id", batch), http.StatusOK).record(t)
	out := map[int64]int64{}
	for _, it := range rec["items"].([]any) {
		m := it.(map[string]any)
		if m["drop_batch_id"] == nil {
			out[num(t, m["invoice_id"])] = 0
			continue
		}
		out[num(t, m["invoice_id"])] = num(t, m["drop_batch_id"])
	}
	return out
}

// ticketStates reads the state of each title of a collection batch.
func (f *batchFixture) ticketStates(t *testing.T, batch int64) map[int64]string {
	t.Helper()
	rec := f.get(t, fmt.Sprintf("/financial/ticketBatch/%d?include[items]=invoice_id,state", batch), http.StatusOK).record(t)
	out := map[int64]string{}
	for _, it := range rec["items"].([]any) {
		m := it.(map[string]any)
		out[num(t, m["invoice_id"])] = m["state"].(string)
	}
	return out
}

// TestPaymentBatchCancels: a payment reverted after its file is asked to
// be cancelled by the next file of the account: after that file's own
// payments, its segment A with movement 9 and instruction 99 (Bradesco
// Multipag, G060 and G061) and its reference, amount and the day it was
// scheduled for, without its segment B; the batch trailer sums it. A
// third file does not ask again; the bank's return confirming the
// exclusion (BF) cancels the payment.
func TestPaymentBatchCancels(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	one := f.bill(t, f.atBB, "ted", "100.00", nil)
	two := f.bill(t, f.atBB, "ted", "200.00", nil)
	first := f.newPaymentBatch(t)
	answer(t, f.payments(t, f.keyA, first, "addTransactions", one, two), "added")
	file1, _, _ := f.paymentFile(t, first)
	sent := map[string]string{}
	recs1 := records(t, file1, 240)
	for _, s := range segments(recs1) {
		if s.kind == "A" {
			sent[strings.TrimSpace(field(recs1[s.index], 74, 93))] = recs1[s.index]
		}
	}
	answer(t, f.payments(t, f.keyA, first, "revertTransactions", two), "reverted")

	three := f.bill(t, f.atBB, "ted", "300.00", nil)
	second := f.newPaymentBatch(t)
	answer(t, f.payments(t, f.keyA, second, "addTransactions", three), "added")
	file2, _, job := f.paymentFile(t, second)
	recs := records(t, file2, 240)
	var kinds, movements []string
	var cancel string
	for _, s := range segments(recs) {
		r := recs[s.index]
		kinds = append(kinds, s.kind)
		if s.kind == "A" {
			movements = append(movements, field(r, 15, 17))
		}
		if s.kind == "A" && field(r, 15, 17) == "999" {
			cancel = r
		}
	}
	if !slices.Equal(kinds, []string{"A", "B", "A"}) || !slices.Equal(movements, []string{"000", "999"}) {
		t.Errorf("the second file's segments %v, movements of its segments A %v", kinds, movements)
	}
	orig := sent[ref(two)]
	if cancel == "" || orig == "" {
		t.Fatalf("no cancellation of %s in the second file:\n%s", ref(two), file2)
	}
	for _, s := range []struct {
		from, to int
		name     string
	}{{18, 73, "chamber, account and name"}, {74, 93, "reference"}, {94, 101, "date"}, {120, 134, "amount"}} {
		if got, want := field(cancel, s.from, s.to), field(orig, s.from, s.to); got != want {
			t.Errorf("the cancellation's %s %q, want the inclusion's %q", s.name, got, want)
		}
	}
	trailer := recs[len(recs)-2]
	if field(trailer, 24, 41) != fmt.Sprintf("%018d", 30000+20000) {
		t.Errorf("the batch trailer's sum %q, want the payment and the cancellation", field(trailer, 24, 41))
	}
	res := job["result"].(map[string]any)
	details := res["details"].(map[string]any)
	listed := details["cancelled_payments"].([]any)
	if num(t, res["titles"]) != 1 || res["total"] != json.Number("300.00") || num(t, details["cancellations"]) != 1 || len(listed) != 1 ||
		listed[0].(map[string]any)["reference"] != ref(two) || num(t, listed[0].(map[string]any)["transaction_id"]) != two {
		t.Errorf("the second file's report: %v", res)
	}

	// a third file does not ask again
	fourth := f.bill(t, f.atBB, "ted", "400.00", nil)
	third := f.newPaymentBatch(t)
	answer(t, f.payments(t, f.keyA, third, "addTransactions", fourth), "added")
	file3, _, job3 := f.paymentFile(t, third)
	for _, s := range segments(records(t, file3, 240)) {
		if r := records(t, file3, 240)[s.index]; s.kind == "A" && field(r, 15, 17) != "000" {
			t.Errorf("the third file asks again: %q", r)
		}
	}
	if d := job3["result"].(map[string]any)["details"].(map[string]any); num(t, d["cancellations"]) != 0 {
		t.Errorf("the third file's report: %v", d)
	}

	// the bank confirms the exclusion
	ret := paymentReturnOf(t, file2, func(r string) paidLine {
		if r == ref(two) {
			return paidLine{codes: "BF"}
		}
		return paidLine{codes: "BD"}
	})
	up := f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, string(ret))
	if up.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", up.status, up.raw)
	}
	done := f.waitJob(t, f.keyA, num(t, up.record(t)["id"]))
	if out := done["result"].(map[string]any)["outcomes"].(map[string]any); out["cancelled"] != json.Number("1") || out["scheduled"] != json.Number("1") {
		t.Errorf("the return confirming the cancellation: %v", done["result"])
	}
	if states := f.paymentStates(t, first); !sameStates(states, map[int64]string{one: "sent", two: "cancelled"}) {
		t.Errorf("the first batch's payments after the return: %v", states)
	}
	if e := f.get(t, fmt.Sprintf("/transactions/%d", two), http.StatusOK).record(t); e["paid"] != false {
		t.Errorf("the cancelled payment's entry is paid: %v", e)
	}
}
