package ptbr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Money writes an amount in reais, "R$ 1.234,56", rounded half away from
// zero to the cent (the finance package's rule); a negative amount is
// "-R$ 1,00", and one that rounds to zero has no sign.
func Money(d decimal.Decimal) string {
	r := d.Round(2)
	s := r.Abs().StringFixed(2) // "1234.56"
	return reais(r.IsNegative(), s[:len(s)-3], s[len(s)-2:])
}

// Cents writes an amount of cents in reais, "R$ 1.234,56"; a negative
// amount is "-R$ 1,00". Every int64 is written, math.MinInt64 too.
func Cents[C ~int64](c C) string {
	u := uint64(c)
	if c < 0 {
		u = -u // two's complement: right for math.MinInt64 too
	}
	return reais(c < 0, strconv.FormatUint(u/100, 10), fmt.Sprintf("%02d", u%100))
}

// reais joins the whole reais (digits) and the two digits of cents.
func reais(negative bool, whole, cents string) string {
	out := "R$ " + groupThousands(whole) + "," + cents
	if negative {
		out = "-" + out
	}
	return out
}

// groupThousands puts a dot between groups of three digits.
func groupThousands(digits string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(c)
	}
	return b.String()
}
