package api

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/propfin/propfin/finance"
)

// TestAgreementWorkedNumbers: docs/finance.md's worked agreement through
// the API: the preview answers finance's numbers and writes nothing; the
// run answers the preview's data field by field, with its ids; the
// originals are renegotiated with the agreement's id, the installments
// written with their lines' origins, and the ledger untouched.
func TestAgreementWorkedNumbers(t *testing.T) {
	t.Parallel()
	f := agreementEnv(t)
	before := f.counts(t)
	preview := f.agree(t, f.body(map[string]any{"preview": true}), http.StatusOK).record(t)
	if after := f.counts(t); !maps.Equal(before, after) {
		t.Errorf("the preview wrote: %v, then %v", before, after)
	}
	want := map[string]string{"status": "active", "installment_count": "4", "interval_months": "1", "late_fee_waiver": "50.00",
		"interest_waiver": "30.00", "discount": "61.97", "principal": "4650.00", "late_fee": "93.00", "late_fee_waived": "46.50",
		"interest": "93.55", "interest_waived": "28.07", "total": "4700.01", "date": today(0), "first_due_date": today(10)}
	for k, v := range want {
		if got := fmt.Sprint(preview[k]); got != v {
			t.Errorf("preview %s = %s, want %s", k, got, v)
		}
	}
	if preview["id"] != nil || preview["installment_ids"] != nil {
		t.Errorf("preview ids: %v, %v; want null", preview["id"], preview["installment_ids"])
	}
	var debts []string
	for _, d := range list(t, preview, "debts") {
		debts = append(debts, fmt.Sprintf("%v %v %vd %v-%v %v-%v -%v = %v", d["status"], d["total"], d["days_late"], d["late_fee"],
			d["late_fee_waived"], d["interest"], d["interest_waived"], d["discount"], d["amount"]))
	}
	wantDebts := []string{
		"overdue 1500.00 92d 30.00-15.00 46.00-13.80 -20.13 = 1527.07",
		"overdue 1500.00 61d 30.00-15.00 30.50-9.15 -20.00 = 1516.35",
		"overdue 1650.00 31d 33.00-16.50 17.05-5.12 -21.84 = 1656.59",
	}
	if !slices.Equal(debts, wantDebts) {
		t.Errorf("debts\n%s\nwant\n%s", strings.Join(debts, "\n"), strings.Join(wantDebts, "\n"))
	}
	installments := list(t, preview, "installments")
	var got []string
	for _, in := range installments {
		got = append(got, fmt.Sprintf("%v %v %v %v", in["agreement_installment"], in["due_date"], in["total"], in["description"]))
	}
	wantInst := []string{"1 " + today(10) + " 1175.01 Parcela 1/4 do acordo", "2 " + addMonths(t, 10, 1) + " 1175.00 Parcela 2/4 do acordo",
		"3 " + addMonths(t, 10, 2) + " 1175.00 Parcela 3/4 do acordo", "4 " + addMonths(t, 10, 3) + " 1175.00 Parcela 4/4 do acordo"}
	if !slices.Equal(got, wantInst) {
		t.Errorf("installments %v, want %v", got, wantInst)
	}
	first := installments[0]
	if first["type"] != "single" || num(t, first["payer_id"]) != f.payer || num(t, first["building_id"]) != f.building ||
		num(t, first["account_id"]) != f.account || first["billing_method"] != "ticket" || first["contract_id"] != nil {
		t.Errorf("installment fields: %v", first)
	}
	var lines []string
	for _, l := range list(t, first, "items") {
		origin := num(t, l["origin_invoice_id"])
		lines = append(lines, fmt.Sprintf("%v %d %v", l["agreement_part"], slices.Index(f.originals, origin), l["amount"]))
		if num(t, l["owner_id"]) != f.owner {
			t.Errorf("a line without the building's owner: %v", l)
		}
	}
	wantLines := []string{"line 0 370.12", "line 0 37.02", "late_fee 0 3.70", "interest 0 7.95",
		"line 1 370.12", "line 1 37.02", "late_fee 1 3.70", "interest 1 5.27",
		"line 2 370.12", "line 2 37.02", "line 2 37.02", "late_fee 2 4.07", "interest 2 2.94"}
	if !slices.Equal(lines, wantLines) {
		t.Errorf("first installment's lines\n%v\nwant\n%v", lines, wantLines)
	}

	run := f.agree(t, f.body(nil), http.StatusCreated)
	rec := run.record(t)
	id := num(t, rec["id"])
	ids := installmentIDs(t, rec)
	if run.header.Get("Location") != fmt.Sprintf("/financial/agreements/%d", id) || len(ids) != 4 {
		t.Errorf("location %q, installments %v", run.header.Get("Location"), ids)
	}
	// the run's data is the preview's, field by field, but for the ids
	ran := without(rec, "id", "installment_ids")
	ran["installments"] = stripIDs(t, ran["installments"])
	previewed := without(preview, "id", "installment_ids")
	previewed["installments"] = stripIDs(t, previewed["installments"])
	for k := range previewed {
		if !reflect.DeepEqual(previewed[k], ran[k]) {
			t.Errorf("%s: preview %v, run %v", k, previewed[k], ran[k])
		}
	}
	if len(ran) != len(previewed) {
		t.Errorf("the run answers %d fields, the preview %d", len(ran), len(previewed))
	}
	for _, o := range f.originals {
		inv := f.invoiceRecord(t, o)
		if inv["status"] != "renegotiated" || num(t, inv["agreement_id"]) != id {
			t.Errorf("original %d: status %v, agreement %v", o, inv["status"], inv["agreement_id"])
		}
	}
	for i, in := range ids {
		inv := f.invoiceRecord(t, in)
		if inv["status"] != "unpaid" || num(t, inv["agreement_id"]) != id || num(t, inv["agreement_installment"]) != int64(i+1) ||
			fmt.Sprint(inv["total"]) != fmt.Sprint(installments[i]["total"]) || len(list(t, inv, "items")) != 13 {
			t.Errorf("installment %d: %v", i+1, inv)
		}
	}
	// read back with the query language
	r := f.get(t, fmt.Sprintf("/financial/agreements?filter[payer_id]=%d&filter[status]=active&include[invoices]&include[installments]",
		f.payer), http.StatusOK)
	if got := r.ids(t); !slices.Equal(got, []int64{id}) {
		t.Fatalf("listed %v, want [%d]", got, id)
	}
	listed := r.data(t)[0]
	var originals, inst []int64
	for _, inv := range list(t, listed, "invoices") {
		originals = append(originals, num(t, inv["id"]))
	}
	for _, inv := range list(t, listed, "installments") {
		inst = append(inst, num(t, inv["id"]))
	}
	asked := []int64{f.originals[2], f.originals[0], f.originals[1]} // invoice_ids: as asked for
	if !slices.Equal(originals, asked) || !slices.Equal(inst, ids) || fmt.Sprint(listed["paid_amount"]) != "0.00" {
		t.Errorf("include[invoices] %v (want %v), include[installments] %v (want %v), paid %v", originals, asked, inst, ids,
			listed["paid_amount"])
	}
	if r := f.get(t, "/financial/agreements?filter[status]=broken", http.StatusOK); len(r.ids(t)) != 0 {
		t.Errorf("filter[status]=broken: %v", r.ids(t))
	}
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/agreements/%d", id), f.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("company B reads the agreement: %d", r.status)
	}
	if entries := f.ledger(t); len(entries) != 0 {
		t.Errorf("the agreement posted entries: %v", entries)
	}
	// the history of an original names the agreement
	h := f.get(t, fmt.Sprintf("/invoices/%d/history?filter[origin]=agreement", f.originals[0]), http.StatusOK).data(t)
	if len(h) != 1 || !strings.Contains(fmt.Sprint(h[0]["changes"]), "renegotiated") {
		t.Errorf("history of an original: %v", h)
	}
}

