// Package storage is propfin's system of record on PostgreSQL through pgx:
// the connection pool, the embedded migrations, the resource declarations
// and the one list/get/create/update/delete machinery they drive, API keys,
// and the translation of driver errors into coded errors.
//
// Every statement is scoped to a company: every company-owned table keys on
// (company_id, id) and every query filters on company_id. Identifiers in
// dynamic SQL come only from declarations; every value is a bound parameter.
package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Open connects a pool to the database at url and checks it answers.
// Every session runs in UTC, whatever the server's or the database's
// TimeZone: date-times are UTC in and out (see DateTime), and a timestamp
// column without time zone must not take the server's local time.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return pool, nil
}
