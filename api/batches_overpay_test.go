package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestOverPaymentAlerted: the Bradesco CNAB 240 file of
// docs/cnab-retorno.md paying its whole title (nominal 1,500.00, paid
// 1,500.00 on 2026-12-04, credited 1,497.50, tariff 2.50) after a part of
// 1,000.00 recorded by hand books the rest, 500.00, as part 2, and
// 1,000.00 nowhere (docs/ledger.md, "Settlement from a bank return
// file"): the line says so, GET /operator/alerts lists one open
// over_payment alert naming the invoice, the payer is charged 1,500.00 in
// all and the business the tariff.
func TestOverPaymentAlerted(t *testing.T) {
	t.Parallel()
	file := paidReturn240(t, "000000000150000", "000000000149750") // paid in full

	f, acc, inv := pageCollection240(t, withLabelledTokens())
	if r := f.payPart(t, inv, map[string]any{"amount": "1000.00", "paid_at": "2026-12-03"}); r.status != http.StatusCreated {
		t.Fatalf("the part by hand: %d %s", r.status, r.raw)
	}
	done := f.returnJob(t, "/financial/ticketBatch", acc, file)
	report := done["result"].(map[string]any)["report"].([]any)
	if len(report) != 1 {
		t.Fatalf("the report has %d lines: %v", len(report), report)
	}
	line := report[0].(map[string]any)
	msg := fmt.Sprint(line["message"])
	if got := fmt.Sprint(line["outcome"], " ", line["paid"], " ", line["expected"], " ", line["difference"], " ", line["tariff"]); got !=
		"settled 1500.00 500.00 1000.00 2.50" || fmt.Sprint(line["invoice_id"]) != fmt.Sprint(inv) ||
		!strings.Contains(msg, "paid 1500.00 on 2026-12-04, booked 500.00 as part 2, the rest of the invoice partly paid before") ||
		!strings.Contains(msg, "1000.00 of what came in is booked nowhere") ||
		!strings.Contains(msg, "the bank's tariff 2.50 booked") {
		t.Errorf("the line paying the whole title after a part: %v", line)
	}
	rec := f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t)
	if got := fmt.Sprint(rec["paid"], " ", rec["paid_amount"], " ", rec["status"], " ", rec["balance"]); got != "true 1500.00 paid 0.00" {
		t.Errorf("the invoice: paid, paid_amount, status, balance %s", got)
	}
	var overs []map[string]any
	for _, a := range f.operatorDo(t, http.MethodGet, "/operator/alerts", bearer(anaToken), nil).data(t) {
		if a["kind"] == "over_payment" {
			overs = append(overs, a)
		}
	}
	if len(overs) != 1 || fmt.Sprint(overs[0]["invoice_id"]) != fmt.Sprint(inv) || overs[0]["open"] != true ||
		fmt.Sprint(overs[0]["company_id"]) != fmt.Sprint(f.compA) || overs[0]["job_id"] == nil ||
		!strings.Contains(fmt.Sprint(overs[0]["message"]), "1000.00 of what came in is booked nowhere") {
		t.Errorf("the over payment alerts: %v", overs)
	}
	if n := f.scalar(t, `SELECT sum(CASE type WHEN 'credit' THEN amount ELSE -amount END * 100)::bigint FROM transactions
		WHERE company_id = $1 AND invoice_id = $2 AND extract = 'customer'`, f.compA, inv); n != -150000 {
		t.Errorf("the payer's entries add up to %d cents, want -1500.00", n)
	}
	if n := f.scalar(t, `SELECT sum(t.amount * 100)::bigint FROM transactions t JOIN transaction_items i
		ON i.company_id = t.company_id AND i.id = t.item_id AND i.type = 'tariff'
		WHERE t.company_id = $1 AND t.invoice_id = $2 AND t.extract = 'business' AND t.type = 'debit'`, f.compA, inv); n != 250 {
		t.Errorf("the business is debited %d cents of tariff, want 2.50", n)
	}
}