// addMonths is today plus days, plus months (finance.Date.AddMonths).
func addMonths(t *testing.T, days, months int) string {
	t.Helper()
	d, err := finance.ParseDate(today(days))
	if err != nil {
		t.Fatal(err)
	}
	return d.AddMonths(months).String()
}

// stripIDs drops the ids from a list of installments.
func stripIDs(t *testing.T, v any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, in := range v.([]any) {
		out = append(out, without(in.(map[string]any), "id"))
	}
	return out
}

// TestAgreementFulfilled: the four installments paid through the API
// fulfil the agreement; the book stays balanced after every payment, and
// in the end credits the owner the debt less the administration fee the
// installments carry, as finance's example says (4255.86), the business
// the fee (444.15), and debits the payer the whole 4700.01. Undoing the
// last payment makes the agreement active again.
func TestAgreementFulfilled(t *testing.T) {
	t.Parallel()
	f := agreementEnv(t)
	rec := f.agree(t, f.body(nil), http.StatusCreated).record(t)
	id, ids := num(t, rec["id"]), installmentIDs(t, rec)
	for i, in := range ids {
		f.pay(t, in, today(0))
		f.ledger(t)
		a := f.agreementRecord(t, id)
		want := "active"
		if i == len(ids)-1 {
			want = "fulfilled"
		}
		if a["status"] != want {
			t.Errorf("after installment %d: %v, want %s", i+1, a["status"], want)
		}
	}
	a := f.agreementRecord(t, id)
	if a["fulfilled_at"] != today(0) || fmt.Sprint(a["paid_amount"]) != "4700.01" {
		t.Errorf("fulfilled: at %v, paid %v", a["fulfilled_at"], a["paid_amount"])
	}
	book := f.ledger(t)
	want := map[string]string{fmt.Sprintf("owner %d", f.owner): "4255.86", fmt.Sprintf("business %d", f.business): "444.15",
		fmt.Sprintf("customer %d", f.payer): "-4700.01"}
	if !maps.Equal(book, want) {
		t.Errorf("statements %v, want %v", book, want)
	}
	for _, o := range f.originals {
		if inv := f.invoiceRecord(t, o); inv["status"] != "renegotiated" {
			t.Errorf("original %d of a fulfilled agreement: %v", o, inv["status"])
		}
	}
	if r := f.put(t, ids[3], map[string]any{"paid": false}); r.status != http.StatusOK {
		t.Fatalf("undo the last payment: %d %s", r.status, r.raw)
	}
	f.ledger(t)
	if a := f.agreementRecord(t, id); a["status"] != "active" || a["fulfilled_at"] != nil {
		t.Errorf("a payment undone: %v, fulfilled at %v; want active again", a["status"], a["fulfilled_at"])
	}
	f.pay(t, ids[3], today(0))
	if a := f.agreementRecord(t, id); a["status"] != "fulfilled" {
		t.Errorf("paid again: %v", a["status"])
	}
	if r := f.end(t, id, "break"); r.status != http.StatusConflict {
		t.Errorf("break a fulfilled agreement: %d %s", r.status, r.raw)
	}
}

