package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/receipt"
	"github.com/propfin/propfin/storage"
)

// payPart posts a part of invoice id with company A's key.
func (f *invoiceFixture) payPart(t *testing.T, id int64, body map[string]any) response {
	t.Helper()
	return f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/payments", id), f.keyA, body)
}

// TestInvoicePartRefusals: each refusal of a part is a 422 naming its
// field (every problem at once), another company's invoice a 404, and
// none writes anything.
func TestInvoicePartRefusals(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.create(t, "/invoices", f.refundBody(10)) // 1,000.00, on time: 1,000.00 due
	canceled := f.create(t, "/invoices", f.refundBody(10))
	if r := f.put(t, canceled, map[string]any{"status": "canceled"}); r.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	paid := f.create(t, "/invoices", f.refundBody(10))
	f.pay(t, paid, today(0))
	for _, c := range []struct {
		name   string
		id     int64
		key    string
		body   map[string]any
		code   int
		fields []string
		says   string
	}{
		{"zero", id, f.keyA, map[string]any{"amount": 0, "paid_at": today(0)}, 422, []string{"amount"}, "more than zero"},
		{"negative", id, f.keyA, map[string]any{"amount": "-5.00", "paid_at": today(0)}, 422, []string{"amount"}, "more than zero"},
		{"more than is due", id, f.keyA, map[string]any{"amount": "1000.01", "paid_at": today(0)}, 422, []string{"amount"},
			"1000.01 is more than the 1000.00 due on " + today(0)},
		{"nothing given", id, f.keyA, map[string]any{}, 422, []string{"amount", "paid_at"}, "is required"},
		{"a fraction of a cent, no date", id, f.keyA, map[string]any{"amount": 12.345}, 422, []string{"amount", "paid_at"},
			"12.345 has more than two decimal places"},
		{"after today", id, f.keyA, map[string]any{"amount": "10.00", "paid_at": today(1)}, 422, []string{"paid_at"}, "after today"},
		{"credited before paid", id, f.keyA, map[string]any{"amount": "10.00", "paid_at": today(0), "credit_at": today(-1)},
			422, []string{"credit_at"}, "before paid_at"},
		{"an unknown field", id, f.keyA, map[string]any{"amount": "10.00", "paid_at": today(0), "reason": "x"}, 422,
			[]string{"reason"}, "unknown field"},
		{"every problem at once", id, f.keyA, map[string]any{"amount": "5000.00", "paid_at": today(1), "x": 1}, 422,
			[]string{"x", "paid_at", "amount"}, ""},
		{"a canceled invoice", canceled, f.keyA, map[string]any{"amount": "10.00", "paid_at": today(0)}, 422, []string{"status"},
			"the invoice is canceled"},
		{"a paid invoice", paid, f.keyA, map[string]any{"amount": "10.00", "paid_at": today(0)}, 422, []string{"status"},
			"nothing is left to pay"},
		{"another company's invoice", id, f.keyB, map[string]any{"amount": "10.00", "paid_at": today(0)}, 404, nil, ""},
	} {
		r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/payments", c.id), c.key, c.body)
		switch {
		case r.status != c.code:
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.raw, c.code)
		case c.code == 422 && !slices.Equal(slices.Sorted(slices.Values(r.problemFields(t))), slices.Sorted(slices.Values(c.fields))):
			t.Errorf("%s: %s, want problems on %v", c.name, r.raw, c.fields)
		case c.says != "" && !strings.Contains(strings.Join(r.problemMessages(t), "; "), c.says):
			t.Errorf("%s: %s, want it to say %q", c.name, r.raw, c.says)
		}
	}
	if b := f.balances(t, id); len(b) != 0 {
		t.Fatalf("the refusals wrote entries: %v", b)
	}
	if n := f.scalar(t, `SELECT count(*) FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2`, f.compA, id); n != 0 {
		t.Fatalf("the refusals wrote %d parts", n)
	}
}

