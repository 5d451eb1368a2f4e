package api

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHostileInput: inputs that once reached the database or broke the
// envelope are refused with a 422 (or answered with valid JSON).
func TestHostileInput(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	seed(t, e)
	cases := []struct {
		name, query string
		fields      []string
	}{
		{"NUL in a filter", "/buildings/types?filter[description]=%00", []string{"filter[description]"}},
		{"invalid UTF-8 in a filter", "/buildings/types?filter[description|ne]=%FF", []string{"filter[description|ne]"}},
		{"invalid UTF-8 in an In-filter", "/test/things?filter[kindIn][]=%C3", []string{"filter[kindIn][]"}},
		{"empty operator", "/buildings/types?filter[id|]=1", []string{"filter[id|]"}},
		{"repeated page", "/buildings/types?page=1&page=2", []string{"page"}},
		{"repeated perPage", "/buildings/types?perPage=5&perPage=500", []string{"perPage"}},
		// sort, fields and include may be repeated (read as one comma list), but the
		// list they make is held to the same rules as a comma list
		{"repeated sort of an unknown key", "/buildings/types?sort=id&sort=nope", []string{"sort"}},
		{"repeated include of an unknown column", "/buildings/types/1?include[category]=id&include[category]=nope", []string{"include[category]"}},
		{"include too deep", "/buildings/types?include[category.types.category.types]=id", []string{"include[category.types.category.types]"}},
		{"too many filters", "/buildings/types?" + strings.Repeat("filter[id|ge]=1&", MaxFilters+1), []string{"filter"}},
		{"too many In values", "/test/things?" + strings.Repeat("filter[kindIn][]=a&", MaxInValues+1), []string{"filter[kindIn][]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.get(t, c.query, http.StatusUnprocessableEntity)
			if got := r.problemFields(t); !slices.Equal(got, c.fields) {
				t.Errorf("problem fields %v, want %v", got, c.fields)
			}
		})
	}
	bodies := []struct{ name, body, field string }{
		{"NUL in a text field", `{"description":"a\u0000b","color":"x"}`, "description"},
		{"NUL in a custom field", `{"description":"a","color":"x","_c":"\u0000"}`, "_c"},
		{"invalid UTF-8 in a custom field", "{\"description\":\"a\",\"color\":\"x\",\"_c\":\"\xff\"}", "_c"},
	}
	for _, c := range bodies {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, c.body)
			if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
				t.Errorf("%d %s", r.status, r.raw)
			}
		})
	}
	big := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, `{"description":"`+strings.Repeat("x", maxBodyBytes)+`"}`)
	if big.status != http.StatusRequestEntityTooLarge || big.body["return"] != false {
		t.Errorf("oversized body: %d %s", big.status, big.raw[:min(len(big.raw), 200)])
	}
	// a raw non-ASCII byte in another parameter stays out of the page URLs' JSON
	raw := e.get(t, "/buildings/types?_=\xff%22&perPage=1", http.StatusOK)
	if !json.Valid([]byte(raw.raw)) || !strings.Contains(raw.body["next_page_url"].(string), "_=%FF%22&perPage=1&page=2") {
		t.Errorf("page URL with a raw byte: %s", raw.raw)
	}
}

// TestIncludeSizeIsBounded: a response whose includes would expand past
// the limit is refused instead of built.
func TestIncludeSizeIsBounded(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.exec(t, `INSERT INTO building_categories (company_id, description, color) VALUES ($1, 'C', '#1')`, e.compA)
	e.exec(t, `INSERT INTO building_types (company_id, description, category_id)
		SELECT $1, 'T' || g, 1 FROM generate_series(1, 150) g`, e.compA)
	// 100 types, each with the category, each category with its 150 types
	r := e.get(t, "/buildings/types?perPage=100&include[category.types]=id", http.StatusUnprocessableEntity)
	if f := r.problemFields(t); len(f) != 1 || f[0] != "include" {
		t.Errorf("problem fields %v", f)
	}
	e.get(t, "/buildings/types?perPage=10&include[category.types]=id", http.StatusOK)
}

// TestImplicitParentNeedsItsKey: include[a.b] alone resolves a from the
// key the caller returns (rule 2 and 3 of the query language).
func TestImplicitParentNeedsItsKey(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seed(t, e)
	item := e.get(t, "/buildings/types?fields=id&filter[id]=1&include[category.types]=id", http.StatusOK).data(t)[0]
	if v, has := item["category"]; !has || v != nil {
		t.Errorf("without category_id returned, category should be null: %v", item)
	}
	item = e.get(t, "/buildings/types?fields=id,category_id&filter[id]=1&include[category.types]=id", http.StatusOK).data(t)[0]
	if _, ok := item["category"].(map[string]any); !ok {
		t.Errorf("with category_id returned, category should resolve: %v", item)
	}
	item = e.get(t, "/buildings/types?fields=id&filter[id]=1&include[category]=id&include[category.types]=id", http.StatusOK).data(t)[0]
	if _, ok := item["category"].(map[string]any); !ok {
		t.Errorf("an explicit include needs no key in fields (rule 1): %v", item)
	}
}

