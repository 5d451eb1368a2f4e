package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/api/receipt/browsertest"
	"github.com/propfin/propfin/api/reference"
)

// withoutCSP serves h without its Content-Security-Policy, to see what
// the page would ask for when nothing held it back.
func withoutCSP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(cspStripper{w}, r)
	})
}

type cspStripper struct{ http.ResponseWriter }

func (c cspStripper) WriteHeader(status int) {
	c.Header().Del("Content-Security-Policy")
	c.ResponseWriter.WriteHeader(status)
}

func (c cspStripper) Write(b []byte) (int, error) {
	c.Header().Del("Content-Security-Policy")
	return c.ResponseWriter.Write(b)
}

// renderedOperation is true once Swagger UI has drawn the operation of
// the path.
func renderedOperation(path string) string {
	return `document.querySelector('.opblock-summary-path[data-path="` + path + `"]')`
}

// scrolledTo is true once expr is; until then each evaluation scrolls the
// page down (Swagger UI draws only the operations in view).
func scrolledTo(expr string) string {
	return `(() => { if (` + expr + `) return true; window.scrollBy(0, 600); return false; })()`
}

// TestReferencePageInBrowser loads /docs in headless Chromium: the page
// renders the document (its title, the operations of a resource and of
// other routes, an operation's details) under its
// Content-Security-Policy without any refusal or script error, and every
// request it makes is to this machine, with the policy and without it (so
// the policy is not what keeps the page local).
func TestReferencePageInBrowser(t *testing.T) {
	t.Parallel()
	browser := browsertest.Chromium(t)
	e := setup(t)
	for _, c := range []struct {
		name    string
		handler http.Handler
	}{{"with its policy", e.handler}, {"without its policy", withoutCSP(e.handler)}} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			t.Cleanup(srv.Close)
			page := browsertest.OpenPage(t, browser, "--window-size=1280,2000")
			page.Navigate(srv.URL + reference.Path)
			title := `document.querySelector('.info .title') && document.querySelector('.info .title').textContent.includes('propfin API')`
			if !page.WaitFor(title, 90*time.Second) {
				t.Fatalf("the page did not render the document in 90 s; console:\n%s", strings.Join(page.Console(), "\n"))
			}
			// in the order the page lists them: invoices before contracts
			for _, path := range []string{"/invoices/{id}", "/invoices/{invoice_id}/pixCode", "/financial/contracts/{id}/readjust"} {
				if !page.WaitFor(scrolledTo(renderedOperation(path)), 60*time.Second) {
					t.Fatalf("the page did not render the operation of %s", path)
				}
			}
			page.Eval(renderedOperation("/financial/contracts/{id}/readjust") +
				`.closest('.opblock').querySelector('.opblock-summary-control').click()`)
			details := `document.querySelector('.opblock.is-open') && ` +
				`document.querySelector('.opblock.is-open').textContent.includes('exactly as the nightly run would')`
			if !page.WaitFor(details, 30*time.Second) {
				t.Error("the readjust operation did not open with its description")
			}
			if c.name == "with its policy" {
				sortIsText(t, page)
			}
			requests := page.Requests()
			if off := browsertest.OffMachine(requests); len(off) > 0 {
				t.Errorf("the page asked for something off the machine: %v", off)
			}
			if !slices.ContainsFunc(requests, func(u string) bool { return strings.HasSuffix(u, OpenAPIPath) }) {
				t.Errorf("the page's requests %v do not include the document: the recording misses requests", requests)
			}
			if console := page.Console(); len(console) > 0 {
				t.Errorf("the page logged (a refusal of its policy, an error):\n%s", strings.Join(console, "\n"))
			}
		})
	}
}

// sortIsText: in "Try it out" of a list, sort is a text field (a
// multi-select would reorder the keys and take id with -id).
func sortIsText(t *testing.T, page *browsertest.Page) {
	t.Helper()
	list := `document.querySelector('.opblock-get .opblock-summary-path[data-path="/buildings/types"]')`
	page.Eval(`window.scrollTo(0, 0)`)
	if !page.WaitFor(scrolledTo(list), 60*time.Second) {
		t.Fatal("the page did not render GET /buildings/types")
	}
	page.Eval(list + `.closest('.opblock').querySelector('.opblock-summary-control').click()`)
	tryOut := `document.querySelector('.opblock-get.is-open .try-out__btn')`
	if !page.WaitFor(tryOut, 60*time.Second) {
		t.Fatal("GET /buildings/types did not open")
	}
	page.Eval(tryOut + `.click()`)
	row := `document.querySelector('.opblock-get.is-open tr[data-param-name="sort"]')`
	if !page.WaitFor(row+` && `+row+`.querySelector('input[type=text]') !== null && `+row+`.querySelector('select') === null`,
		60*time.Second) {
		t.Error("GET /buildings/types's sort is not a text field")
	}
}

// TestReferencePageHeaders: the page and its files are served without a
// key, under the policy, with their types; another name is a 404 in the
// error envelope.
func TestReferencePageHeaders(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for path, wantType := range map[string]string{
		reference.Path:                           "text/html; charset=utf-8",
		reference.Path + "/swagger-ui-bundle.js": "text/javascript; charset=utf-8",
		reference.Path + "/swagger-ui.css":       "text/css; charset=utf-8",
		reference.Path + "/start.js":             "text/javascript; charset=utf-8",
	} {
		res, err := http.Get(e.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != wantType || len(body) == 0 {
			t.Errorf("GET %s: %d %q, %d bytes", path, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
		if csp := res.Header.Get("Content-Security-Policy"); csp != reference.CSP {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
		if bytesHas(body, "https://", "http://") && path != reference.Path+"/swagger-ui-bundle.js" &&
			path != reference.Path+"/swagger-ui.css" {
			t.Errorf("GET %s names another site", path)
		}
	}
	r := e.do(t, http.MethodGet, reference.Path+"/swagger-ui-bundle.js.map", "", nil)
	if r.status != http.StatusNotFound || r.body["return"] != false {
		t.Errorf("an unknown file: %d %s", r.status, r.raw)
	}
}

func bytesHas(b []byte, subs ...string) bool {
	for _, s := range subs {
		if strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}
