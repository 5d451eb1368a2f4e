package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPaymentBatchEndToEnd: payable entries, a payment batch at Bradesco
// refusing what it cannot pay, its remittance written by a worker and
// checked at the FEBRABAN 240 positions, a return file made from it that
// pays a TED and a boleto (with interest), rejects a credit in account
// and names a reference of none, the entries paid or not as the bank
// said; the same file uploaded again changes nothing, and the failed
// entry joins another batch with a new reference.
func TestPaymentBatchEndToEnd(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	barcode := boletoBarcode(t, "150.00", 5)
	ted := f.bill(t, f.atBB, "ted", "2500.00", nil)
	credit := f.bill(t, f.atBradesco, "deposit", "480.00", nil)
	slip := f.bill(t, f.utility, "ticket", "150.00", map[string]any{"ticket_barcode": barcode})
	lost := f.bill(t, f.atBB, "ted", "730.50", nil)
	pixKey := f.bill(t, f.pixKey, "pix", "320.00", nil)
	noBank := f.bill(t, f.noBank, "ted", "99.00", nil)
	cash := f.bill(t, f.atBB, "cash", "10.00", nil)
	income := f.bill(t, f.atBB, "ted", "10.00", map[string]any{"type": "credit"})
	paid := f.bill(t, f.atBB, "ted", "10.00", map[string]any{"paid": true})
	otherCompany := num(t, f.do(t, http.MethodPost, "/transactions", f.keyB, map[string]any{"type": "debit",
		"amount": "10.00", "date": today(0), "billing_method": "ted"}).record(t)["id"])
	batch := f.newPaymentBatch(t)

	r := f.payments(t, f.keyA, batch, "addTransactions", ted, credit, slip, lost, pixKey, noBank, cash, income, paid, otherCompany, 999999)
	added, refused := answer(t, r, "added")
	if len(added) != 4 || added[slip]["method"] != "boleto" || added[credit]["method"] != "transfer" ||
		added[ted]["reference"] != fmt.Sprintf("PAG-%d-1", ted) || added[lost]["amount"] != json.Number("730.50") {
		t.Fatalf("added: %v", added)
	}
	want := map[int64]string{
		pixKey:       "bank 237 takes PIX payments in a file of their own, and this batch holds other payments: add it to a batch of PIX payments",
		noBank:       fmt.Sprintf("is paid by ted, but its payee (person %d) has no bank account: bank, agency, account and account_digit", f.noBank),
		cash:         "is paid by cash: a payment batch pays by ted, deposit, pix, ticket",
		income:       "is not payable: a payment batch pays bills (type debit, mode transaction) and transfers (type and mode transfer), not credit and transaction",
		paid:         "is paid",
		otherCompany: "not found",
		999999:       "not found",
	}
	for id, reason := range want {
		if refused[id] != reason {
			t.Errorf("refusal of %d: %q, want %q", id, refused[id], reason)
		}
	}
	if r.body["message"] != "4 of 11 transactions added." {
		t.Errorf("message: %v", r.body["message"])
	}
	b := r.body["data"].(map[string]any)["batch"].(map[string]any)
	if num(t, b["titles"]) != 4 || b["total"] != json.Number("3860.50") || b["status"] != "open" {
		t.Errorf("batch after adding: %v", b)
	}
	// adding again is fine: the same payment, nothing added twice
	again, _ := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ted), "added")
	if again[ted]["already"] != true || again[ted]["reference"] != added[ted]["reference"] {
		t.Errorf("added again: %v", again)
	}
	listed := f.get(t, fmt.Sprintf("/financial/paymentBatch/%d/transactions?sort=id&filter[type]=debit", batch), http.StatusOK).ids(t)
	if !slices.Equal(listed, []int64{ted, credit, slip, lost}) {
		t.Errorf("the batch's transactions: %v", listed)
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/transactions/%d", ted), f.keyA, map[string]any{"amount": "1.00"}); r.status != http.StatusConflict {
		t.Errorf("changing the amount of an entry in a batch: %d %s", r.status, r.raw)
	}

	file, header, job := f.paymentFile(t, batch)
	if cd := header.Get("Content-Disposition"); !regexp.MustCompile(`^attachment; filename=pagamento-237-\d+-000001\.REM$`).MatchString(cd) {
		t.Errorf("Content-Disposition: %q", cd)
	}
	result := job["result"].(map[string]any)
	if num(t, result["sequence"]) != 1 || num(t, result["titles"]) != 4 || result["total"] != json.Number("3860.50") {
		t.Errorf("file job result: %v", result)
	}
	recs := records(t, file, 240)
	checkPaymentFile(t, recs, map[int64]sentPayment{
		ted:    {kind: "A", amount: 250000, bank: "001"},
		credit: {kind: "A", amount: 48000, bank: "237"},
		slip:   {kind: "J", amount: 15000, barcode: barcode},
		lost:   {kind: "A", amount: 73050, bank: "001"},
	})
	if got := formas(recs); !slices.Equal(got, []string{"31", "01", "41"}) {
		t.Errorf("the bank's batches: formas %v, want a boleto of another bank, a credit in account, TEDs", got)
	}
	if r := f.payments(t, f.keyA, batch, "addTransactions", f.bill(t, f.atBB, "ted", "5.00", nil)); r.status != http.StatusConflict {
		t.Errorf("addTransactions after the file: %d %s", r.status, r.raw)
	}

	// the return: the TED and the boleto paid (the boleto with 2.00 of
	// interest), the credit in account refused, the last line's reference
	// one of no payment
	paidAt := time.Now().In(saoPaulo(t))
	ret := paymentReturn(t, file, map[string]paidLine{
		ref(ted):    {codes: "00", date: paidAt, amount: 250000},
		ref(credit): {codes: "AGAN"},
		ref(slip):   {codes: "00", date: paidAt, amount: 15200, interest: 200},
		ref(lost):   {codes: "00", date: paidAt, amount: 73050, ref: "PAG-999999-1"},
	})
	r = f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, string(ret))
	if r.status != http.StatusAccepted || r.record(t)["kind"] != "batch:return" {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	jobID := num(t, r.record(t)["id"])
	done := f.waitJob(t, f.keyA, jobID)
	if done["state"] != "succeeded" {
		t.Fatalf("batch:return job: %v", done)
	}
	res := done["result"].(map[string]any)
	outcomes := res["outcomes"].(map[string]any)
	for o, n := range map[string]int64{"paid": 2, "failed": 1, "unmatched": 1} {
		if outcomes[o] == nil || num(t, outcomes[o]) != n {
			t.Errorf("outcome %s: %v, want %d (all: %v)", o, outcomes[o], n, outcomes)
		}
	}
	byEntry := map[int64]map[string]any{}
	for _, l := range res["report"].([]any) {
		line := l.(map[string]any)
		if id, ok := line["transaction_id"]; ok {
			byEntry[num(t, id)] = line
		} else if line["outcome"] != "unmatched" || line["document_number"] != "PAG-999999-1" {
			t.Errorf("a line without an entry: %v", line)
		}
	}
	if l := byEntry[slip]; l["outcome"] != "paid" || l["paid"] != json.Number("152.00") || l["expected"] != json.Number("150.00") ||
		l["difference"] != json.Number("2.00") || l["document_number"] != ref(slip) {
		t.Errorf("the boleto's line: %v", l)
	}
	if l := byEntry[credit]; l["outcome"] != "failed" || !strings.Contains(l["message"].(string), "AG Agência/Conta Corrente/DV Inválido") {
		t.Errorf("the refused line: %v", l)
	}

	// the entries as the bank left them
	day := paidAt.Format(time.DateOnly)
	entry := func(id int64) map[string]any {
		return f.get(t, fmt.Sprintf("/transactions/%d", id), http.StatusOK).record(t)
	}
	if e := entry(ted); e["paid"] != true || e["date"] != day || e["amount"] != json.Number("2500.00") ||
		e["amount_primary"] != json.Number("2500.00") || num(t, e["account_id"]) != f.bradesco {
		t.Errorf("the TED's entry: %v", e)
	}
	if e := entry(slip); e["paid"] != true || e["amount"] != json.Number("152.00") ||
		e["amount_primary"] != json.Number("150.00") || e["interest"] != json.Number("2.00") {
		t.Errorf("the boleto's entry: %v", e)
	}
	for _, id := range []int64{credit, lost} {
		if e := entry(id); e["paid"] != false {
			t.Errorf("entry %d is paid: %v", id, e)
		}
	}
	states := f.paymentStates(t, batch)
	if !sameStates(states, map[int64]string{ted: "paid", credit: "failed", slip: "paid", lost: "sent"}) {
		t.Errorf("payments: %v", states)
	}
	// the failed payment never left the account: the batch no longer
	// counts it (3860.50 - 480.00)
	if b := f.get(t, fmt.Sprintf("/financial/paymentBatch/%d", batch), http.StatusOK).record(t); num(t, b["titles"]) != 3 ||
		b["total"] != json.Number("3380.50") {
		t.Errorf("batch after the return: titles %v, total %v; want 3, 3380.50", b["titles"], b["total"])
	}

	// the same file again: the first job, and nothing changes
	snapshot := f.entries(t, ted, credit, slip, lost)
	again2 := f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, string(ret))
	if again2.status != http.StatusAccepted || num(t, again2.record(t)["id"]) != jobID {
		t.Errorf("second upload: %d %s, want the first job %d", again2.status, again2.raw, jobID)
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "PG240301.RET")
	part.Write(ret)
	mw.Close()
	status, _, body := f.raw(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, mw.FormDataContentType(), form.Bytes())
	if status != http.StatusAccepted || !bytes.Contains(body, []byte(fmt.Sprintf(`"id":%d,`, jobID))) {
		t.Errorf("multipart upload of the same file: %d %s", status, body)
	}
	if after := f.entries(t, ted, credit, slip, lost); after != snapshot {
		t.Errorf("entries changed by the second upload:\n%s\n%s", snapshot, after)
	}
	if b := f.get(t, fmt.Sprintf("/financial/paymentBatch/%d", batch), http.StatusOK).record(t); num(t, b["titles"]) != 3 ||
		b["total"] != json.Number("3380.50") {
		t.Errorf("batch after the second upload: titles %v, total %v; want 3, 3380.50", b["titles"], b["total"])
	}

	// the failed entry joins another batch, with a new reference
	next := f.newPaymentBatch(t)
	moved, _ := answer(t, f.payments(t, f.keyA, next, "addTransactions", credit), "added")
	if moved[credit]["reference"] != fmt.Sprintf("PAG-%d-2", credit) {
		t.Errorf("the failed entry in another batch: %v", moved)
	}
}

