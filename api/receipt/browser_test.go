package receipt

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// requireBrowserEnv makes a missing Chromium an error instead of a skip;
// CI sets it, so the page is always checked in a real browser there.
const requireBrowserEnv = "PROPFIN_TEST_BROWSER"

// chromium finds a Chromium or Chrome binary. Without one the test is
// skipped with a message that says it needs Chromium, or fails when
// PROPFIN_TEST_BROWSER=1: go test ./... stays green on a machine with only
// Go and PostgreSQL, and CI never passes without the browser check.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "this test needs headless Chromium (chromium, chromium-browser or google-chrome on PATH); " +
		"install it (apt-get install chromium) to check the receipt page in a real browser"
	if os.Getenv(requireBrowserEnv) == "1" {
		t.Fatal(msg + " (" + requireBrowserEnv + "=1 makes its absence an error)")
	}
	t.Skip(msg)
	return ""
}

// dumpDOM loads url in headless Chromium and returns the DOM after the
// page's load event and scripts.
func dumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=5000", "--dump-dom", url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running %s: %v\n%s", browser, err, stderr.Bytes())
	}
	if stdout.Len() == 0 {
		t.Fatalf("%s dumped no DOM:\n%s", browser, stderr.Bytes())
	}
	return stdout.String()
}

// imageState returns the data-state the page's script gave the image of
// the class: "ok" once drawn, "broken" if it failed, "" if the script did
// not run.
func imageState(t *testing.T, dom, class string) string {
	t.Helper()
	img := regexp.MustCompile(`<img [^>]*class="` + class + `"[^>]*>`).FindString(dom)
	if img == "" {
		t.Fatalf("DOM has no <img class=%q>", class)
	}
	m := regexp.MustCompile(`data-state="([a-z]*)"`).FindStringSubmatch(img)
	if m == nil {
		return ""
	}
	return m[1]
}

// copyButtonShown reports whether the copy button for the element id was
// revealed by the page's script (it is hidden without it).
func copyButtonShown(t *testing.T, dom, id string) bool {
	t.Helper()
	b := regexp.MustCompile(`<button [^>]*data-copy="` + id + `"[^>]*>`).FindString(dom)
	if b == "" {
		t.Fatalf("DOM has no copy button for %s", id)
	}
	return !strings.Contains(b, "hidden")
}

// TestBrowser renders the page through Handler and loads it in headless
// Chromium with the handler's headers (Content-Security-Policy included):
// the text a payer needs is there, both images were decoded and drawn, and
// the inline script ran (so the policy's hashes match).
func TestBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
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
		dom := dumpDOM(t, browser, link(10))
		checkText(t, text(dom), "Fatura nº 1234", "Vencimento 24/11/2026", "Total R$ 1.500,00",
			"Linha digitável", testLine, "Copiar linha digitável", "Copiar código PIX", testPix)
		for _, class := range []string{"barcode", "qr"} {
			if got := imageState(t, dom, class); got != "ok" {
				t.Errorf("image %s: data-state %q, want \"ok\" (drawn)", class, got)
			}
		}
		for _, id := range []string{"linha-digitavel", "pix-copia-e-cola"} {
			if !copyButtonShown(t, dom, id) {
				t.Errorf("copy button for %s still hidden: the page's script did not run", id)
			}
		}
	})
	t.Run("paid", func(t *testing.T) {
		t.Parallel()
		dom := dumpDOM(t, browser, link(11))
		checkText(t, text(dom), "Recibo de pagamento", "Recebemos de Maria da Silva", "Pago em 26/11/2026",
			"Valor pago R$ 1.531,50", "Multa R$ 30,00")
		if strings.Contains(dom, "<img ") {
			t.Error("paid page has images")
		}
	})
	t.Run("broken image is detected", func(t *testing.T) {
		t.Parallel()
		dom := dumpDOM(t, browser, brokenImageServer(t, srv.Client(), link(10)))
		if got := imageState(t, dom, "qr"); got != "broken" {
			t.Errorf("corrupt QR image: data-state %q, want \"broken\"", got)
		}
		if got := imageState(t, dom, "barcode"); got != "ok" {
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
