package api

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// discounted is an invoice of 1,000.00 of the building (its owner bears
// the discount) due in 10 days, 5 % off when paid 5 days before: 950.00
// paid today.
func (f *invoiceFixture) discounted(t *testing.T) int64 {
	t.Helper()
	return f.invoice(t, map[string]any{"building_id": f.building, "ticket_discount": true, "ticket_discount_mode": "percentage",
		"ticket_discount_percentage": "5", "ticket_discount_days": 5, "ticket_discount_action": "owner"})
}

// overAlert is company A's over_payment alert of invoice inv, as GET
// /operator/alerts lists it (nil when none).
func (f *invoiceFixture) overAlert(t *testing.T, inv int64) map[string]any {
	t.Helper()
	for _, a := range f.operatorDo(t, http.MethodGet, "/operator/alerts", bearer(anaToken), nil).data(t) {
		if a["kind"] == "over_payment" && fmt.Sprint(a["invoice_id"]) == fmt.Sprint(inv) {
			return a
		}
	}
	return nil
}

// TestPartOverTheDiscountEndToEnd: a tenant paying 960.00 by the discount
// date of an invoice of 1,000.00 that is 950.00 then: before, a 422 (more
// than the 950.00 due); now 201, the invoice paid with its discount, the
// 10.00 over in the part (over_paid), in a warning on amount and in an
// over_payment alert, open until an operator resolves it (audited), then
// closed. Resolving it again is a 409, without a reason a 422.
func TestPartOverTheDiscountEndToEnd(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t, withLabelledTokens())
	id := f.discounted(t)
	r := f.payPart(t, id, map[string]any{"amount": "960.00", "paid_at": today(0), "method": "pix"})
	if r.status != http.StatusCreated {
		t.Fatalf("960.00 by the discount date: %d %s", r.status, r.raw)
	}
	part := r.record(t)
	inv := part["invoice"].(map[string]any)
	if got := fmt.Sprint(part["amount"], " ", part["discount"], " ", part["over_paid"], " ", part["method"], " ", inv["status"], " ",
		inv["balance"]); got != "950.00 50.00 10.00 pix paid 0.00" {
		t.Fatalf("the part: amount, discount, over_paid, method, status, balance %s", got)
	}
	if w := warningsOf(t, r)["amount"]; !strings.Contains(w, "paid 960.00 on "+today(0)+", 10.00 more than the 950.00 due") ||
		!strings.Contains(w, "an operator alert over_payment is raised") {
		t.Fatalf("the warning on amount: %q", w)
	}
	alert := f.overAlert(t, id)
	if alert == nil || alert["open"] != true || alert["job_id"] != nil || alert["resolution"] != nil ||
		!strings.Contains(fmt.Sprint(alert["message"]), "the 10.00 over is booked nowhere") {
		t.Fatalf("the alert: %v", alert)
	}
	path := fmt.Sprintf("/operator/alerts/%v/resolve", alert["id"])
	if r := f.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"resolution": "refunded"}); r.status != 422 ||
		!slices.Equal(r.problemFields(t), []string{"reason"}) {
		t.Fatalf("no reason: %d %s", r.status, r.raw)
	}
	r = f.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"resolution": "applied",
		"reason": "abatido do aluguel de abril"})
	if r.status != http.StatusOK {
		t.Fatalf("resolve: %d %s", r.status, r.raw)
	}
	data := r.body["data"].(map[string]any)
	if a := data["alert"].(map[string]any); a["open"] != false || a["resolution"] != "applied" || a["resolved_by"] != "ana" ||
		a["resolution_reason"] != "abatido do aluguel de abril" || a["resolved_at"] == nil || data["audit_id"] == nil {
		t.Fatalf("the answer: %s", r.raw)
	}
	if a := f.overAlert(t, id); a["open"] != false || a["resolution"] != "applied" {
		t.Fatalf("the alert listed after: %v", a)
	}
	audit := f.operatorDo(t, http.MethodGet, "/operator/audit", bearer(anaToken), nil).data(t)
	if len(audit) == 0 || audit[0]["action"] != "alerts.resolve" || audit[0]["reason"] != "abatido do aluguel de abril" ||
		fmt.Sprint(audit[0]["id"]) != fmt.Sprint(data["audit_id"]) {
		t.Fatalf("the audit log: %v", audit)
	}
	if r := f.operatorDo(t, http.MethodPost, path, bearer(anaToken), map[string]any{"resolution": "refunded", "reason": "x"}); r.status != http.StatusConflict {
		t.Fatalf("resolving it again: %d %s", r.status, r.raw)
	}
	if r := f.operatorDo(t, http.MethodPost, "/operator/alerts/999999999/resolve", bearer(anaToken),
		map[string]any{"resolution": "refunded", "reason": "x"}); r.status != http.StatusNotFound {
		t.Fatalf("no such alert: %d %s", r.status, r.raw)
	}
	// undone, the part says its over payment's alert still holds (resolved here already)
	r = f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d/payments/%v", id, part["id"]), f.keyA, nil)
	if r.status != http.StatusOK || !strings.Contains(fmt.Sprint(r.body["message"]), "it had paid 10.00 over what was due") {
		t.Fatalf("undoing the part paid over: %d %s", r.status, r.raw)
	}
	// above the face value is still refused, and nothing is written
	other := f.discounted(t)
	if r := f.payPart(t, other, map[string]any{"amount": "1000.01", "paid_at": today(0)}); r.status != 422 ||
		!strings.Contains(strings.Join(r.problemMessages(t), "; "), "more than the 1000.00 the invoice charges without its discount") {
		t.Fatalf("1000.01 by the discount date: %d %s", r.status, r.raw)
	}
	// paid: true takes no amount: the discounted amount, the same booking
	whole := f.pay(t, f.discounted(t), today(0))
	if fmt.Sprint(whole["paid_amount"], " ", whole["paid_discount"]) != "950.00 50.00" {
		t.Fatalf("paid: true by the discount date: %v %v", whole["paid_amount"], whole["paid_discount"])
	}
}

