package storagetest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Distribution is what distributing a schema by company_id (Citus) takes,
// read from the catalog of the current schema.
type Distribution struct {
	// Problems are the breaks of the rule, one line each, sorted: a table
	// is either company-owned (a NOT NULL company_id, a primary key, and
	// every primary key, unique constraint, unique index, exclusion
	// constraint and foreign key to another company-owned table leading
	// with company_id, on both sides of a foreign key) or a reference
	// table (no company_id, foreign keys only to other reference tables).
	Problems []string
	// Distributed are the company-owned tables, each after the tables its
	// foreign keys reference: an order to distribute them in.
	Distributed []string
	// Reference are the tables without company_id.
	Reference []string
	// SetNull are the foreign keys between company-owned tables that set
	// columns to NULL (or their default) when the row they reference is
	// deleted, as "table.constraint".
	SetNull []string
}

// ReadDistribution reads the distribution of the schema of pool's
// database; reference names the tables meant to have no company_id.
func ReadDistribution(ctx context.Context, pool *pgxpool.Pool, reference []string) (Distribution, error) {
	tables, err := readTables(ctx, pool)
	if err != nil {
		return Distribution{}, err
	}
	keys, err := readKeys(ctx, pool)
	if err != nil {
		return Distribution{}, err
	}
	var d Distribution
	owned := map[string]bool{}
	for name, t := range tables {
		switch {
		case t.hasCompany && slices.Contains(reference, name):
			d.Problems = append(d.Problems, fmt.Sprintf("%s: listed as a reference table but has company_id", name))
		case t.hasCompany:
			owned[name] = true
			if !t.companyNotNull {
				d.Problems = append(d.Problems, fmt.Sprintf("%s: company_id may be NULL", name))
			}
		case slices.Contains(reference, name):
			d.Reference = append(d.Reference, name)
		default:
			d.Problems = append(d.Problems, fmt.Sprintf("%s: no company_id, and not a reference table", name))
		}
	}
	for _, name := range reference {
		if _, ok := tables[name]; !ok {
			d.Problems = append(d.Problems, fmt.Sprintf("%s: listed as a reference table but there is no such table", name))
		}
	}
	deps := map[string][]string{}
	hasPrimary := map[string]bool{}
	for _, k := range keys {
		if k.kind == "p" {
			hasPrimary[k.table] = true
		}
		if problem := k.problem(owned); problem != "" {
			d.Problems = append(d.Problems, problem)
		}
		if k.kind == "f" && owned[k.table] && owned[k.refTable] {
			if k.refTable != k.table {
				deps[k.table] = append(deps[k.table], k.refTable)
			}
			if strings.Contains(k.def, "SET NULL") || strings.Contains(k.def, "SET DEFAULT") {
				d.SetNull = append(d.SetNull, k.table+"."+k.name)
			}
		}
	}
	for name := range owned {
		if !hasPrimary[name] {
			d.Problems = append(d.Problems, fmt.Sprintf("%s: no primary key", name))
		}
	}
	var cycle []string
	d.Distributed, cycle = dependencyOrder(owned, deps)
	if len(cycle) > 0 {
		d.Problems = append(d.Problems, fmt.Sprintf("foreign keys form a cycle among %s: no order distributes them", strings.Join(cycle, ", ")))
	}
	slices.Sort(d.Problems)
	slices.Sort(d.Reference)
	slices.Sort(d.SetNull)
	return d, nil
}

// dbTable is a table of the current schema and its company_id.
type dbTable struct {
	hasCompany, companyNotNull bool
}