// ref is the reference of an entry's first payment.
func ref(id int64) string { return fmt.Sprintf("PAG-%d-1", id) }

// sentPayment is what a payment's segment A or J must carry.
type sentPayment struct {
	kind    string // A or J
	amount  int64  // cents
	bank    string // A: the credited account's bank (21-23)
	barcode string // J: 18-61
}

// checkPaymentFile reads a payment remittance at the FEBRABAN 240
// positions: a header of a remittance (143 "1") numbered 1 (158-163),
// each payment's segment A (reference 74-93, amount 120-134, bank
// 21-23) or J (barcode 18-61, amount 153-167, reference 183-202)
// followed by its B or J-52, and a trailer.
func checkPaymentFile(t *testing.T, recs []string, want map[int64]sentPayment) {
	t.Helper()
	if field(recs[0], 8, 8) != "0" || field(recs[0], 143, 143) != "1" || field(recs[0], 158, 163) != "000001" ||
		field(recs[len(recs)-1], 8, 8) != "9" {
		t.Fatalf("remittance header or trailer:\n%s", strings.Join(recs, "\n"))
	}
	seen := map[int64]bool{}
	segs := segments(recs)
	for i, s := range segs {
		if s.kind != "A" && s.kind != "J" {
			continue
		}
		d := recs[s.index]
		refAt, amountAt := 74, 120
		if s.kind == "J" {
			refAt, amountAt = 183, 153
		}
		var id int64
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(field(d, refAt, refAt+19)), "PAG-%d-%d", &id, &n); err != nil || n != 1 {
			t.Errorf("segment %s reference %q", s.kind, field(d, refAt, refAt+19))
			continue
		}
		w, ok := want[id]
		seen[id] = true
		next := "B"
		if s.kind == "J" {
			next = "J52"
		}
		switch {
		case !ok || w.kind != s.kind:
			t.Errorf("entry %d in segment %s, want %v", id, s.kind, w)
		case field(d, amountAt, amountAt+14) != fmt.Sprintf("%015d", w.amount):
			t.Errorf("entry %d amount %s, want %d", id, field(d, amountAt, amountAt+14), w.amount)
		case s.kind == "A" && field(d, 21, 23) != w.bank:
			t.Errorf("entry %d bank %s, want %s", id, field(d, 21, 23), w.bank)
		case s.kind == "J" && field(d, 18, 61) != w.barcode:
			t.Errorf("entry %d barcode %s, want %s", id, field(d, 18, 61), w.barcode)
		case i+1 >= len(segs) || segs[i+1].kind != next:
			t.Errorf("entry %d's segment %s is not followed by its %s", id, s.kind, next)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("payments in the file: %v, want %d", seen, len(want))
	}
}

