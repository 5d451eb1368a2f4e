package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestServeFinishesRequestsInFlight: when the context ends (SIGTERM), the
// server stops taking connections and the request in flight completes.
func TestServeFinishesRequestsInFlight(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		w.Write([]byte("done")) //nolint:errcheck
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveAPI(ctx, ln, h, slog.New(slog.NewTextHandler(io.Discard, nil))) }()

	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		res, err := http.Get("http://" + ln.Addr().String())
		if err != nil {
			got <- result{err: err}
			return
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		got <- result{string(b), err}
	}()
	<-started
	cancel() // as SIGTERM does through signal.NotifyContext
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			break // no longer accepting
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still accepting connections after shutdown began")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if r := <-got; r.err != nil || r.body != "done" {
		t.Errorf("request in flight: %q %v", r.body, r.err)
	}
	if err := <-served; err != nil {
		t.Errorf("serveAPI: %v", err)
	}
}

// TestServeOperations runs `propfin serve` with an admin token: the
// dashboard on REDIS_URL and the metrics answer behind it, or the metrics
// answer on PROPFIN_METRICS_ADDR without credential and not on the API.
func TestServeOperations(t *testing.T) {
	const token = "serve-test-admin-token-0123456789"
	cases := []struct {
		name        string
		metricsAddr string
	}{
		{"metrics on the API", ""},
		{"metrics on their own address", freeAddr(t)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mr := miniredis.RunT(t)
			t.Setenv("DATABASE_URL", storagetest.URL(t))
			t.Setenv("REDIS_URL", "redis://"+mr.Addr()+"/0")
			t.Setenv("PROPFIN_ADDR", "127.0.0.1:0")
			t.Setenv("PROPFIN_ADMIN_TOKEN", token)
			t.Setenv("PROPFIN_METRICS_ADDR", c.metricsAddr)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var logs syncBuffer
			done := make(chan int, 1)
			go func() { done <- run(ctx, []string{"serve"}, nil, io.Discard, &logs) }()
			api := "http://" + listeningOn(t, &logs, "")

			if got := get(t, api+"/dev/mail", ""); got.status != http.StatusNotFound {
				t.Errorf("serve answers /dev/mail %d: only dev serves the mail page", got.status)
			}
			if got := get(t, api+"/monitoring/", ""); got.status != http.StatusUnauthorized {
				t.Errorf("dashboard without token: %d", got.status)
			}
			if got := get(t, api+"/monitoring/", token); got.status != http.StatusOK || !strings.Contains(got.body, "<title>Asynq - Monitoring</title>") {
				t.Errorf("dashboard with token: %d %.200s", got.status, got.body)
			}
			if got := get(t, api+"/monitoring/api/queues", token); got.status != http.StatusOK || !strings.Contains(got.body, `"queues"`) {
				t.Errorf("dashboard API on REDIS_URL: %d %s", got.status, got.body)
			}

			metrics, cred := api+"/metrics", token
			if c.metricsAddr == "" {
				if got := get(t, metrics, ""); got.status != http.StatusUnauthorized {
					t.Errorf("/metrics on the API without token: %d", got.status)
				}
			} else {
				if got := get(t, metrics, token); got.status != http.StatusNotFound {
					t.Errorf("/metrics on the API beside PROPFIN_METRICS_ADDR: %d", got.status)
				}
				own := "http://" + listeningOn(t, &logs, "metrics")
				if got := get(t, own+"/healthz", ""); got.status != http.StatusNotFound {
					t.Errorf("the metrics listener serves %s: %d", own+"/healthz", got.status)
				}
				metrics, cred = own+"/metrics", ""
			}
			got := get(t, metrics, cred)
			for _, want := range []string{
				"go_goroutines ", "process_cpu_seconds_total ", "propfin_db_pool_max_conns ",
				`propfin_http_requests_total{method="GET",route="/monitoring/*path",status="200"} 2`,
				`propfin_http_requests_total{method="GET",route="/monitoring/*path",status="401"} 1`,
			} {
				if got.status != http.StatusOK || !strings.Contains(got.body, want) {
					t.Errorf("%s: %d, lacks %s", metrics, got.status, want)
				}
			}

			cancel()
			select {
			case code := <-done:
				if code != 0 {
					t.Errorf("serve exited %d:\n%s", code, logs.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatal("serve did not stop")
			}
			if c.metricsAddr != "" {
				if conn, err := net.Dial("tcp", c.metricsAddr); err == nil {
					conn.Close()
					t.Error("the metrics listener still accepts connections")
				}
			}
		})
	}
}

// freeAddr is a loopback address no one listens on (for a moment).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// listeningOn waits for serve's "listening" log line of listener ("" for
// the API) and returns its address.
func listeningOn(t *testing.T, logs *syncBuffer, listener string) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(logs.String(), "\n") {
			var entry struct{ Msg, Addr, Listener string }
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "listening" && entry.Listener == listener {
				return entry.Addr
			}
		}
	}
	t.Fatalf("no listening line for %q:\n%s", listener, logs.String())
	return ""
}

type answer struct {
	status int
	body   string
}

// get requests url, with token as bearer when given.
func get(t *testing.T, url, token string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, string(body)}
}

