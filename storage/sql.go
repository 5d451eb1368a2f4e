package storage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// sqlBuilder assembles one statement from declared identifiers and bound
// values: identifiers are quoted, values are always positional parameters.
type sqlBuilder struct {
	sb   strings.Builder
	args []any
	// companyID, when set (forCompany), is the one company every row of
	// the statement belongs to: {today} is then read once per statement
	// instead of once per row, and company is its placeholder.
	companyID int64
	company   string
	// perValues says that the statement's best plan depends on its
	// values (a bound the planner estimates while it plans, TodayBound):
	// it is then planned with them each time (queryArgs) instead of once
	// for any values.
	perValues bool
}

// forCompany says that every row the statement reads belongs to the
// company, which lets derived columns read today's date once.
func (b *sqlBuilder) forCompany(id int64) { b.companyID = id }

// companyParam is the placeholder of the statement's company, bound once.
func (b *sqlBuilder) companyParam() string {
	if b.company == "" {
		b.company = b.bind(b.companyID, Int)
	}
	return b.company
}

func (b *sqlBuilder) write(parts ...string) {
	for _, p := range parts {
		b.sb.WriteString(p)
	}
}

// bind adds a parameter and returns its placeholder, cast to the column type
// so that PostgreSQL never has to guess.
func (b *sqlBuilder) bind(v any, t Type) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args)) + castOf(t)
}

// bindArray adds one array parameter (In-filters bind all values at once).
func (b *sqlBuilder) bindArray(v any, t Type) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args)) + castOf(t) + "[]"
}

func (b *sqlBuilder) String() string { return b.sb.String() }

// queryArgs are the statement's arguments as pgx takes them: led, when
// the plan depends on the values (perValues), by the mode that plans an
// unnamed statement with them each time. A statement cached by name gets
// a generic plan after five runs, made for no values: the list of a
// month's unpaid invoices then read the 84,000 open ones of every month
// and sorted them (33 ms idle, 200 ms and more under load) where the plan
// made for its values reads 26 rows of the open index in order (0.4 ms).
func (b *sqlBuilder) queryArgs() []any {
	if !b.perValues {
		return b.args
	}
	return append([]any{pgx.QueryExecModeCacheDescribe}, b.args...)
}

func castOf(t Type) string {
	switch t {
	case Int:
		return "::bigint"
	case String:
		return "::text"
	case Bool:
		return "::boolean"
	case Date, Month:
		return "::date"
	case DateTime:
		return "::timestamptz"
	case Decimal:
		return "::numeric"
	case IntArray:
		return "::bigint[]"
	case TextArray:
		return "::text[]"
	case JSONText:
		return "::text"
	}
	return ""
}

// todayOf is today's date in the time zone of a company, for derived
// columns ({today} in Column.Expr); %s is the company's id.
const todayOf = "(SELECT (now() AT TIME ZONE coalesce(tz.time_zone, 'America/Sao_Paulo'))::date FROM companies tz WHERE tz.id = %s)"

// columnSQL is the SQL of a column: its quoted name, or its declared
// expression for a derived column. {today} is the row's company's today, a
// subquery run for every row, unless the statement is for one company
// (forCompany): then it is bound to that company's id and PostgreSQL runs
// it once (an InitPlan), whatever the number of rows.
func (b *sqlBuilder) columnSQL(c Column) string {
	if c.Expr == "" {
		return ident(c.Name)
	}
	company := "company_id"
	if b.companyID != 0 {
		company = b.companyParam()
	}
	return "(" + strings.ReplaceAll(c.Expr, "{today}", fmt.Sprintf(todayOf, company)) + ")"
}

// ident quotes a declared identifier.
func ident(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// selectExpr reads a column in the form the record encoder expects:
// decimals as exact text, JSON as its text, a Local date-time with its
// row's offset (zonedSQL).
func (b *sqlBuilder) selectExpr(c Column) string {
	if c.Local {
		return zonedSQL(c)
	}
	if c.Type == Decimal || c.Type == JSON {
		return b.columnSQL(c) + "::text"
	}
	return b.columnSQL(c)
}

// likePattern turns a filter value where % is the only wildcard into an
// ILIKE pattern: _ and \ are taken literally.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `_`, `\_`)
	return r.Replace(s)
}

// bindValue binds one filter value of column c: a wall time (a date alone,
// a Local column's reading) as the instant it is in the row's or the
// company's zone (company: the placeholder of the company's id).
func (b *sqlBuilder) bindValue(c Column, v any, company string) string {
	if wall, ok := v.(WallTime); ok {
		return wallSQL(b.bind(wall.epoch(), Int), dayZoneSQL(c, company))
	}
	return b.bind(v, c.Type)
}

// condition writes the SQL of one filter; company is the placeholder of
// the company's id, whose zone a wall time may be read in.
func (b *sqlBuilder) condition(c Column, f Filter, company string) {
	col := b.columnSQL(c)
	if f.Key != "" { // the text of one key of a JSON column, compared as a string
		col = "(" + col + " ->> " + b.bind(f.Key, String) + ")"
		c = Column{Name: c.Name, Type: String}
	}
	if c.Type.IsArray() {
		elem := Int
		if c.Type == TextArray {
			elem = String
		}
		switch f.Op {
		case Equal: // any of the values (overlap)
			b.write(col, " && ", b.bindArray(typedArray(elem, f.Values), elem))
		case Empty:
			b.write("coalesce(cardinality(", col, "), 0) = 0")
		case NotEmpty:
			b.write("coalesce(cardinality(", col, "), 0) > 0")
		}
		return
	}
	switch f.Op {
	case Equal:
		if f.Pattern {
			b.write(col, " ILIKE ", b.bind(likePattern(f.Values[0].(string)), String), ` ESCAPE '\'`)
			return
		}
		b.write(col, " = ", b.bindValue(c, f.Values[0], company))
	case NotEqual:
		if f.Pattern {
			b.write("(", col, " IS NULL OR ", col, " NOT ILIKE ", b.bind(likePattern(f.Values[0].(string)), String), ` ESCAPE '\')`)
			return
		}
		b.write(col, " IS DISTINCT FROM ", b.bindValue(c, f.Values[0], company))
	case Less:
		b.write(col, " < ", b.bindValue(c, f.Values[0], company))
	case LessOrEqual:
		b.write(col, " <= ", b.bindValue(c, f.Values[0], company))
	case Greater:
		b.write(col, " > ", b.bindValue(c, f.Values[0], company))
	case GreaterOrEqual:
		b.write(col, " >= ", b.bindValue(c, f.Values[0], company))
	case Between:
		b.write(col, " BETWEEN ", b.bindValue(c, f.Values[0], company), " AND ", b.bindValue(c, f.Values[1], company))
	case NotBetween:
		b.write(col, " NOT BETWEEN ", b.bindValue(c, f.Values[0], company), " AND ", b.bindValue(c, f.Values[1], company))
	case Empty:
		if c.Type == String {
			b.write("(", col, " IS NULL OR ", col, " = '')")
			return
		}
		b.write(col, " IS NULL")
	case NotEmpty:
		if c.Type == String {
			b.write("(", col, " IS NOT NULL AND ", col, " <> '')")
			return
		}
		b.write(col, " IS NOT NULL")
	}
}
