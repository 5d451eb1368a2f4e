package api

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// Limits of list operations.
const (
	DefaultPerPage = 10
	MaxPerPage     = 100
	// MaxFilters bounds the column filters of one request.
	MaxFilters = 100
	// MaxInValues bounds the values of all In-filters of one request.
	MaxInValues = 1000
	// MaxOffset bounds the rows a page may skip, (page-1)*perPage: a
	// deeper page would make PostgreSQL read and drop every row before it.
	MaxOffset = 100_000
)

// operators maps every operator name and alias of the query language.
var operators = map[string]storage.Operator{
	"not_equal": storage.NotEqual, "ne": storage.NotEqual,
	"less": storage.Less, "l": storage.Less,
	"less_or_equal": storage.LessOrEqual, "le": storage.LessOrEqual,
	"greater": storage.Greater, "g": storage.Greater,
	"greater_or_equal": storage.GreaterOrEqual, "ge": storage.GreaterOrEqual,
	"between": storage.Between, "b": storage.Between,
	"not_between": storage.NotBetween, "nb": storage.NotBetween,
	"empty": storage.Empty, "not_empty": storage.NotEmpty,
}

// operatorNames lists the operators for the refusal of an unknown one,
// each long name with its short one.
const operatorNames = "not_equal (ne), less (l), less_or_equal (le), greater (g), greater_or_equal (ge), " +
	"between (b), not_between (nb), empty, not_empty"

// queryParser checks a query string against one resource declaration and
// collects every problem before giving up.
type queryParser struct {
	reg      *storage.Registry
	res      *storage.Resource
	problems []finance.Problem
	seen     map[string]bool // single-valued parameters already read
	inValues int             // values of the list filters read so far
}

// once reports whether a single-valued parameter is read for the first
// time, and refuses it otherwise.
func (p *queryParser) once(key string) bool {
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	if p.seen[key] {
		p.fail(key, "is given more than once")
		return false
	}
	p.seen[key] = true
	return true
}

// countIn adds n values of list filters (In-filters, array columns) and
// refuses the parameter that takes them past MaxInValues.
func (p *queryParser) countIn(key string, n int) {
	if p.inValues <= MaxInValues && p.inValues+n > MaxInValues {
		p.fail(key, "at most %d In-filter values in one request", MaxInValues)
	}
	p.inValues += n
}

// listValues counts the values a filter binds as one list: a special
// filter's, or those of an array column's equality.
func listValues(res *storage.Resource, f storage.Filter, sc *storage.SpecialCondition) int {
	if sc != nil {
		return len(sc.Values)
	}
	if c, _ := res.Column(f.Column); c.Type.IsArray() && f.Op == storage.Equal {
		return len(f.Values)
	}
	return 0
}

// fail records a problem of the query, once: a parameter repeated with
// the same fault (filter[nope]=1&filter[nope]=2) is one problem, not one
// per repetition; different faults of one parameter are each recorded.
func (p *queryParser) fail(field, format string, args ...any) {
	problem := finance.Problem{Field: field, Message: fmt.Sprintf(format, args...)}
	if !slices.Contains(p.problems, problem) {
		p.problems = append(p.problems, problem)
	}
}

func (p *queryParser) err() error {
	if len(p.problems) == 0 {
		return nil
	}
	return finance.InvalidInput(p.problems)
}

