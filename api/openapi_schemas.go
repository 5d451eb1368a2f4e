package api

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/storage"
)

// The JSON Schemas of the resource declarations, as the API reads and
// writes their values (values.go, body.go, storage.Record): the record a
// response carries, the create and update bodies, and the value of a
// filter. Component names: the resource's name for its record
// ("invoices"), ".create" and ".update" for its bodies, ".edit" and
// ".change" for an element of a child collection in an update.

const (
	createSuffix  = ".create"
	updateSuffix  = ".update"
	editSuffix    = ".edit"    // an element of a child collection changing or removing a child
	changeSuffix  = ".change"  // any element of a child collection in an update: an add or an edit
	pageSuffix    = ".page"    // a page of the records, in the list envelope
	idSuffix      = ".id"      // the id of a record, as a reference column holds it
	columnsSuffix = ".columns" // some of the columns by commas, as include[relation] takes them
)

// Decimals: the component "Decimal<n>" is a JSON number of at most n
// decimal places (money is Decimal2), "Decimal<n>Text" its text, which
// bodies also take. No multipleOf: validators test it on binary floats,
// where 19.99 is no multiple of 0.01.
var decimalName = regexp.MustCompile(`^Decimal([1-9])(Text)?$`)

// decimalRef is the component of a decimal of scale places.
func decimalRef(scale int, text bool) *openapi.Schema {
	name := "Decimal" + strconv.Itoa(scale)
	if text {
		name += "Text"
	}
	return openapi.Ref(name)
}

// decimalComponent is the schema of a component decimalName matches.
func decimalComponent(name string) (*openapi.Schema, bool) {
	m := decimalName.FindStringSubmatch(name)
	if m == nil {
		return nil, false
	}
	scale, _ := strconv.Atoi(m[1])
	places := "two"
	if scale != 2 {
		places = m[1]
	}
	if m[2] != "" {
		s := openapi.String()
		s.Pattern = `^-?[0-9]+(\.[0-9]{1,` + m[1] + `})?$`
		s.Description = "A decimal with at most " + places + " places, as text (`\"12.50\"`): what bodies take beside the number."
		return s, true
	}
	s := openapi.Number()
	s.Title = name
	s.Description = "A decimal with at most " + places + " decimal places, a JSON number without exponent, written " +
		"with its " + places + " places where it is stored (`1000." + strings.Repeat("0", scale) + "`); read it as a decimal, " +
		"not a binary float (docs/api.md, \"Money\")."
	return s, true
}

// customFieldPattern matches the key of a custom field (`_name`).
const customFieldPattern = `^_[A-Za-z0-9][A-Za-z0-9_]{0,62}$`

// dateTimeOut is how responses write a date-time: UTC, whole seconds.
const dateTimeOut = `^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$`

// dateTimeIn says which forms of a date-time bodies and filters take.
const dateTimeIn = "A date-time, UTC: `YYYY-MM-DD HH:MM:SS` (taken as UTC), RFC 3339 with its offset or `Z` " +
	"(converted to UTC), or a date alone (midnight in the record's time zone, else the company's). " +
	"Whole seconds, years 0001 to 9999."

// localDateTimeIn and localDateTimeOut say the same of a date-time read
// in its record's time zone (an event's initial_date in its time_zone).
const (
	localDateTimeIn = "A date-time of the record's time zone: `YYYY-MM-DD HH:MM:SS` or a date alone (midnight) " +
		"read in it, or RFC 3339 with its offset or `Z` (that instant). Whole seconds, years 0001 to 9999."
	localDateTimeOut = "`YYYY-MM-DD HH:MM:SS` in the record's time zone."
)

// resourceSchema returns the component schema name of a resource
// declaration, or false when name is none.
func resourceSchema(reg *storage.Registry, name string) (*openapi.Schema, bool) {
	if s, ok := decimalComponent(name); ok {
		return s, true
	}
	for _, suffix := range []string{createSuffix, updateSuffix, editSuffix, changeSuffix, pageSuffix, idSuffix,
		columnsSuffix, ""} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		res, found := reg.Resource(base)
		if !found {
			return nil, false
		}
		switch suffix {
		case createSuffix:
			return writeSchema(res, true), true
		case updateSuffix:
			return writeSchema(res, false), true
		case editSuffix:
			return editSchema(res), true
		case pageSuffix:
			return pageSchema(openapi.Ref(res.Name)), true
		case idSuffix:
			return idSchema(res), true
		case columnsSuffix:
			return columnsSchema(res), true
		case changeSuffix:
			return &openapi.Schema{
				Description: "An add (no `id`: the child's create fields) or an edit (`id`, the fields to change; `\"delete\": true` removes the child).",
				OneOf:       []*openapi.Schema{openapi.Ref(res.Name + createSuffix), openapi.Ref(res.Name + editSuffix)},
			}, true
		}
		return recordSchema(res), true
	}
	return nil, false
}

