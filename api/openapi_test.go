package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/propfin/propfin/api/openapi"
)

// withEveryRoute turns on every route a configuration can add: the
// operator routes with the metrics and the dashboard, and receipt links.
func withEveryRoute(t *testing.T) []envOption {
	return []envOption{withAdminToken(testAdminToken), withMetrics(prometheus.NewRegistry(), true), withDashboard(t),
		withReceipts()}
}

// fetchDocument reads GET /openapi.json without a key.
func fetchDocument(t testing.TB, e *testEnv) (*openapi.Document, []byte) {
	t.Helper()
	res, err := http.Get(e.url + OpenAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: %d %s\n%.500s", OpenAPIPath, res.StatusCode, res.Header.Get("Content-Type"), raw)
	}
	var doc openapi.Document
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("the document does not decode: %v", err)
	}
	return &doc, raw
}

// howToDescribe is what a failure of the route checks tells the reader.
const howToDescribe = "every route is registered with its operation (router.Handle(method, pattern, operation{...}, h)); " +
	"see docs/api.md, \"OpenAPI\""

// TestOpenAPIMatchesRoutes: the document served at /openapi.json holds
// exactly the routes the server serves, with every configuration-dependent
// route on.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t, withEveryRoute(t)...)
	doc, _ := fetchDocument(t, e)
	table := e.srv.routeTable()
	if len(table.entries) < 250 {
		t.Fatalf("the route table has %d routes; expected every resource's", len(table.entries))
	}
	for _, problem := range routeMismatches(doc, table.entries, e.handler) {
		t.Error(problem)
	}
}

// TestOpenAPIFollowsConfiguration: routes a configuration leaves off are
// not in the document.
func TestOpenAPIFollowsConfiguration(t *testing.T) {
	t.Parallel()
	e := setup(t)
	doc, _ := fetchDocument(t, e)
	for path, method := range map[string]string{"/metrics": "GET", "/monitoring/{path}": "GET", "/financial/indices": "PUT"} {
		if item := doc.Paths[path]; item != nil && item.Operation(method) != nil {
			t.Errorf("%s %s is in the document of a server that does not serve it", method, path)
		}
	}
	for _, problem := range routeMismatches(doc, e.srv.routeTable().entries, e.handler) {
		t.Error(problem)
	}
}

// routeMismatches compares a document with a route table and the handler
// serving it: a route of the table missing from the document, and an
// operation of the document the handler does not route (the router's own
// 404 or 405 for it).
func routeMismatches(doc *openapi.Document, entries []routeEntry, h http.Handler) []string {
	var problems []string
	inTable := map[string]bool{}
	for _, e := range entries {
		path := openapiPath(e.pattern)
		inTable[e.method+" "+path] = true
		if item := doc.Paths[path]; item == nil || item.Operation(e.method) == nil {
			problems = append(problems, fmt.Sprintf("%s %s is served but missing from %s: %s", e.method, path, OpenAPIPath, howToDescribe))
		}
	}
	for path, item := range doc.Paths {
		for _, method := range item.Operations() {
			if !inTable[method+" "+path] {
				problems = append(problems, fmt.Sprintf("%s %s is in %s but not in the route table", method, path, OpenAPIPath))
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(method, concretePath(path), nil))
			if routerRefusal(rec) {
				problems = append(problems, fmt.Sprintf("%s %s is in %s but the server does not route it: %d %s",
					method, path, OpenAPIPath, rec.Code, rec.Body.String()))
			}
		}
	}
	sort.Strings(problems)
	return problems
}

// concretePath fills a document path's parameters with an id.
func concretePath(path string) string {
	return regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(path, "7")
}

// routerRefusal reports whether an answer is the router's own 404 (no
// such route) or 405 (no such method), rather than a handler's.
func routerRefusal(rec *httptest.ResponseRecorder) bool {
	var body errorBody
	if json.Unmarshal(rec.Body.Bytes(), &body) != nil {
		return false
	}
	return (rec.Code == http.StatusNotFound && strings.HasPrefix(body.Message, "The route ")) ||
		(rec.Code == http.StatusMethodNotAllowed && strings.HasSuffix(body.Message, "is not supported for this route."))
}

