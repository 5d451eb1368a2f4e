package api

import (
	"log/slog"
	"math"
	"net/http"
	"strconv"

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
			h.Set("Retry-After", strconv.Itoa(int(math.Ceil(res.RetryAfter.Seconds()))))
			writeError(w, r, storage.Errorf(storage.TooManyRequests, "Too Many Attempts."))
			return
		}
		next.ServeHTTP(w, r)
	})
}
