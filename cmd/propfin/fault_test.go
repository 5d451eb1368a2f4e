package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/pix"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// The fault suite: real propfin processes (the test binary acting as
// propfin, see TestMain) on a real PostgreSQL and a real redis-server,
// broken while they work. Each test records what clients saw (statuses,
// counted) and checks afterwards that no invoice, line, ledger entry or
// job is missing or doubled (fault_check_test.go). docs/operations.md,
// "Fault suite", has the results as measured.
//
//   - a worker killed (SIGKILL) mid-job: TestWorkerKilledMidJobResumes;
//     during the nightly generation: TestNightlyGenerationKilledMidRun
//   - a worker stopped (SIGTERM) mid-job: TestWorkerSIGTERMHandsTheJobBack
//   - two schedulers at once: TestTwoSchedulersOneRunPerCompanyAndDate
//   - Redis stopped under API load and submissions: TestRedisOutageUnderLoad
//   - Redis stopped while a worker runs a long job: TestRedisLostMidJob
//   - a database one migration behind the binary: TestSchemaBehindTheBinary
//     (schema_test.go)
//   - PostgreSQL restarted under load: TestPostgresRestartUnderLoad
//   - the API killed (SIGKILL) during writes: TestAPIKilledDuringWrites
//   - a worker killed during a batch's remittance, inside its transaction:
//     TestBatchFileKilledMidWrite; during a bank's return file:
//     TestBatchReturnKilledMidWay (fault_batch_test.go)
//
// Without redis-server the suite is skipped (it would test miniredis),
// and fails under PROPFIN_TEST_REAL_REDIS=1, as in CI. PROPFIN_SOAK=1 runs
// the longer variants (faultPlanFor).

// faultEnv is a database, a Redis the test can stop, and the environment
// that points propfin processes at them.
type faultEnv struct {
	pool     *pgxpool.Pool
	redis    *storagetest.Redis
	postgres *storagetest.Postgres // set when the test may stop PostgreSQL
	env      []string
}

// newFaultEnv is a fault environment on a database of the test binary's
// shared server.
func newFaultEnv(t *testing.T, extra ...string) *faultEnv {
	t.Helper()
	f := &faultEnv{redis: storagetest.NewRedisServer(t), pool: storagetest.NewDB(t)}
	f.setEnv(storagetest.URL(t), extra)
	return f
}

// newFaultEnvOwnPostgres is a fault environment on a PostgreSQL server of
// the test's own, which it may stop and start (f.postgres).
func newFaultEnvOwnPostgres(t *testing.T, extra ...string) *faultEnv {
	t.Helper()
	f := &faultEnv{redis: storagetest.NewRedisServer(t)} // first: without it the test is skipped before initdb
	f.postgres = storagetest.NewPostgres(t)
	f.pool = f.postgres.Pool
	f.setEnv(f.postgres.URL, extra)
	return f
}

// setEnv points propfin processes at the database of url and the Redis.
func (f *faultEnv) setEnv(url string, extra []string) {
	f.env = append([]string{"DATABASE_URL=" + url, "REDIS_URL=" + f.redis.URL()}, extra...)
}

// startAPI starts `propfin serve` on addr and waits until it answers.
func (f *faultEnv) startAPI(t *testing.T, name, addr string) *proc {
	t.Helper()
	p := startProc(t, name, f.env, "serve", "--addr", addr)
	waitHTTP(t, "http://"+addr+"/healthz")
	return p
}

// faultSoakEnv, set to 1, runs the fault tests' longer variants.
const faultSoakEnv = "PROPFIN_SOAK"

// faultPlan is how long and how hard the outage tests push.
type faultPlan struct {
	clients      int           // clients of the load
	steady       time.Duration // the load before the fault and after recovery
	redisDown    time.Duration // how long Redis stays stopped
	postgresDown time.Duration // how long PostgreSQL stays stopped
	apiKills     int           // how many times the API is killed
}

// faultPlanFor is the plan of the run: short enough for CI by default,
// longer under PROPFIN_SOAK=1 (by hand; docs/operations.md).
func faultPlanFor(t *testing.T) faultPlan {
	if os.Getenv(faultSoakEnv) == "1" {
		t.Logf("%s=1: the soak variant", faultSoakEnv)
		return faultPlan{clients: 8, steady: 10 * time.Second, redisDown: 2 * time.Minute,
			postgresDown: 30 * time.Second, apiKills: 5}
	}
	return faultPlan{clients: 4, steady: 3 * time.Second, redisDown: 30 * time.Second,
		postgresDown: 5 * time.Second, apiKills: 1}
}

func (f *faultEnv) company(t *testing.T, name, zone string) int64 {
	t.Helper()
	ctx := context.Background()
	id, _, err := storage.EnsureCompany(ctx, f.pool, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `UPDATE companies SET time_zone = $2 WHERE id = $1`, id, zone); err != nil {
		t.Fatal(err)
	}
	return id
}