// TestRouteMismatchesFails: the comparison finds a route missing from the
// document and an operation that names no route.
func TestRouteMismatchesFails(t *testing.T) {
	t.Parallel()
	e := setup(t)
	doc, _ := fetchDocument(t, e)
	entries := e.srv.routeTable().entries
	extra := append(slices.Clone(entries), routeEntry{method: http.MethodPost, pattern: "/financial/fooBatch",
		segments: []string{"financial", "fooBatch"}})
	doc.Paths["/financial/fooBatch/{id}/things"] = &openapi.PathItem{Get: &openapi.Operation{Summary: "x"}}
	got := strings.Join(routeMismatches(doc, extra, e.handler), "\n")
	for _, want := range []string{
		"POST /financial/fooBatch is served but missing from /openapi.json: " + howToDescribe,
		"GET /financial/fooBatch/{id}/things is in /openapi.json but not in the route table",
		"GET /financial/fooBatch/{id}/things is in /openapi.json but the server does not route it: 404",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("mismatches do not say %q:\n%s", want, got)
		}
	}
}

// TestOpenAPIDocument: the document is OpenAPI 3.1, every operation is
// described and identified once, every path parameter declared, every
// reference resolves, every error answer is the error envelope, and every
// schema is valid JSON Schema 2020-12.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	e := setup(t, withEveryRoute(t)...)
	doc, raw := fetchDocument(t, e)
	if doc.OpenAPI != "3.1.0" || doc.Info.Title == "" || doc.Info.Version == "" {
		t.Errorf("openapi %q, info %+v", doc.OpenAPI, doc.Info)
	}
	ids := map[string]string{}
	for path, item := range doc.Paths {
		vars := regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1)
		for _, method := range item.Operations() {
			op := item.Operation(method)
			where := method + " " + path
			checkOperation(t, where, op, vars)
			if prev, dup := ids[op.OperationID]; dup {
				t.Errorf("%s: operationId %q is also %s's", where, op.OperationID, prev)
			}
			ids[op.OperationID] = where
		}
	}
	checkRefs(t, raw)
	compileSchemas(t, raw)
}

// checkOperation holds one operation to the document's rules.
func checkOperation(t *testing.T, where string, op *openapi.Operation, vars [][]string) {
	t.Helper()
	if op.Summary == "" || op.Description == "" || op.OperationID == "" || len(op.Tags) != 1 || op.Tags[0] == "" {
		t.Errorf("%s: summary %q, description %q, id %q, tags %v", where, op.Summary, op.Description, op.OperationID, op.Tags)
	}
	if op.Security == nil {
		t.Errorf("%s: no security requirement (public operations say [])", where)
	}
	declared := map[string]bool{}
	for _, p := range op.Parameters {
		if p.In == "path" {
			declared[p.Name] = true
			if !p.Required {
				t.Errorf("%s: path parameter %s is not required", where, p.Name)
			}
		}
	}
	for _, v := range vars {
		if !declared[v[1]] {
			t.Errorf("%s: path parameter %s is not declared", where, v[1])
		}
		delete(declared, v[1])
	}
	if len(declared) > 0 {
		t.Errorf("%s: declares path parameters the path has not: %v", where, declared)
	}
	if len(op.Responses) == 0 {
		t.Errorf("%s: no responses", where)
	}
	for status, r := range op.Responses {
		if status >= "400" && r.Ref == "" && r.Content["text/html"] == nil {
			t.Errorf("%s: %s answer is not the shared error envelope", where, status)
		}
	}
}

