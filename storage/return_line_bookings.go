package storage

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
)

// The lines of a bank return file's content that booked money, keyed by
// the content's SHA-256 and the line (ReturnLineKey): docs/ledger.md,
// "Settlement from a bank return file". The same bytes read by another
// job (stored again for another account named) book nothing on a line an
// earlier reading booked; that reading's job is named instead.

// ReturnLineKey is the key of a line of a return file's content: the
// same for the same bytes, whatever stored copy or job reads them.
func ReturnLineKey(sha256 []byte, line int) string { return ReturnTariffKey(sha256, line) }

// ClaimReturnLines claims keys (ReturnLineKey) for the lines a reading
// (jobID) is about to book, in tx, and answers the keys claimed before by
// another reading, each with its job (0: not known, a tariff booked
// before the claims were kept). Claims are inserted in key order ON
// CONFLICT DO NOTHING: a reading of the same content in flight at once
// waits on the other's claims and, once it commits, finds them taken,
// so two readings never book one line. A claim whose line booked nothing
// in the end is released (ReleaseReturnLines) in the same tx.
func ClaimReturnLines(ctx context.Context, tx pgx.Tx, companyID, jobID int64, keys []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(keys) == 0 {
		return out, nil
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	rows, err := tx.Query(ctx, `INSERT INTO return_line_bookings (company_id, key, job_id)
		SELECT $1, u.key, nullif($2::bigint, 0) FROM unnest($3::text[]) WITH ORDINALITY AS u(key, n) ORDER BY u.n
		ON CONFLICT (company_id, key) DO NOTHING RETURNING key`, withValues, companyID, jobID, sorted)
	if err != nil {
		return nil, translate(err, "claim lines of a return file")
	}
	claimed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, translate(err, "claim lines of a return file")
	}
	if len(claimed) == len(sorted) {
		return out, nil
	}
	mine := make(map[string]bool, len(claimed))
	for _, k := range claimed {
		mine[k] = true
	}
	var before []string
	for _, k := range sorted {
		if !mine[k] {
			before = append(before, k)
		}
	}
	rows, err = tx.Query(ctx, `SELECT key, coalesce(job_id, 0) FROM return_line_bookings WHERE company_id = $1 AND key = any($2)`,
		withValues, companyID, before)
	if err != nil {
		return nil, translate(err, "lines of a return file booked before")
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var job int64
		if err := rows.Scan(&key, &job); err != nil {
			return nil, translate(err, "lines of a return file booked before")
		}
		out[key] = job
	}
	return out, translate(rows.Err(), "lines of a return file booked before")
}

// ReleaseReturnLines drops claims of the reading's transaction whose lines
// booked nothing (a payment refused, a tariff not booked), so that another
// reading of the same content may act on them.
func ReleaseReturnLines(ctx context.Context, tx pgx.Tx, companyID int64, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `DELETE FROM return_line_bookings WHERE company_id = $1 AND key = any($2)`, withValues, companyID, keys)
	return translate(err, "release lines of a return file")
}
