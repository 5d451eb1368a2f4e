package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHandWrittenReturnOfTheDocs posts each return file docs/cnab-retorno.md
// shows how to write by hand ("Writing a return file by hand") at the
// account it describes, the titles or payments it answers made as the page
// says, and finds what the page says the file does, to the cent: the Itaú
// CNAB 400 file and the Bradesco CNAB 240 collection file each pay their
// title 1,535.00 (35.00 of interest) and book its 2.50 tariff; the
// Bradesco CNAB 240 payment return pays PAG-1-1 (1,290.00, on 2026-11-25)
// and refuses PAG-2-1, which stays unpaid.
func TestHandWrittenReturnOfTheDocs(t *testing.T) {
	t.Parallel()
	examples := []struct {
		name, marker string
		run          func(t *testing.T, file string)
	}{
		{"Itaú CNAB 400", "hand-written return", handWrittenItau},
		{"Bradesco CNAB 240", "hand-written return, CNAB 240", handWrittenBradesco240},
		{"Bradesco CNAB 240 payments", "hand-written payment return", handWrittenPayments},
	}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			ex.run(t, pageReturnFile(t, ex.marker))
		})
	}
}

// handWrittenItau: the title of an Itaú account, agency 0810, account
// 53678-9, wallet 109, the account's first nosso número (00000001-9), due
// 2026-11-10 for 1,500.00.
func handWrittenItau(t *testing.T, file string) {
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	f.tariffItem(t)
	itau := f.create(t, "/financial/accounts", map[string]any{"business_id": f.biz, "bank": "341", "layout": "cnab400",
		"agency": "0810", "account": "53678", "account_digit": "9", "wallet": "109"})
	inv := f.pageTitle(t, itau, "1500.00", "2026-11-10", "00000001", "9")
	f.settledAsThePageSays(t, itau, inv, file)
}

// handWrittenBradesco240: the title of the page's Bradesco CNAB 240
// account (pageCollection240).
func handWrittenBradesco240(t *testing.T, file string) {
	f, acc, inv := pageCollection240(t)
	f.settledAsThePageSays(t, acc, inv, file)
}

// tariffItem gives company A the item the bank's tariffs are booked with.
func (f *batchFixture) tariffItem(t *testing.T) {
	t.Helper()
	f.scalar(t, `INSERT INTO transaction_items (company_id, description, debit, type)
		VALUES ($1, 'Tarifa de cobrança', 'business', 'tariff') RETURNING id`, f.compA)
}

// pageTitle makes the title a page's return file pays: an invoice of the
// account for total, due on due, in a batch of the account whose file is
// written, and checks that the title got the nosso número and digit the
// page's file names. The page's dates are fixed and a bank takes no title
// already due (addInvoices refuses one), so once due is past the invoice
// joins its batch due today and is given the page's due date when the file
// is written, as the bank would have it.
func (f *batchFixture) pageTitle(t *testing.T, account int64, total, due, nosso, digit string) int64 {
	t.Helper()
	dueNow := max(due, f.now(t).Format(time.DateOnly))
	inv := f.ticketInvoice(t, map[string]any{"account_id": account, "total": total, "date": "2026-11-01",
		"due_date": dueNow, "items": []any{map[string]any{"item_id": f.rent, "amount": total, "owner_id": f.owner}}})
	batch := f.create(t, "/financial/ticketBatch", map[string]any{"description": "Aluguéis", "account_id": account})
	r := f.members(t, batch, "addInvoices", inv)
	if r.status != http.StatusOK {
		t.Fatalf("addInvoices: %d %s", r.status, r.raw)
	}
	added, _ := r.body["data"].(map[string]any)["added"].([]any)
	if len(added) != 1 {
		t.Fatalf("addInvoices added no title: %s", r.raw)
	}
	title := added[0].(map[string]any)
	if nn, dv := fmt.Sprint(title["nosso_numero"]), fmt.Sprint(title["nosso_numero_digit"]); !strings.HasSuffix(nn, nosso) || dv != digit {
		t.Fatalf("the title is %s-%s; the page's file pays %s-%s", nn, dv, nosso, digit)
	}
	f.batchFile(t, batch)
	if dueNow != due {
		f.exec(t, `UPDATE invoices SET due_date = $3 WHERE company_id = $1 AND id = $2`, f.compA, inv, due)
		f.exec(t, `UPDATE ticket_batch_invoices SET due_date = $3 WHERE company_id = $1 AND invoice_id = $2`, f.compA, inv, due)
	}
	return inv
}

