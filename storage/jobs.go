package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propfin/propfin/finance"
)

// Job states. A job is pending until the relay hands it to Redis, queued
// there (also while it waits for a retry), running while a worker has it,
// and ends succeeded, failed or canceled.
const (
	JobPending   = "pending"
	JobQueued    = "queued"
	JobRunning   = "running"
	JobSucceeded = "succeeded"
	JobFailed    = "failed"
	JobCanceled  = "canceled"
)

// JobStates are the states of a job, in the order of its life.
var JobStates = []string{JobPending, JobQueued, JobRunning, JobSucceeded, JobFailed, JobCanceled}

// JobsChannel is the PostgreSQL notification channel a submission signals,
// so that the relay wakes at once instead of at its next poll.
const JobsChannel = "propfin_jobs"

// Progress is how much of a job is done.
type Progress struct {
	Done  int64 `json:"done"`
	Total int64 `json:"total"`
}

// Job is one job row.
type Job struct {
	CompanyID   int64
	ID          int64
	Kind        string
	Queue       string
	State       string
	Payload     json.RawMessage // read by StartJob only
	Progress    Progress
	Result      json.RawMessage
	Error       string
	Attempts    int
	Generation  int
	SubmittedBy string
	CreatedAt   time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
}

// TaskID is the job's asynq task id: its id, then id.generation after a
// retry asked through the API, so that enqueueing twice enqueues once.
func (j Job) TaskID() string {
	return JobTaskID(j.ID, j.Generation)
}

// JobTaskID is the asynq task id of job id at generation.
func JobTaskID(id int64, generation int) string {
	if generation == 0 {
		return strconv.FormatInt(id, 10)
	}
	return strconv.FormatInt(id, 10) + "." + strconv.Itoa(generation)
}

// Finished says whether the job has reached a final state.
func (j Job) Finished() bool {
	return j.State == JobSucceeded || j.State == JobFailed || j.State == JobCanceled
}

// NewJob is a job to submit.
type NewJob struct {
	Kind      string
	Queue     string
	Payload   json.RawMessage
	UniqueKey string // "": none
	// Rerun asks for a run of UniqueKey again when one was recorded: a new
	// job, unless a run of the key has not finished (that one is answered).
	Rerun       bool
	SubmittedBy string // "api_key:12", "scheduler", ...
	UserID      int64  // 0: none
	// IdempotencyKey is a client's key for the request, RequestHash the
	// hash of that request: the same key with another hash is refused.
	IdempotencyKey string
	RequestHash    []byte
}

// payload is the job's payload, {} when it has none.
func (nj NewJob) payload() json.RawMessage {
	if len(nj.Payload) == 0 {
		return json.RawMessage("{}")
	}
	return nj.Payload
}

// jobColumns are the columns of a Job but its payload, which only the
// worker reads (StartJob): a bulk job's payload is megabytes.
const jobColumns = `company_id, id, kind, queue, state, progress, result, error, attempts,
	generation, submitted_by, created_at, started_at, finished_at`

// scanJob reads jobColumns. JSON is read as bytes, as stored: pgx would
// decode it into a json.RawMessage to check it.
func scanJob(row pgx.Row) (Job, error) {
	var j Job
	var result []byte
	var errText *string
	err := row.Scan(&j.CompanyID, &j.ID, &j.Kind, &j.Queue, &j.State, &j.Progress, &result,
		&errText, &j.Attempts, &j.Generation, &j.SubmittedBy, &j.CreatedAt, &j.StartedAt, &j.FinishedAt)
	if result != nil {
		j.Result = result
	}
	if errText != nil {
		j.Error = *errText
	}
	return j, err
}

// Found says what a submission found recorded before it, instead of
// recording a new job.
type Found int

const (
	FoundNothing     Found = iota // a new job was recorded
	FoundSameRequest              // the job of the same Idempotency-Key and request
	// FoundSameKey is a run of the same unique key: the one not finished
	// when there is one, else the latest. A plain submission finds it when
	// the key has any run; a rerun, when a run of the key has not finished.
	FoundSameKey
)

// unfinishedRunIndex is the index that keeps the runs of a unique key
// from overlapping (migration 0026).
const unfinishedRunIndex = "jobs_unique_key_unfinished"

// SubmitJob records a job in q, normally the transaction of the business
// write that asks for it, and signals the relay. When the job's unique key
// or idempotency key is taken, it returns the job that holds it and what
// it found; an idempotency key sent with another request, or held by an
// operation that answers at once (KeyedWrite), is Invalid. With
// nj.Rerun a key already run gets a new run, numbered after its last, as
// long as none of its runs is unfinished.
func SubmitJob(ctx context.Context, q DBTX, companyID int64, nj NewJob) (job Job, found Found, err error) {
	if nj.IdempotencyKey == "" && !nj.Rerun {
		return submitPlainJob(ctx, q, companyID, nj)
	}
	payload := nj.payload()
	// one statement inserts and, unless this process did a moment ago,
	// signals the relay (delivered at commit)
	row := q.QueryRow(ctx, `WITH new AS (
			INSERT INTO jobs (company_id, kind, queue, payload, unique_key, submitted_by, user_id,
				idempotency_key, request_hash, rerun)
			SELECT $1, $2, $3, $4, nullif($5, ''), $6, nullif($7, 0), nullif($8, ''), $9,
				CASE WHEN $11::boolean THEN (SELECT coalesce(max(rerun) + 1, 0) FROM jobs
					WHERE company_id = $1 AND kind = $2 AND unique_key = $5) ELSE 0 END
			-- a key an operation that answers at once holds (KeyedWrite) is not a job's
			WHERE $8 = '' OR NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE company_id = $1 AND key = $8)
			ON CONFLICT DO NOTHING
			RETURNING `+jobColumns+`)
		SELECT new.*, CASE WHEN $12::boolean THEN pg_notify($10, '') IS NULL ELSE false END FROM new`,
		companyID, nj.Kind, nj.Queue, []byte(payload), nj.UniqueKey, nj.SubmittedBy, nj.UserID, nj.IdempotencyKey, nj.RequestHash,
		JobsChannel, nj.Rerun, notifyNow())
	var notified bool
	job, err = scanJob(suffixScan{row, &notified})
	if err == nil {
		return job, FoundNothing, nil
	}
	if err != pgx.ErrNoRows {
		return Job{}, FoundNothing, translate(err, "submit job")
	}
	return existingJob(ctx, q, companyID, nj)
}

