package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct{ name, header string }{
		{"missing", ""},
		{"not bearer", "Basic " + e.keyA},
		{"malformed", "Bearer nonsense"},
		{"unknown", "Bearer pf_1_" + fmt.Sprintf("%064d", 0)},
		{"empty token", "Bearer "},
		// the company id of a key is written one way only
		{"company id with a leading zero", "Bearer " + strings.Replace(e.keyA, "pf_", "pf_0", 1)},
		{"company id with a plus sign", "Bearer " + strings.Replace(e.keyA, "pf_", "pf_+", 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, e.url+"/buildings/types", nil)
			if c.header != "" {
				req.Header.Set("Authorization", c.header)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusUnauthorized {
				t.Errorf("status %d", res.StatusCode)
			}
		})
	}
	r := e.do(t, http.MethodGet, "/buildings/types", "", nil)
	if r.body["return"] != false || r.body["message"] != companyNotIdentified || len(r.body["errors"].([]any)) != 0 {
		t.Errorf("401 envelope: %s", r.raw)
	}
	if r := e.do(t, http.MethodGet, "/buildings/types", e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("valid key: %d", r.status)
	}
	if r := e.do(t, http.MethodGet, "/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("healthz needs no key: %d", r.status)
	}
}

func TestHeadersAndStatuses(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seed(t, e)
	r := e.get(t, "/buildings/types", http.StatusOK)
	for name, want := range map[string]string{
		"Access-Control-Allow-Origin": "*",
		"Cache-Control":               "no-cache, private",
		"Content-Type":                "application/json",
	} {
		if got := r.header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	cases := []struct {
		method, path, body string
		status             int
	}{
		{http.MethodGet, "/nowhere", "", http.StatusNotFound},
		{http.MethodGet, "/buildings/types/", "", http.StatusNotFound},
		{http.MethodGet, "/Buildings/Types", "", http.StatusNotFound},
		{http.MethodGet, "/buildings/types/999", "", http.StatusNotFound},
		{http.MethodGet, "/buildings/types/abc", "", http.StatusNotFound},
		{http.MethodPatch, "/buildings/types/1", "{}", http.StatusMethodNotAllowed},
		{http.MethodDelete, "/buildings/categories/1", "", http.StatusConflict},
		{http.MethodPost, "/buildings/types", "[1]", http.StatusUnprocessableEntity},
		{http.MethodPost, "/buildings/types", "not json", http.StatusUnprocessableEntity},
		{http.MethodPut, "/buildings/types/999", `{"description":"x"}`, http.StatusNotFound},
		{http.MethodDelete, "/buildings/types/999", "", http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			var body any
			if c.body != "" {
				body = c.body
			}
			r := e.do(t, c.method, c.path, e.keyA, body)
			if r.status != c.status || r.body["return"] != false || num(t, r.body["status"]) != int64(c.status) {
				t.Errorf("status %d, want %d: %s", r.status, c.status, r.raw)
			}
			if _, ok := r.body["errors"].([]any); !ok {
				t.Errorf("no errors array: %s", r.raw)
			}
		})
	}
	pre, err := http.NewRequest(http.MethodOptions, e.url+"/buildings/types", nil)
	if err != nil {
		t.Fatal(err)
	}
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Origin", "https://app.example")
	res, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "*" ||
		res.Header.Get("Access-Control-Allow-Methods") == "" {
		t.Errorf("preflight: %d %v", res.StatusCode, res.Header)
	}
}

