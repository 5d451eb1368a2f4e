package jobs

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/propfin/propfin/storage"
)

// Metrics are the job platform's Prometheus series. A nil *Metrics
// records nothing.
type Metrics struct {
	finishedTotal *prometheus.CounterVec
	duration      *prometheus.HistogramVec
}

// NewMetrics registers the job series on reg:
// propfin_jobs_finished_total{kind,state} and
// propfin_job_duration_seconds{kind}.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		finishedTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "propfin_jobs_finished_total",
			Help: "Jobs that reached a final state (succeeded, failed, canceled), by kind.",
		}, []string{"kind", "state"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "propfin_job_duration_seconds",
			Help:    "Time of one run of a job, by kind.",
			Buckets: []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 1800},
		}, []string{"kind"}),
	}
	reg.MustRegister(m.finishedTotal, m.duration)
	return m
}

func (m *Metrics) finished(kind, state string) {
	if m != nil {
		m.finishedTotal.WithLabelValues(kind, state).Inc()
	}
}

func (m *Metrics) observe(kind string, d time.Duration) {
	if m != nil {
		m.duration.WithLabelValues(kind).Observe(d.Seconds())
	}
}

// collectTimeout bounds what one scrape may wait for Redis or PostgreSQL.
const collectTimeout = 2 * time.Second

// QueueCollector reports, at scrape time, the size of every asynq queue
// by task state (propfin_queue_size{queue,state}) and the age of the
// oldest job still waiting for the relay
// (propfin_outbox_oldest_pending_seconds), and the operator alerts that
// still hold (propfin_operator_alerts_open{kind}).
type QueueCollector struct {
	inspector *asynq.Inspector
	pool      *pgxpool.Pool
	log       *slog.Logger
	size      *prometheus.Desc
	oldest    *prometheus.Desc
	redisUp   *prometheus.Desc
	alerts    *prometheus.Desc
}

// NewQueueCollector builds the collector; register it on a registry.
func NewQueueCollector(redis asynq.RedisConnOpt, pool *pgxpool.Pool, log *slog.Logger) *QueueCollector {
	return &QueueCollector{
		inspector: asynq.NewInspector(redis),
		pool:      pool,
		log:       log,
		size: prometheus.NewDesc("propfin_queue_size", "Tasks in an asynq queue, by state.",
			[]string{"queue", "state"}, nil),
		oldest: prometheus.NewDesc("propfin_outbox_oldest_pending_seconds",
			"Age of the oldest job row not yet handed to Redis (0 when none waits).", nil, nil),
		redisUp: prometheus.NewDesc("propfin_redis_up",
			"1 when Redis answered this scrape, 0 when it did not (the queue sizes are then missing).", nil, nil),
		alerts: prometheus.NewDesc("propfin_operator_alerts_open", alertsHelp(), []string{"kind"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *QueueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.size
	ch <- c.oldest
	ch <- c.redisUp
	ch <- c.alerts
}

// Collect implements prometheus.Collector.
func (c *QueueCollector) Collect(ch chan<- prometheus.Metric) {
	c.collectQueues(ch)
	ctx, cancel := context.WithTimeout(context.Background(), collectTimeout)
	defer cancel()
	age, err := storage.OldestPendingJobAge(ctx, c.pool)
	if err != nil {
		c.log.Warn("metrics: oldest pending job", "err", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age.Seconds())
	open, err := storage.OpenAlerts(ctx, c.pool)
	if err != nil {
		c.log.Warn("metrics: open operator alerts", "err", err)
		return
	}
	for kind, n := range open {
		ch <- prometheus.MustNewConstMetric(c.alerts, prometheus.GaugeValue, float64(n), kind)
	}
}

// collectQueues reports every queue's size by state; a queue that never
// held a task is all zeros. Nothing is reported while Redis is down.
func (c *QueueCollector) collectQueues(ch chan<- prometheus.Metric) {
	known, err := c.inspector.Queues()
	up := 1.0
	if err != nil {
		up = 0
	}
	ch <- prometheus.MustNewConstMetric(c.redisUp, prometheus.GaugeValue, up)
	if err != nil {
		c.log.Warn("metrics: queues", "err", err)
		return
	}
	for queue := range QueueWeights {
		info := &asynq.QueueInfo{Queue: queue}
		if slices.Contains(known, queue) {
			if info, err = c.inspector.GetQueueInfo(queue); err != nil {
				c.log.Warn("metrics: queue size", "queue", queue, "err", err)
				continue
			}
		}
		for state, n := range map[string]int{
			"pending": info.Pending, "active": info.Active, "scheduled": info.Scheduled,
			"retry": info.Retry, "archived": info.Archived,
		} {
			ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(n), queue, state)
		}
	}
}

// Close releases the collector's Redis connection.
func (c *QueueCollector) Close() error { return c.inspector.Close() }

// alertHolds says, for each kind of operator alert, what an open one
// means, for the gauge's help.
var alertHolds = map[string]string{
	storage.AlertJobFailed:        "the job is still failed",
	storage.AlertRunMissing:       "no run of the night has succeeded",
	storage.AlertVoidTransferPaid: "the owner paid a voided transfer still owes it",
	storage.AlertShortPayment:     "the invoice or payment a return file paid short is still unpaid",
	storage.AlertOverPayment:      "money a return file or a part brought that nothing books, not resolved yet",
	storage.AlertUnbookedPayment:  "a payment the bank made that a return file books nowhere, not resolved yet",
}

// alertsHelp is the help of propfin_operator_alerts_open: every kind of
// storage.AlertKinds, with what an open one means.
func alertsHelp() string {
	kinds := make([]string, len(storage.AlertKinds))
	for i, k := range storage.AlertKinds {
		kinds[i] = k
		if holds, ok := alertHolds[k]; ok {
			kinds[i] += " (" + holds + ")"
		}
	}
	return "Operator alerts of the last 7 days that still hold, by kind: " + strings.Join(kinds, ", ") + "."
}
