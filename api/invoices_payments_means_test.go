package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/propfin/propfin/pix"
)

// warningsOf maps the field of each of an answer's warnings to its
// message.
func warningsOf(t *testing.T, r response) map[string]string {
	t.Helper()
	out := map[string]string{}
	items, _ := r.body["warnings"].([]any)
	for _, it := range items {
		w := it.(map[string]any)
		field, msg := fmt.Sprint(w["field"]), fmt.Sprint(w["message"])
		if prev, ok := out[field]; ok { // two warnings of a field: both kept
			msg = prev + "; " + msg
		}
		out[field] = msg
	}
	return out
}

// TestPartWarnsOfAStalePixCode: a part of an invoice whose stored PIX code
// charges its whole total discards the code (with a history row) and
// answers a warning on pix_code saying to store a code for the balance; a
// code of the balance is discarded by the next part in turn; a part with
// nothing stale answers no warning.
func TestPartWarnsOfAStalePixCode(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	_, code := testPixCode(t) // 1,000.00, the invoice's total
	id := f.invoice(t, map[string]any{"billing_id": f.billing})
	if r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/pixCode", id), f.keyA, map[string]any{"pixCode": code}); r.status != http.StatusOK {
		t.Fatalf("pixCode: %d %s", r.status, r.raw)
	}
	r := f.payPart(t, id, map[string]any{"amount": "300.00", "paid_at": today(0)})
	if r.status != http.StatusCreated {
		t.Fatalf("part: %d %s", r.status, r.raw)
	}
	w := warningsOf(t, r)
	if len(w) != 1 || !strings.Contains(w["pix_code"], "charged more than is left to pay (1000.00, 700.00 of the total open): it was discarded") ||
		!strings.Contains(w["pix_code"], fmt.Sprintf("POST /invoices/%d/pixCode", id)) {
		t.Fatalf("the part's warnings: %s", r.raw)
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", id), http.StatusOK).record(t); rec["pix_code"] != nil {
		t.Fatalf("the stale code is still stored: %v", rec["pix_code"])
	}
	var pixRows []map[string]any
	for _, row := range f.history(t, id) {
		if row["origin"] == "pix_code" {
			pixRows = append(pixRows, row)
		}
	}
	if len(pixRows) != 2 || !strings.Contains(fmt.Sprint(pixRows[1]["changes"]), "to:<nil>") {
		t.Fatalf("the code's history rows (stored, discarded): %v", pixRows)
	}
	// a code of the balance stays through a part that leaves it payable
	balance, err := pix.BuildStatic(pix.Static{Key: "52998224725", Name: "Horizonte Imoveis", City: "Sao Paulo", Amount: "700.00"})
	if err != nil {
		t.Fatal(err)
	}
	if r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/pixCode", id), f.keyA, map[string]any{"pixCode": balance}); r.status != http.StatusOK {
		t.Fatalf("pixCode of the balance: %d %s", r.status, r.raw)
	}
	if r := f.payPart(t, id, map[string]any{"amount": "100.00", "paid_at": today(0)}); r.status != http.StatusCreated ||
		!strings.Contains(warningsOf(t, r)["pix_code"], "(700.00, 600.00 of the total open)") {
		t.Fatalf("a second part: %d %s", r.status, r.raw)
	}
	plain := f.invoice(t, nil)
	if r := f.payPart(t, plain, map[string]any{"amount": "300.00", "paid_at": today(0)}); r.status != http.StatusCreated ||
		r.body["warnings"] != nil {
		t.Fatalf("a part with nothing to warn of: %d %s", r.status, r.raw)
	}
}

