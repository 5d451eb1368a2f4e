package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/pix"
	"github.com/propfin/propfin/storage"
)

// withWorkers runs a relay and a worker beside the API, on its database
// and Redis, for the life of the test.
func withWorkers(t testing.TB, env *testEnv) {
	t.Helper()
	withWorkersOf(t, env, jobs.KindsConfig{})
}

// withWorkersOf is withWorkers with the kinds of cfg.
func withWorkersOf(t testing.TB, env *testEnv, cfg jobs.KindsConfig) {
	t.Helper()
	kinds, err := jobs.Kinds(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opt := asynq.RedisClientOpt{Addr: env.redis.Addr()}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	relay := jobs.NewRelay(jobs.RelayConfig{Pool: env.pool, Redis: opt, Kinds: kinds, Poll: 100 * time.Millisecond, Logger: log})
	worker := jobs.NewWorker(jobs.WorkerConfig{Pool: env.pool, Redis: opt, Kinds: kinds, Concurrency: 2, Logger: log})
	done := make(chan struct{}, 2)
	go func() { relay.Run(ctx); done <- struct{}{} }()  //nolint:errcheck // returns nil
	go func() { worker.Run(ctx); done <- struct{}{} }() //nolint:errcheck // returns nil
	t.Cleanup(func() { cancel(); <-done; <-done; relay.Close() })
}

// send is a request with headers of the test's choosing.
func (e *testEnv) send(t *testing.T, method, path, key, body string, header map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, raw: string(raw)}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&r.body); err != nil {
		t.Fatalf("%s %s: %v\n%s", method, path, err, raw)
	}
	return r
}

