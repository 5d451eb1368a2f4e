package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

const testAdminToken = "operators-only-0123456789abcdef"

// withAdminToken turns the operator routes on with token.
func withAdminToken(token string) envOption {
	return func(c *Config, _ *Server) { c.AdminToken = token }
}

// withMetrics records the HTTP metrics, and the pool's, on reg; serve
// mounts /metrics.
func withMetrics(reg *prometheus.Registry, serve bool) envOption {
	return func(c *Config, _ *Server) {
		c.Metrics, c.ServeMetrics = reg, serve
		reg.MustRegister(storage.NewPoolCollector(c.Store.Pool()))
	}
}

// withDashboard mounts the real asynqmon dashboard on the test's Redis.
func withDashboard(t testing.TB) envOption {
	return func(c *Config, _ *Server) {
		dash := asynqmon.New(asynqmon.Options{
			RootPath:     MonitoringPath,
			RedisConnOpt: asynq.RedisClientOpt{Addr: c.Redis.(*redis.Client).Options().Addr},
		})
		t.Cleanup(func() { dash.Close() })
		c.Monitoring = dash
	}
}

// credential is how a test request presents the admin token.
type credential func(*http.Request)

func bearer(token string) credential {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

func basic(user, password string) credential {
	return func(r *http.Request) { r.SetBasicAuth(user, password) }
}

func noCredential(*http.Request) {}

// operatorResponse is an operator route's answer, whatever its type.
type operatorResponse struct {
	status int
	header http.Header
	body   string
}

// call requests path with cred, not following redirects.
func (e *testEnv) call(t *testing.T, method, path string, cred credential, headers ...string) operatorResponse {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	cred(req)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return operatorResponse{status: res.StatusCode, header: res.Header, body: string(body)}
}

// wantEnvelope checks an error answer is the spec's envelope with status.
func wantEnvelope(t *testing.T, what string, r operatorResponse, status int) {
	t.Helper()
	var env errorBody
	if r.status != status || json.Unmarshal([]byte(r.body), &env) != nil || env.Return || env.Status != status || env.Errors == nil {
		t.Errorf("%s: %d %s, want the error envelope with %d", what, r.status, r.body, status)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q", what, ct)
	}
}

// TestOperatorRoutesOffWithoutToken: without an admin token the operator
// routes do not exist, whatever else is configured.
func TestOperatorRoutesOffWithoutToken(t *testing.T) {
	t.Parallel()
	e := setup(t, withMetrics(prometheus.NewRegistry(), true), withDashboard(t))
	for _, path := range []string{"/metrics", "/monitoring", "/monitoring/", "/monitoring/api/queues",
		"/operator/", "/operator/jobs", "/operator/jobs/1", "/operator/schedules", "/operator/audit", "/operator/alerts"} {
		for _, cred := range []credential{noCredential, bearer(""), bearer(testAdminToken)} {
			r := e.call(t, http.MethodGet, path, cred)
			wantEnvelope(t, path, r, http.StatusNotFound)
			if r.header.Get("WWW-Authenticate") != "" {
				t.Errorf("%s: asks for a credential", path)
			}
		}
	}
}

// TestAdminCredential: the token as bearer or as basic-auth password
// opens the operator routes; anything else is a 401 that makes a browser
// ask.
func TestAdminCredential(t *testing.T) {
	t.Parallel()
	e := setup(t, withAdminToken(testAdminToken), withMetrics(prometheus.NewRegistry(), true))
	cases := []struct {
		name   string
		cred   credential
		status int
	}{
		{"none", noCredential, http.StatusUnauthorized},
		{"bearer", bearer(testAdminToken), http.StatusOK},
		{"bearer, scheme in lower case", func(r *http.Request) { r.Header.Set("Authorization", "bearer "+testAdminToken) }, http.StatusOK},
		{"basic, any user", basic("ops", testAdminToken), http.StatusOK},
		{"basic, no user", basic("", testAdminToken), http.StatusOK},
		{"wrong bearer", bearer(testAdminToken + "x"), http.StatusUnauthorized},
		{"prefix of the token", bearer(testAdminToken[:10]), http.StatusUnauthorized},
		{"wrong password", basic("ops", "guess"), http.StatusUnauthorized},
		{"token as user name", basic(testAdminToken, ""), http.StatusUnauthorized},
		{"token without scheme", func(r *http.Request) { r.Header.Set("Authorization", testAdminToken) }, http.StatusUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.call(t, http.MethodGet, "/metrics", c.cred)
			if c.status == http.StatusOK {
				if r.status != http.StatusOK {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				return
			}
			wantEnvelope(t, c.name, r, c.status)
			if got := r.header.Get("WWW-Authenticate"); got != `Basic realm="propfin operators"` {
				t.Errorf("WWW-Authenticate %q", got)
			}
			if !strings.Contains(r.body, `"message":"Operator credential required."`) {
				t.Errorf("message: %s", r.body)
			}
		})
	}
	if r := e.call(t, http.MethodGet, "/buildings/types", bearer(testAdminToken)); r.status != http.StatusUnauthorized {
		t.Errorf("the admin token opened an API route: %d", r.status)
	}
	// a company's API key is the wrong kind of credential: 403, no prompt
	r := e.call(t, http.MethodGet, "/metrics", bearer(e.keyA))
	wantEnvelope(t, "an API key", r, http.StatusForbidden)
	if got := r.header.Get("WWW-Authenticate"); got != "" {
		t.Errorf("an API key: WWW-Authenticate %q", got)
	}
	if !strings.Contains(r.body, "it takes the admin token, not a company's API key") {
		t.Errorf("an API key: message %s", r.body)
	}
}

// TestAdminFailuresAreLimited: failed admin attempts count against the
// address's failure limit, with failed API keys; past it even the right
// token waits.
func TestAdminFailuresAreLimited(t *testing.T) {
	t.Parallel()
	e := setup(t, withAdminToken(testAdminToken), withMetrics(prometheus.NewRegistry(), true), withAuthFailureLimit(4))
	if r := e.do(t, http.MethodGet, "/buildings/types", "pf_1_bad", nil); r.status != http.StatusUnauthorized {
		t.Fatalf("bad API key: %d", r.status)
	}
	for i := range 3 {
		if r := e.call(t, http.MethodGet, "/metrics", bearer("guess")); r.status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i+1, r.status)
		}
	}
	r := e.call(t, http.MethodGet, "/metrics", basic("ops", "guess"))
	wantEnvelope(t, "past the limit", r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	wantEnvelope(t, "right token past the limit", e.call(t, http.MethodGet, "/metrics", bearer(testAdminToken)), http.StatusTooManyRequests)
}

