package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/alicebob/miniredis/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/api"
	"github.com/propfin/propfin/api/receipt"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// Demo data of `propfin dev`.
const (
	devCompany        = "Demo Imobiliária"
	devKeyFile        = "dev-api-key"
	devAdminTokenFile = "dev-admin-token"
	// defaultDevDataDir is where `propfin dev` keeps its cluster, and
	// where `propfin apikey` looks for it when DATABASE_URL is unset.
	defaultDevDataDir = ".propfin"
	// devReceiptSecretFile keeps the dev receipt secret, so that receipt
	// links stay valid across runs.
	devReceiptSecretFile = "dev-receipt-secret"
)

func runDev(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	if os.Getenv("PROPFIN_WEBHOOK_ALLOW_LOOPBACK") == "" {
		cfg.WebhookAllowLoopback = true // a receiver on this machine, for a first try of the webhooks
	}
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", defaultDevDataDir, "folder of the local PostgreSQL cluster and the demo key, kept between runs")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log := newLogger("text", stderr)
	if err := os.MkdirAll(*dataDir, 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}

	pool, stopDB, err := devPostgres(ctx, cfg, *dataDir, log)
	if err != nil {
		return err
	}
	defer stopDB()
	rc, stopRedis, err := devRedis(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer stopRedis()
	replica, err := openReplica(ctx, cfg, log)
	if err != nil {
		return err
	}
	if replica != nil {
		defer replica.Close()
	}

	key, err := devAPIKey(ctx, pool, *dataDir)
	if err != nil {
		return err
	}
	if cfg.AdminToken == "" {
		if cfg.AdminToken, err = devSecret(*dataDir, devAdminTokenFile, minAdminToken); err != nil {
			return err
		}
	}
	if cfg.ReceiptSecret == "" {
		if cfg.ReceiptSecret, err = devSecret(*dataDir, devReceiptSecretFile, receipt.MinSecretLen); err != nil {
			return err
		}
	}
	ops := newOperations(cfg, pool, rc, log)
	defer ops.close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: listen on %s: %w", *addr, err)
	}
	base := devBaseURL(ln.Addr())
	if cfg.PublicURL == "" { // the receipt links of the API and of the reminders
		cfg.PublicURL = base
	}
	mailer, err := startDevMail(cfg, base, stdout, log)
	if err != nil {
		return err
	}
	defer mailer.close()
	kinds, err := cfg.kinds(mailer.reminders)
	if err != nil {
		return err
	}
	// the worker and scheduler stop with the API, however it stops (a
	// metrics port taken ends it at once)
	ctx, stopBackground := context.WithCancel(ctx)
	defer stopBackground()
	sender, err := mailer.sendsAs(ctx, pool, key)
	if err != nil {
		return err
	}
	background, err := devBackground(ctx, workerDeps{pool: pool, redis: rc.target.Asynq(),
		kinds: kinds, cfg: cfg, log: log, metrics: ops.metrics})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "API key: %s\n", key)
	fmt.Fprintf(stdout, "Admin token: %s\n", cfg.AdminToken)
	fmt.Fprintf(stdout, "Listening on http://%s\n", ln.Addr())
	fmt.Fprintf(stdout, "Dashboard: http://%s%s/\n", ln.Addr(), api.MonitoringPath)
	if mailer.box != nil {
		fmt.Fprintf(stdout, "Mail: %s%s (SMTP on %s)\n", base, devMailPath, mailer.box.Addr())
	}
	fmt.Fprintf(stdout, "Reminders from: %s\n", sender)
	serveErr := ops.serve(ctx, ln, mailer.handler(apiHandler(ctx, pool, replica, rc.client, cfg, ops, log)), cfg.MetricsAddr, log)
	stopBackground()
	return errors.Join(serveErr, background())
}