// parseList turns the query string of a list request into a checked query.
func parseList(reg *storage.Registry, res *storage.Resource, rawQuery string) (storage.ListQuery, error) {
	p := &queryParser{reg: reg, res: res}
	q := storage.ListQuery{Page: 1, PerPage: DefaultPerPage}
	params := p.params(rawQuery)
	special := map[string]*storage.SpecialCondition{}
	var specialOrder []string
	for _, kv := range params {
		switch {
		case kv.key == "page" && p.once(kv.key):
			q.Page = p.positiveInt(kv, math.MaxInt)
		case kv.key == "perPage" && p.once(kv.key):
			q.PerPage = p.positiveInt(kv, MaxPerPage)
		case kv.key == "withTotal" && p.once(kv.key):
			q.WithTotal = p.boolean(kv.key, kv.value)
		case kv.key == "page" || kv.key == "perPage" || kv.key == "withTotal":
			// refused by once
		case strings.HasPrefix(kv.key, "filter["):
			name, f, sc, ok := p.filter(kv)
			if !ok {
				continue
			}
			p.countIn(kv.key, listValues(p.res, f, sc))
			if sc == nil {
				if contradicts(p.res, q.Filters, f) {
					p.fail(kv.key, "%s", p.contradiction(f))
					continue
				}
				q.Filters = appendFilter(p.res, q.Filters, f)
				continue
			}
			if prev, seen := special[name]; seen && sc.Filter.Scalar {
				p.fail(kv.key, "is given more than once")
				continue
			} else if seen {
				prev.Values = append(prev.Values, sc.Values...)
				continue
			}
			special[name] = sc
			specialOrder = append(specialOrder, name)
		default:
			p.common(kv, &q.Fields, &q.Sort, &q.CustomFields)
		}
	}
	for _, name := range specialOrder {
		sc := special[name]
		if msg := sc.Filter.CheckCount(len(sc.Values)); msg != "" {
			p.fail("filter["+name+"]", "%s", msg)
		}
		q.Special = append(q.Special, *sc)
	}
	if len(q.Filters) > MaxFilters {
		p.fail("filter", "at most %d filters in one request", MaxFilters)
	}
	if maxPage := MaxOffset/q.PerPage + 1; q.Page > maxPage {
		p.fail("page", "must be at most %d with perPage %d: a page starts at most %d rows in; narrow the filters or reverse the sort",
			maxPage, q.PerPage, MaxOffset)
	}
	q.Includes = p.includes(params)
	return q, p.err()
}

// parseGet turns the query string of a single-record request into a
// checked query: fields, include, customFields (sort is accepted and has
// nothing to order).
func parseGet(reg *storage.Registry, res *storage.Resource, rawQuery string) (storage.GetQuery, error) {
	p := &queryParser{reg: reg, res: res}
	var q storage.GetQuery
	var sortKeys []storage.SortKey
	params := p.params(rawQuery)
	for _, kv := range params {
		p.common(kv, &q.Fields, &sortKeys, &q.CustomFields)
	}
	q.Includes = p.includes(params)
	return q, p.err()
}

func (p *queryParser) params(rawQuery string) []param {
	params, bad := parseParams(rawQuery)
	for _, b := range bad {
		p.fail("query", "cannot decode %q", b)
	}
	return joinLists(params)
}

// common handles the parameters lists and single records share.
func (p *queryParser) common(kv param, fields *[]string, sortKeys *[]storage.SortKey, custom *bool) {
	switch {
	case kv.key == "fields" || kv.key == "sort" || kv.key == "customFields":
		if !p.once(kv.key) {
			return
		}
		switch kv.key {
		case "fields":
			*fields = p.columns(kv.key, p.res, kv.value)
		case "sort":
			*sortKeys = p.sort(kv.value)
		default:
			*custom = p.boolean(kv.key, kv.value)
		}
	case strings.HasPrefix(kv.key, "include["):
		// handled once all parameters are known (nested paths need their parents)
	case kv.key == "_":
		// a client's cache buster
	default:
		p.fail(kv.key, "unknown query parameter")
	}
}

func (p *queryParser) positiveInt(kv param, max int) int {
	n, err := strconv.Atoi(kv.value)
	if err != nil || n < 1 {
		p.fail(kv.key, "must be a whole number of 1 or more")
		return 1
	}
	if n > max {
		p.fail(kv.key, "must be at most %d", max)
		return max
	}
	return n
}

func (p *queryParser) boolean(field, value string) bool {
	b, ok := parseBool(value)
	if !ok {
		p.fail(field, "must be true or false")
	}
	return b
}