// submitPlainJob is SubmitJob for a job without an idempotency key nor a
// rerun, most of them (a schedule's, an emission's, a bulk write's): an
// insert of the row as given that returns only what the database chose,
// its id and its time, the rest of the new row being known already; no
// idempotency key to look up, no run of the key to count.
func submitPlainJob(ctx context.Context, q DBTX, companyID int64, nj NewJob) (Job, Found, error) {
	job := Job{CompanyID: companyID, Kind: nj.Kind, Queue: nj.Queue, State: JobPending, SubmittedBy: nj.SubmittedBy}
	var notified bool
	err := q.QueryRow(ctx, `WITH new AS (
			INSERT INTO jobs (company_id, kind, queue, payload, unique_key, submitted_by, user_id)
			VALUES ($1, $2, $3, $4, nullif($5, ''), $6, nullif($7, 0))
			ON CONFLICT DO NOTHING
			RETURNING id, created_at)
		SELECT id, created_at, CASE WHEN $9::boolean THEN pg_notify($8, '') IS NULL ELSE false END FROM new`,
		companyID, nj.Kind, nj.Queue, []byte(nj.payload()), nj.UniqueKey, nj.SubmittedBy, nj.UserID,
		JobsChannel, notifyNow()).Scan(&job.ID, &job.CreatedAt, &notified)
	if err == nil {
		return job, FoundNothing, nil
	}
	if err != pgx.ErrNoRows {
		return Job{}, FoundNothing, translate(err, "submit job")
	}
	return existingJob(ctx, q, companyID, nj)
}

// NotifyEvery is how often at most the submissions of one process signal
// the relay. A notification holds a lock of PostgreSQL's across its
// transaction's commit, which every other notifying commit waits for, so
// that one per submission would line the submissions up behind it; a
// submission within NotifyEvery of the process's last signal sends none,
// and the relay, which passes again shortly after every pass that took
// jobs and polls between notifications (RelayConfig.Poll), takes it.
const NotifyEvery = 20 * time.Millisecond

// lastNotify is when this process's submissions last signalled the relay,
// in Unix nanoseconds.
var lastNotify atomic.Int64

// notifyNow says whether a submission should signal the relay: not when
// another of this process did within NotifyEvery.
func notifyNow() bool {
	now, last := time.Now().UnixNano(), lastNotify.Load()
	return now-last >= int64(NotifyEvery) && lastNotify.CompareAndSwap(last, now)
}

// existingJob returns the job holding nj's idempotency key, or the run of
// its unique key: the unfinished one, else the latest.
func existingJob(ctx context.Context, q DBTX, companyID int64, nj NewJob) (Job, Found, error) {
	if nj.IdempotencyKey != "" {
		var hash []byte
		row := q.QueryRow(ctx, `SELECT request_hash, `+jobColumns+` FROM jobs
			WHERE company_id = $1 AND idempotency_key = $2`, companyID, nj.IdempotencyKey)
		job, err := scanJob(prefixScan{row, &hash})
		if err == nil {
			if !bytes.Equal(hash, nj.RequestHash) {
				return Job{}, FoundNothing, keyReused()
			}
			return job, FoundSameRequest, nil
		}
		if err != pgx.ErrNoRows {
			return Job{}, FoundNothing, translate(err, "job by idempotency key")
		}
		var byOperation bool
		if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM idempotency_keys WHERE company_id = $1 AND key = $2)`,
			companyID, nj.IdempotencyKey).Scan(&byOperation); err != nil {
			return Job{}, FoundNothing, translate(err, "idempotency key")
		}
		if byOperation {
			return Job{}, FoundNothing, keyReused()
		}
	}
	row := q.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs
		WHERE company_id = $1 AND kind = $2 AND unique_key = $3
		ORDER BY state IN ('pending', 'queued', 'running') DESC, rerun DESC LIMIT 1`, companyID, nj.Kind, nj.UniqueKey)
	job, err := scanJob(row)
	if err != nil {
		return Job{}, FoundNothing, translate(err, "job by unique key")
	}
	return job, FoundSameKey, nil
}

// prefixScan reads one extra leading column before a job's columns.
type prefixScan struct {
	row   pgx.Row
	first any
}

func (p prefixScan) Scan(dest ...any) error {
	return p.row.Scan(append([]any{p.first}, dest...)...)
}

// suffixScan reads one extra trailing column after a job's columns.
type suffixScan struct {
	row  pgx.Row
	last any
}

func (p suffixScan) Scan(dest ...any) error {
	return p.row.Scan(append(dest, p.last)...)
}

