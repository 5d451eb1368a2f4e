//go:build unix

package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// orphanEnv makes the test binary start a throwaway cluster in the named
// directory, print its port and exit without stopping it.
const orphanEnv = "PGCLUSTER_TEST_ORPHAN_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(orphanEnv); dir != "" {
		c, err := Start(context.Background(), Options{DataDir: dir, Throwaway: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println("port", c.Port())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// tempParent is where the tests' clusters go: in memory when the system
// has /dev/shm (initdb is several times faster there), else the temporary
// directory.
func tempParent() string {
	if info, err := os.Stat("/dev/shm"); err == nil && info.IsDir() {
		return "/dev/shm"
	}
	return os.TempDir()
}

// reachableTempDir returns a new directory that the server account can
// enter also when the tests run as root (t.TempDir's parents are private).
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(tempParent(), "pgcluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func start(t *testing.T, opts Options) *Cluster {
	t.Helper()
	c, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return c
}

func connect(t *testing.T, c *Cluster) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func setting(t *testing.T, conn *pgx.Conn, name string) string {
	t.Helper()
	var v string
	if err := conn.QueryRow(t.Context(), "SELECT current_setting($1)", name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestStartStopRestartKeepsData(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), "cluster", "data")

	first, err := Start(t.Context(), Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	if first.Attached() {
		t.Fatal("a new cluster reports Attached")
	}
	conn := connect(t, first)
	for name, want := range map[string]string{
		"listen_addresses":        "127.0.0.1",
		"unix_socket_directories": "",
		"server_encoding":         "UTF8",
		"lc_collate":              "C",
		"fsync":                   "on",
		"is_superuser":            "on",
	} {
		if got := setting(t, conn, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')"); err != nil {
		t.Fatal(err)
	}
	conn.Close(t.Context())
	if err := first.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, pidFileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after Stop, %s: %v; want it gone", pidFileName, err)
	}
	if err := first.Stop(t.Context()); err != nil {
		t.Errorf("second Stop: %v", err)
	}

	second := start(t, Options{DataDir: dataDir})
	var v string
	if err := connect(t, second).QueryRow(t.Context(), "SELECT v FROM kept").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != "still here" {
		t.Errorf("after restart: %q", v)
	}
	assertOwnedByServerAccount(t, dataDir)
}

// assertOwnedByServerAccount checks, when the tests run as root, that the
// data directory belongs to the postgres account.
func assertOwnedByServerAccount(t *testing.T, dataDir string) {
	t.Helper()
	acct, err := serverAccount()
	if err != nil {
		t.Fatal(err)
	}
	want := uint32(os.Geteuid())
	if acct.name != "" {
		want = acct.uid
	}
	if got := ownerOf(t, dataDir); got != want {
		t.Errorf("data directory owned by uid %d, want %d", got, want)
	}
}

func TestStartAttachesToRunningCluster(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), "data")
	owner := start(t, Options{DataDir: dataDir})

	guest, err := Start(t.Context(), Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	if !guest.Attached() {
		t.Error("second Start on a running cluster does not report Attached")
	}
	if guest.URL("app") != owner.URL("app") {
		t.Errorf("guest URL %s, owner URL %s", guest.URL("app"), owner.URL("app"))
	}
	if _, err := connect(t, guest).Exec(t.Context(), "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if err := guest.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := connect(t, owner).Exec(t.Context(), "SELECT 1"); err != nil {
		t.Errorf("the owner's server is gone after the guest's Stop: %v", err)
	}
}

func TestThrowawayClusterIsRemovedByStop(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), "data")
	c, err := Start(t.Context(), Options{DataDir: dataDir, Throwaway: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := setting(t, connect(t, c), "fsync"); got != "off" {
		t.Errorf("fsync = %q in a throwaway cluster", got)
	}
	if err := c.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("data directory after Stop: %v; want it removed", err)
	}
}

func TestThrowawayClusterIsRemovedWhenProcessEnds(t *testing.T) {
	t.Parallel()
	// Directly in the temporary directory, as storagetest puts it: the
	// watchdog, running as the server account, can delete it there.
	dataDir, err := os.MkdirTemp(tempParent(), "pgcluster-orphan-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dataDir) })
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), orphanEnv+"="+dataDir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper process: %v", err)
	}
	var port int
	if _, err := fmt.Sscanf(string(out), "port %d", &port); err != nil {
		t.Fatalf("helper printed %q: %v", out, err)
	}

	deadline := time.Now().Add(time.Minute)
	for {
		_, statErr := os.Stat(dataDir)
		conn, dialErr := net.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if dialErr == nil {
			conn.Close()
		}
		if errors.Is(statErr, fs.ErrNotExist) && dialErr != nil {
			return // server stopped, directory removed
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the process ended: data directory: %v, port %d: %v", statErr, port, dialErr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestStartOnTakenPortFails(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	dataDir := filepath.Join(reachableTempDir(t), "data")
	c, err := Start(t.Context(), Options{DataDir: dataDir, Port: port, Throwaway: true})
	if err == nil {
		c.Stop(context.Background())
		t.Fatalf("started on port %d, which is taken", port)
	}
	if !errors.Is(err, errPortTaken) || !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Errorf("error %q does not say port %d is taken", err, port)
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("throwaway data directory after a failed start: %v; want it removed", err)
	}
}

func TestStartWithoutDataDir(t *testing.T) {
	t.Parallel()
	if _, err := Start(t.Context(), Options{}); err == nil || !strings.Contains(err.Error(), "no data directory") {
		t.Errorf("err = %v", err)
	}
}

// TestStartLosingTheRaceLeavesTheOtherServerAlone plays a Start that found
// no server, then met one started in the meantime by another process.
func TestStartLosingTheRaceLeavesTheOtherServerAlone(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), "data")
	owner := start(t, Options{DataDir: dataDir})

	for _, throwaway := range []bool{false, true} {
		opts := Options{DataDir: dataDir, Throwaway: throwaway}
		late, err := newCluster(dataDir, opts, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		err = late.initAndStart(t.Context(), opts)
		if !errors.Is(err, errRunning) {
			t.Fatalf("throwaway %v: err = %v, want errRunning", throwaway, err)
		}
		late.abandon(err)
		if _, err := connect(t, owner).Exec(t.Context(), "SELECT 1"); err != nil {
			t.Fatalf("throwaway %v: the other server is gone: %v", throwaway, err)
		}
		if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); err != nil {
			t.Fatalf("throwaway %v: the other server's directory: %v", throwaway, err)
		}
	}
}