// settledAsThePageSays posts a page's collection return at the account
// and checks what the page says: the title due 2026-11-10 paid 2026-11-16, credited
// 2026-11-17, 1,535.00 of which 35.00 interest, the 2.50 tariff booked as
// the business's expense.
func (f *batchFixture) settledAsThePageSays(t *testing.T, account, inv int64, file string) {
	t.Helper()
	done := f.returnJob(t, "/financial/ticketBatch", account, file)
	report := done["result"].(map[string]any)["report"].([]any)
	if len(report) != 1 {
		t.Fatalf("the report has %d lines: %v", len(report), report)
	}
	line := report[0].(map[string]any)
	if line["outcome"] != "settled" || fmt.Sprint(line["paid"]) != "1535.00" || fmt.Sprint(line["tariff"]) != "2.50" ||
		fmt.Sprint(line["invoice_id"]) != fmt.Sprint(inv) || !strings.Contains(fmt.Sprint(line["message"]), "tariff 2.50 booked") {
		t.Errorf("the paid line: %v", line)
	}
	rec := f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t)
	got := fmt.Sprint(rec["due_date"], " ", rec["paid"], " ", rec["paid_amount"], " ", rec["paid_interest"], " ",
		rec["paid_at"], " ", rec["credit_at"])
	if want := "2026-11-10 true 1535.00 35.00 2026-11-16 2026-11-17"; got != want {
		t.Errorf("the invoice: due_date, paid, paid_amount, paid_interest, paid_at, credit_at %s, want %s", got, want)
	}
	tariffs := f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&filter[extract]=business&filter[type]=debit&fields=amount,date,account_id", inv),
		http.StatusOK).data(t)
	if len(tariffs) != 1 || fmt.Sprint(tariffs[0]["amount"], " ", tariffs[0]["date"], " ", tariffs[0]["account_id"]) !=
		fmt.Sprintf("2.50 2026-11-17 %d", account) {
		t.Errorf("the business's debits of the invoice: %v, want the 2.50 tariff on 2026-11-17 at account %d", tariffs, account)
	}
}

// handWrittenPayments: the page's payment batch (pagePaymentBatch), its
// first payment paid, its second refused.
func handWrittenPayments(t *testing.T, file string) {
	f := pagePaymentBatch(t)
	acc, batch, paid, refused := f.account, f.batch, f.first, f.second
	done := f.returnJob(t, "/financial/paymentBatch", acc, file)
	var outcomes []string
	for _, l := range done["result"].(map[string]any)["report"].([]any) {
		line := l.(map[string]any)
		o := fmt.Sprint(line["document_number"], " ", line["code"], " ", line["outcome"])
		if p, ok := line["paid"]; ok {
			o += fmt.Sprint(" ", p)
		}
		outcomes = append(outcomes, o)
	}
	if got, want := strings.Join(outcomes, "; "), "PAG-1-1 00 paid 1290.00; PAG-2-1 AM failed"; got != want {
		t.Errorf("the report: %s, want %s", got, want)
	}
	payments := map[int64]map[string]any{}
	for _, it := range f.get(t, fmt.Sprintf("/financial/paymentBatch/%d?include[items]", batch), http.StatusOK).record(t)["items"].([]any) {
		m := it.(map[string]any)
		payments[num(t, m["transaction_id"])] = m
	}
	if p := payments[paid]; fmt.Sprint(p["state"], " ", p["bank_number"], " ", p["paid_at"], " ", p["paid_amount"]) !=
		"paid 00000000000000012345 2026-11-25 1290.00" {
		t.Errorf("the payment paid: %v", p)
	}
	if p := payments[refused]; p["state"] != "failed" || !strings.Contains(fmt.Sprint(p["info"]), "AM") ||
		!strings.Contains(fmt.Sprint(p["info"]), "AN") {
		t.Errorf("the payment refused: %v", p)
	}
	for _, c := range []struct {
		id   int64
		want string
	}{
		{paid, fmt.Sprintf("true 2026-11-25 1290.00 %d", acc)},
		{refused, "false"},
	} {
		e := f.get(t, fmt.Sprintf("/transactions/%d", c.id), http.StatusOK).record(t)
		got := fmt.Sprint(e["paid"])
		if e["paid"] == true {
			got = fmt.Sprint(e["paid"], " ", e["date"], " ", e["amount"], " ", e["account_id"])
		}
		if got != c.want {
			t.Errorf("entry %d: %s, want %s", c.id, got, c.want)
		}
	}
}
