package api

import (
	"net/http"
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

// what names the records for the summaries: `financial/contracts/{contract}/items`.
func (d resourceDoc) what() string { return "`" + d.tag() + "`" }

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

// readOnlyNote is said of the writes of a read-only resource.
const readOnlyNote = "This resource is read-only: the operation is refused with a 422 `This resource is read-only.` " +
	"(a 404 first when an id of the path names no record)."

// refused is the operation of a write to a read-only resource: 422, or
// 404 for an id of its path (the parent's, the record's) that names none.
func (d resourceDoc) refused(op operation, withID bool) operation {
	op.description = readOnlyNote
	op.responses = answers(nil, http.StatusUnprocessableEntity)
	if withID || d.res.Parent != nil {
		op.responses = answers(nil, http.StatusUnprocessableEntity, http.StatusNotFound)
	}
	return op
}

func (d resourceDoc) list() operation {
	return operation{
		tag:     d.tag(),
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
		tag:         d.tag(),
		summary:     "Get one of " + d.what(),
		description: "The record with `fields`, `include[relation]` and `customFields` as in lists. " + d.scopeNote(),
		params:      getParams(d.reg, d.res),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The record.",
			envelope(openapi.Ref(d.res.Name), false))}, http.StatusNotFound, http.StatusUnprocessableEntity),
	}
}

func (d resourceDoc) create() operation {
	op := operation{tag: d.tag(), summary: "Create one of " + d.what()}
	if d.res.ReadOnly {
		return d.refused(op, false)
	}
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
	op.responses = answers(map[int]*openapi.Response{http.StatusCreated: jsonAnswer("Created.",
		envelope(openapi.Ref(d.res.Name), true))}, errs...)
	return op
}

func (d resourceDoc) update() operation {
	op := operation{tag: d.tag(), summary: "Update one of " + d.what()}
	if d.res.ReadOnly {
		return d.refused(op, true)
	}
	op.description = "A partial update: only the fields sent change (docs/api.md, \"Writes\"). " + d.scopeNote() +
		" Answers the record with every column and custom field."
	op.body = jsonBody("The fields to change.", true, openapi.Ref(d.res.Name+updateSuffix))
	op.responses = answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("Updated.",
		envelope(openapi.Ref(d.res.Name), true))}, http.StatusNotFound, http.StatusConflict,
		http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity)
	return op
}

func (d resourceDoc) delete() operation {
	op := operation{tag: d.tag(), summary: "Delete one of " + d.what()}
	if d.res.ReadOnly {
		return d.refused(op, true)
	}
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

// pageOf is the paginated envelope of a resource's records.
func pageOf(res *storage.Resource) *openapi.Schema {
	return &openapi.Schema{
		AllOf:      []*openapi.Schema{openapi.Ref("Page")},
		Properties: map[string]*openapi.Schema{"data": openapi.Array(openapi.Ref(res.Name))},
	}
}

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
		commaList("sort", "Columns to sort by, left to right, `-` for descending; `id` is always the last key.",
			openapi.Enum(sortKeys(res)...)),
	}
	params = append(params, getParams(reg, res)...)
	params = append(params, filterParams(res)...)
	return params
}

// getParams are the query parameters of a single record (lists take them
// too).
func getParams(reg *storage.Registry, res *storage.Resource) []*openapi.Parameter {
	params := []*openapi.Parameter{
		commaList("fields", "The columns to return (all unless given).", openapi.Enum(visibleColumns(res)...)),
	}
	if res.CustomFields {
		params = append(params, &openapi.Parameter{Ref: "#/components/parameters/customFields"})
	}
	for _, rel := range res.Relations {
		target := reg.MustResource(rel.Resource)
		p := commaList("include["+rel.Name+"]", includeNote(rel, target), openapi.Enum(visibleColumns(target)...))
		p.AllowEmptyValue, p.Schema.References = true, rel.Resource
		params = append(params, p)
	}
	return append(params, cacheBuster())
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
	return "Adds " + what + ", with the columns listed (all without a value). Nested relations: `include[" + rel.Name +
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

func sortKeys(res *storage.Resource) []string {
	var keys []string
	for _, c := range res.Columns {
		if c.Sortable() {
			keys = append(keys, c.Name, "-"+c.Name)
		}
	}
	return keys
}

// Operators of a column filter beside equality, as filter[column|op]
// takes them (the aliases in query.go's operators are the same).
var (
	scalarOperators = []string{"ne", "l", "le", "g", "ge", "b", "nb", "empty", "not_empty"}
	arrayOperators  = []string{"empty", "not_empty"}
)

// filterParams are the filters of a resource: one per filterable column
// (equality; operators as filter[column|op]) and one per special filter.
func filterParams(res *storage.Resource) []*openapi.Parameter {
	var params []*openapi.Parameter
	for _, c := range res.Columns {
		if !c.Filterable {
			continue
		}
		if c.Type.IsArray() {
			p := listFilter("filter["+c.Name+"][]", "Rows whose `"+c.Name+"` holds any of the values. "+
				"`filter["+c.Name+"|empty]`, `filter["+c.Name+"|not_empty]`.", filterSchema(c.Type, c.Enum, c.Local))
			p.Operators = arrayOperators
			params = append(params, p)
			continue
		}
		note := "Rows whose `" + c.Name + "` equals the value."
		if c.Type == storage.String {
			note += " A `%` in it makes a pattern: `%` matches any run of characters, case-insensitively."
		}
		note += " Operators as `filter[" + c.Name + "|op]`: `ne`, `l`, `le`, `g`, `ge`, `b` and `nb` (`low|high`), " +
			"`empty`, `not_empty` (long names: docs/api.md)."
		p := queryParam("filter["+c.Name+"]", note, filterSchema(c.Type, c.Enum, c.Local))
		p.Operators = scalarOperators
		params = append(params, p)
	}
	for _, f := range res.Filters {
		params = append(params, specialFilterParam(f))
	}
	return params
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
	p := listFilter("filter["+f.Name+"][]", note, value)
	if f.Len > 0 {
		p.Schema.MinItems, p.Schema.MaxItems = openapi.Int(f.Len), openapi.Int(f.Len)
		p.Description += " Exactly " + strconv.Itoa(f.Len) + " values."
	}
	return p
}

// listFilter is a filter taking a list, one parameter per value.
func listFilter(name, description string, items *openapi.Schema) *openapi.Parameter {
	yes := true
	arr := openapi.Array(items)
	arr.MaxItems = openapi.Int(MaxInValues)
	return &openapi.Parameter{Name: name, In: "query", Description: description, Style: "form", Explode: &yes, Schema: arr}
}