// GetJob returns a company's job.
func GetJob(ctx context.Context, q DBTX, companyID, id int64) (Job, error) {
	job, err := scanJob(q.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE company_id = $1 AND id = $2`, companyID, id))
	if err == pgx.ErrNoRows {
		return Job{}, recordNotFound(id)
	}
	if err != nil {
		return Job{}, translate(err, "job")
	}
	return job, nil
}

// JobRef names one job.
type JobRef struct {
	CompanyID int64
	ID        int64
}

// RunRef names one run of a job: its attempt. Every write of a run is
// fenced by it, so that a run superseded by a later one (a task handed
// back at a shutdown, a stale generation) writes nothing.
type RunRef struct {
	JobRef
	Attempt int
}

// Run is the run a started job is in.
func (j Job) Run() RunRef {
	return RunRef{JobRef{j.CompanyID, j.ID}, j.Attempts}
}

// TaskRef names what an asynq task runs: a job at a generation.
type TaskRef struct {
	JobRef
	Generation int
}

// StartJob marks a job of a generation running and counts the attempt.
// ok is false when there is nothing to run: the job is finished, canceled,
// gone, or at another generation (a task delivered twice, after a cancel,
// or of a generation an API retry replaced).
func StartJob(ctx context.Context, q DBTX, t TaskRef) (job Job, ok bool, err error) {
	started, err := StartJobs(ctx, q, []TaskRef{t})
	job, ok = started[t.JobRef]
	return job, ok, err
}

// StartJobs is StartJob for several tasks in one statement (a worker
// gathers the starts of its concurrent runs); the jobs not started are
// absent from the map. Each comes with its payload.
func StartJobs(ctx context.Context, q DBTX, tasks []TaskRef) (map[JobRef]Job, error) {
	return queryTaskJobs(ctx, q, tasks, "start jobs", `UPDATE jobs SET state = 'running', attempts = attempts + 1,
			started_at = coalesce(started_at, now()), run_started_at = now(), updated_at = now()
		FROM unnest($1::bigint[], $2::bigint[], $3::integer[]) AS s (cid, jid, gen)
		WHERE jobs.company_id = s.cid AND jobs.id = s.jid AND jobs.generation = s.gen
			AND jobs.state IN ('pending', 'queued', 'running')
		RETURNING `+jobColumns+`, payload`)
}

// queryTaskJobs runs a statement over the tasks' companies, ids and
// generations ($1, $2, $3) that returns jobColumns and the payload, and
// maps the jobs it returns by reference.
func queryTaskJobs(ctx context.Context, q DBTX, tasks []TaskRef, what, sql string) (map[JobRef]Job, error) {
	refs := make([]JobRef, len(tasks))
	generations := make([]int32, len(tasks))
	for i, t := range tasks {
		refs[i], generations[i] = t.JobRef, int32(t.Generation)
	}
	companies, ids := refColumns(refs)
	rows, err := q.Query(ctx, sql, companies, ids, generations)
	if err != nil {
		return nil, translate(err, what)
	}
	defer rows.Close()
	jobs := make(map[JobRef]Job, len(tasks))
	for rows.Next() {
		var payload []byte
		job, err := scanJob(suffixScan{rows, &payload})
		if err != nil {
			return nil, translate(err, what)
		}
		job.Payload = payload
		jobs[JobRef{job.CompanyID, job.ID}] = job
	}
	return jobs, translate(rows.Err(), what)
}

// tasksLimitSQL ends the tasks' unnest of LoadRuns, as outcomesLimitSQL
// ends the outcomes': its generic plan counts one task and is kept, where
// one made for ten was judged dearer than a plan for a task's values and
// every run was planned on its own (TestLoadRunsKeepsItsGenericPlan).
const tasksLimitSQL = `LIMIT cardinality($1::bigint[])`

// LoadRuns reads the jobs several tasks would run, in one statement,
// without writing anything: a worker reads a job when it takes its task
// and records the run's start only when the run lasts (StartRuns) or with
// its outcome (FinishJobs), so that a short job is written once by its
// worker. A job not to run (finished, canceled, gone, at another
// generation) is absent from the map; the others come with their payload
// and their attempts as recorded, before this run.
func LoadRuns(ctx context.Context, q DBTX, tasks []TaskRef) (map[JobRef]Job, error) {
	return queryTaskJobs(ctx, q, tasks, "load runs", `SELECT `+prefixed("jobs", jobColumns)+`, jobs.payload
		FROM jobs JOIN (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::integer[]) AS u (cid, jid, gen)
				`+tasksLimitSQL+`) AS s
			ON jobs.company_id = s.cid AND jobs.id = s.jid AND jobs.generation = s.gen
		WHERE jobs.state IN ('pending', 'queued', 'running')`)
}

// prefixed qualifies each of a list of columns with table.
func prefixed(table, columns string) string {
	parts := strings.Split(columns, ",")
	for i, c := range parts {
		parts[i] = table + "." + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// RunStart is the start of a run not written yet (LoadRuns): the run's
// writes then hold while the row is still at the attempt before the run's,
// at the run's generation and not finished, and the first of them records
// the start (the attempt counted, running, started_at).
type RunStart struct {
	Generation int
	// Ran is how long the run has gone on: started_at is the database's
	// now() less it, on the database's clock.
	Ran time.Duration
}

// RunStartAt is one run's start to write.
type RunStartAt struct {
	RunRef
	RunStart
	// Progress is the run's progress to record with its start (a chunked
	// run's size, known before its first chunk records it); nil: as it is.
	Progress *Progress
}

// StartRuns writes the starts of several runs, in one statement: each row
// running at its run's attempt, if it is still at the attempt before, at
// the run's generation and not finished. It returns the runs started; a
// run absent is over (the job was canceled or finished, or another run
// started it first).
func StartRuns(ctx context.Context, q DBTX, starts []RunStartAt) (map[RunRef]bool, error) {
	n := len(starts)
	companies, ids, attempts, generations, ran := make([]int64, n), make([]int64, n), make([]int32, n), make([]int32, n), make([]int64, n)
	done, total := make([]int64, n), make([]int64, n)
	for i, s := range starts {
		companies[i], ids[i], attempts[i] = s.CompanyID, s.ID, int32(s.Attempt)
		generations[i], ran[i] = int32(s.Generation), s.Ran.Microseconds()
		done[i], total[i] = -1, -1
		if s.Progress != nil {
			done[i], total[i] = s.Progress.Done, s.Progress.Total
		}
	}
	rows, err := q.Query(ctx, `UPDATE jobs SET state = 'running', attempts = s.attempt,
			started_at = coalesce(started_at, now() - s.ran * interval '1 microsecond'),
			run_started_at = now() - s.ran * interval '1 microsecond', updated_at = now(),
			progress = CASE WHEN s.total < 0 THEN jobs.progress ELSE jsonb_build_object('done', s.done, 'total', s.total) END
		FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::integer[], $5::bigint[], $6::bigint[], $7::bigint[])
			AS s (cid, jid, attempt, gen, ran, done, total)
		WHERE jobs.company_id = s.cid AND jobs.id = s.jid AND jobs.attempts = s.attempt - 1
			AND jobs.generation = s.gen AND jobs.state IN ('pending', 'queued', 'running')
		RETURNING jobs.company_id, jobs.id, jobs.attempts`, companies, ids, attempts, generations, ran, done, total)
	if err != nil {
		return nil, translate(err, "start runs")
	}
	started := make(map[RunRef]bool, n)
	for rows.Next() {
		var r RunRef
		if err := rows.Scan(&r.CompanyID, &r.ID, &r.Attempt); err != nil {
			return nil, translate(err, "start runs")
		}
		started[r] = true
	}
	return started, translate(rows.Err(), "start runs")
}

func refColumns(refs []JobRef) (companies, ids []int64) {
	companies, ids = make([]int64, len(refs)), make([]int64, len(refs))
	for i, r := range refs {
		companies[i], ids[i] = r.CompanyID, r.ID
	}
	return companies, ids
}

// SetJobProgress records how much of a run is done. running is false when
// the run is over: the job was canceled, or a later run took it over; the
// run stops.
func SetJobProgress(ctx context.Context, q DBTX, run RunRef, p Progress) (running bool, err error) {
	tag, err := q.Exec(ctx, `UPDATE jobs SET progress = $4, updated_at = now()
		WHERE company_id = $1 AND id = $2 AND attempts = $3 AND state = 'running'`, run.CompanyID, run.ID, run.Attempt, p)
	if err != nil {
		return false, translate(err, "job progress")
	}
	return tag.RowsAffected() == 1, nil
}

// Outcome is the final state of a run to record.
type Outcome struct {
	RunRef
	State  string          // JobSucceeded or JobFailed
	Result json.RawMessage // nil: none
	Error  string          // "": none
	// Events are the webhook event types the outcome emits (job.succeeded
	// and the kind's own, batch.file_ready): each carries the job as GET
	// /jobs/{id} returns it, written in the outcome's statement, for the
	// endpoints subscribed.
	Events []string
	// Start is the run's start when it is not written yet (LoadRuns): the
	// outcome records it too. nil: the row says running at the attempt.
	Start *RunStart
}

// startColumns are the arrays of outcomes' starts: the generation and
// microseconds run of each unwritten start, -1 for a start written.
func startColumns(outcomes []Outcome) (generations []int32, ran []int64) {
	generations, ran = make([]int32, len(outcomes)), make([]int64, len(outcomes))
	for i, o := range outcomes {
		generations[i], ran[i] = -1, -1
		if o.Start != nil {
			generations[i], ran[i] = int32(o.Start.Generation), o.Start.Ran.Microseconds()
		}
	}
	return generations, ran
}

// runFenceSQL is the condition an outcome's write holds under, for the
// row jobs and the outcome o (its attempt oattempt, and ogen -1 when its
// start is written, else its generation): the row running at the run's
// attempt, or, for a run whose start is not written, at the attempt
// before, at the run's generation and not finished.
const runFenceSQL = `CASE WHEN o.ogen < 0 THEN jobs.attempts = o.oattempt AND jobs.state = 'running'
	ELSE jobs.attempts = o.oattempt - 1 AND jobs.generation = o.ogen AND jobs.state IN ('pending', 'queued', 'running') END`

// startedAtSQL is started_at after an outcome: the first run's start, or
// this run's when its start was not written (now() less what it ran).
const startedAtSQL = `coalesce(jobs.started_at, now() - greatest(o.oran, 0) * interval '1 microsecond')`

// runStartedAtSQL is run_started_at after an outcome: the run's start, as
// written, or, when it was not, now() less what it ran.
const runStartedAtSQL = `CASE WHEN o.ogen < 0 THEN jobs.run_started_at
	ELSE now() - greatest(o.oran, 0) * interval '1 microsecond' END`

// FinishJob writes a run's final state with its result or error, and
// drops the job's chunk outputs. ok is false when the run was over
// (canceled meanwhile, or taken over by a later run): nothing is written.
func FinishJob(ctx context.Context, q DBTX, o Outcome) (ok bool, err error) {
	done, err := FinishJobs(ctx, q, []Outcome{o})
	return done[o.RunRef], err
}

// FinishJobs is FinishJob for several runs in one statement (a worker
// gathers the outcomes of its concurrent runs); it returns the runs
// written. A run that ends its job failed also records its error among the
// job's (job_errors) and raises the job's operator alert, once per job and
// generation (operator_alerts), in the same statement.
func FinishJobs(ctx context.Context, q DBTX, outcomes []Outcome) (map[RunRef]bool, error) {
	n := len(outcomes)
	companies, ids, attempts := make([]int64, n), make([]int64, n), make([]int32, n)
	states, results, errs, events := make([]string, n), make([]*string, n), make([]string, n), make([]string, n)
	for i, o := range outcomes {
		companies[i], ids[i], attempts[i] = o.CompanyID, o.ID, int32(o.Attempt)
		states[i], errs[i], events[i] = o.State, o.Error, strings.Join(o.Events, ",")
		if o.Result != nil {
			r := string(o.Result)
			results[i] = &r
		}
	}
	generations, ran := startColumns(outcomes)
	rows, err := q.Query(ctx, finishJobsSQL, companies, ids, attempts, states, results, errs, events, generations, ran)
	if err != nil {
		return nil, translate(err, "finish jobs")
	}
	done := make(map[RunRef]bool, n)
	for rows.Next() {
		var r RunRef
		var woke int64
		if err := rows.Scan(&r.CompanyID, &r.ID, &r.Attempt, &woke); err != nil {
			return nil, translate(err, "finish jobs")
		}
		done[r] = true
	}
	return done, translate(rows.Err(), "finish jobs")
}

// outcomesLimitSQL ends the outcomes' unnest of finishJobsSQL: a limit of
// their number, which changes no row (there are that many) but the plan
// kept for the statement. Without it the generic plan counts ten outcomes
// (the planner's guess at an array parameter's length), and a connection
// whose first runs were planned while the jobs table was near empty, as at
// the start of a night, judged that plan dearer than theirs once the table
// had grown and autovacuum's analyze had made it plan again, and planned
// every run on its own from then on (1.4 ms of the database's CPU each);
// with a limit that is not a constant the generic plan counts one outcome,
// and is kept (TestFinishJobsKeepsItsGenericPlan). A plan for one outcome
// suits a few: each is one index probe of jobs.
const outcomesLimitSQL = `LIMIT cardinality($1::bigint[])`

// finishJobsSQL writes the outcomes, drops the jobs' chunks, keeps a
// failed job's final error (job_errors) and raises its operator alert, and emits
// the outcomes' events: the job's JSON is made in the update's RETURNING
// (the row as written), and only for a job whose company has an active
// endpoint.
var finishJobsSQL = `WITH done AS (
		UPDATE jobs SET state = o.ostate, result = o.oresult::json, error = nullif(o.oerror, ''),
			attempts = o.oattempt, started_at = ` + startedAtSQL + `, run_started_at = ` + runStartedAtSQL + `,
			finished_at = now(), updated_at = now()
		FROM (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::text[], $5::text[], $6::text[], $7::text[],
				$8::integer[], $9::bigint[])
			AS u (cid, jid, oattempt, ostate, oresult, oerror, oevents, ogen, oran) ` + outcomesLimitSQL + `) AS o
		WHERE jobs.company_id = o.cid AND jobs.id = o.jid AND ` + runFenceSQL + `
		RETURNING jobs.company_id, jobs.id, jobs.attempts, jobs.generation, jobs.kind, jobs.state, jobs.error,
			jobs.run_started_at, o.oevents AS events,
			CASE WHEN o.oevents <> '' AND EXISTS (SELECT 1 FROM webhook_endpoints we
				WHERE we.company_id = jobs.company_id AND we.active)
			THEN ` + RecordJSONSQL(jobsResource(), "jobs.company_id", "jobs") + ` END AS doc),
	dropped AS (
		DELETE FROM job_chunks c USING done WHERE c.company_id = done.company_id AND c.job_id = done.id),
	errored AS (
		INSERT INTO job_errors (company_id, job_id, attempt, generation, error, final, started_at)
		SELECT company_id, id, attempts, generation, coalesce(error, ''), true, run_started_at FROM done WHERE state = 'failed'
		ON CONFLICT DO NOTHING),
	alerted AS (
		INSERT INTO operator_alerts (company_id, kind, job_id, generation, job_kind, message)
		SELECT company_id, 'job_failed', id, generation, kind, coalesce(error, 'failed') FROM done WHERE state = 'failed'
		ON CONFLICT DO NOTHING),
	ev AS (
		INSERT INTO webhook_events (company_id, type, data)
		SELECT done.company_id, t.type, done.doc::json
		FROM done CROSS JOIN LATERAL unnest(string_to_array(done.events, ',')) AS t (type)
		WHERE done.doc IS NOT NULL AND ` + subscribedSQL("done.company_id", "t.type") + `
		ORDER BY done.id
		RETURNING company_id, id, type)` + deliveriesOnly(subscribedEndpoints) + `
	SELECT company_id, id, attempts, (SELECT count(*) FROM woke) FROM done`

// RequeueJob puts a running job back to queued after a run that will be
// retried, keeping the error for whoever looks; a run that is over writes
// nothing.
// The run's error is kept among the job's (job_errors) too.
func RequeueJob(ctx context.Context, q DBTX, run RunRef, errText string) error {
	return RequeueRun(ctx, q, Outcome{RunRef: run, State: JobQueued, Error: errText})
}

// RequeueRun is RequeueJob for a run whose start may not be written yet
// (o.Start): the requeue records it too, counting the attempt.
func RequeueRun(ctx context.Context, q DBTX, o Outcome) error {
	generations, ran := startColumns([]Outcome{o})
	_, err := q.Exec(ctx, `WITH requeued AS (
			UPDATE jobs SET state = 'queued', error = o.oerror, attempts = o.oattempt,
				started_at = `+startedAtSQL+`, run_started_at = `+runStartedAtSQL+`, updated_at = now()
			FROM (SELECT $1::bigint, $2::bigint, $3::integer, $4::text, $5::integer, $6::bigint)
				AS o (cid, jid, oattempt, oerror, ogen, oran)
			WHERE jobs.company_id = o.cid AND jobs.id = o.jid AND `+runFenceSQL+`
			RETURNING jobs.company_id, jobs.id, jobs.attempts, jobs.generation, jobs.run_started_at)
		INSERT INTO job_errors (company_id, job_id, attempt, generation, error, final, started_at)
		SELECT company_id, id, attempts, generation, $4, false, run_started_at FROM requeued
		ON CONFLICT DO NOTHING`, o.CompanyID, o.ID, o.Attempt, o.Error, generations[0], ran[0])
	return translate(err, "requeue job")
}

// YieldJob puts a running job back to queued without counting its
// attempt: the run gave its worker back before doing anything more (its
// company was at its limit of heavy work, jobs/fairness.go). A run that is
// over writes nothing.
func YieldJob(ctx context.Context, q DBTX, run RunRef) error {
	_, err := q.Exec(ctx, `UPDATE jobs SET state = 'queued', attempts = attempts - 1, updated_at = now()
		WHERE company_id = $1 AND id = $2 AND attempts = $3 AND state = 'running'`, run.CompanyID, run.ID, run.Attempt)
	return translate(err, "yield job")
}

// CancelJob cancels a job that has not finished. A finished job is a
// conflict; a job of another company is not found.
func CancelJob(ctx context.Context, q DBTX, companyID, id int64) (Job, error) {
	job, err := scanJob(q.QueryRow(ctx, `UPDATE jobs SET state = 'canceled', finished_at = now(), updated_at = now()
		WHERE company_id = $1 AND id = $2 AND state IN ('pending', 'queued', 'running')
		RETURNING `+jobColumns, companyID, id))
	if err == pgx.ErrNoRows {
		return Job{}, finishedConflict(ctx, q, companyID, id, "canceled")
	}
	return job, translate(err, "cancel job")
}

// RetryJob sends a failed job round again as a new generation, from the
// start, and signals the relay.
func RetryJob(ctx context.Context, q DBTX, companyID, id int64) (Job, error) {
	var notified bool
	job, err := scanJob(suffixScan{q.QueryRow(ctx, `WITH retried AS (
			UPDATE jobs SET state = 'pending', generation = generation + 1, relay_xid = pg_current_xact_id(),
				error = NULL, result = NULL, progress = '{"done": 0, "total": 0}', queued_at = NULL,
				started_at = NULL, finished_at = NULL, updated_at = now()
			WHERE company_id = $1 AND id = $2 AND state = 'failed'
			RETURNING `+jobColumns+`),
		dropped AS (
			DELETE FROM job_chunks c USING retried WHERE c.company_id = retried.company_id AND c.job_id = retried.id)
		SELECT retried.*, pg_notify($3, '') IS NULL FROM retried`, companyID, id, JobsChannel), &notified})
	if err == pgx.ErrNoRows {
		return Job{}, finishedConflict(ctx, q, companyID, id, "retried")
	}
	if violates(err, unfinishedRunIndex) {
		return Job{}, unfinishedRunConflict(ctx, q, companyID, id, err)
	}
	return job, translate(err, "retry job")
}

// violates says whether err is a unique violation of the index named.
func violates(err error, index string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == index
}

// unfinishedRunConflict explains why a failed run of a unique key cannot
// be retried: another run of the key has not finished.
func unfinishedRunConflict(ctx context.Context, q DBTX, companyID, id int64, cause error) error {
	var other int64
	err := q.QueryRow(ctx, `SELECT o.id FROM jobs j JOIN jobs o ON o.company_id = j.company_id
			AND o.kind = j.kind AND o.unique_key = j.unique_key AND o.state IN ('pending', 'queued', 'running')
		WHERE j.company_id = $1 AND j.id = $2`, companyID, id).Scan(&other)
	if err != nil {
		return translate(err, "unfinished run")
	}
	return &finance.Error{Code: finance.Conflict, Err: cause, Message: fmt.Sprintf(
		"Job %d cannot be retried while job %d, another run of the same payload, has not finished.", id, other)}
}

// finishedConflict explains why a job cannot be canceled or retried: it
// does not exist for this company, or its state does not allow it.
func finishedConflict(ctx context.Context, q DBTX, companyID, id int64, verb string) error {
	job, err := GetJob(ctx, q, companyID, id)
	if err != nil {
		return err
	}
	return finance.Errorf(finance.Conflict, "Job %d is %s and cannot be %s.", id, job.State, verb)
}

// JobChunkOutputs returns the outputs recorded for a job's chunks, by
// chunk number.
func JobChunkOutputs(ctx context.Context, q DBTX, companyID, jobID int64) (map[int]json.RawMessage, error) {
	rows, err := q.Query(ctx, `SELECT chunk, output FROM job_chunks WHERE company_id = $1 AND job_id = $2`, companyID, jobID)
	if err != nil {
		return nil, translate(err, "job chunks")
	}
	out := map[int]json.RawMessage{}
	for rows.Next() {
		var chunk int
		var output []byte // as stored, unchecked
		if err := rows.Scan(&chunk, &output); err != nil {
			return nil, translate(err, "job chunks")
		}
		out[chunk] = output
	}
	return out, translate(rows.Err(), "job chunks")
}

// RecordJobChunk stores one chunk's output with the run's progress, in one
// statement, in q: the transaction that wrote the chunk's business rows,
// when it wrote some. running is false when the run is over: nothing is
// recorded, and the caller rolls its transaction back.
func RecordJobChunk(ctx context.Context, q DBTX, run RunRef, chunk int, output json.RawMessage, p Progress) (running bool, err error) {
	return RecordJobChunkStart(ctx, q, run, nil, chunk, output, p)
}

// RecordJobChunkStart is RecordJobChunk for a run whose start may not be
// written yet (start, as in Outcome.Start): the record writes it too, the
// attempt counted, in the chunk's transaction, so that a run's first chunk
// is one statement of the job's, not three (its start, its progress, its
// record). nil: the row says running at the run's attempt.
func RecordJobChunkStart(ctx context.Context, q DBTX, run RunRef, start *RunStart, chunk int, output json.RawMessage, p Progress) (running bool, err error) {
	generations, ran := startColumns([]Outcome{{Start: start}})
	var n int
	err = q.QueryRow(ctx, `WITH job AS (
			UPDATE jobs SET progress = $6, state = 'running', attempts = o.oattempt,
				started_at = coalesce(jobs.started_at, clock_timestamp() - greatest(o.oran, 0) * interval '1 microsecond'),
				run_started_at = CASE WHEN o.ogen < 0 THEN jobs.run_started_at
					ELSE clock_timestamp() - greatest(o.oran, 0) * interval '1 microsecond' END,
				updated_at = now()
			FROM (SELECT $1::bigint, $2::bigint, $3::integer, $7::integer, $8::bigint) AS o (cid, jid, oattempt, ogen, oran)
			WHERE jobs.company_id = o.cid AND jobs.id = o.jid AND `+runFenceSQL+`
			RETURNING jobs.company_id, jobs.id),
		chunk AS (
			INSERT INTO job_chunks (company_id, job_id, chunk, output)
			SELECT company_id, id, $4, $5 FROM job
			ON CONFLICT DO NOTHING)
		SELECT count(*) FROM job`, run.CompanyID, run.ID, run.Attempt, chunk, string(output), p, generations[0], ran[0]).Scan(&n)
	if err != nil {
		return false, translate(err, "record job chunk")
	}
	return n == 1, nil
}

// PendingJob is what the relay needs to enqueue a job.
type PendingJob struct {
	CompanyID  int64
	ID         int64
	Kind       string
	Queue      string
	Generation int
	Attempts   int
	// Lane is the job's lane ("": none; docs/jobs.md, "Lanes").
	Lane string
	// RelayXID is the transaction that made the job pending, in decimal
	// ("": none), by which the relay orders it.
	RelayXID string
}

// pendingColumns are a PendingJob's columns of the row jobs.
const pendingColumns = `jobs.company_id, jobs.id, jobs.kind, jobs.queue, jobs.generation, jobs.attempts,
	coalesce(jobs.lane, ''), coalesce(jobs.relay_xid::text, '')`

// relayPosition is the relay's place in the outbox (job_relay, migration
// 0040): the pending rows at or after (nextXID, nextID) in relay order,
// and those of the late transactions, are not relayed yet.
type relayPosition struct {
	nextXID string
	nextID  int64
	late    []string
}

// NextPendingJobs reads the next pending jobs for the relay and moves the
// relay's position past them, in one transaction of its own: up to limit
// jobs in relay order, and every pending job of the transactions that were
// still in progress at the last read and have committed since. Nothing is
// written on the job rows. The row of job_relay is locked from the read to
// the commit, so that several relays take turns and never read the same
// jobs; no lock is held while the caller calls Redis. A relay that dies
// before it has enqueued what it read leaves the jobs pending and quiet:
// the sweep (QuietJobs) enqueues them. The caller hands back the jobs it
// could not enqueue with RelayAgain.
func NextPendingJobs(ctx context.Context, db Beginner, limit int) (jobs []PendingJob, err error) {
	err = pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		var pos relayPosition
		if err := tx.QueryRow(ctx, `SELECT next_xid::text, next_id, late::text[] FROM job_relay FOR UPDATE`).
			Scan(&pos.nextXID, &pos.nextID, &pos.late); err != nil {
			return err
		}
		var next relayPosition
		jobs, next, err = readPending(ctx, tx, pos, limit)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE job_relay SET next_xid = $1::text::xid8, next_id = $2,
			late = $3::text[]::xid8[], updated_at = now()`, next.nextXID, next.nextID, next.late)
		return err
	})
	return jobs, translate(err, "next pending jobs")
}