// pageSchema is the list envelope of records of schema row: the page
// fields (docs/api.md, "Envelopes") beside data.
func pageSchema(row *openapi.Schema) *openapi.Schema {
	nullableURL := func() *openapi.Schema {
		return openapi.Nullable(openapi.String()).WithDescription("Relative; null when there is none.")
	}
	emptyNull := func() *openapi.Schema {
		return openapi.Nullable(openapi.Integer()).WithDescription("Null on an empty page.")
	}
	return openapi.Object(map[string]*openapi.Schema{
		"return":         {Const: true},
		"status":         openapi.Integer(),
		"current_page":   openapi.Integer(),
		"first_page_url": openapi.String().WithDescription("Relative, every other parameter kept as sent."),
		"next_page_url":  nullableURL(),
		"prev_page_url":  nullableURL(),
		"path":           openapi.String(),
		"per_page":       openapi.Integer(),
		"from":           emptyNull(),
		"to":             emptyNull(),
		"total":          openapi.Integer().WithDescription("With `withTotal=true` only."),
		"last_page":      openapi.Integer().WithDescription("With `withTotal=true` only."),
		"data":           openapi.Array(row),
	}, "return", "status", "current_page", "first_page_url", "next_page_url", "prev_page_url", "path", "per_page",
		"from", "to", "data")
}

// idSchema is the id of a record of res, as a reference column holds it.
func idSchema(res *storage.Resource) *openapi.Schema {
	whose := "a record of the caller's company"
	if res.Shared {
		whose = "reference data, the same for every company"
	}
	s := &openapi.Schema{Type: "integer", Format: "int64", Minimum: "1"}
	s.Description = "The id of a `" + res.Name + "` row (" + whose + ")."
	return s
}

// recordSchema is a record as responses write it: its visible columns (all
// of them unless `fields` narrows them), custom fields with
// `customFields=true`, and each relation when included. No property is
// always there, since `fields` chooses them.
func recordSchema(res *storage.Resource) *openapi.Schema {
	props := map[string]*openapi.Schema{}
	for _, c := range res.Columns {
		if c.Visible() {
			props[c.Name] = outSchema(c)
		}
	}
	for _, ch := range res.Children {
		props[ch.Name] = openapi.Array(openapi.Ref(ch.Resource)).
			WithDescription("The collection, as written: in the answer of a create or update, and with `include[" + ch.Name + "]`.")
	}
	for _, rel := range res.Relations {
		desc := "With `include[" + rel.Name + "]`."
		if col, isColumn := props[rel.Name]; isColumn { // the column's ids, or included, the records they name
			props[rel.Name] = &openapi.Schema{AnyOf: []*openapi.Schema{col, openapi.Array(openapi.Ref(rel.Resource))},
				Description: "The column; with `include[" + rel.Name + "]`, the records it names in its place."}
			continue
		}
		if rel.Many() {
			props[rel.Name] = openapi.Array(openapi.Ref(rel.Resource)).WithDescription(desc)
		} else {
			props[rel.Name] = openapi.Nullable(openapi.Ref(rel.Resource))
			props[rel.Name].Description = desc + " Null when the record refers to none."
		}
	}
	s := openapi.Object(props)
	if res.CustomFields {
		s.PatternProperties = map[string]*openapi.Schema{customFieldPattern: openapi.Any().
			WithDescription("A custom field, with `customFields=true`.")}
	}
	return s
}

// outSchema is a column's value in a response. Every value but the id and
// a NOT NULL column's may be null: a body must give a required column,
// but rows written otherwise (jobs, imports, older rules) may lack it.
func outSchema(c storage.Column) *openapi.Schema {
	s := valueSchema(c, false)
	if c.Name == "id" || c.NotNull {
		return s
	}
	return openapi.Nullable(s)
}

