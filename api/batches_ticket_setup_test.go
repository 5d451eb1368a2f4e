package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// batchFixture is invoiceEnv's company A with what a collection batch
// needs: a business with its CNPJ, a Bradesco CNAB 400 account with its
// collection agreement (the values of cnab/testdata/237_400.json), and a
// payer with a full address.
type batchFixture struct {
	*invoiceFixture
	biz, bradesco, payerFull int64
}

func batchEnv(t *testing.T, opts ...envOption) *batchFixture {
	t.Helper()
	f := &batchFixture{invoiceFixture: invoiceEnv(t, opts...)}
	f.biz = f.create(t, "/financial/businesses", map[string]any{"name": "Imobiliária Conceição & Filhos Ltda", "tax_id": "11222333000181"})
	f.bradesco = f.create(t, "/financial/accounts", bradescoAccount(f.biz))
	f.payerFull = f.create(t, "/persons", map[string]any{"name": "João da Silva Araújo", "tax_id": "12345678909",
		"street": "Rua das Acácias", "number": "123", "complement": "apto 45", "district": "Jardim Botânico",
		"city": "Porto Alegre", "state": "RS", "zip_code": "90000123"})
	return f
}

// bradescoAccount is the body of a Bradesco CNAB 400 account of business.
func bradescoAccount(business int64) map[string]any {
	return map[string]any{"business_id": business, "bank": "237", "layout": "cnab400", "agency": "1234",
		"agency_digit": "5", "account": "0012345", "account_digit": "6", "wallet": "09", "covenant": "00000000000004567890"}
}

// ticketInvoice creates an invoice of company A billed by ticket to the
// Bradesco account, of the full payer, on the owned building: 1000.00 of
// rent due in ten days, with the overrides applied.
func (f *batchFixture) ticketInvoice(t *testing.T, overrides map[string]any) int64 {
	t.Helper()
	b := map[string]any{"business_id": f.biz, "account_id": f.bradesco, "payer_id": f.payerFull, "building_id": f.building}
	for k, v := range overrides {
		b[k] = v
	}
	return f.invoice(t, b)
}

// newBatch creates a collection batch of the Bradesco account.
func (f *batchFixture) newBatch(t *testing.T) int64 {
	t.Helper()
	return f.create(t, "/financial/ticketBatch", map[string]any{"description": "Aluguéis", "account_id": f.bradesco})
}

// members posts {"invoices": ids} to a batch operation (addInvoices,
// removeInvoices, revertInvoices) with company A's key.
func (f *batchFixture) members(t *testing.T, batch int64, op string, ids ...int64) response {
	t.Helper()
	return f.do(t, http.MethodPost, fmt.Sprintf("/financial/ticketBatch/%d/%s", batch, op), f.keyA, map[string]any{"invoices": ids})
}

// raw is a request whose answer is read as bytes.
func (e *testEnv) raw(t *testing.T, method, path, key, contentType string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, out
}

// batchFile downloads a batch's remittance: the first call starts the job
// (202), which must succeed; the next call serves the file (200).
func (f *batchFixture) batchFile(t *testing.T, batch int64) ([]byte, http.Header, map[string]any) {
	t.Helper()
	path := fmt.Sprintf("/financial/ticketBatch/%d/downloadBatchFile", batch)
	r := f.do(t, http.MethodGet, path, f.keyA, nil)
	if r.status != http.StatusAccepted {
		t.Fatalf("first download: %d %s", r.status, r.raw)
	}
	job := f.waitJob(t, f.keyA, num(t, r.record(t)["id"]))
	if job["state"] != "succeeded" {
		t.Fatalf("batch:file job: %v", job)
	}
	status, header, body := f.raw(t, http.MethodGet, path, f.keyA, "", nil)
	if status != http.StatusOK {
		t.Fatalf("second download: %d %s", status, body)
	}
	wholeFile(t, header, body, job)
	return body, header, job
}

// wholeFile requires a downloaded remittance to be as long as its
// Content-Length and as the file its job wrote (the stored file is
// compressed and served decompressed).
func wholeFile(t *testing.T, header http.Header, body []byte, job map[string]any) {
	t.Helper()
	written := job["result"].(map[string]any)["bytes"]
	if header.Get("Content-Length") != strconv.Itoa(len(body)) || fmt.Sprint(written) != strconv.Itoa(len(body)) {
		t.Fatalf("downloaded %d bytes, Content-Length %s, the job wrote %v", len(body), header.Get("Content-Length"), written)
	}
}

