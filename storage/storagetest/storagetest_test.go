package storagetest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/pgcluster"
)

func currentDatabase(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var name string
	if err := pool.QueryRow(t.Context(), "SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestParallelTestsGetIsolatedMigratedDatabases(t *testing.T) {
	t.Parallel()
	migrations, err := storage.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	var seen sync.Map
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			pool := NewDB(t)
			name := currentDatabase(t, pool)
			if other, dup := seen.LoadOrStore(name, i); dup {
				t.Fatalf("tests %d and %d share database %s", other, i, name)
			}
			var applied int
			if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM schema_migrations").Scan(&applied); err != nil {
				t.Fatal(err)
			}
			if applied != len(migrations) {
				t.Errorf("%d migrations applied, want %d", applied, len(migrations))
			}
			// The same table in every database, each holding its own row only.
			if _, err := pool.Exec(t.Context(), "CREATE TABLE probe (test int)"); err != nil {
				t.Fatal(err)
			}
			if _, err := pool.Exec(t.Context(), "INSERT INTO probe VALUES ($1)", i); err != nil {
				t.Fatal(err)
			}
			rows, err := pool.Query(t.Context(), "SELECT test FROM probe")
			if err != nil {
				t.Fatal(err)
			}
			got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || int(got[0]) != i {
				t.Errorf("probe holds %v, want [%d]", got, i)
			}
		})
	}
}

func TestURLAndNewDBShareTheTestsDatabase(t *testing.T) {
	t.Parallel()
	url := URL(t)
	pool := NewDB(t)
	if NewDB(t) != pool {
		t.Error("a second NewDB in the same test returned another pool")
	}
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var viaURL string
	if err := conn.QueryRow(t.Context(), "SELECT current_database()").Scan(&viaURL); err != nil {
		t.Fatal(err)
	}
	if viaPool := currentDatabase(t, pool); viaURL != viaPool {
		t.Errorf("URL reaches %s, NewDB %s", viaURL, viaPool)
	}
}

func TestDatabaseIsDroppedWhenTheTestEnds(t *testing.T) {
	t.Parallel()
	var name string
	t.Run("user", func(t *testing.T) {
		name = currentDatabase(t, NewDB(t))
		// A connection the test forgot to close does not keep it alive.
		conn, err := pgx.Connect(t.Context(), URL(t))
		if err != nil {
			t.Fatal(err)
		}
		_ = conn
	})
	if databaseExists(t, name) {
		t.Errorf("database %s still exists after its test ended", name)
	}
}

func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	var exists bool
	err := NewDB(t).QueryRow(t.Context(), "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	return exists
}

func TestTemplateRefusesConnections(t *testing.T) {
	t.Parallel()
	NewDB(t)
	s, err := shared.prepare()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), s.url(s.template))
	if err == nil {
		conn.Close(context.Background())
		t.Fatal("connected to the template: a clone running now would fail")
	}
	if !strings.Contains(err.Error(), "not currently accepting connections") {
		t.Errorf("unexpected error: %v", err)
	}
}

func TestOrphanedDatabasesAreDropped(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	own := currentDatabase(t, NewDB(t))
	s, err := shared.prepare()
	if err != nil {
		t.Fatal(err)
	}
	orphan := namePrefix + "0123456789_7" // a run with no lease session: it ended
	if err := s.exec(ctx, "CREATE DATABASE "+ident(orphan)); err != nil {
		t.Fatal(err)
	}
	if err := s.removeOrphans(ctx); err != nil {
		t.Fatal(err)
	}
	if databaseExists(t, orphan) {
		t.Errorf("orphan %s was not dropped", orphan)
	}
	if !databaseExists(t, own) || !databaseExists(t, s.template) {
		t.Errorf("this run's databases were dropped")
	}
}

// TestServerFromEnvironment points a second env at a server through
// TEST_DATABASE_URL (a cluster started for the purpose) and checks that the
// template and test databases are made there.
func TestServerFromEnvironment(t *testing.T) {
	t.Parallel()
	c, err := startThrowawayCluster(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop(context.Background()) })

	migrated := false
	e := &env{
		getenv: func(k string) string {
			if k == EnvURL {
				return c.URL("postgres")
			}
			return ""
		},
		findBinaries: func() (string, error) { return "", errors.New("must not look for binaries") },
		migrate: func(ctx context.Context, pool *pgxpool.Pool) error {
			migrated = true
			_, err := pool.Exec(ctx, "CREATE TABLE from_template (id int)")
			return err
		},
	}
	pool := e.pool(t)
	if !migrated {
		t.Error("the injected migrate function was not used")
	}
	if _, err := pool.Exec(t.Context(), "INSERT INTO from_template VALUES (1)"); err != nil {
		t.Errorf("the test database is not a clone of the migrated template: %v", err)
	}
	if port := pool.Config().ConnConfig.Port; int(port) != c.Port() {
		t.Errorf("test database on port %d, want the %s server's %d", port, EnvURL, c.Port())
	}
}

// fakeTB records a fatal failure instead of ending the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failureOf returns the fatal failure a test gets from e.
func failureOf(e *env) string {
	tb := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.pool(tb)
	}()
	<-done
	return tb.failed
}

func TestNoPostgreSQLFailsWithWhatToInstall(t *testing.T) {
	t.Parallel()
	notFound := fmt.Errorf("%w: install the PostgreSQL server (Debian/Ubuntu: apt-get install postgresql)", pgcluster.ErrNotFound)
	e := &env{
		getenv:       func(string) string { return "" },
		findBinaries: func() (string, error) { return "", notFound },
		migrate:      func(context.Context, *pgxpool.Pool) error { return errors.New("not reached") },
	}
	failed := failureOf(e)
	for _, want := range []string{"apt-get install postgresql", EnvURL} {
		if !strings.Contains(failed, want) {
			t.Errorf("failure %q does not mention %q", failed, want)
		}
	}
}

func TestMalformedServerURLFailsWithoutShowingIt(t *testing.T) {
	t.Parallel()
	e := &env{
		getenv:       func(string) string { return "host=db.internal password=hunter2" },
		findBinaries: func() (string, error) { return "", errors.New("must not look for binaries") },
		migrate:      func(context.Context, *pgxpool.Pool) error { return errors.New("not reached") },
	}
	failed := failureOf(e)
	if !strings.Contains(failed, EnvURL+" is not a postgres:// URL") || strings.Contains(failed, "hunter2") {
		t.Errorf("failure %q", failed)
	}
}
