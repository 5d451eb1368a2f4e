package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// limiterRedis is a Redis the limiter tests share between limiters, as
// API processes share one. On miniredis its clock stands still, so no
// request regenerates during a test and every count is exact; on a real
// server requests regenerate at the limit's rate while the test runs, and
// the checks allow for that (regenerated).
type limiterRedis struct {
	client func() *redis.Client // a new client of the server
	frozen bool
	start  time.Time
}

// limiterServers runs test once on miniredis with a frozen clock and once on
// the Redis of storagetest.NewRedis (a redis-server when installed).
func limiterServers(t *testing.T, test func(t *testing.T, r *limiterRedis)) {
	t.Run("miniredis", func(t *testing.T) {
		t.Parallel()
		mr := miniredis.RunT(t)
		mr.SetTime(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		test(t, &limiterRedis{frozen: true, start: time.Now(), client: func() *redis.Client {
			c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
			t.Cleanup(func() { c.Close() })
			return c
		}})
	})
	t.Run("redis-server", func(t *testing.T) {
		t.Parallel()
		r := storagetest.NewRedis(t)
		test(t, &limiterRedis{start: time.Now(), client: func() *redis.Client { return r.Client(t) }})
	})
}

// regenerated is how many requests a bucket of perMinute may have regained
// since the test started: none on a frozen clock.
func (r *limiterRedis) regenerated(perMinute int) int {
	if r.frozen {
		return 0
	}
	return int(math.Ceil(time.Since(r.start).Minutes()*float64(perMinute))) + 1
}

// testClock is the limiters' clock in tests: it moves only when told.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)} }

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// scriptCalls counts a client's runs of the bucket script: every one sent
// (round trips; the first of a server costs two, NOSCRIPT then EVAL), and
// those Redis answered (leases). Connection set-up is not counted.
type scriptCalls struct {
	leases, roundTrips atomic.Int64
}

func countCalls(c *redis.Client) *scriptCalls {
	n := &scriptCalls{}
	c.AddHook(n)
	return n
}

func (n *scriptCalls) DialHook(next redis.DialHook) redis.DialHook { return next }

func (n *scriptCalls) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			n.roundTrips.Add(1)
			if err == nil {
				n.leases.Add(1)
			}
		}
		return err
	}
}

func (n *scriptCalls) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// testLimiter is a per-key limiter of perMinute leasing lease requests at
// a time, on clock.
func testLimiter(rdb redis.UniversalClient, perMinute, lease int, clock *testClock) *rateLimiter {
	l := newRateLimiter(rdb, perMinute, quietLog)
	l.lease = lease
	l.buckets.now = clock.now
	return l
}

