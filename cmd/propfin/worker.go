package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"sync"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/propfin/propfin/jobs"
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
	log := newLogger(cfg.LogFormat, stderr)
	defer logStopped(log, "worker")
	pool, rc, closeServers, err := openServers(ctx, cfg, workerConns(cfg), log)
	if err != nil {
		return err
	}
	defer closeServers()
	waitSchema(ctx, pool, log)
	if ctx.Err() != nil {
		return nil
	}
	reminders, err := workerReminders(cfg, log)
	if err != nil {
		return err
	}
	if reminders != nil {
		go probeMail(ctx, reminders.SMTP, log)
	}
	kinds, err := cfg.kinds(reminders)
	if err != nil {
		return err
	}
	reg := newRegistry(pool)
	d := workerDeps{pool: pool, redis: rc.target.Asynq(), kinds: kinds, cfg: cfg, log: log, metrics: reg}
	if cfg.MetricsAddr == "" {
		log.Info("PROPFIN_METRICS_ADDR is not set: this worker's job metrics are not served")
		return runWorkers(ctx, d)
	}
	return runBeside(ctx, func(ctx context.Context) error { return runWorkers(ctx, d) },
		func(ctx context.Context) error { return serveMetrics(ctx, cfg.MetricsAddr, reg, log) })
}

// workerConns is the connections a worker process needs at once: up to
// jobs.MaxChunksAtOnce per job it runs, the relay and its LISTEN, and a
// metrics scrape.
func workerConns(cfg config) int {
	return cfg.Concurrency*jobs.MaxChunksAtOnce + cfg.WebhookConcurrency + 3
}

// runBeside runs both until ctx ends or either fails, which stops the
// other.
func runBeside(ctx context.Context, a, b func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 2)
	for _, f := range []func(context.Context) error{a, b} {
		go func() { err := f(ctx); cancel(); errs <- err }()
	}
	return errors.Join(<-errs, <-errs)
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
		Dedicated:     map[string]int{jobs.QueueWebhooks: d.cfg.WebhookConcurrency},
		CompanyChunks: d.cfg.CompanyChunks, Metrics: metrics, Logger: d.log.With("component", "worker")})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() { defer wg.Done(); errs[0] = relay.Run(ctx) }()
	go func() { defer wg.Done(); errs[1] = worker.Run(ctx) }()
	wg.Wait()
	return errors.Join(errs...)
}
