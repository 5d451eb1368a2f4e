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
