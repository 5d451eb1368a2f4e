package storage

import (
	"bytes"

	"github.com/shopspring/decimal"
)

// SameValue reports whether a and b are the same value of a column of
// type t, whatever Go form each comes in (a body's or a row's): decimals
// compare by value (100 is 100.00), dates and date-times as they are
// written back, arrays element by element, null only to null.
func SameValue(t Type, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if t == Decimal {
		da, errA := decimalOf(a)
		db, errB := decimalOf(b)
		if errA == nil && errB == nil {
			return da.Equal(db)
		}
	}
	return bytes.Equal(appendValue(nil, t, a), appendValue(nil, t, b))
}

func decimalOf(v any) (decimal.Decimal, error) {
	if s, ok := v.(string); ok {
		return decimal.NewFromString(s)
	}
	return decimal.NewFromString(string(appendValue(nil, Decimal, v)))
}

// JSONValue is a column value as the API writes it (a decimal as a JSON
// number with every digit kept, a date as "YYYY-MM-DD"), for records kept
// beside the row (history).
func JSONValue(t Type, v any) []byte {
	return appendValue(nil, t, v)
}