// TestShutdownRestartKeepsPortAndData: a cluster shut down refuses
// connections, and once restarted answers on the same port with its
// data; a throwaway one is still removed by Stop afterwards.
func TestShutdownRestartKeepsPortAndData(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), "data")
	c, err := Start(t.Context(), Options{DataDir: dataDir, Throwaway: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop(context.Background()) }) //nolint:errcheck // checked below
	port := c.Port()
	conn := connect(t, c)
	if _, err := conn.Exec(t.Context(), "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')"); err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := pgx.Connect(t.Context(), c.URL("postgres")); err == nil {
		t.Fatal("a connection succeeded while the cluster was shut down")
	}
	if err := c.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	if c.Port() != port {
		t.Errorf("restarted on port %d, want %d", c.Port(), port)
	}
	var v string
	if err := connect(t, c).QueryRow(t.Context(), "SELECT v FROM kept").Scan(&v); err != nil || v != "still here" {
		t.Errorf("after the restart: %q, %v", v, err)
	}
	if err := c.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("data directory after Stop: %v; want it removed", err)
	}
}

// TestCrashKeepsSynchronousCommits: after a crash (immediate stop) and a
// restart, a row committed with synchronous_commit on is there.
func TestCrashKeepsSynchronousCommits(t *testing.T) {
	t.Parallel()
	c := start(t, Options{DataDir: filepath.Join(reachableTempDir(t), "data"), Throwaway: true})
	conn := connect(t, c)
	if _, err := conn.Exec(t.Context(), "SET synchronous_commit = on"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('committed')"); err != nil {
		t.Fatal(err)
	}
	if err := c.Crash(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := connect(t, c).QueryRow(t.Context(), "SELECT v FROM kept").Scan(&v); err != nil || v != "committed" {
		t.Errorf("after the crash: %q, %v", v, err)
	}
}

// TestShutdownRefusesAttachedCluster: a process that found the server
// running cannot shut it down under its owner.
func TestShutdownRefusesAttachedCluster(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(reachableTempDir(t), "data")
	owner := start(t, Options{DataDir: dataDir})
	guest, err := Start(t.Context(), Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	if err := guest.Shutdown(t.Context()); err == nil {
		t.Error("an attached cluster was shut down")
	}
	if err := guest.Crash(t.Context()); err == nil {
		t.Error("an attached cluster was crashed")
	}
	if _, err := connect(t, owner).Exec(t.Context(), "SELECT 1"); err != nil {
		t.Errorf("the owner's server is gone: %v", err)
	}
}
