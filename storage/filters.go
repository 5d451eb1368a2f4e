package storage

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SpecialFilter is a named filter beyond the column filters: the spec's
// In-filters (filter[typeIn][]=...), predicates (filter[overdue]=true) and
// scalars (filter[dueDateMin]=2024-01-01). Its SQL is written by the
// declaration from declared identifiers; every value reaches it as a bound
// parameter (FilterSQL), and it sees the caller and today's date.
type SpecialFilter struct {
	Name string
	// Elem is the type of the value (of each value, for a list).
	Elem Type
	// Scalar filters take one value (filter[name]=v); the others a list
	// (filter[name][]=a&filter[name][]=b, or one filter[name]=a), bound as
	// one array.
	Scalar bool
	// Enum, when set, lists the values a String filter accepts; any other
	// is refused before any SQL.
	Enum []string
	// Len, when set, is the exact number of values a list filter takes
	// (two for a range of dates: filter[paidPeriod][]); any other count is
	// refused before any SQL.
	Len int
	// Normalize, when set, rewrites each value's text before it is parsed,
	// as Column.Normalize does for the column the filter looks at (a CPF
	// given with its punctuation).
	Normalize func(string) string
	// Column, for an In-filter of one column's values (ColumnIn, EnumIn),
	// is that column: what the API names to a client that repeats the
	// column's equality with different values.
	Column string
	// Condition writes the SQL condition. It may only use declared
	// identifiers and the placeholders of f. Every table it reads beside
	// the resource's own must be limited to f.Company() (NewRegistry
	// checks that each FROM of it names the company).
	Condition func(f *FilterSQL) string
}

// FilterSQL gives a filter's Condition the placeholders of what it may
// use, each bound once, when first asked for.
type FilterSQL struct {
	b         *sqlBuilder
	company   string
	companyID int64
	userID    int64
	value     any
	filter    SpecialFilter
	valueP    string
	userP     string
	today     string
}

// Value is the placeholder of the filter's value: one value of Elem for a
// scalar, an array of Elem for a list.
func (f *FilterSQL) Value() string {
	if f.valueP == "" {
		if f.filter.Scalar {
			f.valueP = f.b.bind(f.value, f.filter.Elem)
		} else {
			f.valueP = f.b.bindArray(f.value, f.filter.Elem)
		}
	}
	return f.valueP
}

// Company is the placeholder of the caller's company id.
func (f *FilterSQL) Company() string {
	if f.company == "" {
		f.company = f.b.bind(f.companyID, Int)
	}
	return f.company
}

// User is the placeholder of the caller's user id (0 when no user acts).
func (f *FilterSQL) User() string {
	if f.userP == "" {
		f.userP = f.b.bind(f.userID, Int)
	}
	return f.userP
}

// Today is today's date in the company's time zone (companies.time_zone,
// America/Sao_Paulo unless set), as an SQL expression.
func (f *FilterSQL) Today() string {
	if f.today == "" {
		f.today = "(SELECT (now() AT TIME ZONE coalesce(time_zone, 'America/Sao_Paulo'))::date FROM companies WHERE id = " + f.Company() + ")"
	}
	return f.today
}

// TodayBound is Today for a bound of an indexed date column
// (`"due_date" < ` + f.TodayBound()): a call of company_today (migration
// 0024), a stable function the planner evaluates while it plans, so that
// the rows on either side of today are estimated from the column's
// statistics. Today's subquery is known only when the statement runs, and
// a range of dates with such a bound is taken to hold one row in two
// hundred, which sends the planner to sort what it could have read in
// order. In an expression evaluated row by row, Today (run once) is
// cheaper: the function runs for every row it is not an index bound of.
func (f *FilterSQL) TodayBound() string {
	f.b.perValues = true
	return "company_today(" + f.Company() + ")"
}

// Normalized is f with its values' text rewritten by normalize before
// they are parsed (a column's Normalize).
func Normalized(f SpecialFilter, normalize func(string) string) SpecialFilter {
	f.Normalize = normalize
	return f
}

// ColumnIn is the common In-filter: column = any(values).
func ColumnIn(name, column string, elem Type) SpecialFilter {
	return SpecialFilter{Name: name, Elem: elem, Column: column, Condition: func(f *FilterSQL) string {
		return ident(column) + " = any(" + f.Value() + ")"
	}}
}

