package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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

// JobsChannel is the PostgreSQL notification channel a submission signals,
// so that the relay wakes at once instead of at its next poll.
const JobsChannel = "propfin_jobs"

// DBTX is what the job functions run on: a pool, a connection or the
// caller's transaction.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

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
	Kind        string
	Queue       string
	Payload     json.RawMessage
	UniqueKey   string // "": none
	SubmittedBy string // "api_key:12", "scheduler", ...
	UserID      int64  // 0: none
	// IdempotencyKey is a client's key for the request, RequestHash the
	// hash of that request: the same key with another hash is refused.
	IdempotencyKey string
	RequestHash    []byte
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

// SubmitJob records a job in q, normally the transaction of the business
// write that asks for it, and signals the relay. When the job's unique key
// or idempotency key is taken, it returns the job that holds it and
// existed = true; an idempotency key sent with another request is Invalid.
func SubmitJob(ctx context.Context, q DBTX, companyID int64, nj NewJob) (job Job, existed bool, err error) {
	payload := nj.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	// one statement inserts and signals the relay (delivered at commit)
	row := q.QueryRow(ctx, `WITH new AS (
			INSERT INTO jobs (company_id, kind, queue, payload, unique_key, submitted_by, user_id,
				idempotency_key, request_hash)
			VALUES ($1, $2, $3, $4, nullif($5, ''), $6, nullif($7, 0), nullif($8, ''), $9)
			ON CONFLICT DO NOTHING
			RETURNING `+jobColumns+`)
		SELECT new.*, pg_notify($10, '') IS NULL FROM new`,
		companyID, nj.Kind, nj.Queue, []byte(payload), nj.UniqueKey, nj.SubmittedBy, nj.UserID, nj.IdempotencyKey, nj.RequestHash,
		JobsChannel)
	var notified bool
	job, err = scanJob(suffixScan{row, &notified})
	if err == nil {
		return job, false, nil
	}
	if err != pgx.ErrNoRows {
		return Job{}, false, translate(err, "submit job")
	}
	return existingJob(ctx, q, companyID, nj)
}

