package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/propfin/propfin/storage"
)

func runMigrate(ctx context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	if cfg.DatabaseURL == "" {
		return errors.New("DATABASE_URL must be set")
	}
	pool, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	defer pool.Close()
	applied, err := storage.MigrateVerbose(ctx, pool)
	for _, name := range applied {
		fmt.Fprintln(stdout, "applied", name)
	}
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "database is up to date")
	}
	return nil
}