// ColumnNotIn is the negated In-filter: column is not one of the values.
func ColumnNotIn(name, column string, elem Type) SpecialFilter {
	return SpecialFilter{Name: name, Elem: elem, Condition: func(f *FilterSQL) string {
		col := ident(column)
		return "(" + col + " IS NULL OR NOT (" + col + " = any(" + f.Value() + ")))"
	}}
}

// Predicate is a boolean filter (filter[overdue]=true): true keeps the rows
// where cond holds, false those where it does not (null counting as not).
func Predicate(name string, cond func(f *FilterSQL) string) SpecialFilter {
	return SpecialFilter{Name: name, Elem: Bool, Scalar: true, Condition: func(f *FilterSQL) string {
		// The value is known when the statement is written: true keeps
		// the condition as declared, so that the planner can match it to
		// an index (a partial index's predicate, a range of a column);
		// false keeps the rows where it does not hold.
		if v, ok := f.value.(bool); ok {
			if v {
				return cond(f)
			}
			return "(" + cond(f) + ") IS NOT TRUE"
		}
		return "((" + cond(f) + ") IS TRUE) = " + f.Value()
	}}
}

// ColumnMin keeps the rows whose column is at least the value
// (filter[dueDateMin]=2024-01-01).
func ColumnMin(name, column string, elem Type) SpecialFilter {
	return ColumnCompare(name, column, ">=", elem)
}

// ColumnMax keeps the rows whose column is at most the value.
func ColumnMax(name, column string, elem Type) SpecialFilter {
	return ColumnCompare(name, column, "<=", elem)
}

// compareOps are the comparisons ColumnCompare may declare.
var compareOps = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

// ColumnCompare keeps the rows where `column op value` holds.
func ColumnCompare(name, column, op string, elem Type) SpecialFilter {
	if !compareOps[op] {
		panic("storage: ColumnCompare: unknown operator " + op)
	}
	return SpecialFilter{Name: name, Elem: elem, Scalar: true, Condition: func(f *FilterSQL) string {
		return ident(column) + " " + op + " " + f.Value()
	}}
}

// notYetDue is what early means wherever something is owed (invoices,
// ledger entries): due today or later in the company's time zone, the
// spec's "not yet due"; pastDue, what overdue means, is the rest (due
// before today), so that the two split what is owed, and an invoice due
// today is early, as its status reads unpaid.
func notYetDue(due string, f *FilterSQL) string { return due + " >= " + f.Today() }

// pastDue is what overdue means: due before today (notYetDue).
func pastDue(due string, f *FilterSQL) string { return due + " < " + f.Today() }

// Within keeps the rows whose range [from, to] holds the value
// (filter[periodContains]=2024-03-15): an open end holds everything on its
// side (from alone: every value from it on), but a row with neither end
// has no range, and holds nothing.
func Within(name, from, to string, elem Type) SpecialFilter {
	return SpecialFilter{Name: name, Elem: elem, Scalar: true, Condition: func(f *FilterSQL) string {
		v, lo, hi := f.Value(), ident(from), ident(to)
		return "(" + lo + " IS NOT NULL OR " + hi + " IS NOT NULL) AND (" + lo + " IS NULL OR " + lo + " <= " + v + ") AND (" +
			hi + " IS NULL OR " + hi + " >= " + v + ")"
	}}
}

// CheckCount says why n values do not suit a list filter with a Len; ""
// when they do.
func (sf SpecialFilter) CheckCount(n int) string {
	if sf.Len == 0 || sf.Scalar || n == sf.Len {
		return ""
	}
	return fmt.Sprintf("takes exactly %d values", sf.Len)
}

// ValueAt is the SQL of the i-th value (from 1) of a list filter's array.
func (f *FilterSQL) ValueAt(i int) string {
	return "(" + f.Value() + ")[" + strconv.Itoa(i) + "]"
}

