package api

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"
)

// reportByReference is a batch:return job's report, each line under its
// document_number (the payment's reference).
func reportByReference(t *testing.T, done map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, l := range done["result"].(map[string]any)["report"].([]any) {
		line := l.(map[string]any)
		out[fmt.Sprint(line["document_number"])] = line
	}
	return out
}

// TestPaymentReturnDatesToCome: a payment return's paid line dated after
// the file's own date (and after today), and a paid line without a date
// whose scheduled day, taken for it, is five days ahead, book nothing:
// both are not_settled, naming the day and the file's date, their entries
// unpaid and their payments sent; a line paid today is paid.
func TestPaymentReturnDatesToCome(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	ahead := f.bill(t, f.atBB, "ted", "100.00", nil)
	undated := f.bill(t, f.atBB, "ted", "200.00", nil)
	now := f.bill(t, f.atBB, "ted", "300.00", nil)
	batch := f.newPaymentBatch(t)
	if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ahead, undated, now), "added"); len(refused) > 0 {
		t.Fatalf("refused: %v", refused)
	}
	file, _, _ := f.paymentFile(t, batch)
	day := time.Now().In(saoPaulo(t))
	ret := paymentReturn(t, file, map[string]paidLine{
		ref(ahead):   {codes: "00", date: day.AddDate(0, 0, 3)},
		ref(undated): {codes: "00"},
		ref(now):     {codes: "00", date: day},
	})
	lines := reportByReference(t, f.returnJob(t, "/financial/paymentBatch", f.bradesco, string(ret)))
	fileDay := day.Format(time.DateOnly)
	for _, c := range []struct {
		ref, paidOn string
		scheduled   bool
	}{
		{ref(ahead), today(3), false},
		{ref(undated), today(5), true},
	} {
		l := lines[c.ref]
		msg := fmt.Sprint(l["message"])
		if l["outcome"] != "not_settled" || !strings.Contains(msg, "the bank's payment date "+c.paidOn+" is after "+fileDay+", the file's own date") ||
			strings.Contains(msg, "scheduled for, taken for it") != c.scheduled {
			t.Errorf("%s: %v", c.ref, l)
		}
	}
	if l := lines[ref(now)]; l["outcome"] != "paid" {
		t.Errorf("the line paid today: %v", l)
	}
	for id, want := range map[int64]string{ahead: "false <nil>", undated: "false <nil>", now: "true " + fileDay} {
		e := f.get(t, fmt.Sprintf("/transactions/%d", id), http.StatusOK).record(t)
		got := fmt.Sprint(e["paid"], " <nil>")
		if e["paid"] == true {
			got = fmt.Sprint(e["paid"], " ", e["date"])
		}
		if got != want {
			t.Errorf("entry %d: %s, want %s", id, got, want)
		}
	}
	if states := f.paymentStates(t, batch); !sameStates(states, map[int64]string{ahead: "sent", undated: "sent", now: "paid"}) {
		t.Errorf("payments: %v", states)
	}
}

// otherAccountReturn is ret with the account its file header and batch
// headers name (53-71: agency, its digit, account, its digit) changed to
// agency 04321-0, account 55555-1, an account the company does not have.
func otherAccountReturn(t *testing.T, ret []byte) []byte {
	t.Helper()
	recs := strings.Split(strings.TrimSuffix(string(ret), "\r\n"), "\r\n")
	for i, r := range recs {
		if r[7] == '0' || r[7] == '1' { // the file header, a batch header
			recs[i] = r[:52] + "0432100000000555551" + r[71:]
		}
	}
	return []byte(strings.Join(recs, "\r\n") + "\r\n")
}

// TestPaymentReturnOfAnAccountNotTheCompanys: uploaded without
// account_id, a payment return whose headers name an account the company
// does not have at the bank (its references those of the company's own
// payments) is a 422 on file naming the file's account and listing the
// company's accounts at the bank; nothing is stored, nothing paid. Naming
// the account (account_id) it is the 422 on account_id it was.
func TestPaymentReturnOfAnAccountNotTheCompanys(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	ted := f.bill(t, f.atBB, "ted", "77.77", nil)
	batch := f.newPaymentBatch(t)
	if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ted), "added"); len(refused) > 0 {
		t.Fatalf("refused: %v", refused)
	}
	file, _, _ := f.paymentFile(t, batch)
	ret := otherAccountReturn(t, paymentReturn(t, file, map[string]paidLine{ref(ted): {codes: "00", date: time.Now().In(saoPaulo(t))}}))
	r := f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, string(ret))
	want := fmt.Sprintf("the file is of agency 04321-0, account 000000055555-1 at bank 237 (Bradesco), and no account of the "+
		"company is (its accounts at bank 237: %d (agency 1234-5, account 12345-6))", f.bradesco)
	if r.status != http.StatusUnprocessableEntity || !hasProblem(r, "file") || !strings.Contains(string(r.raw), want) {
		t.Errorf("without account_id: %d %s, want 422 on file saying %q", r.status, r.raw, want)
	}
	r = f.do(t, http.MethodPost, fmt.Sprintf("/financial/paymentBatch/returnFile?account_id=%d", f.bradesco), f.keyA, string(ret))
	if r.status != http.StatusUnprocessableEntity || !hasProblem(r, "account_id") {
		t.Errorf("with account_id: %d %s, want 422 on account_id", r.status, r.raw)
	}
	if n := f.scalar(t, `SELECT count(*) FROM batch_return_files WHERE company_id = $1`, f.compA); n != 0 {
		t.Errorf("%d return files stored", n)
	}
	if e := f.get(t, fmt.Sprintf("/transactions/%d", ted), http.StatusOK).record(t); e["paid"] != false {
		t.Errorf("the entry is paid: %v", e)
	}
}

