package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/propfin/propfin/api/openapi"
)

// FuzzRoutes is the route fuzz (docs/testing.md): every operation of the
// OpenAPI document is sent generated requests (the seed corpus: valid and
// wrong query parameters and bodies, ids of the caller's records, of
// another company's and malformed ones, no or a bad credential) against
// the real server over PostgreSQL, with company A's key where the
// operation takes one, and every answer is held to the document: never a
// 5xx, a status the operation lists, a body its schema takes (every error
// in the error envelope), never a record of company B (whose texts carry
// a marker) and never a success on B's records.
//
// go test runs the generated corpus and testdata/fuzz/FuzzRoutes (the
// cases that found bugs); PROPFIN_ROUTE_FUZZ_SEED and
// PROPFIN_ROUTE_FUZZ_ROUNDS vary and widen it, and -fuzz FuzzRoutes
// mutates it.
func FuzzRoutes(f *testing.F) {
	rf := newRouteFuzz(f)
	for _, c := range rf.corpus {
		f.Add(c.Method, c.Path, c.Query, c.Body, c.ContentType, c.Cred, c.Header)
	}
	f.Fuzz(func(t *testing.T, method, path, query, body, contentType, cred, header string) {
		if p := rf.problem(fuzzCase{Method: method, Path: path, Query: query, Body: body, ContentType: contentType,
			Cred: cred, Header: header}); p != "" {
			t.Fatal(p)
		}
	})
}

// routeFuzz is the server under the fuzz, its document and the records
// of both companies.
type routeFuzz struct {
	e         *testEnv
	doc       *openapi.Document
	raw       []byte
	schemas   *schemaSet
	templates []string
	// otherPaths are the paths of company B's records.
	otherPaths map[string]bool
	corpus     []fuzzCase
	client     *http.Client
	gen        *generator // resolves the document's references
}

// fuzzSeed is the seed of the generated corpus: PROPFIN_ROUTE_FUZZ_SEED,
// or a fixed one so that go test always sends the same requests.
func fuzzSeed(t testing.TB) (seed uint64, rounds int) {
	seed, rounds = 20241117, 1
	if s := os.Getenv("PROPFIN_ROUTE_FUZZ_SEED"); s != "" {
		if s == "random" {
			seed = uint64(time.Now().UnixNano())
		} else if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			seed = n
		} else {
			t.Fatalf("PROPFIN_ROUTE_FUZZ_SEED=%q: a number or random", s)
		}
	}
	if s := os.Getenv("PROPFIN_ROUTE_FUZZ_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("PROPFIN_ROUTE_FUZZ_ROUNDS=%q: a whole number of 1 or more", s)
		}
		rounds = n
	}
	t.Logf("route fuzz: seed %d, %d round(s) (PROPFIN_ROUTE_FUZZ_SEED=%d repeats it)", seed, rounds, seed)
	return seed, rounds
}

func newRouteFuzz(t testing.TB) *routeFuzz {
	// the failure limit would answer the bad credentials' address 429
	// before long, operator routes included, and hide what they answer
	e := setup(t, withAdminToken(testAdminToken), withMetrics(prometheus.NewRegistry(), true), withReceipts(),
		withAuthFailureLimit(1_000_000))
	rf := newRouteChecker(t, e)
	doc := rf.doc
	seed, rounds := fuzzSeed(t)
	g := newGenerator(doc, seed)
	own, other := rf.seedCompany(t, g, e.compA, e.keyA, ""), rf.seedCompany(t, g, e.compB, e.keyB, leakMarker)
	for p, ids := range other {
		// records both companies list are shared (the price indices)
		other[p] = slices.DeleteFunc(ids, func(id int64) bool { return slices.Contains(own[p], id) })
		for _, id := range other[p] {
			rf.otherPaths[p+"/"+strconv.FormatInt(id, 10)] = true
		}
	}
	spare := pools{} // records no other record refers to: for the deletes
	g.marker = ""
	rf.create(t, g, e.keyA, own, spare, 1)
	t.Logf("route fuzz: records of A in %d collections, of B in %d", len(own), len(other))
	for range rounds {
		for _, o := range docOps(doc) {
			ids := own
			if o.method == http.MethodDelete {
				ids = spare
			}
			rf.corpus = append(rf.corpus, g.cases(o, ids, other)...)
		}
	}
	t.Logf("route fuzz: %d operations, %d requests", len(docOps(doc)), len(rf.corpus))
	return rf
}

