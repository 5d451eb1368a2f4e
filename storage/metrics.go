package storage

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// poolStat is one figure of pgxpool.Stat exported as a metric.
type poolStat struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(*pgxpool.Stat) float64
}

func newPoolStat(name, help string, kind prometheus.ValueType, value func(*pgxpool.Stat) float64) poolStat {
	return poolStat{desc: prometheus.NewDesc("propfin_db_pool_"+name, help, nil, nil), kind: kind, value: value}
}

// poolStats is every figure the pool collector exports.
var poolStats = []poolStat{
	newPoolStat("acquired_conns", "Connections currently acquired from the pool.", prometheus.GaugeValue,
		func(s *pgxpool.Stat) float64 { return float64(s.AcquiredConns()) }),
	newPoolStat("idle_conns", "Idle connections in the pool.", prometheus.GaugeValue,
		func(s *pgxpool.Stat) float64 { return float64(s.IdleConns()) }),
	newPoolStat("total_conns", "Connections in the pool: acquired, idle and being opened.", prometheus.GaugeValue,
		func(s *pgxpool.Stat) float64 { return float64(s.TotalConns()) }),
	newPoolStat("max_conns", "The most connections the pool may hold.", prometheus.GaugeValue,
		func(s *pgxpool.Stat) float64 { return float64(s.MaxConns()) }),
	newPoolStat("acquire_count_total", "Connections acquired from the pool.", prometheus.CounterValue,
		func(s *pgxpool.Stat) float64 { return float64(s.AcquireCount()) }),
	newPoolStat("acquire_duration_seconds_total", "Time spent acquiring connections from the pool.", prometheus.CounterValue,
		func(s *pgxpool.Stat) float64 { return s.AcquireDuration().Seconds() }),
	newPoolStat("empty_acquire_count_total", "Acquires that had to wait for a connection because none was idle.", prometheus.CounterValue,
		func(s *pgxpool.Stat) float64 { return float64(s.EmptyAcquireCount()) }),
	newPoolStat("canceled_acquire_count_total", "Acquires cancelled by their context before getting a connection.", prometheus.CounterValue,
		func(s *pgxpool.Stat) float64 { return float64(s.CanceledAcquireCount()) }),
}

// poolCollector reads a pool's statistics at scrape time.
type poolCollector struct {
	pool *pgxpool.Pool
}

// NewPoolCollector exports pool's statistics (pgxpool.Stat) as the
// propfin_db_pool_* gauges and counters, read at each scrape.
func NewPoolCollector(pool *pgxpool.Pool) prometheus.Collector {
	return poolCollector{pool: pool}
}

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, s := range poolStats {
		ch <- s.desc
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	stat := c.pool.Stat()
	for _, s := range poolStats {
		ch <- prometheus.MustNewConstMetric(s.desc, s.kind, s.value(stat))
	}
}