// TestAgreementBrokenMidway: two installments paid, the agreement broken
// on request: the other two are canceled, and each original is given back
// less what the paid installments carried of each of its lines (finance's
// TestReopenOriginal: 759.76, 759.76, 835.73), overdue again; the book
// keeps what the installments paid and stays balanced, and a given-back
// original is paid with its own late fee and interest from its due date.
func TestAgreementBrokenMidway(t *testing.T) {
	t.Parallel()
	f := agreementEnv(t)
	rec := f.agree(t, f.body(nil), http.StatusCreated).record(t)
	id, ids := num(t, rec["id"]), installmentIDs(t, rec)
	f.pay(t, ids[0], today(0))
	f.pay(t, ids[1], today(0))
	r := f.end(t, id, "break")
	if r.status != http.StatusOK || r.body["message"] != "Agreement broken." {
		t.Fatalf("break: %d %s", r.status, r.raw)
	}
	a := r.record(t)
	if a["status"] != "broken" || a["broken_by"] != "request" || a["broken_at"] != today(0) || fmt.Sprint(a["paid_amount"]) != "2350.01" {
		t.Errorf("broken: %v", a)
	}
	for i, in := range ids {
		want := []string{"paid", "paid", "canceled", "canceled"}[i]
		if inv := f.invoiceRecord(t, in); inv["status"] != want {
			t.Errorf("installment %d: %v, want %s", i+1, inv["status"], want)
		}
	}
	wantBack := []string{"759.76: 759.76 75.97", "759.76: 759.76 75.97", "835.73: 759.76 75.97 75.97"}
	for i, o := range f.originals {
		inv := f.invoiceRecord(t, o)
		got := fmt.Sprint(inv["total"]) + ":"
		for _, l := range list(t, inv, "items") {
			got += " " + fmt.Sprint(l["amount"])
		}
		if got != wantBack[i] || inv["status"] != "overdue" {
			t.Errorf("original %d given back %s %v, want %s overdue", i, got, inv["status"], wantBack[i])
		}
	}
	// installments 1 and 2 credited the owner 1175.01 and 1175.00 less the
	// administration fee they carried (3 × 37.02 and 3 × 37.01)
	book := f.ledger(t)
	want := map[string]string{fmt.Sprintf("owner %d", f.owner): "2127.92", fmt.Sprintf("business %d", f.business): "222.09",
		fmt.Sprintf("customer %d", f.payer): "-2350.01"}
	if !maps.Equal(book, want) {
		t.Errorf("statements %v, want %v", book, want)
	}
	// 92 days late: 2% of 759.76 = 15.20, 759.76 × 1% × 92/30 = 23.30
	paid := f.pay(t, f.originals[0], today(0))
	if fmt.Sprint(paid["paid_amount"]) != "798.26" || fmt.Sprint(paid["paid_late_fee"]) != "15.20" || fmt.Sprint(paid["paid_interest"]) != "23.30" {
		t.Errorf("a given-back original paid: %v %v %v, want 798.26 = 759.76 + 15.20 + 23.30", paid["paid_amount"],
			paid["paid_late_fee"], paid["paid_interest"])
	}
	f.ledger(t)
	if r := f.put(t, ids[0], map[string]any{"paid": false}); r.status != http.StatusConflict {
		t.Errorf("undo a paid installment of a broken agreement: %d %s", r.status, r.raw)
	}
	if r := f.put(t, ids[2], map[string]any{"status": "unpaid"}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"status"}) {
		t.Errorf("restore a canceled installment: %d %s", r.status, r.raw)
	}
	for _, op := range []string{"break", "cancel"} {
		if r := f.end(t, id, op); r.status != http.StatusConflict {
			t.Errorf("%s a broken agreement: %d %s", op, r.status, r.raw)
		}
	}
	h := f.get(t, fmt.Sprintf("/invoices/%d/history?filter[origin]=agreement_broken", f.originals[2]), http.StatusOK).data(t)
	if len(h) != 1 || !strings.Contains(fmt.Sprint(h[0]["changes"]), "835.73") {
		t.Errorf("history of a given-back original: %v", h)
	}
}