// TestPaymentReturnUploadedAgain: the same bytes uploaded again answer the
// first upload's job, whether the first named the account and the next
// names none (raw body and multipart form), or the first named none (the
// account its header names is taken) and the next names that account;
// each file is stored once and no line is read twice.
func TestPaymentReturnUploadedAgain(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	returnOf := func(amount string) []byte {
		id := f.bill(t, f.atBB, "ted", amount, nil)
		batch := f.newPaymentBatch(t)
		if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", id), "added"); len(refused) > 0 {
			t.Fatalf("refused: %v", refused)
		}
		file, _, _ := f.paymentFile(t, batch)
		return paymentReturn(t, file, map[string]paidLine{ref(id): {codes: "00", date: time.Now().In(saoPaulo(t))}})
	}
	named := fmt.Sprintf("/financial/paymentBatch/returnFile?account_id=%d", f.bradesco)
	upload := func(path string, ret []byte, multipart bool) int64 {
		t.Helper()
		var status int
		var body []byte
		if multipart {
			ct, form := returnForm(t, ret)
			status, _, body = f.raw(t, http.MethodPost, path, f.keyA, ct, form)
		} else {
			r := f.do(t, http.MethodPost, path, f.keyA, string(ret))
			status, body = r.status, []byte(r.raw)
		}
		if status != http.StatusAccepted {
			t.Fatalf("upload to %s: %d %s", path, status, body)
		}
		var id int64
		if _, err := fmt.Sscanf(string(body[strings.Index(string(body), `"id":`):]), `"id":%d`, &id); err != nil {
			t.Fatalf("the job's id in %s: %v", body, err)
		}
		return id
	}
	first := returnOf("10.00")
	job := upload(named, first, false)
	if done := f.waitJob(t, f.keyA, job); done["state"] != "succeeded" {
		t.Fatalf("the first job: %v", done)
	}
	for _, multipart := range []bool{false, true} {
		if again := upload("/financial/paymentBatch/returnFile", first, multipart); again != job {
			t.Errorf("uploaded again without account_id (multipart %v): job %d, want the first, %d", multipart, again, job)
		}
	}
	second := returnOf("20.00")
	job2 := upload("/financial/paymentBatch/returnFile", second, true)
	if done := f.waitJob(t, f.keyA, job2); done["state"] != "succeeded" {
		t.Fatalf("the second file's job: %v", done)
	}
	if again := upload(named, second, false); again != job2 {
		t.Errorf("uploaded again naming the account its header names: job %d, want the first, %d", again, job2)
	}
	if n := f.scalar(t, `SELECT count(*) FROM batch_return_files WHERE company_id = $1`, f.compA); n != 2 {
		t.Errorf("%d return files stored, want 2", n)
	}
	if n := f.scalar(t, `SELECT count(*) FROM batch_return_lines WHERE company_id = $1 AND outcome = 'already_paid'`, f.compA); n != 0 {
		t.Errorf("%d lines read as already paid", n)
	}
}

// returnForm is a multipart/form-data body with ret as its field file:
// its content type and bytes.
func returnForm(t *testing.T, ret []byte) (string, []byte) {
	t.Helper()
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, err := mw.CreateFormFile("file", "PG240301.RET")
	if err != nil {
		t.Fatal(err)
	}
	part.Write(ret) //nolint:errcheck // a buffer's writer
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), form.Bytes()
}

