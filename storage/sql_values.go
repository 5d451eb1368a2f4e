package storage

import (
	"cmp"
	"slices"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// Go values as the statements bind them: a nullable column's nil, a decimal
// in the binary form COPY takes, cents read back as a decimal, the sorted
// keys of a map.

// decimalText is a decimal as text for a numeric parameter; nil for none.
func decimalText(d *decimal.Decimal) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}

// numeric is a decimal as pgx writes a numeric column in binary (COPY
// takes no text for numeric): its digits and exponent, exactly.
func numeric(d decimal.Decimal) pgtype.Numeric {
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

// nullNumeric is numeric for a nullable column: nil for none.
func nullNumeric(d *decimal.Decimal) any {
	if d == nil {
		return nil
	}
	return numeric(*d)
}

// nullText is a text for a nullable column: nil for "".
func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nullID is an id for a nullable column: nil for 0.
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// cents is an amount in cents as a decimal; zero without allocating.
func cents(c int64) decimal.Decimal {
	if c == 0 {
		return decimal.Decimal{}
	}
	return decimal.New(c, -2)
}

// sortedKeys are the keys of m, sorted (never nil: empty for none).
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
