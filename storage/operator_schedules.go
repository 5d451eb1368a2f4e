package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// What the operators' view of the schedules reads: the companies and the
// runs of a schedule's kind by key, across companies.

// CompanyInfo is a company as the operators' views name it.
type CompanyInfo struct {
	ID        int64
	Name      string
	TimeZone  string
	CreatedAt time.Time
}

// Companies lists every company by id.
func Companies(ctx context.Context, q DBTX) ([]CompanyInfo, error) {
	rows, err := q.Query(ctx, `SELECT id, name, time_zone, created_at FROM companies ORDER BY id`)
	if err != nil {
		return nil, translate(err, "companies")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[CompanyInfo])
	return out, translate(err, "companies")
}

// KeyRun is the latest run (the highest rerun) of a unique key of a kind
// in a company.
type KeyRun struct {
	CompanyID  int64
	Key        string
	JobID      int64
	State      string
	Error      string
	CreatedAt  time.Time
	StartedAt  *time.Time
	FinishedAt *time.Time
}

// Duration is how long the run took, or has taken so far (zero before it
// started).
func (r KeyRun) Duration(now time.Time) time.Duration {
	if r.StartedAt == nil {
		return 0
	}
	if r.FinishedAt != nil {
		return r.FinishedAt.Sub(*r.StartedAt)
	}
	return now.Sub(*r.StartedAt)
}

const keyRunColumns = `company_id, unique_key, id, state, coalesce(error, ''), created_at, started_at, finished_at`

// KeyRuns returns the latest run of each of keys of kind, in every
// company that has one.
func KeyRuns(ctx context.Context, q DBTX, kind string, keys []string) ([]KeyRun, error) {
	// each company's runs read through its part of the unique-key index
	rows, err := q.Query(ctx, `SELECT r.* FROM companies c CROSS JOIN LATERAL (
			SELECT DISTINCT ON (unique_key) `+keyRunColumns+` FROM jobs
			WHERE company_id = c.id AND kind = $1 AND unique_key = any($2::text[])
			ORDER BY unique_key, rerun DESC) r
		ORDER BY r.company_id, r.unique_key`, kind, keys)
	if err != nil {
		return nil, translate(err, "key runs")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[KeyRun])
	return out, translate(err, "key runs")
}

// LastKeyRuns returns, per company, the latest run of kind's highest key
// (a schedule's last run: its keys are dates or months, which sort as
// text), among the keys made like the schedule's (like: a LIKE pattern of
// their shape, such as ____-__-__).
func LastKeyRuns(ctx context.Context, q DBTX, kind, like string) ([]KeyRun, error) {
	rows, err := q.Query(ctx, `SELECT r.* FROM companies c CROSS JOIN LATERAL (
			SELECT `+keyRunColumns+` FROM jobs
			WHERE company_id = c.id AND kind = $1 AND unique_key IS NOT NULL AND unique_key LIKE $2
			ORDER BY unique_key DESC, rerun DESC LIMIT 1) r
		ORDER BY r.company_id`, kind, like)
	if err != nil {
		return nil, translate(err, "last key runs")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[KeyRun])
	return out, translate(err, "last key runs")
}