// newRouteChecker is the fuzz's judge of answers for the server of e,
// without records.
func newRouteChecker(t testing.TB, e *testEnv) *routeFuzz {
	doc, raw := fetchDocument(t, e)
	schemas, err := newSchemaSet(raw)
	if err != nil {
		t.Fatal(err)
	}
	rf := &routeFuzz{e: e, doc: doc, raw: raw, schemas: schemas, otherPaths: map[string]bool{},
		gen: newGenerator(doc, 0), client: &http.Client{Timeout: time.Minute,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	for path := range doc.Paths {
		rf.templates = append(rf.templates, path)
	}
	sort.Strings(rf.templates)
	return rf
}

// seedCompany gives a company records of every resource it can: a ledger
// written in SQL (an invoice with lines, a posted payment and what they
// refer to), then records created through the API from the document,
// with marker in their texts; and returns the ids of all of them.
func (rf *routeFuzz) seedCompany(t testing.TB, g *generator, companyID int64, key, marker string) pools {
	seedFuzzLedger(t, rf.e.srv.store, companyID)
	if marker != "" {
		for _, table := range []string{"persons", "businesses"} {
			rf.e.exec(t, `UPDATE `+table+` SET name = name || ' `+marker+`' WHERE company_id = $1`, companyID)
		}
		rf.e.exec(t, `UPDATE invoices SET description = description || ' `+marker+`' WHERE company_id = $1`, companyID)
	}
	ids := rf.discover(t, g, key)
	g.marker = marker
	rf.create(t, g, key, ids, ids, 2)
	return rf.discover(t, g, key)
}

// discover lists every collection of the document with key, the
// sub-collections under each parent found, and returns the ids.
func (rf *routeFuzz) discover(t testing.TB, g *generator, key string) pools {
	ids := pools{}
	for pass := 0; pass < 3; pass++ {
		for _, o := range docOps(rf.doc) {
			if o.method != http.MethodGet || g.listedSchema(o.op) == "" {
				continue
			}
			path, ok := g.fillPath(o, ids, nil, ownPath)
			if !ok || strings.Contains(path, "987654321") {
				continue
			}
			status, answer := rf.send(t, http.MethodGet, path, "perPage=100&fields=id", "", "", "Bearer "+key, "")
			var page struct {
				Data []struct {
					ID int64 `json:"id"`
				} `json:"data"`
			}
			if status != http.StatusOK || json.Unmarshal(answer, &page) != nil {
				continue
			}
			for _, r := range page.Data {
				ids.add(path, r.ID)
			}
		}
	}
	return ids
}

// create makes records of every resource through the API with key, in as
// many passes as references need (a contract after its persons), up to
// perCollection new ones in each collection, referring to records of refs,
// and records their ids in into.
func (rf *routeFuzz) create(t testing.TB, g *generator, key string, refs, into pools, perCollection int) {
	made := map[string]int{}
	for pass := range 4 {
		progress := false
		for _, o := range docOps(rf.doc) {
			body, _ := g.bodySchema(o.op)
			if o.method != http.MethodPost || body == nil || !strings.HasSuffix(body.Ref, createSuffix) {
				continue
			}
			path, ok := g.fillPath(o, refs, nil, ownPath)
			if !ok || strings.Contains(path, "987654321") || made[path] >= perCollection {
				continue
			}
			raw := g.encode(g.valid(body, refs, pass%2 == 1, 0))
			status, answer := rf.send(t, http.MethodPost, path, "", raw, "application/json", "Bearer "+key, "")
			var created struct {
				Data struct {
					ID int64 `json:"id"`
				} `json:"data"`
			}
			if status == http.StatusCreated && json.Unmarshal(answer, &created) == nil && created.Data.ID > 0 {
				into.add(path, created.Data.ID)
				made[path]++
				progress = true
			}
		}
		if !progress {
			return
		}
	}
}

// send makes one request and returns its status and body.
func (rf *routeFuzz) send(t testing.TB, method, path, query, body, contentType, auth, header string) (int, []byte) {
	t.Helper()
	res, raw, err := rf.do(method, path, query, body, contentType, auth, header)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return res.StatusCode, raw
}

func (rf *routeFuzz) do(method, path, query, body, contentType, auth, header string) (*http.Response, []byte, error) {
	target := rf.e.url + path
	if query != "" {
		target += "?" + query
	}
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if name, value, ok := strings.Cut(header, ": "); ok && name != "" {
		req.Header[http.CanonicalHeaderKey(name)] = []string{value}
	}
	res, err := rf.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res, raw, err
}

// auth is the Authorization header of a credential.
func (rf *routeFuzz) auth(cred string) string {
	switch cred {
	case credKey:
		return "Bearer " + rf.e.keyA
	case credAdmin:
		return "Bearer " + testAdminToken
	case credBad:
		return "Bearer pf_1_" + strings.Repeat("0", 64)
	}
	return ""
}

// problem sends one case and holds the answer to the document: "" when
// it holds, else what is wrong.
func (rf *routeFuzz) problem(c fuzzCase) string {
	if !strings.HasPrefix(c.Path, "/") || !validMethod.MatchString(c.Method) || c.Method == http.MethodConnect {
		return "" // not a request a client can send to a path
	}
	if _, err := url.ParseRequestURI(rf.e.url + c.Path); err != nil || strings.ContainsAny(c.Path, "?#") ||
		strings.ContainsFunc(c.Query, func(r rune) bool { return r <= ' ' || r >= 0x7f || r == '#' }) {
		return "" // the client would send it as it is, and net/http refuse the request line (400) before any handler
	}
	res, raw, err := rf.do(c.Method, c.Path, c.Query, c.Body, c.ContentType, rf.auth(c.Cred), c.Header)
	if err != nil {
		if strings.Contains(err.Error(), "invalid header") || strings.Contains(err.Error(), "invalid method") {
			return "" // the client refuses to send it
		}
		return fmt.Sprintf("%s: %v", c, err)
	}
	what := fmt.Sprintf("%s -> %d %.600s", c, res.StatusCode, raw)
	sent := c.Path + c.Query + c.Body + c.Header
	switch {
	case res.StatusCode >= 500:
		return "a server error: " + what
	case bytes.Contains(raw, []byte(leakMarker)) && !strings.Contains(sent, leakMarker):
		return "company B's data in company A's answer: " + what
	case c.Cred == credKey && res.StatusCode < 300 && rf.isOther(c.Path):
		return "a success on company B's record: " + what
	case c.Method == http.MethodOptions: // a CORS preflight, on every route
		if res.StatusCode == http.StatusNoContent {
			return ""
		}
		return rf.envelopeProblem(what, res, raw, "#/components/schemas/Error")
	}
	template, o := rf.operation(c.Method, c.Path)
	if o == nil {
		if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed {
			return "a path the document does not have: " + what
		}
		if c.Method == http.MethodHead {
			return ""
		}
		return rf.envelopeProblem(what, res, raw, "#/components/schemas/Error")
	}
	status := strconv.Itoa(res.StatusCode)
	r, ok := o.Responses[status]
	switch {
	case !ok:
		return fmt.Sprintf("the answer's status is not one the document lists for %s %s: %s", c.Method, template, what)
	case c.Method == http.MethodHead:
		return ""
	}
	pointer := "#/paths/" + escapePointer(template) + "/" + strings.ToLower(c.Method) + "/responses/" + status
	if r.Ref != "" {
		pointer = r.Ref
		r = rf.gen.response(r)
	}
	switch {
	case r.Content["application/json"] != nil:
		return rf.envelopeProblem(what, res, raw, pointer+"/content/application~1json/schema")
	case r.Content["text/html"] != nil && !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html"):
		return "an answer that is not the HTML the document says: " + what
	}
	return ""
}

var validMethod = regexp.MustCompile(`^[A-Z]{3,7}$`)

func (c fuzzCase) String() string {
	body := c.Body
	if len(body) > 300 {
		body = body[:300] + fmt.Sprintf("... (%d bytes)", len(c.Body))
	}
	query := c.Query
	if len(query) > 300 {
		query = query[:300] + "..."
	}
	return fmt.Sprintf("%s %s?%s [%s, %s, %s] %q", c.Method, c.Path, query, c.Cred, c.ContentType, c.Header, body)
}

// envelopeProblem holds a JSON answer to the schema at pointer (a
// fragment of the document).
func (rf *routeFuzz) envelopeProblem(what string, res *http.Response, raw []byte, pointer string) string {
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		return fmt.Sprintf("Content-Type %q, want application/json: %s", ct, what)
	}
	sch, err := rf.schemas.compile(uriFragment(pointer))
	if err != nil {
		return fmt.Sprintf("compiling %s: %v", pointer, err)
	}
	inst, err := decodeInstance(raw)
	if err != nil {
		return fmt.Sprintf("the answer is not JSON: %v: %s", err, what)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Sprintf("the answer does not fit the document (%s): %#v\n%s", pointer, err, what)
	}
	if res.StatusCode >= 400 {
		var env errorBody
		if json.Unmarshal(raw, &env) != nil || env.Status != res.StatusCode || env.Message == "" {
			return "an error envelope whose status is not the answer's, or without message: " + what
		}
	}
	return ""
}

// isOther reports whether path is under one of company B's records.
func (rf *routeFuzz) isOther(path string) bool {
	segs := strings.Split(path, "/")
	for i := 2; i <= len(segs); i++ {
		if rf.otherPaths[strings.Join(segs[:i], "/")] {
			return true
		}
	}
	return false
}

// operation finds the document's operation a request reaches
// (matchOperation).
func (rf *routeFuzz) operation(method, path string) (string, *openapi.Operation) {
	return matchOperation(rf.doc, rf.templates, method, path)
}

// matchOperation finds the operation of doc a request reaches, as the
// router would: among the paths (templates, doc's paths sorted) the
// request's path matches that have its method, static names before
// parameters (HEAD is GET's where the path has no HEAD of its own). No
// operation: the router answers 404 or 405.
func matchOperation(doc *openapi.Document, templates []string, method, path string) (string, *openapi.Operation) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	best, bestScore := "", ""
	var found *openapi.Operation
	for _, tmpl := range templates {
		parts := strings.Split(strings.TrimPrefix(tmpl, "/"), "/")
		if len(parts) != len(segs) {
			continue
		}
		score, ok := "", true
		for i, p := range parts {
			switch {
			case strings.HasPrefix(p, "{"):
				ok = ok && segs[i] != ""
				score += "1"
			case p == segs[i]:
				score += "0"
			default:
				ok = false
			}
		}
		item := doc.Paths[tmpl]
		op := item.Operation(method)
		if op == nil && method == http.MethodHead {
			op = item.Get
		}
		if ok && op != nil && (best == "" || score < bestScore) {
			best, bestScore, found = tmpl, score, op
		}
	}
	return best, found
}