func mustAllow(t *testing.T, l *rateLimiter, keyID int64) verdict {
	t.Helper()
	v, err := l.allow(context.Background(), keyID)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLeaseSize(t *testing.T) {
	t.Parallel()
	cases := []struct{ perMinute, want int }{
		{1, 1}, {60, 1}, {61, 2}, {120, 2}, {600, 10}, {3000, 50}, {6000, 100}, {1 << 30, maxLease},
	}
	for _, c := range cases {
		if got := leaseSize(c.perMinute); got != c.want {
			t.Errorf("leaseSize(%d) = %d, want %d", c.perMinute, got, c.want)
		}
	}
}

// TestBucket: the bucket script grants what the bucket holds, says how long
// until it grants again, takes back what is handed back, and keeps its key
// only while the bucket is not full.
func TestBucket(t *testing.T) {
	t.Parallel()
	limiterServers(t, func(t *testing.T, r *limiterRedis) {
		rdb := r.client()
		b := &buckets{rdb: rdb, log: quietLog, now: time.Now}
		const key, limit = "ratelimit:{key:1}", 6 // one request per 10 s
		steps := []struct {
			name                    string
			want, back              int
			granted, remaining      int
			waitAtLeast, waitAtMost time.Duration
			ttlAtLeast, ttlAtMost   time.Duration
			keyExists               bool
		}{
			{"part of a full bucket", 2, 0, 2, 4, 0, 0, 19 * time.Second, 20 * time.Second, true},
			{"more than it holds", 5, 0, 4, 0, 9 * time.Second, 10 * time.Second, 59 * time.Second, time.Minute, true},
			{"nothing left", 1, 0, 0, 0, 9 * time.Second, 10 * time.Second, 59 * time.Second, time.Minute, true},
			{"after three handed back", 1, 3, 1, 2, 0, 0, 39 * time.Second, 40 * time.Second, true},
			{"more handed back than taken", 0, 100, 0, 6, 0, 0, 0, 0, false},
		}
		for _, s := range steps {
			g, err := b.take(context.Background(), key, limit, s.want, s.back)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if g.granted != s.granted || g.remaining != s.remaining {
				t.Errorf("%s: granted %d, remaining %d; want %d, %d", s.name, g.granted, g.remaining, s.granted, s.remaining)
			}
			if g.wait < s.waitAtLeast || g.wait > s.waitAtMost {
				t.Errorf("%s: wait %s, want %s to %s", s.name, g.wait, s.waitAtLeast, s.waitAtMost)
			}
			ttl, err := rdb.PTTL(context.Background(), key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if exists := ttl > 0; exists != s.keyExists {
				t.Errorf("%s: key exists %v (PTTL %s), want %v", s.name, exists, ttl, s.keyExists)
			} else if exists && (ttl < s.ttlAtLeast || ttl > s.ttlAtMost) {
				t.Errorf("%s: PTTL %s, want %s to %s", s.name, ttl, s.ttlAtLeast, s.ttlAtMost)
			}
		}
	})
}

// TestLeaseCost: a process asks Redis once per lease, not once per request.
func TestLeaseCost(t *testing.T) {
	t.Parallel()
	limiterServers(t, func(t *testing.T, r *limiterRedis) {
		rdb := r.client()
		calls := countCalls(rdb)
		l := testLimiter(rdb, 1<<30, 100, newTestClock())
		for i := range 250 {
			if v := mustAllow(t, l, 7); !v.allowed {
				t.Fatalf("request %d refused", i+1)
			}
		}
		// the first run of the script may cost one more round trip (NOSCRIPT, then EVAL)
		if leases, trips := calls.leases.Load(), calls.roundTrips.Load(); leases != 3 || trips > 4 {
			t.Errorf("250 requests in leases of 100: %d leases, %d round trips; want 3 leases", leases, trips)
		}
	})
}

// TestLeaseShared: two processes share one limit. Together they admit the
// limit, not twice it; one can be refused while the other still holds at
// most its lease less one, which it then spends without asking Redis.
func TestLeaseShared(t *testing.T) {
	t.Parallel()
	limiterServers(t, func(t *testing.T, r *limiterRedis) {
		const limit, lease = 60, 10
		clock := newTestClock()
		rdbA, rdbB := r.client(), r.client()
		callsA := countCalls(rdbA)
		a, b := testLimiter(rdbA, limit, lease, clock), testLimiter(rdbB, limit, lease, clock)

		if v := mustAllow(t, a, 1); !v.allowed || v.remaining < limit-1 || v.remaining > limit-1+r.regenerated(limit) {
			t.Fatalf("A's first request: %+v, want allowed with %d remaining", v, limit-1)
		}
		admittedB := 0
		for {
			v := mustAllow(t, b, 1)
			if !v.allowed {
				if v.wait <= 0 || v.wait > time.Second {
					t.Errorf("B refused with wait %s, want up to one interval (1s)", v.wait)
				}
				break
			}
			admittedB++
			if admittedB > 2*limit {
				t.Fatal("B is never refused")
			}
		}
		if admittedB < limit-lease || admittedB > limit-lease+r.regenerated(limit) {
			t.Errorf("B admitted %d while A held its lease, want %d", admittedB, limit-lease)
		}
		before := callsA.roundTrips.Load()
		for i := range lease - 1 {
			if v := mustAllow(t, a, 1); !v.allowed {
				t.Fatalf("A's request %d from its lease refused", i+2)
			}
		}
		if trips := callsA.roundTrips.Load() - before; trips != 0 {
			t.Errorf("A asked Redis %d times while spending its lease", trips)
		}
		admittedA := lease
		for mustAllow(t, a, 1).allowed {
			admittedA++
			if admittedA > 2*limit {
				t.Fatal("A is never refused")
			}
		}
		if total := admittedA + admittedB; total < limit || total > limit+r.regenerated(limit) {
			t.Errorf("A and B admitted %d together, want the limit, %d", total, limit)
		}
		// both are refused now, and say so without asking Redis
		before = callsA.roundTrips.Load()
		if mustAllow(t, a, 1).allowed || callsA.roundTrips.Load() != before {
			t.Error("A, refused, should refuse again from memory until the wait has passed")
		}
		if !mustAllow(t, b, 2).allowed {
			t.Error("another key has its own limit")
		}
	})
}

// TestLeaseExpires: what a lease holds is not spent after its lifetime; it
// goes back to the bucket with the next lease, so the count is the one a
// single counter would keep.
func TestLeaseExpires(t *testing.T) {
	t.Parallel()
	limiterServers(t, func(t *testing.T, r *limiterRedis) {
		const limit, lease = 60, 10
		clock := newTestClock()
		rdb := r.client()
		calls := countCalls(rdb)
		l := testLimiter(rdb, limit, lease, clock)
		first := mustAllow(t, l, 1)
		clock.advance(leaseLifetime - time.Millisecond)
		if v := mustAllow(t, l, 1); !v.allowed || v.remaining != first.remaining-1 || calls.leases.Load() != 1 {
			t.Fatalf("within the lifetime: %+v after %+v, %d leases; want one lease", v, first, calls.leases.Load())
		}
		clock.advance(time.Millisecond)
		v := mustAllow(t, l, 1)
		if !v.allowed || calls.leases.Load() != 2 {
			t.Fatalf("past the lifetime: %+v, %d leases; want a second lease", v, calls.leases.Load())
		}
		if v.remaining < limit-3 || v.remaining > limit-3+r.regenerated(limit) {
			t.Errorf("after 3 requests and a lease handed back, remaining %d, want %d", v.remaining, limit-3)
		}
	})
}

// TestLeaseConcurrent: many requests of one key at once in one process
// make one lease at a time, and admit the limit exactly.
func TestLeaseConcurrent(t *testing.T) {
	t.Parallel()
	limiterServers(t, func(t *testing.T, r *limiterRedis) {
		const limit, lease, clients, each = 60, 10, 32, 10
		rdb := r.client()
		calls := countCalls(rdb)
		l := testLimiter(rdb, limit, lease, newTestClock())
		var admitted atomic.Int64
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for range each {
					v, err := l.allow(context.Background(), 1)
					if err != nil {
						t.Error(err)
						return
					}
					if v.allowed {
						admitted.Add(1)
					}
				}
			})
		}
		wg.Wait()
		extra := r.regenerated(limit)
		if n := int(admitted.Load()); n < limit || n > limit+extra {
			t.Errorf("%d requests admitted, want the limit, %d", n, limit)
		}
		// six leases of ten, and the one that was refused
		if n := int(calls.leases.Load()); n > limit/lease+1+extra {
			t.Errorf("%d leases for %d requests, want %d", n, clients*each, limit/lease+1)
		}
	})
}