func TestAdminTokenConfig(t *testing.T) {
	cases := []struct {
		token string
		ok    bool
	}{
		{"", true},
		{"short", false},
		{"fifteen-chars-x", false},
		{"sixteen-chars-xx", true},
		{"ana:sixteen-chars-xx,ci:other-sixteen-chars", true},
		{"ana:sixteen-chars-xx, ana:other-sixteen-chars", false}, // a label twice
		{"ana:sixteen-chars-xx,ci:sixteen-chars-xx", false},      // a token twice
		{"ana:short,ci:other-sixteen-chars", false},              // each token is long enough
		{"ana:sixteen-chars-xx,,ci:other-sixteen-chars", false},  // an empty entry
	}
	for _, c := range cases {
		t.Setenv("PROPFIN_ADMIN_TOKEN", c.token)
		cfg, err := loadConfig()
		if (err == nil) != c.ok {
			t.Errorf("%q: %v", c.token, err)
		}
		if err == nil && cfg.AdminToken != c.token {
			t.Errorf("%q: AdminToken %q", c.token, cfg.AdminToken)
		}
	}
}

// TestOperatorWebhookConfig: an operator webhook needs an http(s) URL and
// a whsec_ secret; without a URL there is no sender.
func TestOperatorWebhookConfig(t *testing.T) {
	secret := webhook.NewSecret()
	for _, c := range []struct {
		url, secret string
		ok, sender  bool
	}{
		{"", "", true, false},
		{"https://alerts.example.com/propfin", secret, true, true},
		{"http://10.0.0.5:9093/hook", secret, true, true},
		{"https://alerts.example.com/propfin", "", false, false},
		{"https://alerts.example.com/propfin", "not-a-secret", false, false},
		{"alerts.example.com", secret, false, false},
	} {
		t.Setenv("PROPFIN_OPERATOR_WEBHOOK_URL", c.url)
		t.Setenv("PROPFIN_OPERATOR_WEBHOOK_SECRET", c.secret)
		cfg, err := loadConfig()
		if (err == nil) != c.ok {
			t.Errorf("%q %q: %v", c.url, c.secret, err)
			continue
		}
		if err == nil && (cfg.alertSender() != nil) != c.sender {
			t.Errorf("%q: a sender %v, want %v", c.url, cfg.alertSender() != nil, c.sender)
		}
	}
}

// TestServeReadsFromTheReplica: with DATABASE_REPLICA_URL, serve lists
// from that database and writes to DATABASE_URL; a replica that does not
// answer stops serve at start, naming the variable. The "replica" is a
// second database holding other rows.
func TestServeReadsFromTheReplica(t *testing.T) {
	primaryURL := storagetest.URL(t)
	primary := storagetest.NewDB(t)
	t.Run("replica", func(t *testing.T) { // a subtest has a database of its own
		replica := storagetest.NewDB(t)
		ctx := context.Background()
		company, user, err := storage.EnsureCompany(ctx, primary, "Replica Serve")
		if err != nil {
			t.Fatal(err)
		}
		if id, _, err := storage.EnsureCompany(ctx, replica, "Replica Serve"); err != nil || id != company {
			t.Fatalf("the company is %d on the replica, %d on the primary (%v)", id, company, err)
		}
		key, err := storage.CreateAPIKey(ctx, primary, company, user, "replica")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := replica.Exec(ctx, `INSERT INTO building_categories (company_id, description, color)
			VALUES ($1, 'on the replica', '#ffffff')`, company); err != nil {
			t.Fatal(err)
		}
		mr := miniredis.RunT(t)
		t.Setenv("DATABASE_URL", primaryURL)
		t.Setenv("DATABASE_REPLICA_URL", storagetest.URL(t))
		t.Setenv("REDIS_URL", "redis://"+mr.Addr())
		t.Setenv("PROPFIN_ADDR", "127.0.0.1:0")
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var logs syncBuffer
		done := make(chan int, 1)
		go func() { done <- run(ctx, []string{"serve"}, nil, io.Discard, &logs) }()
		api := "http://" + listeningOn(t, &logs, "")

		req, _ := http.NewRequest(http.MethodPost, api+"/buildings/categories",
			strings.NewReader(`{"description":"on the primary","color":"#000000"}`))
		req.Header.Set("Authorization", "Bearer "+key.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		var written int
		primary.QueryRow(ctx, `SELECT count(*) FROM building_categories WHERE description = 'on the primary'`).Scan(&written) //nolint:errcheck // compared below
		if res.StatusCode != http.StatusCreated || written != 1 {
			t.Errorf("POST answered %d and wrote %d rows on the primary", res.StatusCode, written)
		}
		if got := get(t, api+"/buildings/categories", key.Key); got.status != http.StatusOK ||
			!strings.Contains(got.body, "on the replica") || strings.Contains(got.body, "on the primary") {
			t.Errorf("the list is not the replica's: %d %s", got.status, got.body)
		}
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d:\n%s", code, logs.String())
		}
	})
	t.Run("replica does not answer", func(t *testing.T) {
		t.Setenv("DATABASE_URL", primaryURL)
		t.Setenv("DATABASE_REPLICA_URL", "postgres://127.0.0.1:1/propfin?connect_timeout=2")
		t.Setenv("REDIS_URL", "redis://"+miniredis.RunT(t).Addr())
		var stderr syncBuffer
		if code := run(context.Background(), []string{"serve"}, nil, io.Discard, &stderr); code != 1 ||
			!strings.Contains(stderr.String(), "DATABASE_REPLICA_URL") {
			t.Errorf("serve exited %d:\n%s", code, stderr.String())
		}
	})
}
