package storage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// exactDecimals are the Decimal columns read without a fixed scale: their
// value is written with the digits it has. None of them is money.
var exactDecimals = map[string]bool{
	// the product of index factors, exact; trim_scale drops padding zeros
	"contract_readjustments.factor": true,
}

// TestDecimalColumnsAreReadWithTheirScale: a record writes a Decimal
// column as PostgreSQL's text of it, which has exactly the scale of its
// type, so every Decimal column (a stored one, or an expression computed
// in SQL) must read as numeric with its declared scale: money as
// numeric(14,2) or (16,2) is written 1000.00, never 1000 or 1000.0. A
// column of numeric without scale, or an expression whose type has none
// (arithmetic on numerics has none: cast it to numeric(p,s)), fails here
// unless it is listed as exact.
func TestDecimalColumnsAreReadWithTheirScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	for _, res := range storage.Resources() {
		for _, c := range res.Columns {
			if c.Type != storage.Decimal || c.Unstored {
				continue
			}
			name := res.Name + "." + c.Name
			expr := c.Expr
			if expr == "" {
				expr = pgx.Identifier{c.Name}.Sanitize()
			}
			expr = strings.ReplaceAll(expr, "{today}", "current_date")
			rows, err := pool.Query(ctx, "SELECT ("+expr+") FROM "+pgx.Identifier{res.Table}.Sanitize()+" LIMIT 0")
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			mod := rows.FieldDescriptions()[0].TypeModifier
			rows.Close()
			scale, fixed := numericScale(mod)
			switch {
			case exactDecimals[name] && fixed:
				t.Errorf("%s: listed as exact, but read as numeric with scale %d", name, scale)
			case exactDecimals[name]:
			case !fixed:
				t.Errorf("%s: read as numeric without scale; declared with %d places", name, c.Scale)
			case scale != c.Scale:
				t.Errorf("%s: read with %d decimal places, declared with %d", name, scale, c.Scale)
			}
		}
	}
}

// numericScale is the scale of a numeric type modifier (PostgreSQL's
// ((precision << 16) | scale) + 4), and whether it has one (-1: none).
func numericScale(mod int32) (int, bool) {
	if mod < 4 {
		return 0, false
	}
	return int((mod - 4) & 0xffff), true
}