// readPending reads the jobs past pos, in one statement, with the
// snapshot it read them in, and returns the position after them: past the
// last job read when limit stopped the read, else past every transaction
// the snapshot saw finished; the transactions it saw in progress are late.
func readPending(ctx context.Context, tx pgx.Tx, pos relayPosition, limit int) ([]PendingJob, relayPosition, error) {
	rows, err := tx.Query(ctx, `WITH snap AS MATERIALIZED (SELECT pg_current_snapshot() AS s),
		ahead AS (
			(SELECT `+pendingColumns+`, 0 AS part FROM jobs
				WHERE jobs.state = 'pending' AND jobs.relay_xid = ANY($3::text[]::xid8[]))
			UNION ALL
			(SELECT `+pendingColumns+`, 1 FROM jobs
				WHERE jobs.state = 'pending' AND (jobs.relay_xid, jobs.id) > ($1::text::xid8, $2::bigint)
				ORDER BY jobs.relay_xid, jobs.id LIMIT $4))
		SELECT pg_snapshot_xmax(snap.s)::text, ARRAY(SELECT x::text FROM pg_snapshot_xip(snap.s) AS x),
			ahead.* FROM snap LEFT JOIN ahead ON true`, pos.nextXID, pos.nextID, pos.late, limit)
	if err != nil {
		return nil, pos, err
	}
	defer rows.Close()
	var xmax string
	var inProgress []string
	var jobs []PendingJob
	var last *PendingJob
	ranged := 0
	for rows.Next() {
		var j struct {
			CompanyID, ID, Generation, Attempts *int64
			Kind, Queue, Lane, RelayXID         *string
			Part                                *int
		}
		if err := rows.Scan(&xmax, &inProgress, &j.CompanyID, &j.ID, &j.Kind, &j.Queue, &j.Generation, &j.Attempts,
			&j.Lane, &j.RelayXID, &j.Part); err != nil {
			return nil, pos, err
		}
		if j.ID == nil {
			continue // no job: the snapshot alone
		}
		jobs = append(jobs, PendingJob{CompanyID: *j.CompanyID, ID: *j.ID, Kind: *j.Kind, Queue: *j.Queue,
			Generation: int(*j.Generation), Attempts: int(*j.Attempts), Lane: *j.Lane, RelayXID: *j.RelayXID})
		if *j.Part == 1 {
			ranged++
			last = &jobs[len(jobs)-1]
		}
	}
	if err := rows.Err(); err != nil {
		return nil, pos, err
	}
	next := relayPosition{nextXID: xmax, nextID: 0}
	if ranged == limit && last != nil {
		next = relayPosition{nextXID: last.RelayXID, nextID: last.ID}
	}
	// a transaction in progress at the read may commit jobs the read did
	// not see: late, when the position is past it
	bound, _ := strconv.ParseUint(next.nextXID, 10, 64)
	next.late = []string{}
	for _, x := range inProgress {
		if v, _ := strconv.ParseUint(x, 10, 64); v < bound {
			next.late = append(next.late, x)
		}
	}
	return jobs, next, nil
}