// TestDashboard serves the real asynqmon on miniredis behind the admin
// credential, each file with its own content type.
func TestDashboard(t *testing.T) {
	t.Parallel()
	e := setup(t, withAdminToken(testAdminToken), withDashboard(t))
	client := asynq.NewClient(asynq.RedisClientOpt{Addr: e.redis.Addr()})
	t.Cleanup(func() { client.Close() })
	if _, err := client.Enqueue(asynq.NewTask("test:noop", nil), asynq.Queue("reports")); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{"/monitoring", "/monitoring/", "/monitoring/api/queues", "/monitoring/favicon-32x32.png"} {
		r := e.call(t, http.MethodGet, path, noCredential)
		wantEnvelope(t, path+" without credential", r, http.StatusUnauthorized)
		if r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: no WWW-Authenticate", path)
		}
	}

	redirect := e.call(t, http.MethodGet, "/monitoring?tab=queues", bearer(testAdminToken))
	if redirect.status != http.StatusMovedPermanently || redirect.header.Get("Location") != "/monitoring/?tab=queues" {
		t.Errorf("/monitoring: %d to %q", redirect.status, redirect.header.Get("Location"))
	}

	var index operatorResponse
	for name, cred := range map[string]credential{"bearer": bearer(testAdminToken), "basic": basic("ops", testAdminToken)} {
		index = e.call(t, http.MethodGet, "/monitoring/", cred)
		if index.status != http.StatusOK || !strings.Contains(index.body, "<title>Asynq - Monitoring</title>") {
			t.Fatalf("index with %s: %d %.200s", name, index.status, index.body)
		}
		if ct := index.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("index with %s: Content-Type %q", name, ct)
		}
	}
	if !strings.Contains(index.body, `href="/monitoring/favicon.ico"`) {
		t.Errorf("index does not know its root path: %.500s", index.body)
	}

	script := regexp.MustCompile(`src="(/monitoring/static/js/[^"]+\.js)"`).FindStringSubmatch(index.body)
	if script == nil {
		t.Fatalf("no script in the index: %.500s", index.body)
	}
	assets := []struct{ path, contentType string }{
		{script[1], "application/javascript; charset=utf-8"},
		{"/monitoring/favicon-32x32.png", "image/png"},
	}
	for _, a := range assets {
		r := e.call(t, http.MethodGet, a.path, bearer(testAdminToken))
		if r.status != http.StatusOK || len(r.body) == 0 {
			t.Errorf("%s: %d, %d bytes", a.path, r.status, len(r.body))
		}
		if got := r.header.Values("Content-Type"); len(got) != 1 || got[0] != a.contentType {
			t.Errorf("%s: Content-Type %q, want %q", a.path, got, a.contentType)
		}
	}

	api := e.call(t, http.MethodGet, "/monitoring/api/queues", basic("ops", testAdminToken))
	var queues struct {
		Queues []struct {
			Queue   string `json:"queue"`
			Pending int    `json:"pending"`
		} `json:"queues"`
	}
	if api.status != http.StatusOK || json.Unmarshal([]byte(api.body), &queues) != nil {
		t.Fatalf("/monitoring/api/queues: %d %s", api.status, api.body)
	}
	if len(queues.Queues) != 1 || queues.Queues[0].Queue != "reports" || queues.Queues[0].Pending != 1 {
		t.Errorf("queues: %s", api.body)
	}
}

