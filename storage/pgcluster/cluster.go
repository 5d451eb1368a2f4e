package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Superuser is the database superuser of the clusters Start creates. Loopback
// connections are trusted, so it needs no password.
const Superuser = "postgres"

// ServerLogName is the server's log file, inside the data directory.
const ServerLogName = "server.log"

// host is the only address the clusters listen on.
const host = "127.0.0.1"

// startTimeout bounds pg_ctl's wait for the server to accept connections.
const startTimeout = 60 * time.Second

// Options configure Start.
type Options struct {
	// DataDir is the cluster's data directory (PGDATA). Start creates and
	// initialises it when it holds no cluster yet. Required.
	DataDir string
	// Port is the TCP port on 127.0.0.1. Zero picks a free port at every start.
	Port int
	// Throwaway is for clusters whose data does not matter, such as tests':
	// fsync and the other durability settings are off, and the data
	// directory is deleted by Stop or, if the process ends without calling
	// Stop, right after it ends (for the directory itself to go then, its
	// parent must be writable by the server account, as os.TempDir is). It
	// has no effect when Start attaches to a running cluster.
	Throwaway bool
	// BinDir holds initdb, pg_ctl and postgres. Empty means FindBinaries.
	BinDir string
	// Log receives what the cluster does (initdb, start, attach, stop);
	// nil discards it.
	Log *slog.Logger
}

// Cluster is a running PostgreSQL cluster.
type Cluster struct {
	dataDir  string
	binDir   string
	port     int
	attached bool
	launched bool // pg_ctl start ran: a failed start may have left a server behind
	acct     account
	log      *slog.Logger
	watchdog *watchdog

	stopOnce sync.Once
	stopErr  error
}

// Start runs the cluster of opts.DataDir, creating it first when the
// directory holds none, and returns once it accepts connections. When a
// server is already running on that directory, Start attaches to it: the
// returned Cluster reaches it, and its Stop leaves it running.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("start PostgreSQL: no data directory given")
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	if strings.ContainsAny(dataDir, "\"$`\\\n") {
		return nil, fmt.Errorf("start PostgreSQL: data directory %q: quotes, $, ` and \\ are not supported in its path", dataDir)
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("data_dir", dataDir)

	if c, ok, err := attach(ctx, dataDir, log); ok || err != nil {
		return c, err
	}
	c, err := newCluster(dataDir, opts, log)
	if err != nil {
		return nil, err
	}
	if err := c.initAndStart(ctx, opts); err != nil {
		if errors.Is(err, errRunning) {
			// Another process started it since we looked: use theirs.
			if c2, ok, aerr := attach(ctx, dataDir, log); ok && aerr == nil {
				c.abandon(err)
				return c2, nil
			}
		}
		c.abandon(err)
		return nil, err
	}
	return c, nil
}