// RelayAgain puts jobs the relay read but could not enqueue (Redis went
// away midway) back before its position: their transactions are late
// again, so the next pass reads their pending jobs once more (those
// enqueued meanwhile are enqueued once: their task ids are taken).
func RelayAgain(ctx context.Context, q DBTX, jobs []PendingJob) error {
	if len(jobs) == 0 {
		return nil
	}
	xids := make([]string, 0, len(jobs))
	for _, j := range jobs {
		if j.RelayXID != "" && !slices.Contains(xids, j.RelayXID) {
			xids = append(xids, j.RelayXID)
		}
	}
	_, err := q.Exec(ctx, `UPDATE job_relay SET late = ARRAY(SELECT DISTINCT unnest(late || $1::text[]::xid8[])),
		updated_at = now()`, xids)
	return translate(err, "relay again")
}

// QuietJobs returns up to limit jobs pending, queued or running that have
// not changed for longer than quiet: the relay checks that Redis still
// holds their tasks (it may have lost them, or a relay died between its
// read and its enqueues) and touches them.
func QuietJobs(ctx context.Context, q DBTX, quiet time.Duration, limit int) ([]PendingJob, error) {
	rows, err := q.Query(ctx, `UPDATE jobs SET updated_at = now()
		FROM (SELECT company_id, id FROM jobs
			WHERE state IN ('pending', 'queued', 'running') AND updated_at < now() - $1::interval
			ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED) AS quiet
		WHERE jobs.company_id = quiet.company_id AND jobs.id = quiet.id
		RETURNING `+pendingColumns, quiet, limit)
	if err != nil {
		return nil, translate(err, "quiet jobs")
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[PendingJob])
}