// columns checks a comma-separated list of column names of res.
func (p *queryParser) columns(field string, res *storage.Resource, list string) []string {
	names := strings.Split(list, ",")
	out := make([]string, 0, len(names))
	for _, n := range names {
		if c, ok := res.Column(n); !ok || !c.Visible() {
			p.fail(field, "unknown column %q", n)
			continue
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func (p *queryParser) sort(list string) []storage.SortKey {
	var keys []storage.SortKey
	for _, item := range strings.Split(list, ",") {
		name, desc := strings.CutPrefix(item, "-")
		c, ok := p.res.Column(name)
		if !ok || !c.Visible() {
			p.fail("sort", "unknown column %q", name)
			continue
		}
		if !c.Sortable() {
			p.fail("sort", "column %q holds JSON and cannot be sorted on", name)
			continue
		}
		keys = append(keys, storage.SortKey{Column: name, Desc: desc})
	}
	return keys
}

// filterKey matches filter[name], filter[name|op], filter[name][] and
// filter[name][N].
var filterKey = regexp.MustCompile(`^filter\[([^\[\]|]+)(?:\|([^\[\]]*))?\](?:\[(\d*)\])?$`)

// filter reads one filter parameter: a column filter, or one value of a
// special (In) filter.
func (p *queryParser) filter(kv param) (string, storage.Filter, *storage.SpecialCondition, bool) {
	m := filterKey.FindStringSubmatch(kv.key)
	if m == nil {
		p.fail(kv.key, "malformed filter: use filter[field], filter[field|operator] or filter[nameIn][]")
		return "", storage.Filter{}, nil, false
	}
	name, opName, listForm := m[1], m[2], strings.Count(kv.key, "[") == 2
	if sf, ok := p.res.Filter(name); ok {
		if opName != "" || strings.Contains(kv.key, "|") {
			p.fail(kv.key, "filter %q takes no operator", name)
			return "", storage.Filter{}, nil, false
		}
		if sf.Scalar && listForm {
			p.fail(kv.key, "filter %q takes one value, not a list", name)
			return "", storage.Filter{}, nil, false
		}
		texts := []string{kv.value}
		if !sf.Scalar && commaFree(sf.Elem, sf.Enum) {
			texts = strings.Split(kv.value, ",")
		}
		sc := &storage.SpecialCondition{Filter: sf}
		ok := true
		for _, text := range texts {
			v, valid := p.specialValue(kv.key, sf, text)
			sc.Values = append(sc.Values, v)
			ok = ok && valid
		}
		return name, storage.Filter{}, sc, ok
	}
	if colName, key, dotted := strings.Cut(name, "."); dotted {
		return p.keyFilter(kv, name, colName, key, opName, listForm)
	}
	col, ok := p.res.Column(name)
	if !ok || !col.Filterable {
		p.fail(kv.key, "unknown filter %q", name)
		return "", storage.Filter{}, nil, false
	}
	if listForm && !col.Type.IsArray() {
		p.fail(kv.key, "filter %q takes one value, not a list", name)
		return "", storage.Filter{}, nil, false
	}
	f, ok := p.columnFilter(kv, col, opName)
	return name, f, nil, ok
}

// keyFilter reads a filter on a top-level key of a JSON column that
// declares KeyFilters (filter[payload.month]=2026-11): the key's text,
// filtered as a string column is.
func (p *queryParser) keyFilter(kv param, name, colName, key, opName string, listForm bool) (string, storage.Filter, *storage.SpecialCondition, bool) {
	col, ok := p.res.Column(colName)
	if !ok || !col.KeyFilters {
		p.fail(kv.key, "unknown filter %q", name)
		return "", storage.Filter{}, nil, false
	}
	if !storage.ValidJSONKey(key) {
		p.fail(kv.key, "a key of %s is 1 to 64 letters, digits and _", colName)
		return "", storage.Filter{}, nil, false
	}
	if listForm {
		p.fail(kv.key, "filter %q takes one value, not a list", name)
		return "", storage.Filter{}, nil, false
	}
	f, ok := p.columnFilter(kv, storage.Column{Name: colName, Type: storage.String}, opName)
	f.Key = key
	return name, f, nil, ok
}

func (p *queryParser) columnFilter(kv param, col storage.Column, opName string) (storage.Filter, bool) {
	f := storage.Filter{Column: col.Name, Op: storage.Equal}
	if strings.Contains(kv.key, "|") {
		op, ok := operators[opName]
		if !ok {
			p.fail(kv.key, "unknown operator %q: the operators are %s", opName, operatorNames)
			return f, false
		}
		f.Op = op
	}
	switch f.Op {
	case storage.Empty, storage.NotEmpty:
		return f, true
	case storage.Between, storage.NotBetween:
		lo, hi, found := strings.Cut(kv.value, "|")
		if !found || strings.Contains(hi, "|") {
			p.fail(kv.key, "needs two bounds separated by |")
			return f, false
		}
		a, ok1 := p.columnValue(kv.key, col, lo)
		b, ok2 := p.columnValue(kv.key, col, hi)
		f.Values = []any{a, b}
		return f, ok1 && ok2
	}
	if col.Type.IsArray() && f.Op != storage.Equal {
		p.fail(kv.key, "an array filter takes no operator but empty and not_empty")
		return f, false
	}
	if col.Type.IsArray() {
		return p.arrayValues(kv, col, f)
	}
	v, ok := p.columnValue(kv.key, col, kv.value)
	f.Values = []any{v}
	if s, isString := v.(string); isString && col.Type == storage.String && strings.Contains(s, "%") {
		f.Pattern = f.Op == storage.Equal || f.Op == storage.NotEqual
	}
	if s, isString := v.(string); ok && isString && !f.Pattern && (f.Op == storage.Equal || f.Op == storage.NotEqual) {
		if msg := col.CheckEnum(s); msg != "" {
			p.fail(kv.key, "%s", msg)
			ok = false
		}
	}
	return f, ok
}

// specialValue parses one value of a special filter: its Normalize, its
// type, its Enum.
func (p *queryParser) specialValue(field string, sf storage.SpecialFilter, text string) (any, bool) {
	raw := text
	if sf.Normalize != nil {
		text = sf.Normalize(text)
	}
	v, ok := p.value(field, sf.Elem, text)
	if ok && len(sf.Enum) > 0 && !slices.Contains(sf.Enum, raw) {
		p.fail(field, "must be one of: %s", strings.Join(sf.Enum, ", "))
		ok = false
	}
	return v, ok
}

// commaFree reports whether no value of type t (limited to enum, when it
// has values) can hold a comma, so that a list filter's value a,b is read
// as the two values a and b: the form a client configured for comma lists
// (OpenAPI's explode: false) sends. Text keeps its commas.
func commaFree(t storage.Type, enum []string) bool {
	switch t {
	case storage.String, storage.TextArray:
		return len(enum) > 0 && !slices.ContainsFunc(enum, func(v string) bool { return strings.Contains(v, ",") })
	case storage.JSON, storage.JSONText:
		return false
	}
	return true
}

// arrayValues reads the values of an array column's filter
// (filter[tag][]=1): one element, or, for elements that cannot hold a
// comma, a comma list of them (filter[tag][]=1,2).
func (p *queryParser) arrayValues(kv param, col storage.Column, f storage.Filter) (storage.Filter, bool) {
	texts := []string{kv.value}
	if commaFree(col.Type, col.Enum) {
		texts = strings.Split(kv.value, ",")
	}
	ok := true
	for _, text := range texts {
		v, valid := p.columnValue(kv.key, col, text)
		if s, isString := v.(string); valid && isString {
			if msg := col.CheckEnum(s); msg != "" {
				p.fail(kv.key, "%s", msg)
				valid = false
			}
		}
		f.Values = append(f.Values, v)
		ok = ok && valid
	}
	return f, ok
}

// value parses a filter value by the type of its column.
func (p *queryParser) value(field string, t storage.Type, s string) (any, bool) {
	v, msg := parseText(t, s)
	if msg != "" {
		p.fail(field, "%s", msg)
		return nil, false
	}
	return v, true
}

// columnValue parses a column filter's value by its column: its
// Normalize, then its type.
func (p *queryParser) columnValue(field string, col storage.Column, s string) (any, bool) {
	v, msg := parseColumnText(col, s)
	if text, isText := v.(string); msg == "" && isText && col.FilterCheck != nil && !strings.Contains(text, "%") {
		msg = col.FilterCheck(text)
	}
	if msg != "" {
		p.fail(field, "%s", msg)
		return nil, false
	}
	return v, true
}

// includes builds the include tree from every include[path]=columns
// parameter. A nested path without its parent includes the parent with all
// its columns (rule 3 of the query language).
func (p *queryParser) includes(params []param) []*storage.Include {
	type entry struct {
		path, key, cols string
		order           int
	}
	var entries []entry
	for _, kv := range params {
		path, ok := strings.CutPrefix(kv.key, "include[")
		if !ok || !p.once(kv.key) {
			continue
		}
		path, ok = strings.CutSuffix(path, "]")
		if !ok || path == "" || strings.ContainsAny(path, "[]") {
			p.fail(kv.key, "malformed include: use include[relation] or include[relation.nested]")
			continue
		}
		if strings.Count(path, ".") >= storage.MaxIncludeDepth {
			p.fail(kv.key, "at most %d relations deep", storage.MaxIncludeDepth)
			continue
		}
		entries = append(entries, entry{path: path, key: kv.key, cols: kv.value})
	}
	// parents before children, otherwise in the order sent
	sort.SliceStable(entries, func(i, j int) bool {
		return strings.Count(entries[i].path, ".") < strings.Count(entries[j].path, ".")
	})
	var roots []*storage.Include
	nodes := map[string]*storage.Include{}
	for _, e := range entries {
		node, target := p.includeNode(e.key, e.path, &roots, nodes)
		if node == nil {
			continue
		}
		node.Implicit, node.Param = false, e.key
		if e.cols != "" {
			node.Columns = p.columns(e.key, target, e.cols)
		}
	}
	return roots
}

// includeNode finds or creates the node of path and its missing parents.
func (p *queryParser) includeNode(key, path string, roots *[]*storage.Include, nodes map[string]*storage.Include) (*storage.Include, *storage.Resource) {
	res := p.res
	siblings := roots
	var node *storage.Include
	segments := strings.Split(path, ".")
	for i, seg := range segments {
		prefix := strings.Join(segments[:i+1], ".")
		node = nodes[prefix]
		if node == nil {
			rel, ok := res.Relation(seg)
			if !ok {
				p.fail(key, "unknown relation %q", prefix)
				return nil, nil
			}
			node = &storage.Include{Relation: rel, Implicit: true, Param: key}
			nodes[prefix] = node
			*siblings = append(*siblings, node)
		}
		res = p.reg.MustResource(node.Relation.Resource)
		siblings = &node.Children
	}
	return node, res
}

// appendFilter adds f to filters; the values of an array column's list
// (filter[tag][]=1&filter[tag][]=2) make one filter: any of them.
// contradicts reports an exact equality that no row can meet together
// with one read before it: the same scalar column (or JSON key) equal to
// another value. Filters combine with AND, so a client repeating
// filter[status]=open&filter[status]=paid to mean either would get an
// empty page and no word why. A repeat of the same value, a pattern, an
// array column's values (one list) and every other operator combine as
// they always do.
func contradicts(res *storage.Resource, filters []storage.Filter, f storage.Filter) bool {
	if c, _ := res.Column(f.Column); c.Type.IsArray() || !exactEquality(f) {
		return false
	}
	for _, prev := range filters {
		if prev.Column == f.Column && prev.Key == f.Key && exactEquality(prev) &&
			fmt.Sprint(prev.Values[0]) != fmt.Sprint(f.Values[0]) {
			return true
		}
	}
	return false
}

// exactEquality says whether f is an equality with one value and no pattern.
func exactEquality(f storage.Filter) bool {
	return f.Op == storage.Equal && !f.Pattern && len(f.Values) == 1
}

// contradiction explains a contradicting equality, naming the In-filter
// of the column when the resource declares one.
func (p *queryParser) contradiction(f storage.Filter) string {
	msg := "is given more than once with different values; filters combine with AND, so no row could match"
	for _, sf := range p.res.Filters {
		if f.Key == "" && sf.Column == f.Column && !sf.Scalar {
			return msg + fmt.Sprintf("; for any of several values use filter[%s][]", sf.Name)
		}
	}
	return msg
}

func appendFilter(res *storage.Resource, filters []storage.Filter, f storage.Filter) []storage.Filter {
	if c, _ := res.Column(f.Column); c.Type.IsArray() && f.Op == storage.Equal {
		for i := range filters {
			if filters[i].Column == f.Column && filters[i].Op == storage.Equal {
				filters[i].Values = append(filters[i].Values, f.Values...)
				return filters
			}
		}
	}
	return append(filters, f)
}