func newCluster(dataDir string, opts Options, log *slog.Logger) (*Cluster, error) {
	binDir, err := binaries(opts.BinDir)
	if err != nil {
		return nil, err
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	if err := acct.prepareDataDir(dataDir); err != nil {
		return nil, err
	}
	c := &Cluster{dataDir: dataDir, binDir: binDir, acct: acct, log: log}
	if opts.Throwaway {
		if c.watchdog, err = startWatchdog(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// binaries returns the absolute folder of the server programs: dir, or
// where FindBinaries finds them.
func binaries(dir string) (string, error) {
	if dir == "" {
		return FindBinaries()
	}
	return filepath.Abs(dir) // the programs run from "/"
}

func (c *Cluster) initAndStart(ctx context.Context, opts Options) error {
	if _, err := os.Stat(filepath.Join(c.dataDir, "PG_VERSION")); errors.Is(err, fs.ErrNotExist) {
		if err := c.initdb(ctx, opts.Throwaway); err != nil {
			return err
		}
	} else if err != nil {
		return fmt.Errorf("look for a cluster in %s: %w", c.dataDir, err)
	}
	return c.start(ctx, opts)
}

// URL returns a postgres:// URL for the database dbname, as the superuser.
func (c *Cluster) URL(dbname string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(Superuser),
		Host:     net.JoinHostPort(host, strconv.Itoa(c.port)),
		Path:     "/" + dbname,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Port returns the TCP port the server listens on, on 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// DataDir returns the absolute path of the data directory.
func (c *Cluster) DataDir() string { return c.dataDir }

// Attached reports whether Start found the server already running; Stop
// then leaves it running.
func (c *Cluster) Attached() bool { return c.attached }

// Stop shuts the server down (pg_ctl stop -m fast: sessions are ended,
// then a clean shutdown) or, for a throwaway cluster, kills it (-m
// immediate) and deletes its data directory. It does nothing for a cluster Start attached to. Calling it
// again returns the first result.
func (c *Cluster) Stop(ctx context.Context) error {
	if c.attached {
		c.log.Info("leaving PostgreSQL running for its owner")
		return nil
	}
	c.stopOnce.Do(func() { c.stopErr = c.stop(ctx) })
	return c.stopErr
}

// Shutdown stops the server as `pg_ctl stop -m fast` does (sessions are
// ended, a shutdown checkpoint written) and keeps the data directory, so
// that Restart can start it again: for a test of what clients see while
// the database is restarted. Stop still removes a throwaway cluster
// afterwards. It refuses a cluster Start attached to.
func (c *Cluster) Shutdown(ctx context.Context) error {
	return c.halt(ctx, "fast")
}

// Crash stops the server as a crash of PostgreSQL would (pg_ctl stop -m
// immediate: every process quits at once, no checkpoint), keeping the
// data directory; Restart then recovers from the write-ahead log. A
// commit survives it when it waited for its WAL to be written
// (synchronous_commit on, which a throwaway cluster turns off by
// default): the OS keeps what was written, fsync or not.
func (c *Cluster) Crash(ctx context.Context) error {
	return c.halt(ctx, "immediate")
}

// halt stops the server with pg_ctl's mode, keeping the data directory.
func (c *Cluster) halt(ctx context.Context, mode string) error {
	if c.attached {
		return errors.New("stop PostgreSQL: this process did not start it")
	}
	if out, err := c.run(ctx, "pg_ctl", "stop", "-w", "-m", mode, "-D", c.dataDir); err != nil {
		return fmt.Errorf("stop PostgreSQL in %s (%s): %w: %s", c.dataDir, mode, err, out)
	}
	c.log.Info("PostgreSQL stopped for a restart", "mode", mode, "port", c.port)
	return nil
}

// Restart starts a cluster stopped by Shutdown or Crash again, on the
// port it had, and returns once it accepts connections.
func (c *Cluster) Restart(ctx context.Context) error {
	if c.attached {
		return errors.New("restart PostgreSQL: this process did not start it")
	}
	return c.pgCtlStart(ctx, c.port, c.watchdog != nil)
}

// Adopt makes this process the owner of a cluster Start attached to, so
// that Stop shuts it down: for a caller that knows the process that started
// the server has gone (a development run that crashed and left it running).
// It does nothing on a cluster this process started.
func (c *Cluster) Adopt() error {
	if !c.attached {
		return nil
	}
	binDir, err := binaries("")
	if err != nil {
		return err
	}
	acct, err := serverAccount()
	if err != nil {
		return err
	}
	c.binDir, c.acct, c.attached = binDir, acct, false
	c.log.Info("adopted the running PostgreSQL: it stops with this process")
	return nil
}

// ProcessAlive reports whether a process with this pid runs: it exists and,
// where the system tells (Linux), is not a zombie.
func ProcessAlive(pid int) bool { return pid > 0 && processAlive(pid) }

// procStat is what the system says of a process beyond its existence.
type procStat struct {
	zombie bool
	start  string // when it started, in the system's own unit
}

// ProcessStart is when the process with this pid started, as a token to
// record beside the pid ("" where the system does not tell, or there is no
// such process): ProcessRunning compares it, so that a process that took
// the pid later is not taken for the one recorded.
func ProcessStart(pid int) string {
	st, _ := readProcStat(pid)
	return st.start
}

// ProcessRunning reports whether the process recorded as pid and start (a
// ProcessStart) still runs: the pid is alive, and, when start was recorded
// and the system tells, the process with that pid started then. Where the
// system does not tell, a live pid is taken for the process recorded.
func ProcessRunning(pid int, start string) bool {
	if !ProcessAlive(pid) {
		return false
	}
	st, ok := readProcStat(pid)
	return start == "" || !ok || st.start == start
}

func (c *Cluster) stop(ctx context.Context) error {
	began := time.Now()
	mode := "fast"
	if c.watchdog != nil {
		mode = "immediate" // no shutdown checkpoint: the data is deleted next
	}
	out, err := c.run(ctx, "pg_ctl", "stop", "-w", "-m", mode, "-D", c.dataDir)
	if err != nil && c.running() {
		return fmt.Errorf("stop PostgreSQL in %s: %w: %s", c.dataDir, err, out)
	}
	if c.watchdog != nil {
		if err := c.removeThrowaway(); err != nil {
			return err
		}
	}
	c.log.Info("PostgreSQL stopped", "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// removeThrowaway fires the watchdog, which deletes the data directory as
// the server account, then deletes whatever that account could not (the
// directory itself, when its parent is not writable by that account).
func (c *Cluster) removeThrowaway() error {
	c.watchdog.fire()
	if err := os.RemoveAll(c.dataDir); err != nil {
		return fmt.Errorf("remove throwaway cluster: %w", err)
	}
	return nil
}

// running reports whether a live server holds the data directory.
func (c *Cluster) running() bool {
	pf, err := readPidFile(c.dataDir)
	return err == nil && processAlive(pf.pid)
}

// abandon cleans up after a failed start: it stops the server pg_ctl may
// have left starting (immediately) and removes a throwaway directory, unless
// the failure was another server holding the directory: that one and its
// directory are left alone.
func (c *Cluster) abandon(cause error) {
	if errors.Is(cause, errRunning) {
		if c.watchdog != nil {
			c.watchdog.disarm()
		}
		return
	}
	if c.launched && c.running() {
		_, _ = c.run(context.Background(), "pg_ctl", "stop", "-w", "-m", "immediate", "-D", c.dataDir)
	}
	if c.watchdog != nil {
		_ = c.removeThrowaway()
	}
}

// initdb creates the cluster: UTF8, locale C, trust authentication (the
// server listens on the loopback interface only), no Unix-domain socket.
func (c *Cluster) initdb(ctx context.Context, throwaway bool) error {
	began := time.Now()
	args := []string{"-D", c.dataDir, "-U", Superuser, "-E", "UTF8", "--locale=C", "-A", "trust"}
	if throwaway {
		args = append(args, "--no-sync")
	}
	if out, err := c.run(ctx, "initdb", args...); err != nil {
		return fmt.Errorf("initdb in %s: %w: %s", c.dataDir, err, out)
	}
	conf := "\n# Set by propfin: reached over TCP on the loopback interface only.\n" +
		"listen_addresses = '" + host + "'\n" +
		"unix_socket_directories = ''\n"
	if err := appendFile(filepath.Join(c.dataDir, "postgresql.conf"), conf); err != nil {
		return fmt.Errorf("configure cluster in %s: %w", c.dataDir, err)
	}
	c.log.Info("PostgreSQL cluster created", "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// Causes of a failed start, recognised in the server log.
var (
	errPortTaken = errors.New("port already in use")
	errRunning   = errors.New("another server holds the data directory")
)

// start runs pg_ctl start, trying other free ports when the one picked was
// taken in the meantime (several test binaries start clusters at once).
func (c *Cluster) start(ctx context.Context, opts Options) error {
	const attempts = 3
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			var err error
			if port, err = freePort(); err != nil {
				return err
			}
		}
		err := c.pgCtlStart(ctx, port, opts.Throwaway)
		if err == nil || opts.Port != 0 || attempt == attempts || !errors.Is(err, errPortTaken) {
			return err
		}
		c.log.Info("port taken, trying another", "port", port)
	}
}

func (c *Cluster) pgCtlStart(ctx context.Context, port int, throwaway bool) error {
	began := time.Now()
	logFile := filepath.Join(c.dataDir, ServerLogName)
	logStart := fileSize(logFile)
	// pg_ctl hands these to the server through /bin/sh: plain words only.
	serverArgs := "-p " + strconv.Itoa(port) + " -c listen_addresses=" + host
	if throwaway {
		serverArgs += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	c.launched = true
	out, err := c.run(ctx, "pg_ctl", "start", "-w", "-t", strconv.Itoa(int(startTimeout.Seconds())),
		"-D", c.dataDir, "-l", logFile, "-o", serverArgs)
	if err != nil {
		serverLog := readFrom(logFile, logStart)
		switch {
		case strings.Contains(serverLog, "could not bind") || strings.Contains(serverLog, "already in use"):
			err = fmt.Errorf("%w: %w", errPortTaken, err)
		case strings.Contains(serverLog, `lock file "postmaster.pid" already exists`):
			err = fmt.Errorf("%w: %w", errRunning, err)
		}
		return fmt.Errorf("start PostgreSQL in %s on port %d: %w: %s\nserver log:\n%s",
			c.dataDir, port, err, out, lastLines(serverLog, 10))
	}
	c.port = port
	if err := c.waitReady(ctx); err != nil {
		return err
	}
	c.log.Info("PostgreSQL started", "port", port, "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// attach returns a Cluster for the server already running on dataDir, if
// there is one; ok is false when there is none.
func attach(ctx context.Context, dataDir string, log *slog.Logger) (c *Cluster, ok bool, err error) {
	pf, err := readPidFile(dataDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("look for a running server: %w", err)
	}
	if !processAlive(pf.pid) {
		return nil, false, nil // a stale lock file from a crash: the server replaces it at start
	}
	c = &Cluster{dataDir: dataDir, attached: true, log: log}
	if err := c.waitReady(ctx); err != nil {
		return nil, true, err
	}
	log.Info("attached to the running PostgreSQL", "pid", pf.pid, "port", c.port)
	return c, true, nil
}

// waitReady waits until the server's lock file says it is ready and its
// port accepts a TCP connection, and records the port.
func (c *Cluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var last error
	for {
		if last = c.checkReady(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for PostgreSQL in %s: %w (last: %w)", c.dataDir, ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (c *Cluster) checkReady(ctx context.Context) error {
	pf, err := readPidFile(c.dataDir)
	if err != nil {
		return err
	}
	if pf.status != "ready" {
		return fmt.Errorf("server status %q", pf.status)
	}
	if pf.listenAddr == "" {
		return errors.New("the server does not listen on TCP")
	}
	dialer := net.Dialer{Timeout: time.Second}
	conn, err := dialer.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(pf.port)))
	if err != nil {
		return err
	}
	c.port = pf.port
	return conn.Close()
}

// run runs one of the server programs as the server account and returns
// its combined output.
func (c *Cluster) run(ctx context.Context, program string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir, program), args...)
	cmd.Dir = "/"
	// Messages in English, whatever the user's locale: errors are matched on them.
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	c.acct.apply(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func appendFile(name, text string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fileSize(name string) int64 {
	info, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return info.Size()
}

// readFrom returns the file's content from offset on, or what went wrong.
func readFrom(name string, offset int64) string {
	f, err := os.Open(name)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, offset, 1<<20))
	if err != nil {
		return err.Error()
	}
	return string(data)
}

func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
