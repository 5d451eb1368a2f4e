package storage

// Operator is a filter operator of the query language.
type Operator int

// Operators. Equal with Pattern set is a LIKE match.
const (
	Equal Operator = iota + 1
	NotEqual
	Less
	LessOrEqual
	Greater
	GreaterOrEqual
	Between
	NotBetween
	Empty
	NotEmpty
)

// Filter is one typed column condition. Values holds one value, two for
// Between and NotBetween, none for Empty and NotEmpty. Values are typed by
// the column: int64, string, bool, time.Time, or decimal text.
type Filter struct {
	Column  string
	Op      Operator
	Values  []any
	Pattern bool // the string value is a LIKE pattern (it holds %)
	// Key, on a KeyFilters JSON column, is the top-level key whose text
	// the filter compares (filter[payload.month]); "" for the column.
	Key string
}

// SpecialCondition is an applied special filter with its list of values.
type SpecialCondition struct {
	Filter SpecialFilter
	Values []any
}

// SortKey orders by one column.
type SortKey struct {
	Column string
	Desc   bool
}

// Include asks for a relation of the rows, with its columns (nil: all) and
// its own nested includes.
type Include struct {
	Relation Relation
	Columns  []string
	Children []*Include
	// Implicit marks a parent that was not asked for itself but only as
	// the path to a nested include (include[a.b] without include[a]). A
	// first-level implicit parent resolves only from a key the caller
	// returns (rule 2 of the query language); an explicit one always does.
	Implicit bool
	// Param names the query parameter, for problems found while loading.
	Param string
}

// Limits of what includes may load for one request.
const (
	// MaxIncludeDepth is the longest include path (include[a.b.c]).
	MaxIncludeDepth = 3
	// MaxIncludedRecords bounds the records one relation may load, and the
	// records one response may carry once relations are expanded.
	MaxIncludedRecords = 10_000
)

// ListQuery is a checked, typed list request: every identifier in it was
// validated against the resource declaration.
type ListQuery struct {
	Fields       []string // nil: every column
	Sort         []SortKey
	Filters      []Filter
	Special      []SpecialCondition
	Includes     []*Include
	CustomFields bool
	Page         int // from 1
	PerPage      int
	WithTotal    bool
}

// GetQuery is a checked single-record request.
type GetQuery struct {
	Fields       []string
	Includes     []*Include
	CustomFields bool
}
