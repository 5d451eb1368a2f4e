package storage_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestRecordReturnLines: each line of a return file is recorded once, with
// its outcome, in one write: ReturnLinesRead lists the lines recorded, a
// second record of a line fails with a conflict and leaves nothing of its
// transaction (the other line it held included), and the row holds what
// the reading said, empty values as NULL.
func TestRecordReturnLines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Retorno")
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := storage.SaveReturnFile(ctx, pool, storage.TicketBatch, company, "CB240301.RET", 0, []byte("a return file"))
	if err != nil {
		t.Fatal(err)
	}
	paid, expected := decimal.RequireFromString("1536.00"), decimal.RequireFromString("1500.00")
	diff := paid.Sub(expected)
	first := []storage.ReturnLine{
		{Line: 2, Code: "06", Occurrence: "paid", OurNumber: "00000000411", MemberID: 41, Outcome: "settled",
			Message: "paid 1536.00", Paid: &paid, Expected: &expected, Difference: &diff},
		{Line: 4, Outcome: "unreadable", Message: "line 4: the amount is not a number"},
	}
	if err := inTx(t, pool, func(tx pgx.Tx) error { return storage.RecordReturnLines(ctx, tx, f, 0, first) }); err != nil {
		t.Fatal(err)
	}
	again := []storage.ReturnLine{{Line: 5, Outcome: "unmatched"}, {Line: 4, Outcome: "recorded"}}
	err = inTx(t, pool, func(tx pgx.Tx) error { return storage.RecordReturnLines(ctx, tx, f, 0, again) })
	if finance.ErrorCode(err) != finance.Conflict {
		t.Fatalf("line 4 recorded twice: %v, want a conflict", err)
	}
	var read map[int]bool
	if err := inTx(t, pool, func(tx pgx.Tx) error {
		read, err = storage.ReturnLinesRead(ctx, tx, f, []int{1, 2, 3, 4, 5})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(read) != 2 || !read[2] || !read[4] {
		t.Errorf("lines read: %v, want 2 and 4 (line 5's record went with the conflict)", read)
	}
	var got [2]string
	for i, line := range []int{2, 4} {
		if err := pool.QueryRow(ctx, `SELECT concat_ws('|', batch_type, coalesce(code, '-'), coalesce(occurrence, '-'),
			coalesce(our_number, '-'), coalesce(member_id::text, '-'), outcome, coalesce(message, '-'),
			coalesce(paid::text, '-'), coalesce(expected::text, '-'), coalesce(difference::text, '-'),
			coalesce(job_id::text, '-'))
			FROM batch_return_lines WHERE company_id = $1 AND file_id = $2 AND line = $3`, company, f.ID, line).Scan(&got[i]); err != nil {
			t.Fatal(err)
		}
	}
	want := [2]string{"ticket|06|paid|00000000411|41|settled|paid 1536.00|1536.00|1500.00|36.00|-",
		"ticket|-|-|-|-|unreadable|line 4: the amount is not a number|-|-|-|-"}
	if got != want {
		t.Errorf("rows:\n%s\n%s\nwant\n%s\n%s", got[0], got[1], want[0], want[1])
	}
}
