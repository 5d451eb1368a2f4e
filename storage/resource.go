package storage

import (
	"fmt"
	"slices"
	"strings"

	"github.com/propfin/propfin/finance"
)

// Type is the type of a declared column: it decides how a filter value is
// parsed, how a body value is checked and how the column is read and written.
type Type int

// Column types.
const (
	Int Type = iota + 1
	String
	Bool
	Date // a calendar date, YYYY-MM-DD
	// DateTime is an instant: written and read as YYYY-MM-DD HH:MM:SS in
	// UTC (whole seconds), or with an offset, compared as instants; a
	// date alone is midnight in the row's or the company's zone, and a
	// Local column's readings are in the row's zone both ways (see
	// WallTime). Store it in timestamptz; a timestamp column holds the UTC
	// wall time, since Open makes every session UTC.
	DateTime
	Decimal // numeric: exact, read and written as decimal text
	JSON    // json or jsonb, read-only: returned as the JSON it holds
	// IntArray is a bigint[] (tag ids): written as a JSON array of
	// integers; filter[col][]=a&filter[col][]=b keeps the rows sharing a
	// value with the list (overlap).
	IntArray
	// JSONText is a text column holding JSON (the spec's "string holding
	// JSON": protest, metadata, config): written and returned as a string,
	// whose content must be valid JSON.
	JSONText
	// Month is a year and month, YYYY-MM, for filter values only
	// (filter[atMonth]=2024-03): bound as the month's first day (a date).
	Month
	// TextArray is a text[] (an event's reminders): written as a JSON
	// array of strings, each checked against the column's Enum when it has
	// one; filtered like IntArray (overlap).
	TextArray
)