// records splits a remittance into its records, checking that every one
// ends with CR LF and is as long as the layout says.
func records(t *testing.T, file []byte, width int) []string {
	t.Helper()
	if !bytes.HasSuffix(file, []byte("\r\n")) {
		t.Fatalf("the file does not end with CR LF: %q", file[max(0, len(file)-10):])
	}
	lines := strings.Split(strings.TrimSuffix(string(file), "\r\n"), "\r\n")
	for i, l := range lines {
		if len(l) != width {
			t.Fatalf("record %d is %d characters, want %d: %q", i+1, len(l), width, l)
		}
	}
	return lines
}

// field is positions from-to (1-based, inclusive) of a record.
func field(rec string, from, to int) string { return rec[from-1 : to] }

// retTitle is one detail of a Bradesco CNAB 400 return file written by
// bradescoReturn, at the positions of the bank's Arquivo-Retorno
// (Registro de Transação Tipo 1).
type retTitle struct {
	nosso, digit  string // 71-81, 82
	code          string // 109-110
	date, credit  time.Time
	document      string // 117-126
	due           time.Time
	amount, paid  int64 // cents, 153-165 and 254-266
	interest, fee int64 // 267-279, 176-188
	discount      int64 // 241-253
	reasons       string
	control       string // 38-62
}

// bradescoReturn writes a Bradesco CNAB 400 return file: the header (type
// 0, "2RETORNO", bank 237 in 77-79, its date), the details and the
// trailer, each numbered in 395-400, CR LF after every record.
func bradescoReturn(created time.Time, titles ...retTitle) []byte {
	var b bytes.Buffer
	record := cnab400Records(&b)
	record(func(put func(int, string)) {
		put(1, "02RETORNO01COBRANCA")
		put(27, "00000000000004567890")
		put(47, "IMOBILIARIA CONCEICAO & FILHOS")
		put(77, "237BRADESCO")
		put(95, ddmmyy(created))
	})
	for _, tt := range titles {
		record(func(put func(int, string)) {
			put(1, "1")
			put(38, tt.control)
			put(71, tt.nosso)
			put(82, tt.digit)
			put(108, "9")
			put(109, tt.code)
			put(111, ddmmyy(tt.date))
			put(117, tt.document)
			put(147, ddmmyy(tt.due))
			put(153, fmt.Sprintf("%013d", tt.amount))
			put(176, fmt.Sprintf("%013d", tt.fee))
			put(189, strings.Repeat("0", 13*5))
			put(241, fmt.Sprintf("%013d", tt.discount))
			put(254, fmt.Sprintf("%013d", tt.paid))
			put(267, fmt.Sprintf("%013d", tt.interest))
			put(280, strings.Repeat("0", 13))
			put(296, ddmmyy(tt.credit))
			put(319, fmt.Sprintf("%-10s", tt.reasons))
		})
	}
	record(func(put func(int, string)) { put(1, "9201237") })
	return b.Bytes()
}

// cnab400Records returns a function that writes one CNAB 400 record of a
// test return file into b: 400 blanks, what fill puts at its positions
// (1-based), the record's number in 395-400, CR LF.
func cnab400Records(b *bytes.Buffer) func(fill func(put func(from int, s string))) {
	n := 0
	return func(fill func(put func(from int, s string))) {
		line := []byte(strings.Repeat(" ", 400))
		put := func(from int, s string) { copy(line[from-1:], s) }
		fill(put)
		n++
		put(395, fmt.Sprintf("%06d", n))
		b.Write(line)
		b.WriteString("\r\n")
	}
}

// now is the time in São Paulo, the companies' zone.
func (f *batchFixture) now(t *testing.T) time.Time {
	t.Helper()
	return time.Now().In(saoPaulo(t))
}

// ddmmyy is a date as CNAB 400 writes it; zeros for none.
func ddmmyy(d time.Time) string {
	if d.IsZero() {
		return "000000"
	}
	return d.Format("020106")
}
