package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/storage"
)

// The requests of the route fuzz, generated from the OpenAPI document
// alone: for every operation, its path with ids of the caller's records,
// of the other company's and malformed ones; query strings with every
// parameter valid and wrong; bodies valid (the required fields, all
// fields) and wrong (each field of another type or past its bounds, null,
// unknown fields, huge values, deep and malformed JSON, other content
// types); with the credential the operation asks for, none and a bad one.

// fuzzCase is one request. Cred is how it authenticates: credKey (company
// A's key), credAdmin, credNone or credBad.
type fuzzCase struct {
	Method, Path, Query, Body, ContentType, Cred string
	// Header is one more header, "Name: value" (Idempotency-Key).
	Header string
}

const (
	credKey   = "key"
	credAdmin = "admin"
	credNone  = "none"
	credBad   = "bad"
)

// leakMarker is in every text the other company's records hold: an answer
// to company A that carries it shows B's data.
const leakMarker = "zqleakmarkerqz"

// docOp is an operation of the document with its path and method.
type docOp struct {
	method, path string
	op           *openapi.Operation
}

// docOps lists the document's operations in a stable order: reads first,
// then creates, updates and deletes, so that what is deleted is deleted
// last.
func docOps(doc *openapi.Document) []docOp {
	var ops []docOp
	for path, item := range doc.Paths {
		for _, m := range item.Operations() {
			ops = append(ops, docOp{method: m, path: path, op: item.Operation(m)})
		}
	}
	rank := map[string]int{"GET": 0, "HEAD": 0, "POST": 1, "PUT": 2, "PATCH": 2, "DELETE": 3}
	sort.Slice(ops, func(i, j int) bool {
		if rank[ops[i].method] != rank[ops[j].method] {
			return rank[ops[i].method] < rank[ops[j].method]
		}
		if ops[i].path != ops[j].path {
			return ops[i].path < ops[j].path
		}
		return ops[i].method < ops[j].method
	})
	return ops
}

// pools are the ids of a company's records, by the concrete path of their
// collection (`/buildings`, `/buildings/3/owners`).
type pools map[string][]int64

func (p pools) add(collection string, id int64) {
	if !slices.Contains(p[collection], id) {
		p[collection] = append(p[collection], id)
	}
}

// generator makes values and requests from the document.
type generator struct {
	doc *openapi.Document
	rng *rand.Rand
	// collections maps a record schema's name to the paths of its
	// collections (`persons` -> `/persons`, `funnel_steps` ->
	// `/funnels/[^/]+/steps`), read from the lists of the document.
	collections map[string]*regexp.Regexp
	// marker goes into every text generated (the other company's records).
	marker string
}

func newGenerator(doc *openapi.Document, seed uint64) *generator {
	g := &generator{doc: doc, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), collections: map[string]*regexp.Regexp{}}
	paths := slices.Sorted(maps.Keys(doc.Paths))
	slices.SortStableFunc(paths, func(a, b string) int { return strings.Count(a, "{") - strings.Count(b, "{") })
	for _, path := range paths {
		item := doc.Paths[path]
		if item.Get == nil {
			continue
		}
		if name := g.listedSchema(item.Get); name != "" && g.collections[name] == nil {
			g.collections[name] = regexp.MustCompile("^" + regexp.MustCompile(`\\\{[^}]+\}`).
				ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + "$")
		}
	}
	return g
}

// listedSchema is the name of the record schema a list operation pages,
// "" for another operation.
func (g *generator) listedSchema(op *openapi.Operation) string {
	r := g.response(op.Responses["200"])
	if r == nil || r.Content["application/json"] == nil {
		return ""
	}
	s := r.Content["application/json"].Schema
	if s == nil || !strings.HasSuffix(s.Ref, pageSuffix) {
		return ""
	}
	s = g.schema(s)
	if s == nil || s.Properties["data"] == nil || s.Properties["data"].Items == nil {
		return ""
	}
	name, _ := strings.CutPrefix(s.Properties["data"].Items.Ref, openapi.SchemaRef(""))
	return name
}

// response resolves a response's $ref.
func (g *generator) response(r *openapi.Response) *openapi.Response {
	if r == nil || r.Ref == "" {
		return r
	}
	return g.doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
}