// checkRefs: every $ref of the document points at something in it.
func checkRefs(t *testing.T, raw []byte) {
	t.Helper()
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	for _, ref := range regexp.MustCompile(`"\$ref":"([^"]+)"`).FindAllSubmatch(raw, -1) {
		pointer, ok := strings.CutPrefix(string(ref[1]), "#/")
		if !ok {
			t.Errorf("$ref %s is not local", ref[1])
			continue
		}
		node := tree
		for _, step := range strings.Split(pointer, "/") {
			m, isMap := node.(map[string]any)
			if !isMap {
				node = nil
				break
			}
			node = m[strings.ReplaceAll(strings.ReplaceAll(step, "~1", "/"), "~0", "~")]
		}
		if node == nil {
			t.Errorf("$ref %s resolves to nothing", ref[1])
		}
	}
}

// compileSchemas compiles every schema of the document as JSON Schema
// 2020-12 (the compiler checks each against the metaschema).
func compileSchemas(t *testing.T, raw []byte) *schemaSet {
	t.Helper()
	set, err := newSchemaSet(raw)
	if err != nil {
		t.Fatal(err)
	}
	var tree struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	for name := range tree.Components.Schemas {
		if _, err := set.compile("#/components/schemas/" + escapePointer(name)); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
	return set
}

// schemaSet compiles schemas of one document, by location.
type schemaSet struct {
	compiler *jsonschema.Compiler
	cache    map[string]*jsonschema.Schema
}

// documentURL is the address the document is compiled under.
const documentURL = "https://propfin.invalid/openapi.json"

func newSchemaSet(raw []byte) (*schemaSet, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(documentURL, doc); err != nil {
		return nil, err
	}
	return &schemaSet{compiler: c, cache: map[string]*jsonschema.Schema{}}, nil
}

// compile compiles the schema at a fragment of the document (#/...).
func (s *schemaSet) compile(fragment string) (*jsonschema.Schema, error) {
	if sch, ok := s.cache[fragment]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(documentURL + fragment)
	if err != nil {
		return nil, err
	}
	s.cache[fragment] = sch
	return sch, nil
}

// escapePointer escapes a name for a JSON pointer.
func escapePointer(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// TestOpenAPIShape holds the document to what generators and validators
// read (docs/api.md, "Conventions of the document").
func TestOpenAPIShape(t *testing.T) {
	t.Parallel()
	e := setup(t, withEveryRoute(t)...)
	doc, raw := fetchDocument(t, e)
	reg := e.srv.store.Registry()
	schema := func(name string) *openapi.Schema { return doc.Components.Schemas[name] }
	op := func(method, path string) *openapi.Operation {
		if item := doc.Paths[path]; item != nil {
			return item.Operation(method)
		}
		return nil
	}
	param := func(o *openapi.Operation, name string) *openapi.Parameter {
		for _, p := range o.Parameters {
			if p.Name == name {
				return p
			}
		}
		return nil
	}
	for _, c := range []struct {
		name  string
		check func(t *testing.T)
	}{
		{"info", func(t *testing.T) {
			if doc.Info.Version != "1.0.0" || doc.Info.Build == "" || doc.Info.License == nil ||
				doc.Info.License.Name != "Proprietary" || doc.Info.License.Identifier != "LicenseRef-propfin" {
				t.Errorf("info %+v, license %+v", doc.Info, doc.Info.License)
			}
		}},
		{"every list's rows are its resource's records", func(t *testing.T) {
			for _, rt := range resourceRoutes {
				o := op("GET", openapiPath(rt.path))
				s := o.Responses["200"].Content["application/json"].Schema
				page := schema(rt.resource + pageSuffix)
				if s.Ref != openapi.SchemaRef(rt.resource+pageSuffix) || page == nil || len(page.AllOf) > 0 ||
					page.Properties["data"].Items.Ref != openapi.SchemaRef(rt.resource) || page.Properties["next_page_url"] == nil {
					t.Errorf("GET %s: 200 %+v, page %+v", rt.path, s, page)
				}
			}
		}},
		{"every operator form of a filterable column is a parameter", func(t *testing.T) {
			for _, rt := range resourceRoutes {
				o := op("GET", openapiPath(rt.path))
				for _, col := range reg.MustResource(rt.resource).Columns {
					if !col.Filterable {
						continue
					}
					for _, fo := range scalarOperators {
						name := "filter[" + col.Name + "|" + fo.name + "]"
						if want := !col.Type.IsArray() || fo.noValue; (param(o, name) != nil) != want {
							t.Errorf("GET %s: %s declared: %v, want %v", rt.path, name, !want, want)
						}
					}
				}
			}
			if p := param(op("GET", "/invoices"), "filter[due_date|b]"); p == nil || p.Schema.Type != "string" ||
				!strings.Contains(p.Description, "`low|high`") {
				t.Errorf("filter[due_date|b]: %+v", p)
			}
		}},
		{"include and sort are strings", func(t *testing.T) {
			o := op("GET", "/buildings/types")
			inc, sortBy := param(o, "include[category]"), param(o, "sort")
			cols := schema("building_categories" + columnsSuffix)
			if inc == nil || inc.Schema.Ref != openapi.SchemaRef("building_categories"+columnsSuffix) || cols == nil ||
				cols.Type != "string" || !strings.Contains(cols.Description, "empty for every column") {
				t.Errorf("include[category] %+v, its columns %+v", inc, cols)
			}
			if sortBy == nil || sortBy.Schema.Type != "string" || !strings.Contains(sortBy.Description, "`description`") ||
				!regexp.MustCompile(sortBy.Schema.Pattern).MatchString("-description,id") ||
				regexp.MustCompile(sortBy.Schema.Pattern).MatchString("zz") {
				t.Errorf("sort %+v", sortBy)
			}
		}},
		{"a reference column names its records", func(t *testing.T) {
			if p := schema("building_types").Properties["category_id"]; p.AnyOf == nil && p.Ref != openapi.SchemaRef("building_categories.id") {
				t.Errorf("building_types.category_id: %+v", p)
			}
			if id := schema("building_categories.id"); id == nil || id.Type != "integer" ||
				!strings.Contains(id.Description, "The id of a `building_categories` row") {
				t.Errorf("building_categories.id: %+v", id)
			}
		}},
		{"no extension keyword and no multipleOf in a schema", func(t *testing.T) {
			var tree any
			if err := json.Unmarshal(raw, &tree); err != nil {
				t.Fatal(err)
			}
			for _, where := range schemaKeywords(tree, "", false, false) {
				t.Error(where)
			}
		}},
		{"read-only resources list their reads alone", func(t *testing.T) {
			for _, rt := range resourceRoutes {
				if !reg.MustResource(rt.resource).ReadOnly {
					continue
				}
				path := openapiPath(rt.path)
				// an invoice's parts are read here and paid and undone by
				// operations of their own (api/invoices_payments.go), never put
				paidByOperations := rt.path == "/invoices/:invoice/payments"
				if (!paidByOperations && (op("POST", path) != nil || op("DELETE", path+"/{id}") != nil)) ||
					op("PUT", path+"/{id}") != nil || op("GET", path) == nil || op("GET", path+"/{id}") == nil {
					t.Errorf("%s: the read-only resource's operations are not its reads alone", rt.path)
				}
			}
		}},
		{"no two paths differ only by their parameters' names", func(t *testing.T) {
			seen := map[string]string{}
			for path := range doc.Paths {
				shape := regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(path, "{}")
				if other, ok := seen[shape]; ok {
					t.Errorf("%s and %s are one path with two parameter names", other, path)
				}
				seen[shape] = path
			}
		}},
		{"every operation answers a 2xx, summaries are plain, tags described", func(t *testing.T) {
			redirects := map[string]bool{"GET /monitoring": true, "HEAD /monitoring": true, "POST /operator/retry": true}
			for path, item := range doc.Paths {
				for _, m := range item.Operations() {
					o := item.Operation(m)
					ok := slices.ContainsFunc(slices.Collect(maps.Keys(o.Responses)), func(s string) bool { return s[0] == '2' })
					if ok == redirects[m+" "+path] {
						t.Errorf("%s %s: a 2xx among %v: %v", m, path, slices.Collect(maps.Keys(o.Responses)), ok)
					}
					if strings.Contains(o.Summary, "`") {
						t.Errorf("%s %s: summary %q holds Markdown", m, path, o.Summary)
					}
				}
			}
			for _, tag := range doc.Tags {
				if tag.Description == "" {
					t.Errorf("tag %s has no description", tag.Name)
				}
			}
		}},
		{"the reference routes say how they fail", func(t *testing.T) {
			for _, c := range []struct{ method, path, status string }{
				{"GET", "/openapi.json", "500"}, {"GET", "/openapi.json", "414"}, {"GET", "/readyz", "503"},
				{"GET", "/healthz", "431"}, {"GET", "/docs", "414"}, {"GET", "/docs/{file}", "404"},
			} {
				if op(c.method, c.path).Responses[c.status] == nil {
					t.Errorf("%s %s does not list %s", c.method, c.path, c.status)
				}
			}
			if s := op("GET", "/openapi.json").Responses["200"].Content["application/json"].Schema; s.Properties["paths"] == nil {
				t.Errorf("/openapi.json's schema: %+v", s)
			}
		}},
		{"response headers", func(t *testing.T) {
			for _, name := range []string{"X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "Retry-After", "Location"} {
				if doc.Components.Headers[name] == nil {
					t.Errorf("components.headers has no %s", name)
				}
			}
			ref := func(name string) string { return "#/components/headers/" + name }
			for _, c := range []struct {
				r      *openapi.Response
				what   string
				header string
			}{
				{doc.Components.Responses["TooManyRequests"], "429", "Retry-After"},
				{doc.Components.Responses["Unavailable"], "503", "Retry-After"},
				{doc.Components.Responses["NotFound"], "404", "X-Request-Id"},
				{op("POST", "/persons").Responses["201"], "a create's 201", "Location"},
				{op("POST", "/persons").Responses["201"], "a create's 201", "X-RateLimit-Remaining"},
				{op("GET", "/persons").Responses["200"], "a list's 200", "X-RateLimit-Limit"},
				{op("GET", "/healthz").Responses["200"], "/healthz's 200", "X-Request-Id"},
			} {
				if h := c.r.Headers[c.header]; h == nil || h.Ref != ref(c.header) {
					t.Errorf("%s: %s is not the shared header: %+v", c.what, c.header, h)
				}
			}
			if h := op("GET", "/healthz").Responses["200"].Headers["X-RateLimit-Limit"]; h != nil {
				t.Errorf("/healthz, without a key, says it carries the rate limit")
			}
			// refused before the key is read: the server sends no rate limit's headers
			for _, name := range []string{"Unauthenticated", "URITooLong", "HeadersTooLarge"} {
				if h := doc.Components.Responses[name].Headers["X-RateLimit-Remaining"]; h != nil {
					t.Errorf("%s says it carries the rate limit", name)
				}
			}
		}},
	} {
		t.Run(c.name, c.check)
	}
}

// schemaKeywords lists the extension keywords (x-...) and multipleOf found
// in the schemas of a decoded document: below a "schema" or "schemas"
// member, where the members of properties, patternProperties and $defs
// are names rather than keywords.
func schemaKeywords(node any, where string, inSchema, names bool) []string {
	var out []string
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if inSchema && !names && (strings.HasPrefix(k, "x-") || k == "multipleOf") {
				out = append(out, fmt.Sprintf("%s: %s in a schema", where, k))
			}
			childNames := (inSchema && !names && (k == "properties" || k == "patternProperties" || k == "$defs")) ||
				(!inSchema && k == "schemas") // the components' names
			out = append(out, schemaKeywords(v, where+"/"+k, inSchema || k == "schema" || k == "schemas", childNames)...)
		}
	case []any:
		for i, v := range n {
			out = append(out, schemaKeywords(v, where+"/"+strconv.Itoa(i), inSchema, false)...)
		}
	}
	return out
}