func readTables(ctx context.Context, pool *pgxpool.Pool) (map[string]dbTable, error) {
	rows, err := pool.Query(ctx, `SELECT c.relname, a.attnum IS NOT NULL, coalesce(a.attnotnull, false)
		FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'company_id' AND NOT a.attisdropped
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition`)
	if err != nil {
		return nil, fmt.Errorf("read tables: %w", err)
	}
	tables := map[string]dbTable{}
	var name string
	var t dbTable
	_, err = pgx.ForEachRow(rows, []any{&name, &t.hasCompany, &t.companyNotNull}, func() error {
		tables[name] = t
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read tables: %w", err)
	}
	return tables, nil
}

// dbKey is a constraint (p, u, x, f) or a unique index that backs none (i).
type dbKey struct {
	table, name, kind string
	columns           []string // "" for an expression
	refTable          string
	refColumns        []string
	def               string
}

func readKeys(ctx context.Context, pool *pgxpool.Pool) ([]dbKey, error) {
	rows, err := pool.Query(ctx, `
		SELECT t.relname, k.conname, k.contype::text,
			(SELECT array_agg(coalesce(a.attname::text, '') ORDER BY u.ord) FROM unnest(k.conkey) WITH ORDINALITY u (num, ord)
				LEFT JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.num),
			coalesce(r.relname::text, ''),
			coalesce((SELECT array_agg(a.attname::text ORDER BY u.ord) FROM unnest(k.confkey) WITH ORDINALITY u (num, ord)
				JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.num), '{}'),
			pg_get_constraintdef(k.oid)
		FROM pg_constraint k
		JOIN pg_class t ON t.oid = k.conrelid
		JOIN pg_namespace n ON n.oid = t.relnamespace
		LEFT JOIN pg_class r ON r.oid = k.confrelid
		WHERE n.nspname = current_schema() AND k.contype IN ('p', 'u', 'x', 'f')
		UNION ALL
		SELECT t.relname, x.relname, 'i',
			(SELECT array_agg(coalesce(a.attname::text, '') ORDER BY u.ord)
				FROM unnest(i.indkey::int2[]) WITH ORDINALITY u (num, ord)
				LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = u.num
				WHERE u.ord <= i.indnkeyatts),
			'', '{}', pg_get_indexdef(i.indexrelid)
		FROM pg_index i
		JOIN pg_class t ON t.oid = i.indrelid
		JOIN pg_class x ON x.oid = i.indexrelid
		JOIN pg_namespace n ON n.oid = t.relnamespace
		WHERE n.nspname = current_schema() AND i.indisunique
			AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
		ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (dbKey, error) {
		var k dbKey
		err := row.Scan(&k.table, &k.name, &k.kind, &k.columns, &k.refTable, &k.refColumns, &k.def)
		return k, err
	})
	if err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	return keys, nil
}

// keyWords name each kind of key in a problem.
var keyWords = map[string]string{"p": "primary key", "u": "unique constraint", "x": "exclusion constraint",
	"i": "unique index", "f": "foreign key"}

// problem says how k breaks the rule, "" when it does not; owned are the
// company-owned tables.
func (k dbKey) problem(owned map[string]bool) string {
	lead := func(cols []string) string {
		if len(cols) == 0 {
			return "nothing"
		}
		if cols[0] == "" {
			return "an expression"
		}
		return cols[0]
	}
	switch {
	case !owned[k.table] && k.kind == "f" && owned[k.refTable]:
		return fmt.Sprintf("%s: foreign key %s: a reference table refers to company-owned %s", k.table, k.name, k.refTable)
	case !owned[k.table]:
		return ""
	case k.kind != "f" && lead(k.columns) != "company_id":
		return fmt.Sprintf("%s: %s %s leads with %s, not company_id", k.table, keyWords[k.kind], k.name, lead(k.columns))
	case k.kind == "f" && owned[k.refTable] && (lead(k.columns) != "company_id" || lead(k.refColumns) != "company_id"):
		return fmt.Sprintf("%s: foreign key %s (%s) to %s (%s) does not lead with company_id on both sides", k.table, k.name,
			strings.Join(k.columns, ", "), k.refTable, strings.Join(k.refColumns, ", "))
	}
	return ""
}

// dependencyOrder sorts tables so that each comes after those it depends
// on (by name among equals, so that the order is stable); tables left in
// a cycle are returned apart.
func dependencyOrder(tables map[string]bool, deps map[string][]string) (order, cycle []string) {
	placed := map[string]bool{}
	for len(placed) < len(tables) {
		var ready []string
		for name := range tables {
			if !placed[name] && !slices.ContainsFunc(deps[name], func(d string) bool { return !placed[d] }) {
				ready = append(ready, name)
			}
		}
		if len(ready) == 0 {
			for name := range tables {
				if !placed[name] {
					cycle = append(cycle, name)
				}
			}
			slices.Sort(cycle)
			return order, cycle
		}
		slices.Sort(ready)
		for _, name := range ready {
			placed[name] = true
		}
		order = append(order, ready...)
	}
	return order, nil
}
