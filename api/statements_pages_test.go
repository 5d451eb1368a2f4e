package api

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/api/receipt/browsertest"
	"github.com/propfin/propfin/api/statement/pdftext"
)

// document is what a statement link answered.
type document struct {
	status int
	header http.Header
	body   []byte
}

// fetchDoc gets url without an API key.
func fetchDoc(t *testing.T, url string) document {
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
	return document{res.StatusCode, res.Header, body}
}

// pageText is a page without its style and tags, entities decoded and
// spaces collapsed: close to what the owner reads.
func pageText(page []byte) string {
	noStyle := regexp.MustCompile(`(?s)<style>.*?</style>`).ReplaceAll(page, nil)
	noTags := regexp.MustCompile(`<[^>]*>`).ReplaceAll(noStyle, []byte(" "))
	return strings.Join(strings.Fields(html.UnescapeString(string(noTags))), " ")
}

// statementLinkOf asks for statement id's link with key and returns its
// URL, checking the answer's shape and its expiry (120 days).
func (f *statementFixture) statementLinkOf(t *testing.T, id int64) string {
	t.Helper()
	asked := time.Now().UTC()
	link := f.get(t, fmt.Sprintf("/financial/ownerStatements/%d/link", id), http.StatusOK).record(t)
	url, _ := link["url"].(string)
	token := strings.TrimPrefix(url, f.url+"/statements/")
	if token == url || len(token) != 80 || len(link) != 2 {
		t.Fatalf("link %v: want {url, expires_at}, the url %s/statements/ and an 80-character token", link, f.url)
	}
	expires, err := time.Parse(time.DateTime, fmt.Sprint(link["expires_at"]))
	if want := asked.Add(120 * 24 * time.Hour); err != nil || expires.Before(want.Add(-2*time.Second)) || expires.After(want.Add(2*time.Second)) {
		t.Errorf("expires_at %v (%v), want 120 days from now", link["expires_at"], err)
	}
	return url
}

// documents fetches a statement link's page and its PDF both ways
// (.../pdf and ?format=pdf), checks what they answer and returns the
// page's text and the PDF's.
func documents(t *testing.T, url, month string) (page, pdf string) {
	t.Helper()
	p := fetchDoc(t, url)
	if p.status != http.StatusOK || p.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%s: %d %s\n%s", url, p.status, p.header.Get("Content-Type"), p.body)
	}
	for k, v := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
		"X-Content-Type-Options": "nosniff", "X-Robots-Tag": "noindex, nofollow"} {
		if got := p.header.Get(k); got != v {
			t.Errorf("page: %s %q, want %q", k, got, v)
		}
	}
	if csp := p.header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'; style-src 'sha256-") {
		t.Errorf("page: Content-Security-Policy %q", csp)
	}
	var pdfs []string
	for _, u := range []string{url + "/pdf", url + "?format=pdf"} {
		d := fetchDoc(t, u)
		want := `inline; filename="prestacao-de-contas-` + month + `.pdf"`
		if d.status != http.StatusOK || d.header.Get("Content-Type") != "application/pdf" || d.header.Get("Content-Disposition") != want {
			t.Fatalf("%s: %d %s %s", u, d.status, d.header.Get("Content-Type"), d.header.Get("Content-Disposition"))
		}
		text, err := pdftext.Text(d.body)
		if err != nil {
			t.Fatalf("%s: reading the PDF: %v", u, err)
		}
		pdfs = append(pdfs, text)
	}
	if pdfs[0] != pdfs[1] {
		t.Errorf(".../pdf and ?format=pdf differ:\n%s\n%s", pdfs[0], pdfs[1])
	}
	return pageText(p.body), pdfs[0]
}

// checkDocuments checks that the page and the PDF each say every want,
// and neither says any of notWant.
func checkDocuments(t *testing.T, what, page, pdf string, want, notWant []string) {
	t.Helper()
	for name, text := range map[string]string{"page": page, "PDF": pdf} {
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s's %s lacks %q:\n%s", what, name, w, text)
			}
		}
		for _, w := range notWant {
			if strings.Contains(text, w) {
				t.Errorf("%s's %s says %q:\n%s", what, name, w, text)
			}
		}
	}
}

