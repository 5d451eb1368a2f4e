package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// errRolledBack ends a transaction that must leave nothing behind.
var errRolledBack = errors.New("rolled back on purpose")

// TestTicketDropsAskedOnce: a file that is not stored (its transaction
// rolled back, as when a job fails after writing) asks nothing, so the
// next one asks; a file stored asks once, and a file job run again, or
// another file of the account, does not ask again; two files of the
// account written at once carry the drop once between them.
func TestTicketDropsAskedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	s := newTicketSetup(t, pool, newCompany(t, pool, "Drops"))
	first := s.batch(t, 2)
	write := func(batch int64) (*BatchFileResult, error) {
		var res *BatchFileResult
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var err error
			res, err = writeBatchFile(ctx, tx, TicketBatchKind, s.company, batch, 0)
			return err
		})
		return res, err
	}
	drops := func(res *BatchFileResult) int {
		if res.Details == nil {
			return 0
		}
		n, _ := res.Details["drops"].(int)
		return n
	}
	pending := func() int64 {
		t.Helper()
		n, err := storage.PendingTicketDrops(ctx, pool, s.company, s.account)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := write(first); err != nil {
		t.Fatal(err)
	}
	var reverted int64
	if err := pool.QueryRow(ctx, `SELECT min(invoice_id) FROM ticket_batch_invoices WHERE company_id = $1 AND batch_id = $2`,
		s.company, first).Scan(&reverted); err != nil {
		t.Fatal(err)
	}
	if ans, err := ChangeBatchMembers(ctx, pool, TicketBatchKind, storage.Company(s.company), first, storage.OpRevert,
		[]int64{reverted}); err != nil || len(ans.Done) != 1 {
		t.Fatalf("revert: %v %+v", err, ans)
	}
	if n := pending(); n != 1 {
		t.Fatalf("pending drops after the revert: %d", n)
	}

	second := s.batch(t, 1)
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		res, err := writeBatchFile(ctx, tx, TicketBatchKind, s.company, second, 0)
		if err == nil && drops(res) != 1 {
			t.Errorf("the file rolled back carried %d drops, want 1", drops(res))
		}
		if err == nil {
			err = errRolledBack
		}
		return err
	})
	if !errors.Is(err, errRolledBack) {
		t.Fatal(err)
	}
	if n := pending(); n != 1 {
		t.Fatalf("a file rolled back took its drop: pending %d", n)
	}
	res, err := write(second)
	if err != nil || drops(res) != 1 {
		t.Fatalf("the second file: %v %+v", err, res)
	}
	if n := pending(); n != 0 {
		t.Errorf("pending after the second file: %d", n)
	}
	var asked int64
	if err := pool.QueryRow(ctx, `SELECT drop_batch_id FROM ticket_batch_invoices WHERE company_id = $1 AND invoice_id = $2
		AND state = 'reverted'`, s.company, reverted).Scan(&asked); err != nil || asked != second {
		t.Errorf("drop_batch_id %d (%v), want %d", asked, err, second)
	}
	if again, err := write(second); err != nil || again.FileID != res.FileID {
		t.Errorf("the second file's job run again: %v %+v", err, again)
	}
	if third, err := write(s.batch(t, 1)); err != nil || drops(third) != 0 {
		t.Errorf("a third file: %v %+v", err, third)
	}

	// two files written at once, after another title is reverted: one of
	// them carries its drop
	var left int64
	if err := pool.QueryRow(ctx, `SELECT invoice_id FROM ticket_batch_invoices WHERE company_id = $1 AND batch_id = $2
		AND invoice_id <> $3`, s.company, first, reverted).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if _, err := ChangeBatchMembers(ctx, pool, TicketBatchKind, storage.Company(s.company), first, storage.OpRevert,
		[]int64{left}); err != nil {
		t.Fatal(err)
	}
	batches := []int64{s.batch(t, 1), s.batch(t, 1)}
	results := make([]*BatchFileResult, len(batches))
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Go(func() { results[i], errs[i] = write(b) })
	}
	wg.Wait()
	total := 0
	for i := range batches {
		if errs[i] != nil {
			t.Fatalf("file %d: %v", i, errs[i])
		}
		total += drops(results[i])
	}
	if total != 1 || pending() != 0 {
		t.Errorf("two files at once carried %d drops (pending %d), want 1", total, pending())
	}
}

// BenchmarkTicketDrops measures the drops of 100,000 reverted titles: a
// batch of 100,000 invoices of one Bradesco CNAB 400 account is added and
// its file written (as BenchmarkTicketBatch does), then every invoice is
// reverted in one revertInvoices, and the file of an empty batch of the
// account carries the 100,000 drops alone (claimed, written, stored), in
// drops per second beside the first file's titles per second in the same
// run.
//
//	go test -run '^$' -bench TicketDrops -benchtime 1x -count 2 -timeout 60m ./jobs
func BenchmarkTicketDrops(b *testing.B) {
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		pool := storagetest.NewDB(b)
		company, _, err := storage.EnsureCompany(ctx, pool, "Bench")
		if err != nil {
			b.Fatal(err)
		}
		s := newTicketSetup(b, pool, company)
		ids := benchTicketInvoices(b, s, benchTitles)
		newBatch := func() int64 {
			var id int64
			if err := pool.QueryRow(ctx, `INSERT INTO ticket_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`,
				company, s.account).Scan(&id); err != nil {
				b.Fatal(err)
			}
			return id
		}
		file := func(batch int64) (BatchFileResult, time.Duration) {
			r := benchStarted(b, pool, company, KindBatchFile, BatchFilePayload{Batch: "ticket", ID: batch})
			start := time.Now()
			out, err := runBatchFile(ctx, r, BatchFilePayload{Batch: "ticket", ID: batch})
			took := time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			var fr BatchFileResult
			if err := json.Unmarshal(out.(json.RawMessage), &fr); err != nil {
				b.Fatal(err)
			}
			return fr, took
		}
		first := newBatch()
		if ans, err := ChangeBatchMembers(ctx, pool, TicketBatchKind, storage.Company(company), first, storage.OpAdd, ids); err != nil ||
			len(ans.Done) != benchTitles {
			b.Fatalf("add: %v, %d added", err, len(ans.Done))
		}
		if fr, took := file(first); fr.Titles != benchTitles {
			b.Fatalf("first file: %+v", fr)
		} else {
			b.ReportMetric(float64(benchTitles)/took.Seconds(), "file-titles/s")
		}
		start := time.Now()
		if ans, err := ChangeBatchMembers(ctx, pool, TicketBatchKind, storage.Company(company), first, storage.OpRevert, ids); err != nil ||
			len(ans.Done) != benchTitles {
			b.Fatalf("revert: %v, %d reverted", err, len(ans.Done))
		}
		b.ReportMetric(time.Since(start).Seconds(), "revert-s")
		fr, took := file(newBatch())
		if n, _ := fr.Details["drops"].(float64); fr.Titles != 0 || int(n) != benchTitles {
			b.Fatalf("file of drops: %+v", fr.Details["drops"])
		}
		b.ReportMetric(float64(benchTitles)/took.Seconds(), "file-drops/s")
		b.ReportMetric(float64(fr.Bytes)/1e6, "drops-file-MB")
	}
}
