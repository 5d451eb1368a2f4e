package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The Idempotency-Key of the writes that answer at once (docs/api.md,
// "Idempotency-Key"; migration 0039): KeyedWrite runs a write in one
// transaction with the record of its key and answer, so that the same key
// and request answers the first answer again and writes nothing, and a
// crash leaves the write and its key together or neither. A job-starting
// request keeps its key on its job instead (SubmitJob); a company's keys
// are one set across both: a key taken by either is refused to a request
// of the other.

// IdempotencyKey is a client's key for one write, with the hash of the
// request it came with (the method, the path and the body).
type IdempotencyKey struct {
	Key         string // "": the request has none
	RequestHash []byte
}

// KeyedAnswer is an answer as recorded under a key: the HTTP status, the
// body and the Location header ("": none), as they were written to the
// client.
type KeyedAnswer struct {
	Status   int
	Body     []byte
	Location string
}

// KeyedWriteFunc is the write of a keyed operation, in the transaction
// that records its key: its answer, or an error (the transaction is then
// rolled back, the key with it).
type KeyedWriteFunc func(ctx context.Context, tx pgx.Tx) (KeyedAnswer, error)

// KeyedWrite runs write in one transaction of db with the record of key
// for the company. The key is claimed before write runs: a second request
// with the same key waits for the first transaction to end, and then, the
// first committed, reads its answer (or, the first rolled back, runs as a
// new request). A key recorded before with the same request hash answers
// its recorded answer, replayed true, and nothing runs; with another hash,
// or taken by a job, it is a 422 naming Idempotency-Key. Only a write that
// succeeds is recorded: a refused one leaves the key free. Without a key,
// write runs in a transaction of its own, nothing recorded.
func KeyedWrite(ctx context.Context, db Beginner, companyID int64, key IdempotencyKey, write KeyedWriteFunc) (answer KeyedAnswer, replayed bool, err error) {
	err = pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if key.Key != "" {
			recorded, found, err := claimKey(ctx, tx, companyID, key)
			if err != nil || found {
				answer, replayed = recorded, found
				return err
			}
		}
		a, err := write(ctx, tx)
		if err != nil {
			return err
		}
		answer = a
		if key.Key == "" {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET status = $3, body = $4, location = nullif($5, '')
			WHERE company_id = $1 AND key = $2`, companyID, key.Key, a.Status, a.Body, a.Location)
		return translate(err, "record the idempotency key's answer")
	})
	return answer, replayed, err
}

// keyReused is the refusal of a key already used with another request.
func keyReused() error {
	return finance.InvalidInput([]finance.Problem{{Field: "Idempotency-Key", Message: "was already used with a different request"}})
}

// claimKey takes key for the company in tx, or, when a committed
// transaction holds it (waiting for one that has not ended), returns its
// recorded answer; a key recorded with another request, or held by a job,
// is refused (keyReused).
func claimKey(ctx context.Context, tx pgx.Tx, companyID int64, key IdempotencyKey) (KeyedAnswer, bool, error) {
	var claimed bool
	err := tx.QueryRow(ctx, `INSERT INTO idempotency_keys (company_id, key, request_hash) VALUES ($1, $2, $3)
		ON CONFLICT (company_id, key) DO NOTHING RETURNING true`, companyID, key.Key, key.RequestHash).Scan(&claimed)
	switch {
	case err == nil:
		var byJob bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs WHERE company_id = $1 AND idempotency_key = $2)`,
			companyID, key.Key).Scan(&byJob); err != nil {
			return KeyedAnswer{}, false, translate(err, "jobs by idempotency key")
		}
		if byJob {
			return KeyedAnswer{}, false, keyReused()
		}
		return KeyedAnswer{}, false, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return KeyedAnswer{}, false, translate(err, "claim the idempotency key")
	}
	var hash []byte
	var status *int
	var body []byte
	var location string
	if err := tx.QueryRow(ctx, `SELECT request_hash, status, body, coalesce(location, '') FROM idempotency_keys
		WHERE company_id = $1 AND key = $2`, companyID, key.Key).Scan(&hash, &status, &body, &location); err != nil {
		return KeyedAnswer{}, false, translate(err, "the idempotency key's answer")
	}
	if !bytes.Equal(hash, key.RequestHash) {
		return KeyedAnswer{}, false, keyReused()
	}
	if status == nil {
		return KeyedAnswer{}, false, fmt.Errorf("idempotency key %q: recorded without its answer", key.Key)
	}
	return KeyedAnswer{Status: *status, Body: body, Location: location}, true, nil
}

// PruneIdempotencyKeys deletes a company's keys recorded before cutoff,
// batch rows a statement, and returns how many it deleted.
func PruneIdempotencyKeys(ctx context.Context, q DBTX, companyID int64, cutoff time.Time, batch int) (int64, error) {
	var total int64
	for {
		tag, err := q.Exec(ctx, `DELETE FROM idempotency_keys WHERE company_id = $1 AND key IN (
			SELECT key FROM idempotency_keys WHERE company_id = $1 AND created_at < $2 LIMIT $3)`, companyID, cutoff, batch)
		if err != nil {
			return total, translate(err, "prune idempotency keys")
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, translate(err, "prune idempotency keys")
		}
	}
}
