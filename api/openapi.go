package api

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/api/reference"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The OpenAPI document of the API, GET /openapi.json: built from the route
// table once, when first asked for. Every route is in it with the
// operation it was registered with; the schemas of resources come from
// their declarations (openapi_schemas.go).

// OpenAPIPath is where the document is served, without a key.
const OpenAPIPath = "/openapi.json"

// openapiPath is a route pattern in OpenAPI's form: `:id` and `*path`
// become `{id}` and `{path}`.
func openapiPath(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// buildDocument describes every route of entries; the component schemas
// the operations refer to are the shared ones and those of the resources
// of reg (resolveSchemas).
func buildDocument(entries []routeEntry, reg *storage.Registry) (*openapi.Document, error) {
	doc := &openapi.Document{
		OpenAPI: openapi.Version,
		Info: openapi.Info{Title: "propfin API", Version: APIVersion, Build: buildVersion(), Description: apiDescription,
			License: &openapi.License{Name: "Proprietary", Identifier: "LicenseRef-propfin"}},
		Servers: []openapi.Server{{URL: "/", Description: "This server."}},
		Paths:   map[string]*openapi.PathItem{},
		Components: openapi.Components{
			Schemas:         sharedSchemas(),
			Responses:       sharedResponses(),
			Parameters:      sharedParameters(),
			Headers:         sharedHeaders(),
			SecuritySchemes: securitySchemes,
		},
	}
	ids := map[string]string{}
	for _, e := range entries {
		path := openapiPath(e.pattern)
		item := doc.Paths[path]
		if item == nil {
			item = &openapi.PathItem{}
			doc.Paths[path] = item
		}
		op := describe(e)
		if prev, dup := ids[op.OperationID]; dup {
			return nil, fmt.Errorf("operation id %s of %s %s is also %s's", op.OperationID, e.method, path, prev)
		}
		ids[op.OperationID] = e.method + " " + path
		if !item.SetOperation(e.method, op) {
			return nil, fmt.Errorf("%s %s: OpenAPI has no method %s", e.method, path, e.method)
		}
		addTag(doc, op.Tags[0], e.op.tagNote)
	}
	for _, t := range doc.Tags {
		if t.Description == "" {
			return nil, fmt.Errorf("tag %q has no description: give its operations a tagNote, or add it to tagNotes", t.Name)
		}
	}
	if err := resolveSchemas(doc, reg); err != nil {
		return nil, err
	}
	return doc, nil
}

// APIVersion is the version of the API the document describes (the
// specification's); the build of the server is info's x-build.
const APIVersion = "1.0.0"

// addTag lists tag in the document once, described by tagNotes, else by
// note (an operation's).
func addTag(doc *openapi.Document, tag, note string) {
	if n, ok := tagNotes[tag]; ok {
		note = n
	}
	i := slices.IndexFunc(doc.Tags, func(t openapi.Tag) bool { return t.Name == tag })
	if i < 0 {
		doc.Tags = append(doc.Tags, openapi.Tag{Name: tag, Description: note})
		return
	}
	if doc.Tags[i].Description == "" {
		doc.Tags[i].Description = note
	}
}

// tagNotes describe the tags of the operations that are not a declared
// resource's (whose tags resourceDoc describes).
var tagNotes = map[string]string{
	"health":                  "Liveness and readiness, without a key, for load balancers and orchestrators.",
	"reference":               "This document and the reference page that renders it (`/docs`), without a key.",
	"operators":               "The operators' routes (the admin token): metrics, the queue dashboard, every company's jobs, schedules, alerts and the console.",
	"receipts":                "The public receipt page a signed link opens, without a key (docs/api.md, \"Receipt links\").",
	"owner statements":        "The owner statements' signed links and the public pages and PDFs they open (docs/api.md, \"Owner statements\").",
	"income reports":          "The income reports' public pages and PDFs, opened by a signed link (docs/api.md, \"Income reports\").",
	"financial/incomeReports": "An owner's income report for a year, computed from the closed owner statements, and its signed link.",
	"financial/settings":      "The company's financial settings: defaults of contracts and invoices (docs/api.md, \"Defaults\").",
	"deals/conversion":        "The deal-conversion reports: deals per funnel step, and the deals of one step.",
	"pix":                     "Validation of PIX copy-and-paste codes, in bulk.",
}

// describe is the OpenAPI operation of a route entry.
func describe(e routeEntry) *openapi.Operation {
	op := &openapi.Operation{
		Summary: e.op.summary, Description: e.op.description,
		OperationID: operationID(e.method, e.pattern),
		Tags:        []string{e.op.tag},
		RequestBody: e.op.body,
		Responses:   map[string]*openapi.Response{},
		Security:    securityOf(e.op.access),
	}
	if op.Tags[0] == "" {
		op.Tags[0] = defaultTag(e.pattern)
	}
	for _, seg := range e.segments {
		if strings.HasPrefix(seg, ":") || strings.HasPrefix(seg, "*") {
			op.Parameters = append(op.Parameters, pathParameter(seg[1:], e.op.pathParams))
		}
	}
	op.Parameters = append(op.Parameters, e.op.params...)
	for i, p := range op.Parameters {
		op.Parameters[i] = withoutWidth(p)
	}
	for status, r := range e.op.responses {
		op.Responses[strconv.Itoa(status)] = withHeaders(r, status, e.op.access)
	}
	for _, status := range e.op.access.refusals(e.method) {
		if _, given := op.Responses[strconv.Itoa(status)]; !given {
			op.Responses[strconv.Itoa(status)] = errorRef(status)
		}
	}
	return op
}

// withoutWidth is a parameter whose integers (its value's, its items')
// have no format: a query or path value is digits of no width, and
// Swagger UI draws no input for an int64 (it logs that it has none).
func withoutWidth(p *openapi.Parameter) *openapi.Parameter {
	s := p.Schema
	if s == nil || s.Ref != "" || (s.Format != "int64" && (s.Items == nil || s.Items.Format != "int64")) {
		return p
	}
	c, cs := *p, *s
	if cs.Format == "int64" {
		cs.Format = ""
	}
	if s.Items != nil && s.Items.Format == "int64" {
		items := *s.Items
		items.Format = ""
		cs.Items = &items
	}
	c.Schema = &cs
	return &c
}

// withHeaders is a copy of an operation's own response (not a shared
// one) with the headers the server adds to it: X-Request-Id always, the
// rate limit's behind a company's key, Location on a 201.
func withHeaders(r *openapi.Response, status int, a access) *openapi.Response {
	if r.Ref != "" {
		return r
	}
	c := *r
	c.Headers = maps.Clone(r.Headers)
	if c.Headers == nil {
		c.Headers = map[string]*openapi.Header{}
	}
	names := []string{"X-Request-Id"}
	if a == byAPIKey {
		names = append(names, "X-RateLimit-Limit", "X-RateLimit-Remaining")
	}
	if status == http.StatusCreated {
		names = append(names, "Location")
	}
	for _, name := range names {
		if _, given := c.Headers[name]; !given {
			c.Headers[name] = headerRef(name)
		}
	}
	return &c
}

// headerRef is the shared response header name.
func headerRef(name string) *openapi.Header {
	return &openapi.Header{Ref: "#/components/headers/" + name}
}

// rateLimited reports whether an error answer of status may carry the
// rate limit's headers: not those given before the key is authenticated
// (400, 401, and the request line's or headers' size, 414 and 431).
func rateLimited(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusRequestURITooLong,
		http.StatusRequestHeaderFieldsTooLarge:
		return false
	}
	return true
}

