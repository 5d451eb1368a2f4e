package storagetest

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/pgcluster"
)

// Postgres is a PostgreSQL server of one test's own, which the test may
// shut down or crash and start again (Stop, Crash, Start) without
// disturbing the other tests of the binary, which share the binary's
// server. It holds one migrated database, where commits are synchronous
// (an answered commit survives a crash).
type Postgres struct {
	// URL is the postgres:// URL of the migrated database.
	URL string
	// Pool is a pool on it, closed when the test ends. While the server is
	// down its queries fail; it reconnects once the server is back.
	Pool *pgxpool.Pool

	cluster *pgcluster.Cluster
}

// ownDatabase is the name of the migrated database of a Postgres.
const ownDatabase = "propfin"

// NewPostgres starts a throwaway cluster for the test (initdb, about a
// second, and the migrations) and creates the migrated database on it.
// It needs the server programs even when TEST_DATABASE_URL is set: a
// shared server cannot be stopped for one test. Without them the test is
// skipped when TEST_DATABASE_URL is set (the user chose not to need
// them), and fails otherwise, like every database test.
func NewPostgres(t testing.TB) *Postgres {
	t.Helper()
	binDir, err := pgcluster.FindBinaries()
	if err != nil {
		if errors.Is(err, pgcluster.ErrNotFound) && os.Getenv(EnvURL) != "" {
			t.Skipf("storagetest: this test stops and starts a PostgreSQL server of its own, which needs the server programs: %v", err)
		}
		t.Fatalf("storagetest: no PostgreSQL for the tests: %v%s", err, hint(err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	cluster, err := startThrowawayCluster(ctx, binDir)
	if err != nil {
		t.Fatalf("storagetest: start a PostgreSQL server for the test: %v", err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(context.Background()); err != nil {
			t.Errorf("storagetest: %v", err)
		}
	})
	admin, err := pgxpool.New(ctx, cluster.URL("postgres"))
	if err == nil {
		_, err = admin.Exec(ctx, "CREATE DATABASE "+ident(ownDatabase)+" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'")
	}
	if err == nil {
		// a commit answered survives Crash (the throwaway cluster's
		// default leaves the last ones in memory)
		_, err = admin.Exec(ctx, "ALTER DATABASE "+ident(ownDatabase)+" SET synchronous_commit = on")
	}
	if admin != nil {
		admin.Close()
	}
	if err != nil {
		t.Fatalf("storagetest: create the test's database: %v", err)
	}
	p := &Postgres{URL: cluster.URL(ownDatabase), cluster: cluster}
	if p.Pool, err = pgxpool.New(ctx, p.URL); err != nil {
		t.Fatalf("storagetest: open the test's database: %v", err)
	}
	t.Cleanup(p.Pool.Close)
	if err := storage.Migrate(ctx, p.Pool); err != nil {
		t.Fatalf("storagetest: migrate the test's database: %v", err)
	}
	t.Logf("storagetest: PostgreSQL of the test's own on port %d", cluster.Port())
	return p
}

// Stop shuts the server down as a restart would (pg_ctl stop -m fast:
// sessions are ended, what was committed is kept).
func (p *Postgres) Stop(t testing.TB) {
	t.Helper()
	if err := p.cluster.Shutdown(context.Background()); err != nil {
		t.Fatalf("storagetest: %v", err)
	}
}

// Crash stops the server as a crash of PostgreSQL would (pg_ctl stop -m
// immediate): sessions are cut, transactions in flight are lost, what was
// committed is recovered at Start.
func (p *Postgres) Crash(t testing.TB) {
	t.Helper()
	if err := p.cluster.Crash(context.Background()); err != nil {
		t.Fatalf("storagetest: %v", err)
	}
}

// Start brings the server back on the same port, with its data.
func (p *Postgres) Start(t testing.TB) {
	t.Helper()
	if err := p.cluster.Restart(context.Background()); err != nil {
		t.Fatalf("storagetest: %v", err)
	}
}
