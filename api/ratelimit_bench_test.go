package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// benchRedis returns a client of a Redis for the limiter benchmarks, by
// name: a real "redis-server" (nil when none is installed) or "miniredis",
// the in-process server of `propfin dev`.
func benchRedis(b *testing.B, server string) redis.UniversalClient {
	if server == "redis-server" {
		r := storagetest.NewRedis(b)
		if !r.Real {
			return nil
		}
		return r.Client(b)
	}
	c := redis.NewClient(&redis.Options{Addr: miniredis.RunT(b).Addr()})
	b.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkRateLimiter measures the per-key limiter alone: its middleware
// around a handler that does nothing, one API key, a limit no request
// reaches, from as many goroutines as GOMAXPROCS. ns/op and B/op are the
// limiter's cost per request: with leases of 1 every request asks Redis
// (what the limiter did before leases), 10 is the lease of the default
// limit (600 a minute), 100 the largest.
func BenchmarkRateLimiter(b *testing.B) {
	for _, server := range []string{"redis-server", "miniredis"} {
		for _, lease := range []int{1, 10, maxLease} {
			b.Run(fmt.Sprintf("%s/lease=%d", server, lease), func(b *testing.B) {
				rdb := benchRedis(b, server)
				if rdb == nil {
					b.Skip("no redis-server installed")
				}
				l := newRateLimiter(rdb, 1<<30, quietLog)
				l.lease = lease
				limited := l.middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
				req := requestOfKey(42)
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					w := httptest.NewRecorder()
					for pb.Next() {
						limited.ServeHTTP(w, req)
						if w.Code != http.StatusOK {
							b.Errorf("status %d", w.Code)
							return
						}
					}
				})
			})
		}
	}
}

// BenchmarkLightListLimited is BenchmarkTypesList's list (benchQuery over
// 100,000 types) through the whole API, its limiter on a real redis-server
// or on miniredis, beside the bare pgx+JSON handler over the same database,
// at 2 and 32 clients. The two servers take turns in blocks of listBlock
// requests (b.N each in all), so that the load of a shared machine falls on
// both alike; it reports each one's requests per second and p50/p99, and
// api/bare, the ratio of their throughputs. The limit (2^30 a minute) is
// never reached: every request is admitted from leases of maxLease.
func BenchmarkLightListLimited(b *testing.B) {
	pool := storagetest.NewDB(b)
	companyID, userID := seedBench(b, pool)
	key, err := storage.CreateAPIKey(context.Background(), pool, companyID, userID, "bench")
	if err != nil {
		b.Fatal(err)
	}
	bare := httptest.NewServer(bareTypesHandler(pool, companyID))
	defer bare.Close()
	for _, server := range []string{"redis-server", "miniredis"} {
		rdb := benchRedis(b, server)
		if rdb == nil {
			b.Logf("no redis-server installed: the API on miniredis only")
			continue
		}
		srv := New(Config{Store: storage.NewStore(pool, storage.DefaultRegistry()), Redis: rdb, RateLimit: 1 << 30, Logger: quietLog})
		api := httptest.NewServer(srv.Handler())
		defer api.Close()
		for _, clients := range []int{2, 32} {
			b.Run(fmt.Sprintf("%s/clients=%d", server, clients), func(b *testing.B) {
				apiRun := &loadRun{url: api.URL + benchQuery, key: key.Key}
				bareRun := &loadRun{url: bare.URL + benchQuery}
				for sent := 0; sent < b.N; sent += listBlock {
					n := min(listBlock, b.N-sent)
					first, second := apiRun, bareRun
					if sent/listBlock%2 == 1 {
						first, second = bareRun, apiRun
					}
					for _, r := range []*loadRun{first, second} {
						if err := r.send(clients, n); err != nil {
							b.Fatal(err)
						}
					}
				}
				apiRun.report(b, "api")
				bareRun.report(b, "bare")
				b.ReportMetric(apiRun.perSecond()/bareRun.perSecond(), "api/bare")
			})
		}
	}
}

// listBlock is how many requests one server answers before the other's turn.
const listBlock = 250

// loadRun accumulates the requests sent to one server in turns, over
// connections kept from turn to turn.
type loadRun struct {
	url, key  string
	client    *http.Client
	elapsed   time.Duration
	latencies []time.Duration
}

// send sends n GET requests from clients goroutines.
func (r *loadRun) send(clients, n int) error {
	if r.client == nil {
		r.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	}
	latencies := make([]time.Duration, n)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				t0 := time.Now()
				if err := fetch(r.client, r.url, r.key); err != nil {
					failed.Store(err)
					return
				}
				latencies[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	r.elapsed += time.Since(start)
	r.latencies = append(r.latencies, latencies...)
	if err, ok := failed.Load().(error); ok {
		return err
	}
	return nil
}

func (r *loadRun) perSecond() float64 { return float64(len(r.latencies)) / r.elapsed.Seconds() }

func (r *loadRun) report(b *testing.B, name string) {
	r.client.CloseIdleConnections()
	slices.Sort(r.latencies)
	b.ReportMetric(r.perSecond(), name+"-req/s")
	b.ReportMetric(float64(r.latencies[len(r.latencies)/2].Microseconds())/1000, name+"-p50-ms")
	b.ReportMetric(float64(r.latencies[len(r.latencies)*99/100].Microseconds())/1000, name+"-p99-ms")
}

// requestOfKey is a request authenticated as API key keyID.
func requestOfKey(keyID int64) *http.Request {
	ctx := withRequestState(context.Background(), slog.Default())
	ctx.Value(requestStateKey{}).(*requestState).principal = storage.Principal{KeyID: keyID}
	return httptest.NewRequest(http.MethodGet, "/buildings/types", nil).WithContext(ctx)
}
