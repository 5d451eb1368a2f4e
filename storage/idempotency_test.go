package storage_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestKeyedWrite: a write and its key are recorded together or not at
// all; the same key and hash answers the recorded answer without running
// the write; another hash, or a key a job holds, is refused naming the
// header, and a job is refused a key an operation holds; keys are the
// company's.
func TestKeyedWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	var a, b int64
	if err := pool.QueryRow(ctx, `INSERT INTO companies (name) VALUES ('A') RETURNING id`).Scan(&a); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `INSERT INTO companies (name) VALUES ('B') RETURNING id`).Scan(&b); err != nil {
		t.Fatal(err)
	}
	runs := 0
	person := func(name string, fail error) storage.KeyedWriteFunc {
		return func(ctx context.Context, tx pgx.Tx) (storage.KeyedAnswer, error) {
			runs++
			if _, err := tx.Exec(ctx, `INSERT INTO persons (company_id, name) VALUES ($1, $2)`, a, name); err != nil {
				return storage.KeyedAnswer{}, err
			}
			return storage.KeyedAnswer{Status: 200, Body: []byte(`{"name": "` + name + `"}`)}, fail
		}
	}
	count := func(sql string, args ...any) (n int) {
		t.Helper()
		if err := pool.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	persons := func() int { return count(`SELECT count(*) FROM persons WHERE company_id = $1`, a) }
	refusedOnKey := func(err error) bool {
		var e *finance.Error
		return errors.As(err, &e) && e.Code == finance.Invalid && len(e.Problems) == 1 && e.Problems[0].Field == "Idempotency-Key"
	}
	key := storage.IdempotencyKey{Key: "k-1", RequestHash: []byte{1}}

	// the write fails after it wrote: neither it nor the key is kept
	if _, _, err := storage.KeyedWrite(ctx, pool, a, key, person("Ana", errors.New("broke"))); err == nil {
		t.Fatal("a failed write succeeded")
	}
	if n, k := persons(), count(`SELECT count(*) FROM idempotency_keys`); n != 0 || k != 0 {
		t.Fatalf("a failed write left %d persons and %d keys", n, k)
	}
	// it succeeds: both; the same key and hash again answers the answer and runs nothing
	first, replayed, err := storage.KeyedWrite(ctx, pool, a, key, person("Ana", nil))
	if err != nil || replayed || first.Status != 200 || string(first.Body) != `{"name": "Ana"}` {
		t.Fatalf("first: %v %v %+v", err, replayed, first)
	}
	runs = 0
	again, replayed, err := storage.KeyedWrite(ctx, pool, a, key, person("Ana", nil))
	if err != nil || !replayed || runs != 0 || again.Status != first.Status || !slices.Equal(again.Body, first.Body) {
		t.Fatalf("again: %v replayed %v, %d runs, %+v", err, replayed, runs, again)
	}
	// another hash: refused, nothing run
	if _, _, err := storage.KeyedWrite(ctx, pool, a, storage.IdempotencyKey{Key: "k-1", RequestHash: []byte{2}},
		person("Bia", nil)); !refusedOnKey(err) || runs != 0 {
		t.Fatalf("another request with the key: %v, %d runs", err, runs)
	}
	// the other company's key of the same name is its own
	if _, replayed, err := storage.KeyedWrite(ctx, pool, b, key, person("Caio", nil)); err != nil || replayed || runs != 1 {
		t.Fatalf("company B's k-1: %v replayed %v, %d runs", err, replayed, runs)
	}
	// without a key: runs every time
	for range 2 {
		if _, replayed, err := storage.KeyedWrite(ctx, pool, a, storage.IdempotencyKey{}, person("Davi", nil)); err != nil || replayed {
			t.Fatalf("no key: %v %v", err, replayed)
		}
	}
	if n := persons(); n != 4 {
		t.Errorf("%d persons, want Ana, Caio (company A's row, written by B's key) and Davi twice", n)
	}

	// a key a job holds, and a job given a key an operation holds
	job, _, err := storage.SubmitJob(ctx, pool, a, storage.NewJob{Kind: "pix:validate", Queue: "default", SubmittedBy: "test",
		IdempotencyKey: "job-1", RequestHash: []byte{3}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := storage.KeyedWrite(ctx, pool, a, storage.IdempotencyKey{Key: "job-1", RequestHash: []byte{3}},
		person("Eva", nil)); !refusedOnKey(err) {
		t.Errorf("an operation with a job's key: %v", err)
	}
	if _, _, err := storage.SubmitJob(ctx, pool, a, storage.NewJob{Kind: "pix:validate", Queue: "default", SubmittedBy: "test",
		IdempotencyKey: "k-1", RequestHash: []byte{1}}); !refusedOnKey(err) {
		t.Errorf("a job with an operation's key: %v", err)
	}
	if again, found, err := storage.SubmitJob(ctx, pool, a, storage.NewJob{Kind: "pix:validate", Queue: "default",
		SubmittedBy: "test", IdempotencyKey: "job-1", RequestHash: []byte{3}}); err != nil || found != storage.FoundSameRequest || again.ID != job.ID {
		t.Errorf("the job's key again: %v %v %d, want job %d", err, found, again.ID, job.ID)
	}
	if n := count(`SELECT count(*) FROM jobs WHERE company_id = $1`, a); n != 1 {
		t.Errorf("%d jobs, want 1", n)
	}
}