// decodeInstance reads a JSON answer for the schema validator.
func decodeInstance(raw []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// uriFragment percent-encodes what a URI fragment cannot hold of a JSON
// pointer (the braces of path parameters).
func uriFragment(pointer string) string {
	return strings.NewReplacer("{", "%7B", "}", "%7D", " ", "%20").Replace(pointer)
}

// TestRouteFuzzJudge: the fuzz's judge finds each kind of wrong answer,
// from a server that gives them, and passes a right one.
func TestRouteFuzzJudge(t *testing.T) {
	t.Parallel()
	e := setup(t, withReceipts())
	answers := map[string]struct {
		status      int
		contentType string
		body        string
	}{
		"/buildings/types":          {500, "application/json", `{"return":false,"status":500,"message":"Internal error.","errors":[]}`},
		"/buildings/categories":     {200, "application/json", `{"data":[{"description":"` + leakMarker + `"}]}`},
		"/buildings/constructors/5": {200, "application/json", `{"return":true,"status":200,"data":{"id":5}}`},
		"/persons":                  {418, "application/json", `{"return":false,"status":418,"message":"Teapot.","errors":[]}`},
		"/persons/7":                {404, "text/plain", "not found"},
		"/tags":                     {200, "application/json", `{"return":true,"status":200,"data":[]}`},
		"/tags/4":                   {404, "application/json", `{"return":false,"status":409,"message":"Gone.","errors":[]}`},
		"/nowhere":                  {200, "application/json", `{}`},
		"/receipts/abc":             {404, "application/json", `{"return":false,"status":404,"message":"No.","errors":[]}`},
		"/tags/3":                   {404, "application/json", `{"return":false,"status":404,"message":"Record 3 not found.","errors":[]}`},
	}
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[r.URL.Path]
		if !ok {
			t.Errorf("the judge asked for %s", r.URL.Path)
			return
		}
		w.Header().Set("Content-Type", a.contentType)
		w.WriteHeader(a.status)
		io.WriteString(w, a.body) //nolint:errcheck // a test server
	}))
	t.Cleanup(fake.Close)
	rf := newRouteChecker(t, e) // the document of the real server, the answers of the fake
	served := *e
	served.url = fake.URL
	rf.e = &served
	rf.otherPaths["/buildings/constructors/5"] = true
	for path, want := range map[string]string{
		"/buildings/types":          "a server error",
		"/buildings/categories":     "company B's data in company A's answer",
		"/buildings/constructors/5": "a success on company B's record",
		"/persons":                  "the answer's status is not one the document lists",
		"/persons/7":                `Content-Type "text/plain", want application/json`,
		"/tags":                     "the answer does not fit the document",
		"/tags/4":                   "an error envelope whose status is not the answer's",
		"/nowhere":                  "a path the document does not have",
		"/receipts/abc":             "an answer that is not the HTML the document says",
		"/tags/3":                   "",
	} {
		got := rf.problem(fuzzCase{Method: http.MethodGet, Path: path, Cred: credKey})
		if (want == "") != (got == "") || !strings.HasPrefix(got, want) {
			t.Errorf("GET %s: judged %q, want %q", path, got, want)
		}
	}
}
