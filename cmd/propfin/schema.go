package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
)

// schemaPoll is how often a worker or scheduler on a schema behind its
// binary looks again.
const schemaPoll = 5 * time.Second

// checkSchema logs how the database's schema stands against the
// binary's migrations, once at a process's start: an ERROR when
// migrations are missing (every query that needs them fails until
// `propfin migrate` runs; /readyz answers 503 meanwhile), a WARN when the
// schema is ahead (a rollback of the binary: it runs). It says whether the
// schema is behind.
func checkSchema(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) bool {
	s, err := storage.SchemaStatus(ctx, pool)
	switch {
	case err != nil:
		log.Warn("schema not checked", "err", err)
	case s.Behind():
		log.Error("the database's schema is behind this binary: run `propfin migrate`",
			"missing", len(s.Missing), "migrations", s.Missing)
	case len(s.Unknown) > 0:
		log.Warn("the database's schema is ahead of this binary (a rollback?): starting anyway", "unknown", s.Unknown)
	}
	return err == nil && s.Behind()
}

// waitSchema holds a worker's or a scheduler's start until the database's
// schema has every migration of the binary, looking again every
// schemaPoll; it returns early when ctx ends.
func waitSchema(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	if !checkSchema(ctx, pool, log) {
		return
	}
	log.Info("waiting for `propfin migrate` before starting", "every", schemaPoll.String())
	for ctx.Err() == nil {
		sleepCtx(ctx, schemaPoll)
		if s, err := storage.SchemaStatus(ctx, pool); err == nil && !s.Behind() {
			log.Info("the schema is up to date: starting")
			return
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