// linkStatement is the statement of the link tests: Carla, an owner
// whose record has no account nor PIX key, debited a painting and a TED
// tariff (an item left out of the report) and paid 100,00 by hand, closed
// in March 2024: −1.234,56 − 3,50 − 100,00 = −1.338,06.
func linkStatement(t *testing.T, f *statementFixture) (owner, id int64) {
	t.Helper()
	owner = f.create(t, "/persons", map[string]any{"name": "Carla Proprietária", "tax_id": "52998224725"})
	f.ownerEntry(t, owner, f.repair, "2024-03-20", "1234.56", "Pintura")
	f.ownerEntry(t, owner, f.tariff, "2024-03-21", "3.50", "Tarifa de TED")
	f.create(t, "/transactions", map[string]any{"type": "transfer", "extract": "owner", "owner_id": owner, "person_id": owner,
		"amount": "100.00", "date": "2024-03-22", "description": "Repasse em dinheiro", "business_id": f.business})
	f.run(t, "owners:statements", `{"month":"2024-03"}`)
	id, _ = f.statementOf(t, f.keyA, owner, "2024-03")
	return owner, id
}

// TestOwnerStatementLink: the link is {url, expires_at}, 120 days; its
// page and PDF (both ways) show the statement as closed: headed by the
// business (not the company's name), the owner, the contract's section and the lines of no contract, a
// transfer whose destination was never recorded, the line left out of the
// report counted in the balance and never named, the totals and the
// closing; an unknown format is a 400 page. Refused with the 404 page: a
// tampered token, an expired one, a statement token on the receipt path
// and a receipt token on the statements' path, a token naming the
// statement under company B; company B's key gets a 404 for A's link.
func TestOwnerStatementLink(t *testing.T) {
	t.Parallel()
	f := statementEnv(t, withReceipts())
	_, id := linkStatement(t, f)
	url := f.statementLinkOf(t, id)
	page, pdf := documents(t, url, "2024-03")
	checkDocuments(t, "Carla's March", page, pdf, []string{"Horizonte", "Demonstrativo emitido por Horizonte.", "Prestação de contas", "março de 2024",
		"Carla Proprietária", "CPF 529.982.247-25", "Horizonte", "Período 01/03/2024 a 31/03/2024",
		fmt.Sprintf("Contrato %d · Edifício Aurora", f.contract), "Rua das Flores, 10, ap. 31 - Centro, São Paulo/SP, CEP 01310-100",
		"Inquilino: Tiago Inquilino", "20/03/2024 Pintura -R$ 1.234,56", "Outros lançamentos",
		"22/03/2024 Repasse em dinheiro (destino não registrado) -R$ 100,00",
		"Saldo anterior R$ 0,00", "Total de descontos -R$ 1.234,56", "Total repassado -R$ 100,00",
		"Saldo final em 31/03/2024 -R$ 1.338,06",
		"1 lançamento interno não é mostrado neste demonstrativo; soma -R$ 3,50, já incluído no saldo final."},
		[]string{"Tarifa de TED", "Company A", "Empresa"})
	if d := fetchDoc(t, url+"?format=xml"); d.status != http.StatusBadRequest {
		t.Errorf("format=xml: %d", d.status)
	}
	for path, field := range map[string]string{
		fmt.Sprintf("/financial/ownerStatements/%d/link?expires_in=3600", id): "expires_in",
		fmt.Sprintf("/transactions/%d/receiptLink?lang=en", f.scalar(t,
			`SELECT id FROM transactions WHERE company_id = $1 AND description = 'Pintura'`, f.compA)): "lang",
	} {
		r := f.do(t, http.MethodGet, path, f.keyA, nil)
		if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || len(got) != 1 || got[0] != field ||
			!strings.Contains(r.raw, "unknown query parameter") {
			t.Errorf("%s: %d %s", path, r.status, r.raw)
		}
	}

	token := url[strings.LastIndexByte(url, '/')+1:]
	tampered := token[:len(token)-2] + map[bool]string{true: "AA", false: "AB"}[!strings.HasSuffix(token, "AA")]
	signer := f.srv.statements.signer
	repair := f.scalar(t, `SELECT id FROM transactions WHERE company_id = $1 AND description = 'Pintura'`, f.compA)
	receiptURL := receiptLinkOf(t, f.testEnv, fmt.Sprintf("/transactions/%d/receiptLink", repair), f.keyA)
	receiptToken := receiptURL[strings.LastIndexByte(receiptURL, '/')+1:]
	if d := fetchDoc(t, receiptURL); d.status != http.StatusOK {
		t.Fatalf("the receipt link itself: %d", d.status)
	}
	for name, u := range map[string]string{
		"tampered":                        f.url + "/statements/" + tampered,
		"tampered, its PDF":               f.url + "/statements/" + tampered + "/pdf",
		"expired":                         f.url + "/statements/" + signer.SignStatement(f.compA, id, time.Now().Add(-time.Second)),
		"the statement under company B":   f.url + "/statements/" + signer.SignStatement(f.compB, id, time.Now().Add(time.Hour)),
		"a statement that is not there":   f.url + "/statements/" + signer.SignStatement(f.compA, id+1000, time.Now().Add(time.Hour)),
		"an income report's on this path": f.url + "/statements/" + signer.SignIncomeReport(f.compA, id, 2024, time.Now().Add(time.Hour)),
		"a statement's on the receipts'":  f.url + "/receipts/" + token,
		"a receipt's on the statements'":  f.url + "/statements/" + receiptToken,
		"a receipt's, for the PDF":        f.url + "/statements/" + receiptToken + "/pdf",
	} {
		if d := fetchDoc(t, u); d.status != http.StatusNotFound || !strings.Contains(string(d.body), "não é válido ou expirou") {
			t.Errorf("%s: %d\n%s", name, d.status, d.body)
		}
	}
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/ownerStatements/%d/link", id), f.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("company B's link of A's statement: %d %s", r.status, r.raw)
	}
}

