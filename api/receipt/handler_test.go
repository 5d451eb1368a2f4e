package receipt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// pages is a load function over a fixed set of records.
func pages(byRef map[Ref]Page, errs map[Ref]error) func(context.Context, Ref) (Page, error) {
	return func(_ context.Context, ref Ref) (Page, error) {
		if err, ok := errs[ref]; ok {
			return Page{}, err
		}
		if p, ok := byRef[ref]; ok {
			return p, nil
		}
		return Page{}, fmt.Errorf("invoice %d of company %d: %w", ref.ID, ref.CompanyID, ErrNotFound)
	}
}

func testHandler(t testing.TB) (http.Handler, *Signer) {
	t.Helper()
	s := testSigner(t)
	invalid := unpaidPage()
	invalid.Status = "settled_elsewhere"
	load := pages(
		map[Ref]Page{
			{KindInvoice, 1, 10}:     unpaidPage(),
			{KindInvoice, 1, 11}:     paidPage(),
			{KindTransaction, 1, 12}: invalid,
		},
		map[Ref]error{
			{KindInvoice, 1, 20}: fmt.Errorf("reading invoice: %w", ErrUnavailable),
			{KindInvoice, 1, 21}: errors.New("pq: relation \"invoices\" does not exist"),
		})
	return Handler(load, s, func() time.Time { return testNow }), s
}

func TestHandler(t *testing.T) {
	t.Parallel()
	h, s := testHandler(t)
	sign := func(kind string, id int64) string { return s.Sign(kind, 1, id, testExpires) }
	expired := s.Sign(KindInvoice, 1, 10, testNow.Add(-time.Second))
	tests := []struct {
		name     string
		method   string
		path     string
		status   int
		want     string
		internal string // text that must not appear
	}{
		{"unpaid", "GET", "/receipt/" + sign(KindInvoice, 10), 200, "Copiar código PIX", ""},
		{"paid", "GET", "/receipt/" + sign(KindInvoice, 11), 200, "Recibo de pagamento", ""},
		{"head", "HEAD", "/receipt/" + sign(KindInvoice, 10), 200, "", ""},
		{"any prefix", "GET", "/a/b/c/" + sign(KindInvoice, 10), 200, "Fatura nº 1234", ""},
		{"tampered", "GET", "/receipt/" + flip(sign(KindInvoice, 10), 12), 404, "Página não encontrada", ""},
		{"expired", "GET", "/receipt/" + expired, 404, "Página não encontrada", ""},
		{"no token", "GET", "/receipt/", 404, "Página não encontrada", ""},
		{"token in query only", "GET", "/receipt/?token=" + sign(KindInvoice, 10), 404, "Página não encontrada", ""},
		{"other kind, same id", "GET", "/receipt/" + sign(KindTransaction, 10), 404, "Página não encontrada", "transaction"},
		{"not found", "GET", "/receipt/" + sign(KindInvoice, 99), 404, "Página não encontrada", "company"},
		{"unavailable", "GET", "/receipt/" + sign(KindInvoice, 20), 503, "Página indisponível", "reading invoice"},
		{"internal", "GET", "/receipt/" + sign(KindInvoice, 21), 500, "Página indisponível", "relation"},
		{"invalid page", "GET", "/receipt/" + sign(KindTransaction, 12), 500, "Página indisponível", "settled_elsewhere"},
		{"post", "POST", "/receipt/" + sign(KindInvoice, 10), 405, "Método não permitido", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d; body:\n%s", res.StatusCode, tt.status, body)
			}
			checkHeaders(t, res.Header)
			if !strings.Contains(string(body), tt.want) {
				t.Errorf("body lacks %q:\n%s", tt.want, body)
			}
			if tt.internal != "" && strings.Contains(string(body), tt.internal) {
				t.Errorf("body leaks %q:\n%s", tt.internal, body)
			}
			if tt.status >= 400 && tt.method != "HEAD" && !strings.HasPrefix(string(body), "<!doctype html>") {
				t.Errorf("error body is not a plain HTML page:\n%s", body)
			}
		})
	}
}

func checkHeaders(t *testing.T, h http.Header) {
	t.Helper()
	want := map[string]string{
		"Content-Type":           "text/html; charset=utf-8",
		"Cache-Control":          "no-store",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	csp := h.Get("Content-Security-Policy")
	for _, part := range []string{"default-src 'none'", "img-src data:", "style-src 'sha256-", "script-src 'sha256-", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, part) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, part)
		}
	}
	for _, bad := range []string{"http", "*", "unsafe-eval"} {
		if strings.Contains(csp, bad) {
			t.Errorf("Content-Security-Policy %q allows %q", csp, bad)
		}
	}
}

func TestHandlerRetryAfter(t *testing.T) {
	t.Parallel()
	h, s := testHandler(t)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/r/"+s.Sign(KindInvoice, 1, 20, testExpires), nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("status %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}
