package storagetest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/pgcluster"
)

// EnvURL names the environment variable that points the tests at an
// existing server (a postgres:// URL of a role that may create databases)
// instead of a throwaway cluster.
const EnvURL = "TEST_DATABASE_URL"

// Time limits: preparing the server (initdb, start, migrations) and giving
// or dropping one test's database.
const (
	setupTimeout    = 3 * time.Minute
	databaseTimeout = time.Minute
)

// NewDB returns a pool on the test's own database: a clone of the migrated
// template, closed and dropped when the test ends. Calls within one test
// return the same pool.
func NewDB(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return shared.pool(t)
}

// URL returns the postgres:// URL of the test's own database (the one
// NewDB's pool uses), for code that opens its own connections. Connections
// still open when the test ends are closed by the drop.
func URL(t testing.TB) string {
	t.Helper()
	return shared.database(t).url
}

// AdminURL returns the postgres:// URL of the server's maintenance
// database (the one TEST_DATABASE_URL names; postgres on the throwaway
// cluster), for a test that must act on its own database from outside it:
// ALTER DATABASE ... ALLOW_CONNECTIONS false, say, which PostgreSQL refuses
// from a session on that database.
func AdminURL(t testing.TB) string {
	t.Helper()
	s, err := shared.prepare()
	if err != nil {
		t.Fatalf("storagetest: no PostgreSQL for the tests: %v%s", err, hint(err))
	}
	return s.base.String()
}

// shared is the test binary's server, prepared by the first test asking.
var shared = &env{
	getenv:       os.Getenv,
	findBinaries: pgcluster.FindBinaries,
	migrate:      storage.Migrate,
}

// env prepares one server per test binary and hands out its databases.
type env struct {
	getenv       func(string) string
	findBinaries func() (string, error)
	migrate      func(context.Context, *pgxpool.Pool) error

	once   sync.Once
	server *server
	err    error

	mu  sync.Mutex
	dbs map[testing.TB]*testDB
}

// testDB is one test's database.
type testDB struct {
	name string
	url  string
	pool *pgxpool.Pool // opened by the first NewDB
}

// prepare returns the server, preparing it on the first call.
func (e *env) prepare() (*server, error) {
	e.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		e.server, e.err = e.setup(ctx)
	})
	return e.server, e.err
}

func (e *env) setup(ctx context.Context) (*server, error) {
	rawURL := e.getenv(EnvURL)
	var cluster *pgcluster.Cluster
	if rawURL == "" {
		binDir, err := e.findBinaries()
		if err != nil {
			return nil, err
		}
		if cluster, err = startThrowawayCluster(ctx, binDir); err != nil {
			return nil, fmt.Errorf("start a throwaway PostgreSQL cluster: %w", err)
		}
		rawURL = cluster.URL("postgres")
	}
	s, err := connectServer(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	s.cluster = cluster
	if cluster != nil {
		v, err := s.version(ctx)
		if err != nil {
			return nil, fmt.Errorf("server version: %w", err)
		}
		s.fileCopy = v >= 150000
	}
	if err := s.removeOrphans(ctx); err != nil {
		return nil, err
	}
	if err := s.createTemplate(ctx, e.migrate); err != nil {
		return nil, err
	}
	return s, nil
}

// database returns the test's database, creating it on the first call.
func (e *env) database(t testing.TB) *testDB {
	t.Helper()
	s, err := e.prepare()
	if err != nil {
		t.Fatalf("storagetest: no PostgreSQL for the tests: %v%s", err, hint(err))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if db, ok := e.dbs[t]; ok {
		return db
	}
	ctx, cancel := context.WithTimeout(context.Background(), databaseTimeout)
	defer cancel()
	name, err := s.createDatabase(ctx)
	if err != nil {
		t.Fatalf("storagetest: %v", err)
	}
	db := &testDB{name: name, url: s.url(name)}
	if e.dbs == nil {
		e.dbs = make(map[testing.TB]*testDB)
	}
	e.dbs[t] = db
	t.Cleanup(func() { e.release(t, s, db) })
	return db
}

func (e *env) pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	db := e.database(t)
	e.mu.Lock()
	defer e.mu.Unlock()
	if db.pool != nil {
		return db.pool
	}
	ctx, cancel := context.WithTimeout(context.Background(), databaseTimeout)
	defer cancel()
	pool, err := pgxpool.New(ctx, db.url)
	if err == nil {
		err = pool.Ping(ctx)
	}
	if err != nil {
		t.Fatalf("storagetest: open database %s: %v", db.name, err)
	}
	db.pool = pool
	return pool
}

// release closes the test's pool and drops its database.
func (e *env) release(t testing.TB, s *server, db *testDB) {
	e.mu.Lock()
	delete(e.dbs, t)
	e.mu.Unlock()
	if db.pool != nil {
		db.pool.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), databaseTimeout)
	defer cancel()
	if err := s.dropDatabase(ctx, db.name); err != nil {
		t.Errorf("storagetest: %v", err)
	}
}
