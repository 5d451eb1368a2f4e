package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The operators' side of the job platform (docs/operations.md, "Operator
// console"): every company's jobs read with the query language, each job
// with the errors of its runs, and the bulk retry and cancel of a
// selection, previewed by the same statement that acts.

// OperatorJobs is the resource name of every company's jobs, as operators
// read them.
const OperatorJobs = "operator_jobs"

// operatorJobsResource is the jobs table read across companies: shared
// (no company scope), read-only, with the company, the unique key and
// rerun number, the generation, and filters on the payload's keys
// (filter[payload.month]=2026-11). The payload itself is not returned.
func operatorJobsResource() *Resource {
	return &Resource{
		Name: OperatorJobs, Table: "jobs", ReadOnly: true, Shared: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "company_id", Type: Int, Filterable: true},
			{Name: "kind", Type: String, Filterable: true},
			{Name: "queue", Type: String, Filterable: true},
			{Name: "state", Type: String, Filterable: true, Enum: JobStates},
			{Name: "progress", Type: JSON},
			{Name: "result", Type: JSON},
			{Name: "error", Type: String, Filterable: true},
			{Name: "attempts", Type: Int, Filterable: true},
			{Name: "generation", Type: Int, Filterable: true},
			{Name: "unique_key", Type: String, Filterable: true},
			{Name: "rerun", Type: Int, Filterable: true},
			{Name: "submitted_by", Type: String, Filterable: true},
			{Name: "created_at", Type: DateTime, Filterable: true},
			{Name: "started_at", Type: DateTime, Filterable: true},
			{Name: "finished_at", Type: DateTime, Filterable: true},
			{Name: "payload", Type: JSON, KeyFilters: true, FilterOnly: true},
		},
		Filters: []SpecialFilter{
			ColumnIn("kindIn", "kind", String),
			stateIn(),
			ColumnIn("companyIn", "company_id", Int),
		},
	}
}

// JobError is the error of one failed run of a job: a run that failed
// (retried, or final), or one interrupted before it recorded any outcome
// (its worker lost), written when the next attempt took the job over
// (migration 0062).
type JobError struct {
	Attempt    int    `json:"attempt"`
	Generation int    `json:"generation"`
	Error      string `json:"error"`
	Final      bool   `json:"final"`
	// At is when the error was recorded: the run's end, or, for a run
	// interrupted, when the next attempt found it so.
	At time.Time `json:"-"`
	// StartedAt is the run's start; nil for the rows written before it
	// was kept.
	StartedAt *time.Time `json:"-"`
}

// JobErrors lists the errors of a job's failed runs, in order.
func JobErrors(ctx context.Context, q DBTX, companyID, jobID int64) ([]JobError, error) {
	rows, err := q.Query(ctx, `SELECT attempt, generation, error, final, at, started_at FROM job_errors
		WHERE company_id = $1 AND job_id = $2 ORDER BY attempt`, companyID, jobID)
	if err != nil {
		return nil, translate(err, "job errors")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[JobError])
	return out, translate(err, "job errors")
}

// JobPayload is a job's payload as stored, and its size; the text is nil
// when it is longer than max bytes.
func JobPayload(ctx context.Context, q DBTX, companyID, jobID int64, max int) (json.RawMessage, int, error) {
	var size int
	var text []byte
	err := q.QueryRow(ctx, `SELECT octet_length(payload::text),
			CASE WHEN octet_length(payload::text) <= $3 THEN payload::text::bytea END
		FROM jobs WHERE company_id = $1 AND id = $2`, companyID, jobID, max).Scan(&size, &text)
	if err == pgx.ErrNoRows {
		return nil, 0, recordNotFound(jobID)
	}
	if err != nil {
		return nil, 0, translate(err, "job payload")
	}
	return text, size, nil
}

// JobCompany is the company of a job, found by its id alone (ids are
// unique across companies): for the operators' routes, which name a job
// by its id. It probes each company's primary key, rather than reading
// every job: no index leads with the id.
func JobCompany(ctx context.Context, q DBTX, id int64) (int64, error) {
	var company int64
	err := q.QueryRow(ctx, `SELECT j.company_id FROM companies c
		CROSS JOIN LATERAL (SELECT company_id FROM jobs WHERE company_id = c.id AND id = $1) j`, id).Scan(&company)
	if err == pgx.ErrNoRows {
		return 0, recordNotFound(id)
	}
	return company, translate(err, "job company")
}

// Bulk actions on a selection of jobs.
const (
	BulkRetry  = "retry"
	BulkCancel = "cancel"
)

// MaxBulkJobs is the most jobs one bulk action acts on: a selection of more
// is refused, so that one transaction stays short.
const MaxBulkJobs = 10_000

// BulkListed is how many jobs of a selection a preview lists.
const BulkListed = 100

// BulkJob is one job of a bulk action's selection.
type BulkJob struct {
	CompanyID int64  `json:"company_id"`
	ID        int64  `json:"id"`
	Kind      string `json:"kind"`
	State     string `json:"state"`
	Error     string `json:"error"`
}

