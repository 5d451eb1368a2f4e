package finance

import "github.com/shopspring/decimal"

// The rounding rule, the only one in this package: every computed amount
// (a prorated rent, a percentage item, a late fee, interest, a discount, a
// readjusted rent, a sale installment) is rounded once, half away from zero
// (half up for the positive amounts of billing), to the cent. Intermediate
// values (day fractions, index factors) are never rounded. Sums of rounded
// amounts need no rounding.

var (
	hundred = decimal.NewFromInt(100)
	one     = decimal.NewFromInt(1)
	// percentMonthDays turns "percent a month" into a daily fraction:
	// 100 (percent) × 30 (days in a commercial month).
	percentMonthDays = decimal.NewFromInt(3000)
)

// RoundCents rounds d half away from zero to two decimal places. An
// amount already in cents is returned as it is.
func RoundCents(d decimal.Decimal) decimal.Decimal {
	if d.Exponent() >= -2 {
		return d
	}
	return d.Round(2)
}

// percentOf returns pct percent of base, rounded to the cent.
func percentOf(base, pct decimal.Decimal) decimal.Decimal {
	return RoundCents(base.Mul(pct).Shift(-2))
}

// Money is an amount of money as the API writes it in JSON: a number with
// two decimal places (1000.00, 0.50, -2.10), written from the exact
// decimal, never through a float. An amount finer than a cent, which the
// rules never produce (they round with RoundCents), keeps all its digits
// rather than being rounded when written. It reads a JSON number, or the
// decimal text ("250.00", "2350") that results stored by older versions
// hold, so that both decode to the same amount. docs/api.md, "Money".
type Money decimal.Decimal

// Decimal is the amount as a decimal.
func (m Money) Decimal() decimal.Decimal { return decimal.Decimal(m) }

// String is the amount with two decimal places, as MarshalJSON writes it.
func (m Money) String() string { return string(m.AppendJSON(nil)) }

// AppendJSON appends the amount as a JSON number with two decimal places.
func (m Money) AppendJSON(b []byte) []byte { return appendFixed(b, decimal.Decimal(m), 2) }

// MarshalJSON implements json.Marshaler.
func (m Money) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler: a JSON number or a string of
// decimal text; null leaves the amount as it is.
func (m *Money) UnmarshalJSON(b []byte) error { return (*decimal.Decimal)(m).UnmarshalJSON(b) }

// Percent is a percentage (2 means 2%) as the API writes it in JSON: a
// number with two decimal places, the scale of the percentage columns
// (numeric(5,2): late fees, interest a month, discounts). It reads as
// Money does.
type Percent decimal.Decimal

// Decimal is the percentage as a decimal.
func (p Percent) Decimal() decimal.Decimal { return decimal.Decimal(p) }

// MarshalJSON implements json.Marshaler.
func (p Percent) MarshalJSON() ([]byte, error) { return appendFixed(nil, decimal.Decimal(p), 2), nil }

// UnmarshalJSON implements json.Unmarshaler, as Money's.
func (p *Percent) UnmarshalJSON(b []byte) error { return (*decimal.Decimal)(p).UnmarshalJSON(b) }

// appendFixed appends d with places decimal places, or with every digit
// when it has significant digits past them: zeros are added, digits are
// never dropped.
func appendFixed(b []byte, d decimal.Decimal, places int32) []byte {
	if d.Exponent() < -places && !d.Round(places).Equal(d) {
		return append(b, d.String()...)
	}
	return append(b, d.StringFixed(places)...)
}