func TestWrites(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cat := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, map[string]any{"description": "Residencial", "color": "#fff"})
	if cat.status != http.StatusCreated || cat.body["message"] != "Created." {
		t.Fatalf("create category: %d %s", cat.status, cat.raw)
	}
	catID := num(t, cat.record(t)["id"])

	missing := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, map[string]any{"id": 5, "extra": true})
	if missing.status != http.StatusUnprocessableEntity {
		t.Fatalf("invalid create: %d", missing.status)
	}
	if got, want := missing.problemFields(t), []string{"extra", "id", "description", "color"}; !slices.Equal(got, want) {
		t.Errorf("problems %v, want %v (all at once)", got, want)
	}

	ty := e.do(t, http.MethodPost, "/buildings/types", e.keyA, map[string]any{"description": "Casa", "category_id": catID})
	if ty.status != http.StatusCreated {
		t.Fatalf("create type: %d %s", ty.status, ty.raw)
	}
	typeID := num(t, ty.record(t)["id"])
	path := "/buildings/types/" + strconv.FormatInt(typeID, 10)

	upd := e.do(t, http.MethodPut, path, e.keyA, map[string]any{"description": "Sobrado"})
	if upd.status != http.StatusOK || upd.record(t)["description"] != "Sobrado" || num(t, upd.record(t)["category_id"]) != catID {
		t.Errorf("partial update: %d %s", upd.status, upd.raw)
	}
	nulled := e.do(t, http.MethodPut, path, e.keyA, map[string]any{"category_id": nil, "description": 3})
	if got := nulled.problemFields(t); nulled.status != http.StatusUnprocessableEntity || !slices.Equal(got, []string{"category_id", "description"}) {
		t.Errorf("null required and wrong type: %d %v", nulled.status, got)
	}
	ghost := e.do(t, http.MethodPost, "/buildings/types", e.keyA, map[string]any{"category_id": 424242})
	if ghost.status != http.StatusUnprocessableEntity || !slices.Equal(ghost.problemFields(t), []string{"category_id"}) {
		t.Errorf("reference to a missing category: %d %s", ghost.status, ghost.raw)
	}
	ctor := e.do(t, http.MethodPost, "/buildings/constructors", e.keyA, map[string]any{"name": "Alfa", "state_id": 99})
	if ctor.status != http.StatusUnprocessableEntity || !slices.Equal(ctor.problemFields(t), []string{"state_id"}) {
		t.Errorf("unknown state: %d %s", ctor.status, ctor.raw)
	}

	if del := e.do(t, http.MethodDelete, "/buildings/categories/"+strconv.FormatInt(catID, 10), e.keyA, nil); del.status != http.StatusConflict {
		t.Errorf("delete of a category in use: %d", del.status)
	}
	if del := e.do(t, http.MethodDelete, path, e.keyA, nil); del.status != http.StatusOK || del.body["message"] != "Deleted." {
		t.Errorf("delete: %d %s", del.status, del.raw)
	}
	e.get(t, path, http.StatusNotFound)
}

// TestCompanyIsolation: with company B's key, company A's records do not
// exist, and B cannot point its records at A's.
func TestCompanyIsolation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seed(t, e) // A owns categories 1-3 and types 1-6; B owns category 4 and type 7
	for _, path := range []string{"/buildings/types/1", "/buildings/categories/1"} {
		for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
			var body any
			if method == http.MethodPut {
				body = map[string]any{"description": "hijacked"}
			}
			if r := e.do(t, method, path, e.keyB, body); r.status != http.StatusNotFound {
				t.Errorf("B %s %s: %d, want 404", method, path, r.status)
			}
		}
	}
	if got := e.get(t, "/buildings/types/1", http.StatusOK).record(t)["description"]; got != "Apartamento" {
		t.Errorf("A's record changed: %v", got)
	}
	listB := e.do(t, http.MethodGet, "/buildings/types?perPage=100&include[category]", e.keyB, nil)
	if ids := listB.ids(t); !slices.Equal(ids, []int64{7}) {
		t.Errorf("B lists %v, want only its type 7", ids)
	}
	byID := e.do(t, http.MethodGet, "/buildings/types?filter[category_id]=1", e.keyB, nil)
	if len(byID.data(t)) != 0 {
		t.Errorf("B filtering on A's category sees %s", byID.raw)
	}
	create := e.do(t, http.MethodPost, "/buildings/types", e.keyB, map[string]any{"description": "x", "category_id": 1})
	if create.status != http.StatusUnprocessableEntity {
		t.Errorf("B creating a type in A's category: %d %s", create.status, create.raw)
	}
	update := e.do(t, http.MethodPut, "/buildings/types/7", e.keyB, map[string]any{"category_id": 2})
	if update.status != http.StatusUnprocessableEntity {
		t.Errorf("B moving its type into A's category: %d %s", update.status, update.raw)
	}
	incl := e.do(t, http.MethodGet, "/buildings/categories/4?include[types]", e.keyB, nil).record(t)
	if n := len(incl["types"].([]any)); n != 1 {
		t.Errorf("B's category includes %d types, want its own 1", n)
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	t.Run("miniredis", func(t *testing.T) {
		t.Parallel()
		testRateLimit(t, setup(t, withRateLimit(3)))
	})
	t.Run("redis-server", func(t *testing.T) {
		t.Parallel()
		testRateLimit(t, setup(t, withRateLimit(3), withRedisServer(t)))
	})
}

func testRateLimit(t *testing.T, e *testEnv) {
	for i := 0; i < 3; i++ {
		if r := e.do(t, http.MethodGet, "/buildings/types", e.keyA, nil); r.status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, r.status)
		}
	}
	r := e.do(t, http.MethodGet, "/buildings/types", e.keyA, nil)
	if r.status != http.StatusTooManyRequests || r.body["message"] != "Too Many Attempts." || r.body["return"] != false {
		t.Fatalf("over the limit: %d %s", r.status, r.raw)
	}
	retry, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || retry < 1 || retry > 60 {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	if other := e.do(t, http.MethodGet, "/buildings/types", e.keyB, nil); other.status != http.StatusOK {
		t.Errorf("the limit is per key; B got %d", other.status)
	}
}

