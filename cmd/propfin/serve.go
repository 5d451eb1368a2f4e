package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/api"
	"github.com/propfin/propfin/jobs/redisurl"
	"github.com/propfin/propfin/storage"
)

// shutdownGrace is how long in-flight requests may take after SIGTERM.
const shutdownGrace = 25 * time.Second

func runServe(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "address to listen on")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log := newLogger(cfg.LogFormat, stderr)
	defer logStopped(log, "serve")
	pool, rc, closeServers, err := openServers(ctx, cfg, 0, log)
	if err != nil {
		return err
	}
	defer closeServers()
	checkSchema(ctx, pool, log) // it serves all the same: /readyz says not ready
	replica, err := openReplica(ctx, cfg, log)
	if err != nil {
		return err
	}
	if replica != nil {
		defer replica.Close()
	}
	ops := newOperations(cfg, pool, rc, log)
	defer ops.close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("PROPFIN_ADDR (else PORT): listen on %s: %w", cfg.Addr, err)
	}
	log.Info("listening", "addr", ln.Addr().String())
	if cfg.AdminToken == "" {
		log.Info("PROPFIN_ADMIN_TOKEN is not set: no queue dashboard, and no /metrics on the API")
	}
	if cfg.ReceiptSecret == "" {
		log.Warn("PROPFIN_RECEIPT_SECRET is not set: receiptLink answers 503 and no receipt page is served")
	}
	return ops.serve(ctx, ln, apiHandler(ctx, pool, replica, rc.client, cfg, ops, log), cfg.MetricsAddr, log)
}

// openServers opens what a long-running process works on: the database
// pool, holding at least conns connections, and Redis; closeAll releases
// both. A database that does not answer stops the process (the platform
// starts it again); a Redis that does not answer only delays jobs, so the
// process starts anyway, saying so, and the client connects when Redis
// returns.
func openServers(ctx context.Context, cfg config, conns int, log *slog.Logger) (*pgxpool.Pool, redisConn, func(), error) {
	if cfg.DatabaseURL == "" || cfg.RedisURL == "" {
		return nil, redisConn{}, nil, errors.New("DATABASE_URL and REDIS_URL must be set (or use `propfin dev`)")
	}
	target, err := redisurl.Parse(cfg.RedisURL)
	if err != nil {
		return nil, redisConn{}, nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	pool, err := storage.OpenSized(ctx, cfg.DatabaseURL, conns)
	if err != nil {
		return nil, redisConn{}, nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	rc := redisConn{client: target.Client(), target: target}
	log.Info("Redis", "target", target.String())
	if err := rc.client.Ping(ctx).Err(); err != nil {
		log.Warn("Redis does not answer; starting anyway: jobs wait in PostgreSQL and the rate limit is off until it does",
			"err", err)
	}
	return pool, rc, func() { rc.client.Close(); pool.Close() }, nil
}

// redisConn is the Redis of REDIS_URL (one server, a cluster or a
// Sentinel-watched master): the client the process shares (rate limit,
// readiness) and the target asynq opens its own clients on.
type redisConn struct {
	client redis.UniversalClient
	target *redisurl.Target
}

// openRedis connects to the Redis of url and checks it answers.
func openRedis(ctx context.Context, url string) (redisConn, error) {
	target, err := redisurl.Parse(url)
	if err != nil {
		return redisConn{}, fmt.Errorf("REDIS_URL: %w", err)
	}
	rdb := target.Client()
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return redisConn{}, fmt.Errorf("ping redis (%s): %w", target, err)
	}
	return redisConn{client: rdb, target: target}, nil
}

// openReplica opens the pool lists and gets read from, when
// DATABASE_REPLICA_URL is set (nil otherwise). Like the primary, it must
// answer at start.
func openReplica(ctx context.Context, cfg config, log *slog.Logger) (*pgxpool.Pool, error) {
	if cfg.ReplicaURL == "" {
		return nil, nil
	}
	replica, err := storage.Open(ctx, cfg.ReplicaURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_REPLICA_URL: %w", err)
	}
	log.Info("lists, gets and reports read from DATABASE_REPLICA_URL; writes and jobs from DATABASE_URL")
	return replica, nil
}

// apiHandler is the API on pool, reading lists and gets from replica when
// it is not nil; until ctx ends it forgets the API keys revoked as soon as
// they are.
func apiHandler(ctx context.Context, pool, replica *pgxpool.Pool, rdb redis.UniversalClient, cfg config, ops operations, log *slog.Logger) http.Handler {
	store := storage.NewStore(pool, storage.DefaultRegistry())
	srv := api.New(api.Config{
		Store: store, Replica: replica, Redis: rdb, RateLimit: cfg.RateLimit, AuthFailureLimit: cfg.AuthFails, AuthCacheTTL: cfg.AuthTTL,
		RequestTimeout: cfg.Timeout, Logger: log, Schedules: cfg.Schedules,
		AdminToken: cfg.AdminToken, Monitoring: ops.dashboard, Metrics: ops.metrics, ServeMetrics: cfg.MetricsAddr == "",
		ReceiptSecret: []byte(cfg.ReceiptSecret), PublicURL: cfg.PublicURL, ReceiptLifetime: cfg.ReceiptLifetime,
		Webhooks: cfg.webhookPolicy(),
	})
	go srv.ForgetRevokedKeys(ctx)
	return srv.Handler()
}

// serveAPI serves until ctx ends, then stops taking connections and lets
// the requests in flight finish (up to shutdownGrace).
func serveAPI(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	srv := &http.Server{
		Handler: h,
		// the API's own limits on the URL and the header fields (64 KiB
		// each, answered in the envelope) sit below this one, past which
		// net/http answers 431 in plain text (docs/api.md, "Errors")
		MaxHeaderBytes:    http.DefaultMaxHeaderBytes,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
