package api

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// requestState travels in the request context from the outermost
// middleware inward, so that the request log and the metrics know the
// company and the route.
type requestState struct {
	principal storage.Principal
	log       *slog.Logger // the server's logger with the request id
	route     string       // the pattern of the route serving the request
}

type requestStateKey struct{}

func withRequestState(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, requestStateKey{}, &requestState{log: log})
}

// loggerOf returns the request's logger (the default one outside a request).
func loggerOf(ctx context.Context) *slog.Logger {
	if st, ok := ctx.Value(requestStateKey{}).(*requestState); ok && st.log != nil {
		return st.log
	}
	return slog.Default()
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
		header, err := authorization(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		addr := clientAddr(r)
		key, ok := bearerToken(header)
		// a client over its failure limit is refused without a lookup,
		// unless it presents a key already known good
		if _, known := s.auth.known(key); !known {
			if wait, blocked := s.failures.blockedFor(addr); blocked {
				writeTooMany(w, r, wait)
				return
			}
		}
		if !ok {
			s.refuse(w, r, addr, finance.Errorf(finance.Unauthenticated, "no bearer token"))
			return
		}
		p, err := s.auth.resolve(r.Context(), key)
		if finance.ErrorCode(err) == finance.Unauthenticated {
			s.refuse(w, r, addr, err)
			return
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		ctx := r.Context()
		st, ok := ctx.Value(requestStateKey{}).(*requestState)
		if !ok {
			ctx = withRequestState(ctx, s.log)
			st = ctx.Value(requestStateKey{}).(*requestState)
		}
		st.principal = p
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// refuse answers a failed authentication: 401, or 429 once the client
// address is over its failure limit.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, addr string, err error) {
	if wait, limited := s.failures.fail(r, addr); limited {
		writeTooMany(w, r, wait)
		return
	}
	writeError(w, r, err)
}

// authorization is the request's Authorization header; two of them are a
// 400, rather than the first winning (a proxy may have added one).
func authorization(r *http.Request) (string, error) {
	values := r.Header.Values("Authorization")
	if len(values) > 1 {
		return "", &finance.Error{Code: BadRequest, Message: "The request has more than one Authorization header.",
			Problems: []finance.Problem{{Field: "Authorization", Message: "is given more than once"}}}
	}
	if len(values) == 0 {
		return "", nil
	}
	return values[0], nil
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
	err       error // a key found unknown, remembered for unknownKeyTTL
	expires   time.Time
}

// unknownKeyTTL is how long a key found unknown is answered from memory,
// so that repeating a bad key does not cost a lookup each time.
const unknownKeyTTL = 5 * time.Second

// maxCachedKeys bounds the cache; past it the cache starts over.
const maxCachedKeys = 10_000

func newAuthenticator(pool *pgxpool.Pool, ttl time.Duration) *authenticator {
	return &authenticator{pool: pool, ttl: ttl, cache: map[[32]byte]cachedPrincipal{}}
}

// known returns the principal of a key resolved recently, without a lookup.
func (a *authenticator) known(key string) (storage.Principal, bool) {
	id := sha256.Sum256([]byte(key))
	a.mu.Lock()
	c, ok := a.cache[id]
	a.mu.Unlock()
	if !ok || c.err != nil || !time.Now().Before(c.expires) {
		return storage.Principal{}, false
	}
	return c.principal, true
}

func (a *authenticator) resolve(ctx context.Context, key string) (storage.Principal, error) {
	id := sha256.Sum256([]byte(key))
	now := time.Now()
	a.mu.Lock()
	c, ok := a.cache[id]
	a.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.principal, c.err
	}
	p, err := storage.LookupAPIKey(ctx, a.pool, key)
	entry := cachedPrincipal{principal: p, expires: now.Add(a.ttl)}
	switch {
	case finance.ErrorCode(err) == finance.Unauthenticated:
		entry = cachedPrincipal{err: err, expires: now.Add(unknownKeyTTL)}
	case err != nil:
		return storage.Principal{}, err // a database failure is not remembered
	}
	a.mu.Lock()
	if len(a.cache) >= maxCachedKeys {
		a.cache = map[[32]byte]cachedPrincipal{}
	}
	a.cache[id] = entry
	a.mu.Unlock()
	return entry.principal, entry.err
}

// forget drops key id of company from the cache: revoked, it is looked up
// again (and refused) at its next request.
func (a *authenticator) forget(companyID, keyID int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, c := range a.cache {
		if c.err == nil && c.principal.CompanyID == companyID && c.principal.KeyID == keyID {
			delete(a.cache, id)
		}
	}
}

// forgetAll empties the cache: every key is looked up again.
func (a *authenticator) forgetAll() {
	a.mu.Lock()
	a.cache = map[[32]byte]cachedPrincipal{}
	a.mu.Unlock()
}

// revocationRetry is how long ForgetRevokedKeys waits before listening
// again after its connection failed.
const revocationRetry = time.Second

// ForgetRevokedKeys listens on storage.KeysChannel until ctx ends, and
// drops each key revoked (by an operator route of any API process, or
// `propfin apikey revoke`) from this process's cache as soon as the
// revocation commits, so that its next request is a 401 rather than one
// served for up to the cache's TTL. When the connection fails it empties
// the cache (a revocation may have gone unheard) and listens again.
func (s *Server) ForgetRevokedKeys(ctx context.Context) {
	for ctx.Err() == nil {
		err := s.listenRevocations(ctx)
		if ctx.Err() != nil {
			return
		}
		s.auth.forgetAll()
		s.log.Warn("api keys: listening for revocations", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(revocationRetry):
		}
	}
}

// listenRevocations listens on a connection of its own (not one of the
// pool's, which serve requests) until it fails or ctx ends.
func (s *Server) listenRevocations(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.store.Pool().Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // nothing to do about it
	if _, err := conn.Exec(ctx, "LISTEN "+storage.KeysChannel); err != nil {
		return err
	}
	s.auth.forgetAll() // what was revoked before this LISTEN took effect
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if company, key, ok := storage.ParseRevokedKeyNote(n.Payload); ok {
			s.auth.forget(company, key)
		}
	}
}