// TestOpenAPIGzip: /openapi.json is answered compressed to a client that
// accepts gzip (the same document, a fraction of its size, its own ETag
// and If-None-Match), and as it is to one that does not or refuses it.
func TestOpenAPIGzip(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, plain := fetchDocument(t, e)
	get := func(t *testing.T, acceptEncoding, ifNoneMatch string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, e.url+OpenAPIPath, nil)
		// set by hand, the transport neither asks for gzip nor undoes it
		req.Header.Set("Accept-Encoding", acceptEncoding)
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, raw
	}
	for _, c := range []struct {
		acceptEncoding string
		gzipped        bool
	}{
		{"gzip", true},
		{"br, gzip;q=0.5", true},
		{"x-gzip", true},
		{"*", true},
		{"identity", false},
		{"gzip;q=0", false},
		{"gzip; q=0.000, *", false},
		{"*;q=0", false},
		{"br", false},
	} {
		t.Run(c.acceptEncoding, func(t *testing.T) {
			res, raw := get(t, c.acceptEncoding, "")
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" ||
				!slices.Contains(res.Header.Values("Vary"), "Accept-Encoding") {
				t.Fatalf("%d, Content-Type %q, Vary %q", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Values("Vary"))
			}
			body := raw
			if got := res.Header.Get("Content-Encoding") == "gzip"; got != c.gzipped {
				t.Fatalf("Content-Encoding %q, want gzip: %v", res.Header.Get("Content-Encoding"), c.gzipped)
			}
			if c.gzipped {
				zr, err := gzip.NewReader(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
				if len(raw)*10 > len(plain) {
					t.Errorf("compressed %d bytes of %d", len(raw), len(plain))
				}
				t.Logf("%d bytes compressed, %d plain", len(raw), len(plain))
			}
			if !bytes.Equal(body, plain) {
				t.Errorf("the document differs (%d bytes, want %d)", len(body), len(plain))
			}
			if again, _ := get(t, c.acceptEncoding, res.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
				t.Errorf("If-None-Match %s: %d, want 304", res.Header.Get("ETag"), again.StatusCode)
			}
		})
	}
	zipped, _ := get(t, "gzip", "")
	identity, _ := get(t, "identity", "")
	if zipped.Header.Get("ETag") == identity.Header.Get("ETag") {
		t.Errorf("the compressed and plain documents share the ETag %s", zipped.Header.Get("ETag"))
	}
}