// WaitingJobs returns up to limit jobs pending or queued, in company and
// id order after after: those a relay enqueues again at once when Redis
// answers again after an outage (it may have lost their tasks; a task it
// still holds makes the enqueue a no-op). A running job is left to the
// quiet sweep: its worker may still hold it.
func WaitingJobs(ctx context.Context, q DBTX, after JobRef, limit int) ([]PendingJob, error) {
	rows, err := q.Query(ctx, `SELECT `+pendingColumns+` FROM jobs
		WHERE state IN ('pending', 'queued') AND (company_id, id) > ($1, $2)
		ORDER BY company_id, id LIMIT $3`, after.CompanyID, after.ID, limit)
	if err != nil {
		return nil, translate(err, "waiting jobs")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[PendingJob])
	return out, translate(err, "waiting jobs")
}

// OldestPendingJobAge is how long the job pending longest that the relay
// has not read yet has waited for it since it became pending (zero when
// none waits).
func OldestPendingJobAge(ctx context.Context, q DBTX) (time.Duration, error) {
	var seconds float64
	err := q.QueryRow(ctx, `SELECT coalesce(extract(epoch FROM now() - min(jobs.updated_at)), 0)::float8
		FROM jobs, job_relay r WHERE jobs.state = 'pending'
			AND ((jobs.relay_xid, jobs.id) >= (r.next_xid, r.next_id) OR jobs.relay_xid = ANY(r.late))`).Scan(&seconds)
	if err != nil {
		return 0, translate(err, "oldest pending job")
	}
	return time.Duration(seconds * float64(time.Second)), nil
}

