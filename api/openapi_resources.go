package api

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/storage"
)

// resourceDoc describes the CRUD operations of a declared resource mounted
// at path, from its declaration and the query language (query.go): no word
// of them is written by hand, so they follow the declaration.
type resourceDoc struct {
	reg  *storage.Registry
	res  *storage.Resource
	path string // the mount path, `/financial/contracts/:contract/items`
}

func (d resourceDoc) tag() string { return strings.TrimPrefix(openapiPath(d.path), "/") }

// what names the records for the summaries, without Markdown (generators
// show summaries as they are): financial/contracts/{contract}/items.
func (d resourceDoc) what() string { return d.tag() }

// note describes the resource's tag.
func (d resourceDoc) note() string {
	what := "The `" + d.res.Name + "` records, read with the query language (docs/api.md, \"Query language\")"
	if d.res.ReadOnly {
		what += "; read-only: no POST, PUT or DELETE (405)"
	}
	return what + ". " + d.scopeNote()
}

// scopeNote says whose records an operation reaches.
func (d resourceDoc) scopeNote() string {
	if d.res.Shared {
		return "Reference data, the same for every company."
	}
	if d.res.Parent == nil {
		return "Records of the caller's company only; another company's record is a 404."
	}
	return "Records of the parent in the path only (`" + parentParam(d.path) + "`, a record of the caller's company: " +
		"404 otherwise); a record of another parent is a 404."
}

func (d resourceDoc) list() operation {
	return operation{
		tag: d.tag(), tagNote: d.note(),
		summary: "List " + d.what(),
		description: "A page of records with the query language (docs/api.md, \"Query language\"): `filter[column]` " +
			"with operators on the filterable columns, the special filters, `sort`, `fields`, `include[relation]`, " +
			"`customFields`, `page`, `perPage`, `withTotal`. Any other parameter is a 422. " + d.scopeNote(),
		params:    listParams(d.reg, d.res),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("A page of records.", pageOf(d.res))}, d.listErrors()...),
	}
}

func (d resourceDoc) listErrors() []int {
	if d.res.Parent != nil {
		return []int{http.StatusNotFound, http.StatusUnprocessableEntity}
	}
	return []int{http.StatusUnprocessableEntity}
}

func (d resourceDoc) get() operation {
	return operation{
		tag: d.tag(), tagNote: d.note(),
		summary:     "Get one of " + d.what(),
		description: "The record with `fields`, `include[relation]` and `customFields` as in lists. " + d.scopeNote(),
		params:      getParams(d.reg, d.res),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The record.",
			envelope(openapi.Ref(d.res.Name), false))}, http.StatusNotFound, http.StatusUnprocessableEntity),
	}
}

func (d resourceDoc) create() operation {
	op := operation{tag: d.tag(), tagNote: d.note(), summary: "Create one of " + d.what()}
	op.description = "Creates a record from a JSON body of its writable fields (docs/api.md, \"Writes\"): every problem " +
		"is listed in one 422, unknown fields included; references must name records of the caller's company. " +
		"Answers the record with every column and custom field."
	if d.res.Parent != nil {
		op.description += " The parent comes from the path."
	}
	op.body = jsonBody("The record's fields.", true, openapi.Ref(d.res.Name+createSuffix))
	errs := []int{http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity}
	if d.res.Parent != nil {
		errs = append(errs, http.StatusNotFound)
	}
	op.responses = answers(map[int]*openapi.Response{http.StatusCreated: jsonAnswer("Created.", d.written())}, errs...)
	return op
}

// written is the envelope of a write's answer: the record, and the
// write's warnings when the resource declares any or its hooks may warn.
func (d resourceDoc) written() *openapi.Schema {
	env := envelope(openapi.Ref(d.res.Name), true)
	if d.res.Warnings != nil || d.res.HooksWarn {
		env.Properties["warnings"] = openapi.Array(openapi.Ref("Problem")).WithDescription("What the write did that its " +
			"writer may not expect; the write was made all the same (docs/api.md, \"Writes\"). Absent when there is none.")
	}
	return env
}

func (d resourceDoc) update() operation {
	op := operation{tag: d.tag(), tagNote: d.note(), summary: "Update one of " + d.what()}
	op.description = "A partial update: only the fields sent change (docs/api.md, \"Writes\"). " + d.scopeNote() +
		" Answers the record with every column and custom field."
	op.body = jsonBody("The fields to change.", true, openapi.Ref(d.res.Name+updateSuffix))
	op.responses = answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("Updated.", d.written())}, http.StatusNotFound, http.StatusConflict,
		http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity)
	return op
}

func (d resourceDoc) delete() operation {
	op := operation{tag: d.tag(), tagNote: d.note(), summary: "Delete one of " + d.what()}
	op.description = "Deletes the record (and its child collections); a record others still refer to is a 409 and " +
		"nothing is deleted. " + d.scopeNote()
	for _, name := range d.res.DeleteOptions {
		op.params = append(op.params, queryParam(name, "A delete option, `true` or `false` (`1`, `0`); false unless given.",
			openapi.Boolean()))
	}
	op.params = append(op.params, cacheBuster())
	op.responses = answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("Deleted.", openapi.Ref("Deleted"))},
		http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity)
	return op
}

