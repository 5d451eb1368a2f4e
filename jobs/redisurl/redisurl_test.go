package redisurl

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

func TestParseServer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url     string
		network string
		addr    string
		db      int
		user    string
		pass    string
		tls     bool
	}{
		{"redis://localhost:6379/0", "tcp", "localhost:6379", 0, "", "", false},
		{"redis://:secret@10.0.0.5/3", "tcp", "10.0.0.5:6379", 3, "", "secret", false},
		{"rediss://app:p%40ss@cache.example.com:6380/1?dial_timeout=3s", "tcp", "cache.example.com:6380", 1, "app", "p@ss", true},
		{"unix:///run/redis.sock?db=2", "unix", "/run/redis.sock", 2, "", "", false},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			target, err := Parse(c.url)
			if err != nil {
				t.Fatal(err)
			}
			o := target.server
			if target.Mode() != Server || o.Network != c.network || o.Addr != c.addr || o.DB != c.db ||
				o.Username != c.user || o.Password != c.pass || (o.TLSConfig != nil) != c.tls {
				t.Errorf("got %s %+v", target.Mode(), o)
			}
			if strings.Contains(target.String(), "secret") || strings.Contains(target.String(), "p@ss") {
				t.Errorf("String shows the password: %s", target)
			}
		})
	}
}

func TestParseCluster(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url   string
		addrs []string
		user  string
		pass  string
		tls   bool
		check func(*redis.ClusterOptions) bool
	}{
		{url: "redis-cluster://10.0.0.1:7000,10.0.0.2:7001,10.0.0.3:7002",
			addrs: []string{"10.0.0.1:7000", "10.0.0.2:7001", "10.0.0.3:7002"}},
		{url: "redis-cluster://node-a,[::1]:7001,[fe80::1]/",
			addrs: []string{"node-a:6379", "[::1]:7001", "[fe80::1]:6379"}},
		{url: "rediss-cluster://app:s3cret@a.example.com:7000,b.example.com:7000?read_timeout=2s&pool_size=20",
			addrs: []string{"a.example.com:7000", "b.example.com:7000"}, user: "app", pass: "s3cret", tls: true,
			check: func(o *redis.ClusterOptions) bool { return o.ReadTimeout == 2*time.Second && o.PoolSize == 20 }},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			target, err := Parse(c.url)
			if err != nil {
				t.Fatal(err)
			}
			o := target.cluster
			if target.Mode() != Cluster || !slices.Equal(o.Addrs, c.addrs) || o.Username != c.user || o.Password != c.pass ||
				(o.TLSConfig != nil) != c.tls || (c.check != nil && !c.check(o)) {
				t.Errorf("got %s %+v", target.Mode(), o)
			}
			if want := "cluster " + strings.Join(c.addrs, ","); target.String() != want {
				t.Errorf("String %q, want %q", target, want)
			}
		})
	}
}

func TestParseSentinel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url          string
		master       string
		sentinels    []string
		db           int
		user, pass   string
		sUser, sPass string
		tls          bool
	}{
		{url: "redis-sentinel://10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379/mymaster",
			master: "mymaster", sentinels: []string{"10.0.0.1:26379", "10.0.0.2:26379", "10.0.0.3:26379"}},
		{url: "redis-sentinel://:data-pass@s1,s2:26380/propfin?db=4&sentinel_password=watch-pass&dial_timeout=1s",
			master: "propfin", sentinels: []string{"s1:26379", "s2:26380"}, db: 4, pass: "data-pass", sPass: "watch-pass"},
		{url: "rediss-sentinel://app:x@s1:26379/m?sentinel_username=sen&sentinel_password=y",
			master: "m", sentinels: []string{"s1:26379"}, user: "app", pass: "x", sUser: "sen", sPass: "y", tls: true},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			target, err := Parse(c.url)
			if err != nil {
				t.Fatal(err)
			}
			o := target.failover
			if target.Mode() != Sentinel || o.MasterName != c.master || !slices.Equal(o.SentinelAddrs, c.sentinels) ||
				o.DB != c.db || o.Username != c.user || o.Password != c.pass || o.SentinelUsername != c.sUser ||
				o.SentinelPassword != c.sPass || (o.TLSConfig != nil) != c.tls {
				t.Errorf("got %s %+v", target.Mode(), o)
			}
			if strings.Contains(target.String(), "pass") {
				t.Errorf("String shows a password: %s", target)
			}
		})
	}
}

// TestParseRefuses: every mistake is named, and no error repeats the
// password.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct{ url, want string }{
		{"localhost:6379", "want a URL such as"},
		{"http://localhost:6379", `unknown scheme "http"`},
		{"redis-cluster://a:7000,,b:7001", "an empty address"},
		{"redis-cluster://a:7000,b:notaport", `address "b:notaport"`},
		{"redis-cluster://a:7000,b:70000", `address "b:70000"`},
		{"redis-cluster://a:7000,::1", `address "::1"`},
		{"redis-cluster://a:7000/2", "a cluster has only database 0"},
		{"redis-cluster://a:7000?addr=b:7001", "option addr"},
		{"redis-cluster://a:7000?pool_sise=3", "unexpected option: pool_sise"},
		{"redis-cluster://user:topsecret@a:7000?dial_timeout=soon", "dial_timeout"},
		{"redis-sentinel://s1:26379", "name the master"},
		{"redis-sentinel://s1:26379/a/b", "name the master"},
		{"redis-sentinel://s1:26379/m?master_name=n", "option master_name"},
		{"redis-sentinel://s1:26379/m?password=x", "option password"},
		{"redis-sentinel://s1:26379/m?db=two", "invalid database number"},
		{"redis://user:topsecret@host:6379/notadb", "invalid database number"},
		{"redis://user:topsecret@host:port/0", "invalid port"},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			_, err := Parse(c.url)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if strings.Contains(err.Error(), "topsecret") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

// TestServerClients: the client and asynq's option reach the server the
// URL names, each through a client of its own.
func TestServerClients(t *testing.T) {
	t.Parallel()
	mr := miniredis.RunT(t)
	target, err := Parse("redis://" + mr.Addr() + "/2")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rdb := target.Client()
	defer rdb.Close()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	mr.Select(2)
	if got, _ := mr.Get("k"); got != "v" {
		t.Errorf("database 2 holds %q", got)
	}
	other, ok := target.Asynq().MakeRedisClient().(redis.UniversalClient)
	if !ok {
		t.Fatal("asynq's option does not make a go-redis client")
	}
	defer other.Close()
	if other == rdb {
		t.Error("asynq's client is the caller's: closing one would close the other")
	}
	if got, err := other.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Errorf("asynq's client reads %q %v", got, err)
	}
}