// TestAgreementCanceled: canceled before any installment is paid, the
// installments are canceled and the originals restored as they were; they
// can be renegotiated again, and an agreement with an installment paid is
// not canceled (409).
func TestAgreementCanceled(t *testing.T) {
	t.Parallel()
	f := agreementEnv(t)
	rec := f.agree(t, f.body(nil), http.StatusCreated).record(t)
	id, ids := num(t, rec["id"]), installmentIDs(t, rec)
	r := f.end(t, id, "cancel")
	if r.status != http.StatusOK || r.record(t)["status"] != "canceled" || r.record(t)["canceled_at"] != today(0) {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	for _, in := range ids {
		if inv := f.invoiceRecord(t, in); inv["status"] != "canceled" {
			t.Errorf("installment %d: %v", in, inv["status"])
		}
	}
	for i, o := range f.originals {
		inv := f.invoiceRecord(t, o)
		if inv["status"] != "overdue" || fmt.Sprint(inv["total"]) != []string{"1500.00", "1500.00", "1650.00"}[i] {
			t.Errorf("original %d restored: %v %v", o, inv["status"], inv["total"])
		}
	}
	if book := f.ledger(t); len(book) != 0 {
		t.Errorf("a canceled agreement posted: %v", book)
	}
	again := f.agree(t, f.body(map[string]any{"installments": 2, "discount": nil}), http.StatusCreated).record(t)
	if fmt.Sprint(again["total"]) != "4761.98" {
		t.Errorf("renegotiated again: total %v, want 4761.98", again["total"])
	}
	second := installmentIDs(t, again)
	f.pay(t, second[0], today(0))
	if r := f.end(t, num(t, again["id"]), "cancel"); r.status != http.StatusConflict || !strings.Contains(r.raw, "is paid") {
		t.Errorf("cancel with an installment paid: %d %s", r.status, r.raw)
	}
	f.ledger(t)
	if r := f.end(t, id, "cancel"); r.status != http.StatusConflict {
		t.Errorf("cancel a canceled agreement: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPost, fmt.Sprintf("/financial/agreements/%d/cancel", num(t, again["id"])), f.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("company B cancels: %d", r.status)
	}
}

// TestAgreementRefusals: what cannot be renegotiated is a 422 naming the
// field, and nothing is written: invoices of different payers, a paid,
// canceled or renegotiated one, one in a collection batch not reverted,
// another company's; installments below 1; a first due date in the past;
// a body with unknown or missing fields; an invoice not found beside the
// others' problems, all named in one 422. A renegotiated invoice refuses a
// payment, a status move, a change of its amounts and a delete.
func TestAgreementRefusals(t *testing.T) {
	t.Parallel()
	b := batchEnv(t)
	f := &agreementFixture{invoiceFixture: b.invoiceFixture}
	overdue := func(payer int64) int64 {
		return b.ticketInvoice(t, map[string]any{"payer_id": payer, "date": today(-20), "due_date": today(-10)})
	}
	a1, a2, other := overdue(b.payerFull), overdue(b.payerFull), overdue(f.payer)
	paid := overdue(b.payerFull)
	f.pay(t, paid, today(0))
	canceled := overdue(b.payerFull)
	if r := f.put(t, canceled, map[string]any{"status": "canceled"}); r.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	inBatch := b.ticketInvoice(t, map[string]any{"due_date": today(5)})
	batch := b.newBatch(t)
	if r := b.members(t, batch, "addInvoices", inBatch); r.status != http.StatusOK || len(list(t, r.record(t), "added")) != 1 {
		t.Fatalf("add to the batch: %d %s", r.status, r.raw)
	}
	foreign := f.scalar(t, `WITH p AS (INSERT INTO persons (company_id, name) VALUES ($1, 'B') RETURNING id),
		b AS (INSERT INTO businesses (company_id, name) VALUES ($1, 'B') RETURNING id),
		a AS (INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM b RETURNING id)
		INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, description, total, date, due_date)
		SELECT $1, 'single', p.id, b.id, a.id, 'ticket', 'B', 10, current_date, current_date FROM p, b, a RETURNING id`, f.compB)
	before := f.counts(t)
	cases := []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"another payer", map[string]any{"invoices": []int64{a1, other}}, []string{"invoices.1"}},
		{"a paid one", map[string]any{"invoices": []int64{paid, a1}}, []string{"invoices.0"}},
		{"a canceled one", map[string]any{"invoices": []int64{a1, canceled}}, []string{"invoices.1"}},
		{"in a batch not reverted", map[string]any{"invoices": []int64{a1, inBatch}}, []string{"invoices.1"}},
		{"another company's", map[string]any{"invoices": []int64{foreign}}, []string{"invoices.0"}},
		{"no installment", map[string]any{"installments": 0}, []string{"installments"}},
		{"first due date in the past", map[string]any{"first_due_date": today(-1)}, []string{"first_due_date"}},
		{"waiver above 100", map[string]any{"late_fee_waiver": "100.5"}, []string{"late_fee_waiver"}},
		{"discount not a number", map[string]any{"discount": "lots"}, []string{"discount"}},
		{"unknown field and missing ones", map[string]any{"invoices": nil, "installments": nil, "color": "red"},
			[]string{"color", "invoices", "installments"}},
		{"no invoice", map[string]any{"invoices": []int64{}}, []string{"invoices"}},
		// an unknown field is one problem among the others, all in one 422
		{"an unknown field beside the checks", map[string]any{"invoices": []int64{a1, a1}, "installments": 0,
			"first_due_date": today(-1), "interest_waiver": 150, "foo": 1},
			[]string{"foo", "installments", "first_due_date", "interest_waiver", "invoices.1"}},
		// an invoice not found hides none of the others' problems, nor the terms'
		{"an unknown invoice beside the checks", map[string]any{"invoices": []int64{paid, 987654321, canceled, inBatch},
			"installments": 0, "first_due_date": today(-1)},
			[]string{"invoices.1", "invoices.3", "installments", "first_due_date", "invoices.0", "invoices.2"}},
		{"an unknown invoice and an open one's terms", map[string]any{"invoices": []int64{a1, 987654321}, "installments": 0},
			[]string{"invoices.1", "installments"}},
		{"a value of the wrong type beside the checks", map[string]any{"installments": "two", "first_due_date": today(-1)},
			[]string{"installments", "first_due_date"}},
	}
	for _, c := range cases {
		body := map[string]any{"invoices": []int64{a1, a2}, "installments": 2, "first_due_date": today(0)}
		for k, v := range c.body {
			if v == nil {
				delete(body, k)
			} else {
				body[k] = v
			}
		}
		r := f.do(t, http.MethodPost, "/financial/agreements", f.keyA, body)
		if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || !slices.Equal(got, c.fields) {
			t.Errorf("%s: %d naming %v, want 422 naming %v\n%s", c.name, r.status, got, c.fields, r.raw)
		}
	}
	if after := f.counts(t); !maps.Equal(before, after) {
		t.Errorf("refused bodies wrote: %v, then %v", before, after)
	}
	// renegotiated, a1 and a2 refuse what would undo the agreement behind its back
	made := f.agree(t, map[string]any{"invoices": []int64{a1, a2}, "installments": 2, "first_due_date": today(0)}, http.StatusCreated)
	installments := installmentIDs(t, made.record(t))
	// an installment is neither refunded nor written off: the agreement reckons with it
	f.pay(t, installments[0], today(0))
	if r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/refund", installments[0]), f.keyA,
		map[string]any{"amount": "10.00", "date": today(0), "reason": "engano"}); r.status != http.StatusConflict ||
		!strings.Contains(r.raw, "undo its payment") {
		t.Errorf("refund an installment: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/writeOff", installments[1]), f.keyA,
		map[string]any{"date": today(0), "reason": "perda"}); r.status != http.StatusConflict || !strings.Contains(r.raw, "break the agreement") {
		t.Errorf("write off an installment: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/writeOff", a1), f.keyA,
		map[string]any{"date": today(0), "reason": "perda"}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("write off a renegotiated original: %d %s", r.status, r.raw)
	}
	r := f.do(t, http.MethodPost, "/financial/agreements", f.keyA, map[string]any{"invoices": []int64{a1}, "installments": 1,
		"first_due_date": today(0)})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.raw, "renegotiated already") {
		t.Errorf("renegotiated again: %d %s", r.status, r.raw)
	}
	if r := f.put(t, a1, map[string]any{"paid": true, "paid_at": today(0)}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"paid"}) {
		t.Errorf("pay a renegotiated invoice: %d %s", r.status, r.raw)
	}
	if r := f.put(t, a1, map[string]any{"status": "unpaid"}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("move a renegotiated invoice: %d %s", r.status, r.raw)
	}
	if r := f.put(t, a1, map[string]any{"total": "2000.00"}); r.status != http.StatusConflict {
		t.Errorf("change a renegotiated invoice's total: %d %s", r.status, r.raw)
	}
	if r := f.put(t, a2, map[string]any{"description": "Aluguel renegociado"}); r.status != http.StatusOK {
		t.Errorf("describe a renegotiated invoice: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d", a1), f.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete a renegotiated invoice: %d %s", r.status, r.raw)
	}
	if r := f.put(t, other, map[string]any{"status": "renegotiated"}); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.raw, "is set by an agreement") {
		t.Errorf("a client sets renegotiated: %d %s", r.status, r.raw)
	}
	if r := f.put(t, paid, map[string]any{"status": "renegotiated"}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a client sets renegotiated on a paid invoice: %d %s", r.status, r.raw)
	}
}

