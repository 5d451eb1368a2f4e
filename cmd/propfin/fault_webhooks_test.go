package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
)

// The receiver of TestReceiverKilledMidWay: the test binary serving
// webhook deliveries on an address, as a process of its own (so that
// kill -9 kills it), writing the webhook-id of every delivery whose
// signature verifies to a log file, synced before it answers 200.
const (
	beReceiver    = "PROPFIN_TEST_BE_RECEIVER"     // the address to listen on
	beReceiverLog = "PROPFIN_TEST_RECEIVER_LOG"    // the file of ids
	receiverKey   = "PROPFIN_TEST_RECEIVER_SECRET" // the endpoint's secret
)

func receiverMain(addr, logPath string) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wh, err := standardwebhooks.NewWebhook(os.Getenv(receiverKey))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	err = http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, 0, 1024)
		buf := make([]byte, 4096)
		for {
			n, err := r.Body.Read(buf)
			body = append(body, buf[:n]...)
			if err != nil {
				break
			}
		}
		if wh.Verify(body, r.Header) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		time.Sleep(5 * time.Millisecond) // a receiver that takes its time, so that the kill lands mid-way
		mu.Lock()
		fmt.Fprintln(f, r.Header.Get(webhook.HeaderID))
		err := f.Sync()
		mu.Unlock()
		if err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// receivedIDs reads the receiver's log: each webhook-id and how often.
func receivedIDs(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]int{}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); id != "" {
			out[id]++
		}
	}
	return out
}

// TestReceiverKilledMidWay: a real receiver process is killed (SIGKILL)
// while a real worker delivers 600 events to it, and started again on the
// same address 2 s later: every event is delivered (the log of the
// receiver holds every event id, each verified with the endpoint's
// secret), every delivery ends delivered, the deliveries made while it
// was down are retried with the same webhook-id, and none is lost;
// an id may come twice (a delivery the receiver wrote but could not
// answer: at least once, as Standard Webhooks says).
func TestReceiverKilledMidWay(t *testing.T) {
	t.Parallel()
	f := newFaultEnv(t, "PROPFIN_WEBHOOK_ALLOW_LOOPBACK=true", "PROPFIN_WORKER_CONCURRENCY=2")
	ctx := context.Background()
	company := f.company(t, "Receptor", "America/Sao_Paulo")
	addr := freeAddr(t)
	logPath := filepath.Join(t.TempDir(), "received.log")
	secret := webhook.NewSecret()
	renv := []string{beReceiver + "=" + addr, beReceiverLog + "=" + logPath, receiverKey + "=" + secret}
	var endpoint int64
	if err := f.pool.QueryRow(ctx, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, $2, '{ping}', $3) RETURNING id`,
		company, "http://"+addr+"/hooks", secret).Scan(&endpoint); err != nil {
		t.Fatal(err)
	}
	const n = 600
	events := map[string]bool{}
	for range n {
		if _, err := storage.EmitPing(ctx, f.pool, company, endpoint); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := f.pool.Query(ctx, `SELECT id FROM webhook_events WHERE company_id = $1`, company)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id) //nolint:errcheck // checked by the count below
		events[strconv.FormatInt(id, 10)] = true
	}
	rows.Close()
	if len(events) != n {
		t.Fatalf("%d events, want %d", len(events), n)
	}
	receiver := startBinary(t, "receiver 1", mustExecutable(t), renv)
	waitTCP(t, addr)
	startProc(t, "worker", f.env, "worker")
	eventually(t, 60*time.Second, "a sixth of the deliveries made", func() error {
		if got := len(receivedIDs(t, logPath)); got < n/6 {
			return fmt.Errorf("%d received", got)
		}
		return nil
	})
	receiver.kill()
	atKill := len(receivedIDs(t, logPath))
	time.Sleep(2 * time.Second)
	startBinary(t, "receiver 2", mustExecutable(t), renv)
	eventually(t, 3*time.Minute, "every delivery delivered", func() error {
		var open int
		if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE company_id = $1 AND status <> 'delivered'`,
			company).Scan(&open); err != nil {
			return err
		}
		if open > 0 {
			return fmt.Errorf("%d deliveries not delivered", open)
		}
		return nil
	})
	got := receivedIDs(t, logPath)
	twice := 0
	for id := range events {
		switch got[id] {
		case 0:
			t.Errorf("event %s never reached the receiver", id)
		case 1:
		default:
			twice++
		}
	}
	if atKill >= n {
		t.Fatalf("the kill came after every delivery (%d): it tested nothing", atKill)
	}
	var retried int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE company_id = $1 AND attempts > 1`, company).Scan(&retried); err != nil {
		t.Fatal(err)
	}
	if retried == 0 {
		t.Error("no delivery was retried: the receiver's death went unseen")
	}
	t.Logf("killed after %d of %d; %d deliveries retried; %d events received twice; all %d delivered", atKill, n, retried, twice, n)
}

func mustExecutable(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// waitTCP waits until addr answers HTTP.
func waitTCP(t *testing.T, addr string) {
	t.Helper()
	eventually(t, 10*time.Second, addr+" to listen", func() error {
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
}
