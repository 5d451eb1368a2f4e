package api

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
)

// requestState travels in the request context from the outermost
// middleware inward, so that the request log knows the company.
type requestState struct {
	principal storage.Principal
}

type requestStateKey struct{}

func withRequestState(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestStateKey{}, &requestState{})
}

// principalOf returns who the request acts for (zero before authentication).
func principalOf(ctx context.Context) storage.Principal {
	if st, ok := ctx.Value(requestStateKey{}).(*requestState); ok {
		return st.principal
	}
	return storage.Principal{}
}

// authenticate resolves `Authorization: Bearer <key>` to a principal; a
// missing, malformed or unknown key gets the company-not-identified
// envelope with status 401.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok {
			writeError(w, r, storage.Errorf(storage.Unauthenticated, "no bearer token"))
			return
		}
		p, err := s.auth.resolve(r.Context(), key)
		if err != nil {
			writeError(w, r, err)
			return
		}
		ctx := r.Context()
		st, ok := ctx.Value(requestStateKey{}).(*requestState)
		if !ok {
			ctx = withRequestState(ctx)
			st = ctx.Value(requestStateKey{}).(*requestState)
		}
		st.principal = p
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func bearerToken(header string) (string, bool) {
	scheme, token, found := strings.Cut(strings.TrimSpace(header), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// authenticator resolves API keys, remembering resolved keys for a short
// time so that a request does not cost a key lookup.
type authenticator struct {
	pool *pgxpool.Pool
	ttl  time.Duration

	mu    sync.Mutex
	cache map[[32]byte]cachedPrincipal
}

type cachedPrincipal struct {
	principal storage.Principal
	expires   time.Time
}

// maxCachedKeys bounds the cache; past it the cache starts over.
const maxCachedKeys = 10_000

func newAuthenticator(pool *pgxpool.Pool, ttl time.Duration) *authenticator {
	return &authenticator{pool: pool, ttl: ttl, cache: map[[32]byte]cachedPrincipal{}}
}

func (a *authenticator) resolve(ctx context.Context, key string) (storage.Principal, error) {
	id := sha256.Sum256([]byte(key))
	now := time.Now()
	a.mu.Lock()
	c, ok := a.cache[id]
	a.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.principal, nil
	}
	p, err := storage.LookupAPIKey(ctx, a.pool, key)
	if err != nil {
		return storage.Principal{}, err
	}
	a.mu.Lock()
	if len(a.cache) >= maxCachedKeys {
		a.cache = map[[32]byte]cachedPrincipal{}
	}
	a.cache[id] = cachedPrincipal{principal: p, expires: now.Add(a.ttl)}
	a.mu.Unlock()
	return p, nil
}
