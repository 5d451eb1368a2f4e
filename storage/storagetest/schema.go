package storagetest

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
)

// compatible lists, per declared column type, the information_schema
// data types the resource machinery reads and writes correctly.
var compatible = map[storage.Type][]string{
	storage.Int:       {"bigint", "integer", "smallint"},
	storage.String:    {"text", "character", "character varying"},
	storage.Bool:      {"boolean"},
	storage.Date:      {"date"},
	storage.DateTime:  {"timestamp with time zone", "timestamp without time zone"},
	storage.Decimal:   {"numeric"},
	storage.JSON:      {"json", "jsonb"},
	storage.IntArray:  {"ARRAY"},
	storage.TextArray: {"ARRAY"},
	storage.JSONText:  {"text"},
}

// dbColumn is a column as information_schema.columns describes it.
type dbColumn struct {
	dataType         string
	precision, scale *int32
}

// SchemaMismatches compares a resource declaration with its table in the
// current schema of pool's database and describes every difference: a
// missing table, a declared column missing from the table or of a type its
// declared Type is not compatible with (for a Decimal, another precision or
// scale than declared), company_id missing on a
// company-owned table, custom_fields missing (or not jsonb) when
// CustomFields is set. No mismatch is an empty list.
func SchemaMismatches(ctx context.Context, pool *pgxpool.Pool, res *storage.Resource) ([]string, error) {
	cols, err := tableColumns(ctx, pool, res.Table)
	if err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return []string{fmt.Sprintf("%s: no table %q", res.Name, res.Table)}, nil
	}
	var out []string
	for _, c := range res.Columns {
		if msg := columnMismatch(c, cols); msg != "" {
			out = append(out, fmt.Sprintf("%s.%s: %s", res.Name, c.Name, msg))
		}
	}
	if _, ok := cols["company_id"]; !ok && !res.Shared {
		out = append(out, fmt.Sprintf("%s: company-owned but table %q has no company_id", res.Name, res.Table))
	}
	if c, ok := cols["custom_fields"]; res.CustomFields && (!ok || c.dataType != "jsonb") {
		out = append(out, fmt.Sprintf("%s: declares custom fields but table %q has no jsonb custom_fields", res.Name, res.Table))
	}
	return out, nil
}

func tableColumns(ctx context.Context, pool *pgxpool.Pool, table string) (map[string]dbColumn, error) {
	rows, err := pool.Query(ctx, `SELECT column_name, data_type, numeric_precision, numeric_scale
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, table)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	defer rows.Close()
	cols := map[string]dbColumn{}
	for rows.Next() {
		var name string
		var c dbColumn
		if err := rows.Scan(&name, &c.dataType, &c.precision, &c.scale); err != nil {
			return nil, fmt.Errorf("columns of %s: %w", table, err)
		}
		cols[name] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	return cols, nil
}

// columnMismatch says how a declared column differs from the table's, ""
// when it does not.
func columnMismatch(c storage.Column, cols map[string]dbColumn) string {
	if c.Expr != "" && !c.Stored || c.Unstored {
		return "" // derived, or stored by hooks elsewhere: no column of its own
	}
	db, ok := cols[c.Name]
	if !ok {
		return "no such column in the table"
	}
	if !slices.Contains(compatible[c.Type], db.dataType) {
		return fmt.Sprintf("declared %s, but the column is %s", c.Type, db.dataType)
	}
	if c.Local && db.dataType != "timestamp with time zone" {
		return fmt.Sprintf("a local date-time is placed in its row's zone, which needs timestamptz, but the column is %s", db.dataType)
	}
	if c.Type == storage.Decimal && !sameNumeric(c, db) {
		return fmt.Sprintf("declared numeric(%d,%d), but the column is %s", c.Precision, c.Scale, describeNumeric(db))
	}
	return ""
}

func sameNumeric(c storage.Column, db dbColumn) bool {
	return db.precision != nil && db.scale != nil && int(*db.precision) == c.Precision && int(*db.scale) == c.Scale
}

func describeNumeric(db dbColumn) string {
	if db.precision == nil || db.scale == nil {
		return "numeric without precision and scale"
	}
	return fmt.Sprintf("numeric(%d,%d)", *db.precision, *db.scale)
}