// pageOf is the paginated envelope of a resource's records: the
// component "<resource>.page" (pageSchema).
func pageOf(res *storage.Resource) *openapi.Schema { return openapi.Ref(res.Name + pageSuffix) }

// cacheBuster is `_`, the parameter every route ignores.
func cacheBuster() *openapi.Parameter {
	return &openapi.Parameter{Ref: "#/components/parameters/cacheBuster"}
}

// commaList is a parameter of style form, explode false: one parameter,
// its values separated by commas.
func commaList(name, description string, items *openapi.Schema) *openapi.Parameter {
	no := false
	return &openapi.Parameter{Name: name, In: "query", Description: description, Style: "form", Explode: &no,
		Schema: openapi.Array(items)}
}

// listParams are the query parameters of a resource's list.
func listParams(reg *storage.Registry, res *storage.Resource) []*openapi.Parameter {
	params := []*openapi.Parameter{
		{Ref: "#/components/parameters/page"}, {Ref: "#/components/parameters/perPage"},
		{Ref: "#/components/parameters/withTotal"},
		sortParam(res),
	}
	params = append(params, getParams(reg, res)...)
	params = append(params, filterParams(res)...)
	return params
}

// sortParam is `sort`: one string, the keys by commas.
func sortParam(res *storage.Resource) *openapi.Parameter {
	var names []string
	for _, c := range res.Columns {
		if c.Sortable() {
			names = append(names, c.Name)
		}
	}
	s := openapi.String()
	s.Pattern = "^-?" + alternatives(names) + "(,-?" + alternatives(names) + ")*$"
	return &openapi.Parameter{Name: "sort", In: "query", Schema: s, Description: "Columns to sort by, by commas, " +
		"left to right, `-` before a column for descending (`-due_date,id`); `id` is always the last key. " +
		"Also read repeated (`sort=-due_date&sort=id`) or bracketed (`sort[]=-due_date&sort[]=id`): the same comma list, " +
		"in the order sent. The columns: " + codeList(names) + "."}
}

// getParams are the query parameters of a single record (lists take them
// too).
func getParams(reg *storage.Registry, res *storage.Resource) []*openapi.Parameter {
	params := []*openapi.Parameter{
		commaList("fields", "The columns to return (all unless given), by commas (`fields=id,total`); repeated "+
			"(`fields=id&fields=total`) or bracketed (`fields[]=id&fields[]=total`) read as the same list, in order.",
			openapi.Enum(visibleColumns(res)...)),
	}
	if res.CustomFields {
		params = append(params, &openapi.Parameter{Ref: "#/components/parameters/customFields"})
	}
	for _, rel := range res.Relations {
		target := reg.MustResource(rel.Resource)
		params = append(params, queryParam("include["+rel.Name+"]", includeNote(rel, target),
			openapi.Ref(rel.Resource+columnsSuffix)))
	}
	return append(params, cacheBuster())
}

// columnsSchema is the component "<resource>.columns": a string naming
// some of the resource's visible columns by commas, or empty for every
// one (the value of an include parameter).
func columnsSchema(res *storage.Resource) *openapi.Schema {
	names := visibleColumns(res)
	s := openapi.String()
	s.Pattern = "^(" + alternatives(names) + "(," + alternatives(names) + ")*)?$"
	s.Description = "Columns of `" + res.Name + "` by commas, or empty for every column: " + codeList(names) + "."
	return s
}

// alternatives is a regular expression group matching one of names.
func alternatives(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return "(" + strings.Join(quoted, "|") + ")"
}

// codeList writes names as `a`, `b`, `c`.
func codeList(names []string) string {
	return "`" + strings.Join(names, "`, `") + "`"
}

// includeNote describes an include parameter.
func includeNote(rel storage.Relation, target *storage.Resource) string {
	what := "the `" + target.Name + "` record `" + rel.Key + "` names (null when none)"
	switch rel.Kind {
	case storage.HasMany:
		what = "the `" + target.Name + "` records whose `" + rel.Key + "` is this record's `" + rel.LocalKey() + "`"
	case storage.InArray:
		what = "the `" + target.Name + "` records `" + rel.Key + "` lists, in its order"
	}
	return "Adds " + what + ", with the columns listed by commas; an empty value (`include[" + rel.Name + "]=`) " +
		"adds every column; repeated or bracketed (`include[" + rel.Name + "][]=`), read as the comma list in the order sent. " +
		"Nested relations: `include[" + rel.Name +
		".relation]`, at most " + strconv.Itoa(storage.MaxIncludeDepth) + " deep (docs/api.md, \"Query language\")."
}

func visibleColumns(res *storage.Resource) []string {
	var names []string
	for _, c := range res.Columns {
		if c.Visible() {
			names = append(names, c.Name)
		}
	}
	return names
}