// TestPartOfAnInvoiceInABatch: a part of an invoice in an open collection
// batch warns that the batch's file would charge the whole total, and the
// file is then refused naming the invoice and what was paid; removed from
// the batch, the file of the others is written. A part of an invoice whose
// file was written warns that the bank still charges the whole total.
func TestPartOfAnInvoiceInABatch(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	inv, other := f.ticketInvoice(t, nil), f.ticketInvoice(t, nil)
	batch := f.newBatch(t)
	if r := f.members(t, batch, "addInvoices", inv, other); r.status != http.StatusOK {
		t.Fatalf("addInvoices: %d %s", r.status, r.raw)
	}
	r := f.payPart(t, inv, map[string]any{"amount": "200.00", "paid_at": today(0)})
	if w := warningsOf(t, r); r.status != http.StatusCreated ||
		!strings.Contains(w["ticket_batch"], fmt.Sprintf("open collection batch %d, whose file would charge the whole total 1000.00", batch)) ||
		!strings.Contains(w["ticket_batch"], "removeInvoices") {
		t.Fatalf("the part's answer: %d %s", r.status, r.raw)
	}
	d := f.do(t, http.MethodGet, fmt.Sprintf("/financial/ticketBatch/%d/downloadBatchFile", batch), f.keyA, nil)
	if text := strings.Join(d.problemMessages(t), "; "); d.status != 422 ||
		!slices.Equal(d.problemFields(t), []string{fmt.Sprintf("invoices.%d", inv)}) ||
		!strings.Contains(text, "is partially_paid (200.00 of its 1000.00 paid since it was added)") {
		t.Fatalf("the file of a batch holding a partly paid invoice: %d %s", d.status, d.raw)
	}
	if r := f.members(t, batch, "removeInvoices", inv); r.status != http.StatusOK {
		t.Fatalf("removeInvoices: %d %s", r.status, r.raw)
	}
	_, _, done := f.batchFile(t, batch)
	if res := done["result"].(map[string]any); num(t, res["titles"]) != 1 {
		t.Fatalf("the file once the invoice is removed: %v", res)
	}
	r = f.payPart(t, other, map[string]any{"amount": "100.00", "paid_at": today(0)})
	if w := warningsOf(t, r); r.status != http.StatusCreated ||
		!strings.Contains(w["ticket_batch"], fmt.Sprintf("boleto at the bank (collection batch %d) still charges the whole total 1000.00, not the balance 900.00", batch)) ||
		!strings.Contains(w["ticket_batch"], "revertInvoices") {
		t.Fatalf("a part of an invoice at the bank: %d %s", r.status, r.raw)
	}
}

// TestPartCreditedTooLate: credit_at more than a week after paid_at is a
// 422 naming the last day it may be; a week after is accepted.
func TestPartCreditedTooLate(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, nil)
	r := f.payPart(t, id, map[string]any{"amount": "10.00", "paid_at": today(-10), "credit_at": today(-2)})
	if r.status != 422 || !strings.Contains(strings.Join(r.problemMessages(t), ";"), "more than 7 days after paid_at (at most "+today(-3)+")") {
		t.Fatalf("credit_at 8 days after: %d %s", r.status, r.raw)
	}
	if r := f.payPart(t, id, map[string]any{"amount": "10.00", "paid_at": today(-10), "credit_at": today(-3)}); r.status != http.StatusCreated {
		t.Fatalf("credit_at 7 days after: %d %s", r.status, r.raw)
	}
}

// TestPaidCreditedOutOfBounds: paid: true takes credit_at by the bounds a
// part and a return file's line do: not before paid_at, at most 7 days
// after it; nothing is written by a refusal.
func TestPaidCreditedOutOfBounds(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, nil)
	for _, c := range []struct{ credit, says string }{
		{today(-2), "is more than 7 days after the payment date " + today(-10) + " (at most " + today(-3) + ")"},
		{today(-11), "is before the payment date " + today(-10)},
	} {
		r := f.put(t, id, map[string]any{"paid": true, "paid_at": today(-10), "credit_at": c.credit})
		if r.status != 422 || !slices.Equal(r.problemFields(t), []string{"credit_at"}) ||
			!strings.Contains(strings.Join(r.problemMessages(t), ";"), c.says) {
			t.Fatalf("paid: true credited %s: %d %s", c.credit, r.status, r.raw)
		}
	}
	if b := f.balances(t, id); len(b) != 0 {
		t.Fatalf("the refusals wrote entries: %v", b)
	}
	r := f.put(t, id, map[string]any{"paid": true, "paid_at": today(-10), "credit_at": today(-3)})
	if r.status != http.StatusOK || r.record(t)["credit_at"] != today(-3) {
		t.Fatalf("paid: true credited 7 days after: %d %s", r.status, r.raw)
	}
}