// sharedHeaders are the response headers the answers refer to.
func sharedHeaders() map[string]*openapi.Header {
	return map[string]*openapi.Header{
		"X-Request-Id": {Description: "The request's id: the caller's `X-Request-Id` when it sent one of at most 64 " +
			"characters, else a new one. The logs carry it.", Schema: openapi.String()},
		"X-RateLimit-Limit": {Description: "The requests a key may make per minute (docs/api.md, \"Rate limit\"), " +
			"on the answers to an authenticated key (a 429 of failed keys from one address carries none).",
			Schema: openapi.Integer()},
		"X-RateLimit-Remaining": {Description: "The requests the key has left in the current minute.",
			Schema: openapi.Integer()},
		"Retry-After": {Description: "Seconds to wait before retrying.", Schema: openapi.Integer()},
		"Location": {Description: "The path of what the request created or started: the record " +
			"(`/invoices/7`), or the job (`/jobs/12`).", Schema: openapi.String()},
	}
}

// pathParameter is a parameter of the pattern: as the operation describes
// it, else a record id.
func pathParameter(name string, given map[string]*openapi.Parameter) *openapi.Parameter {
	if p, ok := given[name]; ok {
		c := *p
		c.Name, c.In, c.Required = name, "path", true
		return &c
	}
	desc := "The record's id; anything but a positive integer names no record (404)."
	if name != "id" && !strings.HasSuffix(name, "_id") {
		desc = "The id of the parent record; anything but a positive integer, or another company's record, is a 404."
	}
	return &openapi.Parameter{Name: name, In: "path", Required: true, Description: desc,
		Schema: &openapi.Schema{Type: "integer", Format: "int64", Minimum: "1"}}
}

