package storagetest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// Environment variables of the Redis helper.
const (
	// RedisURLEnv names a Redis server the tests use instead of starting
	// their own; each test gets a database number of its own on it.
	RedisURLEnv = "TEST_REDIS_URL"
	// RealRedisEnv, set to 1, makes a real Redis mandatory: a test that
	// would fall back to miniredis fails instead (CI sets it).
	RealRedisEnv = "PROPFIN_TEST_REAL_REDIS"
)

// Redis is a Redis server for one test: a real one when the machine has
// one (TEST_REDIS_URL, or a redis-server program started on a free port),
// miniredis otherwise. The choice is written to the test log.
type Redis struct {
	// Addr is host:port; DB the database number to use on it.
	Addr string
	DB   int
	// Real says whether this is a real redis-server.
	Real bool

	username, password string

	mini    *miniredis.Miniredis
	process *redisProcess
}

// URL is the redis:// URL of the server and database.
func (r *Redis) URL() string {
	u := url.URL{Scheme: "redis", Host: r.Addr, Path: "/" + strconv.Itoa(r.DB)}
	if r.password != "" {
		u.User = url.UserPassword(r.username, r.password)
	}
	return u.String()
}

// Options are go-redis options for the server and database.
func (r *Redis) Options() *redis.Options {
	return &redis.Options{Addr: r.Addr, DB: r.DB, Username: r.username, Password: r.password}
}

// Client returns a go-redis client, closed when the test ends.
func (r *Redis) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(r.Options())
	t.Cleanup(func() { c.Close() })
	return c
}

// NewRedis gives the test a Redis of its own. With TEST_REDIS_URL it is a
// database of that server (flushed first), else a redis-server started on
// a free loopback port when one is installed, else miniredis.
func NewRedis(t testing.TB) *Redis {
	t.Helper()
	if url := os.Getenv(RedisURLEnv); url != "" {
		return sharedRedis(t, url)
	}
	return NewRedisProcess(t)
}

// NewRedisProcess gives the test a Redis server it controls (Stop and
// Start): a redis-server process when installed, else miniredis. Fault
// tests use it even when TEST_REDIS_URL is set.
func NewRedisProcess(t testing.TB) *Redis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(RealRedisEnv) == "1" {
			t.Fatalf("%s=1 but redis-server is not installed (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis)", RealRedisEnv)
		}
		mr := miniredis.RunT(t)
		t.Logf("storagetest: Redis is miniredis (in process) at %s; install redis-server to test on a real one", mr.Addr())
		return &Redis{Addr: mr.Addr(), mini: mr}
	}
	return startRedisServer(t, bin)
}

// NewRedisServer gives the test a real redis-server it controls (Stop and
// Start), for the fault tests, whose subject is how propfin lives with a
// real server's scripts, leases and restarts. Without redis-server the
// test is skipped, saying what to install; under PROPFIN_TEST_REAL_REDIS=1
// (CI) it fails instead.
func NewRedisServer(t testing.TB) *Redis {
	t.Helper()
	bin, _ := realRedisPrograms(t, "redis-server")
	return startRedisServer(t, bin)
}

// startRedisServer starts bin on a free loopback port until the test ends.
func startRedisServer(t testing.TB, bin string) *Redis {
	t.Helper()
	p := &redisProcess{bin: bin, port: freePort(t)}
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	t.Logf("storagetest: Redis is redis-server at %s", p.addr())
	return &Redis{Addr: p.addr(), Real: true, process: p}
}

// Stop makes the server unreachable, as a crash would: a redis-server is
// killed (its data is lost, it keeps none), miniredis is closed.
func (r *Redis) Stop(t testing.TB) {
	t.Helper()
	switch {
	case r.process != nil:
		r.process.stop()
	case r.mini != nil:
		r.mini.Close()
	default:
		t.Fatal("storagetest: a shared TEST_REDIS_URL server cannot be stopped; use NewRedisProcess")
	}
}

// Start brings a stopped server back on the same address.
func (r *Redis) Start(t testing.TB) {
	t.Helper()
	switch {
	case r.process != nil:
		if err := r.process.start(); err != nil {
			t.Fatal(err)
		}
	case r.mini != nil:
		if err := r.mini.Restart(); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("storagetest: a shared TEST_REDIS_URL server cannot be started; use NewRedisProcess")
	}
}

// redisProcess is a throwaway redis-server without persistence; args are
// added to its command line (a cluster node's or a Sentinel's settings).
type redisProcess struct {
	bin  string
	port int
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
}

func (p *redisProcess) addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port))
}

func (p *redisProcess) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	args := append(slices.Clone(p.args), "--port", strconv.Itoa(p.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	cmd := exec.Command(p.bin, args...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	p.cmd = cmd
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", p.addr()); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("redis-server did not answer on %s within 5s", p.addr())
}

func (p *redisProcess) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	p.cmd.Process.Kill() //nolint:errcheck // stopping a throwaway server
	p.cmd.Wait()         //nolint:errcheck // it was killed
	p.cmd = nil
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// sharedDBs hands out the database numbers 1-15 of a TEST_REDIS_URL server
// to the tests of this binary. Other test binaries on the same server are
// kept apart by a lock key per database, taken on database 0.
var sharedDBs = make(chan int, 15)

func init() {
	for db := 1; db <= 15; db++ {
		sharedDBs <- db
	}
}

// sharedLockTTL bounds how long a crashed test binary keeps a database.
const sharedLockTTL = 30 * time.Minute

func sharedRedis(t testing.TB, serverURL string) *Redis {
	t.Helper()
	opts, err := redis.ParseURL(serverURL)
	if err != nil {
		t.Fatalf("%s: %v", RedisURLEnv, err)
	}
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: opts.Addr, Username: opts.Username, Password: opts.Password})
	t.Cleanup(func() { admin.Close() })
	owner := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	for {
		db := <-sharedDBs
		lock := "propfin:storagetest:db:" + strconv.Itoa(db)
		ok, err := admin.SetNX(ctx, lock, owner, sharedLockTTL).Result()
		if err != nil {
			t.Fatalf("%s: %v", RedisURLEnv, err)
		}
		if !ok {
			sharedDBs <- db // another test binary holds it
			time.Sleep(50 * time.Millisecond)
			continue
		}
		c := redis.NewClient(&redis.Options{Addr: opts.Addr, Username: opts.Username, Password: opts.Password, DB: db})
		if err := c.FlushDB(ctx).Err(); err != nil {
			t.Fatalf("%s: flush database %d: %v", RedisURLEnv, db, err)
		}
		c.Close()
		t.Cleanup(func() {
			admin.Del(ctx, lock)
			sharedDBs <- db
		})
		t.Logf("storagetest: Redis is %s, database %d", opts.Addr, db)
		return &Redis{Addr: opts.Addr, DB: db, Real: true, username: opts.Username, password: opts.Password}
	}
}