// param resolves a parameter's $ref.
func (g *generator) param(p *openapi.Parameter) *openapi.Parameter {
	if p.Ref == "" {
		return p
	}
	return g.doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
}

// schema resolves a schema's $ref.
func (g *generator) schema(s *openapi.Schema) *openapi.Schema {
	for s != nil && s.Ref != "" {
		s = g.doc.Components.Schemas[strings.TrimPrefix(s.Ref, openapi.SchemaRef(""))]
	}
	return s
}

func (g *generator) pick(n int) int { return g.rng.IntN(n) }

// valid is a value s takes; with all, every property of an object, else
// its required ones. ids gives the records references may name.
func (g *generator) valid(s *openapi.Schema, ids pools, all bool, depth int) any {
	if s != nil {
		name, _ := strings.CutPrefix(s.Ref, openapi.SchemaRef(""))
		if target, isID := strings.CutSuffix(name, idSuffix); isID { // a reference column
			return g.referencedID(target, ids)
		}
		if m := decimalName.FindStringSubmatch(name); m != nil && m[2] == "" {
			places, _ := strconv.Atoi(m[1])
			return g.validNumber(s, places)
		}
	}
	s = g.schema(s)
	switch {
	case s == nil:
		return "x"
	case s.Const != nil:
		return s.Const
	case len(s.OneOf) > 0:
		return g.valid(s.OneOf[g.pick(len(s.OneOf))], ids, all, depth)
	case len(s.AnyOf) > 0:
		for _, alt := range s.AnyOf {
			if !alt.HasType("null") {
				return g.valid(alt, ids, all, depth)
			}
		}
	case len(s.Enum) > 0:
		for {
			if v := s.Enum[g.pick(len(s.Enum))]; v != nil {
				return v
			}
		}
	}
	types := slices.DeleteFunc(slices.Clone(s.Types()), func(t string) bool { return t == "null" })
	if len(types) == 0 {
		return map[string]any{"any": []any{1, "two", nil}}
	}
	switch types[0] {
	case "string":
		return g.validText(s)
	case "integer":
		if s.ExclusiveMaximum != "" {
			return json.RawMessage(strconv.Itoa(g.pick(1000)))
		}
		return g.validInt(s, ids)
	case "number":
		return g.validNumber(s, 0)
	case "boolean":
		return g.pick(2) == 0
	case "array":
		n := 1
		if s.MinItems != nil {
			n = max(n, *s.MinItems)
		}
		out := make([]any, 0, n)
		seen := map[string]bool{} // ids and enum values once each
		for range n {
			v := g.valid(s.Items, ids, all, depth+1)
			if k := fmt.Sprint(v); !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
		return out
	case "object":
		return g.validObject(s, ids, all, depth)
	}
	return nil
}

// validObject fills the required properties, or all of them.
func (g *generator) validObject(s *openapi.Schema, ids pools, all bool, depth int) map[string]any {
	obj := map[string]any{}
	if depth > 4 {
		return obj
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop := s.Properties[name]
		if !all && !slices.Contains(s.Required, name) {
			continue
		}
		if name == "id" || name == "delete" { // an edit of a child names one; an add is generated instead
			continue
		}
		if desc := prop.Description; strings.Contains(desc, "The same as `") { // an alias of another key
			continue
		}
		obj[name] = g.valid(prop, ids, all, depth+1)
	}
	if all && len(s.PatternProperties) > 0 {
		obj["_fuzz_field"] = "custom " + g.marker
	}
	return obj
}

func (g *generator) validText(s *openapi.Schema) string {
	switch {
	case s.Format == "date":
		return fmt.Sprintf("20%02d-%02d-%02d", 20+g.pick(8), 1+g.pick(12), 1+g.pick(28))
	case s.Format == "date-time":
		forms := []string{"2024-05-10 12:34:56", "2024-05-10T09:34:56-03:00", "2024-05-10", "2024-05-10T12:34:56Z"}
		return forms[g.pick(len(forms))]
	case s.ContentMediaType == "application/json":
		return `{"fuzz":[1,"` + g.marker + `"]}`
	case strings.HasPrefix(s.Pattern, "^[0-9]{4}-[0-9]{2}"):
		return fmt.Sprintf("20%02d-%02d", 20+g.pick(5), 1+g.pick(12))
	case s.Pattern == dateTimeOut:
		return "2024-05-10 12:34:56"
	case s.Pattern != "":
		return strconv.Itoa(1 + g.pick(999))
	}
	text := "fuzz " + strconv.Itoa(g.pick(100000))
	if g.marker != "" {
		text += " " + g.marker
	}
	if s.MaxLength != nil && len(text) > *s.MaxLength {
		text = text[:*s.MaxLength]
	}
	return text
}

// referencedID is the id of one of the records of target in ids, or a
// number when there is none.
func (g *generator) referencedID(target string, ids pools) any {
	if re := g.collections[target]; re != nil {
		var list []int64
		for _, collection := range slices.Sorted(maps.Keys(ids)) {
			if re.MatchString(collection) {
				list = append(list, ids[collection]...)
			}
		}
		if len(list) > 0 {
			return list[g.pick(len(list))]
		}
	}
	return int64(1 + g.pick(1000))
}

func (g *generator) validInt(s *openapi.Schema, ids pools) any {
	lo, hi := int64(1), int64(1000)
	if s.Minimum != "" {
		lo, _ = s.Minimum.Int64()
		hi = max(hi, lo)
	}
	if s.Maximum != "" {
		hi, _ = s.Maximum.Int64()
	}
	return lo + g.rng.Int64N(hi-lo+1)
}

// validNumber is a decimal within the schema's bounds and of at most
// places decimal places: its text, a JSON number without exponent.
func (g *generator) validNumber(s *openapi.Schema, places int) json.RawMessage {
	limit := 100
	if m, err := strconv.Atoi(string(s.ExclusiveMaximum)); err == nil && m < limit {
		limit = m
	}
	whole := g.pick(limit)
	if places == 0 {
		return json.RawMessage(strconv.Itoa(whole))
	}
	frac := strconv.Itoa(g.pick(100))
	if len(frac) > places {
		frac = frac[:places]
	}
	return json.RawMessage(strconv.Itoa(whole) + "." + frac)
}

// wrong lists values s refuses: other types, past its bounds, null where
// it takes none, huge ones.
func (g *generator) wrong(s *openapi.Schema) []any {
	s = g.schema(s)
	if s == nil {
		return nil
	}
	out := []any{json.RawMessage(`{"x":{}}`), json.RawMessage(`[[]]`)}
	if !s.HasType("null") && len(s.AnyOf) == 0 && s.Const == nil {
		out = append(out, nil)
	}
	switch {
	case len(s.Enum) > 0:
		out = append(out, "not-"+fmt.Sprint(s.Enum[0]), 7)
	case s.HasType("string"):
		out = append(out, 123, true, strings.Repeat("é", 70_000), "nul\x00char", json.RawMessage(`"\ud800"`))
		if s.Format != "" || s.Pattern != "" || s.ContentMediaType != "" {
			out = append(out, "2024-02-30", "0000-00-00", "{not json", "31/12/2024", "2024-05-10 12:34:56.5")
		}
	case s.HasType("integer"):
		out = append(out, "12", 1.5, json.RawMessage(`1e400`), json.RawMessage(`99999999999999999999999`), -1, 0)
		if s.Maximum != "" {
			n, _ := s.Maximum.Int64()
			out = append(out, n+1)
		}
	case s.HasType("number"):
		out = append(out, json.RawMessage(`1e5`), json.RawMessage(`1.00000000001`), "12,50",
			json.RawMessage(`123456789012345678901234567890`), "NaN", true, json.RawMessage(`-0.0000000000000001`))
	case s.HasType("boolean"):
		out = append(out, "yes", 1, "true")
	case s.HasType("array"):
		out = append(out, "x", []any{nil}, []any{[]any{1}}, map[string]any{})
		if s.MaxItems != nil && *s.MaxItems < 2000 {
			many := make([]any, *s.MaxItems+1)
			for i := range many {
				many[i] = i + 1
			}
			out = append(out, many)
		}
	case s.HasType("object"):
		out = append(out, "x", []any{}, 5)
	}
	return out
}

// queryText is the text form of a value in a query string.
func queryText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.RawMessage:
		return strings.Trim(string(x), `"`)
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// wrongTexts are query values no typed parameter takes.
var wrongTexts = []string{"abc", "1.5", "99999999999999999999", "-1", "0", "2024-02-30", "yes", "", "%zz", "%00",
	"1|2|3", strings.Repeat("9", 5000), "\xff\xfe", "' OR 1=1 --", "1e3"}

// encodeParam writes name=value, escaping the value (the name's brackets
// and bars stay as clients send them).
func encodeParam(name, value string) string {
	return name + "=" + url.QueryEscape(value)
}

// paramValues are query-string pieces for one parameter of op: valid
// ones and wrong ones.
func (g *generator) paramValues(op *openapi.Operation, p *openapi.Parameter, ids pools) (valid, wrong []string) {
	if p.Schema == nil {
		return nil, nil
	}
	if target, ok := strings.CutSuffix(strings.TrimPrefix(p.Schema.Ref, openapi.SchemaRef("")), columnsSuffix); ok {
		return g.includeValues(p.Name, target)
	}
	if p.Name == "sort" {
		return g.sortValues(op)
	}
	s := g.schema(p.Schema)
	if s == nil {
		return nil, nil
	}
	if s.HasType("array") {
		one := queryText(g.valid(s.Items, ids, false, 0))
		two := queryText(g.valid(s.Items, ids, false, 0))
		if p.Explode != nil && !*p.Explode { // one parameter, values by commas
			valid = append(valid, encodeParam(p.Name, one+","+two), encodeParam(p.Name, one))
			wrong = append(wrong, encodeParam(p.Name, "zz_no_such"), encodeParam(p.Name, ","), encodeParam(p.Name, one+",,"+two))
			return valid, wrong
		}
		valid = append(valid, encodeParam(p.Name, one)+"&"+encodeParam(p.Name, two))
		if s.MinItems != nil && *s.MinItems == 2 {
			valid = []string{encodeParam(p.Name, one) + "&" + encodeParam(p.Name, two)}
		}
		base := strings.TrimSuffix(p.Name, "[]")
		valid = append(valid, encodeParam(base+"[0]", one)+"&"+encodeParam(base+"[1]", two))
		bad := wrongTexts[g.pick(len(wrongTexts))]
		wrong = append(wrong, encodeParam(p.Name, bad), encodeParam(base+"[x]", one), encodeParam(base+"|ne]", one))
		return valid, wrong
	}
	if column, operator, ok := strings.Cut(strings.TrimSuffix(p.Name, "]"), "|"); ok { // filter[column|op]
		return g.operatorValues(op, p, column, operator, ids)
	}
	v := queryText(g.valid(p.Schema, ids, false, 0))
	valid = append(valid, encodeParam(p.Name, v))
	if s.Maximum != "" { // the bound, and past it
		n, _ := s.Maximum.Int64()
		valid = append(valid, encodeParam(p.Name, strconv.FormatInt(n, 10)))
		wrong = append(wrong, encodeParam(p.Name, strconv.FormatInt(n+1, 10)))
	}
	if base := strings.TrimSuffix(p.Name, "]"); g.hasParam(op, base+"|empty]") { // a column with operators
		wrong = append(wrong, encodeParam(base+"|like]", v), encodeParam(base+"|]", v))
	}
	for range 2 {
		wrong = append(wrong, encodeParam(p.Name, wrongTexts[g.pick(len(wrongTexts))]))
	}
	wrong = append(wrong, encodeParam(p.Name, v)+"&"+encodeParam(p.Name, v))
	return valid, wrong
}

// operatorValues are the values of filter[column|operator]: none for
// empty and not_empty, two bounds for b and nb (each a value of
// filter[column]), else a value of filter[column].
func (g *generator) operatorValues(op *openapi.Operation, p *openapi.Parameter, column, operator string, ids pools) (valid, wrong []string) {
	value := p.Schema
	if eq := g.findParam(op, column+"]"); eq != nil && eq.Schema != nil {
		value = eq.Schema
	}
	v := queryText(g.valid(value, ids, false, 0))
	switch operator {
	case "empty", "not_empty":
		return []string{p.Name, encodeParam(p.Name, "")}, nil
	case "b", "nb":
		valid = append(valid, encodeParam(p.Name, v+"|"+queryText(g.valid(value, ids, false, 0))))
		wrong = append(wrong, encodeParam(p.Name, v), encodeParam(p.Name, v+"|"+v+"|"+v))
	default:
		valid = append(valid, encodeParam(p.Name, v))
	}
	wrong = append(wrong, encodeParam(p.Name, wrongTexts[g.pick(len(wrongTexts))]))
	return valid, wrong
}

// includeValues are the values of include[relation] naming records of
// target: some of its columns, none (every column), nested relations.
func (g *generator) includeValues(name, target string) (valid, wrong []string) {
	var columns []string
	if s := g.schema(openapi.Ref(target)); s != nil {
		for _, c := range slices.Sorted(maps.Keys(s.Properties)) {
			if prop := s.Properties[c]; relationTarget(prop) == "" && !g.schema(prop).HasType("array") {
				columns = append(columns, c)
			}
		}
	}
	valid = append(valid, name, encodeParam(name, ""))
	if len(columns) > 0 {
		one, two := columns[g.pick(len(columns))], columns[g.pick(len(columns))]
		valid = append(valid, encodeParam(name, one+","+two), encodeParam(name, one))
		wrong = append(wrong, encodeParam(name, one+",,"+two))
	}
	prefix := strings.TrimSuffix(name, "]")
	valid = append(valid, g.nestedIncludes(prefix, target, 1)...)
	wrong = append(wrong, encodeParam(name, "zz_no_such"), encodeParam(name, ","), prefix+".zz_none]", prefix+".a.b.c]")
	return valid, wrong
}

// sortValues are values of a list's sort: by id, and by a column of the
// records it lists.
func (g *generator) sortValues(op *openapi.Operation) (valid, wrong []string) {
	valid = []string{encodeParam("sort", "-id"), encodeParam("sort", "id")}
	if s := g.schema(openapi.Ref(g.listedSchema(op))); s != nil && len(s.Properties) > 0 {
		names := slices.Sorted(maps.Keys(s.Properties))
		valid = append(valid, encodeParam("sort", "-"+names[g.pick(len(names))]+",id"))
	}
	return valid, []string{encodeParam("sort", "zz_no_such"), encodeParam("sort", "id,,-id"), encodeParam("sort", "--id")}
}

// findParam is op's query parameter named name, nil when there is none.
func (g *generator) findParam(op *openapi.Operation, name string) *openapi.Parameter {
	for _, p := range op.Parameters {
		if p = g.param(p); p.In == "query" && p.Name == name {
			return p
		}
	}
	return nil
}

func (g *generator) hasParam(op *openapi.Operation, name string) bool {
	return g.findParam(op, name) != nil
}

// credOf is the credential an operation asks for.
func credOf(op *openapi.Operation) string {
	for _, req := range op.Security {
		if _, ok := req["adminToken"]; ok {
			return credAdmin
		}
		if _, ok := req["apiKey"]; ok {
			return credKey
		}
	}
	return credNone
}

// pathParam is the parameter of the operation named name.
func (g *generator) pathParam(op *openapi.Operation, name string) *openapi.Parameter {
	for _, p := range op.Parameters {
		if p = g.param(p); p.In == "path" && p.Name == name {
			return p
		}
	}
	return nil
}

// Path variants: the caller's records, the other company's (the first id
// of the path is B's), and a malformed last parameter.
const (
	ownPath   = "own"
	otherPath = "other"
	badPath   = "bad"
)

var badIDs = []string{"0", "-1", "abc", "99999999999999999999", "1.5", "7e2", "%20", "00", "987654321"}

// fillPath makes a concrete path of o's template; false when the variant
// cannot be made (no record of the other company there).
func (g *generator) fillPath(o docOp, own, other pools, variant string) (string, bool) {
	segs := strings.Split(strings.TrimPrefix(o.path, "/"), "/")
	last := -1
	for i, seg := range segs {
		if strings.HasPrefix(seg, "{") {
			last = i
		}
	}
	collection, usedOther := "", false
	out := make([]string, len(segs))
	for i, seg := range segs {
		name, isParam := strings.CutPrefix(seg, "{")
		if !isParam {
			out[i] = seg
			collection += "/" + seg
			continue
		}
		p := g.pathParam(o.op, strings.TrimSuffix(name, "}"))
		var v string
		switch {
		case variant == badPath && i == last:
			v = badIDs[g.pick(len(badIDs))]
		case p != nil && g.schema(p.Schema) != nil && g.schema(p.Schema).HasType("string"):
			v = queryText(g.valid(p.Schema, own, false, 0))
			if variant == badPath {
				v = "x" + strings.Repeat("A", g.pick(100))
			}
		case variant == otherPath && !usedOther:
			if len(other[collection]) == 0 {
				return "", false
			}
			v, usedOther = strconv.FormatInt(other[collection][g.pick(len(other[collection]))], 10), true
		default:
			pool := own[collection]
			if usedOther {
				pool = other[collection]
			}
			v = "987654321" // a record that does not exist
			if len(pool) > 0 {
				v = strconv.FormatInt(pool[g.pick(len(pool))], 10)
			}
		}
		out[i] = v
		collection += "/" + v
	}
	if variant == otherPath && !usedOther {
		return "", false
	}
	return "/" + strings.Join(out, "/"), true
}

// malformedBodies are bodies no operation reads as its JSON.
var malformedBodies = []string{"{", "", "[]", `"x"`, "null", "{}{}", `{"a":1,"a":1}`, "\xff\xfe{}", "\ufeff{}",
	`{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, strings.Repeat(" ", 1<<20+10) + "{}",
	`{"_x":` + strings.Repeat(`{"a":`, 50) + "1" + strings.Repeat("}", 50) + "}", `{"\u0000":1}`}

// otherContentTypes are declared types no JSON operation reads.
var otherContentTypes = []string{"text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1",
	"multipart/form-data; boundary=x"}

// cases are the requests of one operation for company A (own) beside
// company B's records (other).
func (g *generator) cases(o docOp, own, other pools) []fuzzCase {
	cred := credOf(o.op)
	path, _ := g.fillPath(o, own, other, ownPath)
	base := fuzzCase{Method: o.method, Path: path, Cred: cred}
	body, contentType := g.bodySchema(o.op)
	if body != nil {
		base.Body, base.ContentType = g.encode(g.valid(body, own, false, 0)), contentType
	}
	out := []fuzzCase{base}
	add := func(c fuzzCase) { out = append(out, c) }
	for _, variant := range []string{otherPath, badPath, badPath} {
		if p, ok := g.fillPath(o, own, other, variant); ok && p != path {
			c := base
			c.Path = p
			add(c)
		}
	}
	if cred != credNone && g.pick(8) == 0 {
		for _, bad := range []string{credNone, credBad} {
			c := base
			c.Cred = bad
			add(c)
		}
	}
	for _, p := range o.op.Parameters {
		p = g.param(p)
		switch p.In {
		case "query":
			valid, wrong := g.paramValues(o.op, p, own)
			for _, list := range [][]string{valid, wrong} {
				if len(list) > 0 {
					c := base
					c.Query = list[g.pick(len(list))]
					add(c)
				}
			}
		case "header":
			for _, v := range []string{"fuzz-" + strconv.Itoa(g.pick(1e6)), "", strings.Repeat("k", 300), "clé"} {
				c := base
				c.Header = p.Name + ": " + v
				add(c)
			}
		}
	}
	c := base
	c.Query = "zz_unknown=1&_=" + strconv.Itoa(g.pick(1000))
	add(c)
	for range 3 { // parameters together: filters, includes, fields and sort meeting
		if c, ok := g.combined(base, o.op, own); ok {
			add(c)
		}
	}
	if body != nil {
		var others []string // the body's content types beside JSON
		for ct := range o.op.RequestBody.Content {
			if ct != contentType {
				others = append(others, ct)
			}
		}
		sort.Strings(others)
		out = append(out, g.bodyCases(base, body, others, own)...)
	}
	return out
}

// bodySchema is the operation's JSON body schema and its content type,
// nil without a body.
func (g *generator) bodySchema(op *openapi.Operation) (*openapi.Schema, string) {
	if op.RequestBody == nil {
		return nil, ""
	}
	if m := op.RequestBody.Content["application/json"]; m != nil {
		return m.Schema, "application/json"
	}
	for _, ct := range slices.Sorted(maps.Keys(op.RequestBody.Content)) {
		return op.RequestBody.Content[ct].Schema, ct
	}
	return nil, ""
}

func (g *generator) encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// bodyCases are the bodies of one operation: all fields, each field
// wrong, a required field missing, an unknown field, malformed JSON, other
// content types, the other body forms of the operation.
func (g *generator) bodyCases(base fuzzCase, body *openapi.Schema, others []string, own pools) []fuzzCase {
	var out []fuzzCase
	with := func(b, contentType string) {
		c := base
		c.Body, c.ContentType = b, contentType
		out = append(out, c)
	}
	full, isObject := g.valid(body, own, true, 0).(map[string]any)
	if !isObject {
		with(g.encode(g.valid(body, own, true, 0)), "application/json")
		full = map[string]any{}
	} else {
		with(g.encode(full), "application/json")
	}
	s := g.schema(body)
	if len(s.OneOf) > 0 { // one body per shape (POST /jobs: per kind)
		for _, alt := range s.OneOf {
			with(g.encode(g.valid(alt, own, true, 0)), "application/json")
		}
		s = g.schema(s.OneOf[g.pick(len(s.OneOf))])
		full, _ = g.valid(s, own, true, 0).(map[string]any)
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		wrong := g.wrong(s.Properties[name])
		if len(wrong) == 0 {
			continue
		}
		b := copyObject(full)
		b[name] = wrong[g.pick(len(wrong))]
		with(g.encode(b), "application/json")
		if g.schema(s.Properties[name]).HasType("array") { // an element of a collection wrong
			if items := g.schema(s.Properties[name]).Items; items != nil && len(g.wrong(items)) > 0 {
				ws := g.wrong(items)
				b := copyObject(full)
				b[name] = []any{ws[g.pick(len(ws))]}
				with(g.encode(b), "application/json")
			}
		}
	}
	if len(s.Required) > 0 {
		b := copyObject(full)
		delete(b, s.Required[g.pick(len(s.Required))])
		with(g.encode(b), "application/json")
	}
	b := copyObject(full)
	b["zz_unknown_field"], b["_"+strings.Repeat("c", 70)] = 1, 2
	with(g.encode(b), "application/json")
	for range 3 {
		with(malformedBodies[g.pick(len(malformedBodies))], "application/json")
	}
	with(g.encode(full), otherContentTypes[g.pick(len(otherContentTypes))])
	with(g.encode(full), "")
	for _, ct := range others {
		for _, text := range []string{`"one"` + "\n" + `"two"` + "\n", "\n\n", "1\n{\n", `"` + strings.Repeat("x", 600) + `"`, "\xff\n"} {
			with(text, ct)
		}
	}
	return out
}

// copyObject copies an object one level deep.
func copyObject(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// nestedIncludes are include parameters below prefix (`include[items`):
// each relation of the record schema named, and one level further down,
// as deep as the query language allows.
func (g *generator) nestedIncludes(prefix, record string, depth int) []string {
	s := g.schema(openapi.Ref(record))
	if s == nil || depth >= storage.MaxIncludeDepth {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		target := relationTarget(s.Properties[name])
		if target == "" || g.pick(3) != 0 {
			continue
		}
		out = append(out, prefix+"."+name+"]")
		out = append(out, g.nestedIncludes(prefix+"."+name, target, depth+1)...)
	}
	return out
}

// relationTarget is the record schema a relation property holds, "" for
// a column.
func relationTarget(p *openapi.Schema) string {
	switch {
	case p.Items != nil && p.Items.Ref != "":
		p = p.Items
	case len(p.AnyOf) > 0:
		p = p.AnyOf[0]
	}
	name, _ := strings.CutPrefix(p.Ref, openapi.SchemaRef(""))
	if strings.Contains(name, ".") || decimalName.MatchString(name) { // an id or a decimal: a column
		return ""
	}
	return name
}

// combined is base with two to six valid query parameters of op at once.
func (g *generator) combined(base fuzzCase, op *openapi.Operation, own pools) (fuzzCase, bool) {
	var params []*openapi.Parameter
	for _, p := range op.Parameters {
		if p = g.param(p); p.In == "query" {
			params = append(params, p)
		}
	}
	if len(params) < 2 {
		return base, false
	}
	var parts []string
	used := map[string]bool{}
	for range 2 + g.pick(5) {
		p := params[g.pick(len(params))]
		if used[p.Name] { // the single-valued parameters refuse a repeat
			continue
		}
		used[p.Name] = true
		if valid, _ := g.paramValues(op, p, own); len(valid) > 0 {
			parts = append(parts, valid[g.pick(len(valid))])
		}
	}
	base.Query = strings.Join(parts, "&")
	return base, len(parts) > 1
}
