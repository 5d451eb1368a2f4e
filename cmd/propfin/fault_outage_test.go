package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// The outage tests of the fault suite: an API process and a worker under
// the load of fault_load_test.go while Redis or PostgreSQL stops, or the
// API is killed. Each logs what the clients saw, phase by phase, and the
// after-checks' findings.

// outageEnv is what every outage test sets: quiet jobs are looked at
// after 5 s (Redis restarts empty), and the rate limit is out of the way.
var outageEnv = []string{"PROPFIN_JOB_QUIET_AFTER=5s", fmt.Sprintf("PROPFIN_RATE_LIMIT=%d", faultLoadRateLimit)}

// outageContracts is how many contracts POST /jobs generates invoices for.
const outageContracts = 20

// outage is a fault environment with an API, a worker and the load.
type outage struct {
	*faultEnv
	plan    faultPlan
	company int64
	addr    string
	api     *proc
	worker  *proc
	load    *faultLoad
}

func startOutage(t *testing.T, f *faultEnv, name string) *outage {
	t.Helper()
	o := &outage{faultEnv: f, plan: faultPlanFor(t), addr: freeAddr(t)}
	o.company = f.company(t, name, jobs.DefaultTimeZone)
	o.api = f.startAPI(t, "api", o.addr)
	o.worker = startProc(t, "worker", f.env, "worker")
	o.load = newFaultLoad(t, f, o.addr, o.company, outageContracts)
	return o
}

// alive fails the test when a process has ended: the processes must live
// through the fault.
func alive(t *testing.T, procs ...*proc) {
	t.Helper()
	for _, p := range procs {
		select {
		case <-p.done:
			t.Errorf("%s ended during the fault: %v", p.name, p.cmd.ProcessState)
		default:
		}
	}
}

// finish checks the answers and the database after the load, and logs
// both.
func (o *outage) finish(t *testing.T, wait time.Duration) afterFault {
	t.Helper()
	o.load.checkAnswers(t)
	a := checkAfterFault(t, o.faultEnv, o.company, o.load, wait)
	t.Logf("what the clients saw (status×count; refused: no server listened; cut: no answer came):\n%safter: %s", o.load.report(), a)
	return a
}

// TestRedisOutageUnderLoad stops Redis (kill -9, restarted empty) for 30
// s while clients list, create, update and pay invoices and submit jobs
// (POST /pix/validate and POST /jobs): Redis is on no request's path, so
// every answer is a 2xx (the rate limiter lets requests through, the
// submissions wait in PostgreSQL), and once Redis is back every job runs,
// once.
func TestRedisOutageUnderLoad(t *testing.T) {
	t.Parallel()
	o := startOutage(t, newFaultEnv(t, outageEnv...), "Redis Outage")
	o.load.run(o.plan.clients, "before")
	time.Sleep(o.plan.steady)
	o.load.setPhase("redis down")
	stopped := time.Now()
	o.redis.Stop(t)
	time.Sleep(o.plan.redisDown)
	o.redis.Start(t)
	back := time.Now()
	o.load.phaseFor("after", o.plan.steady)
	o.load.halt()
	alive(t, o.api, o.worker)
	for _, phase := range o.load.phases {
		o.load.only(t, phase, http.StatusOK)
	}
	if s := o.load.statuses("redis down", opPix, opJob); s[http.StatusAccepted] == 0 {
		t.Errorf("no submission accepted while Redis was down: %v", s)
	}
	a := o.finish(t, 3*time.Minute)
	if a.maxAttempts != 1 {
		t.Errorf("a job ran %d times; want each once", a.maxAttempts)
	}
	var waited int
	var last time.Time
	if err := o.pool.QueryRow(context.Background(), `SELECT count(*), max(started_at) FROM jobs
		WHERE company_id = $1 AND created_at BETWEEN $2 AND $3`, o.company, stopped, back).Scan(&waited, &last); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d jobs submitted during the outage waited for Redis; the last started %.1fs after Redis was back",
		waited, last.Sub(back).Seconds())
}

// TestPostgresRestartUnderLoad stops PostgreSQL for 5 s under the load,
// as a restart does (pg_ctl stop -m fast) and as a crash does (-m
// immediate: transactions in flight are lost, the start recovers from the
// WAL), and starts it again on the same port. While it is down the API
// answers 503 in the envelope with Retry-After (never a 500, never no
// answer), the processes recover by themselves, and afterwards every
// request answered 2xx is in the database once, the submissions and
// payments sent again double nothing, nothing is half-written, and every
// job succeeds.
func TestPostgresRestartUnderLoad(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		stop func(*storagetest.Postgres, testing.TB)
	}{
		{"restart", (*storagetest.Postgres).Stop},
		{"crash", (*storagetest.Postgres).Crash},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := startOutage(t, newFaultEnvOwnPostgres(t, outageEnv...), "Postgres "+c.name)
			o.load.run(o.plan.clients, "before")
			time.Sleep(o.plan.steady)
			o.load.setPhase("pg down")
			c.stop(o.postgres, t)
			time.Sleep(o.plan.postgresDown)
			o.postgres.Start(t)
			o.load.phaseFor("pg back", 2*time.Second)
			o.load.phaseFor("after", o.plan.steady)
			o.load.halt()
			o.load.retryUnsure("retries")
			alive(t, o.api, o.worker)
			o.load.only(t, "before", http.StatusOK)
			o.load.only(t, "pg down", http.StatusOK, http.StatusServiceUnavailable)
			o.load.only(t, "pg back", http.StatusOK, http.StatusServiceUnavailable)
			o.load.only(t, "after", http.StatusOK)
			o.load.only(t, "retries", http.StatusOK)
			if s := o.load.statuses("pg down"); s[http.StatusServiceUnavailable] == 0 {
				t.Errorf("no 503 while PostgreSQL was down: %v", s)
			}
			o.finish(t, 3*time.Minute)
		})
	}
}