// TestOwnerStatementLinkUnconfigured: without a secret the link is a 503
// that says so, and every statement URL the 404 page.
func TestOwnerStatementLinkUnconfigured(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, http.MethodGet, "/financial/ownerStatements/1/link", e.keyA, nil)
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.raw, "PROPFIN_RECEIPT_SECRET") {
		t.Errorf("link without a secret: %d %s", r.status, r.raw)
	}
	links, err := newStatementLinks([]byte(testReceiptSecret))
	if err != nil {
		t.Fatal(err)
	}
	token := links.signer.SignStatement(e.compA, 1, time.Now().Add(time.Hour))
	for _, u := range []string{e.url + "/statements/" + token, e.url + "/statements/" + token + "/pdf"} {
		if d := fetchDoc(t, u); d.status != http.StatusNotFound || d.header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s without a secret: %d %s", u, d.status, d.header.Get("Content-Type"))
		}
	}
}

// checkMarchDocuments fetches the worked month's March statements
// through their links (docs/ledger.md, "Worked month"): each page and PDF
// has the contract's section with its tenant and address, the lines with
// where each transfer went, every total and the closing balance worked by
// hand; Bruno's line left out of the report is counted, in the balance,
// and not named.
func (f *statementFixture) checkMarchDocuments(t *testing.T, ana, bruno int64) {
	t.Helper()
	section := []string{fmt.Sprintf("Contrato %d · Edifício Aurora", f.contract), "Inquilino: Tiago Inquilino",
		"Rua das Flores, 10, ap. 31 - Centro, São Paulo/SP, CEP 01310-100", "Horizonte", "Período 01/03/2024 a 31/03/2024"}
	page, pdf := documents(t, f.statementLinkOf(t, ana), "2024-03")
	checkDocuments(t, "Ana's March", page, pdf, append([]string{"Ana Proprietária", "março de 2024",
		"26/03/2024 Aluguel — fatura 1, 03/2024 R$ 1.200,00", "20/03/2024 Reparo hidráulico -R$ 150,00",
		"15/03/2024 Repasse garantido: Aluguel 03/2024 R$ 1.290,00",
		"26/03/2024 Compensação de repasse garantido — fatura 1, 03/2024 -R$ 1.290,00",
		"15/03/2024 Repasse: Aluguel 03/2024 (para PIX ana@example.com) -R$ 1.290,00",
		"28/03/2024 Repasse: Aluguel 03/2024 (para PIX ana@example.com) -R$ 35,25",
		"Saldo anterior R$ 0,00", "Total recebido R$ 1.445,25", "Total de descontos -R$ 270,00",
		"Total adiantado R$ 1.290,00", "Total recuperado -R$ 1.290,00", "Total de ajustes R$ 0,00",
		"Total repassado -R$ 1.325,25", "Saldo final em 31/03/2024 -R$ 150,00"}, section...),
		[]string{"Outros lançamentos", "lançamento interno"})
	page, pdf = documents(t, f.statementLinkOf(t, bruno), "2024-03")
	checkDocuments(t, "Bruno's March", page, pdf, append([]string{"Bruno Proprietário",
		"26/03/2024 Aluguel — fatura 1, 03/2024 R$ 800,00", "26/03/2024 Taxa de administração — fatura 1, 03/2024 -R$ 80,00",
		"15/03/2024 Repasse: Aluguel 03/2024 (para Banco 001, agência 4321, conta 98765-1) -R$ 860,00",
		"Total recebido R$ 963,50", "Total de descontos -R$ 80,00", "Total adiantado R$ 860,00",
		"Total recuperado -R$ 860,00", "Total repassado -R$ 883,50", "Saldo final em 31/03/2024 -R$ 3,50",
		"1 lançamento interno não é mostrado neste demonstrativo; soma -R$ 3,50, já incluído no saldo final."}, section...),
		[]string{"Tarifa de TED", "Ana Proprietária"})
}

