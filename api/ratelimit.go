package api

import (
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/storage"
)

// DefaultRateLimit is the requests per minute per API key when none is set.
const DefaultRateLimit = 600

// rateLimiter limits requests per API key per minute, counted in Redis so
// that every API process shares the count (GCRA, via redis_rate).
type rateLimiter struct {
	limiter *redis_rate.Limiter
	limit   redis_rate.Limit
	log     *slog.Logger
}

func newRateLimiter(rdb redis.UniversalClient, perMinute int, log *slog.Logger) *rateLimiter {
	if perMinute <= 0 {
		perMinute = DefaultRateLimit
	}
	return &rateLimiter{limiter: redis_rate.NewLimiter(rdb), limit: redis_rate.PerMinute(perMinute), log: log}
}

// middleware answers 429 `Too Many Attempts.` with Retry-After past the
// limit. When Redis cannot be reached the request is served and the
// failure logged: the limit protects the service, it must not take it down.
func (l *rateLimiter) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := principalOf(r.Context())
		res, err := l.limiter.Allow(r.Context(), "ratelimit:key:"+strconv.FormatInt(p.KeyID, 10), l.limit)
		if err != nil {
			l.log.WarnContext(r.Context(), "rate limiter unavailable; request served", "err", err)
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(l.limit.Rate))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
		if res.Allowed == 0 {
			writeTooMany(w, r, res.RetryAfter)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// writeTooMany answers 429 `Too Many Attempts.` with Retry-After in whole
// seconds, rounded up.
func writeTooMany(w http.ResponseWriter, r *http.Request, retry time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(retry.Seconds())))))
	writeError(w, r, storage.Errorf(storage.TooManyRequests, "Too Many Attempts."))
}

// DefaultAuthFailureLimit is how many requests without a valid key one
// client address may make per minute by default.
const DefaultAuthFailureLimit = 60

// failureLimiter limits requests that fail authentication, per client
// address: past the limit they are answered 429 without a key lookup, so a
// client guessing keys costs neither the database nor Redis much.
type failureLimiter struct {
	limiter *redis_rate.Limiter
	limit   redis_rate.Limit
	log     *slog.Logger

	mu      sync.Mutex
	blocked map[string]time.Time // address -> when it may try again
}

func newFailureLimiter(rdb redis.UniversalClient, perMinute int, log *slog.Logger) *failureLimiter {
	if perMinute <= 0 {
		perMinute = DefaultAuthFailureLimit
	}
	return &failureLimiter{limiter: redis_rate.NewLimiter(rdb), limit: redis_rate.PerMinute(perMinute), log: log, blocked: map[string]time.Time{}}
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
	res, err := f.limiter.Allow(r.Context(), "ratelimit:authfail:"+addr, f.limit)
	if err != nil {
		f.log.WarnContext(r.Context(), "failure limiter unavailable", "err", err)
		return 0, false
	}
	if res.Allowed > 0 {
		return 0, false
	}
	f.mu.Lock()
	if len(f.blocked) >= maxCachedKeys {
		f.blocked = map[string]time.Time{}
	}
	f.blocked[addr] = time.Now().Add(res.RetryAfter)
	f.mu.Unlock()
	return res.RetryAfter, true
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