// existingJob returns the job holding nj's idempotency key or unique key.
func existingJob(ctx context.Context, q DBTX, companyID int64, nj NewJob) (Job, bool, error) {
	if nj.IdempotencyKey != "" {
		var hash []byte
		row := q.QueryRow(ctx, `SELECT request_hash, `+jobColumns+` FROM jobs
			WHERE company_id = $1 AND idempotency_key = $2`, companyID, nj.IdempotencyKey)
		job, err := scanJob(prefixScan{row, &hash})
		if err == nil {
			if !bytes.Equal(hash, nj.RequestHash) {
				return Job{}, false, InvalidInput([]Problem{{Field: "Idempotency-Key",
					Message: "was already used with a different request"}})
			}
			return job, true, nil
		}
		if err != pgx.ErrNoRows {
			return Job{}, false, translate(err, "job by idempotency key")
		}
	}
	row := q.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs
		WHERE company_id = $1 AND kind = $2 AND unique_key = $3`, companyID, nj.Kind, nj.UniqueKey)
	job, err := scanJob(row)
	if err != nil {
		return Job{}, false, translate(err, "job by unique key")
	}
	return job, true, nil
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
		return Job{}, Errorf(NotFound, "Job %d not found.", id)
	}
	if err != nil {
		return Job{}, translate(err, "job")
	}
	return job, nil
}

// StartJob marks a job running and counts the attempt. ok is false when
// there is nothing to run: the job is finished, canceled or gone (a task
// delivered twice, or after a cancel).
func StartJob(ctx context.Context, q DBTX, companyID, id int64) (job Job, ok bool, err error) {
	var payload []byte
	job, err = scanJob(suffixScan{q.QueryRow(ctx, `UPDATE jobs SET state = 'running', attempts = attempts + 1,
			started_at = coalesce(started_at, now()), updated_at = now()
		WHERE company_id = $1 AND id = $2 AND state IN ('pending', 'queued', 'running')
		RETURNING `+jobColumns+`, payload`, companyID, id), &payload})
	job.Payload = payload
	if err == pgx.ErrNoRows {
		return Job{}, false, nil
	}
	if err != nil {
		return Job{}, false, translate(err, "start job")
	}
	return job, true, nil
}

// SetJobProgress records how much of a running job is done. running is
// false when the job is no longer running (it was canceled): the worker
// stops.
func SetJobProgress(ctx context.Context, q DBTX, companyID, id int64, p Progress) (running bool, err error) {
	tag, err := q.Exec(ctx, `UPDATE jobs SET progress = $3, updated_at = now()
		WHERE company_id = $1 AND id = $2 AND state = 'running'`, companyID, id, p)
	if err != nil {
		return false, translate(err, "job progress")
	}
	return tag.RowsAffected() == 1, nil
}

// FinishJob writes a running job's final state with its result or error,
// and drops its chunk outputs, in one statement. ok is false when the job
// was no longer running (canceled meanwhile, or finished by another
// delivery): nothing is written.
func FinishJob(ctx context.Context, q DBTX, companyID, id int64, state string, result json.RawMessage, errText string) (ok bool, err error) {
	var res []byte
	if result != nil {
		res = result
	}
	var n int
	err = q.QueryRow(ctx, `WITH done AS (
			UPDATE jobs SET state = $3, result = $4, error = nullif($5, ''), finished_at = now(), updated_at = now()
			WHERE company_id = $1 AND id = $2 AND state = 'running'
			RETURNING company_id, id),
		dropped AS (
			DELETE FROM job_chunks c USING done WHERE c.company_id = done.company_id AND c.job_id = done.id)
		SELECT count(*) FROM done`, companyID, id, state, res, errText).Scan(&n)
	if err != nil {
		return false, translate(err, "finish job")
	}
	return n == 1, nil
}

// RequeueJob puts a running job back to queued after a failed attempt
// that will be retried, keeping the error for whoever looks.
func RequeueJob(ctx context.Context, q DBTX, companyID, id int64, errText string) error {
	_, err := q.Exec(ctx, `UPDATE jobs SET state = 'queued', error = $3, updated_at = now()
		WHERE company_id = $1 AND id = $2 AND state = 'running'`, companyID, id, errText)
	return translate(err, "requeue job")
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
// start: its recorded chunks are dropped.
func RetryJob(ctx context.Context, q DBTX, companyID, id int64) (Job, error) {
	job, err := scanJob(q.QueryRow(ctx, `UPDATE jobs SET state = 'pending', generation = generation + 1,
			error = NULL, result = NULL, progress = '{"done": 0, "total": 0}', queued_at = NULL,
			started_at = NULL, finished_at = NULL, updated_at = now()
		WHERE company_id = $1 AND id = $2 AND state = 'failed'
		RETURNING `+jobColumns, companyID, id))
	if err == pgx.ErrNoRows {
		return Job{}, finishedConflict(ctx, q, companyID, id, "retried")
	}
	if err != nil {
		return Job{}, translate(err, "retry job")
	}
	if _, err := q.Exec(ctx, `DELETE FROM job_chunks WHERE company_id = $1 AND job_id = $2`, companyID, id); err != nil {
		return Job{}, translate(err, "retry job: drop chunks")
	}
	if _, err := q.Exec(ctx, `SELECT pg_notify($1, '')`, JobsChannel); err != nil {
		return Job{}, translate(err, "notify relay")
	}
	return job, nil
}

// finishedConflict explains why a job cannot be canceled or retried: it
// does not exist for this company, or its state does not allow it.
func finishedConflict(ctx context.Context, q DBTX, companyID, id int64, verb string) error {
	job, err := GetJob(ctx, q, companyID, id)
	if err != nil {
		return err
	}
	return Errorf(Conflict, "Job %d is %s and cannot be %s.", id, job.State, verb)
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

// RecordJobChunk stores one chunk's output with the job's progress, in one
// statement. running is false when the job is no longer running: nothing
// is recorded. A chunk recorded already (a duplicate delivery) keeps its
// first output.
func RecordJobChunk(ctx context.Context, q DBTX, companyID, jobID int64, chunk int, output json.RawMessage, p Progress) (running bool, err error) {
	var n int
	err = q.QueryRow(ctx, `WITH job AS (
			UPDATE jobs SET progress = $5, updated_at = now()
			WHERE company_id = $1 AND id = $2 AND state = 'running'
			RETURNING company_id, id),
		chunk AS (
			INSERT INTO job_chunks (company_id, job_id, chunk, output)
			SELECT company_id, id, $3, $4 FROM job
			ON CONFLICT DO NOTHING)
		SELECT count(*) FROM job`, companyID, jobID, chunk, string(output), p).Scan(&n)
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
}

// ClaimPendingJobs marks up to limit pending jobs queued, oldest first,
// skipping rows another relay holds, and returns them for the caller to
// enqueue. It commits at once, so that no row stays locked while Redis is
// called (a worker would wait on it); the caller puts back those it could
// not enqueue with UnclaimJobs, and the quiet-job sweep covers a relay
// that died in between.
func ClaimPendingJobs(ctx context.Context, q DBTX, limit int) ([]PendingJob, error) {
	rows, err := q.Query(ctx, `UPDATE jobs SET state = 'queued', queued_at = now(), updated_at = now()
		FROM (SELECT company_id, id FROM jobs WHERE state = 'pending'
			ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED) AS p
		WHERE jobs.company_id = p.company_id AND jobs.id = p.id
		RETURNING jobs.company_id, jobs.id, jobs.kind, jobs.queue, jobs.generation`, limit)
	if err != nil {
		return nil, translate(err, "claim pending jobs")
	}
	claimed, err := pgx.CollectRows(rows, pgx.RowToStructByPos[PendingJob])
	return claimed, translate(err, "claim pending jobs")
}

// UnclaimJobs puts claimed jobs that could not be enqueued back to
// pending (those a worker has started meanwhile stay as they are).
func UnclaimJobs(ctx context.Context, q DBTX, jobs []PendingJob) error {
	if len(jobs) == 0 {
		return nil
	}
	companies := make([]int64, len(jobs))
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		companies[i], ids[i] = j.CompanyID, j.ID
	}
	_, err := q.Exec(ctx, `UPDATE jobs SET state = 'pending', queued_at = NULL, updated_at = now()
		FROM unnest($1::bigint[], $2::bigint[]) AS u (company_id, id)
		WHERE jobs.company_id = u.company_id AND jobs.id = u.id AND jobs.state = 'queued'`, companies, ids)
	return translate(err, "unclaim jobs")
}

// QuietJobs returns up to limit jobs queued or running that have not
// changed for longer than quiet: the relay checks that Redis still holds
// their tasks (it may have lost them) and touches them.
func QuietJobs(ctx context.Context, q DBTX, quiet time.Duration, limit int) ([]PendingJob, error) {
	rows, err := q.Query(ctx, `UPDATE jobs SET updated_at = now()
		FROM (SELECT company_id, id FROM jobs
			WHERE state IN ('queued', 'running') AND updated_at < now() - $1::interval
			ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED) AS quiet
		WHERE jobs.company_id = quiet.company_id AND jobs.id = quiet.id
		RETURNING jobs.company_id, jobs.id, jobs.kind, jobs.queue, jobs.generation`, quiet, limit)
	if err != nil {
		return nil, translate(err, "quiet jobs")
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[PendingJob])
}

// OldestPendingJobAge is how long the oldest pending job has waited for
// the relay (zero when none waits).
func OldestPendingJobAge(ctx context.Context, q DBTX) (time.Duration, error) {
	var seconds float64
	err := q.QueryRow(ctx, `SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
		FROM jobs WHERE state = 'pending'`).Scan(&seconds)
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

// CompanyTimeZone returns one company's time zone.
func CompanyTimeZone(ctx context.Context, q DBTX, companyID int64) (string, error) {
	var zone string
	err := q.QueryRow(ctx, `SELECT time_zone FROM companies WHERE id = $1`, companyID).Scan(&zone)
	return zone, translate(err, fmt.Sprintf("company %d", companyID))
}

// SubmitForZone submits one job of a kind for every company in a time
// zone, keyed by uniqueKey, in one statement: a company that has its job
// for that key already gets no second one. It returns how many were new.
func SubmitForZone(ctx context.Context, q DBTX, zone string, nj NewJob) (int64, error) {
	payload := nj.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	var n int64
	err := q.QueryRow(ctx, `WITH new AS (
			INSERT INTO jobs (company_id, kind, queue, payload, unique_key, submitted_by)
			SELECT id, $2, $3, $4, $5, $6 FROM companies WHERE time_zone = $1
			ON CONFLICT DO NOTHING RETURNING 1)
		SELECT count(*) FROM new`, zone, nj.Kind, nj.Queue, []byte(payload), nj.UniqueKey, nj.SubmittedBy).Scan(&n)
	if err != nil {
		return 0, translate(err, "submit for zone")
	}
	if n > 0 {
		if _, err := q.Exec(ctx, `SELECT pg_notify($1, '')`, JobsChannel); err != nil {
			return n, translate(err, "notify relay")
		}
	}
	return n, nil
}