// BulkSelection is what a bulk action acts on: the jobs its filters
// select that the action applies to, how many, and those listed (the
// first BulkListed by id, or all of them once acted on).
type BulkSelection struct {
	Count int64
	Jobs  []BulkJob
}

// bulkStatement is the selection of a bulk action: the jobs the filters
// of q select (every company's: operator_jobs is shared) to which the
// action applies. A retry takes failed jobs, each the latest run of its
// unique key (a failed run a later run of its key replaced is left); a
// cancel takes the jobs not finished. The preview and the action both
// read the selection from here.
func bulkStatement(res *Resource, q ListQuery, action string) (*sqlBuilder, error) {
	var b sqlBuilder
	b.write(`SELECT "jobs"."company_id", "jobs"."id", "jobs"."kind", "jobs"."state", coalesce("jobs"."error", '') FROM "jobs"`)
	writeWhere(&b, res, Scope{}, q.Filters, q.Special)
	switch action {
	case BulkRetry:
		b.write(` AND "jobs"."state" = 'failed' AND ("jobs"."unique_key" IS NULL OR NOT EXISTS (
			SELECT 1 FROM jobs later WHERE later.company_id = "jobs"."company_id" AND later.kind = "jobs"."kind"
				AND later.unique_key = "jobs"."unique_key" AND later.rerun > "jobs"."rerun"))`)
	case BulkCancel:
		b.write(` AND "jobs"."state" IN ('pending', 'queued', 'running')`)
	default:
		return nil, fmt.Errorf("storage: unknown bulk action %q", action)
	}
	return &b, nil
}

// PreviewBulk counts the jobs a bulk action would act on, and lists the
// first BulkListed of them by id.
func (s *Store) PreviewBulk(ctx context.Context, q DBTX, res *Resource, lq ListQuery, action string) (BulkSelection, error) {
	b, err := bulkStatement(res, lq, action)
	if err != nil {
		return BulkSelection{}, err
	}
	sel := b.String()
	var out BulkSelection
	if err := q.QueryRow(ctx, `SELECT count(*) FROM (`+sel+`) s`, b.args...).Scan(&out.Count); err != nil {
		return BulkSelection{}, translate(err, "bulk preview")
	}
	rows, err := q.Query(ctx, sel+fmt.Sprintf(` ORDER BY "jobs"."id" LIMIT %d`, BulkListed), b.args...)
	if err != nil {
		return BulkSelection{}, translate(err, "bulk preview")
	}
	out.Jobs, err = pgx.CollectRows(rows, pgx.RowToStructByPos[BulkJob])
	return out, translate(err, "bulk preview")
}

// ActOnBulk does a bulk action in tx: it locks the selection (the same
// statement as PreviewBulk's), refuses it when it holds more than
// MaxBulkJobs jobs, or when expected (>= 0) is not its count (the
// selection changed since the preview), then retries (a new generation,
// pending again, as RetryJob) or cancels every job of it. It returns the
// jobs acted on, by id, each as the action left it (a retried job
// `pending` without its error, a canceled one `canceled`), as a single
// retry or cancel answers its job.
func (s *Store) ActOnBulk(ctx context.Context, tx pgx.Tx, res *Resource, lq ListQuery, action string, expected int64) (BulkSelection, error) {
	b, err := bulkStatement(res, lq, action)
	if err != nil {
		return BulkSelection{}, err
	}
	rows, err := tx.Query(ctx, b.String()+` ORDER BY "jobs"."id" FOR UPDATE OF "jobs"`, b.args...)
	if err != nil {
		return BulkSelection{}, translate(err, "bulk "+action)
	}
	selected, err := pgx.CollectRows(rows, pgx.RowToStructByPos[BulkJob])
	if err != nil {
		return BulkSelection{}, translate(err, "bulk "+action)
	}
	n := int64(len(selected))
	if n > MaxBulkJobs {
		return BulkSelection{}, finance.InvalidInput([]finance.Problem{{Field: "filter",
			Message: fmt.Sprintf("selects %s; at most %d at once: narrow the filters", finance.Count(n, "job", "jobs"), MaxBulkJobs)}})
	}
	if expected >= 0 && expected != n {
		return BulkSelection{}, finance.Errorf(finance.Conflict,
			"The selection holds %s now, not the %d expected: preview it again.", finance.Count(n, "job", "jobs"), expected)
	}
	refs := make([]JobRef, n)
	for i, j := range selected {
		refs[i] = JobRef{j.CompanyID, j.ID}
	}
	after, err := bulkUpdate(ctx, tx, action, refs)
	if err != nil {
		return BulkSelection{}, err
	}
	return BulkSelection{Count: n, Jobs: applyAfter(selected, after)}, nil
}

