package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// durationBuckets spans what an API request takes: 1 ms to 10 s.
var durationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// httpMetrics counts and times the API's requests. A nil *httpMetrics
// records nothing.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
}

// newHTTPMetrics registers the request metrics on reg; nil when reg is nil.
func newHTTPMetrics(reg *prometheus.Registry) *httpMetrics {
	if reg == nil {
		return nil
	}
	return &httpMetrics{
		requests: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "propfin_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"})),
		duration: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "propfin_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern and method.",
			Buckets: durationBuckets,
		}, []string{"route", "method"})),
		inFlight: register(reg, prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "propfin_http_requests_in_flight",
			Help: "HTTP requests being answered.",
		})),
	}
}

// register registers c on reg, or returns the collector registered before
// under the same name, so that two servers on one registry share it.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	err := reg.Register(c)
	if err == nil {
		return c
	}
	var dup prometheus.AlreadyRegisteredError
	if errors.As(err, &dup) {
		if existing, ok := dup.ExistingCollector.(C); ok {
			return existing
		}
	}
	panic(err)
}

// begin counts a request in flight.
func (m *httpMetrics) begin() {
	if m != nil {
		m.inFlight.Inc()
	}
}

// end records a request that took elapsed and was answered status.
func (m *httpMetrics) end(route, method string, status int, elapsed time.Duration) {
	if m == nil {
		return
	}
	m.inFlight.Dec()
	method = methodLabel(method)
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route, method).Observe(elapsed.Seconds())
}

// methodLabel keeps the method label to the standard methods: any other
// word a client sends is "other", so clients cannot grow the series.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return method
	}
	return "other"
}