// nonWord is what an operation id does not keep of a path.
var nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

// operationID names an operation after its method and path:
// `get_invoices_by_id`, `post_financial_contracts_by_id_readjust`.
func operationID(method, pattern string) string {
	parts := []string{strings.ToLower(method)}
	for _, seg := range strings.Split(strings.Trim(pattern, "/"), "/") {
		switch {
		case seg == "":
		case strings.HasPrefix(seg, ":") || strings.HasPrefix(seg, "*"):
			parts = append(parts, "by_"+seg[1:])
		default:
			parts = append(parts, strings.Trim(nonWord.ReplaceAllString(seg, "_"), "_"))
		}
	}
	return strings.Join(parts, "_")
}

// defaultTag is a pattern's static names before its first parameter.
func defaultTag(pattern string) string {
	var names []string
	for _, seg := range strings.Split(strings.Trim(pattern, "/"), "/") {
		if strings.HasPrefix(seg, ":") || strings.HasPrefix(seg, "*") {
			break
		}
		names = append(names, seg)
	}
	return strings.Join(names, "/")
}

// securityOf is what the document says an access takes.
func securityOf(a access) []openapi.SecurityRequirement {
	switch a {
	case public:
		return []openapi.SecurityRequirement{}
	case byOperator:
		return []openapi.SecurityRequirement{{"adminToken": {}}, {"adminBasic": {}}}
	}
	return []openapi.SecurityRequirement{{"apiKey": {}}}
}

var securitySchemes = map[string]*openapi.SecurityScheme{
	"apiKey": {Type: "http", Scheme: "bearer", BearerFormat: "pf_<company id>_<64 hex digits>",
		Description: "A company's API key (`propfin apikey create`), as `Authorization: Bearer <key>`."},
	"adminToken": {Type: "http", Scheme: "bearer",
		Description: "The operators' admin token (`PROPFIN_ADMIN_TOKEN`), as `Authorization: Bearer <token>`."},
	"adminBasic": {Type: "http", Scheme: "basic",
		Description: "The admin token as the password of basic authentication, any user name (what a browser asks for)."},
}

// buildVersion is the VCS revision the binary was built from, "dev"
// without one: the document describes the API of this build.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && s.Value != "" {
			return s.Value
		}
	}
	return "dev"
}

// sharedSchemas are the envelopes every operation shares.
func sharedSchemas() map[string]*openapi.Schema {
	return map[string]*openapi.Schema{
		"Problem": openapi.Object(map[string]*openapi.Schema{
			"field":   openapi.String().WithDescription("The query parameter (`filter[id]`) or body field (`items.2.amount`) the problem concerns."),
			"message": openapi.String(),
		}, "field", "message"),
		"Error": openapi.Object(map[string]*openapi.Schema{
			"return":  {Const: false},
			"status":  openapi.Integer().WithDescription("The HTTP status."),
			"message": openapi.String(),
			"errors":  openapi.Array(openapi.Ref("Problem")).WithDescription("Every problem of the request at once; empty when the message says all."),
		}, "return", "status", "message", "errors"),
		"Deleted": openapi.Object(map[string]*openapi.Schema{
			"return": {Const: true}, "status": openapi.Integer(), "message": openapi.String(),
		}, "return", "status", "message"),
	}
}

// sharedResponses are the error answers, one per status, all in the
// error envelope.
func sharedResponses() map[string]*openapi.Response {
	out := map[string]*openapi.Response{}
	for status, e := range errorResponses {
		r := jsonAnswer(e.description, openapi.Ref("Error"))
		r.Headers = map[string]*openapi.Header{"X-Request-Id": headerRef("X-Request-Id")}
		switch status {
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			r.Headers["Retry-After"] = headerRef("Retry-After")
		}
		if rateLimited(status) {
			// past the key's authentication, the limiter has counted the request
			r.Headers["X-RateLimit-Limit"] = headerRef("X-RateLimit-Limit")
			r.Headers["X-RateLimit-Remaining"] = headerRef("X-RateLimit-Remaining")
		}
		out[e.name] = r
	}
	return out
}

