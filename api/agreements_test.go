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
