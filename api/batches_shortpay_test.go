package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestShortPaymentBookedAsAPart: the Bradesco CNAB 240 file of
// docs/cnab-retorno.md with its title paid short (nominal 1,500.00, tariff
// 2.50; paid 1,000.00 on 2026-12-04, credited 997.50, no interest,
// discount or abatement) books what came in as a part of the invoice
// (docs/ledger.md, "Part payments"): the line is short_paid with what was
// paid and due and says it was booked, with the rest still open; the
// invoice is partially_paid with 1,000.00 paid and 500.00 open, its
// part's entries credit the owner, the tariff is booked, and one operator
// alert names it, saying so.
func TestShortPaymentBookedAsAPart(t *testing.T) {
	t.Parallel()
	file := paidReturn240(t, "000000000100000", "000000000099750") // paid short

	f, acc, inv := pageCollection240(t)
	done := f.returnJob(t, "/financial/ticketBatch", acc, file)
	report := done["result"].(map[string]any)["report"].([]any)
	if len(report) != 1 {
		t.Fatalf("the report has %d lines: %v", len(report), report)
	}
	line := report[0].(map[string]any)
	msg := fmt.Sprint(line["message"])
	if got := fmt.Sprint(line["outcome"], " ", line["paid"], " ", line["expected"], " ", line["difference"]); got !=
		"short_paid 1000.00 1500.00 -500.00" || fmt.Sprint(line["invoice_id"]) != fmt.Sprint(inv) ||
		!strings.Contains(msg, "the bank paid 1000.00 on 2026-12-04, 500.00 less than the 1500.00 the bank's parts add up to") ||
		!strings.Contains(msg, "booked as part 1 of the invoice (principal 1000.00, late fee 0.00, interest 0.00): "+
			"500.00 of its total is still open") ||
		!strings.Contains(msg, "the bank's tariff 2.50 booked") {
		t.Errorf("the line paid short: %v", line)
	}
	rec := f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t)
	if got := fmt.Sprint(rec["paid"], " ", rec["paid_amount"], " ", rec["status"], " ", rec["balance"]); got !=
		"false 1000.00 partially_paid 500.00" {
		t.Errorf("the invoice: paid, paid_amount, status, balance %s", got)
	}
	parts := f.get(t, fmt.Sprintf("/invoices/%d/payments", inv), http.StatusOK).data(t)
	if len(parts) != 1 || fmt.Sprint(parts[0]["amount"], " ", parts[0]["principal"], " ", parts[0]["paid_at"], " ",
		parts[0]["credit_at"], " ", parts[0]["actor"]) != "1000.00 1000.00 2026-12-04 2026-12-05 return_file" {
		t.Errorf("the invoice's payments: %v", parts)
	}
	if n := f.scalar(t, `SELECT sum(CASE type WHEN 'credit' THEN amount ELSE -amount END * 100)::bigint FROM transactions
		WHERE company_id = $1 AND invoice_id = $2 AND extract = 'customer'`, f.compA, inv); n != -100000 {
		t.Errorf("the payer's entries add up to %d cents, want -1000.00", n)
	}
	if n := f.scalar(t, `SELECT count(*) FROM operator_alerts WHERE company_id = $1 AND kind = 'short_payment'
		AND invoice_id = $2 AND message LIKE '%less than the 1500.00 the bank''s parts add up to%' AND message LIKE '%booked as part 1%'
		AND message LIKE '%500.00 of its total is still open%'`, f.compA, inv); n != 1 {
		t.Errorf("%d short payment alerts name the invoice, want 1", n)
	}
}

// TestShortPaymentOfAPayableNotBooked: the Bradesco CNAB 240 payment return
// of docs/cnab-retorno.md with PAG-1-1 (1,290.00 sent) paid 1,000.00 books
// nothing: the line is short_paid, the payment stays sent and its entry
// unpaid, and one operator alert names the payment.
func TestShortPaymentOfAPayableNotBooked(t *testing.T) {
	t.Parallel()
	lines := strings.Split(pageReturnFile(t, "hand-written payment return"), "\n")
	a := []byte(lines[2])
	copy(a[162:], "000000000100000") // paid 1,000.00 of 1,290.00
	lines[2] = string(a)
	file := strings.Join(lines, "\n")

	f := pagePaymentBatch(t)
	batch, short := f.batch, f.first
	done := f.returnJob(t, "/financial/paymentBatch", f.account, file)
	line := done["result"].(map[string]any)["report"].([]any)[0].(map[string]any)
	if got := fmt.Sprint(line["document_number"], " ", line["outcome"], " ", line["paid"], " ", line["expected"], " ", line["difference"]); got !=
		"PAG-1-1 short_paid 1000.00 1290.00 -290.00" ||
		!strings.Contains(fmt.Sprint(line["message"]), "the bank paid 1000.00 on 2026-11-25, 290.00 less than the 1290.00 due") {
		t.Errorf("the line paid short: %v", line)
	}
	var member int64
	for _, it := range f.get(t, fmt.Sprintf("/financial/paymentBatch/%d?include[items]", batch), http.StatusOK).record(t)["items"].([]any) {
		m := it.(map[string]any)
		if num(t, m["transaction_id"]) == short {
			member = num(t, m["id"])
			if m["state"] != "sent" || m["paid_amount"] != nil {
				t.Errorf("the payment paid short: %v", m)
			}
		}
	}
	if e := f.get(t, fmt.Sprintf("/transactions/%d", short), http.StatusOK).record(t); e["paid"] != false || fmt.Sprint(e["amount"]) != "1290.00" {
		t.Errorf("the entry paid short: paid %v, amount %v", e["paid"], e["amount"])
	}
	if n := f.scalar(t, `SELECT count(*) FROM operator_alerts WHERE company_id = $1 AND kind = 'short_payment'
		AND payment_id = $2 AND invoice_id IS NULL`, f.compA, member); n != 1 || member == 0 {
		t.Errorf("%d short payment alerts name payment %d, want 1", n, member)
	}
	// The bank made the payment: a revert, whose next file would ask it to
	// cancel it, is refused.
	reverted, refused := answer(t, f.payments(t, f.keyA, batch, "revertTransactions", short), "reverted")
	if !strings.Contains(refused[short], "the bank reported it paid short (operator alert") || len(reverted) != 0 {
		t.Errorf("revert of the payment paid short and of the other: reverted %v, refused %v", reverted, refused)
	}
}

// paidReturn240 is the hand-written CNAB 240 return of docs/cnab-retorno.md
// with its title paid paid and credited credited (15 digits each, in
// cents), paid on 2026-12-04 and credited on 2026-12-05 with no interest
// nor fine, in a file of 2026-12-05.
func paidReturn240(t *testing.T, paid, credited string) string {
	t.Helper()
	lines := strings.Split(pageReturnFile(t, "hand-written return, CNAB 240"), "\n")
	u := []byte(lines[3])
	for _, p := range []struct {
		from int
		to   string
	}{
		{18, "000000000000000"}, // no interest nor fine
		{78, paid},
		{93, credited},
		{138, "0412202605122026"},
	} {
		copy(u[p.from-1:], p.to)
	}
	lines[3] = string(u)
	h := []byte(lines[0])
	copy(h[143:], "05122026") // the file of the day after the payment
	lines[0] = string(h)
	return strings.Join(lines, "\n")
}