// TestInvoicePartPayments: a part through the API (201, the invoice
// partially paid with its balance, in the list of its payments), a part
// dated before it refused, the rest paid with paid: true (the one part
// that settles it, late fee and interest on the rest), the earlier part's
// undo refused naming the later, the latest undone (its answer with what
// was due on its paid_at).
func TestInvoicePartPayments(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.create(t, "/invoices", f.refundBody(-12)) // 1,000.00 due 12 days ago, 2 % and 1 % a month
	// today: 1,000.00 + 20.00 + 4.00 = 1,024.00 due; half of it pays 500.00 of principal, 10.00 and 2.00
	r := f.payPart(t, id, map[string]any{"amount": "512.00", "paid_at": today(0)})
	if r.status != http.StatusCreated {
		t.Fatalf("part: %d %s", r.status, r.raw)
	}
	first := r.record(t)
	inv := first["invoice"].(map[string]any)
	if fmt.Sprint(first["n"]) != "1" || fmt.Sprint(first["principal"]) != "500.00" || fmt.Sprint(first["late_fee"]) != "10.00" ||
		fmt.Sprint(first["interest"]) != "2.00" || fmt.Sprint(first["due"]) != "1024.00" || inv["status"] != "partially_paid" ||
		fmt.Sprint(inv["balance"]) != "500.00" || inv["paid"] != false || r.header.Get("Location") != fmt.Sprintf("/invoices/%d/payments/%v", id, first["id"]) {
		t.Fatalf("part's answer: %s (Location %s)", r.raw, r.header.Get("Location"))
	}
	rec := f.get(t, fmt.Sprintf("/invoices/%d", id), http.StatusOK).record(t)
	if rec["status"] != "partially_paid" || fmt.Sprint(rec["balance"]) != "500.00" || fmt.Sprint(rec["paid_amount"]) != "512.00" ||
		rec["paid"] != false {
		t.Fatalf("the invoice after the part: %v %v %v %v", rec["status"], rec["balance"], rec["paid_amount"], rec["paid"])
	}
	if b := f.balances(t, id); b["customer"] != -51200 || b["owner"] != 46200 || b["business"] != 5000 {
		t.Fatalf("the part's balances: %v", b)
	}
	if r := f.payPart(t, id, map[string]any{"amount": "10.00", "paid_at": today(-1)}); r.status != 422 ||
		!slices.Equal(r.problemFields(t), []string{"paid_at"}) {
		t.Fatalf("a part before the earlier one: %d %s", r.status, r.raw)
	}
	if r := f.put(t, id, map[string]any{"total": "900.00"}); r.status != http.StatusConflict {
		t.Fatalf("changing a partially paid invoice's total: %d %s", r.status, r.raw)
	}

	if r := f.put(t, id, map[string]any{"paid": true, "paid_at": today(-1)}); r.status != 422 ||
		!slices.Equal(r.problemFields(t), []string{"paid_at"}) {
		t.Fatalf("the rest paid before the part: %d %s", r.status, r.raw)
	}
	// the rest, with paid: true: 500.00 + 10.00 + 2.00
	paid := f.pay(t, id, today(0))
	if paid["status"] != "paid" || fmt.Sprint(paid["paid_amount"]) != "1024.00" || fmt.Sprint(paid["balance"]) != "0.00" ||
		fmt.Sprint(paid["paid_late_fee"]) != "20.00" || fmt.Sprint(paid["paid_interest"]) != "4.00" {
		t.Fatalf("the rest paid: %v", paid)
	}
	parts := f.get(t, fmt.Sprintf("/invoices/%d/payments?sort=n", id), http.StatusOK).data(t)
	if len(parts) != 2 || fmt.Sprint(parts[1]["n"]) != "2" || fmt.Sprint(parts[1]["amount"]) != "512.00" ||
		parts[1]["split"] != fmt.Sprintf("invoice-%d-payment-2", id) || parts[0]["actor"] != "user" {
		t.Fatalf("the invoice's payments: %v", parts)
	}
	if b := f.balances(t, id); b["customer"] != -102400 || b["owner"] != 92400 || b["business"] != 10000 {
		t.Fatalf("both parts' balances: %v", b)
	}
	included := f.get(t, fmt.Sprintf("/invoices/%d?include[payments]", id), http.StatusOK).record(t)["payments"]
	if ps, _ := included.([]any); len(ps) != 2 || fmt.Sprint(ps[0].(map[string]any)["n"]) != "1" {
		t.Fatalf("include[payments]: %v", included)
	}

	// undo: the latest only
	r = f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d/payments/%v", id, parts[0]["id"]), f.keyA, nil)
	if r.status != http.StatusConflict || !strings.Contains(r.raw, fmt.Sprintf("part 2 (payment %v)", parts[1]["id"])) {
		t.Fatalf("undoing the earlier part: %d %s", r.status, r.raw)
	}
	r = f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d/payments/%v", id, parts[1]["id"]), f.keyB, nil)
	if r.status != http.StatusNotFound {
		t.Fatalf("another company undoing: %d %s", r.status, r.raw)
	}
	r = f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d/payments/%v", id, parts[1]["id"]), f.keyA, nil)
	// its due, as recording it answered: what was due on its paid_at, 500.00 + 10.00 + 2.00
	if r.status != http.StatusOK || r.record(t)["undone"] != true || fmt.Sprint(r.record(t)["due"]) != "512.00" {
		t.Fatalf("undoing the latest part: %d %s", r.status, r.raw)
	}
	rec = f.get(t, fmt.Sprintf("/invoices/%d", id), http.StatusOK).record(t)
	if rec["status"] != "partially_paid" || fmt.Sprint(rec["balance"]) != "500.00" || fmt.Sprint(rec["paid_amount"]) != "512.00" ||
		rec["paid"] != false || rec["paid_at"] != nil {
		t.Fatalf("after the undo: %v", rec)
	}
	if b := f.balances(t, id); b["customer"] != -51200 || b["owner"] != 46200 || b["business"] != 5000 {
		t.Fatalf("balances after the undo: %v", b)
	}
	rows := f.history(t, id)
	if last := rows[len(rows)-1]; last["origin"] != "payment_undone" || !strings.Contains(fmt.Sprint(last["note"]), "part 2 undone") {
		t.Fatalf("the undo's history row: %v", last)
	}
}

// TestReceiptPageOfAPartlyPaidInvoice: the receipt page of an invoice
// partially paid says so and shows what its parts paid; it offers no
// means of paying the whole again.
func TestReceiptPageOfAPartlyPaidInvoice(t *testing.T) {
	t.Parallel()
	page := receiptPageOf(receipt.KindInvoice, storage.Receipt{Number: "7", Status: "partially_paid",
		Total: decimal.RequireFromString("1500.00"), PaidAmount: decimal.RequireFromString("1000.00"),
		Digitable: "34191090080101527124880212460002425480000675787", Barcode: "34194254800006757871090001015271248021246000"})
	if page.Payment == nil || !page.Payment.Amount.Equal(decimal.RequireFromString("1000.00")) || !page.Payment.PaidAt.IsZero() {
		t.Fatalf("the payment shown: %+v", page.Payment)
	}
	var b strings.Builder
	if err := receipt.Render(&b, page); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if !strings.Contains(html, "Pago parcialmente") || !strings.Contains(html, "1.000,00") || strings.Contains(html, "Linha digitável") {
		t.Fatalf("the page:\n%s", html)
	}
}
