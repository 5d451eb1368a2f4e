package boleto

import (
	"github.com/shopspring/decimal"
)

var hundred = decimal.NewFromInt(100)

// Cents converts an amount in reais to the integer cents a barcode
// carries. An amount with fractions of a cent, a negative amount or one
// above MaxAmount is an error: rounding is the caller's decision.
func Cents(reais decimal.Decimal) (int64, error) {
	c := reais.Mul(hundred)
	if !c.IsInteger() {
		return 0, fieldErr("", "Amount", reais.String(), "has fractions of a cent")
	}
	if c.Sign() < 0 || c.GreaterThan(decimal.NewFromInt(MaxAmount)) {
		return 0, fieldErr("", "Amount", reais.String(), "must be from 0 to 99999999.99")
	}
	return c.IntPart(), nil
}