// PruneJobs deletes a company's jobs finished before cutoff, batch rows at
// a time (each batch its own statement, so no lock is held long), and
// returns how many it deleted.
func PruneJobs(ctx context.Context, q DBTX, companyID int64, cutoff time.Time, batch int) (int64, error) {
	var total int64
	for {
		tag, err := q.Exec(ctx, `DELETE FROM jobs WHERE company_id = $1 AND id IN (
			SELECT id FROM jobs WHERE company_id = $1 AND state IN ('succeeded', 'failed', 'canceled')
				AND finished_at < $2 LIMIT $3)`, companyID, cutoff, batch)
		if err != nil {
			return total, translate(err, "prune jobs")
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, translate(err, "prune jobs")
		}
	}
}

// CompanyTimeZones lists the time zones companies are in.
func CompanyTimeZones(ctx context.Context, q DBTX) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT time_zone FROM companies ORDER BY 1`)
	if err != nil {
		return nil, translate(err, "company time zones")
	}
	zones, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return zones, translate(err, "company time zones")
}

// ZoneSubmission is what SubmitForZone submitted: how many jobs, and the
// first of them (at most the limit asked for) by company id, so that a log
// line can name them without growing with a night of thousands.
type ZoneSubmission struct {
	Count int64
	First []JobRef
}

// SubmitForZone submits one job of a kind for every company in a time
// zone, keyed by uniqueKey, in one statement: a company that has its job
// for that key already gets no second one. It returns how many were new,
// and the first list of them by company id.
func SubmitForZone(ctx context.Context, q DBTX, zone string, nj NewJob, list int) (ZoneSubmission, error) {
	payload := nj.payload()
	rows, err := q.Query(ctx, `WITH new AS (
			INSERT INTO jobs (company_id, kind, queue, payload, unique_key, submitted_by)
			SELECT id, $2, $3, $4, $5, $6 FROM companies WHERE time_zone = $1
			ON CONFLICT DO NOTHING RETURNING company_id, id)
		SELECT count(*) OVER (), company_id, id FROM new ORDER BY company_id LIMIT greatest($7::integer, 1)`,
		zone, nj.Kind, nj.Queue, []byte(payload), nj.UniqueKey, nj.SubmittedBy, list)
	if err != nil {
		return ZoneSubmission{}, translate(err, "submit for zone")
	}
	var out ZoneSubmission
	for rows.Next() {
		var ref JobRef
		if err := rows.Scan(&out.Count, &ref.CompanyID, &ref.ID); err != nil {
			rows.Close()
			return ZoneSubmission{}, translate(err, "submit for zone")
		}
		if len(out.First) < list {
			out.First = append(out.First, ref)
		}
	}
	if err := rows.Err(); err != nil {
		return ZoneSubmission{}, translate(err, "submit for zone")
	}
	if out.Count > 0 {
		if _, err := q.Exec(ctx, `SELECT pg_notify($1, '')`, JobsChannel); err != nil {
			return out, translate(err, "notify relay")
		}
	}
	return out, nil
}

// Jobs is the resource name of the jobs.
const Jobs = "jobs"

// jobsResource is the read side of the job platform (GET /jobs): jobs are
// written only by submissions, workers and the job operations, never by
// CRUD. The payload is not exposed: a bulk job's payload can be tens of
// megabytes.
func jobsResource() *Resource {
	return &Resource{
		Name: Jobs, Table: "jobs", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "kind", Type: String, Filterable: true},
			{Name: "state", Type: String, Filterable: true, Enum: JobStates},
			{Name: "progress", Type: JSON},
			{Name: "result", Type: JSON},
			{Name: "error", Type: String, Filterable: true},
			{Name: "attempts", Type: Int, Filterable: true},
			{Name: "submitted_by", Type: String, Filterable: true},
			{Name: "created_at", Type: DateTime, Filterable: true},
			{Name: "started_at", Type: DateTime, Filterable: true},
			{Name: "finished_at", Type: DateTime, Filterable: true},
		},
		Filters: []SpecialFilter{
			ColumnIn("kindIn", "kind", String),
			stateIn(),
		},
	}
}

// stateIn is filter[stateIn][]: job states, each checked.
func stateIn() SpecialFilter {
	f := ColumnIn("stateIn", "state", String)
	f.Enum = JobStates
	return f
}
