package statement

import (
	"bytes"
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

// documents is a load function over fixed documents; err, when set, is
// what it returns for every ref.
func documents(docs map[Ref]Document, err error) func(context.Context, Ref) (Document, error) {
	return func(_ context.Context, ref Ref) (Document, error) {
		if err != nil {
			return nil, err
		}
		d, ok := docs[ref]
		if !ok {
			return nil, fmt.Errorf("ref %+v: %w", ref, ErrNotFound)
		}
		return d, nil
	}
}

var (
	statementRef = Ref{Kind: KindOwnerStatement, CompanyID: 1, ID: 10}
	reportRef    = Ref{Kind: KindIncomeReport, CompanyID: 1, ID: 3, Year: 2024}
)

func testHandler(t *testing.T, load func(context.Context, Ref) (Document, error)) (*httptest.Server, *Signer) {
	t.Helper()
	s := testSigner(t)
	srv := httptest.NewServer(Handler(load, s, nil))
	t.Cleanup(srv.Close)
	return srv, s
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, method, url string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, body}
}

// TestHandlerFormats: the page by default and with format=html, the PDF
// at /pdf and with format=pdf, for both kinds of document, each with its
// type, disposition and the headers every answer carries.
func TestHandlerFormats(t *testing.T) {
	t.Parallel()
	srv, s := testHandler(t, documents(map[Ref]Document{statementRef: march(), reportRef: year2024()}, nil))
	exp := time.Now().Add(time.Hour)
	st := srv.URL + "/statements/" + s.SignStatement(1, 10, exp)
	ir := srv.URL + "/statements/" + s.SignIncomeReport(1, 3, 2024, exp)
	for _, c := range []struct {
		url, typ, disposition, start, says string
	}{
		{st, "text/html; charset=utf-8", "inline", "<!doctype html>", "Prestação de contas"},
		{st + "?format=html", "text/html; charset=utf-8", "inline", "<!doctype html>", "Prestação de contas"},
		{st + "/pdf", "application/pdf", `inline; filename="prestacao-de-contas-2024-03.pdf"`, "%PDF-", "Prestação de contas"},
		{st + "?format=pdf", "application/pdf", `inline; filename="prestacao-de-contas-2024-03.pdf"`, "%PDF-", "Prestação de contas"},
		{ir, "text/html; charset=utf-8", "inline", "<!doctype html>", "Informe de rendimentos"},
		{ir + "/pdf", "application/pdf", `inline; filename="informe-de-rendimentos-2024.pdf"`, "%PDF-", "Informe de rendimentos"},
		{ir + "?format=pdf", "application/pdf", `inline; filename="informe-de-rendimentos-2024.pdf"`, "%PDF-", "Informe de rendimentos"},
	} {
		a := do(t, http.MethodGet, c.url)
		if a.status != http.StatusOK || a.header.Get("Content-Type") != c.typ || a.header.Get("Content-Disposition") != c.disposition {
			t.Errorf("%s: %d %q %q", c.url, a.status, a.header.Get("Content-Type"), a.header.Get("Content-Disposition"))
		}
		if !bytes.HasPrefix(a.body, []byte(c.start)) || a.header.Get("Content-Length") != fmt.Sprint(len(a.body)) {
			t.Errorf("%s: body starts %.20q, %d bytes, Content-Length %s", c.url, a.body, len(a.body), a.header.Get("Content-Length"))
		}
		got := text(string(a.body))
		if c.typ == "application/pdf" {
			got = strings.Join(readPDF(t, a.body).pageTexts(t), " ")
		}
		checkText(t, c.url, got, c.says)
		checkHeaders(t, c.url, a.header, c.typ == "application/pdf")
	}
}

// checkHeaders checks what every answer carries; a PDF is not under the
// page's policy.
func checkHeaders(t *testing.T, what string, h http.Header, pdf bool) {
	t.Helper()
	for k, v := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
		"Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex, nofollow"} {
		if h.Get(k) != v {
			t.Errorf("%s: %s %q, want %q", what, k, h.Get(k), v)
		}
	}
	csp := h.Get("Content-Security-Policy")
	switch {
	case pdf && csp != "":
		t.Errorf("%s: a PDF under Content-Security-Policy %q", what, csp)
	case !pdf && csp != contentSecurityPolicy:
		t.Errorf("%s: Content-Security-Policy %q", what, csp)
	}
}