// TestRateLimitRedisDown: when Redis does not answer, requests are served
// without a limit and without the limit's headers, and Redis is left alone
// for redisPause; then the limit applies again.
func TestRateLimitRedisDown(t *testing.T) {
	t.Parallel()
	r := storagetest.NewRedisProcess(t)
	rdb := r.Client(t)
	calls := countCalls(rdb)
	clock := newTestClock()
	l := testLimiter(rdb, 2, 1, clock)
	served := 0
	h := l.middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }))
	send := func() *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, requestOfKey(9))
		return w
	}
	if w := send(); w.Code != http.StatusOK || w.Header().Get("X-RateLimit-Remaining") != "1" {
		t.Fatalf("first request: %d %v", w.Code, w.Header())
	}
	r.Stop(t)
	for i := range 5 {
		if w := send(); w.Code != http.StatusOK || w.Header().Get("X-RateLimit-Limit") != "" {
			t.Fatalf("request %d with Redis down: %d %v", i+1, w.Code, w.Header())
		}
	}
	if served != 6 {
		t.Errorf("%d requests served, want 6", served)
	}
	before := calls.roundTrips.Load()
	send()
	if n := calls.roundTrips.Load() - before; n != 0 {
		t.Errorf("%d calls to Redis within the pause, want none", n)
	}
	r.Start(t)
	clock.advance(redisPause)
	w := send()
	if w.Code != http.StatusOK || w.Header().Get("X-RateLimit-Limit") != "2" {
		t.Fatalf("after the pause, with Redis back: %d %v", w.Code, w.Header())
	}
	// a restarted redis-server has lost the count; miniredis kept it
	for w.Code == http.StatusOK && served < 20 {
		w = send()
	}
	if w.Code != http.StatusTooManyRequests {
		t.Errorf("the limit does not apply again: %d", w.Code)
	}
}

