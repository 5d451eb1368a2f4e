package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// withOwnPool runs the API on a pool of its own, as `propfin serve` opens
// it, so that a test can cut the API off while keeping its own session.
func withOwnPool(t *testing.T) envOption {
	return func(c *Config, s *Server) {
		pool, err := storage.Open(context.Background(), storagetest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		s.store = storage.NewStore(pool, s.store.Registry())
		s.auth = newAuthenticator(pool, 30*time.Second)
	}
}

// dbSwitch holds one session on the server's maintenance database,
// through which the test refuses new connections to its own database and
// ends the sessions on it.
type dbSwitch struct {
	t    *testing.T
	conn *pgx.Conn
	name string // the test's database
}

func newDBSwitch(t *testing.T, e *testEnv) *dbSwitch {
	ctx := context.Background()
	sw := &dbSwitch{t: t}
	if err := e.pool.QueryRow(ctx, "SELECT current_database()").Scan(&sw.name); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, storagetest.AdminURL(t))
	if err != nil {
		t.Fatal(err)
	}
	sw.conn = conn
	t.Cleanup(func() {
		sw.allowConnections(true)
		conn.Close(ctx)
	})
	return sw
}

func (sw *dbSwitch) exec(sql string, args ...any) {
	sw.t.Helper()
	if _, err := sw.conn.Exec(context.Background(), sql, args...); err != nil {
		sw.t.Fatalf("%s: %v", sql, err)
	}
}

func (sw *dbSwitch) allowConnections(allow bool) {
	sw.t.Helper()
	sw.exec(fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS %t", pgx.Identifier{sw.name}.Sanitize(), allow))
}

// endSessions terminates every session on the test's database and waits
// until they are gone.
func (sw *dbSwitch) endSessions() {
	sw.t.Helper()
	sw.exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, sw.name)
	for i := 0; i < 200; i++ {
		var n int
		if err := sw.conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE datname = $1`, sw.name).Scan(&n); err != nil {
			sw.t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	sw.t.Fatal("the sessions did not end")
}

// TestDatabaseOutage: with the database gone from under a running API,
// requests (and the lookup of a key not in the cache) answer 503 with
// Retry-After, not 500; /readyz says not ready; service resumes once the
// database is back.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	e := setup(t, withOwnPool(t))
	e.get(t, "/buildings/types", http.StatusOK) // key A cached, connections open
	sw := newDBSwitch(t, e)
	sw.allowConnections(false)
	sw.endSessions()

	for _, c := range []struct{ name, key string }{{"cached key", e.keyA}, {"key lookup", e.keyB}, {"again", e.keyA}} {
		r := e.do(t, http.MethodGet, "/buildings/types", c.key, nil)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || r.body["message"] == "Internal error." {
			t.Errorf("%s: %d %v %s, want 503 with Retry-After", c.name, r.status, r.header.Get("Retry-After"), r.raw)
		}
	}
	if r := e.do(t, http.MethodGet, "/readyz", "", nil); r.status != http.StatusServiceUnavailable || !slices.Contains(r.problemFields(t), "postgres") {
		t.Errorf("readyz during the outage: %d %s", r.status, r.raw)
	}
	sw.allowConnections(true)
	e.get(t, "/buildings/types", http.StatusOK)
	if r := e.do(t, http.MethodGet, "/readyz", "", nil); r.status != http.StatusOK {
		t.Errorf("readyz once back: %d %s", r.status, r.raw)
	}
}

// TestReadyzNeedsNewConnections: /readyz is not ready while the database
// refuses new connections, even though the pool still holds idle ones that
// answer.
func TestReadyzNeedsNewConnections(t *testing.T) {
	t.Parallel()
	e := setup(t, withOwnPool(t))
	if r := e.do(t, http.MethodGet, "/readyz", "", nil); r.status != http.StatusOK {
		t.Fatalf("readyz: %d %s", r.status, r.raw)
	}
	sw := newDBSwitch(t, e)
	sw.allowConnections(false)
	r := e.do(t, http.MethodGet, "/readyz", "", nil)
	if r.status != http.StatusServiceUnavailable || !slices.Equal(r.problemFields(t), []string{"postgres"}) {
		t.Errorf("readyz while new connections are refused: %d %s", r.status, r.raw)
	}
}

// syncBuffer is a log destination the server writes and the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// withLog sends the server's log to w.
func withLog(w io.Writer) envOption {
	return func(_ *Config, s *Server) { s.log = slog.New(slog.NewTextHandler(w, nil)) }
}

// withRequestTimeout sets the time one request may take.
func withRequestTimeout(d time.Duration) envOption {
	return func(_ *Config, s *Server) { s.timeout = d }
}

// blockTypes holds a lock that makes every read of building_types wait
// until the test ends.
func blockTypes(t *testing.T, e *testEnv) {
	ctx := context.Background()
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(ctx) }) //nolint:errcheck // releasing the lock
	if _, err := tx.Exec(ctx, "LOCK TABLE building_types IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
}

// waitForLog waits until the log holds want.
func waitForLog(t *testing.T, log *syncBuffer, want string) string {
	t.Helper()
	for i := 0; i < 500; i++ {
		if s := log.String(); strings.Contains(s, want) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the log never says %q:\n%s", want, log.String())
	return ""
}

// TestClientGoneIsNotAnError: a client that goes away before its answer is
// logged at INFO with status 499, without an error line; a request that
// runs out of time still answers 503 and logs an error.
func TestClientGoneIsNotAnError(t *testing.T) {
	t.Parallel()
	t.Run("client gone", func(t *testing.T) {
		t.Parallel()
		log := &syncBuffer{}
		e := setup(t, withLog(log))
		blockTypes(t, e)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url+"/buildings/types", nil)
		req.Header.Set("Authorization", "Bearer "+e.keyA)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			t.Fatalf("the request was answered: %d", res.StatusCode)
		}
		logged := waitForLog(t, log, "status=499")
		if strings.Contains(logged, "level=ERROR") || strings.Contains(logged, "status=503") {
			t.Errorf("a client going away is logged as an error:\n%s", logged)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		log := &syncBuffer{}
		e := setup(t, withLog(log), withRequestTimeout(300*time.Millisecond))
		blockTypes(t, e)
		r := e.do(t, http.MethodGet, "/buildings/types", e.keyA, nil)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
			t.Errorf("timeout: %d %s", r.status, r.raw)
		}
		if logged := waitForLog(t, log, "status=503"); !strings.Contains(logged, "level=ERROR") {
			t.Errorf("a timeout is not logged as an error:\n%s", logged)
		}
	})
}
