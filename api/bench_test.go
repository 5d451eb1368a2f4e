package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// benchRows is the size of the building_types table in the list benchmark.
const benchRows = 100_000

// benchQuery: a filter, a sort, fields, an include and perPage 50.
const benchQuery = "/buildings/types?filter[category_id]=7&sort=-description&fields=id,description,category_id&include[category]=id,description,color&perPage=50"

// BenchmarkTypesList measures the types list over loopback HTTP, through
// the whole API (auth, rate limit, parser, storage, envelope) and through a
// bare handler that runs the same SQL straight through pgx and encodes it
// with encoding/json, at 2 and 32 concurrent clients. It reports requests
// per second and p50/p99 latency.
func BenchmarkTypesList(b *testing.B) {
	pool := storagetest.NewDB(b)
	companyID, userID := seedBench(b, pool)
	rdb := redis.NewClient(storagetest.NewRedis(b).Options())
	defer rdb.Close()
	srv := New(Config{
		Store: storage.NewStore(pool, storage.DefaultRegistry()), Redis: rdb, RateLimit: 1 << 30,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	apiServer := httptest.NewServer(srv.Handler())
	defer apiServer.Close()
	bareServer := httptest.NewServer(bareTypesHandler(pool, companyID))
	defer bareServer.Close()
	key, err := storage.CreateAPIKey(context.Background(), pool, companyID, userID, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for _, clients := range []int{2, 32} {
		b.Run(fmt.Sprintf("api/clients=%d", clients), func(b *testing.B) {
			load(b, clients, apiServer.URL+benchQuery, key.Key)
		})
		b.Run(fmt.Sprintf("bare/clients=%d", clients), func(b *testing.B) {
			load(b, clients, bareServer.URL+benchQuery, "")
		})
	}
	b.Run("api/unfiltered/clients=2", func(b *testing.B) {
		load(b, 2, apiServer.URL+"/buildings/types?perPage=50", key.Key)
	})
	b.Run("api/unfiltered+withTotal/clients=2", func(b *testing.B) {
		load(b, 2, apiServer.URL+"/buildings/types?perPage=50&withTotal=true", key.Key)
	})
}

func seedBench(b *testing.B, pool *pgxpool.Pool) (companyID, userID int64) {
	ctx := context.Background()
	companyID, userID, err := storage.EnsureCompany(ctx, pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	stmts := []string{
		`INSERT INTO building_categories (company_id, description, color)
		 SELECT $1, 'Category ' || g, '#' || lpad(to_hex(g * 99), 6, '0') FROM generate_series(1, 100) g`,
		`INSERT INTO building_types (company_id, description, category_id)
		 SELECT $1, md5(g::text), 1 + g % 100 FROM generate_series(1, ` + fmt.Sprint(benchRows) + `) g`,
		`ANALYZE building_types`,
	}
	for _, s := range stmts {
		var args []any
		if s[0] == 'I' {
			args = []any{companyID}
		}
		if _, err := pool.Exec(ctx, s, args...); err != nil {
			b.Fatal(err)
		}
	}
	return companyID, userID
}

// load sends b.N GET requests from clients goroutines and reports
// throughput and latency percentiles.
func load(b *testing.B, clients int, url, key string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	var next atomic.Int64
	latencies := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	var failed atomic.Value
	b.ResetTimer()
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				if err := fetch(client, url, key); err != nil {
					failed.Store(err)
					return
				}
				latencies[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
}

func fetch(client *http.Client, url, key string) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d", url, res.StatusCode)
	}
	return nil
}

// bareTypesHandler is the baseline: the SQL the API runs for benchQuery,
// written by hand, through pgx, encoded with encoding/json.
func bareTypesHandler(pool *pgxpool.Pool, companyID int64) http.Handler {
	type category struct {
		ID          int64  `json:"id"`
		Description string `json:"description"`
		Color       string `json:"color"`
	}
	type buildingType struct {
		ID          int64     `json:"id"`
		Description *string   `json:"description"`
		CategoryID  int64     `json:"category_id"`
		Category    *category `json:"category"`
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		rows, err := pool.Query(ctx, `SELECT "id", "description", "category_id" FROM "building_types"
			WHERE company_id = $1 AND "category_id" = $2 ORDER BY "description" DESC, "id" LIMIT 51 OFFSET 0`, companyID, 7)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		var items []*buildingType
		var catIDs []int64
		for rows.Next() {
			var t buildingType
			if err := rows.Scan(&t.ID, &t.Description, &t.CategoryID); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			items = append(items, &t)
			catIDs = append(catIDs, t.CategoryID)
		}
		rows.Close()
		if len(items) > 50 {
			items = items[:50]
		}
		cats := map[int64]*category{}
		crows, err := pool.Query(ctx, `SELECT "id", "description", "color" FROM "building_categories"
			WHERE company_id = $1 AND "id" = any($2) ORDER BY "id"`, companyID, catIDs)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		for crows.Next() {
			var c category
			if err := crows.Scan(&c.ID, &c.Description, &c.Color); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			cats[c.ID] = &c
		}
		crows.Close()
		for _, t := range items {
			t.Category = cats[t.CategoryID]
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"return": true, "status": 200, "data": items}) //nolint:errcheck
	})
}