// filterOperator is an operator of filter[column|op], as a parameter of
// its own: what it keeps, and whether its value is two bounds or none.
type filterOperator struct {
	name, keeps string
	bounds      bool // `low|high`
	noValue     bool // the value is ignored
}

// scalarOperators are the operators of a column filter beside equality
// (the aliases of query.go's operators, long names, are the same).
var scalarOperators = []filterOperator{
	{name: "ne", keeps: "is not the value, or is empty"},
	{name: "l", keeps: "is less than the value"},
	{name: "le", keeps: "is at most the value"},
	{name: "g", keeps: "is greater than the value"},
	{name: "ge", keeps: "is at least the value"},
	{name: "b", keeps: "is between the two bounds, `low|high`, both included", bounds: true},
	{name: "nb", keeps: "is not between the two bounds, `low|high`", bounds: true},
	{name: "empty", keeps: "is empty (null, or `''` for text)", noValue: true},
	{name: "not_empty", keeps: "is not empty", noValue: true},
}

// filterParams are the filters of a resource: for each filterable column
// one parameter per form (equality, then each operator as
// filter[column|op]), and one per special filter.
func filterParams(res *storage.Resource) []*openapi.Parameter {
	var params []*openapi.Parameter
	for _, c := range res.Columns {
		if !c.Filterable {
			continue
		}
		value := filterSchema(c.Type, c.Enum, c.Local)
		meaning := ""
		if c.Doc != "" {
			meaning = " `" + c.Name + "`: " + c.Doc
		}
		if c.Type.IsArray() {
			params = append(params, listFilter("filter["+c.Name+"][]", "Rows whose `"+c.Name+"` holds any of the values."+
				commaNote(c.Type, c.Enum)+meaning, value))
		} else {
			note := "Rows whose `" + c.Name + "` equals the value."
			if c.Type == storage.String {
				note += " A `%` in it makes a pattern: `%` matches any run of characters, case-insensitively."
			}
			params = append(params, queryParam("filter["+c.Name+"]", note+meaning, value))
		}
		for _, op := range scalarOperators {
			if c.Type.IsArray() && !op.noValue {
				continue
			}
			params = append(params, operatorParam(c, op, value))
		}
	}
	for _, f := range res.Filters {
		params = append(params, specialFilterParam(f))
	}
	return params
}

// operatorParam is filter[column|op].
func operatorParam(c storage.Column, op filterOperator, value *openapi.Schema) *openapi.Parameter {
	name := "filter[" + c.Name + "|" + op.name + "]"
	note := "Rows whose `" + c.Name + "` " + op.keeps + "."
	switch {
	case op.noValue:
		return queryParam(name, note+" The value is ignored (`"+name+"=`).", openapi.String())
	case op.bounds:
		s := openapi.String()
		s.Pattern = `^[^|]*\|[^|]*$`
		note += " Each bound is written as `filter[" + c.Name + "]`'s value."
		if value.Description != "" {
			note += " " + value.Description
		}
		return queryParam(name, note, s)
	}
	if c.Type == storage.String && op.name == "ne" {
		note += " A `%` in it makes a pattern, as with equality."
	}
	return queryParam(name, note, value)
}

// specialFilterParam is a declared filter: one value, or a list.
func specialFilterParam(f storage.SpecialFilter) *openapi.Parameter {
	value := filterSchema(f.Elem, f.Enum, false)
	if f.Scalar {
		if f.Elem == storage.Bool {
			return queryParam("filter["+f.Name+"]", "`true` keeps the rows where the filter's condition holds, "+
				"`false` those where it does not (docs/api.md, \"Special filters\").", value)
		}
		return queryParam("filter["+f.Name+"]", "One value (docs/api.md, \"Special filters\").", value)
	}
	note := "A list: `filter[" + f.Name + "][]=a&filter[" + f.Name + "][]=b` (or one `filter[" + f.Name + "]=a`)."
	p := listFilter("filter["+f.Name+"][]", note+commaNote(f.Elem, f.Enum), value)
	if f.Len > 0 {
		p.Schema.MinItems, p.Schema.MaxItems = openapi.Int(f.Len), openapi.Int(f.Len)
		p.Description += " Exactly " + strconv.Itoa(f.Len) + " values."
	}
	return p
}

// commaNote says how a list filter of items of type t reads a value with
// commas (commaFree).
func commaNote(t storage.Type, enum []string) string {
	if commaFree(t, enum) {
		return " A value with commas is read as that many values (`1,2` is `1` and `2`)."
	}
	return " A value keeps its commas."
}

// listFilter is a filter taking a list, one parameter per value.
func listFilter(name, description string, items *openapi.Schema) *openapi.Parameter {
	yes := true
	arr := openapi.Array(items)
	arr.MaxItems = openapi.Int(MaxInValues)
	return &openapi.Parameter{Name: name, In: "query", Description: description, Style: "form", Explode: &yes, Schema: arr}
}