// formas lists the forma de lançamento (12-13) of each batch header of a
// CNAB 240 payment file, in order.
func formas(recs []string) []string {
	var out []string
	for _, r := range recs {
		if r[7] == '1' {
			out = append(out, r[11:13])
		}
	}
	return out
}

// paymentStates reads a payment batch's payments (include[items]): the
// state of each entry's payment.
func (f *paymentFixture) paymentStates(t *testing.T, batch int64) map[int64]string {
	t.Helper()
	rec := f.get(t, fmt.Sprintf("/financial/paymentBatch/%d?include[items]", batch), http.StatusOK).record(t)
	out := map[int64]string{}
	for _, it := range rec["items"].([]any) {
		m := it.(map[string]any)
		out[num(t, m["transaction_id"])] = m["state"].(string)
	}
	return out
}

// entries is the stored rows of company A's entries ids, as text, with
// the payments of them.
func (f *paymentFixture) entries(t *testing.T, ids ...int64) string {
	t.Helper()
	var s string
	err := f.pool.QueryRow(t.Context(), `SELECT string_agg(row_to_json(x)::text, E'\n' ORDER BY x.id) FROM (
		SELECT t.*, (SELECT json_agg(m ORDER BY m.id) FROM payment_batch_transactions m
		             WHERE m.company_id = t.company_id AND m.transaction_id = t.id) AS payments
		FROM transactions t WHERE t.company_id = $1 AND t.id = any($2)) x`, f.compA, ids).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sameStates reports whether got is want.
func sameStates(got, want map[int64]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// TestPaymentBatchPIX: at Bradesco, which takes PIX payments only in a
// file of their own, a batch of PIX payments (by key and to account data)
// refuses a TED, and its file is a PIX file (G021 "PIX" in 172-174) with
// one batch of forma 45; the bank's return pays both.
func TestPaymentBatchPIX(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	byKey := f.bill(t, f.pixKey, "pix", "320.00", nil)
	toAccount := f.bill(t, f.pixAccount, "pix", "77.77", nil)
	ted := f.bill(t, f.atBB, "ted", "100.00", nil)
	batch := f.newPaymentBatch(t)
	added, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", byKey, toAccount, ted), "added")
	if added[byKey]["method"] != "pix_key" || added[toAccount]["method"] != "pix_account" ||
		refused[ted] != "bank 237 takes PIX payments in a file of their own, and this batch holds PIX payments: add it to another batch" {
		t.Fatalf("added %v, refused %v", added, refused)
	}
	file, _, job := f.paymentFile(t, batch)
	recs := records(t, file, 240)
	if field(recs[0], 172, 174) != "PIX" || !slices.Equal(formas(recs), []string{"45"}) {
		t.Errorf("PIX file: header %q, formas %v", recs[0], formas(recs))
	}
	details := job["result"].(map[string]any)["details"].(map[string]any)
	if details["pix_file"] != true || num(t, details["bank_batches"]) != 1 {
		t.Errorf("file details: %v", details)
	}
	paidAt := time.Now().In(saoPaulo(t))
	ret := paymentReturn(t, file, map[string]paidLine{
		ref(byKey):     {codes: "00", date: paidAt, amount: 32000},
		ref(toAccount): {codes: "00", date: paidAt, amount: 7777},
	})
	r := f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, string(ret))
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	if done := f.waitJob(t, f.keyA, num(t, r.record(t)["id"])); done["state"] != "succeeded" {
		t.Fatalf("batch:return job: %v", done)
	}
	if states := f.paymentStates(t, batch); !sameStates(states, map[int64]string{byKey: "paid", toAccount: "paid"}) {
		t.Errorf("payments: %v", states)
	}
}

// TestPaymentBatchAdjustments: removeTransactions before the file and
// revertTransactions after it, each refused (409) in the other state; the
// entries taken out may join another batch; deleting an open batch frees
// its entries and a closed one is kept; an entry in a batch cannot be
// changed or deleted.
func TestPaymentBatchAdjustments(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	one := f.bill(t, f.atBB, "ted", "100.00", nil)
	two := f.bill(t, f.atBB, "ted", "200.00", nil)
	three := f.bill(t, f.atBradesco, "ted", "300.00", nil)
	batch := f.newPaymentBatch(t)
	answer(t, f.payments(t, f.keyA, batch, "addTransactions", one, two, three), "added")
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/transactions/%d", one), f.keyA, nil); r.status != http.StatusConflict ||
		!strings.Contains(r.raw, fmt.Sprintf("payment batch %d", batch)) {
		t.Errorf("deleting an entry in a batch: %d %s", r.status, r.raw)
	}
	if r := f.payments(t, f.keyA, batch, "revertTransactions", one); r.status != http.StatusConflict {
		t.Errorf("revert before the file: %d %s", r.status, r.raw)
	}
	removed, refused := answer(t, f.payments(t, f.keyA, batch, "removeTransactions", two, 999999), "removed")
	if removed[two] == nil || refused[999999] != "is not in this batch" {
		t.Errorf("removed %v, refused %v", removed, refused)
	}
	b := f.get(t, fmt.Sprintf("/financial/paymentBatch/%d", batch), http.StatusOK).record(t)
	if num(t, b["titles"]) != 2 || b["total"] != json.Number("400.00") {
		t.Errorf("batch after removing: %v", b)
	}
	f.paymentFile(t, batch)
	if r := f.payments(t, f.keyA, batch, "removeTransactions", one); r.status != http.StatusConflict {
		t.Errorf("remove after the file: %d %s", r.status, r.raw)
	}
	reverted, _ := answer(t, f.payments(t, f.keyA, batch, "revertTransactions", one), "reverted")
	if reverted[one] == nil {
		t.Errorf("reverted: %v", reverted)
	}
	if states := f.paymentStates(t, batch); !sameStates(states, map[int64]string{one: "reverted", three: "sent"}) {
		t.Errorf("payments: %v", states)
	}
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/financial/paymentBatch/%d", batch), f.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("deleting a closed batch: %d %s", r.status, r.raw)
	}
	path := fmt.Sprintf("/financial/paymentBatch/%d", batch)
	if r := f.do(t, http.MethodPut, path, f.keyA, map[string]any{"description": "Fornecedores de março"}); r.status != http.StatusOK {
		t.Errorf("describing a closed batch: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPut, path, f.keyA, map[string]any{"account_id": f.account}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("moving a batch to another account: %d %s", r.status, r.raw)
	}
	listed := f.get(t, fmt.Sprintf("/financial/paymentBatch?filter[statusIn][]=closed&filter[accountIn][]=%d&filter[description]=%s",
		f.bradesco, url.QueryEscape("Fornecedores de março")), http.StatusOK).ids(t)
	if !slices.Equal(listed, []int64{batch}) {
		t.Errorf("closed batches of the account: %v", listed)
	}

	// the reverted and the removed entries join an open batch; deleting it
	// frees them again
	open := f.newPaymentBatch(t)
	added, _ := answer(t, f.payments(t, f.keyA, open, "addTransactions", one, two), "added")
	if added[one]["reference"] != fmt.Sprintf("PAG-%d-2", one) || added[two]["reference"] != fmt.Sprintf("PAG-%d-1", two) {
		t.Errorf("added to the open batch: %v", added)
	}
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/financial/paymentBatch/%d", open), f.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("deleting an open batch: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/transactions/%d", two), f.keyA, map[string]any{"amount": "250.00"}); r.status != http.StatusOK {
		t.Errorf("changing a freed entry: %d %s", r.status, r.raw)
	}
}

