package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// testEnv is a running API over a test database of its own, with two
// companies (A and B) and a key for each.
type testEnv struct {
	url     string
	pool    *pgxpool.Pool
	redis   *miniredis.Miniredis
	keyA    string
	keyB    string
	compA   int64
	compB   int64
	handler http.Handler
	srv     *Server
	// answers holds every answer do receives to the server's OpenAPI
	// document (answers_test.go).
	answers *answerChecker
}

type envOption func(*Config, *Server)

// withRateLimit sets the requests per minute per key.
func withRateLimit(n int) envOption {
	return func(c *Config, _ *Server) { c.RateLimit = n }
}

// withAuthFailureLimit sets the failed authentications per minute per address.
func withAuthFailureLimit(n int) envOption {
	return func(c *Config, _ *Server) { c.AuthFailureLimit = n }
}

// withRedisServer puts the limiters on a Redis of the test's own: a real
// redis-server when the machine has one (see storagetest.NewRedis).
func withRedisServer(t testing.TB) envOption {
	r := storagetest.NewRedis(t)
	return func(c *Config, _ *Server) {
		c.Redis = r.Client(t)
	}
}

// withTestResource mounts the test-only resource of testResource() at /test/things.
func withTestResource() envOption {
	return withRoute("/test/things", "test_things")
}

// withRoute mounts the CRUD routes of a declared resource at path.
func withRoute(path, resource string) envOption {
	return func(_ *Config, s *Server) {
		s.routes = append(append([]route{}, s.routes...), route{path: path, resource: resource})
	}
}

func setup(t testing.TB, opts ...envOption) *testEnv {
	t.Helper()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })

	createTestTable(t, pool)
	reg, err := storage.NewRegistry(append(storage.Resources(), testResources()...)...)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Store: storage.NewStore(pool, reg), Redis: rdb, RateLimit: 100000,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	srv := New(cfg)
	for _, o := range opts {
		o(&cfg, srv)
	}
	srv.redis = cfg.Redis
	srv.limiter = newRateLimiter(cfg.Redis, cfg.RateLimit, cfg.Logger)
	srv.failures = newFailureLimiter(cfg.Redis, cfg.AuthFailureLimit, cfg.Logger)
	srv.metrics = newHTTPMetrics(cfg.Metrics)
	srv.console = newOperatorConsole(cfg)
	env := &testEnv{pool: pool, redis: mr, handler: srv.Handler(), srv: srv}
	if env.answers, err = answerCheckerOf(srv); err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	env.compA, env.keyA = newCompanyKey(t, pool, "Company A")
	env.compB, env.keyB = newCompanyKey(t, pool, "Company B")
	ts := httptest.NewServer(env.handler)
	t.Cleanup(ts.Close)
	env.url = ts.URL
	_ = ctx
	return env
}

func newCompanyKey(t testing.TB, pool *pgxpool.Pool, name string) (int64, string) {
	t.Helper()
	ctx := context.Background()
	companyID, userID, err := storage.EnsureCompany(ctx, pool, name)
	if err != nil {
		t.Fatal(err)
	}
	key, err := storage.CreateAPIKey(ctx, pool, companyID, userID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return companyID, key.Key
}

// response is a decoded API answer.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (e *testEnv) do(t *testing.T, method, path, key string, body any) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		if s, ok := body.(string); ok {
			rd = strings.NewReader(s)
		} else {
			b, err := json.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			rd = bytes.NewReader(b)
		}
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := response{status: res.StatusCode, header: res.Header, raw: string(raw)}
	if e.answers != nil {
		target, _, _ := strings.Cut(path, "?")
		if p := e.answers.problem(method, target, r.status, res.Header, raw); p != "" {
			t.Errorf("%s %s: %d: the answer does not fit the OpenAPI document: %s\n%.1000s", method, path, r.status, p, raw)
		}
	}
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&r.body); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %v\n%s", method, path, err, raw)
		}
	}
	return r
}

// get is do GET with company A's key, expecting status.
func (e *testEnv) get(t *testing.T, path string, status int) response {
	t.Helper()
	r := e.do(t, http.MethodGet, path, e.keyA, nil)
	if r.status != status {
		t.Fatalf("GET %s: status %d, want %d\n%s", path, r.status, status, r.raw)
	}
	return r
}

