package api

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/propfin/propfin/api/receipt/browsertest"
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
		if s.statements, err = newStatementLinks([]byte(testReceiptSecret)); err != nil {
			panic(err)
		}
	}
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
	renegotiated := f.invoice(t, map[string]any{"description": "Aluguel de outubro"})
	f.exec(t, `UPDATE invoices SET status = 'renegotiated' WHERE company_id = $1 AND id = $2`, f.compA, renegotiated)
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
		{"renegotiated invoice", receiptLinkOf(t, f.testEnv, fmt.Sprintf("/invoices/%d/receiptLink", renegotiated), f.keyA),
			[]string{"Renegociado", "Aluguel de outubro"}},
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
