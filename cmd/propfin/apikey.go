package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
)

func runAPIKey(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		fmt.Fprintln(stderr, "usage: propfin apikey create --company NAME [--name LABEL] [--data-dir DIR (default: .propfin when DATABASE_URL is unset)]")
		return errReported
	}
	fs := flag.NewFlagSet("apikey create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	company := fs.String("company", "", "company the key acts for (created when it does not exist)")
	label := fs.String("name", "cli", "label stored with the key")
	dataDir := fs.String("data-dir", "", "use the local cluster of `propfin dev` in this folder instead of DATABASE_URL")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *company == "" {
		return errors.New("--company is required")
	}
	pool, done, err := openAPIKeyDatabase(ctx, *dataDir, newLogger("text", stderr))
	if err != nil {
		return err
	}
	companyID, key, err := createAPIKey(ctx, pool, *company, *label)
	done() // before the key is printed: stopping a local cluster logs, and the key comes last
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "company %q (id %d), key id %d\n", *company, companyID, key.KeyID)
	fmt.Fprintln(stdout, key.Key)
	return nil
}

// createAPIKey issues a key for the company named, creating the company
// when it does not exist.
func createAPIKey(ctx context.Context, pool *pgxpool.Pool, company, label string) (int64, storage.NewAPIKey, error) {
	companyID, userID, err := storage.EnsureCompany(ctx, pool, company)
	if err != nil {
		return 0, storage.NewAPIKey{}, err
	}
	key, err := storage.CreateAPIKey(ctx, pool, companyID, userID, label)
	return companyID, key, err
}

// openAPIKeyDatabase opens DATABASE_URL, or the dev cluster in dataDir
// (migrated, as `propfin dev` would have it).
func openAPIKeyDatabase(ctx context.Context, dataDir string, log *slog.Logger) (*pgxpool.Pool, func(), error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, nil, err
	}
	url := cfg.DatabaseURL
	stop := func(context.Context) error { return nil }
	if dataDir == "" && url == "" && isDir(defaultDevDataDir) {
		dataDir = defaultDevDataDir // the cluster `propfin dev` made here
	}
	if dataDir != "" {
		url, stop, err = startDevDatabase(ctx, dataDir, false, log)
		if err != nil {
			return nil, nil, err
		}
	} else if url == "" {
		return nil, nil, errors.New("set DATABASE_URL, or pass --data-dir to use the local cluster of `propfin dev` " +
			"(" + defaultDevDataDir + " is taken when it exists)")
	}
	pool, err := storage.Open(ctx, url)
	if err == nil && dataDir != "" {
		err = storage.Migrate(ctx, pool)
	}
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		stop(context.WithoutCancel(ctx)) //nolint:errcheck // the first error is the one to report
		return nil, nil, err
	}
	return pool, func() {
		pool.Close()
		if err := stop(context.WithoutCancel(ctx)); err != nil {
			log.Warn("stop local cluster", "err", err)
		}
	}, nil
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