func (f *faultEnv) job(t *testing.T, companyID, id int64) storage.Job {
	t.Helper()
	job, err := storage.GetJob(context.Background(), f.pool, companyID, id)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// pixJob submits a pix:validate job of n payloads for company, and gives
// the payloads and the indexes of the broken ones.
func (f *faultEnv) pixJob(t *testing.T, company int64, n int) (storage.Job, []string, map[int]bool) {
	t.Helper()
	payloads, broken := fakePayloads(t, n)
	kinds, err := jobs.Kinds(jobs.KindsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := jobs.NewPixValidate(payloads)
	if err != nil {
		t.Fatal(err)
	}
	job, _, err := kinds.Submit(context.Background(), f.pool, company, sub)
	if err != nil {
		t.Fatal(err)
	}
	return job, payloads, broken
}

// waitProgress waits until a job has done at least done units.
func (f *faultEnv) waitProgress(t *testing.T, job storage.Job, done int64) {
	t.Helper()
	eventually(t, 60*time.Second, fmt.Sprintf("job %d to do %d", job.ID, done), func() error {
		if j := f.job(t, job.CompanyID, job.ID); j.Progress.Done < done {
			return fmt.Errorf("progress %+v, state %s", j.Progress, j.State)
		}
		return nil
	})
}

// waitFinished waits until a job is finished, and returns it.
func (f *faultEnv) waitFinished(t *testing.T, job storage.Job, timeout time.Duration) storage.Job {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("job %d to finish", job.ID), func() error {
		if j := f.job(t, job.CompanyID, job.ID); !j.Finished() {
			return fmt.Errorf("state %s progress %+v", j.State, j.Progress)
		}
		return nil
	})
	return f.job(t, job.CompanyID, job.ID)
}

// fakePayloads makes n PIX payloads, every fifth with a broken CRC, and
// the indexes of the broken ones.
func fakePayloads(t *testing.T, n int) ([]string, map[int]bool) {
	t.Helper()
	out := make([]string, n)
	broken := map[int]bool{}
	for i := range out {
		p, err := pix.BuildStatic(pix.Static{Key: "pix@example.com", Name: "Imobiliaria", City: "SAO PAULO",
			Amount: fmt.Sprintf("%d.%02d", i+1, i%100), TxID: fmt.Sprintf("T%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			p = p[:len(p)-4] + "0000"
			if _, probs := pix.Validate(p); len(probs) == 0 {
				continue // the CRC happened to be 0000
			}
			broken[i] = true
		}
		out[i] = p
	}
	return out, broken
}

// checkPixResult checks a finished pix:validate job: every payload
// counted once, the broken ones listed once each, in order.
func checkPixResult(t *testing.T, job storage.Job, n int, broken map[int]bool) {
	t.Helper()
	if job.State != storage.JobSucceeded {
		t.Fatalf("job %d is %s (%s)", job.ID, job.State, job.Error)
	}
	var res jobs.PixJobResult
	if err := json.Unmarshal(job.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.Total != n || res.Invalid != len(broken) || res.Valid != n-len(broken) || len(res.Problems) != len(broken) {
		t.Fatalf("totals %d/%d/%d with %d problems, want %d/%d/%d", res.Total, res.Valid, res.Invalid, len(res.Problems), n, n-len(broken), len(broken))
	}
	last := -1
	for _, p := range res.Problems {
		if !broken[p.Index] || p.Index <= last {
			t.Fatalf("problem at index %d (after %d): listed twice, out of order or not broken", p.Index, last)
		}
		last = p.Index
	}
}

// TestWorkerKilledMidJobResumes kills a worker (kill -9) in the middle of
// a 10,000-payload validation; a new worker finishes the job, which
// counts two attempts and records each payload's result once.
func TestWorkerKilledMidJobResumes(t *testing.T) {
	t.Parallel()
	// two chunks of 5,000, a second apart: the kill lands between them
	f := newFaultEnv(t, "PROPFIN_JOB_CHUNK_PAUSE=1s", "PROPFIN_WORKER_CONCURRENCY=2")
	company := f.company(t, "Kill Test", jobs.DefaultTimeZone)
	job, payloads, broken := f.pixJob(t, company, 10_000)
	first := startProc(t, "worker 1", f.env, "worker")
	f.waitProgress(t, job, 3_000)
	first.kill()
	atKill := f.job(t, company, job.ID)
	if atKill.State != storage.JobRunning || atKill.Progress.Done >= 10_000 {
		t.Fatalf("after kill -9 the job is %s at %+v; the kill came too late to test anything", atKill.State, atKill.Progress)
	}
	startProc(t, "worker 2", f.env, "worker")
	// asynq hands a task back once its lease (30 s) has expired and its
	// recoverer (every minute) sees it
	done := f.waitFinished(t, job, 4*time.Minute)
	checkPixResult(t, done, len(payloads), broken)
	if done.Attempts != 2 {
		t.Errorf("attempts %d, want 2 (the killed run and the resumed one)", done.Attempts)
	}
	// the killed run is among the job's errors: it recorded no outcome
	errs, err := storage.JobErrors(context.Background(), f.pool, company, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || errs[0].Attempt != 1 || errs[0].Final || !strings.Contains(errs[0].Error, "recorded no outcome") ||
		errs[0].StartedAt == nil {
		t.Errorf("errors %+v, want the killed run's alone", errs)
	}
	var chunks int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM job_chunks`).Scan(&chunks); err != nil || chunks != 0 {
		t.Errorf("%d chunk rows left (%v)", chunks, err)
	}
	t.Logf("killed at %d of 10000; finished after the restart with %d attempts", atKill.Progress.Done, done.Attempts)
}

// TestWorkerSIGTERMHandsTheJobBack stops a worker with SIGTERM while a job
// runs longer than the shutdown timeout: the worker exits within it, the
// job goes back to the queue, and the next worker finishes it.
func TestWorkerSIGTERMHandsTheJobBack(t *testing.T) {
	t.Parallel()
	// six chunks, 700 ms apart: more than the shutdown timeout is left
	f := newFaultEnv(t, "PROPFIN_JOB_CHUNK_PAUSE=700ms", "PROPFIN_WORKER_SHUTDOWN_TIMEOUT=1s")
	company := f.company(t, "Term Test", jobs.DefaultTimeZone)
	job, payloads, broken := f.pixJob(t, company, 30_000)
	first := startProc(t, "worker 1", f.env, "worker")
	f.waitProgress(t, job, 2_000)
	start := time.Now()
	first.stop(t, 15*time.Second)
	stopped := time.Since(start)
	atStop := f.job(t, company, job.ID)
	if atStop.Finished() {
		t.Fatalf("the job finished during the shutdown; it should have been handed back")
	}
	startProc(t, "worker 2", f.env, "worker")
	done := f.waitFinished(t, job, 2*time.Minute)
	checkPixResult(t, done, len(payloads), broken)
	if done.Attempts != 2 {
		t.Errorf("attempts %d, want 2", done.Attempts)
	}
	t.Logf("SIGTERM at %d of 30000 (state %s, %q); the worker exited in %s", atStop.Progress.Done, atStop.State, atStop.Error, stopped.Round(time.Millisecond))
}

// TestTwoSchedulersOneRunPerCompanyAndDate runs two schedulers at once,
// firing every second, then restarts one: each company has one run per
// date in its own time zone.
func TestTwoSchedulersOneRunPerCompanyAndDate(t *testing.T) {
	t.Parallel()
	f := newFaultEnv(t, "PROPFIN_SCHEDULE_JOBS_PRUNE=@every 1s")
	zones := map[int64]string{
		f.company(t, "Paulista", "America/Sao_Paulo"): "America/Sao_Paulo",
		f.company(t, "Manauara", "America/Manaus"):    "America/Manaus",
		f.company(t, "Noronha", "America/Noronha"):    "America/Noronha",
	}
	a := startProc(t, "scheduler a", f.env, "scheduler")
	b := startProc(t, "scheduler b", f.env, "scheduler")
	time.Sleep(4 * time.Second)
	a.stop(t, 10*time.Second)
	startProc(t, "scheduler a again", f.env, "scheduler")
	time.Sleep(3 * time.Second)
	b.stop(t, 10*time.Second)

	rows, err := f.pool.Query(context.Background(), `SELECT company_id, payload->>'date', count(*) FROM jobs
		WHERE kind = 'jobs:prune' GROUP BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	today := map[int64]bool{}
	for rows.Next() {
		var company int64
		var date string
		var n int
		if err := rows.Scan(&company, &date, &n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("company %d has %d runs of %s", company, n, date)
		}
		loc, _ := time.LoadLocation(zones[company])
		if date == time.Now().In(loc).Format(time.DateOnly) {
			today[company] = true
		}
	}
	for company, zone := range zones {
		if !today[company] {
			t.Errorf("company %d (%s) has no run for its today", company, zone)
		}
	}
}

func firstUser(t *testing.T, pool *pgxpool.Pool, company int64) int64 {
	t.Helper()
	var id int64
	if err := pool.QueryRow(context.Background(), `SELECT id FROM users WHERE company_id = $1 ORDER BY id LIMIT 1`, company).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func waitHTTP(t *testing.T, url string) {
	t.Helper()
	eventually(t, 30*time.Second, url, func() error {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
		}
		return err
	})
}