// InRange is a list filter of exactly two values of elem, a range with
// both ends included, given in either order: the rows whose expression
// (the SQL expr writes) falls inside it. Subqueries in expr are scoped
// like any filter's.
func InRange(name string, elem Type, cond func(f *FilterSQL, low, high string) string) SpecialFilter {
	return SpecialFilter{Name: name, Elem: elem, Len: 2, Condition: func(f *FilterSQL) string {
		a, b := f.ValueAt(1), f.ValueAt(2)
		return cond(f, "least("+a+", "+b+")", "greatest("+a+", "+b+")")
	}}
}

// InMonth writes, for a Month filter's Condition, that the date expr
// falls in the month whose first day is month.
func InMonth(expr, month string) string {
	return "(" + expr + " >= " + month + " AND " + expr + " < " + month + " + interval '1 month')"
}

// Scalar is a filter of one value of elem, checked against enum when
// given, whose SQL the declaration writes (a status derived from columns,
// a comparison through another table).
func Scalar(name string, elem Type, enum []string, cond func(f *FilterSQL) string) SpecialFilter {
	return SpecialFilter{Name: name, Elem: elem, Scalar: true, Enum: enum, Condition: cond}
}

// Through is an In-filter through another table of the company: the rows
// whose column is the key of a row of table whose match column is one of
// the values (filter[payerTaxIdIn][]: payer_id in the persons with those
// tax ids; filter[ownerIn][]: building_id in the building owners of those
// owners).
func Through(name string, elem Type, column, table, key, match string) SpecialFilter {
	return SpecialFilter{Name: name, Elem: elem, Condition: func(f *FilterSQL) string {
		return ident(column) + " IN (SELECT " + ident(key) + " FROM " + ident(table) +
			" WHERE company_id = " + f.Company() + " AND " + ident(match) + " = any(" + f.Value() + "))"
	}}
}

// ThroughOne is Through for one value (filter[referenceId]=AB-12: the
// rows whose column is the key of a row of table whose match column is
// the value).
func ThroughOne(name string, elem Type, column, table, key, match string) SpecialFilter {
	return SpecialFilter{Name: name, Elem: elem, Scalar: true, Condition: func(f *FilterSQL) string {
		return ident(column) + " IN (SELECT " + ident(key) + " FROM " + ident(table) +
			" WHERE company_id = " + f.Company() + " AND " + ident(match) + " = " + f.Value() + ")"
	}}
}

// ColumnInText is an In-filter of integers on a text column holding
// numbers (an invoice's id2, its number in a former system): the values
// are compared as their decimal text, so 0042 is not 42.
func ColumnInText(name, column string) SpecialFilter {
	return SpecialFilter{Name: name, Elem: Int, Condition: func(f *FilterSQL) string {
		return ident(column) + " = any(" + f.Value() + "::text[])"
	}}
}

// TreeIn is an In-filter over a tree of the company (table with parent
// column parent): the rows whose column is one of the values or one of
// their descendants, found by a recursive CTE (filter[planAllIn][]).
func TreeIn(name, column, table, parent string) SpecialFilter {
	return SpecialFilter{Name: name, Elem: Int, Condition: func(f *FilterSQL) string {
		t, c := ident(table), f.Company()
		return ident(column) + " IN (WITH RECURSIVE tree(id) AS (SELECT id FROM " + t +
			" WHERE company_id = " + c + " AND id = any(" + f.Value() + ")" +
			" UNION SELECT n.id FROM " + t + " n JOIN tree ON n." + ident(parent) + " = tree.id WHERE n.company_id = " + c +
			") SELECT id FROM tree)"
	}}
}

// ArrayOverlap is an In-filter on an integer-array column: the rows whose
// array shares a value with the list (filter[tagIn][]).
func ArrayOverlap(name, column string) SpecialFilter {
	return SpecialFilter{Name: name, Elem: Int, Condition: func(f *FilterSQL) string {
		return ident(column) + " && " + f.Value()
	}}
}

// EnumIn is ColumnIn on a String column whose values are checked against
// enum before any SQL (filter[typeIn][]=rent: a 422 listing the values
// for any other).
func EnumIn(name, column string, enum []string) SpecialFilter {
	f := ColumnIn(name, column, String)
	f.Enum = enum
	return f
}

