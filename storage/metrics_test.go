package storage_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestPoolCollector: the pool's figures are read at scrape time, each
// under its name and type.
func TestPoolCollector(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	collector := storage.NewPoolCollector(pool)
	if problems, err := testutil.CollectAndLint(collector); err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", problems, err)
	}
	conn, err := pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(collector)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, f := range families {
		got[f.GetName()] = f
	}
	cases := []struct {
		name string
		kind dto.MetricType
		min  float64 // the value is at least this
		max  float64 // and at most this (0: no bound)
	}{
		{"propfin_db_pool_acquired_conns", dto.MetricType_GAUGE, 1, 1},
		{"propfin_db_pool_idle_conns", dto.MetricType_GAUGE, 0, 0},
		{"propfin_db_pool_total_conns", dto.MetricType_GAUGE, 1, 0},
		{"propfin_db_pool_max_conns", dto.MetricType_GAUGE, float64(pool.Config().MaxConns), float64(pool.Config().MaxConns)},
		{"propfin_db_pool_acquire_count_total", dto.MetricType_COUNTER, 1, 0},
		{"propfin_db_pool_acquire_duration_seconds_total", dto.MetricType_COUNTER, 0, 0},
		{"propfin_db_pool_empty_acquire_count_total", dto.MetricType_COUNTER, 0, 0},
		{"propfin_db_pool_canceled_acquire_count_total", dto.MetricType_COUNTER, 0, 0},
	}
	for _, c := range cases {
		f, ok := got[c.name]
		if !ok {
			t.Errorf("%s: not collected", c.name)
			continue
		}
		if f.GetType() != c.kind {
			t.Errorf("%s: type %v, want %v", c.name, f.GetType(), c.kind)
		}
		m := f.GetMetric()[0]
		v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
		if v < c.min || (c.max > 0 && v > c.max) {
			t.Errorf("%s = %v, want between %v and %v", c.name, v, c.min, c.max)
		}
	}
	if len(got) != len(cases) {
		t.Errorf("collected %d families, want %d", len(got), len(cases))
	}
}