// TestOpenAPIColumnMeaning: a column declared with its meaning
// (storage.Column.Doc) says it in the document, in the record, in the
// create and update bodies and in its equality filter: a contract's
// billing_method is how its owners are paid, a billing profile's how the
// tenant is billed, an account's layout the collection's.
func TestOpenAPIColumnMeaning(t *testing.T) {
	t.Parallel()
	e := setup(t)
	doc, _ := fetchDocument(t, e)
	for _, c := range []struct{ schema, column, says string }{
		{"contracts", "billing_method", "How the contract's owners are paid"},
		{"contracts.create", "billing_method", "How the contract's owners are paid"},
		{"contracts.update", "billing_method", "not how the tenant pays"},
		{"billings", "billing_method", "How the tenant is billed"},
		{"accounts", "layout", "collection remittances"},
		{"accounts.create", "payment_covenant", "payment agreement"},
	} {
		s := doc.Components.Schemas[c.schema]
		if s == nil || s.Properties[c.column] == nil {
			t.Errorf("no %s.%s in the document", c.schema, c.column)
			continue
		}
		if d := s.Properties[c.column].Description; !strings.Contains(d, c.says) {
			t.Errorf("%s.%s is described %q, want it to say %q", c.schema, c.column, d, c.says)
		}
	}
	found := false
	for _, p := range doc.Paths["/financial/contracts"].Get.Parameters {
		if p.Name == "filter[billing_method]" {
			found = strings.Contains(p.Description, "owners are paid")
		}
	}
	if !found {
		t.Errorf("filter[billing_method] of /financial/contracts does not say what the column means")
	}
}