// sharedParameters are the query parameters lists share.
func sharedParameters() map[string]*openapi.Parameter {
	perPage := &openapi.Schema{Type: "integer"}
	perPage.Minimum, perPage.Maximum, perPage.Default = "1", json.Number(strconv.Itoa(MaxPerPage)), DefaultPerPage
	page := &openapi.Schema{Type: "integer"}
	page.Minimum, page.Default = "1", 1
	return map[string]*openapi.Parameter{
		"page": {Name: "page", In: "query", Schema: page, Description: fmt.Sprintf(
			"The page, from 1. A page starts at most %d rows in: `page` is at most %d/perPage + 1.", MaxOffset, MaxOffset)},
		"perPage":      {Name: "perPage", In: "query", Schema: perPage, Description: "Records per page."},
		"withTotal":    {Name: "withTotal", In: "query", Schema: openapi.Boolean(), Description: "Adds `total` and `last_page` (a count of the whole filtered set)."},
		"customFields": {Name: "customFields", In: "query", Schema: openapi.Boolean(), Description: "Adds each custom field as `_name`, after the columns."},
		"cacheBuster":  {Name: "_", In: "query", Schema: openapi.String(), Description: "Ignored (a client's cache buster)."},
	}
}

// resolveSchemas adds to the components every schema the document refers
// to that is not there yet: a resource's record or bodies, and what those
// refer to in turn.
func resolveSchemas(doc *openapi.Document, reg *storage.Registry) error {
	for {
		missing := map[string]bool{}
		walkDocument(doc, func(s *openapi.Schema) {
			if name, ok := strings.CutPrefix(s.Ref, openapi.SchemaRef("")); ok && doc.Components.Schemas[name] == nil {
				missing[name] = true
			}
		})
		if len(missing) == 0 {
			return nil
		}
		for name := range missing {
			s, ok := resourceSchema(reg, name)
			if !ok {
				return fmt.Errorf("the document refers to schema %q, which is neither shared nor a resource's", name)
			}
			doc.Components.Schemas[name] = s
		}
	}
}

// walkDocument calls fn on every schema of doc, nested ones included.
func walkDocument(doc *openapi.Document, fn func(*openapi.Schema)) {
	content := func(c map[string]*openapi.MediaType) {
		for _, m := range c {
			walkSchema(m.Schema, fn)
		}
	}
	for _, item := range doc.Paths {
		for _, m := range item.Operations() {
			op := item.Operation(m)
			for _, p := range op.Parameters {
				walkSchema(p.Schema, fn)
			}
			if op.RequestBody != nil {
				content(op.RequestBody.Content)
			}
			for _, r := range op.Responses {
				content(r.Content)
			}
		}
	}
	for _, s := range doc.Components.Schemas {
		walkSchema(s, fn)
	}
	for _, r := range doc.Components.Responses {
		content(r.Content)
	}
	for _, p := range doc.Components.Parameters {
		walkSchema(p.Schema, fn)
	}
}

func walkSchema(s *openapi.Schema, fn func(*openapi.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	walkSchema(s.Items, fn)
	for _, p := range s.Properties {
		walkSchema(p, fn)
	}
	for _, p := range s.PatternProperties {
		walkSchema(p, fn)
	}
	if a, ok := s.AdditionalProperties.(*openapi.Schema); ok {
		walkSchema(a, fn)
	}
	for _, list := range [][]*openapi.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, x := range list {
			walkSchema(x, fn)
		}
	}
}

// apiDescription is the document's introduction.
const apiDescription = `The finance back end of a property-management platform: CRUD over the
company's records with one query language, and operations that start background jobs.

**Authentication.** Every operation but the public ones takes a company's API key as
` + "`Authorization: Bearer <key>`" + `; the operator routes take the admin token. Requests are
limited per key per minute (429 with ` + "`Retry-After`" + ` past it).

**Envelopes.** Success: ` + "`{\"return\": true, \"status\": N, \"data\": ...}`" + `; lists add the
page fields. Errors: ` + "`{\"return\": false, \"status\": N, \"message\": \"...\", \"errors\": [{\"field\", \"message\"}]}`" + `,
every problem of a request listed at once. A 500 (` + "`Internal error.`" + `) is a bug, never the
answer to bad input.

**Every route** also answers ` + "`HEAD`" + ` where it answers ` + "`GET`" + `, and ` + "`OPTIONS`" + `
(CORS preflight, 204). Decisions where the specification is silent are in docs/api.md.`

// openapiDocument serves the document of a route table, encoded once when
// first asked for (the table is complete by then).
type openapiDocument struct {
	router *router
	reg    *storage.Registry

	once    sync.Once
	body    []byte // the JSON
	gzipped []byte // the JSON compressed, for a client that accepts gzip
	etag    string // of body; gzipped's is etag with "-gzip"
	err     error
}