// TestReceiptPageOfParts: the page of an invoice partly paid lists its
// part with its day, the balance, and neither its boleto nor the PIX code
// of its total (the part discarded it); paid by a second part later, the
// receipt lists both parts, each on its day, and is settled on the last.
func TestReceiptPageOfParts(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t, withReceipts())
	_, code := testPixCode(t)
	id := f.invoice(t, map[string]any{"billing_id": f.billing, "due_date": today(-12)}) // 1,000.00, no late fee
	f.exec(t, `UPDATE invoices SET ticket_digitable = $3, ticket_barcode = $4, pix_code = $5 WHERE company_id = $1 AND id = $2`,
		f.compA, id, "34191.09008 01015.271248 80212.460002 4 25480000675787", "34194254800006757871090001015271248021246000", code)
	if r := f.payPart(t, id, map[string]any{"amount": "400.00", "paid_at": today(-12)}); r.status != http.StatusCreated {
		t.Fatalf("part: %d %s", r.status, r.raw)
	}
	url := receiptLinkOf(t, f.testEnv, fmt.Sprintf("/invoices/%d/receiptLink", id), f.keyA)
	_, html := page(t, url)
	dayOf := func(s string) string { return s[8:10] + "/" + s[5:7] + "/" + s[:4] }
	for _, want := range []string{"Pago parcialmente", "<td>" + dayOf(today(-12)) + "</td><td class=\"amount\">R$ 400,00</td>",
		"Saldo em aberto</dt><dd><strong>R$ 600,00", "não o use para pagar o saldo"} {
		if !strings.Contains(html, want) {
			t.Fatalf("the page of the partly paid invoice lacks %q:\n%s", want, html)
		}
	}
	if strings.Contains(html, "Linha digitável") || strings.Contains(html, code) {
		t.Fatalf("the page of the partly paid invoice offers the whole total's means:\n%s", html)
	}
	if r := f.payPart(t, id, map[string]any{"amount": "600.00", "paid_at": today(0)}); r.status != http.StatusCreated {
		t.Fatalf("the rest: %d %s", r.status, r.raw)
	}
	_, html = page(t, url)
	for _, want := range []string{"Recibo de pagamento", "R$ 1.000,00", "em 2 pagamentos",
		"<td>" + dayOf(today(-12)) + "</td><td class=\"amount\">R$ 400,00</td><td class=\"amount\">R$ 0,00</td>",
		"<td>" + dayOf(today(0)) + "</td><td class=\"amount\">R$ 600,00</td><td class=\"amount\">R$ 0,00</td>",
		"Quitado em</dt><dd>" + dayOf(today(0))} {
		if !strings.Contains(html, want) {
			t.Fatalf("the receipt of the invoice paid in parts lacks %q:\n%s", want, html)
		}
	}
}

// TestReceiptPageOfMeansAndRefunds: the receipt of an invoice paid in
// parts says each part's means and, when they all name the same, the
// payment's; parts that name none say nothing of the invoice's billing
// method (how it was charged, not paid); a refund is said with what was
// kept.
func TestReceiptPageOfMeansAndRefunds(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t, withReceipts())
	pay := func(id int64, amount, method string) {
		t.Helper()
		body := map[string]any{"amount": amount, "paid_at": today(0)}
		if method != "" {
			body["method"] = method
		}
		if r := f.payPart(t, id, body); r.status != http.StatusCreated {
			t.Fatalf("part: %d %s", r.status, r.raw)
		}
	}
	same := f.invoice(t, map[string]any{"billing_id": f.billing}) // 1,000.00
	pay(same, "400.00", "pix")
	pay(same, "600.00", "pix")
	if r := f.operate(t, same, "refund", map[string]any{"amount": "100.00", "reason": "pago a mais"}); r.status != http.StatusOK {
		t.Fatalf("refund: %d %s", r.status, r.raw)
	}
	_, html := page(t, receiptLinkOf(t, f.testEnv, fmt.Sprintf("/invoices/%d/receiptLink", same), f.keyA))
	for _, want := range []string{"<th>Forma</th>", "<td>PIX</td>", "Forma de pagamento</dt><dd>PIX",
		"Dessa importância, <strong>R$ 100,00</strong> foi devolvida ao pagador.", "Devolvido</dt><dd>R$ 100,00",
		"Valor retido</dt><dd><strong>R$ 900,00"} {
		if !strings.Contains(html, want) {
			t.Fatalf("the receipt of the invoice paid in two PIX parts, 100.00 given back, lacks %q:\n%s", want, html)
		}
	}
	unnamed := f.invoice(t, map[string]any{"billing_id": f.billing})
	pay(unnamed, "400.00", "")
	pay(unnamed, "600.00", "")
	_, html = page(t, receiptLinkOf(t, f.testEnv, fmt.Sprintf("/invoices/%d/receiptLink", unnamed), f.keyA))
	if !strings.Contains(html, "em 2 pagamentos") || strings.Contains(html, "Forma") || strings.Contains(html, "devolvida") {
		t.Fatalf("the receipt of parts naming no means says one, or a refund:\n%s", html)
	}
}