// TestDashboardRefusesCrossOriginWrites: a page of another site cannot
// make an operator's browser, which remembers the basic-auth credential,
// change the queues.
func TestDashboardRefusesCrossOriginWrites(t *testing.T) {
	t.Parallel()
	e := setup(t, withAdminToken(testAdminToken), withDashboard(t))
	path := "/monitoring/api/queues/default:pause"
	r := e.call(t, http.MethodPost, path, basic("ops", testAdminToken), "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
	wantEnvelope(t, "cross-site POST", r, http.StatusForbidden)
	r = e.call(t, http.MethodPost, path, basic("ops", testAdminToken), "Sec-Fetch-Site", "same-origin")
	if r.status == http.StatusForbidden || r.status == http.StatusUnauthorized {
		t.Errorf("same-origin POST: %d %s", r.status, r.body)
	}
}

// TestDashboardRunRetriesAFailedJob: Run on the archived task of a failed
// job in the queue dashboard retries the job through the platform (a new
// generation, pending, audited) and deletes the archived task, rather
// than running a task that does nothing while the job stays failed; Run
// on all archived tasks at once is refused, in the envelope.
func TestDashboardRunRetriesAFailedJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t, withAdminToken(testAdminToken), withDashboard(t))
	kinds, err := jobs.Kinds(jobs.KindsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	job, _, err := kinds.Submit(ctx, e.pool, e.compA, jobs.Submission{Kind: jobs.KindJobsPrune,
		Payload: json.RawMessage(`{"date":"2026-12-01"}`), SubmittedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `UPDATE jobs SET state = 'failed', error = 'boom', finished_at = now()
		WHERE company_id = $1 AND id = $2`, e.compA, job.ID); err != nil {
		t.Fatal(err)
	}
	opt := asynq.RedisClientOpt{Addr: e.redis.Addr()}
	client, inspector := asynq.NewClient(opt), asynq.NewInspector(opt)
	t.Cleanup(func() { client.Close(); inspector.Close() })
	if _, err := client.Enqueue(asynq.NewTask(job.Kind, nil), asynq.Queue(job.Queue), asynq.TaskID(job.TaskID())); err != nil {
		t.Fatal(err)
	}
	if err := inspector.ArchiveTask(job.Queue, job.TaskID()); err != nil {
		t.Fatal(err)
	}
	base := "/monitoring/api/queues/" + job.Queue + "/archived_tasks"
	wantEnvelope(t, "run all", e.call(t, http.MethodPost, base+":run_all", bearer(testAdminToken)), http.StatusConflict)

	if r := e.call(t, http.MethodPost, base+"/"+job.TaskID()+":run", bearer(testAdminToken)); r.status != http.StatusNoContent {
		t.Fatalf("run: %d %s", r.status, r.body)
	}
	got, err := storage.GetJob(ctx, e.pool, e.compA, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != storage.JobPending || got.Generation != job.Generation+1 {
		t.Errorf("after Run the job is %s at generation %d, want pending at %d", got.State, got.Generation, job.Generation+1)
	}
	var audited int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM operator_audit WHERE action = 'jobs.retry' AND jobs = $1::jsonb`,
		fmt.Sprintf("[[%d,%d]]", e.compA, job.ID)).Scan(&audited); err != nil || audited != 1 {
		t.Errorf("%d audit rows (%v), want 1", audited, err)
	}
	if _, err := inspector.GetTaskInfo(job.Queue, job.TaskID()); !errors.Is(err, asynq.ErrTaskNotFound) {
		t.Errorf("the archived task is still there: %v", err)
	}
}
