package api

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/finance"
)

// DefaultRateLimit is the requests per minute per API key when none is set.
const DefaultRateLimit = 600

// The per-key limiter's leases (docs/api.md, "Rate limit").
const (
	// leaseLifetime is how long a process may spend a lease; what is left
	// after it goes back to Redis with the process's next lease of the key.
	leaseLifetime = time.Second
	// maxLease bounds a lease, whatever the limit.
	maxLease = 100
)

// redisPause is how long the limiters leave Redis alone after it failed
// to answer: requests are served unlimited meanwhile, and one warning is
// logged, not one per request.
const redisPause = time.Second

// redisTimeout bounds one call of the limiters to Redis.
const redisTimeout = time.Second

//go:embed ratelimit.lua
var bucketSource string

// bucketScript takes requests from a key's bucket (and hands back unspent
// ones) in one round trip. It touches one key only, so it runs unchanged on
// a Redis Cluster.
var bucketScript = redis.NewScript(bucketSource)

// buckets are the limiters' counts in Redis: one GCRA bucket per key, shared
// by every API process. A bucket of limit L holds at most L requests and
// refills at L per minute.
type buckets struct {
	rdb redis.UniversalClient
	log *slog.Logger
	now func() time.Time

	mu          sync.Mutex
	pausedUntil time.Time
}

// grant is a bucket's answer: how many requests it granted, how many it
// still holds, and when it refused some, how long until it grants one.
type grant struct {
	granted   int
	remaining int
	wait      time.Duration
}

// errRedisPaused is what take answers while Redis is left alone.
var errRedisPaused = fmt.Errorf("rate limiter: Redis failed less than %s ago", redisPause)

// take asks the bucket of key (limit requests per minute) for want
// requests, handing back first the back requests granted earlier and not
// spent. After a failure it answers errRedisPaused for redisPause.
func (b *buckets) take(ctx context.Context, key string, limit, want, back int) (grant, error) {
	b.mu.Lock()
	paused := b.now().Before(b.pausedUntil)
	b.mu.Unlock()
	if paused {
		return grant{}, errRedisPaused
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redisTimeout)
	defer cancel()
	interval := float64(time.Minute/time.Microsecond) / float64(limit)
	res, err := bucketScript.Run(ctx, b.rdb, []string{key}, interval, limit, want, back).Int64Slice()
	if err == nil && len(res) != 3 {
		err = fmt.Errorf("rate limiter: the bucket script answered %v", res)
	}
	if err != nil {
		b.mu.Lock()
		b.pausedUntil = b.now().Add(redisPause)
		b.mu.Unlock()
		b.log.WarnContext(ctx, "rate limiter: Redis unavailable; requests served without a limit", "for", redisPause.String(), "err", err)
		return grant{}, fmt.Errorf("rate limiter: take from %s: %w", key, err)
	}
	return grant{granted: int(res[0]), remaining: int(res[1]), wait: time.Duration(res[2]) * time.Microsecond}, nil
}

// rateLimiter limits requests per API key to a number per minute, in one
// count that every API process shares through Redis. To keep Redis off the
// path of most requests, a process leases a block of requests from the
// key's bucket and spends it locally for up to leaseLifetime; what it has
// not spent goes back with its next lease of the key. docs/api.md has the
// error this allows.
type rateLimiter struct {
	buckets     *buckets
	limit       int
	limitHeader string // limit, for X-RateLimit-Limit
	lease       int    // requests asked for in one lease

	mu   sync.Mutex
	keys map[int64]*keyLease
}

// keyLease is what one process holds of one key's bucket.
type keyLease struct {
	left      int           // requests leased and not spent
	expires   time.Time     // when what is left may no longer be spent
	remaining int           // what the bucket held after the last lease
	refused   time.Time     // the bucket refused until then: refuse without asking
	leasing   chan struct{} // closed when the lease in flight ends; nil when none is
}

func newRateLimiter(rdb redis.UniversalClient, perMinute int, log *slog.Logger) *rateLimiter {
	if perMinute <= 0 {
		perMinute = DefaultRateLimit
	}
	return &rateLimiter{
		buckets:     &buckets{rdb: rdb, log: log, now: time.Now},
		limit:       perMinute,
		limitHeader: strconv.Itoa(perMinute),
		lease:       leaseSize(perMinute),
		keys:        map[int64]*keyLease{},
	}
}

// leaseSize is what a lease asks for: what the limit's rate gives in one
// lease lifetime, at least one request and at most maxLease. The bucket
// refills a lease within that lifetime, so one a process forgets costs a
// key at most one second of its rate.
func leaseSize(perMinute int) int {
	n := math.Ceil(float64(perMinute) * leaseLifetime.Seconds() / time.Minute.Seconds())
	return int(min(max(n, 1), maxLease))
}

// verdict is the limiter's answer to one request.
type verdict struct {
	allowed   bool
	remaining int           // an estimate of what the key may still send
	wait      time.Duration // when refused: until the next request is allowed
}

