package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage/pgcluster"
)

// TestDevEndToEnd runs `propfin dev` as the README says, on a fresh data
// folder: it must print the key, the admin token, the address and the
// dashboard's, the mail page and whom reminders are from (the demo
// company's name, and how to change it), answer with that key, open the dashboard with that token,
// let `apikey create --data-dir` work beside it, and stop cleanly.
func TestDevEndToEnd(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("REDIS_URL", "")
	t.Setenv("PROPFIN_ADMIN_TOKEN", "")
	t.Setenv("PROPFIN_METRICS_ADDR", "")
	t.Setenv("PROPFIN_JOB_RETENTION", "96h")
	t.Setenv("PROPFIN_WEBHOOK_RETENTION", "120h")
	t.Setenv("PROPFIN_SMTP_URL", "")
	t.Setenv("PROPFIN_SMTP_FROM", "")
	tmp := t.TempDir()
	// the cluster may run as another user (postgres, when tests run as root)
	for _, dir := range []string{filepath.Dir(tmp), tmp} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dataDir := filepath.Join(tmp, "propfin-data")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"dev", "--data-dir", dataDir, "--addr", "127.0.0.1:0"}, strings.NewReader(""), outW, &errOut)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	shown := map[string]string{} // the value after each label
	labels := []string{"API key", "Admin token", "Listening on", "Dashboard", "Mail", "Reminders from"}
	for _, label := range labels {
		if !lines.Scan() {
			t.Fatalf("dev ended before printing %q (exit %d):\n%s", label, <-done, errOut.String())
		}
		value, ok := strings.CutPrefix(lines.Text(), label+": ")
		if label == "Listening on" {
			value, ok = strings.CutPrefix(lines.Text(), label+" ")
		}
		if !ok {
			t.Fatalf("line %q, want %q next (in the order %q)", lines.Text(), label, labels)
		}
		shown[label] = value
	}
	go io.Copy(io.Discard, outR) //nolint:errcheck
	key, token, addr := shown["API key"], shown["Admin token"], shown["Listening on"]
	if len(token) != 64 {
		t.Errorf("admin token %q: want 32 random bytes in hex", token)
	}
	if shown["Dashboard"] != addr+"/monitoring/" {
		t.Errorf("Dashboard: %q, want %q", shown["Dashboard"], addr+"/monitoring/")
	}
	devDashboard(t, shown["Dashboard"], token)
	if mailPage, _, _ := strings.Cut(shown["Mail"], " "); mailPage != addr+"/dev/mail" {
		t.Errorf("Mail: %q, want %s/dev/mail first", shown["Mail"], addr)
	} else if res, err := http.Get(mailPage); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %v %v", mailPage, res, err)
	} else {
		res.Body.Close()
	}
	const howTo = `; PUT /financial/settings {"reminders_sender_name": "..."} changes it)`
	if want := "Demo Imobiliária <cobranca@propfin.localhost> (the company's name" + howTo; shown["Reminders from"] != want {
		t.Errorf("Reminders from: %q, want %q", shown["Reminders from"], want)
	}
	devJobAndMetrics(t, addr, key, token)
	devPut(t, addr+"/financial/settings", key, `{"reminders_sender_name": "Horizonte Imóveis"}`)
	devPruneCutoffs(t, addr, key, 96*time.Hour, 120*time.Hour)

	req, _ := http.NewRequest(http.MethodGet, addr+"/buildings/types", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET /buildings/types with the printed key: %d", res.StatusCode)
	}

	var out strings.Builder
	if code := run(context.Background(), []string{"apikey", "create", "--company", "Second Co", "--create-company", "--reason", "test", "--data-dir", dataDir}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("apikey create beside dev: exit %d", code)
	}
	printed := strings.Split(strings.TrimSpace(out.String()), "\n")
	newKey := printed[len(printed)-1]
	if !strings.HasPrefix(newKey, "pf_") {
		t.Fatalf("last line is not a key: %q", out.String())
	}
	req.Header.Set("Authorization", "Bearer "+newKey)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("the new key: %d", res.StatusCode)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("dev exited %d on interrupt", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("dev did not stop")
	}

	// a second run reuses the folder: same cluster, same demo key
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	var out2 syncBuffer
	done2 := make(chan int, 1)
	go func() {
		done2 <- run(ctx2, []string{"dev", "--data-dir", dataDir, "--addr", "127.0.0.1:0"}, nil, &out2, io.Discard)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out2.String(), "Reminders from") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out2.String(), "API key: "+key+"\nAdmin token: "+token+"\n") {
		t.Errorf("second run printed %q, want the same demo key and admin token", out2.String())
	}
	if want := "Reminders from: Horizonte Imóveis <cobranca@propfin.localhost> (its reminders_sender_name" + howTo + "\n"; !strings.Contains(out2.String(), want) {
		t.Errorf("second run printed %q, want %q", out2.String(), want)
	}
	cancel2()
	if code := <-done2; code != 0 {
		t.Errorf("second dev run exited %d", code)
	}
}