// devBackground starts the worker, the relay and the scheduler beside the
// API; the returned function waits for them to stop (they stop with ctx).
func devBackground(ctx context.Context, d workerDeps) (wait func() error, err error) {
	sched, err := newScheduler(d.pool, d.kinds, d.cfg, d.log)
	if err != nil {
		return nil, err
	}
	errs := make(chan error, 2)
	go func() { errs <- runWorkers(ctx, d) }()
	go func() { errs <- sched.Run(ctx) }()
	return func() error { return errors.Join(<-errs, <-errs) }, nil
}

// devPostgres opens DATABASE_URL, or the local cluster in dataDir, and
// migrates it.
func devPostgres(ctx context.Context, cfg config, dataDir string, log *slog.Logger) (*pgxpool.Pool, func(), error) {
	url := cfg.DatabaseURL
	stop := func(context.Context) error { return nil }
	if url == "" {
		var err error
		log.Info("starting local PostgreSQL", "data_dir", filepath.Join(dataDir, "pg"))
		url, stop, err = startDevDatabase(ctx, dataDir, true, log)
		if err != nil {
			return nil, nil, err
		}
	}
	done := func() {
		if err := stop(context.WithoutCancel(ctx)); err != nil {
			log.Warn("stop local PostgreSQL", "err", err)
		}
	}
	pool, err := storage.OpenSized(ctx, url, workerConns(cfg)+8) // the API beside the worker
	if err != nil {
		done()
		return nil, nil, err
	}
	applied, err := storage.MigrateVerbose(ctx, pool)
	if err != nil {
		pool.Close()
		done()
		return nil, nil, err
	}
	log.Info("database ready", "migrations_applied", len(applied))
	return pool, func() { pool.Close(); done() }, nil
}

// devRedis connects to REDIS_URL, or runs Redis in process.
func devRedis(ctx context.Context, cfg config, log *slog.Logger) (redisConn, func(), error) {
	if cfg.RedisURL != "" {
		rc, err := openRedis(ctx, cfg.RedisURL)
		if err != nil {
			return redisConn{}, nil, err
		}
		return rc, func() { rc.client.Close() }, nil
	}
	mr, err := miniredis.Run()
	if err != nil {
		return redisConn{}, nil, fmt.Errorf("start in-process redis: %w", err)
	}
	log.Info("in-process Redis", "addr", mr.Addr())
	rc, err := openRedis(ctx, "redis://"+mr.Addr())
	if err != nil {
		mr.Close()
		return redisConn{}, nil, err
	}
	return rc, func() { rc.client.Close(); mr.Close() }, nil
}

// devAPIKey returns the demo company's key kept in dataDir, issuing a new
// one when there is none or it no longer works.
func devAPIKey(ctx context.Context, pool *pgxpool.Pool, dataDir string) (string, error) {
	path := filepath.Join(dataDir, devKeyFile)
	if saved, err := os.ReadFile(path); err == nil {
		key := strings.TrimSpace(string(saved))
		if _, err := storage.LookupAPIKey(ctx, pool, key); err == nil {
			return key, nil
		} else if finance.ErrorCode(err) != finance.Unauthenticated {
			return "", err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read demo key: %w", err)
	}
	companyID, userID, err := storage.EnsureCompany(ctx, pool, devCompany)
	if err != nil {
		return "", err
	}
	key, err := storage.CreateAPIKey(ctx, pool, companyID, userID, "dev")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(key.Key+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("save demo key: %w", err)
	}
	return key.Key, nil
}

// devSecret returns the secret (the admin token, the receipt secret) kept
// in the file name of dataDir, making a random one of 64 hex digits when
// there is none or it is shorter than minLen, so that it stays the same
// across runs.
func devSecret(dataDir, name string, minLen int) (string, error) {
	path := filepath.Join(dataDir, name)
	saved, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	if secret := strings.TrimSpace(string(saved)); len(secret) >= minLen {
		return secret, nil
	}
	b := make([]byte, 32)
	rand.Read(b) //nolint:errcheck // crypto/rand never fails on supported platforms
	secret := hex.EncodeToString(b)
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("save %s: %w", name, err)
	}
	return secret, nil
}
