package receipt

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/api/receipt/browsertest"
)

// TestBrowser renders the page through Handler and loads it in headless
// Chromium with the handler's headers (Content-Security-Policy included):
// the text a payer needs is there, both images were decoded and drawn, and
// the inline script ran (so the policy's hashes match).
func TestBrowser(t *testing.T) {
	t.Parallel()
	browser := browsertest.Chromium(t)
	s := testSigner(t)
	h := Handler(pages(map[Ref]Page{
		{KindInvoice, 1, 10}: unpaidPage(),
		{KindInvoice, 1, 11}: paidPage(),
	}, nil), s, time.Now)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // the parallel subtests run after this function returns
	link := func(id int64) string {
		return srv.URL + "/receipt/" + s.Sign(KindInvoice, 1, id, time.Now().Add(time.Hour))
	}

	t.Run("unpaid", func(t *testing.T) {
		t.Parallel()
		dom := browsertest.DumpDOM(t, browser, link(10))
		checkText(t, text(dom), "Fatura nº 1234", "Vencimento 24/11/2026", "Total R$ 1.500,00",
			"Linha digitável", testLine, "Copiar linha digitável", "Copiar código PIX", testPix)
		for _, class := range []string{"barcode", "qr"} {
			if got := browsertest.ImageState(t, dom, class); got != "ok" {
				t.Errorf("image %s: data-state %q, want \"ok\" (drawn)", class, got)
			}
		}
		for _, id := range []string{"linha-digitavel", "pix-copia-e-cola"} {
			if !browsertest.CopyButtonShown(t, dom, id) {
				t.Errorf("copy button for %s still hidden: the page's script did not run", id)
			}
		}
	})
	t.Run("paid", func(t *testing.T) {
		t.Parallel()
		dom := browsertest.DumpDOM(t, browser, link(11))
		checkText(t, text(dom), "Recibo de pagamento", "Recebemos de Maria da Silva", "Pago em 26/11/2026",
			"Valor pago R$ 1.531,50", "Multa R$ 30,00")
		if strings.Contains(dom, "<img ") {
			t.Error("paid page has images")
		}
	})
	t.Run("broken image is detected", func(t *testing.T) {
		t.Parallel()
		dom := browsertest.DumpDOM(t, browser, brokenImageServer(t, srv.Client(), link(10)))
		if got := browsertest.ImageState(t, dom, "qr"); got != "broken" {
			t.Errorf("corrupt QR image: data-state %q, want \"broken\"", got)
		}
		if got := browsertest.ImageState(t, dom, "barcode"); got != "ok" {
			t.Errorf("barcode: data-state %q, want \"ok\"", got)
		}
	})
}

// brokenImageServer serves the page at link with its QR image corrupted,
// under the same headers, to show that the image check can fail.
func brokenImageServer(t *testing.T, client *http.Client, link string) string {
	t.Helper()
	res, err := client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body bytes.Buffer
	if _, err := body.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	page := regexp.MustCompile(`data:image/png;base64,[^"]*`).ReplaceAllString(body.String(), "data:image/png;base64,iVBORw0KGgoAAAAA")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range res.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.Write([]byte(page)) //nolint:errcheck // test server
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func checkText(t *testing.T, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("rendered DOM text lacks %q:\n%s", w, got)
		}
	}
}