func TestCustomFieldAddOnly(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seed(t, e)
	r := e.do(t, http.MethodPut, "/buildings/categories/1", e.keyA, `{"_x":1}`)
	if r.status != http.StatusOK || fmt.Sprint(r.record(t)["_x"]) != "1" {
		t.Errorf("adding a custom field alone: %d %s", r.status, r.raw)
	}
}

func TestSmallRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	req, _ := http.NewRequest(http.MethodHead, e.url+"/healthz", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("HEAD /healthz: %d", res.StatusCode)
	}
}

// TestRequestLimits: a URL or header fields past the API's limits, which
// sit below net/http's own (1 MiB for both together), are refused in the
// envelope: 414 and 431. Past net/http's, and for what it refuses before
// any handler runs (docs/api.md, "Errors"), its own plain-text answer
// stands, listed here so that the page says what a client meets.
func TestRequestLimits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	host := strings.TrimPrefix(e.url, "http://")
	send := func(raw string) (int, string, []byte) {
		t.Helper()
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(time.Minute)) //nolint:errcheck // a guard against a hang, not a measure
		go io.WriteString(conn, raw)                  //nolint:errcheck // the server may answer before it reads all
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%.60q: %v", raw, err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), body
	}
	auth := "Authorization: Bearer " + e.keyA + "\r\n"
	long := strings.Repeat("a", maxURLBytes)
	ours := []struct {
		name, raw, message string
		status             int
	}{
		{"a URL past the limit", "GET /buildings/types?_=" + long + " HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n",
			fmt.Sprintf("The URL is longer than %d bytes.", maxURLBytes), http.StatusRequestURITooLong},
		{"header fields past the limit", "GET /buildings/types HTTP/1.1\r\nHost: x\r\n" + auth + "X-Note: " + long + "\r\n\r\n",
			fmt.Sprintf("The header fields take more than %d bytes.", maxHeaderBytes), http.StatusRequestHeaderFieldsTooLarge},
	}
	for _, c := range ours {
		status, contentType, body := send(c.raw)
		want := fmt.Sprintf(`{"return":false,"status":%d,"message":%q,"errors":[]}`, c.status, c.message)
		if status != c.status || contentType != "application/json" || string(body) != want {
			t.Errorf("%s: %d %s %s, want %s", c.name, status, contentType, body, want)
		}
	}
	if status, _, body := send("GET /buildings/types?_=" + long[:maxURLBytes-200] + " HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n"); status != http.StatusOK {
		t.Errorf("a URL within the limit: %d %s", status, body)
	}
	huge := strings.Repeat("a", 2<<20)
	theirs := []struct {
		name, raw string
		status    int
	}{
		{"a 2 MB URL", "GET /buildings/types?_=" + huge + " HTTP/1.1\r\nHost: x\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge},
		{"a NUL in a header", "GET /buildings/types HTTP/1.1\r\nHost: x\r\nX-Note: a\x00b\r\n\r\n", http.StatusBadRequest},
		{"no Host", "GET /buildings/types HTTP/1.1\r\n\r\n", http.StatusBadRequest},
		{"HTTP/2.0 on a plain listener", "GET /buildings/types HTTP/2.0\r\nHost: x\r\n\r\n", http.StatusHTTPVersionNotSupported},
		{"a malformed request line", "GET /buildings/types\r\nHost: x\r\n\r\n", http.StatusBadRequest},
		{"a bad percent escape in the path", "GET /buildings/%zz HTTP/1.1\r\nHost: x\r\n\r\n", http.StatusBadRequest},
		{"two Content-Length", "POST /buildings/types HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}", http.StatusBadRequest},
		{"a Transfer-Encoding not chunked", "POST /buildings/types HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", http.StatusNotImplemented},
		{"an Expect other than 100-continue", "POST /buildings/types HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: later\r\n\r\n{}", http.StatusExpectationFailed},
	}
	for _, c := range theirs {
		status, contentType, body := send(c.raw)
		if status != c.status || contentType == "application/json" {
			t.Errorf("%s: %d %s %s, want net/http's %d", c.name, status, contentType, body, c.status)
		}
	}
}