// TestUnbookedPaymentAlerted: payment lines whose money the bank says left
// and that book nothing raise one unbooked_payment alert each, naming the
// payment: a line dated after the file's own date (not_settled) and a
// second file's line paying a payment paid already (already_paid); a line
// paid and booked raises none, nor does the same file read again. An
// operator resolves one (POST /operator/alerts/{id}/resolve): it is no
// longer open.
func TestUnbookedPaymentAlerted(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t, withLabelledTokens())
	withWorkers(t, f.testEnv)
	ahead := f.bill(t, f.atBB, "ted", "100.00", nil)
	twice := f.bill(t, f.atBB, "ted", "250.25", nil)
	batch := f.newPaymentBatch(t)
	if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ahead, twice), "added"); len(refused) > 0 {
		t.Fatalf("refused: %v", refused)
	}
	file, _, _ := f.paymentFile(t, batch)
	day := time.Now().In(saoPaulo(t))
	first := paymentReturn(t, file, map[string]paidLine{
		ref(ahead): {codes: "00", date: day.AddDate(0, 0, 2)},
		ref(twice): {codes: "00", date: day},
	})
	second := paymentReturn(t, file, map[string]paidLine{
		ref(ahead): {codes: "BD"},
		ref(twice): {codes: "00", date: day, amount: 25025},
	})
	second = append([]byte(nil), second...)
	copy(second[151:157], "235959") // another file: the header's time (152-157)
	lines := reportByReference(t, f.returnJob(t, "/financial/paymentBatch", f.bradesco, string(first)))
	if lines[ref(ahead)]["outcome"] != "not_settled" || lines[ref(twice)]["outcome"] != "paid" {
		t.Fatalf("the first file: %v", lines)
	}
	f.returnJob(t, "/financial/paymentBatch", f.bradesco, string(first)) // the same job: nothing new
	lines = reportByReference(t, f.returnJob(t, "/financial/paymentBatch", f.bradesco, string(second)))
	if lines[ref(twice)]["outcome"] != "already_paid" {
		t.Fatalf("the second file: %v", lines)
	}
	members := map[int64]string{}
	for _, it := range f.get(t, fmt.Sprintf("/financial/paymentBatch/%d?include[items]", batch), http.StatusOK).record(t)["items"].([]any) {
		m := it.(map[string]any)
		members[num(t, m["id"])] = fmt.Sprint(m["transaction_id"])
	}
	byEntry := map[string]map[string]any{}
	for _, a := range f.operatorDo(t, http.MethodGet, "/operator/alerts", bearer(anaToken), nil).data(t) {
		if a["kind"] != "unbooked_payment" {
			continue
		}
		entry := members[num(t, a["payment_id"])]
		if byEntry[entry] != nil {
			t.Errorf("two alerts of entry %s: %v, %v", entry, byEntry[entry], a)
		}
		byEntry[entry] = a
	}
	for entry, want := range map[int64]string{
		ahead: "is after " + day.Format(time.DateOnly) + ", the file's own date",
		twice: "the entry is paid: the bank reports 250.25 paid on " + day.Format(time.DateOnly),
	} {
		a := byEntry[fmt.Sprint(entry)]
		if a == nil || a["open"] != true || a["job_id"] == nil || !strings.Contains(fmt.Sprint(a["message"]), want) ||
			!strings.Contains(fmt.Sprint(a["message"]), "money out of the account that nothing books") {
			t.Errorf("the alert of entry %d: %v, want one open saying %q", entry, a, want)
		}
	}
	if len(byEntry) != 2 {
		t.Errorf("unbooked_payment alerts: %v, want 2", byEntry)
	}
	a := byEntry[fmt.Sprint(twice)]
	if a == nil {
		t.FailNow()
	}
	r := f.operatorDo(t, http.MethodPost, fmt.Sprintf("/operator/alerts/%v/resolve", a["id"]), bearer(anaToken),
		map[string]any{"resolution": "refunded", "reason": "o fornecedor devolveu o segundo pagamento"})
	if r.status != http.StatusOK {
		t.Fatalf("resolve: %d %s", r.status, r.raw)
	}
	if got := r.body["data"].(map[string]any)["alert"].(map[string]any); got["open"] != false || got["resolution"] != "refunded" {
		t.Errorf("the alert resolved: %v", got)
	}
}

// TestReturnFileOfTheOtherKindRefused: a return file holding only payments,
// uploaded to the collection batches, and one holding only titles, uploaded
// to the payment batches, are each a 422 on file naming the route that
// reads them; nothing is stored.
func TestReturnFileOfTheOtherKindRefused(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	ted := f.bill(t, f.atBB, "ted", "77.77", nil)
	batch := f.newPaymentBatch(t)
	if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ted), "added"); len(refused) > 0 {
		t.Fatalf("refused: %v", refused)
	}
	file, _, _ := f.paymentFile(t, batch)
	payments := paymentReturn(t, file, map[string]paidLine{ref(ted): {codes: "00", date: time.Now().In(saoPaulo(t))}})
	titles := pageReturnFile(t, "hand-written return, CNAB 240")
	for _, c := range []struct {
		path, body, want string
	}{
		{"/financial/ticketBatch/returnFile", string(payments), "lines of payments and none of titles, which these batches read: upload it to POST /financial/paymentBatch/returnFile"},
		{fmt.Sprintf("/financial/ticketBatch/returnFile?account_id=%d", f.bradesco), string(payments), "upload it to POST /financial/paymentBatch/returnFile"},
		{"/financial/paymentBatch/returnFile", titles, "lines of titles and none of payments, which these batches read: upload it to POST /financial/ticketBatch/returnFile"},
	} {
		r := f.do(t, http.MethodPost, c.path, f.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !hasProblem(r, "file") || !strings.Contains(string(r.raw), c.want) {
			t.Errorf("%s: %d %s, want 422 on file saying %q", c.path, r.status, r.raw, c.want)
		}
	}
	if n := f.scalar(t, `SELECT count(*) FROM batch_return_files WHERE company_id = $1`, f.compA); n != 0 {
		t.Errorf("%d return files stored", n)
	}
}