// AnyColumnIn is an In-filter over several columns: the rows where any of
// them is one of the values (filter[involvedIn][]=owner: debit or credit
// is owner).
func AnyColumnIn(name string, elem Type, columns ...string) SpecialFilter {
	if len(columns) == 0 {
		panic("storage: AnyColumnIn: no columns")
	}
	return SpecialFilter{Name: name, Elem: elem, Condition: func(f *FilterSQL) string {
		v := f.Value()
		parts := make([]string, len(columns))
		for i, c := range columns {
			parts[i] = ident(c) + " = any(" + v + ")"
		}
		return strings.Join(parts, " OR ")
	}}
}

// Related writes, for a Condition, the SQL of "column holds the id of a row
// of table, of the caller's company, where cond holds": the filters that
// look at the record a row points at (the invoice's status, the item's
// type, the contract's activity). cond is the declaration's SQL over
// table's columns and f's placeholders.
func Related(f *FilterSQL, column, table, cond string) string {
	return ident(column) + " IN (SELECT id FROM " + ident(table) + " WHERE company_id = " + f.Company() +
		" AND (" + cond + "))"
}

// tableRef finds each table a filter's SQL reads (FROM or JOIN), and
// cteName the names of its common table expressions, which are not tables.
var (
	tableRef = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+("(?:[^"]|"")+"|[a-z_][a-z0-9_]*)`)
	cteName  = regexp.MustCompile(`(?i)\bWITH\s+(?:RECURSIVE\s+)?([a-z_][a-z0-9_]*)`)
)

// checkFilterScope renders a filter's SQL and refuses it when it reads a
// table without naming the company: after each table it reads (FROM or
// JOIN, common table expressions aside), and before the next, the SQL must
// say `company_id = ` the company's placeholder. A filter that reads no
// other table is scoped by the statement it is part of. It is a check of
// declarations written in this repository, made to fail loudly when a
// subquery forgets the company, not a parser of SQL.
func checkFilterScope(res *Resource, sf SpecialFilter) error {
	if sf.Condition == nil {
		return fmt.Errorf("resource %q: filter %q has no condition", res.Name, sf.Name)
	}
	var b sqlBuilder
	company := b.bind(int64(0), Int)
	f := &FilterSQL{b: &b, company: company, filter: sf, value: []any{}}
	if sf.Scalar {
		f.value = nil
	}
	sql := sf.Condition(f)
	if f.today != "" { // Today's own read of companies is scoped by construction
		sql = strings.ReplaceAll(sql, f.today, "")
	}
	ctes := map[string]bool{}
	for _, m := range cteName.FindAllStringSubmatch(sql, -1) {
		ctes[strings.ToLower(m[1])] = true
	}
	var refs [][]int
	for _, m := range tableRef.FindAllStringSubmatchIndex(sql, -1) {
		if !ctes[strings.ToLower(sql[m[2]:m[3]])] {
			refs = append(refs, m)
		}
	}
	for i, m := range refs {
		end := len(sql)
		if i+1 < len(refs) {
			end = refs[i+1][0]
		}
		if !strings.Contains(sql[m[1]:end], "company_id = "+company) {
			return fmt.Errorf("resource %q: filter %q reads %s without limiting it to the company",
				res.Name, sf.Name, sql[m[0]:m[1]])
		}
	}
	return nil
}

// equalsFilter is a column's Equals for one value, as a scalar filter of
// the column's type: the form in which the statement writes it and
// NewRegistry checks its scope.
func (c Column) equalsFilter(value string) SpecialFilter {
	return SpecialFilter{Name: c.Name + "=" + value, Elem: c.Type, Scalar: true, Condition: func(f *FilterSQL) string {
		return c.Equals(f, value)
	}}
}

// checkEquals refuses an Equals on a column other than a filterable
// derived string column with an enum (the values it is written for), and
// one whose SQL for a value reads a table without naming the company.
func checkEquals(res *Resource, c Column) error {
	if c.Equals == nil {
		return nil
	}
	if c.Expr == "" || c.Type != String || len(c.Enum) == 0 || !c.Filterable {
		return fmt.Errorf("resource %q: column %q: Equals is for a filterable derived string column with an enum", res.Name, c.Name)
	}
	for _, v := range c.Enum {
		if err := checkFilterScope(res, c.equalsFilter(v)); err != nil {
			return err
		}
	}
	return nil
}
