package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// returnSetup is a company with n invoices of benchTicketInvoices sent in
// one collection batch, whose file is written, and a return of that file
// (bradescoReturnOf: every title paid, the first with interest), stored.
type returnSetup struct {
	pool     *pgxpool.Pool
	company  int64
	invoices []int64
	file     *storage.ReturnFile
}

func newReturnSetup(t *testing.T, n, apart int, extra func(ret []byte) []byte) *returnSetup {
	t.Helper()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	rs := &returnSetup{pool: pool, company: newCompany(t, pool, "Retorno")}
	s := newTicketSetup(t, pool, rs.company)
	rs.invoices = benchTicketInvoices(t, s, n)
	var batch int64
	if err := pool.QueryRow(ctx, `INSERT INTO ticket_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`,
		rs.company, s.account).Scan(&batch); err != nil {
		t.Fatal(err)
	}
	if ans, err := ChangeBatchMembers(ctx, pool, TicketBatchKind, storage.Company(rs.company), batch, storage.OpAdd, rs.invoices); err != nil || len(ans.Done) != n {
		t.Fatalf("add: %v %+v", err, ans)
	}
	payload := BatchFilePayload{Batch: "ticket", ID: batch}
	out, err := runBatchFile(ctx, benchStarted(t, pool, rs.company, KindBatchFile, payload), payload)
	if err != nil {
		t.Fatal(err)
	}
	var fr BatchFileResult
	if err := json.Unmarshal(out.(json.RawMessage), &fr); err != nil {
		t.Fatal(err)
	}
	stored, err := storage.ReadBatchFile(ctx, pool, rs.company, fr.FileID, true)
	if err != nil {
		t.Fatal(err)
	}
	content, err := stored.Content()
	if err != nil {
		t.Fatal(err)
	}
	ret := bradescoReturnOf(t, content, apart)
	if extra != nil {
		ret = extra(ret)
	}
	if rs.file, _, err = storage.SaveReturnFile(ctx, pool, storage.TicketBatch, rs.company, "retorno.ret", 0, ret); err != nil {
		t.Fatal(err)
	}
	return rs
}

// run runs a new batch:return job over the stored file (as a worker hands
// it to its handler) and returns its result.
func (rs *returnSetup) run(t *testing.T) BatchReturnResult {
	t.Helper()
	payload := BatchReturnPayload{Batch: "ticket", FileID: rs.file.ID}
	out, err := runBatchReturn(context.Background(), benchStarted(t, rs.pool, rs.company, KindBatchReturn, payload), payload)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		BatchReturnResult
		Report []storage.ReturnLine `json:"report"`
	}
	if err := json.Unmarshal(out.(json.RawMessage), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Report) != res.Lines {
		t.Fatalf("%d lines reported of %d", len(res.Report), res.Lines)
	}
	for i := 1; i < len(res.Report); i++ {
		if res.Report[i].Line <= res.Report[i-1].Line {
			t.Fatalf("report out of order at %d: line %d after %d", i, res.Report[i].Line, res.Report[i-1].Line)
		}
	}
	return res.BatchReturnResult
}

// ledger is the company's entries: how many, and whether each invoice's
// debits equal its credits.
func (rs *returnSetup) ledger(t *testing.T) (entries int, balanced bool) {
	t.Helper()
	err := rs.pool.QueryRow(context.Background(), `SELECT count(*), coalesce(bool_and(d = c), true) FROM (
		SELECT sum(amount) FILTER (WHERE type = 'debit') OVER w AS d,
		       sum(amount) FILTER (WHERE type = 'credit') OVER w AS c
		FROM transactions WHERE company_id = $1 WINDOW w AS (PARTITION BY invoice_id)) e`, rs.company).Scan(&entries, &balanced)
	if err != nil {
		t.Fatal(err)
	}
	return entries, balanced
}

// TestReturnChunkOnce: a part of a return file read by two transactions
// at once (two runs of its job) is acted on once. The second waits on the
// first's invoices, finds them paid, and fails recording the lines the
// first recorded, so nothing it did stays; a second job of the same file
// then reads every line as read before and posts nothing.
func TestReturnChunkOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rs := newReturnSetup(t, 3, 0, nil)
	payload := BatchReturnPayload{Batch: "ticket", FileID: rs.file.ID}
	rf, items, err := readReturnFile(ctx, benchStarted(t, rs.pool, rs.company, KindBatchReturn, payload), TicketBatchKind, rs.file.ID)
	if err != nil {
		t.Fatal(err)
	}
	first, err := rs.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	lines, err := readReturnChunk(ctx, first, TicketBatchKind, rf, items)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if l.Outcome != storage.PaymentSettled {
			t.Fatalf("first reading: line %d %s (%s)", l.Line, l.Outcome, l.Message)
		}
	}
	watch, err := pgx.Connect(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	second := make(chan error, 1)
	go func() {
		second <- pgx.BeginFunc(ctx, rs.pool, func(tx pgx.Tx) error {
			_, err := readReturnChunk(ctx, tx, TicketBatchKind, rf, items)
			return err
		})
	}()
	waitForLockWaiters(t, watch, 1)
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-second; finance.ErrorCode(err) != finance.Conflict {
		t.Fatalf("the second reading of the same lines: %v, want a conflict", err)
	}
	entries, balanced := rs.ledger(t)
	if entries != 8 || !balanced { // two entries a title, two more for the first's interest
		t.Fatalf("%d entries (balanced %t), want 8", entries, balanced)
	}
	res := rs.run(t)
	if res.Outcomes[storage.OutcomeDuplicate] != 3 || len(res.Outcomes) != 1 {
		t.Errorf("another job of the file: %v, want 3 duplicates", res.Outcomes)
	}
	if again, _ := rs.ledger(t); again != entries {
		t.Errorf("%d entries after another job of the file, want %d", again, entries)
	}
}

