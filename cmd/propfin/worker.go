package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// runWorker is `propfin worker`: an asynq server running jobs, and the
// relay that hands pending job rows to Redis.
func runWorker(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.Concurrency, "concurrency", cfg.Concurrency, "jobs run at once")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.DatabaseURL == "" || cfg.RedisURL == "" {
		return errors.New("DATABASE_URL and REDIS_URL must be set (or use `propfin dev`)")
	}
	log := newLogger(cfg.LogFormat, stderr)
	pool, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	redisOpt, err := asynqRedis(cfg.RedisURL)
	if err != nil {
		return err
	}
	kinds, err := jobs.Kinds(jobs.KindsConfig{Retention: cfg.JobRetention})
	if err != nil {
		return err
	}
	return runWorkers(ctx, workerDeps{pool: pool, redis: redisOpt, kinds: kinds, cfg: cfg, log: log})
}

// workerDeps is what the worker and the relay run on.
type workerDeps struct {
	pool    *pgxpool.Pool
	redis   asynq.RedisConnOpt
	kinds   *jobs.Registry
	cfg     config
	log     *slog.Logger
	metrics prometheus.Registerer // nil: no job metrics
}

// runWorkers runs a worker and a relay until ctx ends, and waits for both.
func runWorkers(ctx context.Context, d workerDeps) error {
	var metrics *jobs.Metrics
	if d.metrics != nil {
		metrics = jobs.NewMetrics(d.metrics)
	}
	relay := jobs.NewRelay(jobs.RelayConfig{Pool: d.pool, Redis: d.redis, Kinds: d.kinds,
		QuietAfter: d.cfg.JobQuietAfter, Logger: d.log.With("component", "relay")})
	defer relay.Close()
	worker := jobs.NewWorker(jobs.WorkerConfig{Pool: d.pool, Redis: d.redis, Kinds: d.kinds,
		Concurrency: d.cfg.Concurrency, ShutdownTimeout: d.cfg.WorkerShutdown, ChunkPause: d.cfg.ChunkPause,
		Metrics: metrics, Logger: d.log.With("component", "worker")})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() { defer wg.Done(); errs[0] = relay.Run(ctx) }()
	go func() { defer wg.Done(); errs[1] = worker.Run(ctx) }()
	wg.Wait()
	return errors.Join(errs...)
}

// asynqRedis reads REDIS_URL for asynq (redis://, rediss://,
// redis-sentinel://, unix://).
func asynqRedis(url string) (asynq.RedisConnOpt, error) {
	opt, err := asynq.ParseRedisURI(url)
	if err != nil {
		return nil, fmt.Errorf("parse REDIS_URL: %w", err)
	}
	return opt, nil
}