// writeSchema is a create (create=true) or update body: the writable
// columns by their body keys, the child collections, custom fields; no
// other key. Create requires the required columns; update those required
// on update too.
func writeSchema(res *storage.Resource, create bool) *openapi.Schema {
	props := map[string]*openapi.Schema{}
	var required []string
	for _, c := range res.Columns {
		if !c.Writable || (create && c.UpdateOnly) || (!create && c.CreateOnly) {
			continue
		}
		props[c.Key()] = inSchema(c)
		if c.PlainName {
			props[c.Name] = inSchema(c)
			props[c.Name].Description = strings.TrimSpace("The same as `" + c.Key() + "`; not both. " + props[c.Name].Description)
		}
		if (create && c.Required) || c.UpdateRequired {
			required = append(required, c.Key())
		}
	}
	for _, ch := range res.Children {
		elem := openapi.Ref(ch.Resource + createSuffix)
		if !create {
			elem = openapi.Ref(ch.Resource + changeSuffix)
		}
		arr := openapi.Array(elem)
		arr.MaxItems = openapi.Int(storage.MaxChildWrites)
		if create && ch.Required {
			arr.MinItems = openapi.Int(1)
			required = append(required, ch.Name)
		}
		props[ch.Name] = arr
	}
	s := openapi.Object(props, required...)
	if res.CustomFields {
		s.PatternProperties = map[string]*openapi.Schema{customFieldPattern: openapi.Any().WithDescription(
			"A custom field: any JSON value within the bounds of docs/api.md (Writes); on update, null removes it.")}
	}
	return s
}

// editSchema is an element of a child collection in an update that names
// its child: the fields to change, or "delete": true.
func editSchema(res *storage.Resource) *openapi.Schema {
	s := writeSchema(res, false)
	s.Properties["id"] = &openapi.Schema{Type: "integer", Format: "int64", Minimum: "1",
		Description: "The child changed or removed: one of this record's."}
	s.Properties["delete"] = openapi.Boolean().WithDescription("true removes the child.")
	s.Required = []string{"id"}
	return s
}

// inSchema is a column's value in a body: null is taken unless the column
// is required or NOT NULL.
func inSchema(c storage.Column) *openapi.Schema {
	s := valueSchema(c, true)
	if c.Required || c.NotNull {
		return s
	}
	return openapi.Nullable(s)
}

// valueSchema is the schema of a column's value, in a body (in=true) or a
// response.
func valueSchema(c storage.Column, in bool) *openapi.Schema {
	var s *openapi.Schema
	switch c.Type {
	case storage.Int:
		s = openapi.Integer()
		if c.Range != nil {
			s.Minimum, s.Maximum = jsonInt(c.Range.Min), jsonInt(c.Range.Max)
		}
		if c.Normalize != nil && in {
			s = &openapi.Schema{OneOf: []*openapi.Schema{s, openapi.String()},
				Description: "An integer, or its text as people write it (docs/api.md)."}
		}
	case storage.String:
		s = enumOrString(c.Enum)
		switch {
		case c.Normalize != nil && in:
			s.Description = "Punctuation people write is accepted and dropped; checked beyond its type (docs/api.md)."
		case c.Check != nil && in:
			s.Description = "Checked beyond its type (docs/api.md)."
		}
	case storage.Bool:
		s = openapi.Boolean()
	case storage.Date:
		s = &openapi.Schema{Type: "string", Format: "date"}
	case storage.DateTime:
		s = dateTimeSchema(c.Local, in)
	case storage.Decimal:
		s = decimalSchema(c, in)
	case storage.JSON:
		s = openapi.Any().WithDescription("Any JSON value.")
	case storage.IntArray:
		s = openapi.Array(openapi.Integer())
	case storage.TextArray:
		s = openapi.Array(enumOrString(c.Enum))
	case storage.JSONText:
		s = &openapi.Schema{Type: "string", ContentMediaType: "application/json",
			Description: "A string holding JSON (its content must be valid JSON)."}
	default:
		panic(fmt.Sprintf("api: no schema for column type %s", c.Type))
	}
	if c.References != "" {
		s = referenceSchema(s, c.References)
	}
	if c.Doc != "" {
		s.Description = strings.TrimSpace(s.Description + " " + c.Doc)
	}
	return s
}

