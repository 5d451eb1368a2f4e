package jobs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// ticketSetup is a company's Bradesco CNAB 400 account (the values of
// cnab/testdata/237_400.json), a payer with an address and invoices
// billed by ticket to that account, written directly.
type ticketSetup struct {
	pool      *pgxpool.Pool
	company   int64
	account   int64
	payer     int64
	invoiceOf func(t testing.TB, total string) int64
}

func newTicketSetup(t testing.TB, pool *pgxpool.Pool, company int64) *ticketSetup {
	t.Helper()
	ctx := context.Background()
	s := &ticketSetup{pool: pool, company: company}
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var v int64
		if err := pool.QueryRow(ctx, sql, append([]any{company}, args...)...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	business := id(`INSERT INTO businesses (company_id, name, tax_id) VALUES ($1, 'Imobiliária Conceição', '11222333000181') RETURNING id`)
	s.account = id(`INSERT INTO accounts (company_id, business_id, bank, layout, agency, agency_digit, account, account_digit,
		wallet, covenant) VALUES ($1, $2, '237', 'cnab400', '1234', '5', '0012345', '6', '09', '00000000000004567890') RETURNING id`, business)
	s.payer = id(`INSERT INTO persons (company_id, name, tax_id, street, number, district, city, state, zip_code)
		VALUES ($1, 'João da Silva', '12345678909', 'Rua das Acácias', '123', 'Centro', 'Porto Alegre', 'RS', '90000123') RETURNING id`)
	s.invoiceOf = func(t testing.TB, total string) int64 {
		return id(`INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, description,
			total, date, due_date) VALUES ($1, 'single', $2, $3, $4, 'ticket', 'Aluguel', $5::numeric, current_date,
			current_date + 10) RETURNING id`, s.payer, business, s.account, total)
	}
	return s
}

// batch creates a collection batch of the account with n invoices added.
func (s *ticketSetup) batch(t *testing.T, n int) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	if err := s.pool.QueryRow(ctx, `INSERT INTO ticket_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`,
		s.company, s.account).Scan(&id); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = s.invoiceOf(t, fmt.Sprintf("%d.00", 100+i))
	}
	ans, err := ChangeBatchMembers(ctx, s.pool, TicketBatchKind, storage.Company(s.company), id, storage.OpAdd, ids)
	if err != nil || len(ans.Done) != n {
		t.Fatalf("add to batch %d: %v %+v", id, err, ans)
	}
	return id
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

// waitForLockWaiters waits until n sessions wait for a row lock; it asks
// on conn, since the waiting sessions may hold every connection of a pool.
func waitForLockWaiters(t *testing.T, conn *pgx.Conn, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions wait for a lock after 30 s, want %d", waiting, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRemittanceLayoutsAreCnabs: the bank and layout pairs a batch's
// account may have are those package cnab writes.
func TestRemittanceLayoutsAreCnabs(t *testing.T) {
	t.Parallel()
	if got, want := storage.RemittanceLayouts(), cnab.Supported(); !slices.Equal(got, want) {
		t.Errorf("storage.RemittanceLayouts() = %v, cnab.Supported() = %v", got, want)
	}
	for _, pair := range cnab.Supported() {
		bank, digits, _ := strings.Cut(pair, "/")
		layout := "cnab" + digits
		if got, want := storage.RemittanceRequired(bank, layout), cnab.Required(bank, layoutOf(layout)); !slices.Equal(got, want) {
			t.Errorf("%s: storage.RemittanceRequired = %v, cnab.Required = %v", pair, got, want)
		}
	}
}

// TestInterestForms: for every layout package cnab writes, a title with
// interest in the form interestForms says the layout takes is accepted,
// and one in a form it says the layout does not take is refused (the
// beneficiaries and titles of cnab/testdata).
func TestInterestForms(t *testing.T) {
	t.Parallel()
	for _, pair := range cnab.Supported() {
		var bank string
		var width int
		fmt.Sscanf(pair, "%3s/%d", &bank, &width)
		perDay, monthly := interestForms(bank, cnab.Layout(width))
		in := readCnabInput(t, bank, width)
		for _, form := range []struct {
			name     string
			accepted bool
			set      func(*cnab.Title)
		}{
			{"per day", perDay, func(ti *cnab.Title) { ti.InterestPerDay = decimal.RequireFromString("0.50") }},
			{"monthly", monthly, func(ti *cnab.Title) { ti.InterestMonthlyPercent = decimal.RequireFromString("1.00") }},
		} {
			w, err := cnab.NewWriter(discard{}, in.Remittance, nil)
			if err != nil {
				t.Fatalf("%s: %v", pair, err)
			}
			var title cnab.Title
			for ti, err := range in.Each() {
				if err != nil {
					t.Fatalf("%s: %v", pair, err)
				}
				title = ti
				break
			}
			title.InterestPerDay, title.InterestMonthlyPercent = decimal.Zero, decimal.Zero
			form.set(&title)
			if err := w.Write(title); (err == nil) != form.accepted {
				t.Errorf("%s, interest %s: accepted %v, want %v (%v)", pair, form.name, err == nil, form.accepted, err)
			}
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// readCnabInput reads a layout's test input of package cnab.
func readCnabInput(t *testing.T, bank string, width int) cnab.Input {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "cnab", "testdata", fmt.Sprintf("%s_%d.json", bank, width)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := cnab.DecodeInput(f)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestBatchPayloads: the payloads of batch:file and batch:return name a
// kind of batch and an id, and their unique keys make one job per batch
// and per stored file.
func TestBatchPayloads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		p        interface{ Check() []storage.Problem }
		problems []string
	}{
		{"file", BatchFilePayload{Batch: "ticket", ID: 7}, nil},
		{"file of no kind", BatchFilePayload{Batch: "boleto", ID: 7}, []string{"payload.batch"}},
		{"file without id", BatchFilePayload{Batch: "ticket"}, []string{"payload.id"}},
		{"return", BatchReturnPayload{Batch: "ticket", FileID: 3}, nil},
		{"return of nothing", BatchReturnPayload{FileID: -1}, []string{"payload.batch", "payload.file_id"}},
	} {
		var fields []string
		for _, p := range c.p.Check() {
			fields = append(fields, p.Field)
		}
		if !slices.Equal(fields, c.problems) {
			t.Errorf("%s: problems %v, want %v", c.name, fields, c.problems)
		}
	}
	if k := (BatchFilePayload{Batch: "ticket", ID: 7}).UniqueKey(); k != "ticket:7" {
		t.Errorf("file key %q", k)
	}
	if k := (BatchReturnPayload{Batch: "ticket", FileID: 3}).UniqueKey(); k != "ticket:return:3" {
		t.Errorf("return key %q", k)
	}
}
