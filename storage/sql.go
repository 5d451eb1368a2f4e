package storage

import (
	"strconv"
	"strings"
)

// sqlBuilder assembles one statement from declared identifiers and bound
// values: identifiers are quoted, values are always positional parameters.
type sqlBuilder struct {
	sb   strings.Builder
	args []any
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
	case JSONText:
		return "::text"
	}
	return ""
}

// todayOfRow is today's date in the time zone of the row's company, for
// derived columns ({today} in Column.Expr).
const todayOfRow = "(SELECT (now() AT TIME ZONE coalesce(tz.time_zone, 'America/Sao_Paulo'))::date FROM companies tz WHERE tz.id = company_id)"

// columnSQL is the SQL of a column: its quoted name, or its declared
// expression for a derived column.
func columnSQL(c Column) string {
	if c.Expr != "" {
		return "(" + strings.ReplaceAll(c.Expr, "{today}", todayOfRow) + ")"
	}
	return ident(c.Name)
}

// ident quotes a declared identifier.
func ident(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// selectExpr reads a column in the form the record encoder expects:
// decimals as exact text, JSON as its text.
func selectExpr(c Column) string {
	if c.Type == Decimal || c.Type == JSON {
		return columnSQL(c) + "::text"
	}
	return columnSQL(c)
}

// likePattern turns a filter value where % is the only wildcard into an
// ILIKE pattern: _ and \ are taken literally.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `_`, `\_`)
	return r.Replace(s)
}

// condition writes the SQL of one filter.
func (b *sqlBuilder) condition(c Column, f Filter) {
	col := columnSQL(c)
	if c.Type == IntArray {
		switch f.Op {
		case Equal: // any of the values (overlap)
			b.write(col, " && ", b.bindArray(typedArray(Int, f.Values), Int))
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
		b.write(col, " = ", b.bind(f.Values[0], c.Type))
	case NotEqual:
		if f.Pattern {
			b.write("(", col, " IS NULL OR ", col, " NOT ILIKE ", b.bind(likePattern(f.Values[0].(string)), String), ` ESCAPE '\')`)
			return
		}
		b.write(col, " IS DISTINCT FROM ", b.bind(f.Values[0], c.Type))
	case Less:
		b.write(col, " < ", b.bind(f.Values[0], c.Type))
	case LessOrEqual:
		b.write(col, " <= ", b.bind(f.Values[0], c.Type))
	case Greater:
		b.write(col, " > ", b.bind(f.Values[0], c.Type))
	case GreaterOrEqual:
		b.write(col, " >= ", b.bind(f.Values[0], c.Type))
	case Between:
		b.write(col, " BETWEEN ", b.bind(f.Values[0], c.Type), " AND ", b.bind(f.Values[1], c.Type))
	case NotBetween:
		b.write(col, " NOT BETWEEN ", b.bind(f.Values[0], c.Type), " AND ", b.bind(f.Values[1], c.Type))
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
