package api

import (
	"net/http"
	"reflect"
	"strconv"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
)

// Every route is registered with its operation: what the OpenAPI document
// (GET /openapi.json) says of it. The CRUD routes of a declared resource
// take theirs from the declaration (openapi_resources.go); every other
// route is described beside its handler and registered with it in the
// route table (routes.go), so no route exists without its description and
// the document is the route table (docs/api.md, "OpenAPI").

// access is who may call a route. The route layer puts the handler behind
// the credential its operation names, so the document's security and the
// server's cannot differ.
type access int

const (
	// byAPIKey: a company's API key, then the per-key rate limit. The zero
	// value, so that a route is closed unless its operation opens it.
	byAPIKey access = iota
	// public: anyone, no credential (health, the reference, the signed
	// receipt page).
	public
	// byOperator: the admin token (PROPFIN_ADMIN_TOKEN).
	byOperator
)

// operation describes one route in the OpenAPI document.
type operation struct {
	// summary is one line; description says what the operation does and
	// answers, in the terms of docs/api.md. Both are required.
	summary, description string
	// tag groups the operation with others (the resource's path without
	// its leading slash); "" takes the pattern's static names before its
	// first parameter.
	tag string
	// tagNote describes the tag (its first description given wins);
	// tags of no resource are described in tagNotes instead.
	tagNote string
	access  access
	// pathParams describes the pattern's parameters that are not record
	// ids (a token, a path); the others are positive integers.
	pathParams map[string]*openapi.Parameter
	// params lists the query (and header) parameters the handler reads.
	params []*openapi.Parameter
	body   *openapi.RequestBody
	// responses are what the handler answers, by status; the answers of
	// the access (401, 429 ...) are added to them.
	responses map[int]*openapi.Response
	// keyed: an Idempotency-Key makes the request repeatable, its first
	// answer given again (idempotency.go). The route layer declares the
	// header and reads it; the handler writes through writeKeyed.
	keyed bool
}

// refusals are the error statuses every route of an access may answer,
// beside its handler's own.
func (a access) refusals(method string) []int {
	// a URL or header fields past the API's limits, on every route
	codes := []int{http.StatusRequestURITooLong, http.StatusRequestHeaderFieldsTooLarge}
	switch a {
	case byAPIKey:
		// two Authorization headers; no or a bad key; the rate limit; the
		// key's lookup or the request past its time limit
		codes = append(codes, http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests,
			http.StatusServiceUnavailable)
	case byOperator:
		codes = append(codes, http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests)
		if method != http.MethodGet && method != http.MethodHead {
			codes = append(codes, http.StatusForbidden) // a write from another site
		}
	}
	return codes
}

// errorResponses names the component response of each error status.
var errorResponses = map[int]struct{ name, description string }{
	http.StatusBadRequest:                  {"BadRequest", "The request itself is malformed: two `Authorization` headers."},
	http.StatusRequestURITooLong:           {"URITooLong", "The URL is longer than 64 KiB."},
	http.StatusRequestHeaderFieldsTooLarge: {"HeadersTooLarge", "The header fields take more than 64 KiB."},
	http.StatusUnauthorized:                {"Unauthenticated", "No company could be identified: no, a malformed, an unknown or a revoked key (operator routes: no or a wrong admin token)."},
	http.StatusForbidden:                   {"Forbidden", "A write to an operator route from a page of another site."},
	http.StatusNotFound:                    {"NotFound", "No such record of the caller's company (another company's record is a 404 too), or an id that is not a positive integer."},
	http.StatusConflict:                    {"Conflict", "The record's state or other records stand in the way (a delete of a record others refer to, a unique clash, a paid invoice)."},
	http.StatusRequestEntityTooLarge:       {"TooLarge", "The body is larger than the operation takes (1 MiB unless it says)."},
	http.StatusUnsupportedMediaType:        {"UnsupportedMediaType", "The body is declared as something other than JSON, or encoded."},
	http.StatusUnprocessableEntity:         {"Invalid", "The query parameters or the body are invalid: `errors` names every problem, by parameter or field."},
	http.StatusTooManyRequests:             {"TooManyRequests", "Past the rate limit (per key, or per address for failed authentications); `Retry-After` says when to retry."},
	http.StatusInternalServerError:         {"Internal", "A bug, never the answer to bad input: `Internal error.`"},
	http.StatusServiceUnavailable:          {"Unavailable", "The database cannot be reached, a serialization failure, or the request passed its time limit; retry after `Retry-After`."},
}

// errorRef is the response of an error status: the component that holds
// the envelope.
func errorRef(status int) *openapi.Response {
	e, ok := errorResponses[status]
	if !ok {
		panic("api: no component response for status " + strconv.Itoa(status))
	}
	return &openapi.Response{Ref: "#/components/responses/" + e.name}
}

// answers builds an operation's responses: each success given, and the
// error statuses as the shared error responses.
func answers(success map[int]*openapi.Response, errors ...int) map[int]*openapi.Response {
	out := make(map[int]*openapi.Response, len(success)+len(errors))
	for status, r := range success {
		out[status] = r
	}
	for _, status := range errors {
		out[status] = errorRef(status)
	}
	return out
}

// jsonAnswer is a JSON response of schema.
func jsonAnswer(description string, schema *openapi.Schema) *openapi.Response {
	return &openapi.Response{Description: description,
		Content: map[string]*openapi.MediaType{"application/json": {Schema: schema}}}
}

// jsonBody is a JSON request body of schema.
func jsonBody(description string, required bool, schema *openapi.Schema) *openapi.RequestBody {
	return &openapi.RequestBody{Description: description, Required: required,
		Content: map[string]*openapi.MediaType{"application/json": {Schema: schema}}}
}

// queryParam is a query parameter of schema.
func queryParam(name, description string, schema *openapi.Schema) *openapi.Parameter {
	return &openapi.Parameter{Name: name, In: "query", Description: description, Schema: schema}
}

// envelope is the schema of a success envelope whose data is data:
// {"return": true, "status": N, ["message": M,] "data": ...}.
func envelope(data *openapi.Schema, withMessage bool) *openapi.Schema {
	props := map[string]*openapi.Schema{
		"return": {Const: true},
		"status": openapi.Integer(),
		"data":   data,
	}
	required := []string{"return", "status", "data"}
	if withMessage {
		props["message"] = openapi.String()
	}
	return openapi.Object(props, required...)
}

// reflector describes the values handlers encode, with the schemas of the
// types that encode themselves.
var reflector = openapi.Reflector{Known: map[reflect.Type]*openapi.Schema{
	reflect.TypeFor[finance.Date]():    openapi.Nullable(&openapi.Schema{Type: "string", Format: "date"}),
	reflect.TypeFor[finance.Month]():   {Type: "string", Pattern: `^[0-9]{4}-[0-9]{2}$`, Description: "A month, `YYYY-MM`."},
	reflect.TypeFor[finance.Money]():   moneySchema(),
	reflect.TypeFor[finance.Percent](): {Ref: openapi.SchemaRef("Decimal2"), Description: percentDescription},
}}

// moneySchema is an amount of money: the component Decimal2.
func moneySchema() *openapi.Schema {
	return &openapi.Schema{Ref: openapi.SchemaRef("Decimal2"), Description: moneyDescription}
}

// How money and percentages are written (docs/api.md, "Money").
const (
	moneyDescription = "Money: a JSON number written with two decimal places (`1000.00`, `0.50`), never a string; " +
		"read it as a decimal, not a float (docs/api.md, \"Money\")."
	percentDescription = "A percentage (`2.50` is 2.5%), a JSON number written with two decimal places."
)
