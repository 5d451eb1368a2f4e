package storagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/propfin/propfin/storage/pgcluster"
)

// namePrefix starts the name of every database this package creates, and
// leasePrefix the application_name of the connection that keeps a run's
// databases alive (see removeOrphans).
const (
	namePrefix  = "propfin_test_"
	leasePrefix = "propfin storagetest "
)

// server is a PostgreSQL server with this run's migrated template on it.
type server struct {
	base     *url.URL           // the maintenance database; other databases swap the path
	cluster  *pgcluster.Cluster // nil on a TEST_DATABASE_URL server
	run      string             // this run's id, in its database names and lease
	template string
	// fileCopy clones by copying files (PostgreSQL 15's STRATEGY
	// FILE_COPY): faster than the default WAL_LOG for small databases
	// when checkpoints cost nothing, as on the throwaway cluster.
	fileCopy bool
	seq      atomic.Int64

	// admin runs CREATE and DROP DATABASE one at a time (a clone fails
	// while anything else touches its template), and its session is the
	// lease that tells other runs these databases are in use.
	adminMu sync.Mutex
	admin   *pgx.Conn
}

// startThrowawayCluster starts a cluster in a new temporary directory,
// removed when the test binary ends.
func startThrowawayCluster(ctx context.Context, binDir string) (*pgcluster.Cluster, error) {
	dir, err := os.MkdirTemp(clusterParentDir(), "propfin-pgtest-")
	if err != nil {
		return nil, err
	}
	c, err := pgcluster.Start(ctx, pgcluster.Options{DataDir: dir, BinDir: binDir, Throwaway: true})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

// connectServer opens the admin session on the server of rawURL.
func connectServer(ctx context.Context, rawURL string) (*server, error) {
	base, err := url.Parse(rawURL)
	if err != nil || (base.Scheme != "postgres" && base.Scheme != "postgresql") {
		return nil, fmt.Errorf("%s is not a postgres:// URL", EnvURL) // not quoted: it may hold a password
	}
	run, err := randomID()
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", redact(rawURL), err)
	}
	cfg.RuntimeParams["application_name"] = leasePrefix + run
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", redact(rawURL), err)
	}
	return &server{base: base, run: run, template: namePrefix + run + "_tmpl", admin: admin}, nil
}

func randomID() (string, error) {
	b := make([]byte, 5)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// redact hides the password of a URL for messages.
func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// url returns the URL of database name on this server.
func (s *server) url(name string) string {
	u := *s.base
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// createTemplate creates the template database and migrates it, then closes
// it to connections, so that clones of it never find it busy.
func (s *server) createTemplate(ctx context.Context, migrate func(context.Context, *pgxpool.Pool) error) error {
	if err := s.exec(ctx, "CREATE DATABASE "+ident(s.template)+
		" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		return fmt.Errorf("create template database: %w", err)
	}
	pool, err := pgxpool.New(ctx, s.url(s.template))
	if err != nil {
		return fmt.Errorf("open template database: %w", err)
	}
	err = migrate(ctx, pool)
	pool.Close()
	if err != nil {
		return fmt.Errorf("migrate template database: %w", err)
	}
	if err := s.exec(ctx, "ALTER DATABASE "+ident(s.template)+" ALLOW_CONNECTIONS false"); err != nil {
		return fmt.Errorf("close template database: %w", err)
	}
	return nil
}

// createDatabase clones the template into a new database and returns its name.
func (s *server) createDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("%s%s_%d", namePrefix, s.run, s.seq.Add(1))
	sql := "CREATE DATABASE " + ident(name) + " TEMPLATE " + ident(s.template)
	if s.fileCopy {
		sql += " STRATEGY FILE_COPY"
	}
	if err := s.exec(ctx, sql); err != nil {
		return "", fmt.Errorf("clone template database: %w", err)
	}
	return name, nil
}

// dropDatabase drops the database, ending the sessions still on it.
func (s *server) dropDatabase(ctx context.Context, name string) error {
	if err := s.exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop test database %s: %w", name, err)
	}
	return nil
}

// removeOrphans drops the databases of runs that ended without cleaning up
// (the template of every run, and the databases of a crashed one): those
// whose run has no lease session left on the server.
func (s *server) removeOrphans(ctx context.Context) error {
	s.adminMu.Lock()
	rows, err := s.admin.Query(ctx, `
		SELECT datname FROM pg_database
		WHERE starts_with(datname, $1)
		  AND split_part(substr(datname, length($1) + 1), '_', 1) NOT IN (
		      SELECT substr(application_name, length($2) + 1) FROM pg_stat_activity
		      WHERE starts_with(application_name, $2))`, namePrefix, leasePrefix)
	var orphans []string
	if err == nil {
		orphans, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	s.adminMu.Unlock()
	if err != nil {
		return fmt.Errorf("list databases left by earlier runs: %w", err)
	}
	for _, name := range orphans {
		// Best effort: another run starting now may be dropping it too,
		// and what stays is dropped next time.
		_ = s.dropDatabase(ctx, name)
	}
	return nil
}

// version returns the server's version number (150004 for 15.4).
func (s *server) version(ctx context.Context) (int, error) {
	s.adminMu.Lock()
	defer s.adminMu.Unlock()
	var v int
	err := s.admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&v)
	return v, err
}

func (s *server) exec(ctx context.Context, sql string) error {
	s.adminMu.Lock()
	defer s.adminMu.Unlock()
	_, err := s.admin.Exec(ctx, sql)
	return err
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// hint completes a setup error with what the user can do about it.
func hint(err error) string {
	if errors.Is(err, pgcluster.ErrNotFound) {
		return "; or set " + EnvURL + " to the postgres:// URL of a server where you may create databases"
	}
	return ""
}