// TestPaymentBatchBadBodies: a member body that is not {"transactions":
// [ids]} is a 422 in the envelope naming what is wrong, and adds nothing.
func TestPaymentBatchBadBodies(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	id := f.bill(t, f.atBB, "ted", "100.00", nil)
	batch := f.newPaymentBatch(t)
	path := fmt.Sprintf("/financial/paymentBatch/%d/addTransactions", batch)
	for _, c := range []struct {
		body   string
		fields []string
	}{
		{`{}`, []string{"transactions"}},
		{`{"transactions": "1"}`, []string{"transactions"}},
		{`{"transactions": []}`, []string{"transactions"}},
		{fmt.Sprintf(`{"transactions": [%d, %d]}`, id, id), []string{"transactions.1"}},
		{fmt.Sprintf(`{"transactions": [%d, -3, "x"]}`, id), []string{"transactions.1", "transactions.2"}},
		{fmt.Sprintf(`{"transactions": [%d], "invoices": [1]}`, id), []string{"invoices"}},
		{`{"transactions": [1`, []string{"body"}},
	} {
		r := f.do(t, http.MethodPost, path, f.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || r.body["return"] != false || r.body["message"] == nil {
			t.Errorf("%s: %d %s", c.body, r.status, r.raw)
			continue
		}
		if got := r.problemFields(t); !slices.Equal(got, c.fields) {
			t.Errorf("%s: fields %v, want %v", c.body, got, c.fields)
		}
	}
	b := f.get(t, fmt.Sprintf("/financial/paymentBatch/%d", batch), http.StatusOK).record(t)
	if num(t, b["titles"]) != 0 || f.scalar(t, `SELECT count(*) FROM payment_batch_transactions`) != 0 {
		t.Errorf("a bad body added something: %v", b)
	}
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/paymentBatch/%d/downloadBatchFile", batch), f.keyA, nil); r.status != http.StatusUnprocessableEntity {
		t.Errorf("the file of an empty batch: %d %s", r.status, r.raw)
	}
	for _, c := range []struct {
		path  string
		body  map[string]any
		field string
	}{
		{"/persons", map[string]any{"name": "X", "ispb": "1823612"}, "ispb"},
		{"/transactions", map[string]any{"type": "debit", "amount": "1.00", "date": today(0), "ticket_barcode": "3419.1090"}, "ticket_barcode"},
		{"/financial/accounts", map[string]any{"business_id": f.biz, "payment_covenant": strings.Repeat("9", 21)}, "payment_covenant"},
	} {
		if r := f.do(t, http.MethodPost, c.path, f.keyA, c.body); r.status != http.StatusUnprocessableEntity ||
			!slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("POST %s %v: %d %s", c.path, c.body, r.status, r.raw)
		}
	}
	for _, c := range []struct {
		body    map[string]any
		problem string
	}{
		// a collection account (CNAB 400) without its payment agreement
		{bradescoAccount(f.biz), "payment_covenant: required: bank 237's payment remittances"},
		// a payment account without its agency and account: refused now, not when entries are added
		{map[string]any{"business_id": f.biz, "bank": "237", "payment_covenant": "123456"},
			"agency: required: bank 237's payment remittances (CNAB 240) carry it; account: required"},
		{map[string]any{"business_id": f.biz, "bank": "104", "layout": "cnab240", "agency": "1234", "agency_digit": "5",
			"covenant": "123456"}, "bank 104 has no payment remittance layout here"},
		{map[string]any{"business_id": f.biz}, "the account needs its bank"},
	} {
		account := f.create(t, "/financial/accounts", c.body)
		r := f.do(t, http.MethodPost, "/financial/paymentBatch", f.keyA, map[string]any{"account_id": account})
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.raw, c.problem) || !slices.Equal(r.problemFields(t), []string{"account_id"}) {
			t.Errorf("a batch of account %v: %d %s", c.body, r.status, r.raw)
		}
	}
}