// TestPartMethodFilterAndUndoReason: a part's method is validated,
// stored, listed and filtered; an undo's optional reason is kept on the
// part and in the history's note; an undo's body with another field is a
// 422 that undoes nothing.
func TestPartMethodFilterAndUndoReason(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, nil)
	if r := f.payPart(t, id, map[string]any{"amount": "100.00", "paid_at": today(0), "method": "boleto"}); r.status != 422 ||
		!slices.Equal(r.problemFields(t), []string{"method"}) {
		t.Fatalf("method boleto: %d %s", r.status, r.raw)
	}
	if r := f.payPart(t, id, map[string]any{"amount": "100.00", "paid_at": today(0), "method": "cash"}); r.status != http.StatusCreated {
		t.Fatalf("a part in cash: %d %s", r.status, r.raw)
	}
	r := f.payPart(t, id, map[string]any{"amount": "200.00", "paid_at": today(0), "method": "ted"})
	if r.status != http.StatusCreated {
		t.Fatalf("a part by TED: %d %s", r.status, r.raw)
	}
	second := r.record(t)["id"]
	ted := f.get(t, fmt.Sprintf("/invoices/%d/payments?filter[method]=ted", id), http.StatusOK).data(t)
	if len(ted) != 1 || fmt.Sprint(ted[0]["id"]) != fmt.Sprint(second) || ted[0]["method"] != "ted" || ted[0]["undo_reason"] != nil {
		t.Fatalf("filter[method]=ted: %v", ted)
	}
	path := fmt.Sprintf("/invoices/%d/payments/%v", id, second)
	if r := f.do(t, http.MethodDelete, path, f.keyA, map[string]any{"reason": "x", "why": "y"}); r.status != 422 ||
		!slices.Equal(r.problemFields(t), []string{"why"}) {
		t.Fatalf("an undo with an unknown field: %d %s", r.status, r.raw)
	}
	r = f.do(t, http.MethodDelete, path, f.keyA, map[string]any{"reason": "TED devolvida pelo banco"})
	if rec := r.record(t); r.status != http.StatusOK || rec["undone"] != true || rec["undo_reason"] != "TED devolvida pelo banco" {
		t.Fatalf("the undo with a reason: %d %s", r.status, r.raw)
	}
	rows := f.history(t, id)
	if last := rows[len(rows)-1]; last["origin"] != "payment_undone" ||
		!strings.HasSuffix(fmt.Sprint(last["note"]), "; reason: TED devolvida pelo banco") {
		t.Fatalf("the undo's history row: %v", last)
	}
	listed := f.get(t, path, http.StatusOK).record(t)
	if listed["undo_reason"] != "TED devolvida pelo banco" || listed["undone_at"] == nil {
		t.Fatalf("the part as GET shows it: %v", listed)
	}
}