// TestRateLimitCluster: the limiters run through a Redis Cluster client
// (their keys are hash-tagged, one key per script); miniredis answers as a
// one-node cluster.
func TestRateLimitCluster(t *testing.T) {
	t.Parallel()
	mr := miniredis.RunT(t)
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{mr.Addr()}})
	t.Cleanup(func() { rdb.Close() })
	l := newRateLimiter(rdb, 3, quietLog)
	for i := range 3 {
		if v := mustAllow(t, l, 5); !v.allowed {
			t.Fatalf("request %d refused", i+1)
		}
	}
	if v := mustAllow(t, l, 5); v.allowed || v.wait <= 0 {
		t.Errorf("over the limit through a cluster client: %+v", v)
	}
	if !mr.Exists(rateKey(5)) {
		t.Errorf("no bucket at %s; keys %v", rateKey(5), mr.Keys())
	}
	f := newFailureLimiter(rdb, 1, quietLog)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	if _, limited := f.fail(req, "192.0.2.1"); limited {
		t.Error("the first failure is within the limit")
	}
	if _, limited := f.fail(req, "192.0.2.1"); !limited {
		t.Error("the second failure is over the limit of one")
	}
}

// TestRateLimitSharedByServers: two API servers on one Redis and one
// database, a client alternating between them: together they admit the
// key's limit, then both answer 429 in the spec's envelope.
func TestRateLimitSharedByServers(t *testing.T) {
	t.Parallel()
	limiterServers(t, func(t *testing.T, r *limiterRedis) {
		const limit = 120 // leases of 2
		e := setup(t, withRateLimit(limit), func(c *Config, _ *Server) { c.Redis = r.client() })
		second := New(Config{Store: storage.NewStore(e.pool, storage.DefaultRegistry()), Redis: r.client(), RateLimit: limit, Logger: quietLog})
		ts := httptest.NewServer(second.Handler())
		t.Cleanup(ts.Close)
		e2 := *e
		e2.url = ts.URL
		admitted := 0
		var last response
		for round := 0; ; round++ {
			ra := e.do(t, http.MethodGet, "/buildings/types", e.keyA, nil)
			rb := e2.do(t, http.MethodGet, "/buildings/types", e.keyA, nil)
			for _, res := range []response{ra, rb} {
				switch res.status {
				case http.StatusOK:
					admitted++
				case http.StatusTooManyRequests:
					last = res
				default:
					t.Fatalf("%d %s", res.status, res.raw)
				}
			}
			if ra.status == http.StatusTooManyRequests && rb.status == http.StatusTooManyRequests {
				break
			}
			if round > limit {
				t.Fatalf("still admitted after %d requests", admitted)
			}
		}
		if admitted < limit || admitted > limit+r.regenerated(limit) {
			t.Errorf("two servers admitted %d, want the shared limit, %d", admitted, limit)
		}
		if last.body["message"] != "Too Many Attempts." || last.body["return"] != false || last.header.Get("X-RateLimit-Limit") != strconv.Itoa(limit) {
			t.Errorf("429: %s %v", last.raw, last.header)
		}
		if retry, err := strconv.Atoi(last.header.Get("Retry-After")); err != nil || retry != 1 {
			t.Errorf("Retry-After %q, want 1 (one request every half second)", last.header.Get("Retry-After"))
		}
		if r := e2.do(t, http.MethodGet, "/buildings/types", e.keyB, nil); r.status != http.StatusOK {
			t.Errorf("the limit is per key; B got %d", r.status)
		}
	})
}

