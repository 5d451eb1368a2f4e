package api

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/propfin/propfin/api/receipt/browsertest"
	"github.com/propfin/propfin/pix"
)

// testReceiptSecret signs the receipt links of the tests.
const testReceiptSecret = "0123456789abcdef0123456789abcdef"

// withReceipts turns the receipt links on.
func withReceipts() envOption {
	return func(_ *Config, s *Server) {
		links, err := newReceiptLinks([]byte(testReceiptSecret), "", 0)
		if err != nil {
			panic(err)
		}
		s.receipts = links
	}
}

// testPixCode is a valid static PIX payload with its check digit in lower
// case, as some banks send it.
func testPixCode(t *testing.T) (sent, stored string) {
	t.Helper()
	code, err := pix.BuildStatic(pix.Static{Key: "52998224725", Name: "Horizonte Imoveis", City: "Sao Paulo",
		Amount: "1000.00", TxID: "FAT2"})
	if err != nil {
		t.Fatal(err)
	}
	n := len(code) - 4
	sent = code[:n] + strings.ToLower(code[n:])
	if sent == code {
		t.Fatalf("the test payload's CRC %s has no letter; pick another payload", code[n:])
	}
	return sent, code
}

func TestPixCode(t *testing.T) {
	f := invoiceEnv(t)
	sent, stored := testPixCode(t)
	badCRC := stored[:len(stored)-4] + "0000"
	if badCRC == stored {
		badCRC = stored[:len(stored)-4] + "1111"
	}
	open := f.invoice(t, map[string]any{"billing_id": f.billing})
	noAmountOn := f.invoice(t, map[string]any{"billing_id": f.billing})
	otherAmount, err := pix.BuildStatic(pix.Static{Key: "52998224725", Name: "Horizonte Imoveis", City: "Sao Paulo", Amount: "10.00"})
	if err != nil {
		t.Fatal(err)
	}
	noAmount, err := pix.BuildStatic(pix.Static{Key: "52998224725", Name: "Horizonte Imoveis", City: "Sao Paulo"})
	if err != nil {
		t.Fatal(err)
	}
	manual := f.invoice(t, nil) // no billing linked
	settled := map[string]int64{}
	for _, status := range []string{"paid", "canceled", "refunded", "uncollectible"} {
		id := f.invoice(t, map[string]any{"billing_id": f.billing})
		f.exec(t, `UPDATE invoices SET status = $3, paid = ($3 = 'paid'), paid_at = CASE WHEN $3 = 'paid' THEN date END
			WHERE company_id = $1 AND id = $2`, f.compA, id, status)
		settled[status] = id
	}
	cases := []struct {
		name    string
		id      int64
		key     string
		body    any
		status  int
		fields  []string // the problems' fields of a 422
		message string   // part of the message of a 409
	}{
		{"valid, check digit stored upper case", open, f.keyA, map[string]any{"pixCode": sent}, 200, nil, ""},
		{"bad check digit", open, f.keyA, map[string]any{"pixCode": badCRC}, 422, []string{"pixCode.crc"}, ""},
		{"too long", open, f.keyA, map[string]any{"pixCode": strings.Repeat("0", 513)}, 422, nil, ""},
		{"missing", open, f.keyA, map[string]any{}, 422, []string{"pixCode"}, ""},
		{"not a string", open, f.keyA, map[string]any{"pixCode": 12}, 422, []string{"pixCode"}, ""},
		{"unknown field", open, f.keyA, map[string]any{"pixCode": sent, "qr": 1}, 422, []string{"qr"}, ""},
		{"manual billing", manual, f.keyA, map[string]any{"pixCode": sent}, 409, nil, "no billing linked"},
		{"paid", settled["paid"], f.keyA, map[string]any{"pixCode": sent}, 409, nil, "is paid"},
		{"canceled", settled["canceled"], f.keyA, map[string]any{"pixCode": sent}, 409, nil, "is canceled"},
		{"refunded", settled["refunded"], f.keyA, map[string]any{"pixCode": sent}, 409, nil, "is refunded"},
		{"uncollectible", settled["uncollectible"], f.keyA, map[string]any{"pixCode": sent}, 409, nil, "is uncollectible"},
		{"another company's invoice", open, f.keyB, map[string]any{"pixCode": sent}, 404, nil, ""},
		{"another amount than the total", open, f.keyA, map[string]any{"pixCode": otherAmount}, 422, []string{"pixCode.amount"}, ""},
		{"no amount: the payer types it", noAmountOn, f.keyA, map[string]any{"pixCode": noAmount}, 200, nil, ""},
	}
	for _, c := range cases {
		r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/pixCode", c.id), c.key, c.body)
		if r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.raw, c.status)
			continue
		}
		if c.status == 422 && c.fields != nil && !sameStrings(r.problemFields(t), c.fields) {
			t.Errorf("%s: problems %v, want %v", c.name, r.problemFields(t), c.fields)
		}
		if c.message != "" && !strings.Contains(r.raw, c.message) {
			t.Errorf("%s: %s does not say %q", c.name, r.raw, c.message)
		}
	}
	// only the valid payload was stored, once, with its origin in the history
	var code string
	if err := f.pool.QueryRow(t.Context(), `SELECT pix_code FROM invoices WHERE company_id = $1 AND id = $2`,
		f.compA, open).Scan(&code); err != nil {
		t.Fatal(err)
	}
	if code != stored {
		t.Errorf("stored %q, want %q (check digit in upper case)", code, stored)
	}
	for id, want := range map[int64]int64{open: 1, manual: 0, settled["paid"]: 0} {
		n := f.scalar(t, `SELECT count(*) FROM invoice_history WHERE company_id = $1 AND invoice_id = $2
			AND origin = 'pix_code' AND changes -> 0 ->> 'to' = $3`, f.compA, id, stored)
		if n != want {
			t.Errorf("invoice %d: %d pix_code history rows, want %d", id, n, want)
		}
	}
	if n := f.scalar(t, `SELECT count(*) FROM invoices WHERE pix_code IS NOT NULL`); n != 2 {
		t.Errorf("%d invoices hold a PIX code, want 2: a refused request stored one", n)
	}
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// receiptLinkOf asks for a record's receipt link and returns its URL.
func receiptLinkOf(t *testing.T, e *testEnv, path, key string) string {
	t.Helper()
	r := e.do(t, http.MethodGet, path, key, nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.status, r.raw)
	}
	data, _ := r.body["data"].(map[string]any)
	url, _ := data["url"].(string)
	if !strings.HasPrefix(url, e.url+"/receipts/") || data["expires_at"] == nil {
		t.Fatalf("GET %s: %s: want a url under %s/receipts/ and expires_at", path, r.raw, e.url)
	}
	return url
}