// TestReturnChunksAtOnce: a return of three chunks whose titles are named
// each in one chunk runs its chunks two at a time and settles every title,
// the report in line order; the same titles with the first paid again in
// the last chunk run one chunk after the other, so that the file's first
// line settles it and the later one finds it paid, as the file orders
// them.
func TestReturnChunksAtOnce(t *testing.T) {
	t.Parallel()
	apart := returnChunk + 100 // the titles' lines in chunks 0, 1 and 2
	for _, tc := range []struct {
		name     string
		again    bool
		outcomes map[string]int
	}{
		{"apart", false, map[string]int{"settled": 3, "unmatched": 2 * apart}},
		{"paid twice", true, map[string]int{"settled": 3, "already_paid": 1, "unmatched": 2 * apart}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var extra func([]byte) []byte
			if tc.again {
				extra = payFirstAgain
			}
			rs := newReturnSetup(t, 3, apart, extra)
			_, items, err := readReturnFile(context.Background(), benchStarted(t, rs.pool, rs.company, KindBatchReturn,
				BatchReturnPayload{Batch: "ticket", FileID: rs.file.ID}), TicketBatchKind, rs.file.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := returnChunksApart(TicketBatchKind, items); got == tc.again {
				t.Fatalf("returnChunksApart: %t", got)
			}
			res := rs.run(t)
			if fmt.Sprint(res.Outcomes) != fmt.Sprint(tc.outcomes) {
				t.Errorf("outcomes %v, want %v", res.Outcomes, tc.outcomes)
			}
			if entries, balanced := rs.ledger(t); entries != 8 || !balanced {
				t.Errorf("%d entries (balanced %t), want 8", entries, balanced)
			}
			var paid []int64
			rows, _ := rs.pool.Query(context.Background(), `SELECT id FROM invoices WHERE company_id = $1 AND paid ORDER BY id`, rs.company)
			if paid, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil || !slices.Equal(paid, rs.invoices) {
				t.Errorf("paid %v, want %v (%v)", paid, rs.invoices, err)
			}
		})
	}
}

// payFirstAgain repeats a return's first detail line before its trailer,
// numbering the two lines again.
func payFirstAgain(ret []byte) []byte {
	const width = 402 // 400 and CRLF
	out := slices.Clone(ret[:len(ret)-width])
	out = append(out, ret[width:2*width]...)
	out = append(out, ret[len(ret)-width:]...)
	for _, n := range []int{len(out)/width - 1, len(out) / width} {
		copy(out[n*width-8:], fmt.Sprintf("%06d", n))
	}
	return out
}

// TestReturnChunksApart: the chunks of a file run at once only when no
// title is named in two of them, leading zeros aside; unreadable lines,
// lines of another kind and lines naming nothing do not count.
func TestReturnChunksApart(t *testing.T) {
	t.Parallel()
	title := func(line int, number string) ReturnItem {
		return ReturnItem{Line: line, Event: retorno.Event{Line: line, Kind: retorno.KindTitle, OurNumber: number}}
	}
	lines := func(named map[int]ReturnItem) []ReturnItem {
		out := make([]ReturnItem, 2*returnChunk+10)
		for i := range out {
			out[i] = title(i+2, fmt.Sprintf("%011d", 100000+i))
		}
		for i, it := range named {
			out[i] = it
		}
		return out
	}
	far := 2*returnChunk + 5
	for _, tc := range []struct {
		name  string
		named map[int]ReturnItem
		apart bool
	}{
		{"every title once", nil, true},
		{"twice in one chunk", map[int]ReturnItem{3: title(5, "00000000007"), 9: title(11, "7")}, true},
		{"in two chunks", map[int]ReturnItem{3: title(5, "00000000007"), far: title(far+2, "0007")}, false},
		{"unreadable", map[int]ReturnItem{3: title(5, "7"), far: {Line: far + 2, Event: title(far+2, "7").Event,
			Err: &retorno.LineError{Line: far + 2, Reason: "bad"}}}, true},
		{"another kind", map[int]ReturnItem{3: title(5, "7"), far: {Line: far + 2, Event: retorno.Event{Kind: retorno.KindPayment, OurNumber: "7"}}}, true},
		{"no number", map[int]ReturnItem{3: title(5, ""), far: title(far+2, "000")}, true},
	} {
		if got := returnChunksApart(TicketBatchKind, lines(tc.named)); got != tc.apart {
			t.Errorf("%s: %t, want %t", tc.name, got, tc.apart)
		}
	}
}