// checkAgreements holds every agreement to its invoices.
func (f *agreementFixture) checkAgreements(t *testing.T, agreements []int64, where string) {
	t.Helper()
	for _, id := range agreements {
		a := f.agreementRecord(t, id)
		status := a["status"].(string)
		paid, unpaidCanceled := 0, true
		ids := installmentIDs(t, a)
		for _, in := range ids {
			inv := f.invoiceRecord(t, in)
			if inv["paid"] == true {
				paid++
			} else if inv["status"] != "canceled" {
				unpaidCanceled = false
			}
		}
		switch {
		case status == "fulfilled" && paid != len(ids), status == "active" && paid == len(ids):
			t.Errorf("%s: agreement %d is %s with %d of %d installments paid", where, id, status, paid, len(ids))
		case (status == "broken" || status == "canceled") && !unpaidCanceled:
			t.Errorf("%s: agreement %d is %s with an unpaid installment not canceled", where, id, status)
		}
		for _, v := range a["invoice_ids"].([]any) {
			inv := f.invoiceRecord(t, num(t, v))
			mine := inv["agreement_id"] != nil && num(t, inv["agreement_id"]) == id
			renegotiated := inv["status"] == "renegotiated"
			if (status == "active" || status == "fulfilled") != (renegotiated && mine) {
				t.Errorf("%s: agreement %d is %s, its original %v is %v (agreement %v)", where, id, status, v, inv["status"], inv["agreement_id"])
			}
		}
	}
}