// TestHandlerRefusals: every way a request fails gets an HTML page with
// its status and without internal text.
func TestHandlerRefusals(t *testing.T) {
	t.Parallel()
	exp := time.Now().Add(time.Hour)
	mismatched := map[Ref]Document{statementRef: year2024()}
	invalid := march()
	invalid.Closing = 1
	for _, c := range []struct {
		name   string
		load   func(context.Context, Ref) (Document, error)
		path   func(s *Signer) string
		method string
		status int
		says   string
	}{
		{"bad token", documents(nil, nil), func(*Signer) string { return "/statements/nope" }, "GET", 404, "Este link não é válido ou expirou."},
		{"bad token, PDF", documents(nil, nil), func(*Signer) string { return "/statements/nope/pdf" }, "GET", 404, "Este link não é válido ou expirou."},
		{"expired", documents(map[Ref]Document{statementRef: march()}, nil),
			func(s *Signer) string { return "/statements/" + s.SignStatement(1, 10, time.Now().Add(-time.Second)) }, "GET", 404, "expirou"},
		{"not found", documents(nil, nil), func(s *Signer) string { return "/statements/" + s.SignStatement(1, 99, exp) }, "GET", 404, "expirou"},
		{"unavailable", documents(nil, fmt.Errorf("pool closed: %w", ErrUnavailable)),
			func(s *Signer) string { return "/statements/" + s.SignStatement(1, 10, exp) }, "GET", 503, "Tente de novo"},
		{"load error", documents(nil, errors.New("syntax error at or near")),
			func(s *Signer) string { return "/statements/" + s.SignStatement(1, 10, exp) }, "GET", 500, "Tente de novo"},
		{"another kind of document", documents(mismatched, nil),
			func(s *Signer) string { return "/statements/" + s.SignStatement(1, 10, exp) }, "GET", 500, "Tente de novo"},
		{"a statement that does not add up", documents(map[Ref]Document{statementRef: invalid}, nil),
			func(s *Signer) string { return "/statements/" + s.SignStatement(1, 10, exp) + "/pdf" }, "GET", 500, "Tente de novo"},
		{"unknown format", documents(map[Ref]Document{statementRef: march()}, nil),
			func(s *Signer) string { return "/statements/" + s.SignStatement(1, 10, exp) + "?format=xlsx" }, "GET", 400, "format=pdf"},
		{"POST", documents(map[Ref]Document{statementRef: march()}, nil),
			func(s *Signer) string { return "/statements/" + s.SignStatement(1, 10, exp) }, "POST", 405, "só pode ser lida"},
	} {
		srv, s := testHandler(t, c.load)
		a := do(t, c.method, srv.URL+c.path(s))
		body := string(a.body)
		if a.status != c.status || !strings.Contains(text(body), c.says) || !strings.HasPrefix(body, "<!doctype html>") {
			t.Errorf("%s: %d, want %d saying %q:\n%s", c.name, a.status, c.status, c.says, text(body))
		}
		checkHeaders(t, c.name, a.header, false)
		for _, leak := range []string{"pool closed", "syntax error", "closing balance", "IncomeReport"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s: the page shows %q", c.name, leak)
			}
		}
		if c.status == 503 && a.header.Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", c.name)
		}
		if c.status == 405 && a.header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: Allow %q", c.name, a.header.Get("Allow"))
		}
	}
}

// TestHandlerHead: HEAD answers the headers of GET without a body.
func TestHandlerHead(t *testing.T) {
	t.Parallel()
	srv, s := testHandler(t, documents(map[Ref]Document{statementRef: march()}, nil))
	url := srv.URL + "/statements/" + s.SignStatement(1, 10, time.Now().Add(time.Hour)) + "/pdf"
	get, head := do(t, http.MethodGet, url), do(t, http.MethodHead, url)
	if head.status != 200 || len(head.body) != 0 || head.header.Get("Content-Length") != get.header.Get("Content-Length") ||
		head.header.Get("Content-Type") != "application/pdf" {
		t.Errorf("HEAD: %d, %d bytes, Content-Length %s (GET's %s), %s", head.status, len(head.body),
			head.header.Get("Content-Length"), get.header.Get("Content-Length"), head.header.Get("Content-Type"))
	}
}

// TestRespond: a caller that verified the request itself answers with
// Respond alone.
func TestRespond(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	Respond(rec, httptest.NewRequest(http.MethodGet, "/anything?format=pdf", nil), year2024())
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(rec.Body.Bytes(), []byte("%PDF-")) {
		t.Errorf("Respond: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}

func TestRequestFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		target string
		want   Format
		err    bool
	}{
		{"/s/tok", FormatHTML, false},
		{"/s/tok?format=html", FormatHTML, false},
		{"/s/tok?format=pdf", FormatPDF, false},
		{"/s/tok/pdf", FormatPDF, false},
		{"/s/tok/pdf?format=html", FormatPDF, false},
		{"/s/tok?format=PDF", FormatPDF, false},
		{"/s/tok?format=Html", FormatHTML, false},
		{"/s/tok?format=xml", "", true},
	} {
		got, err := RequestFormat(httptest.NewRequest(http.MethodGet, c.target, nil))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%s: %q, %v", c.target, got, err)
		}
	}
	if got := token("/statements/abc/pdf"); got != "abc" {
		t.Errorf("token of .../abc/pdf: %q", got)
	}
	if got := token("/statements/abc"); got != "abc" {
		t.Errorf("token of .../abc: %q", got)
	}
}
