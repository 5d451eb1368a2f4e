package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMetrics: /metrics, behind the admin credential, shows every request
// by the pattern of its route, never its raw path, and the pool's figures.
func TestMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	e := setup(t, withAdminToken(testAdminToken), withMetrics(reg, true))
	seed(t, e)
	e.get(t, "/buildings/types", http.StatusOK)
	e.get(t, "/buildings/types/1", http.StatusOK)
	e.get(t, "/buildings/types/2", http.StatusOK)
	e.get(t, "/buildings/types/999999", http.StatusNotFound)
	e.get(t, "/nowhere/12345", http.StatusNotFound)
	e.do(t, "BREW", "/buildings/types", e.keyA, nil)
	e.do(t, http.MethodGet, "/buildings/categories", "", nil)
	e.do(t, http.MethodGet, "/healthz", "", nil)

	wantEnvelope(t, "/metrics without credential", e.call(t, http.MethodGet, "/metrics", noCredential), http.StatusUnauthorized)
	r := e.call(t, http.MethodGet, "/metrics", bearer(testAdminToken))
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %q", r.status, r.header.Get("Content-Type"))
	}
	for _, want := range []string{
		`propfin_http_requests_total{method="GET",route="/buildings/types",status="200"} 1`,
		`propfin_http_requests_total{method="GET",route="/buildings/types/:id",status="200"} 2`,
		`propfin_http_requests_total{method="GET",route="/buildings/types/:id",status="404"} 1`,
		`propfin_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`propfin_http_requests_total{method="other",route="unmatched",status="405"} 1`,
		`propfin_http_requests_total{method="GET",route="/buildings/categories",status="401"} 1`,
		`propfin_http_requests_total{method="GET",route="/metrics",status="401"} 1`,
		`propfin_http_requests_total{method="GET",route="/healthz",status="200"} 1`,
		`propfin_http_request_duration_seconds_bucket{method="GET",route="/buildings/types",le="0.001"}`,
		`propfin_http_request_duration_seconds_bucket{method="GET",route="/buildings/types",le="10"} 1`,
		`propfin_http_request_duration_seconds_count{method="GET",route="/buildings/types/:id"} 3`,
		"propfin_http_requests_in_flight 1", // the scrape itself
		"propfin_db_pool_acquired_conns ",
		"propfin_db_pool_idle_conns ",
		"propfin_db_pool_total_conns ",
		"propfin_db_pool_max_conns ",
		"propfin_db_pool_acquire_count_total ",
		"propfin_db_pool_acquire_duration_seconds_total ",
		"propfin_db_pool_empty_acquire_count_total ",
		"propfin_db_pool_canceled_acquire_count_total ",
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, raw := range []string{"/buildings/types/1\"", "/nowhere", "BREW"} {
		if strings.Contains(r.body, raw) {
			t.Errorf("/metrics names %s: labels must be patterns and known methods", raw)
		}
	}
	if problems, err := testutil.GatherAndLint(reg); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
}

// TestMetricsElsewhere: with ServeMetrics off (the metrics have their own
// listener), the API has no /metrics but still records.
func TestMetricsElsewhere(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	e := setup(t, withAdminToken(testAdminToken), withMetrics(reg, false))
	wantEnvelope(t, "/metrics", e.call(t, http.MethodGet, "/metrics", bearer(testAdminToken)), http.StatusNotFound)
	if n, err := testutil.GatherAndCount(reg, "propfin_http_requests_total"); err != nil || n != 1 {
		t.Errorf("requests recorded: %d series (%v)", n, err)
	}
}

// TestNoMetrics: without a registry nothing is recorded and /metrics does
// not exist.
func TestNoMetrics(t *testing.T) {
	t.Parallel()
	e := setup(t, withAdminToken(testAdminToken))
	e.get(t, "/healthz", http.StatusOK)
	wantEnvelope(t, "/metrics", e.call(t, http.MethodGet, "/metrics", bearer(testAdminToken)), http.StatusNotFound)
}

// TestTwoServersShareARegistry: a second server on the same registry
// records into the same series instead of failing to register.
func TestTwoServersShareARegistry(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	a, b := newHTTPMetrics(reg), newHTTPMetrics(reg)
	a.begin()
	a.end("/healthz", http.MethodGet, http.StatusOK, 0)
	b.begin()
	b.end("/healthz", "BREW", http.StatusOK, 0)
	if got := testutil.ToFloat64(a.requests.WithLabelValues("/healthz", "other", "200")); got != 1 {
		t.Errorf("a sees %v of b's requests, want 1", got)
	}
	if got := testutil.ToFloat64(b.inFlight); got != 0 {
		t.Errorf("in flight %v, want 0", got)
	}
}
