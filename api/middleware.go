package api

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/propfin/propfin/finance"
)

// CORS (docs/api.md, "Response headers"): what a page of another origin
// may send beyond the CORS-safelisted headers, and what it may read.
const (
	corsAllowHeaders  = "Authorization, Content-Type, Accept, Idempotency-Key, X-Request-Id"
	corsExposeHeaders = "Allow, Content-Disposition, ETag, Location, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id"
)

// responseHeaders sets the spec's headers on every response and answers
// nothing itself.
func responseHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		h.Set("Cache-Control", "no-cache, private")
		h.Set("Content-Type", "application/json")
		next.ServeHTTP(w, r)
	})
}

// headAsGet serves HEAD on every GET route without a HEAD of its own, as
// HTTP asks (httprouter registers none by itself): the GET handler runs,
// and net/http, which still holds the HEAD request, sends its status and
// headers (Content-Length included) without the body. Routes added later
// get it too.
func headAsGet(router *httprouter.Router) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead && !hasRoute(router, http.MethodHead, r.URL.Path) && hasRoute(router, http.MethodGet, r.URL.Path) {
			r = r.WithContext(r.Context()) // a shallow copy: the caller's request keeps its method
			r.Method = http.MethodGet
		}
		router.ServeHTTP(w, r)
	})
}

func hasRoute(router *httprouter.Router, method, path string) bool {
	h, _, _ := router.Lookup(method, path)
	return h != nil
}

// preflight answers CORS preflight requests for every route (the router
// has set Allow).
func preflight(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Access-Control-Request-Method") != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		h.Set("Access-Control-Max-Age", "86400")
	}
	w.WriteHeader(http.StatusNoContent)
}

// The API's limits on what precedes the body, below net/http's own
// (http.DefaultMaxHeaderBytes, 1 MiB for the request line and the header
// fields together, past which it answers 431 in plain text itself), so
// that a request past them is answered in the envelope. The URL's leaves
// room for 1,000 In-filter values.
const (
	maxURLBytes    = 64 << 10
	maxHeaderBytes = 64 << 10
)

// requestLimits answers 414 to a URL longer than maxURLBytes and 431 to
// header fields taking more than maxHeaderBytes (names, values and the
// line's ": " and CRLF, Host included).
func requestLimits(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.RequestURI) > maxURLBytes {
			writeError(w, r, finance.Errorf(URITooLong, "The URL is longer than %d bytes.", maxURLBytes))
			return
		}
		size := len("Host: \r\n") + len(r.Host)
		for name, values := range r.Header {
			for _, v := range values {
				size += len(name) + len(v) + len(": \r\n")
			}
		}
		if size > maxHeaderBytes {
			writeError(w, r, finance.Errorf(HeadersTooLarge, "The header fields take more than %d bytes.", maxHeaderBytes))
			return
		}
		next.ServeHTTP(w, r)
	})
}

type requestIDKey struct{}

// RequestID returns the id of the request being served.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// logRequests gives each request an id (X-Request-Id, kept when the caller
// sends a sane one), recovers panics outside the router, logs one
// structured line per request and records it in the metrics, both with the
// pattern of the route that served it.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 64 {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		ctx := withRequestState(context.WithValue(r.Context(), requestIDKey{}, id), s.log.With("request_id", id))
		st := ctx.Value(requestStateKey{}).(*requestState)
		rec := &statusRecorder{ResponseWriter: w}
		s.metrics.begin()
		defer func() {
			if v := recover(); v != nil {
				s.panicked(rec, r, v)
			}
			elapsed, route := time.Since(start), routeOf(st)
			s.metrics.end(route, r.Method, cmp.Or(rec.status, http.StatusOK), elapsed)
			s.log.LogAttrs(ctx, slog.LevelInfo, "request",
				slog.String("id", id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.String("route", route),
				slog.Int("status", rec.status),
				slog.Int("bytes", rec.bytes),
				slog.Int64("company", st.principal.CompanyID),
				slog.Duration("duration", elapsed),
			)
		}()
		next.ServeHTTP(rec, r.WithContext(ctx))
	})
}

func newRequestID() string {
	b := make([]byte, 8)
	rand.Read(b) //nolint:errcheck // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b)
}

// withTimeout bounds the time one request may take: its context is
// cancelled after d, which stops its database work.
func withTimeout(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
