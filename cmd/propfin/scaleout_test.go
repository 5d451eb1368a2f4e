package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/jobs/redisurl"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// scaleOutRateLimit is the requests per minute per key of the scale-out
// tests: low, so that a burst meets it.
const scaleOutRateLimit = 10

// TestScaleOutRedis runs propfin serve, worker and scheduler processes on
// a real Redis Cluster of three masters, and on a master watched by a
// Sentinel: a job submitted through the API is relayed and run, the
// scheduler's jobs run, asynq's queues are on that Redis (read back there
// and through the dashboard), and the API's rate limit answers 429. On
// Sentinel, the master is then killed: after the failover a new job runs.
func TestScaleOutRedis(t *testing.T) {
	t.Parallel()
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		cluster := storagetest.NewRedisCluster(t)
		s := startScaleOut(t, "redis-cluster://"+strings.Join(cluster.Addrs, ","))
		s.submitAndRun(t, "on the cluster")
		s.checkScheduled(t)
		s.checkQueues(t)
		s.checkRateLimit(t)
	})
	t.Run("sentinel", func(t *testing.T) {
		t.Parallel()
		sentinel := storagetest.NewRedisSentinel(t)
		s := startScaleOut(t, "redis-sentinel://"+sentinel.Addr+"/"+sentinel.Master)
		s.submitAndRun(t, "on the first master")
		s.checkScheduled(t)
		s.checkQueues(t)
		s.checkRateLimit(t)
		promoted := sentinel.KillMaster(t)
		t.Logf("the Sentinel promoted %s", promoted)
		s.submitAndRun(t, "after the failover")
	})
}

// scaleOut is a database, Redis, and propfin's three processes on them.
type scaleOut struct {
	*faultEnv
	target  *redisurl.Target
	api     string
	company int64
	keys    [2]string // jobs are submitted with the first, the rate limit met with the second
}

// scaleOutToken is the admin token of the scale-out tests' API.
const scaleOutToken = "scale-out-admin-token-0123456789"

func startScaleOut(t *testing.T, redisURL string) *scaleOut {
	t.Helper()
	target, err := redisurl.Parse(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	f := &faultEnv{pool: storagetest.NewDB(t)}
	f.env = []string{"DATABASE_URL=" + storagetest.URL(t), "REDIS_URL=" + redisURL,
		fmt.Sprintf("PROPFIN_RATE_LIMIT=%d", scaleOutRateLimit), "PROPFIN_ADMIN_TOKEN=" + scaleOutToken,
		"PROPFIN_SCHEDULE_JOBS_PRUNE=@every 1s"}
	s := &scaleOut{faultEnv: f, target: target, api: freeAddr(t)}
	s.company = f.company(t, "Scale Out", jobs.DefaultTimeZone)
	for i := range s.keys {
		key, err := storage.CreateAPIKey(context.Background(), f.pool, s.company, firstUser(t, f.pool, s.company), "scale out")
		if err != nil {
			t.Fatal(err)
		}
		s.keys[i] = key.Key
	}
	startProc(t, "api", f.env, "serve", "--addr", s.api)
	startProc(t, "worker", f.env, "worker")
	startProc(t, "scheduler", f.env, "scheduler")
	waitHTTP(t, "http://"+s.api+"/healthz")
	return s
}

// submitAndRun submits a pix:validate job through the API and waits for
// the worker to have run it, through Redis.
func (s *scaleOut) submitAndRun(t *testing.T, phase string) {
	t.Helper()
	payloads, broken := fakePayloads(t, jobs.MaxInlinePix+20)
	body, _ := json.Marshal(map[string]any{"payloads": payloads})
	req, _ := http.NewRequest(http.MethodPost, "http://"+s.api+"/pix/validate", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+s.keys[0])
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var env struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if res.StatusCode != http.StatusAccepted || json.Unmarshal(raw, &env) != nil {
		t.Fatalf("%s: submit answered %d %s", phase, res.StatusCode, raw)
	}
	job := s.waitFinished(t, storage.Job{CompanyID: s.company, ID: env.Data.ID}, 60*time.Second)
	checkPixResult(t, job, len(payloads), broken)
	if job.Attempts != 1 {
		t.Errorf("%s: job %d ran %d times", phase, job.ID, job.Attempts)
	}
}

// checkScheduled waits for two of the scheduler's runs (one a second) to
// have been relayed and run.
func (s *scaleOut) checkScheduled(t *testing.T) {
	t.Helper()
	eventually(t, 60*time.Second, "two scheduled jobs:prune to succeed", func() error {
		var n int
		err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs
			WHERE kind = $1 AND state = 'succeeded'`, jobs.KindJobsPrune).Scan(&n)
		if err == nil && n < 2 {
			err = fmt.Errorf("%d succeeded", n)
		}
		return err
	})
}

// checkQueues reads asynq's queues on the Redis of the test, directly and
// through the dashboard: the jobs went through it.
func (s *scaleOut) checkQueues(t *testing.T) {
	t.Helper()
	inspector := asynq.NewInspector(s.target.Asynq())
	defer inspector.Close()
	queues, err := inspector.Queues()
	if err != nil || !slices.Contains(queues, jobs.QueueDefault) || !slices.Contains(queues, jobs.QueueLow) {
		t.Errorf("asynq queues on %s: %v %v, want %s and %s among them", s.target, queues, err, jobs.QueueDefault, jobs.QueueLow)
	}
	if info, err := inspector.GetQueueInfo(jobs.QueueDefault); err != nil || info.Processed < 1 {
		t.Errorf("queue %s on %s: %+v %v, want a processed task", jobs.QueueDefault, s.target, info, err)
	}
	if got := get(t, "http://"+s.api+"/monitoring/api/queues", scaleOutToken); got.status != http.StatusOK ||
		!strings.Contains(got.body, `"queue":"`+jobs.QueueDefault+`"`) {
		t.Errorf("the dashboard's queues: %d %.300s", got.status, got.body)
	}
}

// checkRateLimit sends requests with the second key until one is refused:
// the limit is kept in the Redis of the test (with Redis out of reach,
// every request would be served).
func (s *scaleOut) checkRateLimit(t *testing.T) {
	t.Helper()
	var statuses []int
	for range 4 * scaleOutRateLimit {
		got := get(t, "http://"+s.api+"/buildings/types", s.keys[1])
		statuses = append(statuses, got.status)
		if got.status == http.StatusTooManyRequests {
			if !strings.Contains(got.body, "Too Many Attempts.") {
				t.Errorf("429 answer: %s", got.body)
			}
			break
		}
	}
	if statuses[0] != http.StatusOK || statuses[len(statuses)-1] != http.StatusTooManyRequests {
		t.Errorf("%d requests in a burst at a limit of %d a minute answered %v: want 200 first and a 429", len(statuses),
			scaleOutRateLimit, statuses)
	}
	t.Logf("the rate limit of %d a minute answered 429 at request %d", scaleOutRateLimit, len(statuses))
}
