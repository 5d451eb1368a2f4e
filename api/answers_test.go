package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/propfin/propfin/api/openapi"
)

// Every answer a test receives through testEnv.do is held to the OpenAPI
// document of the server that gave it (answerChecker.problem): a status
// the operation does not list, or a body its schema refuses, fails the
// test. The document of each route table is built and compiled once per
// test binary, whatever the number of servers that share it.

// answerChecker judges answers by one document.
type answerChecker struct {
	doc       *openapi.Document
	templates []string

	mu      sync.Mutex // the compiler and its cache are not safe for concurrent use
	schemas *schemaSet
}

// answerCheckers are the checkers built, by route table (its methods and
// patterns).
var answerCheckers = struct {
	sync.Mutex
	byTable map[string]*answerChecker
}{byTable: map[string]*answerChecker{}}

// answerCheckerOf is the checker of a server's document, built the first
// time a server with its route table asks.
func answerCheckerOf(s *Server) (*answerChecker, error) {
	entries := s.routeTable().entries
	keys := make([]string, len(entries))
	for i, e := range entries {
		keys[i] = e.method + " " + e.pattern
	}
	sort.Strings(keys)
	key := strings.Join(keys, "\n")
	answerCheckers.Lock()
	defer answerCheckers.Unlock()
	if c := answerCheckers.byTable[key]; c != nil {
		return c, nil
	}
	doc, err := buildDocument(entries, s.store.Registry())
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	c, err := newAnswerChecker(raw)
	if err != nil {
		return nil, err
	}
	answerCheckers.byTable[key] = c
	return c, nil
}

// newAnswerChecker judges by the document raw.
func newAnswerChecker(raw []byte) (*answerChecker, error) {
	var doc openapi.Document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	schemas, err := newSchemaSet(raw)
	if err != nil {
		return nil, err
	}
	c := &answerChecker{doc: &doc, schemas: schemas}
	for path := range doc.Paths {
		c.templates = append(c.templates, path)
	}
	sort.Strings(c.templates)
	return c, nil
}

// problem holds one answer to the document: "" when it fits, else what
// does not. path is the request's, without its query.
func (c *answerChecker) problem(method, path string, status int, header http.Header, raw []byte) string {
	if method == http.MethodOptions && status == http.StatusNoContent { // a CORS preflight, on every route
		return ""
	}
	template, op := matchOperation(c.doc, c.templates, method, path)
	if op == nil || status == http.StatusMethodNotAllowed || method == http.MethodOptions {
		// the router's own answers: no such route, no such method (a
		// route a configuration leaves off is one)
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed && method != http.MethodOptions {
			return fmt.Sprintf("%d on a path the document does not have", status)
		}
		return c.fits(method, header, raw, "#/components/schemas/Error")
	}
	r, ok := op.Responses[strconv.Itoa(status)]
	if !ok {
		return fmt.Sprintf("status %d is not one the document lists for %s %s", status, method, template)
	}
	pointer := "#/paths/" + escapePointer(template) + "/" + strings.ToLower(method) + "/responses/" + strconv.Itoa(status)
	if r.Ref != "" {
		pointer = r.Ref
		r = c.doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
	}
	switch {
	case r == nil:
		return "the response " + pointer + " is not in the document"
	case r.Content["application/json"] != nil:
		return c.fits(method, header, raw, pointer+"/content/application~1json/schema")
	case r.Content["text/html"] != nil && method != http.MethodHead && !strings.HasPrefix(header.Get("Content-Type"), "text/html"):
		return fmt.Sprintf("Content-Type %q, where the document says text/html", header.Get("Content-Type"))
	}
	return ""
}

// fits holds a JSON answer to the schema at pointer (a fragment of the
// document); a HEAD's answer has no body to hold.
func (c *answerChecker) fits(method string, header http.Header, raw []byte, pointer string) string {
	if method == http.MethodHead {
		return ""
	}
	if ct := header.Get("Content-Type"); ct != "application/json" {
		return fmt.Sprintf("Content-Type %q, where the document says application/json", ct)
	}
	c.mu.Lock()
	sch, err := c.schemas.compile(uriFragment(pointer))
	c.mu.Unlock()
	if err != nil {
		return fmt.Sprintf("compiling %s: %v", pointer, err)
	}
	inst, err := decodeInstance(raw)
	if err != nil {
		return fmt.Sprintf("the answer is not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Sprintf("the body does not fit %s: %v", pointer, err)
	}
	return ""
}

// TestAnswerChecker: the checker every test's answers go through refuses
// a body of the wrong shape (a row of a list whose column has the wrong
// type, a record where the page is due), a status the operation does not
// list, a route the document does not have and a body of another type,
// and takes the answers the document describes.
func TestAnswerChecker(t *testing.T) {
	t.Parallel()
	e := setup(t)
	page := func(rows string) string {
		return `{"return":true,"status":200,"current_page":1,"first_page_url":"/buildings/types?page=1",` +
			`"next_page_url":null,"prev_page_url":null,"path":"/buildings/types","per_page":10,"from":1,"to":1,"data":[` +
			rows + `]}`
	}
	jsonType := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		name, method, path string
		status             int
		header             http.Header
		body, want         string
	}{
		{"a page", http.MethodGet, "/buildings/types", 200, jsonType, page(`{"id":1,"description":"Casa","category_id":2}`), ""},
		{"a row's column of the wrong type", http.MethodGet, "/buildings/types", 200, jsonType,
			page(`{"id":1,"description":5}`), "the body does not fit"},
		{"an id that is text", http.MethodGet, "/buildings/types", 200, jsonType, page(`{"id":"1"}`), "the body does not fit"},
		{"a record where a page is due", http.MethodGet, "/buildings/types", 200, jsonType,
			`{"return":true,"status":200,"data":{"id":1}}`, "the body does not fit"},
		{"an unknown field in a row", http.MethodGet, "/buildings/types", 200, jsonType, page(`{"id":1,"zz":1}`), "the body does not fit"},
		{"a status not listed", http.MethodGet, "/buildings/types", 201, jsonType, page(""), "status 201 is not one the document lists"},
		{"an error outside the envelope", http.MethodGet, "/buildings/types/7", 404, jsonType, `{"error":"no"}`, "the body does not fit"},
		{"the error envelope", http.MethodGet, "/buildings/types/7", 404, jsonType,
			`{"return":false,"status":404,"message":"Record 7 not found.","errors":[]}`, ""},
		{"a path the document does not have", http.MethodGet, "/nowhere", 200, jsonType, `{}`, "on a path the document does not have"},
		{"another content type", http.MethodGet, "/buildings/types/7", 404, http.Header{"Content-Type": {"text/plain"}},
			"no", `Content-Type "text/plain"`},
		{"a write to a read-only resource", http.MethodPost, "/financial/reminders", 405, jsonType,
			`{"return":false,"status":405,"message":"The POST method is not supported for this route.","errors":[]}`, ""},
		{"a HEAD", http.MethodHead, "/buildings/types", 200, jsonType, "", ""},
	} {
		got := e.answers.problem(c.method, c.path, c.status, c.header, []byte(c.body))
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