// exec runs SQL fixtures.
func (e *testEnv) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("fixture %q: %v", sql, err)
	}
}

func (r response) data(t *testing.T) []map[string]any {
	t.Helper()
	items, ok := r.body["data"].([]any)
	if !ok {
		t.Fatalf("no data array in %s", r.raw)
	}
	out := make([]map[string]any, len(items))
	for i, it := range items {
		out[i] = it.(map[string]any)
	}
	return out
}

func (r response) record(t *testing.T) map[string]any {
	t.Helper()
	rec, ok := r.body["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %s", r.raw)
	}
	return rec
}

// ids lists the id of every item of a list response.
func (r response) ids(t *testing.T) []int64 {
	t.Helper()
	var ids []int64
	for _, item := range r.data(t) {
		ids = append(ids, num(t, item["id"]))
	}
	return ids
}

func num(t *testing.T, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// problemFields lists the field of every item of an error response.
func (r response) problemFields(t *testing.T) []string {
	t.Helper()
	items, ok := r.body["errors"].([]any)
	if !ok {
		t.Fatalf("no errors array in %s", r.raw)
	}
	var fields []string
	for _, it := range items {
		fields = append(fields, it.(map[string]any)["field"].(string))
	}
	return fields
}

// problemMessages are the messages of a refusal's errors, in order.
func (r response) problemMessages(t *testing.T) []string {
	t.Helper()
	items, ok := r.body["errors"].([]any)
	if !ok {
		t.Fatalf("no errors array in %s", r.raw)
	}
	var messages []string
	for _, it := range items {
		messages = append(messages, it.(map[string]any)["message"].(string))
	}
	return messages
}

// testResource is a resource declared only in the tests, with every column
// type and In-filters of text, integers, dates and an enum, over the table
// createTestTable makes.
func testResource() *storage.Resource {
	kindOfIn := storage.ColumnIn("kindOfIn", "kind", storage.String)
	kindOfIn.Enum = []string{"rent", "sale"}
	return &storage.Resource{
		Name: "test_things", Table: "test_things", CustomFields: true,
		Columns: []storage.Column{
			{Name: "id", Type: storage.Int, Filterable: true},
			{Name: "title", Type: storage.String, Filterable: true, Writable: true, Required: true},
			{Name: "day", Type: storage.Date, Filterable: true, Writable: true},
			{Name: "amount", Type: storage.Decimal, Filterable: true, Writable: true, Precision: 14, Scale: 2},
			{Name: "active", Type: storage.Bool, Filterable: true, Writable: true},
			{Name: "kind", Type: storage.String, Filterable: true, Writable: true},
			{Name: "happened_at", Type: storage.DateTime, Filterable: true, Writable: true},
			{Name: "category_id", Type: storage.Int, Filterable: true, Writable: true, References: storage.BuildingCategories},
		},
		Relations: []storage.Relation{
			{Name: "category", Kind: storage.BelongsTo, Resource: storage.BuildingCategories, Key: "category_id"},
		},
		Filters: []storage.SpecialFilter{
			storage.ColumnIn("kindIn", "kind", storage.String),
			storage.ColumnIn("categoryIn", "category_id", storage.Int),
			storage.ColumnNotIn("kindNotIn", "kind", storage.String),
			storage.ColumnIn("dayIn", "day", storage.Date),
			kindOfIn,
		},
	}
}

func createTestTable(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `CREATE TABLE test_things (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED ALWAYS AS IDENTITY,
		title text NOT NULL,
		day date,
		amount numeric(14,2),
		active boolean,
		kind text,
		happened_at timestamptz,
		category_id bigint,
		custom_fields jsonb NOT NULL DEFAULT '{}',
		created_at timestamptz NOT NULL DEFAULT now(),
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (company_id, id),
		FOREIGN KEY (company_id, category_id) REFERENCES building_categories (company_id, id))`)
	if err != nil {
		t.Fatal(err)
	}
	createMachineryTables(t, pool)
	createWriteTables(t, pool)
}