// TestPaidFalseOnAPartlyPaidInvoice: paid: false on a partially paid
// invoice undoes nothing; before, a 200 that said nothing; now the 200
// warns on paid, naming the parts and the DELETE of the latest, as paid:
// false on a paid invoice warns what it undid. A write without paid
// warns of nothing.
func TestPaidFalseOnAPartlyPaidInvoice(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, nil)
	if r := f.payPart(t, id, map[string]any{"amount": "300.00", "paid_at": today(-1)}); r.status != http.StatusCreated {
		t.Fatalf("part 1: %d %s", r.status, r.raw)
	}
	r := f.payPart(t, id, map[string]any{"amount": "100.00", "paid_at": today(0)})
	if r.status != http.StatusCreated {
		t.Fatalf("part 2: %d %s", r.status, r.raw)
	}
	latest := r.record(t)["id"]
	r = f.put(t, id, map[string]any{"paid": false})
	want := fmt.Sprintf("the invoice is partially paid (300.00 on %s, 100.00 on %s): paid: false undid nothing; its parts are "+
		"undone one by one, the latest first: DELETE /invoices/%d/payments/%v (part 2)", today(-1), today(0), id, latest)
	if r.status != http.StatusOK || warningsOf(t, r)["paid"] != want || r.record(t)["status"] != "partially_paid" {
		t.Fatalf("paid: false on a partly paid invoice: %d %s\nwant the warning %q", r.status, r.raw, want)
	}
	if r := f.put(t, id, map[string]any{"description": "Aluguel"}); r.status != http.StatusOK || r.body["warnings"] != nil {
		t.Fatalf("a write without paid: %d %s", r.status, r.raw)
	}
}

// TestCompanyResolvesItsOverPayment: a part paid over the discounted
// amount is listed among the company's over payments (open, source part),
// not among another company's; the company resolves it with its key
// (resolved_by naming its user, or the key), which closes the operator's alert, the
// same row; again is a 409, without a reason a 422, another company's a
// 404.
func TestCompanyResolvesItsOverPayment(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t, withLabelledTokens())
	id := f.discounted(t)
	if r := f.payPart(t, id, map[string]any{"amount": "960.00", "paid_at": today(0)}); r.status != http.StatusCreated {
		t.Fatalf("960.00 by the discount date: %d %s", r.status, r.raw)
	}
	open := f.get(t, fmt.Sprintf("/financial/overPayments?filter[open]=true&filter[invoice_id]=%d", id), http.StatusOK).data(t)
	if len(open) != 1 || open[0]["source"] != "part" || open[0]["resolution"] != nil || open[0]["job_id"] != nil ||
		!strings.Contains(fmt.Sprint(open[0]["message"]), "the 10.00 over is booked nowhere") {
		t.Fatalf("the company's open over payments: %v", open)
	}
	op := open[0]["id"]
	if other := f.do(t, http.MethodGet, "/financial/overPayments", f.keyB, nil).data(t); len(other) != 0 {
		t.Fatalf("company B lists %v", other)
	}
	path := fmt.Sprintf("/financial/overPayments/%v/resolve", op)
	if r := f.do(t, http.MethodPost, path, f.keyB, map[string]any{"resolution": "refunded", "reason": "PIX devolvido"}); r.status != http.StatusNotFound {
		t.Fatalf("company B resolving it: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPost, path, f.keyA, map[string]any{"resolution": "given back"}); r.status != 422 ||
		!slices.Equal(slices.Sorted(slices.Values(r.problemFields(t))), []string{"reason", "resolution"}) {
		t.Fatalf("a bad resolution without a reason: %d %s", r.status, r.raw)
	}
	r := f.do(t, http.MethodPost, path, f.keyA, map[string]any{"resolution": "refunded", "reason": "PIX devolvido em 10/12"})
	rec := r.record(t)
	if r.status != http.StatusOK || rec["open"] != false || rec["resolution"] != "refunded" ||
		rec["resolution_reason"] != "PIX devolvido em 10/12" || !regexp.MustCompile(`^(user|key) [0-9]+$`).MatchString(fmt.Sprint(rec["resolved_by"])) ||
		rec["resolved_at"] == nil {
		t.Fatalf("resolve: %d %s", r.status, r.raw)
	}
	if a := f.overAlert(t, id); a["open"] != false || a["resolution"] != "refunded" {
		t.Fatalf("the operator's alert after: %v", a)
	}
	if r := f.do(t, http.MethodPost, path, f.keyA, map[string]any{"resolution": "other", "reason": "x"}); r.status != http.StatusConflict ||
		!strings.Contains(r.raw, fmt.Sprintf("resolved already (refunded by %v on ", rec["resolved_by"])) {
		t.Fatalf("resolving it again: %d %s", r.status, r.raw)
	}
	if r := f.operatorDo(t, http.MethodPost, fmt.Sprintf("/operator/alerts/%v/resolve", op), bearer(anaToken),
		map[string]any{"resolution": "other", "reason": "x"}); r.status != http.StatusConflict {
		t.Fatalf("the operator resolving it after the company: %d %s", r.status, r.raw)
	}
}