func TestReadyz(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if r := e.do(t, http.MethodGet, "/readyz", "", nil); r.status != http.StatusOK {
		t.Fatalf("readyz: %d %s", r.status, r.raw)
	}
	var version int
	var name string
	if err := e.pool.QueryRow(context.Background(), `DELETE FROM schema_migrations
		WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING version, name`).Scan(&version, &name); err != nil {
		t.Fatal(err)
	}
	if r := e.do(t, http.MethodGet, "/readyz", "", nil); r.status != http.StatusServiceUnavailable ||
		!slices.Equal(r.problemFields(t), []string{"schema"}) || !strings.Contains(string(r.raw), "propfin migrate") {
		t.Errorf("readyz with a migration not applied: %d %s", r.status, r.raw)
	}
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, version, name); err != nil {
		t.Fatal(err)
	}
	e.redis.Close()
	r := e.do(t, http.MethodGet, "/readyz", "", nil)
	if r.status != http.StatusServiceUnavailable || !slices.Equal(r.problemFields(t), []string{"redis"}) {
		t.Errorf("readyz with redis down: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodGet, "/buildings/types", e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("the API keeps serving when the limiter's Redis is down: %d", r.status)
	}
}

// TestAuthFailureLimit: a client address that keeps failing to
// authenticate is answered 429 without a key lookup, while a key already
// known good keeps working from it.
func TestAuthFailureLimit(t *testing.T) {
	t.Parallel()
	e := setup(t, withAuthFailureLimit(3))
	if r := e.do(t, http.MethodGet, "/buildings/types", e.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("good key: %d", r.status)
	}
	bad := "pf_1_" + fmt.Sprintf("%064d", 7)
	for i := 0; i < 3; i++ {
		if r := e.do(t, http.MethodGet, "/buildings/types", bad, nil); r.status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i+1, r.status)
		}
	}
	r := e.do(t, http.MethodGet, "/buildings/types", bad, nil)
	if r.status != http.StatusTooManyRequests || r.body["message"] != "Too Many Attempts." || r.header.Get("Retry-After") == "" {
		t.Fatalf("over the failure limit: %d %s %v", r.status, r.raw, r.header)
	}
	if r := e.do(t, http.MethodGet, "/buildings/types", "", nil); r.status != http.StatusTooManyRequests {
		t.Errorf("no key while blocked: %d", r.status)
	}
	if r := e.do(t, http.MethodGet, "/buildings/types", e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("a known good key from a blocked address: %d", r.status)
	}
}

// TestReadOnlyResource: a read-only resource has no write route: every
// write, delete included, is the router's 405 naming the methods it
// has, and nothing changes.
func TestReadOnlyResource(t *testing.T) {
	t.Parallel()
	e := setup(t, withRoute("/test/states", storage.States))
	cases := []struct{ method, path, body string }{
		{http.MethodPost, "/test/states", `{"name":"x"}`},
		{http.MethodPut, "/test/states/35", `{"name":"x"}`},
		{http.MethodDelete, "/test/states/35", ""},
	}
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			var body any
			if c.body != "" {
				body = c.body
			}
			r := e.do(t, c.method, c.path, e.keyA, body)
			if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, HEAD, OPTIONS" {
				t.Errorf("%d %s (Allow %q)", r.status, r.raw, r.header.Get("Allow"))
			}
		})
	}
	var n int
	if err := e.pool.QueryRow(context.Background(), "SELECT count(*) FROM states WHERE id = 35 AND name = 'São Paulo'").Scan(&n); err != nil || n != 1 {
		t.Errorf("state 35 changed: %d %v", n, err)
	}
}

// TestHead: every GET route answers HEAD as it answers GET, with the same
// status and headers and no body.
func TestHead(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seed(t, e)
	send := func(method, path, key string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, e.url+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
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
		return res, body
	}
	cases := []struct{ path, key string }{
		{"/buildings/types?perPage=3&include[category]", e.keyA},
		{"/buildings/types/1", e.keyA},
		{"/buildings/types/999", e.keyA},
		{"/buildings/categories", ""},
		{"/readyz", ""},
		{"/healthz", ""},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			get, getBody := send(http.MethodGet, c.path, c.key)
			head, headBody := send(http.MethodHead, c.path, c.key)
			if head.StatusCode != get.StatusCode || len(headBody) != 0 {
				t.Fatalf("HEAD: %d with %d bytes; GET: %d", head.StatusCode, len(headBody), get.StatusCode)
			}
			for _, name := range []string{"Content-Type", "Content-Length", "Cache-Control", "Access-Control-Allow-Origin"} {
				if head.Header.Get(name) != get.Header.Get(name) {
					t.Errorf("%s: HEAD %q, GET %q", name, head.Header.Get(name), get.Header.Get(name))
				}
			}
			if get.Header.Get("Content-Length") != strconv.Itoa(len(getBody)) {
				t.Errorf("GET Content-Length %s for %d bytes", get.Header.Get("Content-Length"), len(getBody))
			}
		})
	}
	patch, _ := send(http.MethodPatch, "/buildings/types/1", e.keyA)
	if allow := patch.Header.Get("Allow"); patch.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(allow, "HEAD") {
		t.Errorf("405 Allow %q should list HEAD", allow)
	}
	if post, _ := send(http.MethodHead, "/nowhere", ""); post.StatusCode != http.StatusNotFound {
		t.Errorf("HEAD of no route: %d", post.StatusCode)
	}
}

