// Package storage is propfin's system of record on PostgreSQL through pgx:
// the connection pool, the embedded migrations, the resource declarations
// and the one list/get/create/update/delete machinery they drive, API keys,
// the translation of driver errors into coded errors, and the pool's
// figures for Prometheus (NewPoolCollector).
//
// Every statement is scoped to a company: every company-owned table keys on
// (company_id, id) and every query filters on company_id. Identifiers in
// dynamic SQL come only from declarations; every value is a bound parameter.
package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Open connects a pool to the database at url and checks it answers.
// Every session runs in UTC, whatever the server's or the database's
// TimeZone: date-times are UTC in and out (see DateTime), and a timestamp
// column without time zone must not take the server's local time.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	return OpenSized(ctx, url, 0)
}

// OpenSized is Open for a process that needs at least conns connections
// at once (a worker: its concurrency, the relay and its LISTEN). A
// pool_max_conns in url is kept as the operator's choice.
func OpenSized(ctx context.Context, url string, conns int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") && int(cfg.MaxConns) < conns {
		cfg.MaxConns = int32(conns)
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

// readyQuery is what Ready asks the database: an answer proves the session
// works end to end.
const readyQuery = "SELECT 1"

// Ready reports whether the database of pool accepts new sessions and
// answers: it opens a connection of its own with the pool's settings, runs
// one query and closes it. A pooled connection answering proves nothing
// about the next one the pool must open (the server may be refusing new
// sessions, or the pool's idle connections may be the last ones left).
func Ready(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig)
	if err != nil {
		return translate(err, "ready: connect")
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var one int
	if err := conn.QueryRow(ctx, readyQuery).Scan(&one); err != nil {
		return translate(err, "ready: query")
	}
	return nil
}

// DBTX is what the functions of the repositories run on: a pool, a
// connection or the caller's transaction.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Beginner begins a transaction: a pool, or a transaction (a savepoint of
// it).
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}
