package storage

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLockID is the advisory lock that serialises concurrent migrators
// (two release phases starting at once wait for each other).
const migrationLockID = 7_220_230_001

// Migration is one versioned SQL file of migrations/, named NNNN_title.sql.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read embedded migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		prefix, _, ok := strings.Cut(name, "_")
		version, err := strconv.Atoi(prefix)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %q: name must start with a version number and '_'", name)
		}
		body, err := migrationFiles.ReadFile(path.Join("migrations", name))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		out = append(out, Migration{Version: version, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", out[i-1].Name, out[i].Name, out[i].Version)
		}
	}
	return out, nil
}

// Migrate applies every embedded migration not applied yet, each in its own
// transaction together with its row in schema_migrations, then loads the
// shipped price indices (LoadShippedIndices). Running it again changes
// nothing.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := MigrateVerbose(ctx, pool)
	return err
}

// MigrateVerbose is Migrate returning the names of the migrations applied.
func MigrateVerbose(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	migrations, err := Migrations()
	if err != nil {
		return nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err != nil {
		return nil, fmt.Errorf("migrate: take lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLockID) //nolint:errcheck // released with the session anyway

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY,
		name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	applied, err := appliedVersions(ctx, conn.Conn())
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range migrations {
		if applied[m.Version] {
			continue
		}
		if err := applyMigration(ctx, conn.Conn(), m); err != nil {
			return names, err
		}
		names = append(names, m.Name)
	}
	if _, err := LoadShippedIndices(ctx, conn.Conn()); err != nil {
		return names, fmt.Errorf("migrate: load the shipped price indices: %w", err)
	}
	return names, nil
}

func appliedVersions(ctx context.Context, conn *pgx.Conn) (map[int]bool, error) {
	rows, err := conn.Query(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("migrate: read applied versions: %w", err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, fmt.Errorf("migrate: read applied versions: %w", err)
	}
	applied := make(map[int]bool, len(versions))
	for _, v := range versions {
		applied[int(v)] = true
	}
	return applied, nil
}

func applyMigration(ctx context.Context, conn *pgx.Conn, m Migration) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: apply %s: %w", m.Name, err)
	}
	return nil
}

// Schema is how a database's schema stands against the binary's embedded
// migrations: Missing are the migrations not applied (all of them on a
// database never migrated), Unknown the versions applied that the binary
// does not embed (a newer binary migrated it, and this one is older: a
// rollback of the binary).
type Schema struct {
	Missing []string
	Unknown []int
}

// Behind says whether migrations of the binary are not applied: its
// queries may name tables and columns the database does not have.
func (s Schema) Behind() bool { return len(s.Missing) > 0 }

// String says it in a sentence for a log line or an answer.
func (s Schema) String() string {
	switch {
	case s.Behind():
		what := fmt.Sprintf("%d migrations of this binary are", len(s.Missing))
		if len(s.Missing) == 1 {
			what = "1 migration of this binary is"
		}
		return fmt.Sprintf("%s not applied (%s): run `propfin migrate`", what, strings.Join(s.Missing, ", "))
	case len(s.Unknown) > 0:
		return fmt.Sprintf("the database has migrations this binary does not know (versions %v): it is older than the schema", s.Unknown)
	}
	return "up to date"
}

// SchemaStatus compares the migrations applied to q's database with the
// embedded ones; it reads schema_migrations only.
func SchemaStatus(ctx context.Context, q DBTX) (Schema, error) {
	migrations, err := Migrations()
	if err != nil {
		return Schema{}, err
	}
	var versions []int32
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return Schema{}, translate(err, "schema status")
	}
	if exists {
		rows, err := q.Query(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
		if err != nil {
			return Schema{}, translate(err, "schema status")
		}
		if versions, err = pgx.CollectRows(rows, pgx.RowTo[int32]); err != nil {
			return Schema{}, translate(err, "schema status")
		}
	}
	applied := make(map[int]bool, len(versions))
	for _, v := range versions {
		applied[int(v)] = true
	}
	var s Schema
	known := make(map[int]bool, len(migrations))
	for _, m := range migrations {
		known[m.Version] = true
		if !applied[m.Version] {
			s.Missing = append(s.Missing, m.Name)
		}
	}
	for _, v := range versions {
		if !known[int(v)] {
			s.Unknown = append(s.Unknown, int(v))
		}
	}
	return s, nil
}
