package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestBatchFileRefusedTitleStoresNothing: a file whose titles the layout
// refuses in the middle of the stream (a payer's document spoiled in its
// member row after it was added) fails at once, naming the title's
// invoice, and leaves nothing: no file stored, the batch open, the
// account's NSA not taken; once the row is mended, the file is written
// whole with the number.
func TestBatchFileRefusedTitleStoresNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Lotes")
	if err != nil {
		t.Fatal(err)
	}
	s := newTicketSetup(t, pool, company)
	batch := s.batch(t, 1500) // past a pipe's run: the refused title is read while others are written
	var spoiled int64
	if err := pool.QueryRow(ctx, `UPDATE ticket_batch_invoices SET payer_document = '123' WHERE company_id = $1
		AND batch_id = $2 AND our_number = (SELECT min(our_number) + 1000 FROM ticket_batch_invoices WHERE company_id = $1
		AND batch_id = $2) RETURNING invoice_id`, company, batch).Scan(&spoiled); err != nil {
		t.Fatal(err)
	}
	payload := BatchFilePayload{Batch: "ticket", ID: batch}
	_, err = runBatchFile(ctx, benchStarted(t, pool, company, KindBatchFile, payload), payload)
	var coded *finance.Error
	if !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) != 1 ||
		coded.Problems[0].Field != fmt.Sprintf("invoices.%d", spoiled) || !strings.Contains(coded.Problems[0].Message, "CPF or CNPJ") {
		t.Fatalf("a file with a refused title: %v", err)
	}
	var files, next int64
	var status string
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM batch_files WHERE company_id = $1),
		(SELECT next_file_sequence FROM accounts WHERE company_id = $1 AND id = $2),
		(SELECT status FROM ticket_batches WHERE company_id = $1 AND id = $3)`, company, s.account, batch).Scan(&files, &next, &status); err != nil {
		t.Fatal(err)
	}
	if files != 0 || next != 1 || status != "open" {
		t.Errorf("after the failure: %d files, next NSA %d, batch %s", files, next, status)
	}

	if _, err := pool.Exec(ctx, `UPDATE ticket_batch_invoices SET payer_document = '12345678909' WHERE company_id = $1
		AND invoice_id = $2`, company, spoiled); err != nil {
		t.Fatal(err)
	}
	out, err := runBatchFile(ctx, benchStarted(t, pool, company, KindBatchFile, payload), payload)
	if err != nil {
		t.Fatal(err)
	}
	var res BatchFileResult
	if err := json.Unmarshal(out.(json.RawMessage), &res); err != nil {
		t.Fatal(err)
	}
	stored, err := storage.ReadBatchFile(ctx, pool, company, res.FileID, true)
	if err != nil {
		t.Fatal(err)
	}
	content, err := stored.Content()
	if err != nil {
		t.Fatal(err)
	}
	recs := strings.Split(strings.TrimSuffix(string(content), "\r\n"), "\r\n")
	if res.Sequence != 1 || res.Titles != 1500 || res.Bytes != len(content) || len(recs) != 1502 {
		t.Errorf("the file mended: %+v, %d bytes, %d records", res, len(content), len(recs))
	}
	for i, r := range recs {
		if len(r) != 400 || r[394:] != fmt.Sprintf("%06d", i+1) {
			t.Fatalf("record %d: %q", i+1, r)
		}
	}
}

// TestBatchFileSequenceUnderConcurrentCloses: the files of batches of one
// account written by a worker at once get distinct, consecutive sequence
// numbers. The account's row is held locked while the jobs start, so that
// every job is waiting for its number at the same time when it is let go.
func TestBatchFileSequenceUnderConcurrentCloses(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	ctx := context.Background()
	s := newTicketSetup(t, p.pool, p.companyA)
	const n = 2 // two batches of the account closing at once
	batches := make([]int64, n)
	for i := range batches {
		batches[i] = s.batch(t, 3)
	}
	// the lock is held on a connection of its own, outside the worker's pool
	conn, err := pgx.Connect(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	hold, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx) //nolint:errcheck // released below; this is for a failure before
	if _, err := hold.Exec(ctx, `SELECT 1 FROM accounts WHERE company_id = $1 AND id = $2 FOR UPDATE`, s.company, s.account); err != nil {
		t.Fatal(err)
	}
	jobs := make([]storage.Job, n)
	for i, b := range batches {
		jobs[i] = p.submit(t, KindBatchFile, BatchFilePayload{Batch: "ticket", ID: b})
	}
	waitForLockWaiters(t, conn, n)
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	var firstBytes int
	for i, j := range jobs {
		done := p.wait(t, j.ID, storage.JobSucceeded, storage.JobFailed)
		res := decodeResult[BatchFileResult](t, done)
		if done.State != storage.JobSucceeded || res.BatchID != batches[i] || res.Titles != 3 {
			t.Fatalf("job %d: %s %q %+v", j.ID, done.State, done.Error, res)
		}
		seqs = append(seqs, res.Sequence)
		if i == 0 {
			firstBytes = res.Bytes
		}
	}
	slices.Sort(seqs)
	if !slices.Equal(seqs, []int64{1, 2}) {
		t.Errorf("sequences %v, want 1 and 2 once each", seqs)
	}
	var next int64
	if err := p.pool.QueryRow(ctx, `SELECT next_file_sequence FROM accounts WHERE company_id = $1 AND id = $2`,
		s.company, s.account).Scan(&next); err != nil || next != n+1 {
		t.Errorf("the account's next sequence: %d %v", next, err)
	}
	// a job run again answers the stored file and takes no number
	again, _, err := p.kinds.Submit(ctx, p.pool, p.companyA, Submission{Kind: KindBatchFile,
		Payload: mustJSON(BatchFilePayload{Batch: "ticket", ID: batches[0]}), SubmittedBy: "test"})
	if err != nil || again.ID != jobs[0].ID {
		t.Errorf("a second file job of a batch: %d %v, want job %d", again.ID, err, jobs[0].ID)
	}
	err = pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		res, err := writeBatchFile(ctx, tx, TicketBatchKind, s.company, batches[0], 0)
		if err == nil && (!slices.Contains(seqs, res.Sequence) || res.Titles != 3 || res.Bytes != firstBytes) {
			err = fmt.Errorf("written again: %+v", res)
		}
		return err
	})
	if err != nil {
		t.Error(err)
	}
	if err := p.pool.QueryRow(ctx, `SELECT next_file_sequence FROM accounts WHERE company_id = $1 AND id = $2`,
		s.company, s.account).Scan(&next); err != nil || next != n+1 {
		t.Errorf("the account's next sequence after a run again: %d %v", next, err)
	}
}