// TestIDsAreCanonical: a record id in a path is written one way only, as
// the API writes it: `01`, `+1` and `1%20` name no record (404), for the
// record itself and for the parent of a sub-resource.
func TestIDsAreCanonical(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id := strconv.FormatInt(e.create(t, "/buildings", map[string]any{"title": "Um"}), 10)
	for _, path := range []string{"/buildings/" + id, "/buildings/" + id + "/owners"} {
		e.get(t, path, http.StatusOK)
	}
	for _, written := range []string{"0" + id, "%2B" + id, "+" + id, id + "%20", "00" + id} {
		for _, path := range []string{"/buildings/" + written, "/buildings/" + written + "/owners"} {
			if r := e.do(t, http.MethodGet, path, e.keyA, nil); r.status != http.StatusNotFound {
				t.Errorf("GET %s: %d %s, want 404", path, r.status, r.raw)
			}
		}
		if r := e.do(t, http.MethodPut, "/buildings/"+written, e.keyA, `{"title":"Dois"}`); r.status != http.StatusNotFound {
			t.Errorf("PUT /buildings/%s: %d %s, want 404", written, r.status, r.raw)
		}
	}
}

// TestTwoAuthorizationHeaders: a request with two Authorization headers
// is a 400 in the envelope, whichever they hold, on API routes and
// operator routes alike: no header wins.
func TestTwoAuthorizationHeaders(t *testing.T) {
	t.Parallel()
	e := setup(t, withAdminToken(testAdminToken), withMetrics(prometheus.NewRegistry(), true))
	cases := []struct {
		path   string
		values []string
	}{
		{"/buildings/types", []string{"Bearer " + e.keyA, "Bearer " + e.keyA}},
		{"/buildings/types", []string{"Bearer " + e.keyA, "Bearer " + e.keyB}},
		{"/buildings/types", []string{"Bearer " + e.keyA, "Basic eDp5"}},
		{"/metrics", []string{"Bearer " + testAdminToken, "Bearer " + testAdminToken}},
	}
	for _, c := range cases {
		req, err := http.NewRequest(http.MethodGet, e.url+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range c.values {
			req.Header.Add("Authorization", v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body errorBody
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusBadRequest || body.Status != http.StatusBadRequest ||
			!slices.Equal(body.Errors, []finance.Problem{{Field: "Authorization", Message: "is given more than once"}}) {
			t.Errorf("%s with %d Authorization headers: %d %+v %v", c.path, len(c.values), res.StatusCode, body, err)
		}
	}
}

// TestBrowserHeaders: a page of another origin may send every header the
// API reads (Idempotency-Key included) and read every header it answers
// with beyond the CORS-safelisted ones (Location, Retry-After, the rate
// limit's), on successes and refusals alike.
func TestBrowserHeaders(t *testing.T) {
	t.Parallel()
	e := setup(t, withRateLimit(1))
	pre, err := http.NewRequest(http.MethodOptions, e.url+"/pix/validate", nil)
	if err != nil {
		t.Fatal(err)
	}
	pre.Header.Set("Origin", "https://app.example")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "authorization,content-type,idempotency-key")
	res, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	allowed := strings.Split(res.Header.Get("Access-Control-Allow-Headers"), ", ")
	for _, h := range []string{"Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id"} {
		if !slices.Contains(allowed, h) {
			t.Errorf("preflight: Access-Control-Allow-Headers %q lacks %s", allowed, h)
		}
	}
	first := e.get(t, "/buildings/types", http.StatusOK)
	limited := e.get(t, "/buildings/types", http.StatusTooManyRequests)
	unknown := e.do(t, http.MethodGet, "/nowhere", "", nil)
	for _, r := range []response{first, limited, unknown} {
		exposed := strings.Split(r.header.Get("Access-Control-Expose-Headers"), ", ")
		for _, h := range []string{"Location", "Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-Request-Id"} {
			if !slices.Contains(exposed, h) {
				t.Errorf("%d: Access-Control-Expose-Headers %q lacks %s", r.status, exposed, h)
			}
		}
	}
}