// TestAPIKilledDuringWrites kills the API process (kill -9) while clients
// create, update and pay invoices and submit jobs, and starts a new one
// on the same address a second later. Requests in flight get no answer;
// afterwards the clients send again the submissions (same Idempotency-Key)
// and payments left without one. Every request answered 2xx is in the
// database exactly once, the retries double nothing, and nothing is
// half-written.
func TestAPIKilledDuringWrites(t *testing.T) {
	t.Parallel()
	o := startOutage(t, newFaultEnv(t, outageEnv...), "API Kill")
	o.load.run(o.plan.clients, "before")
	time.Sleep(o.plan.steady)
	for i := range o.plan.apiKills {
		o.load.setPhase("api down")
		o.api.kill()
		time.Sleep(time.Second)
		o.api = o.startAPI(t, fmt.Sprintf("api %d", i+2), o.addr)
		o.load.phaseFor("after", o.plan.steady)
	}
	o.load.halt()
	o.load.retryUnsure("retries")
	alive(t, o.api, o.worker)
	o.load.only(t, "before", http.StatusOK)
	o.load.only(t, "api down", http.StatusOK, statusRefused, statusCut)
	o.load.only(t, "after", http.StatusOK)
	o.load.only(t, "retries", http.StatusOK)
	if s := o.load.statuses("api down"); s[statusRefused] == 0 {
		t.Errorf("no request was refused while the API was down: %v", s)
	}
	o.finish(t, 3*time.Minute)
}

// TestRedisLostMidJob stops Redis (kill -9, restarted empty) while a
// worker runs a long job, for longer than asynq's lease on the task: the
// run stops, and the job row and the log say the worker lost Redis, not
// that it shut down; once Redis is back the relay enqueues the job again
// at once, not after PROPFIN_JOB_QUIET_AFTER (2 minutes here), and it
// finishes once, resumed where it stopped.
func TestRedisLostMidJob(t *testing.T) {
	t.Parallel()
	// six chunks, 8 s apart: the run outlasts the lease after Redis stops
	f := newFaultEnv(t, "PROPFIN_JOB_CHUNK_PAUSE=8s", "PROPFIN_JOB_QUIET_AFTER=2m")
	company := f.company(t, "Lost Redis", jobs.DefaultTimeZone)
	job, payloads, broken := f.pixJob(t, company, 30_000)
	worker := startProc(t, "worker", f.env, "worker")
	f.waitProgress(t, job, 1)
	f.redis.Stop(t)
	stopped := time.Now()
	eventually(t, 60*time.Second, "the run to be handed back", func() error {
		if j := f.job(t, company, job.ID); j.State != storage.JobQueued {
			return fmt.Errorf("state %s progress %+v", j.State, j.Progress)
		}
		return nil
	})
	handed := f.job(t, company, job.ID)
	f.redis.Start(t)
	back := time.Now()
	if !strings.Contains(handed.Error, "lost Redis") || strings.Contains(handed.Error, "shutdown") {
		t.Errorf("the job handed back says %q; want that its worker lost Redis", handed.Error)
	}
	if out := worker.out.String(); !strings.Contains(out, "the worker lost Redis") || strings.Contains(out, "interrupted by the shutdown") {
		t.Errorf("the worker's log does not say it lost Redis:\n%s", tail(out, 30))
	}
	eventually(t, 30*time.Second, "the job to run again", func() error {
		if j := f.job(t, company, job.ID); j.Attempts < 2 || j.State == storage.JobQueued {
			return fmt.Errorf("state %s attempts %d", j.State, j.Attempts)
		}
		return nil
	})
	again := time.Since(back)
	done := f.waitFinished(t, job, 2*time.Minute)
	checkPixResult(t, done, len(payloads), broken)
	if done.Attempts != 2 {
		t.Errorf("attempts %d, want 2", done.Attempts)
	}
	t.Logf("the run was handed back at %d of 30000, %.1fs after Redis stopped (%q); it ran again %.1fs after Redis was back",
		handed.Progress.Done, back.Sub(stopped).Seconds(), handed.Error, again.Seconds())
}