// referenceSchema is s, the schema of a column referring to records of
// target, naming them: an integer becomes the component "<target>.id"
// (its items, for an array); any other form keeps its own schema.
func referenceSchema(s *openapi.Schema, target string) *openapi.Schema {
	note := strings.TrimSpace(s.Description + " Refers to `" + target + "`.")
	switch {
	case s.Ref == "" && s.HasType("integer") && s.Minimum == "" && s.Maximum == "":
		s = openapi.Ref(target + idSuffix)
	case s.HasType("array") && s.Items != nil && s.Items.HasType("integer"):
		s.Items = openapi.Ref(target + idSuffix)
	}
	s.Description = note
	return s
}

func enumOrString(enum []string) *openapi.Schema {
	if len(enum) > 0 {
		return openapi.Enum(enum...)
	}
	return openapi.String()
}

func dateTimeSchema(local, in bool) *openapi.Schema {
	switch {
	case in && local:
		return &openapi.Schema{Type: "string", Description: localDateTimeIn}
	case in:
		return &openapi.Schema{Type: "string", Format: "date-time", Description: dateTimeIn}
	case local:
		return &openapi.Schema{Type: "string", Pattern: dateTimeOut, Description: localDateTimeOut}
	}
	return &openapi.Schema{Type: "string", Pattern: dateTimeOut, Description: "UTC, `YYYY-MM-DD HH:MM:SS`."}
}

// decimalSchema is a numeric(p,s) value: a JSON number in responses,
// written with every digit and, for a stored column, with its s decimal
// places (PostgreSQL's text of numeric(p,s): money as 1000.00), the
// component Decimal<s>; in bodies a number without exponent or its
// decimal text (Decimal<s>Text). The scale and the digits before the
// point are the column's; more is refused, never rounded.
func decimalSchema(c storage.Column, in bool) *openapi.Schema {
	bound := json10(c.Precision - c.Scale)
	s := &openapi.Schema{Type: "integer", ExclusiveMaximum: bound, ExclusiveMinimum: "-" + bound}
	text := &openapi.Schema{Type: "string", Pattern: `^-?[0-9]+$`, Description: "The integer as text (`\"12\"`)."}
	if c.Scale > 0 {
		s.Type = "number"
		if c.Expr == "" || in {
			s.Ref = decimalRef(c.Scale, false).Ref
		}
		text = decimalRef(c.Scale, true)
	}
	s.Description = fmt.Sprintf("numeric(%d,%d): at most %d decimal places and %d digits before the point.",
		c.Precision, c.Scale, c.Scale, c.Precision-c.Scale)
	switch {
	case !in && c.Expr == "" && c.Scale > 0:
		s.Description += fmt.Sprintf(" Written as a JSON number with its %d decimal places (`%s`), never a string; "+
			"read it as a decimal, not a float (docs/api.md, \"Money\").", c.Scale, "10."+strings.Repeat("0", c.Scale))
	case !in && c.Expr != "":
		s.Description += " Written as a JSON number with the digits it has (docs/api.md, \"Money\")."
	}
	if !in {
		return s
	}
	return &openapi.Schema{OneOf: []*openapi.Schema{s, text}, Description: s.Description +
		" A JSON number without exponent (`12.5`), or its text (`\"12.50\"`); more places are refused, not rounded."}
}

// json10 is 10^exp as a JSON number, exact.
func json10(exp int) json.Number {
	if exp >= 0 {
		return json.Number("1" + strings.Repeat("0", exp))
	}
	return json.Number("0." + strings.Repeat("0", -exp-1) + "1")
}

func jsonInt(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }

// filterSchema is the schema of one filter value of type t (each value,
// for a list): the text forms of values.go.
func filterSchema(t storage.Type, enum []string, local bool) *openapi.Schema {
	switch t {
	case storage.Int, storage.IntArray:
		return openapi.Integer()
	case storage.Bool:
		return openapi.Boolean().WithDescription("`true` or `false` (or `1`, `0`).")
	case storage.Date:
		return &openapi.Schema{Type: "string", Format: "date"}
	case storage.DateTime:
		return dateTimeSchema(local, true)
	case storage.Decimal:
		return &openapi.Schema{Type: "string", Pattern: decimalText.String(), Description: "A decimal, `1234.56`."}
	case storage.Month:
		return &openapi.Schema{Type: "string", Pattern: `^[0-9]{4}-[0-9]{2}$`, Description: "A year and month, `YYYY-MM`."}
	}
	return enumOrString(enum)
}