// devPut sends a JSON body with PUT and wants a 200.
func devPut(t *testing.T, url, key, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("PUT %s %s: %d %s", url, body, res.StatusCode, answer)
	}
}

// devJobAndMetrics submits a bulk PIX validation to the dev server, waits
// for its worker to finish it, and finds the job platform's series in
// /metrics.
func devJobAndMetrics(t *testing.T, addr, key, token string) {
	t.Helper()
	payloads, broken := fakePayloads(t, 150)
	body, _ := json.Marshal(map[string]any{"payloads": payloads})
	var result jobs.PixJobResult
	devRunJob(t, addr, key, "/pix/validate", string(body), &result)
	if result.Total != 150 || result.Invalid != len(broken) {
		t.Errorf("result %+v, want 150 payloads with %d invalid", result, len(broken))
	}
	// the queues' sizes are read from Redis at each scrape: the dev
	// scheduler's nightly runs may be waiting in them for a moment
	eventually(t, 30*time.Second, "/metrics to show the job and empty queues", func() error {
		req, _ := http.NewRequest(http.MethodGet, addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		metrics, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for _, series := range []string{
			`propfin_jobs_finished_total{kind="pix:validate",state="succeeded"} 1`,
			`propfin_job_duration_seconds_count{kind="pix:validate"} 1`,
			`propfin_queue_size{queue="default",state="pending"} 0`,
			`propfin_queue_size{queue="critical",state="archived"} 0`,
			`propfin_outbox_oldest_pending_seconds 0`,
			`propfin_http_requests_total{method="POST",route="/pix/validate",status="202"} 1`,
			`propfin_db_pool_max_conns`,
		} {
			if !strings.Contains(string(metrics), series) {
				return fmt.Errorf("/metrics lacks %s", series)
			}
		}
		return nil
	})
}

// devDashboard checks the dashboard answers 401 without the admin token
// and its page with it.
func devDashboard(t *testing.T, url, token string) {
	t.Helper()
	for _, c := range []struct {
		token  string
		status int
	}{{"", http.StatusUnauthorized}, {"not-" + token, http.StatusUnauthorized}, {token, http.StatusOK}} {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if c.token != "" {
			req.SetBasicAuth("dev", c.token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status {
			t.Errorf("GET %s with token %q: %d, want %d", url, c.token, res.StatusCode, c.status)
		}
		if c.status == http.StatusOK && !strings.Contains(string(body), "<title>Asynq - Monitoring</title>") {
			t.Errorf("GET %s: not the dashboard: %.200s", url, body)
		}
	}
}

// TestDevAdoptsAnOrphanedCluster: a cluster left running by a dev run
// that died is adopted, and stopped when this run ends.
func TestDevAdoptsAnOrphanedCluster(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("REDIS_URL", "")
	tmp := t.TempDir()
	for _, dir := range []string{filepath.Dir(tmp), tmp} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dataDir := filepath.Join(tmp, "data")
	// the leftover of a crash: the cluster runs, its recorded owner is gone
	orphan, err := pgcluster.Start(context.Background(), pgcluster.Options{DataDir: filepath.Join(dataDir, "pg")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { orphan.Stop(context.Background()) }) //nolint:errcheck // normally stopped by dev already
	if err := os.WriteFile(filepath.Join(dataDir, ownerFile), []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"dev", "--data-dir", dataDir, "--addr", "127.0.0.1:0"}, nil, &out, io.Discard)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), "Listening on") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("dev exited %d", code)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "pg", "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the adopted cluster still runs after dev stopped (postmaster.pid: %v)", err)
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"serve", "-h"}, {"dev", "-h"}, {"apikey", "create", "-h"}} {
		if code := run(context.Background(), args, nil, io.Discard, io.Discard); code != 0 {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

// TestDevStopsWhenTheMetricsPortIsTaken: dev ends with an error, its
// worker and scheduler with it, instead of hanging.
func TestDevStopsWhenTheMetricsPortIsTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	t.Setenv("DATABASE_URL", "")
	t.Setenv("REDIS_URL", "")
	t.Setenv("PROPFIN_METRICS_ADDR", taken.Addr().String())
	tmp := t.TempDir()
	for _, dir := range []string{filepath.Dir(tmp), tmp} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan int, 1)
	var errOut syncBuffer
	go func() {
		done <- run(context.Background(), []string{"dev", "--data-dir", filepath.Join(tmp, "data"), "--addr", "127.0.0.1:0"}, nil, io.Discard, &errOut)
	}()
	select {
	case code := <-done:
		if code == 0 || !strings.Contains(errOut.String(), "PROPFIN_METRICS_ADDR: listen on ") {
			t.Errorf("exit %d, stderr %q; want a failure naming the metrics listener", code, tail(errOut.String(), 5))
		}
	case <-time.After(90 * time.Second):
		t.Fatal("dev hangs when its metrics port is taken")
	}
}

