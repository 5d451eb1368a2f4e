package storage

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/propfin/propfin/finance"
)

// shape is what a set of records selected together has in common: the
// columns read (the first visible of them are returned to the caller, the
// rest are keys read only to resolve relations), custom fields, includes.
type shape struct {
	columns  []Column
	visible  int
	custom   bool
	includes []*Include
	// nested records resolve their own includes only from returned
	// columns (rule 2 of the query language); the main records also from
	// the keys read for that purpose (rule 1).
	nested bool
}

// keyIndex is where the key a relation is resolved from sits, -1 when it
// was not read (or, for nested records, not returned).
func (s *shape) keyIndex(name string) int {
	i := s.index(name)
	if s.nested && i >= s.visible {
		return -1
	}
	return i
}

func (s *shape) index(name string) int {
	for i, c := range s.columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Record is one row read through a resource declaration, with its
// requested relations. It encodes itself as a JSON object in the order of
// the requested columns, then custom fields (`_name`), then relations.
type Record struct {
	shape   *shape
	values  []any
	custom  []byte
	related []any // per include: *Record (nil when absent) or []*Record
	// children are the child collections of a write's record, encoded
	// after the relations.
	children []namedRecords
	// warnings are the hooks' warnings of the write that returned the
	// record (Change.Warn), for Resource.WarningsOf.
	warnings []finance.Problem
}

// namedRecords is one child collection of a record.
type namedRecords struct {
	name    string
	records []*Record
}

// Children returns the records of a child collection loaded with a write.
func (r *Record) Children(name string) ([]*Record, bool) {
	for _, c := range r.children {
		if c.name == name {
			return c.records, true
		}
	}
	return nil, false
}

// Value returns the value of a selected column (visible or key).
func (r *Record) Value(column string) (any, bool) {
	i := r.shape.index(column)
	if i < 0 {
		return nil, false
	}
	return r.values[i], true
}

// ID returns the record's id when it was selected.
func (r *Record) ID() (int64, bool) {
	v, _ := r.Value("id")
	id, ok := v.(int64)
	return id, ok
}

// MarshalJSON implements json.Marshaler.
func (r *Record) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(nil), nil
}

// AppendJSON appends the record as a JSON object to b.
func (r *Record) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	for i := 0; i < r.shape.visible; i++ {
		c := r.shape.columns[i]
		b = appendKey(b, c.Name, &first)
		if t, ok := r.values[i].(time.Time); ok && c.Local {
			b = append(appendDateTime(append(b, '"'), t), '"') // the reading in the row's zone
			continue
		}
		b = appendValue(b, c.Type, r.values[i])
	}
	if r.shape.custom {
		b = r.appendCustom(b, &first)
	}
	for i, inc := range r.shape.includes {
		b = appendKey(b, inc.Relation.Name, &first)
		b = appendRelated(b, inc.Relation.Kind, r.related[i])
	}
	for _, c := range r.children {
		b = appendKey(b, c.name, &first)
		b = appendRelated(b, HasMany, c.records)
	}
	return append(b, '}')
}

func (r *Record) appendCustom(b []byte, first *bool) []byte {
	if len(r.custom) == 0 {
		return b
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(r.custom, &fields); err != nil {
		return b // custom_fields is always a jsonb object; nothing to add otherwise
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		b = appendKey(b, "_"+name, first)
		b = append(b, fields[name]...)
	}
	return b
}

func appendRelated(b []byte, kind RelationKind, v any) []byte {
	switch rel := v.(type) {
	case *Record:
		if rel == nil {
			return append(b, "null"...)
		}
		return rel.AppendJSON(b)
	case []*Record:
		b = append(b, '[')
		for i, rec := range rel {
			if i > 0 {
				b = append(b, ',')
			}
			b = rec.AppendJSON(b)
		}
		return append(b, ']')
	}
	if kind != BelongsTo {
		return append(b, "[]"...)
	}
	return append(b, "null"...)
}

func appendKey(b []byte, name string, first *bool) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = appendString(b, name)
	return append(b, ':')
}

// appendValue encodes one column value; decimals arrive as exact text and
// are written as JSON numbers with every digit kept.
func appendValue(b []byte, t Type, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	case int16:
		return strconv.AppendInt(b, int64(x), 10)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		if t == JSON {
			return appendCompactJSON(b, x)
		}
		if t == Decimal && x != "NaN" && x != "Infinity" && x != "-Infinity" {
			return append(b, x...)
		}
		return appendString(b, x)
	case time.Time:
		b = append(b, '"')
		if t == Date {
			b = appendDate(b, x)
		} else {
			b = appendDateTime(b, x.UTC())
		}
		return append(b, '"')
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, enc...)
}

// appendDate writes t as YYYY-MM-DD (time.DateOnly) without parsing a
// layout: a list page writes hundreds of dates.
func appendDate(b []byte, t time.Time) []byte {
	y, m, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, time.DateOnly)
	}
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(m), 2)
	b = append(b, '-')
	return appendDigits(b, d, 2)
}

// appendDateTime writes t as YYYY-MM-DD hh:mm:ss (time.DateTime).
func appendDateTime(b []byte, t time.Time) []byte {
	if y := t.Year(); y < 0 || y > 9999 {
		return t.AppendFormat(b, time.DateTime)
	}
	b = appendDate(b, t)
	h, m, s := t.Clock()
	b = append(b, ' ')
	b = appendDigits(b, h, 2)
	b = append(b, ':')
	b = appendDigits(b, m, 2)
	b = append(b, ':')
	return appendDigits(b, s, 2)
}

// appendDigits writes n (0 <= n < 10^width) in width digits.
func appendDigits(b []byte, n, width int) []byte {
	var buf [4]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, buf[:width]...)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendCompactJSON appends the JSON text of a jsonb value without the
// spaces PostgreSQL prints in it.
func appendCompactJSON(b []byte, text string) []byte {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, []byte(text)); err != nil {
		return append(b, text...) // jsonb text is always valid JSON
	}
	return buf.Bytes()
}