func (t Type) String() string {
	switch t {
	case Int:
		return "integer"
	case String:
		return "string"
	case Bool:
		return "boolean"
	case Date:
		return "date"
	case DateTime:
		return "date-time"
	case Decimal:
		return "number"
	case JSON:
		return "JSON"
	case IntArray:
		return "array of integers"
	case JSONText:
		return "string holding JSON"
	case Month:
		return "year-month"
	case TextArray:
		return "array of strings"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Column is one declared column of a resource.
type Column struct {
	Name       string
	Type       Type
	Filterable bool // accepted in filter[...]
	Writable   bool // accepted in create and update bodies
	Required   bool // must be present (and not null) on create
	// UpdateRequired: must be present in update bodies too (the spec's
	// invoice billing_method, "required on create and update").
	UpdateRequired bool
	// References names the resource a write must point at within the same
	// company (checked before the write; the composite foreign key is the
	// backstop). Empty for plain columns.
	References string
	// Precision and Scale are a Decimal column's numeric(Precision, Scale),
	// required for Decimal columns and zero for the others. A value with
	// more than Scale decimal places, or more than Precision-Scale digits
	// before the point, is refused before any SQL: PostgreSQL would round
	// the first silently and refuse the second.
	Precision, Scale int
	// Enum lists the values a String column accepts, in bodies and in
	// filters; any other is refused before any SQL (422 listing them).
	Enum []string
	// Access modes beyond Filterable and Writable. FilterOnly: never
	// returned, only filtered on (item_default). WriteOnly: never returned,
	// only written (groups). CreateOnly and UpdateOnly: writable in the
	// create (config) or the update (details) body alone.
	FilterOnly, WriteOnly, CreateOnly, UpdateOnly bool
	// Unstored marks a write-only column no table column holds: its value
	// is checked like any body value and reaches the resource's hooks
	// (Change.New), which store it elsewhere (a condominium's groups, as
	// rows of their own); it is never written to the row.
	Unstored bool
	// BodyName is the key of the column in bodies when it is not its name
	// (the events' `filter[title]`, `filter[guest][]`). Problems name the
	// column by it.
	BodyName string
	// NotNull refuses a null in bodies (422 `cannot be null`) for a column
	// that may be left out (the table's default applies) but not emptied:
	// a boolean or an array NOT NULL in the table, which is the backstop.
	NotNull bool
	// PlainName, with BodyName, accepts the column's plain name in bodies
	// too (`title` beside `filter[title]`); both keys in one body are a
	// 422.
	PlainName bool
	// Expr declares a derived, read-only column: the SQL expression that
	// computes it from the row's columns (`CASE WHEN paid THEN 'paid' ...`).
	// {today} in it stands for today's date in the company's time zone.
	Expr string
	// Check, when set, says why a text value written to the column is not
	// acceptable beyond its type and enum (a CPF's check digits), "" when
	// it is. It runs wherever body values are checked (the API's body
	// parser, Store.Create and Store.Update, each element of a child
	// collection), before any SQL; its message becomes a 422 problem named
	// by the column's body key. Null is not checked.
	Check func(string) string
	// FilterCheck, when set, says why a text given as a filter value for
	// the column can match no row by its form alone (a month that is not
	// YYYY-MM), "" when it can: the query is then a 422 naming the filter
	// rather than an empty page. A LIKE pattern (a value with %) is not
	// checked.
	FilterCheck func(string) string
	// Normalize, when set, rewrites a text given for the column (in a body,
	// or as a filter value) into the form the column stores, before any
	// check: the punctuation people paste in a CPF, a CNPJ or a CEP
	// (123.456.789-09 is stored 12345678909). Text in no form it knows
	// comes back unchanged, for Check (or the type) to refuse. On an
	// integer column it also lets a body give the value as such a text
	// (a condominium's zip_code "01310-200" is 1310200).
	Normalize func(string) string
	// Range, when set, bounds an Int column's values (a contract's due_day,
	// 1 to 31): any other is refused before any SQL, like an enum.
	Range *IntRange
	// Stored, with Expr, declares a stored column read through Expr: writes
	// (when Writable, and hooks' Change.Set) go to the table's column of
	// the same name, while reads, filters and sorts see the expression (an
	// invoice's status: stored 'unpaid', read 'overdue' once its due date
	// has passed, before any nightly run writes it).
	Stored bool
	// Equals, on a derived column with an enum, writes the column filter
	// `filter[col]=value` (an equality, no wildcard) as a condition on the
	// stored columns the expression reads, which an index can serve where
	// no index holds the expression: an invoice's overdue status is its
	// open columns and a due date before today. It must select exactly the
	// rows where the expression equals the value; "" for a value leaves
	// the expression. The other operators always compare the expression.
	Equals func(f *FilterSQL, value string) string
	// Local, on a DateTime column of a resource with a TimeZone column,
	// makes its readings wall clocks of the row's zone, in and out: a
	// date-time without offset given for it is read in that zone, and it
	// is written back as that zone's reading (an event's initial_date in
	// its time_zone). Store it in timestamptz.
	Local bool
	// Doc says what the column means where its name does not (a
	// contract's billing_method is how its owners are paid): the
	// description of its value in the OpenAPI document's records and
	// bodies, and of its equality filter. Empty for most columns.
	Doc string
	// KeyFilters, on a JSON column, accepts filters on the text of its
	// top-level keys: filter[payload.month]=2026-11 compares
	// payload->>'month' as a String column is compared (every operator,
	// % patterns), the key bound as a parameter. The key is letters,
	// digits and _ (ValidJSONKey); a key the value lacks reads as null.
	KeyFilters bool

	// rowZone is, for a DateTime column, its resource's TimeZone (set by
	// NewRegistry): a date alone given for it is midnight there.
	rowZone string
}

// Effective declares, beside a column whose null the rules read as a
// default that depends on other columns (and so is not stored), the
// read-only column <name>_effective: the column's value, or when it is
// null the default, defaultSQL (an expression over the row's columns).
// It has the column's type, enum and numeric precision, and is filtered
// and sorted on like any derived column.
func Effective(c Column, defaultSQL string) Column {
	return Column{Name: c.Name + "_effective", Type: c.Type, Filterable: c.Filterable, Enum: c.Enum,
		Precision: c.Precision, Scale: c.Scale, Expr: "coalesce(" + ident(c.Name) + ", " + defaultSQL + ")"}
}

// Documented is c with its meaning (Column.Doc).
func Documented(c Column, doc string) Column {
	c.Doc = doc
	return c
}

// Key is the column's key in bodies.
func (c Column) Key() string {
	if c.BodyName != "" {
		return c.BodyName
	}
	return c.Name
}

// Visible reports whether the column is returned to callers.
func (c Column) Visible() bool { return !c.FilterOnly && !c.WriteOnly }

// Sortable reports whether a list may be sorted on the column: a visible
// one of any type but JSON, whose values have no order (PostgreSQL has
// none for json at all).
func (c Column) Sortable() bool { return c.Visible() && c.Type != JSON }

// CheckEnum says why a value (of a TextArray, one element) is not one of
// the column's allowed values; "" when it is, or when the column has no
// enum.
func (c Column) CheckEnum(v string) string {
	if len(c.Enum) == 0 || slices.Contains(c.Enum, v) {
		return ""
	}
	return "must be one of: " + strings.Join(c.Enum, ", ")
}

// ValidJSONKey says whether key may name a top-level key of a
// KeyFilters column: 1 to 64 letters, digits and underscores.
func ValidJSONKey(key string) bool {
	if key == "" || len(key) > 64 {
		return false
	}
	for _, r := range key {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// IntRange is the inclusive bounds of an Int column's values.
type IntRange struct{ Min, Max int64 }

// CheckInt says why an integer is outside the column's Range; "" when it
// is inside, or when the column has no Range.
func (c Column) CheckInt(n int64) string {
	if c.Range == nil || n >= c.Range.Min && n <= c.Range.Max {
		return ""
	}
	return fmt.Sprintf("must be between %d and %d", c.Range.Min, c.Range.Max)
}

// CheckValue says why a text value does not pass the column's own Check;
// "" when it does or when the column declares none.
func (c Column) CheckValue(v string) string {
	if c.Check == nil {
		return ""
	}
	return c.Check(v)
}

// NormalizeText gives v in the form the column stores: its Normalize's
// rewriting, or v itself when it declares none.
func (c Column) NormalizeText(v string) string {
	if c.Normalize == nil {
		return v
	}
	return c.Normalize(v)
}

// CheckDecimal says why the decimal text s (an optional minus, digits, an
// optional point and digits) does not fit a Decimal column; "" when it
// fits. Zeros after the last significant place are accepted: nothing is
// rounded away.
func (c Column) CheckDecimal(s string) string {
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > c.Scale {
		return fmt.Sprintf("must have at most %d decimal places", c.Scale)
	}
	if len(whole) > c.Precision-c.Scale {
		return fmt.Sprintf("must have at most %d digits before the decimal point", c.Precision-c.Scale)
	}
	return ""
}

// RelationKind says which side holds the key of a relation.
type RelationKind int

const (
	// BelongsTo: the parent row holds the key (type.category_id -> category.id).
	BelongsTo RelationKind = iota + 1
	// HasMany: the related rows hold the key (category.id <- type.category_id).
	HasMany
	// InArray: the parent's Key column is an integer array (tag) and the
	// related rows are those whose id it lists (invoice.tag -> tags).
	InArray
)

// Relation is a declared include of a resource.
type Relation struct {
	Name     string
	Kind     RelationKind
	Resource string // name of the related resource
	// Key is the column holding the reference: on the parent for BelongsTo
	// and InArray, on the related resource for HasMany.
	Key string
	// From is, for HasMany, the parent's column the related rows' Key is
	// matched against when it is not the parent's id (an invoice's
	// building owners: building_owners.building_id = invoice.building_id).
	From string
	// Where is a fixed SQL condition on the related rows' columns, declared
	// here and never taken from a request (an invoice's client-written
	// lines: `kind = 'line'`). A subquery in it must limit the tables it
	// reads to the related row's company (`t.company_id = <table>.company_id`).
	Where string
	// Order is a declared ORDER BY of the related rows (`owner_id NULLS
	// LAST`), never taken from a request; id is always the last key. Empty:
	// by id.
	Order string
}

// LocalKey is the parent's column a relation is resolved from.
func (r Relation) LocalKey() string {
	switch {
	case r.Kind != HasMany:
		return r.Key
	case r.From != "":
		return r.From
	}
	return "id"
}

// RemoteKey is the related resource's column matched against LocalKey.
func (r Relation) RemoteKey() string {
	if r.Kind == HasMany {
		return r.Key
	}
	return "id"
}

// Many reports whether the relation yields a list.
func (r Relation) Many() bool { return r.Kind != BelongsTo }

// Resource declares one table of the API: it drives list, get, create,
// update and delete.
type Resource struct {
	Name    string // registry name, e.g. "building_types"
	Table   string
	Columns []Column
	// Relations available through include[...].
	Relations []Relation
	Filters   []SpecialFilter
	// Shared marks reference data without company_id (states).
	Shared bool
	// CustomFields: the table has a custom_fields jsonb column.
	CustomFields bool
	// ReadOnly resources accept no writes.
	ReadOnly bool
	// Parent declares a sub-resource (nil: a top-level resource).
	Parent *Parent
	// Children declares child collections written with the record, in
	// its transaction (an invoice's items); see Child.
	Children []Child
	// Hooks are the resource's rules run inside its writes' transaction.
	Hooks Hooks
	// TimeZone names the String column holding each row's time zone (an
	// event's time_zone), which a date alone given for any of its
	// date-time columns, and a date-time without offset given for a Local
	// one, is read in; without it they are read in the company's zone. A
	// create that leaves it out stores the company's zone, or the
	// column's first enum value when its Enum does not list the company's.
	TimeZone string
	// DeleteOptions names the boolean query options DELETE accepts
	// (removeLiquidated); they reach the hooks as Change.Options, and any
	// other query parameter of a DELETE is refused.
	DeleteOptions []string
	// Warnings says what a create or update did that its writer may not
	// expect, from what the body gave (w) and the record as written (rec):
	// the write is made all the same, and its 2xx answer lists them beside
	// the record ("warnings", docs/api.md "Writes"). Nil: none.
	Warnings func(w Write, rec *Record) []finance.Problem
	// HooksWarn says that its hooks may add warnings (Change.Warn), for
	// the API's description of its answers.
	HooksWarn bool

	columnIndex map[string]int
}

// WarningsOf are the warnings of a write of the resource: its hooks'
// (Change.Warn), then the resource's Warnings.
func (r *Resource) WarningsOf(w Write, rec *Record) []finance.Problem {
	if rec == nil {
		return nil
	}
	out := slices.Clone(rec.warnings)
	if r.Warnings != nil {
		out = append(out, r.Warnings(w, rec)...)
	}
	return out
}

// CheckWritable refuses every write (create, update, delete) to a
// read-only resource.
func (r *Resource) CheckWritable() error {
	if r.ReadOnly {
		return finance.Errorf(finance.Invalid, "This resource is read-only.")
	}
	return nil
}

// Column returns the declared column named name.
func (r *Resource) Column(name string) (Column, bool) {
	i, ok := r.columnIndex[name]
	if !ok {
		return Column{}, false
	}
	return r.Columns[i], true
}

// ColumnByKey returns the column whose body key is key: its Key(), or its
// plain name when it declares PlainName.
func (r *Resource) ColumnByKey(key string) (Column, bool) {
	for _, c := range r.Columns {
		if c.Key() == key {
			return c, true
		}
	}
	if c, ok := r.Column(key); ok && c.PlainName {
		return c, true
	}
	return Column{}, false
}

// IsArray reports whether the type is an array column type (IntArray,
// TextArray): list filters, overlap.
func (t Type) IsArray() bool { return t == IntArray || t == TextArray }

// Relation returns the declared relation named name.
func (r *Resource) Relation(name string) (Relation, bool) {
	for _, rel := range r.Relations {
		if rel.Name == name {
			return rel, true
		}
	}
	return Relation{}, false
}

// Filter returns the special filter named name.
func (r *Resource) Filter(name string) (SpecialFilter, bool) {
	for _, f := range r.Filters {
		if f.Name == name {
			return f, true
		}
	}
	return SpecialFilter{}, false
}

// ColumnNames lists the declared columns in declaration order.
func (r *Resource) ColumnNames() []string {
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	return names
}

// Registry holds the declared resources by name.
type Registry struct {
	resources map[string]*Resource
}

// NewRegistry checks the declarations (unique columns, an id column,
// relations pointing at declared resources and columns) and indexes them.
func NewRegistry(resources ...*Resource) (*Registry, error) {
	reg := &Registry{resources: make(map[string]*Resource, len(resources))}
	for _, r := range resources {
		if _, dup := reg.resources[r.Name]; dup {
			return nil, fmt.Errorf("resource %q declared twice", r.Name)
		}
		r.columnIndex = make(map[string]int, len(r.Columns))
		for i, c := range r.Columns {
			if _, dup := r.columnIndex[c.Name]; dup {
				return nil, fmt.Errorf("resource %q: column %q declared twice", r.Name, c.Name)
			}
			r.columnIndex[c.Name] = i
			if c.Type == JSON && (c.Filterable || c.Writable) {
				return nil, fmt.Errorf("resource %q: JSON column %q can be neither filtered nor written", r.Name, c.Name)
			}
			if c.KeyFilters && c.Type != JSON {
				return nil, fmt.Errorf("resource %q: column %q: key filters are for JSON columns", r.Name, c.Name)
			}
			if c.Expr != "" && !c.Stored && (c.Writable || c.Required) {
				return nil, fmt.Errorf("resource %q: derived column %q cannot be written", r.Name, c.Name)
			}
			if c.UpdateRequired && (!c.Writable || !c.Required) {
				return nil, fmt.Errorf("resource %q: column %q required on update must be writable and required", r.Name, c.Name)
			}
			if c.Stored && c.Expr == "" {
				return nil, fmt.Errorf("resource %q: stored column %q needs the expression it is read through", r.Name, c.Name)
			}
			if (c.CreateOnly || c.UpdateOnly || c.WriteOnly) && !c.Writable {
				return nil, fmt.Errorf("resource %q: column %q has a write mode but is not writable", r.Name, c.Name)
			}
			if c.Unstored && (!c.WriteOnly || c.Filterable || !r.Hooks.any()) {
				return nil, fmt.Errorf("resource %q: unstored column %q must be write-only, not filterable, and stored by the resource's hooks", r.Name, c.Name)
			}
			if c.FilterOnly && !c.Filterable && !c.KeyFilters {
				return nil, fmt.Errorf("resource %q: filter-only column %q is not filterable", r.Name, c.Name)
			}
			if len(c.Enum) > 0 && c.Type != String && c.Type != TextArray {
				return nil, fmt.Errorf("resource %q: enum column %q must be a string or an array of strings", r.Name, c.Name)
			}
			if c.Type == Month {
				return nil, fmt.Errorf("resource %q: column %q: a year-month is a filter value, not a column type", r.Name, c.Name)
			}
			if c.Range != nil && (c.Type != Int || c.Range.Min > c.Range.Max) {
				return nil, fmt.Errorf("resource %q: column %q: a range is for integer columns, min not above max", r.Name, c.Name)
			}
			if c.PlainName && c.BodyName == "" {
				return nil, fmt.Errorf("resource %q: column %q accepts its plain name beside a body name it does not declare", r.Name, c.Name)
			}
			if c.Check != nil && (!c.Writable || c.Type != String) {
				return nil, fmt.Errorf("resource %q: column %q has a value check but is not a writable string", r.Name, c.Name)
			}
			if c.FilterCheck != nil && (!c.Filterable || c.Type != String) {
				return nil, fmt.Errorf("resource %q: column %q has a filter check but is not a filterable string", r.Name, c.Name)
			}
			if c.Normalize != nil && (c.Type != String && c.Type != Int || !c.Writable && !c.Filterable) {
				return nil, fmt.Errorf("resource %q: column %q normalizes its values but is not a writable or filterable string or integer", r.Name, c.Name)
			}
			if err := checkEquals(r, c); err != nil {
				return nil, err
			}
			if c.Local && (c.Type != DateTime || r.TimeZone == "" || c.Expr != "") {
				return nil, fmt.Errorf("resource %q: local column %q must be a stored date-time of a resource with a time zone column", r.Name, c.Name)
			}
			if c.Type == DateTime {
				r.Columns[i].rowZone = r.TimeZone
			}
		}
		if z, ok := r.Column(r.TimeZone); r.TimeZone != "" && (!ok || z.Type != String || z.Expr != "" || !z.NotNull) {
			return nil, fmt.Errorf("resource %q: time zone column %q is not a stored string column refusing null", r.Name, r.TimeZone)
		}
		if c, ok := r.Column("id"); !ok || c.Type != Int {
			return nil, fmt.Errorf("resource %q: needs an integer id column", r.Name)
		}
		if err := checkNumericTypes(r); err != nil {
			return nil, err
		}
		for _, sf := range r.Filters {
			if err := checkFilterScope(r, sf); err != nil {
				return nil, err
			}
			if sf.Elem == DateTime {
				return nil, fmt.Errorf("resource %q: filter %q: a special filter takes dates, not date-times (a date-time without offset has no zone there)", r.Name, sf.Name)
			}
		}
		reg.resources[r.Name] = r
	}
	for _, r := range resources {
		if err := reg.checkLinks(r); err != nil {
			return nil, err
		}
		if err := reg.checkChildren(r); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// checkNumericTypes requires a precision and scale on every Decimal
// column, and neither on the others.
func checkNumericTypes(r *Resource) error {
	for _, c := range r.Columns {
		decimal := c.Type == Decimal
		if decimal && (c.Precision < 1 || c.Precision > 1000 || c.Scale < 0 || c.Scale > c.Precision) {
			return fmt.Errorf("resource %q: decimal column %q needs its numeric(precision, scale)", r.Name, c.Name)
		}
		if !decimal && (c.Precision != 0 || c.Scale != 0) {
			return fmt.Errorf("resource %q: column %q is not a decimal and has no precision or scale", r.Name, c.Name)
		}
	}
	return nil
}

func (reg *Registry) checkLinks(r *Resource) error {
	for _, rel := range r.Relations {
		target, ok := reg.resources[rel.Resource]
		if !ok {
			return fmt.Errorf("resource %q: relation %q points at undeclared resource %q", r.Name, rel.Name, rel.Resource)
		}
		local, ok := r.Column(rel.LocalKey())
		if !ok {
			return fmt.Errorf("resource %q: relation %q: no column %q", r.Name, rel.Name, rel.LocalKey())
		}
		if (rel.Kind == InArray) != (local.Type == IntArray) || (rel.From != "" && rel.Kind != HasMany) {
			return fmt.Errorf("resource %q: relation %q: an InArray relation, and only it, has an integer-array key; From is for HasMany", r.Name, rel.Name)
		}
		if _, ok := target.Column(rel.RemoteKey()); !ok {
			return fmt.Errorf("resource %q: relation %q: %q has no column %q", r.Name, rel.Name, target.Name, rel.RemoteKey())
		}
	}
	if p := r.Parent; p != nil {
		if _, ok := reg.resources[p.Resource]; !ok {
			return fmt.Errorf("resource %q: parent is undeclared resource %q", r.Name, p.Resource)
		}
		if c, ok := r.Column(p.Key); !ok || c.Type != Int {
			return fmt.Errorf("resource %q: parent key %q is not an integer column", r.Name, p.Key)
		}
	}
	for _, c := range r.Columns {
		if c.References == "" {
			continue
		}
		if _, ok := reg.resources[c.References]; !ok {
			return fmt.Errorf("resource %q: column %q references undeclared resource %q", r.Name, c.Name, c.References)
		}
	}
	return nil
}

// Resource returns the resource named name.
func (reg *Registry) Resource(name string) (*Resource, bool) {
	r, ok := reg.resources[name]
	return r, ok
}

// MustResource is Resource for names known at compile time.
func (reg *Registry) MustResource(name string) *Resource {
	r, ok := reg.resources[name]
	if !ok {
		panic("storage: no resource " + name)
	}
	return r
}