// TestPartUndoMessages: cancelling a partly paid invoice is refused saying
// to undo its parts (not paid: false, which does nothing to it); paid:
// false on an invoice paid in two parts warns that it undid both, naming
// them; undoing a part that reverses a refund says so with its amount.
func TestPartUndoMessages(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, nil)
	if r := f.payPart(t, id, map[string]any{"amount": "300.00", "paid_at": today(-1)}); r.status != http.StatusCreated {
		t.Fatalf("part: %d %s", r.status, r.raw)
	}
	r := f.put(t, id, map[string]any{"status": "canceled"})
	if msg := strings.Join(r.problemMessages(t), "; "); r.status != 422 ||
		!strings.Contains(msg, "undo its parts first (DELETE /invoices/{id}/payments/{part}, the latest first)") ||
		strings.Contains(msg, "paid: false") {
		t.Fatalf("cancelling a partly paid invoice: %d %s", r.status, r.raw)
	}
	f.pay(t, id, today(0)) // the rest, 700.00, as part 2
	r = f.put(t, id, map[string]any{"paid": false})
	if w := warningsOf(t, r); r.status != http.StatusOK ||
		!strings.Contains(w["paid"], "paid: false undid all 2 parts of the invoice (300.00 on "+today(-1)+", 700.00 on "+today(0)+")") {
		t.Fatalf("paid: false on an invoice paid in parts: %d %s", r.status, r.raw)
	}

	other := f.invoice(t, nil)
	r = f.payPart(t, other, map[string]any{"amount": "300.00", "paid_at": today(0)})
	if r.status != http.StatusCreated {
		t.Fatalf("part: %d %s", r.status, r.raw)
	}
	part := r.record(t)["id"]
	if r := f.operate(t, other, "refund", map[string]any{"amount": "100.00", "reason": "pago a mais"}); r.status != http.StatusOK {
		t.Fatalf("refund: %d %s", r.status, r.raw)
	}
	r = f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d/payments/%v", other, part), f.keyA, nil)
	if msg := fmt.Sprint(r.body["message"]); r.status != http.StatusOK ||
		!strings.Contains(msg, "Part undone; the invoice's refunds (100.00 given back) were reversed with it") ||
		!strings.Contains(msg, "no payment of the invoice stands now") ||
		!strings.Contains(msg, fmt.Sprintf("POST /invoices/%d/payments, then POST /invoices/%d/refund", other, other)) ||
		!strings.Contains(msg, "record what was given back by hand (POST /transactions)") ||
		strings.Contains(msg, "from the payments that stand") {
		t.Fatalf("undoing the only part with a refund: %d %s", r.status, r.raw)
	}

	// two parts, a refund, the latest undone: the first stands to refund from
	for _, amount := range []string{"300.00", "200.00"} {
		r = f.payPart(t, other, map[string]any{"amount": amount, "paid_at": today(0)})
		if r.status != http.StatusCreated {
			t.Fatalf("part: %d %s", r.status, r.raw)
		}
	}
	part = r.record(t)["id"]
	if r := f.operate(t, other, "refund", map[string]any{"amount": "50.00", "reason": "pago a mais"}); r.status != http.StatusOK {
		t.Fatalf("refund: %d %s", r.status, r.raw)
	}
	r = f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d/payments/%v", other, part), f.keyA, nil)
	if msg := fmt.Sprint(r.body["message"]); r.status != http.StatusOK ||
		!strings.Contains(msg, "the invoice's refunds (50.00 given back) were reversed with it") ||
		!strings.Contains(msg, fmt.Sprintf("refund it again (POST /invoices/%d/refund) from the payments that stand", other)) {
		t.Fatalf("undoing the latest of two parts with a refund: %d %s", r.status, r.raw)
	}
}

