package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propfin/propfin/storage/pgcluster"
)

// devDatabase is the database name inside the local development cluster.
const devDatabase = "propfin"

// startDevDatabase starts (or attaches to) the local cluster kept in
// dataDir/pg and makes sure the propfin database exists. stop leaves an
// attached cluster running for the process that owns it.
func startDevDatabase(ctx context.Context, dataDir string, log *slog.Logger) (url string, stop func(context.Context) error, err error) {
	cluster, err := pgcluster.Start(ctx, pgcluster.Options{DataDir: filepath.Join(dataDir, "pg"), Log: log})
	if err != nil {
		return "", nil, err
	}
	if err := ensureDatabase(ctx, cluster.URL("postgres"), devDatabase); err != nil {
		cluster.Stop(context.WithoutCancel(ctx)) //nolint:errcheck // the first error is the one to report
		return "", nil, err
	}
	return cluster.URL(devDatabase), cluster.Stop, nil
}

func ensureDatabase(ctx context.Context, adminURL, name string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect to local cluster: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}