// applyAfter gives each selected job the state and error the action left
// it in (after, by reference); a job the action did not change (none: the
// selection is locked) keeps what it had.
func applyAfter(selected []BulkJob, after []BulkJob) []BulkJob {
	changed := make(map[JobRef]BulkJob, len(after))
	for _, j := range after {
		changed[JobRef{j.CompanyID, j.ID}] = j
	}
	out := make([]BulkJob, len(selected))
	for i, j := range selected {
		if a, ok := changed[JobRef{j.CompanyID, j.ID}]; ok {
			j.State, j.Error = a.State, a.Error
		}
		out[i] = j
	}
	return out
}

// bulkUpdate retries or cancels the jobs refs, locked by the caller, and
// returns each job changed as it is after the change.
func bulkUpdate(ctx context.Context, tx pgx.Tx, action string, refs []JobRef) ([]BulkJob, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	companies, ids := refColumns(refs)
	var rows pgx.Rows
	var err error
	switch action {
	case BulkRetry:
		rows, err = tx.Query(ctx, `WITH retried AS (
				UPDATE jobs SET state = 'pending', generation = generation + 1, relay_xid = pg_current_xact_id(),
					error = NULL, result = NULL, progress = '{"done": 0, "total": 0}', queued_at = NULL,
					started_at = NULL, finished_at = NULL, updated_at = now()
				FROM unnest($1::bigint[], $2::bigint[]) AS r (cid, jid)
				WHERE jobs.company_id = r.cid AND jobs.id = r.jid AND jobs.state = 'failed'
				RETURNING jobs.company_id, jobs.id, jobs.kind, jobs.state, coalesce(jobs.error, '') AS error),
			dropped AS (
				DELETE FROM job_chunks c USING retried WHERE c.company_id = retried.company_id AND c.job_id = retried.id),
			notified AS (SELECT pg_notify($3, ''))
			SELECT retried.* FROM retried, notified`, companies, ids, JobsChannel)
	case BulkCancel:
		rows, err = tx.Query(ctx, `UPDATE jobs SET state = 'canceled', finished_at = now(), updated_at = now()
			FROM unnest($1::bigint[], $2::bigint[]) AS r (cid, jid)
			WHERE jobs.company_id = r.cid AND jobs.id = r.jid AND jobs.state IN ('pending', 'queued', 'running')
			RETURNING jobs.company_id, jobs.id, jobs.kind, jobs.state, coalesce(jobs.error, '')`,
			companies, ids)
	default:
		return nil, fmt.Errorf("storage: unknown bulk action %q", action)
	}
	var after []BulkJob
	if err == nil {
		after, err = pgx.CollectRows(rows, pgx.RowToStructByPos[BulkJob])
	}
	if action == BulkRetry && violates(err, unfinishedRunIndex) {
		return nil, &finance.Error{Code: finance.Conflict, Err: err,
			Message: "A job of the selection has another run of its payload not finished (started meanwhile): preview again."}
	}
	return after, translate(err, "bulk "+action)
}

// AuditEntry is one row of the operators' audit log.
type AuditEntry struct {
	ID        int64      `json:"id"`
	At        time.Time  `json:"-"`
	Operator  string     `json:"operator"`
	Action    string     `json:"action"`
	Reason    string     `json:"reason"`
	Selection string     `json:"selection"`
	Count     int        `json:"count"`
	Jobs      [][2]int64 `json:"jobs"`
}

// RecordAudit writes an entry of the audit log in q (the transaction of
// the action it records) and returns its id.
func RecordAudit(ctx context.Context, q DBTX, e AuditEntry) (int64, error) {
	jobs := e.Jobs
	if jobs == nil {
		jobs = [][2]int64{}
	}
	enc, err := json.Marshal(jobs)
	if err != nil {
		return 0, fmt.Errorf("encode audit jobs: %w", err)
	}
	var id int64
	err = q.QueryRow(ctx, `INSERT INTO operator_audit (operator, action, reason, selection, count, jobs)
		VALUES ($1, $2, $3, $4, $5, $6::text::jsonb) RETURNING id`,
		e.Operator, e.Action, e.Reason, e.Selection, e.Count, string(enc)).Scan(&id)
	return id, translate(err, "record audit")
}

// AuditLog lists the audit log, newest first: limit entries from offset
// (pages of a list), each with its jobs.
func AuditLog(ctx context.Context, q DBTX, limit, offset int) ([]AuditEntry, error) {
	rows, err := q.Query(ctx, `SELECT id, at, operator, action, reason, selection, count, jobs::text
		FROM operator_audit ORDER BY id DESC LIMIT $1 OFFSET $2`, limit, offset)
	if err != nil {
		return nil, translate(err, "audit log")
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var jobs string
		if err := rows.Scan(&e.ID, &e.At, &e.Operator, &e.Action, &e.Reason, &e.Selection, &e.Count, &jobs); err != nil {
			return nil, translate(err, "audit log")
		}
		if err := json.Unmarshal([]byte(jobs), &e.Jobs); err != nil {
			return nil, fmt.Errorf("audit log %d: %w", e.ID, err)
		}
		out = append(out, e)
	}
	return out, translate(rows.Err(), "audit log")
}
