package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propfin/propfin/storage/pgcluster"
)

// devDatabase is the database name inside the local development cluster.
const devDatabase = "propfin"

// ownerFile, in the data folder, names the `propfin dev` that owns the
// running cluster: its pid and, where the system tells, its start time
// ("4242 987654"), so that another process given the same pid later is
// not taken for it. A file of the pid alone (an older version's) is read
// too.
const ownerFile = "pg.owner"

// startDevDatabase starts (or attaches to) the local cluster kept in
// dataDir/pg and makes sure the propfin database exists. stop leaves an
// attached cluster running for the process that owns it. With own set (the
// dev command), this process becomes the owner: of a cluster it starts, and
// of one left running by an owner that is gone (a crashed run).
func startDevDatabase(ctx context.Context, dataDir string, own bool, log *slog.Logger) (url string, stop func(context.Context) error, err error) {
	cluster, err := pgcluster.Start(ctx, pgcluster.Options{DataDir: filepath.Join(dataDir, "pg"), Log: log})
	if err != nil {
		return "", nil, err
	}
	stop = cluster.Stop
	if own {
		stop, err = takeOwnership(cluster, dataDir)
	}
	if err == nil {
		err = ensureDatabase(ctx, cluster.URL("postgres"), devDatabase)
	}
	if err != nil {
		cluster.Stop(context.WithoutCancel(ctx)) //nolint:errcheck // the first error is the one to report
		return "", nil, err
	}
	return cluster.URL(devDatabase), stop, nil
}

// takeOwnership records this process as the cluster's owner, adopting an
// attached cluster whose recorded owner no longer runs: gone, a zombie (a
// killed run its parent has not collected), or its pid taken since by
// another process.
func takeOwnership(cluster *pgcluster.Cluster, dataDir string) (func(context.Context) error, error) {
	path := filepath.Join(dataDir, ownerFile)
	if cluster.Attached() {
		if o := readOwner(path); o.pid != os.Getpid() && pgcluster.ProcessRunning(o.pid, o.start) {
			return cluster.Stop, nil // its owner is still running; leave it to them
		}
		if err := cluster.Adopt(); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(path, []byte(ownerRecord(os.Getpid())), 0o644); err != nil {
		return nil, fmt.Errorf("record cluster owner: %w", err)
	}
	return func(ctx context.Context) error {
		err := cluster.Stop(ctx)
		os.Remove(path) //nolint:errcheck // a stale owner file is harmless: its pid is checked
		return err
	}, nil
}

// owner is the process an owner file names.
type owner struct {
	pid   int
	start string // pgcluster.ProcessStart; "" when not recorded
}

// ownerRecord is the owner file's text for the process pid.
func ownerRecord(pid int) string {
	return strings.TrimSpace(strconv.Itoa(pid)+" "+pgcluster.ProcessStart(pid)) + "\n"
}

// readOwner reads an owner file; a missing or unreadable one names no
// process (pid 0).
func readOwner(path string) owner {
	b, err := os.ReadFile(path)
	if err != nil {
		return owner{}
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return owner{}
	}
	pid, _ := strconv.Atoi(fields[0])
	o := owner{pid: pid}
	if len(fields) > 1 {
		o.start = fields[1]
	}
	return o
}

func ensureDatabase(ctx context.Context, adminURL, name string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect to local cluster: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}