func validPix(t *testing.T, i int) string {
	t.Helper()
	p, err := pix.BuildStatic(pix.Static{Key: "pix@example.com", Name: "Imobiliaria", City: "SAO PAULO", Amount: fmt.Sprintf("%d.00", i+1)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func pixBody(t *testing.T, n int, broken ...int) string {
	t.Helper()
	payloads := make([]string, n)
	for i := range payloads {
		payloads[i] = validPix(t, i)
	}
	for _, i := range broken {
		payloads[i] = payloads[i][:len(payloads[i])-4] + "FFFF"
	}
	b, _ := json.Marshal(map[string]any{"payloads": payloads})
	return string(b)
}

// waitJob polls GET /jobs/{id} until the job is finished.
func (e *testEnv) waitJob(t *testing.T, key string, id int64) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.send(t, http.MethodGet, fmt.Sprintf("/jobs/%d", id), key, "", nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET /jobs/%d: %d %s", id, r.status, r.raw)
		}
		job := r.body["data"].(map[string]any)
		if s := job["state"]; s == "succeeded" || s == "failed" || s == "canceled" {
			return job
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d still %v after 30s", id, job["state"])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestPixValidateInline(t *testing.T) {
	t.Parallel()
	env := setup(t)
	r := env.send(t, http.MethodPost, "/pix/validate", env.keyA, pixBody(t, 3, 1), nil)
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	data := r.body["data"].(map[string]any)
	results := data["results"].([]any)
	if num(t, data["total"]) != 3 || num(t, data["valid"]) != 2 || num(t, data["invalid"]) != 1 || len(results) != 3 {
		t.Fatalf("report %s", r.raw)
	}
	second := results[1].(map[string]any)
	if second["valid"] != false || !strings.Contains(r.raw, `"code":"crc_mismatch"`) {
		t.Fatalf("result 1: %v", second)
	}
	if n, _ := jobCount(t, env); n != 0 {
		t.Errorf("an inline validation made %d jobs", n)
	}
}

func jobCount(t *testing.T, env *testEnv) (int, error) {
	var n int
	err := env.pool.QueryRow(context.Background(), "SELECT count(*) FROM jobs").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n, err
}

func TestPixValidateJobThroughTheAPI(t *testing.T) {
	t.Parallel()
	env := setup(t)
	withWorkers(t, env)
	r := env.send(t, http.MethodPost, "/pix/validate", env.keyA, pixBody(t, 150, 7, 149), nil)
	if r.status != http.StatusAccepted {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	job := r.body["data"].(map[string]any)
	id := num(t, job["id"])
	if r.header.Get("Location") != fmt.Sprintf("/jobs/%d", id) || job["kind"] != "pix:validate" {
		t.Fatalf("Location %q job %v", r.header.Get("Location"), job)
	}
	for _, name := range []string{"id", "kind", "state", "progress", "result", "error", "attempts", "created_at", "started_at", "finished_at"} {
		if _, ok := job[name]; !ok {
			t.Errorf("the job has no %q: %v", name, job)
		}
	}
	done := env.waitJob(t, env.keyA, id)
	if done["state"] != "succeeded" || num(t, done["attempts"]) != 1 {
		t.Fatalf("job %v", done)
	}
	result := done["result"].(map[string]any)
	problems := result["problems"].([]any)
	if num(t, result["total"]) != 150 || num(t, result["invalid"]) != 2 || len(problems) != 2 ||
		num(t, problems[0].(map[string]any)["index"]) != 7 || num(t, problems[1].(map[string]any)["index"]) != 149 {
		t.Fatalf("result %v", result)
	}
	progress := done["progress"].(map[string]any)
	if num(t, progress["done"]) != 150 || num(t, progress["total"]) != 150 {
		t.Errorf("progress %v", progress)
	}
	// the list, with the query language, and company isolation
	list := env.get(t, "/jobs?filter[kind]=pix:validate&filter[state]=succeeded&fields=id,state", http.StatusOK)
	if ids := list.ids(t); len(ids) != 1 || ids[0] != id {
		t.Fatalf("list %s", list.raw)
	}
	for _, bogus := range []string{"/jobs?filter[state]=bogus", "/jobs?filter[stateIn][]=done"} {
		if r := env.send(t, http.MethodGet, bogus, env.keyA, "", nil); r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d, want 422 naming the states", bogus, r.status)
		}
	}
	if other := env.send(t, http.MethodGet, fmt.Sprintf("/jobs/%d", id), env.keyB, "", nil); other.status != http.StatusNotFound {
		t.Errorf("company B reads A's job: %d", other.status)
	}
	if other := env.send(t, http.MethodGet, "/jobs", env.keyB, "", nil); len(other.data(t)) != 0 {
		t.Errorf("company B lists A's jobs: %s", other.raw)
	}
	for _, op := range []string{"cancel", "retry"} {
		if other := env.send(t, http.MethodPost, fmt.Sprintf("/jobs/%d/%s", id, op), env.keyB, "", nil); other.status != http.StatusNotFound {
			t.Errorf("company B %ss A's job: %d", op, other.status)
		}
	}
}

func TestPixValidateNDJSON(t *testing.T) {
	t.Parallel()
	env := setup(t)
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, "%q\n", validPix(t, i))
	}
	ndjson := map[string]string{"Content-Type": "application/x-ndjson"}
	if r := env.send(t, http.MethodPost, "/pix/validate", env.keyA, b.String(), ndjson); r.status != http.StatusAccepted {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	r := env.send(t, http.MethodPost, "/pix/validate", env.keyA, "\"a\"\n\n{\"x\":1}\n", ndjson)
	if r.status != http.StatusUnprocessableEntity || r.problemFields(t)[0] != "line 3" {
		t.Fatalf("a bad line: %d %s", r.status, r.raw)
	}
}

func TestPixValidateRefusesBadBodies(t *testing.T) {
	t.Parallel()
	env := setup(t)
	tooMany, _ := json.Marshal(map[string]any{"payloads": make([]string, jobs.MaxPixPayloads+1)})
	for name, body := range map[string]string{
		"empty list": `{"payloads":[]}`, "not strings": `{"payloads":[1,2]}`, "other field": `{"payload":["x"]}`,
		"not JSON": `payloads`, "too many": string(tooMany),
	} {
		if r := env.send(t, http.MethodPost, "/pix/validate", env.keyA, body, nil); r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
	for name, c := range map[string]struct {
		body, field string
		header      map[string]string
		status      int
	}{
		"key twice":       {`{"payloads":["a"],"payloads":["b"]}`, "payloads", nil, 422},
		"a null":          {`{"payloads":["a",null]}`, "payloads.1", nil, 422},
		"a null line":     {"\"a\"\nnull\n", "line 2", map[string]string{"Content-Type": "application/x-ndjson"}, 422},
		"not UTF-8":       {"{\"payloads\":[\"\xff\"]}", "body", nil, 422},
		"gzip":            {`{"payloads":["a"]}`, "", map[string]string{"Content-Encoding": "gzip"}, 415},
		"form":            {`payloads=a`, "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		"idempotency x 2": {pixBody(t, 101), "Idempotency-Key", nil, 422},
	} {
		var r response
		if name == "idempotency x 2" {
			r = env.sendValues(t, http.MethodPost, "/pix/validate", env.keyA, c.body, "Idempotency-Key", "k1", "k2")
		} else {
			r = env.send(t, http.MethodPost, "/pix/validate", env.keyA, c.body, c.header)
		}
		if r.status != c.status || (c.field != "" && !slices.Contains(r.problemFields(t), c.field)) {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
	if n, _ := jobCount(t, env); n != 0 {
		t.Errorf("refused bodies made %d jobs", n)
	}
}

// sendValues is send with one header given several values.
func (e *testEnv) sendValues(t *testing.T, method, path, key, body, header string, values ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for _, v := range values {
		req.Header.Add(header, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, raw: string(raw)}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		t.Fatalf("%s %s: %v\n%s", method, path, err, raw)
	}
	return r
}

func TestIdempotencyKeyReturnsTheFirstJob(t *testing.T) {
	t.Parallel()
	env := setup(t)
	body := pixBody(t, 101)
	key := map[string]string{"Idempotency-Key": "import-2026-11-24"}
	first := env.send(t, http.MethodPost, "/pix/validate", env.keyA, body, key)
	again := env.send(t, http.MethodPost, "/pix/validate", env.keyA, body, key)
	if first.status != http.StatusAccepted || again.status != http.StatusAccepted ||
		num(t, first.body["data"].(map[string]any)["id"]) != num(t, again.body["data"].(map[string]any)["id"]) {
		t.Fatalf("same key, same body: %s / %s", first.raw, again.raw)
	}
	other := env.send(t, http.MethodPost, "/pix/validate", env.keyA, pixBody(t, 102), key)
	if other.status != http.StatusUnprocessableEntity || other.problemFields(t)[0] != "Idempotency-Key" {
		t.Fatalf("same key, other body: %d %s", other.status, other.raw)
	}
	if n, _ := jobCount(t, env); n != 1 {
		t.Errorf("%d jobs, want 1", n)
	}
}

func TestStartJobDirectly(t *testing.T) {
	t.Parallel()
	env := setup(t)
	body := `{"kind":"jobs:prune","payload":{"date":"2026-11-24"}}`
	first := env.send(t, http.MethodPost, "/jobs", env.keyA, body, nil)
	second := env.send(t, http.MethodPost, "/jobs", env.keyA, body, nil)
	if first.status != http.StatusAccepted || num(t, first.body["data"].(map[string]any)["id"]) != num(t, second.body["data"].(map[string]any)["id"]) {
		t.Fatalf("one run per company and date: %s / %s", first.raw, second.raw)
	}
	if second.status != http.StatusOK || !strings.Contains(second.body["message"].(string), "nothing was started") {
		t.Errorf("the run of the date again: %d %s, want 200 saying it is the run recorded before", second.status, second.raw)
	}
	for name, c := range map[string]struct{ body, field string }{
		"not direct":   {`{"kind":"pix:validate","payload":{"payloads":["x"]}}`, "kind"},
		"unknown kind": {`{"kind":"nope","payload":{}}`, "kind"},
		"bad payload":  {`{"kind":"jobs:prune","payload":{"date":"24/11/2026"}}`, "payload.date"},
		"a number":     {`{"kind":"jobs:prune","payload":{"date":20261124}}`, "payload.date"},
		"year 0":       {`{"kind":"jobs:prune","payload":{"date":"0000-01-01"}}`, "payload.date"},
		"future":       {`{"kind":"jobs:prune","payload":{"date":"2999-01-01"}}`, "payload.date"},
		"extra field":  {`{"kind":"jobs:prune","extra":1}`, "extra"},
		"twice":        {`{"kind":"jobs:prune","kind":"jobs:prune","payload":{"date":"2026-11-24"}}`, "kind"},
		"no kind":      {`{"payload":{}}`, "kind"},
		"rerun a word": {`{"kind":"jobs:prune","payload":{"date":"2026-11-24"},"rerun":"yes"}`, "rerun"},
		"not JSON":     {`{"kind":"jobs:prune"} junk`, "body"},
	} {
		r := env.send(t, http.MethodPost, "/jobs", env.keyA, c.body, nil)
		if r.status != http.StatusUnprocessableEntity || r.problemFields(t)[0] != c.field {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
	// a kind that cannot be started names those that can
	r := env.send(t, http.MethodPost, "/jobs", env.keyA, `{"kind":"batch:file","payload":{}}`, nil)
	want := "is not a kind of job that can be started here; the kinds that can: contracts:readjust, contracts:transfer, " +
		"finance:overdue, invoices:generate, invoices:remind, jobs:prune, owners:statements"
	if !strings.Contains(r.raw, want) {
		t.Errorf("batch:file: %d %s, want the message %q", r.status, r.raw, want)
	}
}

func TestCancelAndRetryThroughTheAPI(t *testing.T) {
	t.Parallel()
	env := setup(t)
	start := env.send(t, http.MethodPost, "/jobs", env.keyA, `{"kind":"jobs:prune","payload":{"date":"2026-11-01"}}`, nil)
	id := num(t, start.body["data"].(map[string]any)["id"])
	path := fmt.Sprintf("/jobs/%d", id)
	if r := env.send(t, http.MethodPost, path+"/retry", env.keyA, "", nil); r.status != http.StatusConflict {
		t.Fatalf("retry of a pending job: %d %s", r.status, r.raw)
	}
	r := env.send(t, http.MethodPost, path+"/cancel", env.keyA, "", nil)
	if r.status != http.StatusOK || r.body["data"].(map[string]any)["state"] != "canceled" {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	if r := env.send(t, http.MethodPost, path+"/cancel", env.keyA, "", nil); r.status != http.StatusConflict {
		t.Fatalf("cancel twice: %d %s", r.status, r.raw)
	}
	// a failed job, as a worker leaves it, can be retried
	ctx := context.Background()
	failed := env.send(t, http.MethodPost, "/jobs", env.keyA, `{"kind":"jobs:prune","payload":{"date":"2026-11-02"}}`, nil)
	fid := num(t, failed.body["data"].(map[string]any)["id"])
	started, _, err := storage.StartJob(ctx, env.pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: env.compA, ID: fid}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storage.FinishJob(ctx, env.pool, storage.Outcome{RunRef: started.Run(), State: storage.JobFailed, Error: "it broke"}); err != nil {
		t.Fatal(err)
	}
	r = env.send(t, http.MethodPost, fmt.Sprintf("/jobs/%d/retry", fid), env.keyA, "", nil)
	job := r.body["data"].(map[string]any)
	if r.status != http.StatusAccepted || job["state"] != "pending" || job["error"] != nil {
		t.Fatalf("retry: %d %s", r.status, r.raw)
	}
}

// TestStartTransferDirectly: contracts:transfer is started by POST /jobs
// for a date, once per company and date, its date checked.
func TestStartTransferDirectly(t *testing.T) {
	t.Parallel()
	env := setup(t)
	body := `{"kind":"contracts:transfer","payload":{"date":"2024-03-26"}}`
	first := env.send(t, http.MethodPost, "/jobs", env.keyA, body, nil)
	second := env.send(t, http.MethodPost, "/jobs", env.keyA, body, nil)
	if first.status != http.StatusAccepted || num(t, first.body["data"].(map[string]any)["id"]) != num(t, second.body["data"].(map[string]any)["id"]) {
		t.Fatalf("one run per company and date: %s / %s", first.raw, second.raw)
	}
	bad := env.send(t, http.MethodPost, "/jobs", env.keyA, `{"kind":"contracts:transfer","payload":{"date":"2999-01-01"}}`, nil)
	if bad.status != http.StatusUnprocessableEntity || bad.problemFields(t)[0] != "payload.date" {
		t.Errorf("a date after tomorrow: %d %s", bad.status, bad.raw)
	}
	// tomorrow in the company's time zone, east of UTC+12: taken; the day
	// after refused, the message naming the company's tomorrow
	tomorrow := todayInZone(t, env, "Pacific/Kiritimati").AddDays(1)
	ok := env.send(t, http.MethodPost, "/jobs", env.keyA, `{"kind":"contracts:transfer","payload":{"date":"`+tomorrow.String()+`"}}`, nil)
	if ok.status != http.StatusAccepted {
		t.Errorf("the company's tomorrow %s: %d %s", tomorrow, ok.status, ok.raw)
	}
	late := env.send(t, http.MethodPost, "/jobs", env.keyA, `{"kind":"contracts:transfer","payload":{"date":"`+tomorrow.AddDays(1).String()+`"}}`, nil)
	if msg := late.problemMessages(t); late.status != http.StatusUnprocessableEntity || len(msg) != 1 ||
		msg[0] != "must not be after tomorrow, "+tomorrow.String()+", in the company's time zone" {
		t.Errorf("the day after the company's tomorrow: %d %s", late.status, late.raw)
	}
}

// TestRunAheadOfItsNight: a nightly kind started for tomorrow is taken,
// and its 202 warns that the run is that night's (the schedule finds it
// done); a date whose night is past, and a repeat answered with the run
// recorded before, answer no warning.
func TestRunAheadOfItsNight(t *testing.T) {
	t.Parallel()
	env := setup(t)
	tomorrow := today(1)
	for kind, schedule := range map[string]string{
		"contracts:transfer": "contracts-transfer 06:00", "finance:overdue": "finance-overdue 00:05",
		"invoices:generate": "invoices-generate 02:00", "contracts:readjust": "contracts-readjust 01:00",
		"jobs:prune": "jobs-prune 03:30",
	} {
		name, at, _ := strings.Cut(schedule, " ")
		body := fmt.Sprintf(`{"kind":%q,"payload":{"date":%q}}`, kind, tomorrow)
		r := env.send(t, http.MethodPost, "/jobs", env.keyA, body, nil)
		warnings, _ := r.body["warnings"].([]any)
		if r.status != http.StatusAccepted || len(warnings) != 1 {
			t.Errorf("%s of tomorrow: %d %s, want 202 with one warning", kind, r.status, r.raw)
			continue
		}
		w := warnings[0].(map[string]any)
		want := fmt.Sprintf("this run is the night's: schedule %s runs %s of %s at %s that day in the company's time zone, "+
			"and finds it done, so it will not run that date again", name, kind, tomorrow, at)
		if w["field"] != "payload.date" || !strings.HasPrefix(w["message"].(string), want) ||
			!strings.Contains(w["message"].(string), `waits for the next date's run, unless this one is run again ("rerun": true`) {
			t.Errorf("%s of tomorrow: warning %v, want on payload.date %q...", kind, w, want)
		}
		if again := env.send(t, http.MethodPost, "/jobs", env.keyA, body, nil); again.status != http.StatusOK || again.body["warnings"] != nil {
			t.Errorf("%s of tomorrow again: %d %s, want 200 without warnings", kind, again.status, again.raw)
		}
	}
	past := env.send(t, http.MethodPost, "/jobs", env.keyA, `{"kind":"contracts:transfer","payload":{"date":"2024-03-26"}}`, nil)
	if past.status != http.StatusAccepted || past.body["warnings"] != nil {
		t.Errorf("a date whose night is past: %d %s, want 202 without warnings", past.status, past.raw)
	}
}

// TestRerunThroughTheAPI: a run of a date already recorded is answered
// with 200 and a message saying so; "rerun": true makes a new job once
// the date's runs have finished, and answers the one not finished (200)
// while one has not.
func TestRerunThroughTheAPI(t *testing.T) {
	t.Parallel()
	env := setup(t)
	ctx := context.Background()
	post := func(body string, header map[string]string) (int, int64, string) {
		t.Helper()
		r := env.send(t, http.MethodPost, "/jobs", env.keyA, body, header)
		data, _ := r.body["data"].(map[string]any)
		if data == nil {
			t.Fatalf("POST /jobs %s: %d %s", body, r.status, r.raw)
		}
		return r.status, num(t, data["id"]), r.body["message"].(string)
	}
	finish := func(id int64) {
		t.Helper()
		started, _, err := storage.StartJob(ctx, env.pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: env.compA, ID: id}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := storage.FinishJob(ctx, env.pool, storage.Outcome{RunRef: started.Run(), State: storage.JobSucceeded, Result: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	const run = `{"kind":"finance:overdue","payload":{"date":"2026-11-24"}}`
	const rerun = `{"kind":"finance:overdue","payload":{"date":"2026-11-24"},"rerun":true}`
	status, first, msg := post(run, nil)
	if status != http.StatusAccepted || msg != "Accepted." {
		t.Fatalf("the first run: %d %q", status, msg)
	}
	if status, id, msg := post(rerun, nil); status != http.StatusOK || id != first || !strings.Contains(msg, "is pending; nothing was started") {
		t.Errorf("a rerun while the run is pending: %d job %d %q, want 200 with job %d", status, id, msg, first)
	}
	finish(first)
	status, id, msg := post(run, nil)
	if status != http.StatusOK || id != first || msg != fmt.Sprintf(`Job %d is the run of this payload, succeeded; nothing was started. Send "rerun": true to run it again.`, first) {
		t.Errorf("the date again: %d job %d %q", status, id, msg)
	}
	key := map[string]string{"Idempotency-Key": "overdue-again"}
	status, second, msg := post(rerun, key)
	if status != http.StatusAccepted || second == first || msg != "Accepted." {
		t.Fatalf("a rerun once the run finished: %d job %d %q, want 202 with a new job", status, second, msg)
	}
	if status, id, _ := post(rerun, key); status != http.StatusAccepted || id != second {
		t.Errorf("the rerun repeated with its Idempotency-Key: %d job %d, want 202 with job %d", status, id, second)
	}
	if status, id, _ := post(rerun, nil); status != http.StatusOK || id != second {
		t.Errorf("a second rerun while the first is pending: %d job %d, want 200 with job %d", status, id, second)
	}
	if status, id, _ := post(run, nil); status != http.StatusOK || id != second {
		t.Errorf("the date while its rerun is pending: %d job %d, want 200 with the rerun %d", status, id, second)
	}
	if r := env.send(t, http.MethodPost, "/jobs", env.keyA, run, key); r.status != http.StatusUnprocessableEntity ||
		r.problemFields(t)[0] != "Idempotency-Key" {
		t.Errorf("the rerun's Idempotency-Key without rerun: %d %s, want 422", r.status, r.raw)
	}
	if n, _ := jobCount(t, env); n != 2 {
		t.Errorf("%d jobs, want 2 (the run and its rerun)", n)
	}
}

// TestStartJobChecksThePayloadsReferences: a payload naming a contract
// the company does not have is refused at submission, as a body naming
// one is, and nothing is recorded.
func TestStartJobChecksThePayloadsReferences(t *testing.T) {
	t.Parallel()
	env := setup(t)
	contract := func(company int64) int64 {
		tenant := env.scalar(t, `INSERT INTO persons (company_id, name) VALUES ($1, 'Ana') RETURNING id`, company)
		return env.scalar(t, `INSERT INTO contracts (company_id, type, tenant_id) VALUES ($1, 'rent', $2) RETURNING id`, company, tenant)
	}
	own, others := contract(env.compA), contract(env.compB)
	body := func(id int64) string {
		return fmt.Sprintf(`{"kind":"invoices:generate","payload":{"contract_id":%d,"until":"2026-12-31"}}`, id)
	}
	for name, id := range map[string]int64{"another company's": others, "no such": others + 1000} {
		r := env.send(t, http.MethodPost, "/jobs", env.keyA, body(id), nil)
		if r.status != http.StatusUnprocessableEntity || r.problemFields(t)[0] != "payload.contract_id" ||
			!strings.Contains(r.raw, fmt.Sprintf("no contracts with id %d", id)) {
			t.Errorf("%s contract: %d %s, want 422 naming payload.contract_id", name, r.status, r.raw)
		}
	}
	if n, _ := jobCount(t, env); n != 0 {
		t.Fatalf("%d jobs recorded for refused payloads", n)
	}
	if r := env.send(t, http.MethodPost, "/jobs", env.keyA, body(own), nil); r.status != http.StatusAccepted {
		t.Errorf("its own contract: %d %s, want 202", r.status, r.raw)
	}
}
