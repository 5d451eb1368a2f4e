package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/cnab/boleto"
)

// TestTicketBatchEndToEnd: invoices, a collection batch, its remittance
// written by a worker and checked at the Bradesco CNAB 400 positions, a
// return file made from it that registers one title, rejects one and pays
// two (one late, with interest), the invoices paid and their payments
// posted to the ledger; the same file uploaded again changes nothing.
func TestTicketBatchEndToEnd(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	onTime := f.ticketInvoice(t, nil)
	late := f.ticketInvoice(t, map[string]any{"total": "1500.00", "items": lines(f.rent, "1500.00"),
		"date": today(-20), "due_date": today(3),
		"ticket_late_fee": true, "ticket_late_fee_percentage": "2.00", "ticket_late_fee_interest": "1.00"})
	rejected := f.ticketInvoice(t, nil)
	registered := f.ticketInvoice(t, nil)
	pix := f.ticketInvoice(t, map[string]any{"billing_method": "pix"})
	otherAccount := f.ticketInvoice(t, map[string]any{"account_id": f.account})
	batch := f.newBatch(t)

	r := f.members(t, batch, "addInvoices", onTime, late, rejected, registered, pix, otherAccount, 999999)
	if r.status != http.StatusOK {
		t.Fatalf("addInvoices: %d %s", r.status, r.raw)
	}
	// the late invoice was added while not yet due (a bank refuses a title
	// already due); it falls due, 13 days ago by the time of its payment
	f.exec(t, `UPDATE invoices SET due_date = $2 WHERE id = $1`, late, today(-13))
	f.exec(t, `UPDATE ticket_batch_invoices SET due_date = $2 WHERE invoice_id = $1`, late, today(-13))
	data := r.body["data"].(map[string]any)
	added := map[int64]map[string]any{}
	for _, a := range data["added"].([]any) {
		m := a.(map[string]any)
		added[num(t, m["id"])] = m
	}
	if len(added) != 4 || added[onTime] == nil || added[late] == nil {
		t.Fatalf("added: %v", data["added"])
	}
	refused := map[int64]string{}
	for _, x := range data["refused"].([]any) {
		m := x.(map[string]any)
		refused[num(t, m["id"])] = m["reason"].(string)
	}
	want := map[int64]string{pix: "is billed by pix, not ticket", 999999: "not found",
		otherAccount: fmt.Sprintf("is billed to account %d, not to the batch's account %d", f.account, f.bradesco)}
	for id, reason := range want {
		if refused[id] != reason {
			t.Errorf("refusal of %d: %q, want %q", id, refused[id], reason)
		}
	}
	b := data["batch"].(map[string]any)
	if num(t, b["titles"]) != 4 || b["total"] != json.Number("4500.00") || b["status"] != "open" {
		t.Errorf("batch after adding: %v", b)
	}
	if r.body["message"] != "4 of 7 invoices added." {
		t.Errorf("message: %v", r.body["message"])
	}

	// the slip on the invoice: the barcode of its nosso número, amount and due date
	inv := f.get(t, fmt.Sprintf("/invoices/%d", late), http.StatusOK).record(t)
	bc, err := boleto.ParseBarcode(inv["ticket_barcode"].(string))
	if err != nil {
		t.Fatalf("ticket_barcode %v: %v", inv["ticket_barcode"], err)
	}
	if bc.Amount() != 150000 || bc.Bank() != "237" || bc.Line() != inv["ticket_digitable"] {
		t.Errorf("slip: barcode %s amount %d, digitable %v", bc, bc.Amount(), inv["ticket_digitable"])
	}
	if !strings.Contains(bc.FreeField(), added[late]["nosso_numero"].(string)) {
		t.Errorf("free field %s lacks nosso número %v", bc.FreeField(), added[late]["nosso_numero"])
	}
	listed := f.get(t, fmt.Sprintf("/financial/ticketBatch/%d/invoices?sort=id", batch), http.StatusOK).ids(t)
	if !slices.Equal(listed, []int64{onTime, late, rejected, registered}) {
		t.Errorf("the batch's invoices: %v", listed)
	}

	file, header, job := f.batchFile(t, batch)
	if cd := header.Get("Content-Disposition"); !regexp.MustCompile(`^attachment; filename=cobranca-237-\d+-000001\.REM$`).MatchString(cd) {
		t.Errorf("Content-Disposition: %q", cd)
	}
	result := job["result"].(map[string]any)
	checkMoney(t, "batch:file", result, "total")
	if num(t, result["sequence"]) != 1 || num(t, result["titles"]) != 4 || result["total"] != json.Number("4500.00") {
		t.Errorf("file job result: %v", result)
	}
	recs := records(t, file, 400)
	if len(recs) != 6 || field(recs[0], 1, 19) != "01REMESSA01COBRANCA" || field(recs[0], 111, 117) != "0000001" || recs[5][0] != '9' {
		t.Fatalf("remittance header or trailer:\n%s", strings.Join(recs, "\n"))
	}
	// the details, in nosso número order: the numbers, amounts, due dates
	// and invoices the slips carry
	due := time.Now().In(saoPaulo(t)).AddDate(0, 0, 10)
	var rets []retTitle
	for i, id := range []int64{onTime, late, rejected, registered} {
		d := recs[i+1]
		a := added[id]
		amount, due := int64(100000), due
		if id == late {
			amount, due = 150000, due.AddDate(0, 0, -23)
		}
		if field(d, 71, 81) != a["nosso_numero"] || field(d, 82, 82) != a["nosso_numero_digit"] ||
			strings.TrimSpace(field(d, 38, 62)) != strconv.FormatInt(id, 10) ||
			field(d, 121, 126) != due.Format("020106") || field(d, 127, 139) != fmt.Sprintf("%013d", amount) {
			t.Errorf("detail %d of invoice %d: %q (added %v)", i+1, id, d, a)
		}
		rets = append(rets, retTitle{nosso: field(d, 71, 81), digit: field(d, 82, 82), control: field(d, 38, 62),
			document: field(d, 111, 120), due: due, amount: amount})
	}
	if late := recs[2]; field(late, 66, 66) != "2" || field(late, 67, 70) != "0200" {
		t.Errorf("late fee of the late invoice: %q", late[60:75])
	}

	// closed: no more additions
	if r := f.members(t, batch, "addInvoices", f.ticketInvoice(t, nil)); r.status != http.StatusConflict {
		t.Errorf("addInvoices after the file: %d %s", r.status, r.raw)
	}

	// the return: on time paid 1000.00; late paid 12 days late with its
	// fee and interest (2% and 1% a month: 30.00 and 6.00, which Bradesco
	// reports as one value); one rejected; one registered; one number
	// unknown
	paidAt := time.Now().In(saoPaulo(t)).AddDate(0, 0, -1)
	credit := paidAt.AddDate(0, 0, 1)
	rets[0].code, rets[0].date, rets[0].credit, rets[0].paid = "06", paidAt, credit, 100000
	rets[1].code, rets[1].date, rets[1].credit, rets[1].paid, rets[1].interest = "06", paidAt, credit, 153600, 3600
	rets[2].code, rets[2].date, rets[2].reasons = "03", paidAt, "0113"
	rets[3].code, rets[3].date = "02", paidAt
	unknown := retTitle{nosso: "00000009999", digit: "1", code: "06", date: paidAt, credit: credit, paid: 5000, amount: 5000, due: due}
	ret := bradescoReturn(paidAt, append(rets, unknown)...)
	before := ledgerCount(t, f)

	r = f.do(t, http.MethodPost, "/financial/ticketBatch/returnFile", f.keyA, string(ret))
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	jobID := num(t, r.record(t)["id"])
	done := f.waitJob(t, f.keyA, jobID)
	if done["state"] != "succeeded" {
		t.Fatalf("batch:return job: %v", done)
	}
	res := done["result"].(map[string]any)
	outcomes := res["outcomes"].(map[string]any)
	wantOutcomes := map[string]int64{"settled": 2, "rejected": 1, "registered": 1, "unmatched": 1}
	for o, n := range wantOutcomes {
		if outcomes[o] == nil || num(t, outcomes[o]) != n {
			t.Errorf("outcome %s: %v, want %d (all: %v)", o, outcomes[o], n, outcomes)
		}
	}
	report := res["report"].([]any)
	if len(report) != 5 {
		t.Fatalf("report: %v", report)
	}
	checkMoney(t, "batch:return", res, "report.1.paid", "report.1.expected", "report.1.difference")
	lateLine := report[1].(map[string]any)
	if num(t, lateLine["invoice_id"]) != late || lateLine["paid"] != json.Number("1536.00") || lateLine["outcome"] != "settled" ||
		lateLine["expected"] != json.Number("1536.00") || lateLine["difference"] != json.Number("0.00") {
		t.Errorf("the late payment's line: %v", lateLine)
	}

	// the invoices as the bank left them
	paid := f.get(t, fmt.Sprintf("/invoices/%d", late), http.StatusOK).record(t)
	if paid["paid"] != true || paid["status"] != "paid" || paid["paid_amount"] != json.Number("1536.00") ||
		paid["paid_late_fee"] != json.Number("30.00") || paid["paid_interest"] != json.Number("6.00") ||
		paid["paid_at"] != paidAt.Format(time.DateOnly) ||
		paid["credit_at"] != credit.Format(time.DateOnly) {
		t.Errorf("the late invoice: paid %v status %v amount %v fee %v interest %v paid_at %v credit_at %v", paid["paid"],
			paid["status"], paid["paid_amount"], paid["paid_late_fee"], paid["paid_interest"], paid["paid_at"], paid["credit_at"])
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", registered), http.StatusOK).record(t); rec["ticket_registered"] != true ||
		!strings.HasPrefix(fmt.Sprint(rec["ticket_date"]), paidAt.Format(time.DateOnly)) {
		t.Errorf("registered: %v %v", rec["ticket_registered"], rec["ticket_date"])
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", rejected), http.StatusOK).record(t); rec["ticket_barcode"] != nil ||
		!strings.Contains(fmt.Sprint(rec["ticket_info"]), "03 ") {
		t.Errorf("rejected: barcode %v info %v", rec["ticket_barcode"], rec["ticket_info"])
	}
	// the ledger: the late payment's entries balance, dated the credit day
	entries := f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&perPage=100", late), http.StatusOK).data(t)
	debits, credits := 0.0, 0.0
	for _, e := range entries {
		amount, _ := strconv.ParseFloat(string(e["amount"].(json.Number)), 64)
		if e["type"] == "debit" {
			debits += amount
		} else {
			credits += amount
		}
		if e["date"] != credit.Format(time.DateOnly) || e["split"] != fmt.Sprintf("invoice-%d-payment-1", late) {
			t.Errorf("entry %v", e)
		}
	}
	if debits != 1536 || credits != 1536 {
		t.Errorf("late payment's entries: debits %.2f credits %.2f, want 1536.00 each", debits, credits)
	}

	// the same file again: the first job, and nothing changes
	after := ledgerCount(t, f)
	if after <= before {
		t.Fatalf("no entries posted: %d then %d", before, after)
	}
	again := f.do(t, http.MethodPost, "/financial/ticketBatch/returnFile", f.keyA, string(ret))
	if again.status != http.StatusAccepted || num(t, again.record(t)["id"]) != jobID {
		t.Errorf("second upload: %d %s, want the first job %d", again.status, again.raw, jobID)
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "CB240301.RET")
	part.Write(ret)
	mw.Close()
	status, _, body := f.raw(t, http.MethodPost, "/financial/ticketBatch/returnFile", f.keyA, mw.FormDataContentType(), form.Bytes())
	if status != http.StatusAccepted || !bytes.Contains(body, []byte(fmt.Sprintf(`"id":%d,`, jobID))) {
		t.Errorf("multipart upload of the same file: %d %s", status, body)
	}
	if n := ledgerCount(t, f); n != after {
		t.Errorf("entries after the second upload: %d, want %d", n, after)
	}
}

// ledgerCount counts company A's ledger entries.
func ledgerCount(t *testing.T, f *batchFixture) int64 {
	t.Helper()
	return f.scalar(t, `SELECT count(*) FROM transactions WHERE company_id = $1`, f.compA)
}

func saoPaulo(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
