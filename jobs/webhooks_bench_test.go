package jobs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// BenchmarkDeliveries measures webhook deliveries per second to a local
// receiver through the whole platform (the events written with their
// deliveries and jobs, the relay, the dedicated webhooks queue, the
// signed POST, the attempt recorded), to one endpoint and spread over ten,
// beside bare HTTP POSTs of the same bodies to the same receiver with the
// same concurrency, in the same run: the ratio is the cost of the outbox,
// the signature and the bookkeeping. b.N is the number of deliveries.
//
//	go test -run '^$' -bench Deliveries -benchtime 3000x ./jobs
func BenchmarkDeliveries(b *testing.B) {
	for _, c := range []struct{ endpoints, limit int }{{1, DefaultEndpointConcurrency}, {10, DefaultEndpointConcurrency}, {1, 16}} {
		b.Run(fmt.Sprintf("platform/endpoints=%d/limit=%d", c.endpoints, c.limit), func(b *testing.B) { benchDeliveries(b, c.endpoints, c.limit) })
	}
	b.Run("bare-http", benchBarePosts)
}

// benchConcurrencyWebhooks is the webhooks queue's concurrency in the
// benchmark, and the bare POSTs' concurrency.
const benchConcurrencyWebhooks = 16

func benchReceiver(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // a test server
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func benchDeliveries(b *testing.B, endpoints, limit int) {
	ctx := context.Background()
	pool := storagetest.NewDB(b)
	company := newCompany(b, pool, "Bench")
	srv := benchReceiver(b)
	ids := make([]int64, endpoints)
	for i := range ids {
		secret := webhook.NewSecret()
		if err := pool.QueryRow(ctx, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, $2, '{*}', $3) RETURNING id`,
			company, fmt.Sprintf("%s/%d", srv.URL, i), secret).Scan(&ids[i]); err != nil {
			b.Fatal(err)
		}
	}
	for i := range b.N {
		if _, err := storage.EmitPing(ctx, pool, company, ids[i%endpoints]); err != nil {
			b.Fatal(err)
		}
	}
	kinds, err := Kinds(KindsConfig{Webhooks: WebhooksConfig{Policy: webhook.Policy{AllowLoopback: true}, EndpointConcurrency: limit}})
	if err != nil {
		b.Fatal(err)
	}
	r := storagetest.NewRedis(b)
	p := &platform{pool: pool, redis: r, kinds: kinds}
	b.ResetTimer()
	start := time.Now()
	p.run(b, func(w *WorkerConfig, _ *RelayConfig) {
		w.Dedicated = map[string]int{QueueWebhooks: benchConcurrencyWebhooks}
		w.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	})
	for {
		var open int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE company_id = $1 AND status <> 'delivered'`,
			company).Scan(&open); err != nil {
			b.Fatal(err)
		}
		if open == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
}

func benchBarePosts(b *testing.B) {
	srv := benchReceiver(b)
	body := bytes.Repeat([]byte("x"), 600) // about a ping's size
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: benchConcurrencyWebhooks}}
	next := make(chan int)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range benchConcurrencyWebhooks {
		wg.Go(func() {
			for range next {
				resp, err := client.Post(srv.URL, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body) //nolint:errcheck // a benchmark
				resp.Body.Close()
			}
		})
	}
	for i := range b.N {
		next <- i
	}
	close(next)
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
}