// TestRateLimitWindow: what a key may send in any 60 s (README,
// docs/api.md "Rate limit"), driven on a fake clock that the process and
// Redis share. A client sending as soon as the limiter lets it (and again
// when the wait it was told has passed) gets a burst of the limit N, then
// one every 60/N s: 2N in a span of 60 s, both ends included. What a
// process leased in the second before such a span it may spend in it, less
// the request that took the lease: above 120 a minute that is more, for
// 2N + ceil(N/60) - 2 in all. Both are reached, and never passed.
func TestRateLimitWindow(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1, 7, 60, 61, 120, 121, 600} {
		t.Run(strconv.Itoa(limit), func(t *testing.T) {
			t.Parallel()
			want := windowLimit(limit)
			burst, leased := windowCount(t, limit, false), windowCount(t, limit, true)
			if most := max(burst, leased); most != want {
				t.Errorf("at most %d in 60 s from a full bucket and %d with a lease taken a second before; want %d", burst, leased, want)
			}
		})
	}
}

// TestRateLimitDocumented: the README and docs/api.md state what
// TestRateLimitWindow finds, at the default limit and as a rule.
func TestRateLimitDocumented(t *testing.T) {
	t.Parallel()
	figure := fmt.Sprintf("%d,%03d", windowLimit(DefaultRateLimit)/1000, windowLimit(DefaultRateLimit)%1000)
	for _, path := range []string{"../README.md", "../docs/api.md"} {
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"2N + max(0, ⌈N/60⌉ − 2)", figure + " at the default"} {
			if !strings.Contains(string(doc), want) {
				t.Errorf("%s does not say %q", path, want)
			}
		}
	}
}

// windowLimit is the most one key is admitted in any 60 s at a limit of
// perMinute, as the README states it: 2N + max(0, ceil(N/60) - 2).
func windowLimit(perMinute int) int {
	return 2*perMinute + max(0, (perMinute+59)/60-2)
}

// windowCount runs a client of one key against a limiter of limit a
// minute for three minutes, and returns the most requests it was admitted
// in any 60 s, ends included. With leaseFirst the client sends one
// request 1 s less 1 µs before it starts, so that the lease that request
// took is still good when it does.
func windowCount(t *testing.T, limit int, leaseFirst bool) int {
	t.Helper()
	mr := miniredis.RunT(t)
	clock := newTestClock()
	at := func(d time.Duration) { // both clocks d later
		clock.advance(d)
		mr.SetTime(clock.now())
	}
	at(0)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	l := testLimiter(rdb, limit, leaseSize(limit), clock)
	if leaseFirst {
		if v := mustAllow(t, l, 1); !v.allowed {
			t.Fatal("the first request is refused")
		}
		at(leaseLifetime - time.Microsecond)
	}
	var admitted []time.Time
	for end := clock.now().Add(3 * time.Minute); clock.now().Before(end); {
		v := mustAllow(t, l, 1)
		if !v.allowed {
			at(v.wait)
			continue
		}
		admitted = append(admitted, clock.now())
	}
	most := 0
	for i, j := 0, 0; i < len(admitted); i++ {
		for j < len(admitted) && !admitted[j].After(admitted[i].Add(time.Minute)) {
			j++
		}
		most = max(most, j-i)
	}
	return most
}
