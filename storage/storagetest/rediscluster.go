package storagetest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The Redis deployments propfin scales out on, started for one test from
// the machine's redis-server (and redis-cli, which joins a cluster): they
// cannot run in miniredis. Without the programs the test is skipped, saying
// what to install, unless PROPFIN_TEST_REAL_REDIS=1 (CI), which makes their
// absence a failure.

// RedisCluster is a Redis Cluster of three masters without replicas, on
// loopback ports.
type RedisCluster struct {
	// Addrs are the nodes' host:port.
	Addrs []string
}

// clusterMasters is the number of masters: the fewest redis-cli accepts.
const clusterMasters = 3

// NewRedisCluster starts three redis-server processes in cluster mode,
// joins them with `redis-cli --cluster create` and waits until every node
// says the cluster is ok. They are killed when the test ends.
func NewRedisCluster(t testing.TB) *RedisCluster {
	t.Helper()
	server, cli := realRedisPrograms(t, "redis-server", "redis-cli")
	c := &RedisCluster{}
	for range clusterMasters {
		p := &redisProcess{bin: server, port: clusterPort(t), args: []string{"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000", "--dir", t.TempDir()}}
		if err := p.start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.stop)
		c.Addrs = append(c.Addrs, p.addr())
	}
	create := exec.Command(cli, append(append([]string{"--cluster", "create"}, c.Addrs...),
		"--cluster-replicas", "0", "--cluster-yes")...)
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, addr := range c.Addrs {
		waitRedis(t, addr, "cluster_state:ok", func(ctx context.Context, rdb *redis.Client) (string, error) {
			return rdb.ClusterInfo(ctx).Result()
		})
	}
	t.Logf("storagetest: Redis Cluster of %d masters at %s", clusterMasters, strings.Join(c.Addrs, ","))
	return c
}

// clusterPort is a free loopback port whose cluster bus port (10000 above
// it, which every Redis version uses) is free too.
func clusterPort(t testing.TB) int {
	t.Helper()
	for range 100 {
		port := freePort(t)
		if port+10000 > 65535 {
			continue
		}
		if ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+10000))); err == nil {
			ln.Close()
			return port
		}
	}
	t.Fatal("storagetest: no free pair of ports for a cluster node")
	return 0
}

// RedisSentinel is a master, a replica of it and one Sentinel watching
// them, on loopback ports.
type RedisSentinel struct {
	// Master is the name the Sentinel knows the master by; Addr is the
	// Sentinel's host:port.
	Master string
	Addr   string

	nodes map[string]*redisProcess // by host:port
}

// sentinelMaster is the master's name in the tests' Sentinel.
const sentinelMaster = "propfin"

// NewRedisSentinel starts a master, a replica and a Sentinel (quorum 1,
// a master silent for a second is down) and waits until the replica has
// synchronised and the Sentinel knows it, so that a failover can promote
// it. They are killed when the test ends.
func NewRedisSentinel(t testing.TB) *RedisSentinel {
	t.Helper()
	server, _ := realRedisPrograms(t, "redis-server")
	s := &RedisSentinel{Master: sentinelMaster, nodes: map[string]*redisProcess{}}
	// a replica writes the copy it receives to its folder: not the test's
	master := &redisProcess{bin: server, port: freePort(t), args: []string{"--dir", t.TempDir()}}
	replica := &redisProcess{bin: server, port: freePort(t), args: []string{"--dir", t.TempDir(),
		"--replicaof", "127.0.0.1", strconv.Itoa(master.port)}}
	for _, p := range []*redisProcess{master, replica} {
		if err := p.start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.stop)
		s.nodes[p.addr()] = p
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	settings := fmt.Sprintf("dir %s\nsentinel monitor %[2]s 127.0.0.1 %[3]d 1\n"+
		"sentinel down-after-milliseconds %[2]s 1000\nsentinel failover-timeout %[2]s 10000\n", dir, s.Master, master.port)
	if err := os.WriteFile(conf, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	sentinel := &redisProcess{bin: server, port: freePort(t), args: []string{conf, "--sentinel"}}
	if err := sentinel.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sentinel.stop)
	s.Addr = sentinel.addr()
	waitRedis(t, replica.addr(), "master_link_status:up", func(ctx context.Context, rdb *redis.Client) (string, error) {
		return rdb.Info(ctx, "replication").Result()
	})
	waitRedis(t, s.Addr, "port:"+strconv.Itoa(replica.port)+" ", func(ctx context.Context, rdb *redis.Client) (string, error) {
		replicas, err := redis.NewSentinelClient(rdb.Options()).Replicas(ctx, s.Master).Result()
		return fmt.Sprint(replicas), err
	})
	t.Logf("storagetest: Redis Sentinel at %s watching master %q (%s) and its replica %s", s.Addr, s.Master,
		master.addr(), replica.addr())
	return s
}

// MasterAddr is the host:port the Sentinel gives for the master now.
func (s *RedisSentinel) MasterAddr(t testing.TB) string {
	t.Helper()
	sc := redis.NewSentinelClient(&redis.Options{Addr: s.Addr})
	defer sc.Close()
	hostPort, err := sc.GetMasterAddrByName(context.Background(), s.Master).Result()
	if err != nil {
		t.Fatalf("storagetest: ask the Sentinel for the master: %v", err)
	}
	return net.JoinHostPort(hostPort[0], hostPort[1])
}

// KillMaster kills the master (kill -9) and waits until the Sentinel has
// promoted the replica; it returns the new master's host:port.
func (s *RedisSentinel) KillMaster(t testing.TB) string {
	t.Helper()
	old := s.MasterAddr(t)
	p, ok := s.nodes[old]
	if !ok {
		t.Fatalf("storagetest: the Sentinel names %s, which this test did not start", old)
	}
	p.stop()
	start := time.Now()
	for time.Since(start) < 30*time.Second {
		if now := s.MasterAddr(t); now != old {
			t.Logf("storagetest: the Sentinel promoted %s %s after the master was killed", now, time.Since(start).Round(100*time.Millisecond))
			return now
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("storagetest: the Sentinel did not promote the replica within 30s of the master's end")
	return ""
}

// realRedisPrograms finds the named programs on PATH, or skips the test
// (fails it under PROPFIN_TEST_REAL_REDIS=1).
func realRedisPrograms(t testing.TB, names ...string) (string, string) {
	t.Helper()
	paths := make([]string, 2)
	for i, name := range names {
		path, err := exec.LookPath(name)
		if err != nil {
			msg := fmt.Sprintf("storagetest: this test needs a real Redis, and %s is not installed (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis)", name)
			if os.Getenv(RealRedisEnv) == "1" {
				t.Fatalf("%s=1: %s", RealRedisEnv, msg)
			}
			t.Skip(msg)
		}
		paths[i] = path
	}
	return paths[0], paths[1]
}

// waitRedis asks the server at addr until the answer contains want, for up
// to 30 seconds.
func waitRedis(t testing.TB, addr, want string, ask func(context.Context, *redis.Client) (string, error)) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	var got string
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		got, err = ask(ctx, rdb)
		cancel()
		if err == nil && strings.Contains(got, want) {
			return
		}
	}
	t.Fatalf("storagetest: %s did not answer %q within 30s: %q %v", addr, want, got, err)
}