// TestPaymentBatchBusinessCNPJ: a payment batch of an account whose
// business has no CNPJ is refused when it is created, 422 on account_id
// naming the business and what it lacks (its payment file names the payer
// by it), not when entries are added; with the CNPJ set, it is created
// and pays. A CNPJ taken away afterwards refuses the entries with the
// same words.
func TestPaymentBatchBusinessCNPJ(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	biz := f.create(t, "/financial/businesses", map[string]any{"name": "Horizonte Sem CNPJ"})
	account := f.create(t, "/financial/accounts", bradescoPaymentAccount(biz))
	problem := fmt.Sprintf("account %d is of business %d (Horizonte Sem CNPJ), whose name and CNPJ the remittances of a "+
		"payment batch carry as their payer's: tax_id: not set; set it (PUT /financial/businesses/%d)", account, biz, biz)
	r := f.do(t, http.MethodPost, "/financial/paymentBatch", f.keyA, map[string]any{"account_id": account})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"account_id"}) ||
		!strings.Contains(r.raw, problem) {
		t.Fatalf("a batch of a business without a CNPJ: %d %s\nwant the problem %s", r.status, r.raw, problem)
	}
	if n := f.scalar(t, `SELECT count(*) FROM payment_batches WHERE account_id = $1`, account); n != 0 {
		t.Fatalf("%d batches stored", n)
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/financial/businesses/%d", biz), f.keyA, map[string]any{"tax_id": "60.746.948/0001-12"}); r.status != http.StatusOK {
		t.Fatalf("the CNPJ: %d %s", r.status, r.raw)
	}
	batch := f.create(t, "/financial/paymentBatch", map[string]any{"account_id": account})
	entry := f.bill(t, f.atBB, "ted", "100.00", map[string]any{"account_id": account})
	if added, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", entry), "added"); len(added) != 1 || len(refused) != 0 {
		t.Fatalf("the entry of a business with its CNPJ: added %v, refused %v", added, refused)
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/financial/businesses/%d", biz), f.keyA, map[string]any{"tax_id": nil}); r.status != http.StatusOK {
		t.Fatalf("the CNPJ taken away: %d %s", r.status, r.raw)
	}
	other := f.bill(t, f.atBB, "ted", "50.00", map[string]any{"account_id": account})
	r = f.payments(t, f.keyA, batch, "addTransactions", other)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.raw, problem) {
		t.Errorf("an entry added once the CNPJ is gone: %d %s\nwant the problem %s", r.status, r.raw, problem)
	}
	// a body with its own problems is refused with the batch's in one 422
	r = f.do(t, http.MethodPost, fmt.Sprintf("/financial/paymentBatch/%d/addTransactions", batch), f.keyA,
		fmt.Sprintf(`{"transactions": [%d, "x"], "extra": 1}`, other))
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"extra", "transactions.1", "account_id"}) ||
		!strings.Contains(r.raw, problem) {
		t.Errorf("a bad body once the CNPJ is gone: %d %s\nwant extra, transactions.1 and account_id's problem %s", r.status, r.raw, problem)
	}
	if n := f.scalar(t, `SELECT count(*) FROM payment_batch_transactions WHERE batch_id = $1`, batch); n != 1 {
		t.Errorf("the batch has %d payments after the refusals, want 1", n)
	}
}