// browserProbe measures the page as the browser laid it out for a screen
// %d pixels wide: how wide it is, the elements past the screen's right
// edge, whether the month's summary is drawn inside the screen, its text,
// and the PDF link.
const browserProbe = `(w => {
  const past = [...document.body.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > w + 0.5)
    .map(e => e.tagName.toLowerCase() + '.' + e.className);
  const t = document.getElementById('totais');
  t.scrollIntoView({block: 'center'});
  const r = t.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + r.width / 2, Math.max(0, Math.min(innerHeight - 1, r.top + r.height / 2)));
  const pdf = document.querySelector('a.pdf');
  return {scrollWidth: document.documentElement.scrollWidth, past,
    totalsShown: r.width > 0 && r.left >= 0 && r.right <= w && at !== null && t.contains(at),
    totals: t.innerText.replace(/\s+/g, ' '), pdf: pdf ? pdf.href : ''};
})(%d)`

// TestOwnerStatementPageInBrowser: the statement page as the API serves
// it through its link, in headless Chromium at a phone's width (375 CSS
// pixels, laid out as a phone does) and a desktop's (1280): no wider than
// the screen, the month's summary drawn with the closing balance, its PDF
// link answering the PDF; it logs nothing (no refusal of its policy) and
// asks for nothing off the machine.
func TestOwnerStatementPageInBrowser(t *testing.T) {
	t.Parallel()
	browser := browsertest.Chromium(t)
	f := statementEnv(t, withReceipts())
	_, id := linkStatement(t, f)
	url := f.statementLinkOf(t, id)
	for _, vp := range []struct {
		name          string
		width, height int
		mobile        bool
	}{{"phone", 375, 812, true}, {"desktop", 1280, 900, false}} {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			page := browsertest.OpenPage(t, browser)
			page.SetViewport(vp.width, vp.height, vp.mobile)
			page.Navigate(url)
			if !page.WaitFor(`document.readyState === 'complete' && document.getElementById('totais') !== null`, 60*time.Second) {
				t.Fatalf("the page did not load in 60 s; console:\n%s", strings.Join(page.Console(), "\n"))
			}
			var got struct {
				ScrollWidth float64  `json:"scrollWidth"`
				Past        []string `json:"past"`
				TotalsShown bool     `json:"totalsShown"`
				Totals      string   `json:"totals"`
				PDF         string   `json:"pdf"`
			}
			if err := json.Unmarshal(page.Eval(fmt.Sprintf(browserProbe, vp.width)), &got); err != nil {
				t.Fatal(err)
			}
			if got.ScrollWidth > float64(vp.width) || len(got.Past) > 0 {
				t.Errorf("laid out %v pixels wide for a %d-pixel screen; past its edge: %v", got.ScrollWidth, vp.width, got.Past)
			}
			if !got.TotalsShown || !strings.Contains(got.Totals, "Saldo final em 31/03/2024 -R$ 1.338,06") ||
				!strings.Contains(got.Totals, "Total de descontos -R$ 1.234,56") {
				t.Errorf("the summary: shown %v, %q", got.TotalsShown, got.Totals)
			}
			if got.PDF != url+"?format=pdf" {
				t.Fatalf("PDF link %q", got.PDF)
			}
			d := fetchDoc(t, got.PDF)
			text, err := pdftext.Text(d.body)
			if d.status != http.StatusOK || err != nil || !strings.Contains(text, "Saldo final em 31/03/2024 -R$ 1.338,06") {
				t.Errorf("the PDF link: %d %v %q", d.status, err, text)
			}
			if off := browsertest.OffMachine(page.Requests()); len(off) > 0 {
				t.Errorf("the page asked for something off the machine: %v", off)
			}
			if console := page.Console(); len(console) > 0 {
				t.Errorf("the page logged:\n%s", strings.Join(console, "\n"))
			}
		})
	}
}
