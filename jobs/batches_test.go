package jobs

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
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

// waitForLockWaiters waits until n sessions wait for a row lock; it asks
// on conn, since the waiting sessions may hold every connection of a pool.
// conn may be in a transaction (the one holding the lock), where
// PostgreSQL keeps the first look at pg_stat_activity for the rest of the
// transaction: each look clears it first, or a session that starts
// waiting after the first look is never seen.
func waitForLockWaiters(t *testing.T, conn *pgx.Conn, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if _, err := conn.Exec(context.Background(), `SELECT pg_stat_clear_snapshot()`); err != nil {
			t.Fatal(err)
		}
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

// TestBatchPayloads: the payloads of batch:file and batch:return name a
// kind of batch and an id, and their unique keys make one job per batch
// and per stored file.
func TestBatchPayloads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		p        interface{ Check() []finance.Problem }
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
