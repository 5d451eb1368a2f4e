package storage

import (
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestCents: a numeric read in cents from PostgreSQL's binary format (as
// pgx's codec encodes it) and from its text, the same; a third decimal
// place that is not zero, NaN and an infinity are refused.
func TestCents(t *testing.T) {
	t.Parallel()
	m := pgtype.NewMap()
	for _, tc := range []struct {
		text  string
		cents int64
		ok    bool
	}{
		{"0", 0, true},
		{"0.01", 1, true},
		{"0.10", 10, true},
		{"2.5", 250, true},
		{"1234.56", 123456, true},
		{"10000", 1000000, true},
		{"100000000.07", 10000000007, true},
		{"999999999999.99", 99999999999999, true},
		{"-5.5", -550, true},
		{"1.000", 100, true},
		{"1.005", 0, false},
		{"0.001", 0, false},
		{"NaN", 0, false},
		{"Infinity", 0, false},
	} {
		var n pgtype.Numeric
		if err := n.Scan(tc.text); err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		raw, err := m.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, n, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		if c, ok := binaryCents(raw); ok != tc.ok || ok && c != tc.cents {
			t.Errorf("binary %s: %d %t, want %d %t", tc.text, c, ok, tc.cents, tc.ok)
		}
		if c, ok := textCents([]byte(tc.text)); ok != tc.ok || ok && c != tc.cents {
			t.Errorf("text %s: %d %t, want %d %t", tc.text, c, ok, tc.cents, tc.ok)
		}
	}
}
