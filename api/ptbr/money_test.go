package ptbr

import (
	"math"
	"testing"

	"github.com/shopspring/decimal"
)

func TestMoney(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"0", "R$ 0,00"},
		{"0.5", "R$ 0,50"},
		{"1", "R$ 1,00"},
		{"999.99", "R$ 999,99"},
		{"1000", "R$ 1.000,00"},
		{"1234.56", "R$ 1.234,56"},
		{"123456.7", "R$ 123.456,70"},
		{"1234567.89", "R$ 1.234.567,89"},
		{"99999999.99", "R$ 99.999.999,99"},
		{"-1", "-R$ 1,00"},
		{"-1234.5", "-R$ 1.234,50"},
		{"0.005", "R$ 0,01"},       // half away from zero
		{"-0.005", "-R$ 0,01"},     // half away from zero
		{"-0.004", "R$ 0,00"},      // rounds to zero: no sign
		{"1.994999", "R$ 1,99"},    // not rounded twice
		{"1500.00", "R$ 1.500,00"}, // the exponent of the input does not matter
	}
	for _, tt := range tests {
		if got := Money(decimal.RequireFromString(tt.in)); got != tt.want {
			t.Errorf("Money(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   int64
		want string
	}{
		{0, "R$ 0,00"},
		{1, "R$ 0,01"},
		{99, "R$ 0,99"},
		{100, "R$ 1,00"},
		{123456, "R$ 1.234,56"},
		{100000000, "R$ 1.000.000,00"},
		{-150, "-R$ 1,50"},
		{-12345678, "-R$ 123.456,78"},
		{math.MaxInt64, "R$ 92.233.720.368.547.758,07"},
		{math.MinInt64, "-R$ 92.233.720.368.547.758,08"},
	}
	for _, tt := range tests {
		if got := Cents(tt.in); got != tt.want {
			t.Errorf("Cents(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCentsAndMoneyAgree holds the two writers of an amount to one output.
func TestCentsAndMoneyAgree(t *testing.T) {
	t.Parallel()
	for _, c := range []int64{0, 5, -5, 100, -100, 123456, -98765432, math.MaxInt64, math.MinInt64} {
		d := decimal.New(c, -2)
		if got, want := Money(d), Cents(c); got != want {
			t.Errorf("Money(%s) = %q, Cents(%d) = %q", d, got, c, want)
		}
	}
}