// middleware answers 429 `Too Many Attempts.` with Retry-After past the
// limit. When Redis cannot be reached the request is served and the
// failure logged: the limit protects the service, it must not take it down.
func (l *rateLimiter) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := l.allow(r.Context(), principalOf(r.Context()).KeyID)
		if err != nil { // Redis down (logged), or the request gone while it waited
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("X-RateLimit-Limit", l.limitHeader)
		h.Set("X-RateLimit-Remaining", strconv.Itoa(v.remaining))
		if !v.allowed {
			writeTooMany(w, r, v.wait)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allow spends one request of keyID: from the process's lease when it holds
// one, else from a new lease. One lease of a key is in flight at a time;
// the requests that need it meanwhile wait for it.
func (l *rateLimiter) allow(ctx context.Context, keyID int64) (verdict, error) {
	for {
		l.mu.Lock()
		k := l.keyLease(keyID)
		now := l.buckets.now()
		switch {
		case k.left > 0 && now.Before(k.expires):
			k.left--
			v := verdict{allowed: true, remaining: k.remaining + k.left}
			l.mu.Unlock()
			return v, nil
		case now.Before(k.refused):
			l.mu.Unlock()
			return verdict{wait: k.refused.Sub(now)}, nil
		case k.leasing != nil:
			done := k.leasing
			l.mu.Unlock()
			select {
			case <-done:
				continue
			case <-ctx.Done():
				return verdict{}, ctx.Err()
			}
		}
		back := k.left // unspent and expired: handed back with this lease
		k.left = 0
		done := make(chan struct{})
		k.leasing = done
		l.mu.Unlock()
		return l.renew(ctx, keyID, k, back, now, done)
	}
}

// renew leases the next block of keyID for the request that found none,
// which spends the first request of it.
func (l *rateLimiter) renew(ctx context.Context, keyID int64, k *keyLease, back int, start time.Time, done chan struct{}) (verdict, error) {
	g, err := l.buckets.take(ctx, rateKey(keyID), l.limit, l.lease, back)
	l.mu.Lock()
	defer l.mu.Unlock()
	k.leasing = nil
	close(done)
	if err != nil {
		return verdict{}, err
	}
	k.remaining = g.remaining
	if g.granted == 0 {
		k.refused = start.Add(g.wait)
		return verdict{wait: g.wait}, nil
	}
	k.left, k.expires = g.granted-1, start.Add(leaseLifetime)
	return verdict{allowed: true, remaining: k.remaining + k.left}, nil
}

// keyLease returns the lease of keyID, made when missing; l.mu is held.
// Past maxCachedKeys the leases start over: what they held is not handed
// back, and regenerates within a lease lifetime.
func (l *rateLimiter) keyLease(keyID int64) *keyLease {
	k, ok := l.keys[keyID]
	if !ok {
		if len(l.keys) >= maxCachedKeys {
			l.keys = map[int64]*keyLease{}
		}
		k = &keyLease{}
		l.keys[keyID] = k
	}
	return k
}

// rateKey is the Redis key of an API key's bucket. The braces make it its
// own hash tag, so a Redis Cluster keeps it whole on one node.
func rateKey(keyID int64) string {
	return "ratelimit:{key:" + strconv.FormatInt(keyID, 10) + "}"
}

// writeTooMany answers 429 `Too Many Attempts.` with Retry-After in whole
// seconds, rounded up.
func writeTooMany(w http.ResponseWriter, r *http.Request, retry time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(retry.Seconds())))))
	writeError(w, r, finance.Errorf(TooManyRequests, "Too Many Attempts."))
}

// DefaultAuthFailureLimit is how many requests without a valid key one
// client address may make per minute by default.
const DefaultAuthFailureLimit = 60

// failureLimiter limits requests that fail authentication, per client
// address: past the limit they are answered 429 without a key lookup, so a
// client guessing keys costs neither the database nor Redis much. Each
// failure is counted in Redis at once (no lease): failures are few, and
// their limit is exact across processes.
type failureLimiter struct {
	buckets *buckets
	limit   int

	mu      sync.Mutex
	blocked map[string]time.Time // address -> when it may try again
}

func newFailureLimiter(rdb redis.UniversalClient, perMinute int, log *slog.Logger) *failureLimiter {
	if perMinute <= 0 {
		perMinute = DefaultAuthFailureLimit
	}
	return &failureLimiter{
		buckets: &buckets{rdb: rdb, log: log, now: time.Now},
		limit:   perMinute,
		blocked: map[string]time.Time{},
	}
}

// blockedFor says how long addr must still wait, if it must.
func (f *failureLimiter) blockedFor(addr string) (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	until, ok := f.blocked[addr]
	if !ok {
		return 0, false
	}
	if wait := time.Until(until); wait > 0 {
		return wait, true
	}
	delete(f.blocked, addr)
	return 0, false
}

// fail counts one failed authentication of addr and says whether addr is
// now over its limit (and for how long).
func (f *failureLimiter) fail(r *http.Request, addr string) (time.Duration, bool) {
	g, err := f.buckets.take(r.Context(), "ratelimit:{authfail:"+addr+"}", f.limit, 1, 0)
	if err != nil || g.granted > 0 {
		return 0, false
	}
	f.mu.Lock()
	if len(f.blocked) >= maxCachedKeys {
		f.blocked = map[string]time.Time{}
	}
	f.blocked[addr] = time.Now().Add(g.wait)
	f.mu.Unlock()
	return g.wait, true
}

// clientAddr is the address failures are counted by: the connection's
// peer. Forwarded-for headers are not trusted, since any client can set them.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
