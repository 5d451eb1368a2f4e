package finance

import (
	"encoding/json"
	"fmt"

	"github.com/shopspring/decimal"
)

// Series is the monthly variation of one price index, in percent
// (0.07 means +0.07%), by month.
type Series map[Month]decimal.Decimal

// Indices holds the series of each price index by indicator.
type Indices map[Indicator]Series

// ParseSeries reads a series written as a JSON array of
// {"data": "YYYY-MM-01", "valor": <variation in percent>}, the shape of
// the public compilation shipped in testdata/indices. A month given twice
// is an error.
func ParseSeries(data []byte) (Series, error) {
	var rows []struct {
		Data  string          `json:"data"`
		Valor json.RawMessage `json:"valor"`
	}
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, fmt.Errorf("index series: %w", err)
	}
	s := make(Series, len(rows))
	for i, r := range rows {
		d, err := ParseDate(r.Data)
		if err != nil {
			return nil, fmt.Errorf("index series row %d: %w", i, err)
		}
		var v decimal.Decimal
		if err := v.UnmarshalJSON(r.Valor); err != nil || len(r.Valor) == 0 || string(r.Valor) == "null" {
			return nil, fmt.Errorf("index series row %d (%s): valor %s is not a number", i, r.Data, r.Valor)
		}
		if !below(v, maxPercentDigits) {
			return nil, fmt.Errorf("index series row %d (%s): valor %s is out of range", i, r.Data, v)
		}
		m := MonthOf(d)
		if _, dup := s[m]; dup {
			return nil, fmt.Errorf("index series row %d: month %s given twice", i, m)
		}
		s[m] = v
	}
	return s, nil
}

// Accumulate returns the product of (1 + v/100) over the months from
// first to last, both inclusive, exactly (no rounding), and the months
// the series lacks. The factor is meaningless when months are missing.
func (s Series) Accumulate(first, last Month) (factor decimal.Decimal, missing []Month) {
	factor = one
	for m := first; m <= last; m++ {
		v, ok := s[m]
		if !ok {
			missing = append(missing, m)
			continue
		}
		factor = factor.Mul(one.Add(v.Shift(-2))) // v/100, exact
	}
	return factor, missing
}
