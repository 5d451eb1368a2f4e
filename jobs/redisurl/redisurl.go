// Package redisurl reads REDIS_URL, which may name one Redis server, a
// Redis Cluster or a master watched by Sentinels, and opens connections to
// it: a go-redis client for the API (the rate limiter, readiness) and the
// relay, and an asynq connection option for the workers, the relay and the
// queue dashboard. Every process of propfin reads the URL through Parse, so
// that they all reach the same Redis the same way.
//
// The forms:
//
//	redis://[user:password@]host[:port][/db][?options]        one server (rediss:// with TLS)
//	unix://[user:password@]/path/to/redis.sock[?db=N]         one server on a Unix socket
//	redis-cluster://[user:password@]host:port[,host:port...][?options]
//	                                                          a Redis Cluster, found from any of its nodes (rediss-cluster:// with TLS)
//	redis-sentinel://[user:password@]host:port[,host:port...]/master[?db=N&options]
//	                                                          the master the Sentinels at the addresses watch (rediss-sentinel:// with TLS)
//
// The user and password are those of the Redis servers that hold the data
// (for Sentinel: the master and its replicas); Sentinels that require a
// password of their own take sentinel_username and sentinel_password in
// the query. The other options are go-redis's (dial_timeout, read_timeout,
// pool_size, ...: snake case of its option names); an unknown one is an
// error. A port left out is 6379 (26379 for a Sentinel).
package redisurl

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Mode is the kind of Redis deployment a URL names.
type Mode string

// The modes.
const (
	Server   Mode = "server"
	Cluster  Mode = "cluster"
	Sentinel Mode = "sentinel"
)

// Target is a parsed REDIS_URL: where Redis is and how to reach it.
type Target struct {
	mode     Mode
	server   *redis.Options
	cluster  *redis.ClusterOptions
	failover *redis.FailoverOptions
}

// Parse reads a Redis URL in one of the package's forms. Its errors never
// repeat the URL, which may hold a password.
func Parse(raw string) (*Target, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return nil, errors.New("want a URL such as redis://host:6379/0, redis-cluster://host:7000,host:7001 or redis-sentinel://host:26379/mymaster")
	}
	switch scheme {
	case "redis", "rediss", "unix":
		o, err := redis.ParseURL(raw)
		if err != nil {
			return nil, clean(err)
		}
		return &Target{mode: Server, server: o}, nil
	case "redis-cluster", "rediss-cluster":
		return parseCluster(strings.TrimSuffix(scheme, "-cluster"), rest)
	case "redis-sentinel", "rediss-sentinel":
		return parseSentinel(strings.TrimSuffix(scheme, "-sentinel"), rest)
	}
	return nil, fmt.Errorf("unknown scheme %q: want redis, rediss, unix, redis-cluster, rediss-cluster, redis-sentinel or rediss-sentinel", scheme)
}

// Mode says what the URL names.
func (t *Target) Mode() Mode { return t.mode }

// Client opens a new client on the target; the caller closes it. For a
// cluster it follows the slots across the nodes; for Sentinel it asks the
// Sentinels for the master, and asks again after a failover.
func (t *Target) Client() redis.UniversalClient {
	switch t.mode {
	case Cluster:
		o := *t.cluster
		return redis.NewClusterClient(&o)
	case Sentinel:
		o := *t.failover
		return redis.NewFailoverClient(&o)
	}
	o := *t.server
	return redis.NewClient(&o)
}

// Asynq is the target as asynq's connection option: every asynq client,
// server, inspector or dashboard built on it opens its own client through
// Client.
func (t *Target) Asynq() asynq.RedisConnOpt { return connOpt{t} }

// String describes the target for logs, without credentials.
func (t *Target) String() string {
	switch t.mode {
	case Cluster:
		return "cluster " + strings.Join(t.cluster.Addrs, ",")
	case Sentinel:
		return fmt.Sprintf("sentinel master %q via %s, db %d", t.failover.MasterName,
			strings.Join(t.failover.SentinelAddrs, ","), t.failover.DB)
	}
	return fmt.Sprintf("server %s, db %d", t.server.Addr, t.server.DB)
}

// connOpt is a Target seen by asynq.
type connOpt struct{ t *Target }

func (c connOpt) MakeRedisClient() any { return c.t.Client() }