// devPruneCutoffs runs jobs:prune on the dev server and checks that its
// cutoffs are the retentions set in its environment
// (PROPFIN_JOB_RETENTION, PROPFIN_WEBHOOK_RETENTION) back from now.
func devPruneCutoffs(t *testing.T, addr, key string, jobRetention, webhookRetention time.Duration) {
	t.Helper()
	var result struct {
		FinishedBefore string `json:"finished_before"`
		EventsBefore   string `json:"events_before"`
	}
	submitted := time.Now()
	devRunJob(t, addr, key, "/jobs", `{"kind":"jobs:prune","payload":{"date":"`+time.Now().Format(time.DateOnly)+`"}}`, &result)
	for _, c := range []struct {
		name, value string
		retention   time.Duration
	}{
		{"finished_before", result.FinishedBefore, jobRetention},
		{"events_before", result.EventsBefore, webhookRetention},
	} {
		cutoff, err := time.ParseInLocation(time.DateTime, c.value, time.UTC)
		if back := submitted.Sub(cutoff); err != nil || back < c.retention-time.Minute || back > c.retention+time.Minute {
			t.Errorf("%s %q (%v): want %v before the run", c.name, c.value, err, c.retention)
		}
	}
}

// devRunJob posts body to path on the dev server, which answers a job
// (202, or 200 for a run of the same key submitted already, the dev
// scheduler's), waits for the job to succeed and decodes its result into
// result.
func devRunJob(t *testing.T, addr, key, path, body string, result any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, addr+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	location := res.Header.Get("Location")
	if (res.StatusCode != http.StatusAccepted && res.StatusCode != http.StatusOK) || !strings.HasPrefix(location, "/jobs/") {
		t.Fatalf("POST %s: %d, Location %q", path, res.StatusCode, location)
	}
	var job struct {
		Data struct {
			State  string          `json:"state"`
			Result json.RawMessage `json:"result"`
		} `json:"data"`
	}
	eventually(t, 30*time.Second, "the dev worker to run the job of "+path, func() error {
		req, _ := http.NewRequest(http.MethodGet, addr+location, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if err := json.NewDecoder(res.Body).Decode(&job); err != nil {
			return err
		}
		if job.Data.State != "succeeded" {
			return fmt.Errorf("state %s", job.Data.State)
		}
		return nil
	})
	if err := json.Unmarshal(job.Data.Result, result); err != nil {
		t.Fatalf("the result of %s: %v", path, err)
	}
}