// ServeHTTP answers the document, built and compressed once. It is
// megabytes of JSON (every filter form of every column is a parameter)
// that compress twentyfold, and the reference page fetches it whole, so a
// client accepting gzip (every browser) gets it compressed.
func (d *openapiDocument) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.once.Do(d.build)
	if d.err != nil {
		writeError(w, r, fmt.Errorf("the OpenAPI document: %w", d.err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Add("Vary", "Accept-Encoding")
	body, etag := d.body, d.etag
	if acceptsGzip(r.Header.Values("Accept-Encoding")) {
		body, etag = d.gzipped, strings.TrimSuffix(d.etag, `"`)+`-gzip"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

func (d *openapiDocument) build() {
	doc, err := buildDocument(d.router.entries, d.reg)
	if err == nil {
		d.body, err = json.Marshal(doc)
	}
	if err == nil {
		d.gzipped, err = gzipBytes(d.body)
	}
	sum := sha256.Sum256(d.body)
	d.etag, d.err = `"`+hex.EncodeToString(sum[:16])+`"`, err
}

// gzipBytes compresses b at the best compression: done once a process.
func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err == nil {
		_, err = zw.Write(b)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	return buf.Bytes(), nil
}

// acceptsGzip reads Accept-Encoding (RFC 9110, 12.5.3): gzip (or x-gzip)
// with a weight above zero, or, when gzip is not named, * with one.
func acceptsGzip(values []string) bool {
	star := false
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(item, ";")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "gzip", "x-gzip":
				return weighted(params)
			case "*":
				star = weighted(params)
			}
		}
	}
	return star
}

// weighted says whether the parameters of an Accept-Encoding item leave
// it a weight above zero (no q is 1).
func weighted(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		if q, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(p)), "q="); ok {
			w, err := strconv.ParseFloat(q, 64)
			return err == nil && w > 0
		}
	}
	return true
}

func noReferenceFile(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, finance.Errorf(finance.NotFound, "The reference page has no file %q.", path.Base(r.URL.Path)))
}

var openapiOp = operation{
	access:  public,
	tag:     "reference",
	summary: "This document",
	description: "The OpenAPI 3.1 document of every route this server serves, built from its route table: the " +
		"resources' operations from their declarations, every other operation as described where it is registered.",
	responses: map[int]*openapi.Response{
		http.StatusOK:                  jsonAnswer("The document.", openapiSchema()),
		http.StatusNotModified:         {Description: "The document has not changed (`If-None-Match`)."},
		http.StatusInternalServerError: errorRef(http.StatusInternalServerError),
	},
}

// openapiSchema is what GET /openapi.json answers: an OpenAPI 3.1
// document, its members as the specification names them.
func openapiSchema() *openapi.Schema {
	object := func(desc string) *openapi.Schema { return (&openapi.Schema{Type: "object"}).WithDescription(desc) }
	s := &openapi.Schema{Type: "object", Required: []string{"openapi", "info", "paths", "components"},
		Description: "An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0).",
		Properties: map[string]*openapi.Schema{
			"openapi": {Const: openapi.Version},
			"info": {Type: "object", Required: []string{"title", "version"}, Properties: map[string]*openapi.Schema{
				"title":       openapi.String(),
				"version":     openapi.String().WithDescription("The API's version."),
				"description": openapi.String(),
				"license":     object("The licence."),
				"x-build":     openapi.String().WithDescription("The server's build: the VCS revision, `dev` without one."),
			}},
			"servers":    openapi.Array(object("A server.")),
			"security":   openapi.Array(object("A security requirement.")),
			"tags":       openapi.Array(object("A tag and its description.")),
			"paths":      object("The operations, by path and method."),
			"components": object("The schemas, responses, parameters, headers and security schemes operations refer to."),
		}}
	return s
}

var referencePageOp = operation{
	access:  public,
	tag:     "reference",
	summary: "The API reference page",
	description: "Swagger UI rendering this document. Every file it loads comes from this server (`/docs/{file}`); " +
		"its Content-Security-Policy allows nothing else.",
	responses: map[int]*openapi.Response{
		http.StatusOK:          htmlAnswer("The page."),
		http.StatusNotModified: {Description: "The page has not changed (`If-None-Match`)."},
	},
}

func referenceFileOp() operation {
	names := reference.Names()
	slices.Sort(names)
	return operation{
		access:      public,
		tag:         "reference",
		summary:     "A file of the reference page",
		description: "The page's script and style, embedded in the binary. Any other name is a 404.",
		pathParams:  map[string]*openapi.Parameter{"file": {Schema: openapi.Enum(names...), Description: "The file."}},
		responses: map[int]*openapi.Response{
			http.StatusOK:          {Description: "The file (JavaScript or CSS)."},
			http.StatusNotModified: {Description: "The file has not changed (`If-None-Match`)."},
			http.StatusNotFound:    errorRef(http.StatusNotFound),
		},
	}
}