// TestPaymentBatchIsolation: another company's batch is a 404 on every
// route; its account cannot hold a batch of ours; a return file uploaded
// by another company touches nothing of ours.
func TestPaymentBatchIsolation(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	id := f.bill(t, f.atBB, "ted", "100.00", nil)
	batch := f.newPaymentBatch(t)
	answer(t, f.payments(t, f.keyA, batch, "addTransactions", id), "added")
	file, _, _ := f.paymentFile(t, batch)
	one := fmt.Sprintf("/financial/paymentBatch/%d", batch)
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, one},
		{http.MethodPut, one},
		{http.MethodDelete, one},
		{http.MethodPost, one + "/addTransactions"},
		{http.MethodPost, one + "/removeTransactions"},
		{http.MethodPost, one + "/revertTransactions"},
		{http.MethodGet, one + "/downloadBatchFile"},
		{http.MethodGet, one + "/transactions"},
	} {
		var body any
		switch c.method {
		case http.MethodPost:
			body = map[string]any{"transactions": []int64{id}}
		case http.MethodPut:
			body = map[string]any{"description": "x"}
		}
		if r := f.do(t, c.method, c.path, f.keyB, body); r.status != http.StatusNotFound || r.body["return"] != false {
			t.Errorf("company B %s %s: %d %s", c.method, c.path, r.status, r.raw)
		}
	}
	if ids := f.do(t, http.MethodGet, "/financial/paymentBatch", f.keyB, nil).ids(t); len(ids) != 0 {
		t.Errorf("company B lists %v", ids)
	}
	r := f.do(t, http.MethodPost, "/financial/paymentBatch", f.keyB, map[string]any{"account_id": f.bradesco})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"account_id"}) {
		t.Errorf("company B's batch of A's account: %d %s", r.status, r.raw)
	}
	ret := paymentReturn(t, file, map[string]paidLine{ref(id): {codes: "00", date: time.Now(), amount: 10000}})
	// company B has no account at the file's bank: the upload is refused, nothing runs
	r = f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyB, string(ret))
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"file"}) ||
		!strings.Contains(r.raw, "the company has no account at bank 237") {
		t.Fatalf("company B's upload: %d %s", r.status, r.raw)
	}
	if e := f.get(t, fmt.Sprintf("/transactions/%d", id), http.StatusOK).record(t); e["paid"] != false {
		t.Errorf("company B's return paid A's entry: %v", e)
	}
}