// page fetches a public page without any key.
func page(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("%s: Content-Type %q", url, ct)
	}
	return res.StatusCode, string(body)
}

func TestReceiptLinks(t *testing.T) {
	f := invoiceEnv(t, withReceipts())
	_, stored := testPixCode(t)
	unpaid := f.invoice(t, map[string]any{"billing_id": f.billing, "description": "Aluguel de dezembro", "building_id": f.building,
		"items": lines(f.rent, "1000.00", f.adminFee, "100.00")})
	f.exec(t, `UPDATE invoices SET ticket_digitable = $3, ticket_barcode = $4, pix_code = $5
		WHERE company_id = $1 AND id = $2`, f.compA, unpaid,
		"34191.09008 01015.271248 80212.460002 4 25480000675787", "34194254800006757871090001015271248021246000", stored)
	paid := f.invoice(t, map[string]any{"description": "Aluguel de novembro"})
	f.exec(t, `UPDATE invoices SET status = 'paid', paid = true, paid_at = date, credit_at = date, paid_amount = total
		WHERE company_id = $1 AND id = $2`, f.compA, paid)
	entry := f.scalar(t, `INSERT INTO transactions (company_id, type, amount, date, due_date, description, person_id, business_id)
		VALUES ($1, 'debit', 250.50, current_date, current_date + 5, 'Conserto do portão', $2, $3) RETURNING id`,
		f.compA, f.payer, f.business)

	unpaidURL := receiptLinkOf(t, f.testEnv, fmt.Sprintf("/invoices/%d/receiptLink", unpaid), f.keyA)
	for _, c := range []struct {
		name string
		url  string
		want []string
	}{
		{"unpaid invoice", unpaidURL, []string{"Paula Pagadora", "Horizonte", "Aluguel de dezembro", "R$ 1.000,00",
			"Linha digitável", "34191.09008 01015.271248 80212.460002 4 25480000675787", stored}},
		{"paid invoice", receiptLinkOf(t, f.testEnv, fmt.Sprintf("/invoices/%d/receiptLink", paid), f.keyA),
			[]string{"Recibo de pagamento", "Paula Pagadora", "R$ 1.000,00"}},
		{"ledger entry", receiptLinkOf(t, f.testEnv, fmt.Sprintf("/transactions/%d/receiptLink", entry), f.keyA),
			[]string{"Conserto do portão", "R$ 250,50", "Paula Pagadora"}},
	} {
		status, body := page(t, c.url)
		if status != http.StatusOK {
			t.Errorf("%s: %d", c.name, status)
			continue
		}
		if strings.Contains(body, "Taxa de administra") {
			t.Errorf("%s: the page shows the administration fee, a deduction the payer does not pay", c.name)
		}
		for _, s := range c.want {
			if !strings.Contains(body, s) {
				t.Errorf("%s: the page does not show %q", c.name, s)
			}
		}
	}
	// the same links are refused to another company, and a tampered or
	// unknown token is the 404 page
	for _, path := range []string{fmt.Sprintf("/invoices/%d/receiptLink", unpaid), fmt.Sprintf("/transactions/%d/receiptLink", entry)} {
		if r := f.do(t, http.MethodGet, path, f.keyB, nil); r.status != http.StatusNotFound {
			t.Errorf("company B: GET %s: %d, want 404", path, r.status)
		}
	}
	flip := map[bool]string{true: "B", false: "A"}[strings.HasSuffix(unpaidURL, "A")]
	tampered := unpaidURL[:len(unpaidURL)-1] + flip
	for _, url := range []string{tampered, f.url + "/receipts/nonsense"} {
		if status, body := page(t, url); status != http.StatusNotFound || strings.Contains(body, "Paula") {
			t.Errorf("%s: %d, want the 404 page", url, status)
		}
	}
	t.Run("in a browser", func(t *testing.T) {
		browser := browsertest.Chromium(t)
		dom := browsertest.DumpDOM(t, browser, unpaidURL)
		for _, s := range []string{"Paula Pagadora", "Aluguel de dezembro", "Copiar código PIX"} {
			if !strings.Contains(dom, s) {
				t.Errorf("the rendered page does not show %q", s)
			}
		}
		for _, class := range []string{"barcode", "qr"} {
			if got := browsertest.ImageState(t, dom, class); got != "ok" {
				t.Errorf("image %s: data-state %q, want \"ok\" (drawn)", class, got)
			}
		}
	})
}

func TestReceiptLinksOff(t *testing.T) {
	f := invoiceEnv(t)
	id := f.invoice(t, nil)
	r := f.do(t, http.MethodGet, fmt.Sprintf("/invoices/%d/receiptLink", id), f.keyA, nil)
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.raw, "PROPFIN_RECEIPT_SECRET") {
		t.Errorf("without a secret: %d %s, want a 503 naming PROPFIN_RECEIPT_SECRET", r.status, r.raw)
	}
	if status, _ := page(t, f.url+"/receipts/anything"); status != http.StatusNotFound {
		t.Errorf("a link without a secret: %d, want 404", status)
	}
}