// Default ports.
const (
	redisPort    = "6379"
	sentinelPort = "26379"
)

// parseCluster reads the part of a redis-cluster URL after the scheme;
// base is redis or rediss.
func parseCluster(base, rest string) (*Target, error) {
	u, hosts, err := splitURL(base, rest, redisPort)
	if err != nil {
		return nil, err
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		return nil, fmt.Errorf("a cluster has only database 0: remove the path %q", "/"+p)
	}
	if err := refuse(u.Query(), "addr", "list every node before the path: host:port,host:port"); err != nil {
		return nil, err
	}
	o, err := redis.ParseClusterURL(base + "://" + hosts[0] + "?" + u.RawQuery)
	if err != nil {
		return nil, clean(err)
	}
	o.Addrs = hosts
	o.Username, o.Password = credentials(u)
	return &Target{mode: Cluster, cluster: o}, nil
}

// parseSentinel reads the part of a redis-sentinel URL after the scheme;
// base is redis or rediss.
func parseSentinel(base, rest string) (*Target, error) {
	u, hosts, err := splitURL(base, rest, sentinelPort)
	if err != nil {
		return nil, err
	}
	master := strings.Trim(u.Path, "/")
	if master == "" || strings.Contains(master, "/") {
		return nil, errors.New("name the master after the Sentinels' addresses: redis-sentinel://host:26379,host:26379/mymaster")
	}
	q := u.Query()
	for key, where := range map[string]string{
		"addr":        "list every Sentinel before the path: host:port,host:port",
		"master_name": "the master's name is the path",
		"username":    "the user name goes before the addresses (user:password@)",
		"password":    "the password goes before the addresses (user:password@)",
	} {
		if err := refuse(q, key, where); err != nil {
			return nil, err
		}
	}
	sentinelUser, sentinelPassword := q.Get("sentinel_username"), q.Get("sentinel_password")
	q.Del("sentinel_username")
	q.Del("sentinel_password")
	o, err := redis.ParseFailoverURL(base + "://" + hosts[0] + "/?" + q.Encode())
	if err != nil {
		return nil, clean(err)
	}
	o.MasterName = master
	o.SentinelAddrs = hosts
	o.Username, o.Password = credentials(u)
	o.SentinelUsername, o.SentinelPassword = sentinelUser, sentinelPassword
	return &Target{mode: Sentinel, failover: o}, nil
}

// splitURL reads [user:password@]host[:port][,host[:port]...][/path][?query]:
// the URL with its first host only (for its user, path and query), and
// every host as host:port, defaultPort where none is given.
func splitURL(base, rest, defaultPort string) (*url.URL, []string, error) {
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	userinfo, hostList := "", authority
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		userinfo, hostList = authority[:at+1], authority[at+1:]
	}
	var hosts []string
	for _, h := range strings.Split(hostList, ",") {
		addr, err := hostPort(h, defaultPort)
		if err != nil {
			return nil, nil, err
		}
		hosts = append(hosts, addr)
	}
	u, err := url.Parse(base + "://" + userinfo + hosts[0] + tail)
	if err != nil {
		return nil, nil, clean(err)
	}
	return u, hosts, nil
}

// hostPort checks one address of a list: host, host:port, [v6]:port.
func hostPort(h, defaultPort string) (string, error) {
	if h == "" {
		return "", errors.New("an empty address in the list of hosts")
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		// no port: a name, an IPv4 address or a bracketed IPv6 address
		host, port = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), defaultPort
		if strings.ContainsAny(host, "[]") || (strings.Contains(host, ":") && !strings.HasPrefix(h, "[")) {
			return "", fmt.Errorf("address %q: want host:port ([address]:port for IPv6)", h)
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" {
		return "", fmt.Errorf("address %q: want host:port with a port from 1 to 65535", h)
	}
	return net.JoinHostPort(host, port), nil
}

// refuse fails when the query sets key, which the URL says elsewhere.
func refuse(q url.Values, key, where string) error {
	if q.Has(key) {
		return fmt.Errorf("option %s: %s", key, where)
	}
	return nil
}

// credentials are the URL's user and password.
func credentials(u *url.URL) (user, password string) {
	if u.User == nil {
		return "", ""
	}
	password, _ = u.User.Password()
	return u.User.Username(), password
}

// clean drops the URL from a url.Parse error: it may hold a password.
func clean(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