// TestPartBeforeTheFirstStatementMonth: a part paid before the company's
// first owner statement month is recorded with a warning on paid_at
// (no statement shows it, the informe of its year cannot be issued, the
// DIMOB declares it); one paid in or after that month has none.
func TestPartBeforeTheFirstStatementMonth(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, map[string]any{"date": today(-90), "due_date": today(-80)})
	month := today(-40)[:7]
	f.exec(t, `INSERT INTO owner_statement_months (company_id, month, statements, lines) VALUES ($1, $2, 0, 0)`, f.compA, month)
	before := today(-80)
	r := f.payPart(t, id, map[string]any{"amount": "100.00", "paid_at": before})
	if w := warningsOf(t, r); r.status != http.StatusCreated || !strings.Contains(w["paid_at"], fmt.Sprintf(
		"is in %s, before the company's first owner statement month (%s)", before[:7], month)) ||
		!strings.Contains(w["paid_at"], "the informe of "+before[:4]+" cannot be issued, and the DIMOB of "+before[:4]+" declares it") {
		t.Fatalf("a part before the first statement month: %d %s", r.status, r.raw)
	}
	if r := f.payPart(t, id, map[string]any{"amount": "100.00", "paid_at": today(0)}); r.status != http.StatusCreated || r.body["warnings"] != nil {
		t.Fatalf("a part after it: %d %s", r.status, r.raw)
	}
}

// TestPartBeforeTheInvoicesDate: a part paid before its invoice's date (a
// typo of the year, most often) is recorded with a warning on paid_at that
// says how to undo it; one paid on or after that date has none.
func TestPartBeforeTheInvoicesDate(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, map[string]any{"date": today(-30), "due_date": today(-20)})
	r := f.payPart(t, id, map[string]any{"amount": "100.00", "paid_at": today(-400)})
	if w := warningsOf(t, r); r.status != http.StatusCreated ||
		!strings.Contains(w["paid_at"], "is before the invoice's date ("+today(-30)+"): paid in advance, or a typo of the year?") ||
		!strings.Contains(w["paid_at"], fmt.Sprintf("DELETE /invoices/%d/payments/%v", id, r.record(t)["id"])) {
		t.Fatalf("a part paid before the invoice's date: %d %s", r.status, r.raw)
	}
	if r := f.payPart(t, id, map[string]any{"amount": "100.00", "paid_at": today(-30)}); r.status != http.StatusCreated || r.body["warnings"] != nil {
		t.Fatalf("a part on the invoice's date: %d %s", r.status, r.raw)
	}
}

// TestPartlyPaidPastDue: a partially paid invoice past its due date keeps
// its status and reads past_due true; filter[past_due] and
// filter[overdue] find it (and the overdue unpaid one), not one not yet
// due.
func TestPartlyPaidPastDue(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	late := f.invoice(t, map[string]any{"date": today(-20), "due_date": today(-5)})
	notYet := f.invoice(t, nil)
	overdue := f.invoice(t, map[string]any{"date": today(-20), "due_date": today(-5)})
	for _, id := range []int64{late, notYet} {
		if r := f.payPart(t, id, map[string]any{"amount": "0.01", "paid_at": today(0)}); r.status != http.StatusCreated {
			t.Fatalf("part: %d %s", r.status, r.raw)
		}
	}
	rec := f.get(t, fmt.Sprintf("/invoices/%d", late), http.StatusOK).record(t)
	if rec["status"] != "partially_paid" || rec["past_due"] != true {
		t.Fatalf("the late partly paid invoice: status %v, past_due %v", rec["status"], rec["past_due"])
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", notYet), http.StatusOK).record(t); rec["past_due"] != false {
		t.Fatalf("the partly paid invoice not yet due: past_due %v", rec["past_due"])
	}
	for _, filter := range []string{"filter[past_due]=true", "filter[overdue]=true"} {
		ids := f.get(t, "/invoices?sort=id&"+filter, http.StatusOK).ids(t)
		if !slices.Equal(ids, []int64{late, overdue}) {
			t.Errorf("%s: %v, want %v", filter, ids, []int64{late, overdue})
		}
	}
}
