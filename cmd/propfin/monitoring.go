package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/hibiken/asynqmon"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/propfin/propfin/api"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/jobs/redisurl"
	"github.com/propfin/propfin/storage"
)

// operations is what the API process gives its operators: the metrics
// registry and the queue dashboard.
type operations struct {
	metrics   *prometheus.Registry
	dashboard http.Handler // nil without an admin token
	close     func()
}

// newOperations builds the registry (Go runtime, process, database pool,
// queue sizes and the outbox's age; the API adds its request metrics, a
// worker its job metrics) and, when there is an admin token to guard it,
// the dashboard on the Redis of rc.
func newOperations(cfg config, pool *pgxpool.Pool, rc redisConn, log *slog.Logger) operations {
	ops := operations{metrics: newRegistry(pool), close: func() {}}
	queues := jobs.NewQueueCollector(rc.target.Asynq(), pool, log)
	ops.metrics.MustRegister(queues)
	ops.close = func() { queues.Close() }
	if cfg.AdminToken != "" {
		dash := newDashboard(rc.target)
		ops.dashboard, ops.close = dash, func() { dash.Close(); queues.Close() }
	}
	return ops
}

// newRegistry is the process's metrics registry.
func newRegistry(pool *pgxpool.Pool) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		storage.NewPoolCollector(pool),
	)
	return reg
}

// newDashboard is asynqmon, rooted at the API's mount point, on the Redis
// of REDIS_URL (a server, a cluster or a Sentinel-watched master) or the
// in-process Redis of `propfin dev`.
func newDashboard(target *redisurl.Target) *asynqmon.HTTPHandler {
	return asynqmon.New(asynqmon.Options{RootPath: api.MonitoringPath, RedisConnOpt: target.Asynq()})
}

// serve serves the API on ln and, when metricsAddr is set, the metrics on
// their own listener; both stop when ctx ends, and either failing stops
// the other.
func (ops operations) serve(ctx context.Context, ln net.Listener, h http.Handler, metricsAddr string, log *slog.Logger) error {
	if metricsAddr == "" {
		return serveAPI(ctx, ln, h, log)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	metricsDone := make(chan error, 1)
	go func() {
		err := serveMetrics(ctx, metricsAddr, ops.metrics, log)
		cancel()
		metricsDone <- err
	}()
	err := serveAPI(ctx, ln, h, log)
	cancel()
	return errors.Join(err, <-metricsDone)
}

// serveMetrics serves reg at /metrics, alone and without credential, on
// addr (for a Prometheus on a private network) until ctx ends.
func serveMetrics(ctx context.Context, addr string, reg *prometheus.Registry, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("PROPFIN_METRICS_ADDR: listen on %s: %w", addr, err)
	}
	log = log.With("listener", "metrics")
	log.Info("listening", "addr", ln.Addr().String())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelError),
	}))
	return serveAPI(ctx, ln, mux, log)
}