// TestPaymentBatchFileSequence: payment batches of one account closed at
// once get consecutive file numbers (NSA), each once, each in its file's
// header, and the account's counter moves past them.
func TestPaymentBatchFileSequence(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	const n = 4
	batches := make([]int64, n)
	for i := range batches {
		batches[i] = f.newPaymentBatch(t)
		answer(t, f.payments(t, f.keyA, batches[i], "addTransactions", f.bill(t, f.atBB, "ted", "100.00", nil)), "added")
	}
	jobs := make([]int64, n)
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/paymentBatch/%d/downloadBatchFile", b), f.keyA, nil)
			if r.status == http.StatusAccepted {
				jobs[i] = num(t, r.record(t)["id"])
			}
		}()
	}
	wg.Wait()
	var seqs []int64
	for i, b := range batches {
		if jobs[i] == 0 {
			t.Fatalf("batch %d: no job", b)
		}
		job := f.waitJob(t, f.keyA, jobs[i])
		if job["state"] != "succeeded" {
			t.Fatalf("batch %d: %v", b, job)
		}
		seq := num(t, job["result"].(map[string]any)["sequence"])
		seqs = append(seqs, seq)
		status, _, file := f.raw(t, http.MethodGet, fmt.Sprintf("/financial/paymentBatch/%d/downloadBatchFile", b), f.keyA, "", nil)
		if status != http.StatusOK || field(records(t, file, 240)[0], 158, 163) != fmt.Sprintf("%06d", seq) {
			t.Errorf("batch %d: file %d with NSA %q, want %d", b, status, file[157:163], seq)
		}
	}
	slices.Sort(seqs)
	if !slices.Equal(seqs, []int64{1, 2, 3, 4}) {
		t.Errorf("file numbers: %v", seqs)
	}
	if next := f.scalar(t, `SELECT next_payment_file_sequence FROM accounts WHERE id = $1`, f.bradesco); next != n+1 {
		t.Errorf("the account's next payment file number: %d", next)
	}
}
