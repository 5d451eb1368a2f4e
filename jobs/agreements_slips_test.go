package jobs

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// slipsCase is an agreement of two installments billed by ticket, each
// in a collection batch of the account: the first added to a batch
// without a file (open), the second sent in a batch whose file is written
// (closed), with its entry in that file.
type slipsCase struct {
	s            *ticketSetup
	agreement    int64
	added, sent  int64 // the installments
	open, closed int64 // their batches
	entry        string
}

// newSlipsCase renegotiates one unpaid invoice of 1000.00 into two
// installments from today and puts them in their batches.
func newSlipsCase(t *testing.T, s *ticketSetup) *slipsCase {
	t.Helper()
	ctx := context.Background()
	pool, company := s.pool, s.company
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var v int64
		if err := pool.QueryRow(ctx, sql, append([]any{company}, args...)...).Scan(&v); err != nil {
			t.Fatalf("%.60s: %v", sql, err)
		}
		return v
	}
	owner := id(`INSERT INTO persons (company_id, name) VALUES ($1, 'Olga Proprietária') RETURNING id`)
	rent := id(`INSERT INTO transaction_items (company_id, description, debit, credit, type)
		VALUES ($1, 'Aluguel', 'customer', 'owner', 'rent') RETURNING id`)
	original := s.invoiceOf(t, "1000.00")
	id(`INSERT INTO invoice_items (company_id, invoice_id, item_id, amount, owner_id) VALUES ($1, $2, $3, 1000, $4) RETURNING id`,
		original, rent, owner)
	var now time.Time
	if err := pool.QueryRow(ctx, `SELECT company_today($1)`, company).Scan(&now); err != nil {
		t.Fatal(err)
	}
	run, err := storage.CreateAgreement(ctx, pool, storage.Company(company), storage.AgreementRequest{InvoiceIDs: []int64{original},
		Installments: 2, FirstDueDate: finance.DateOf(now), IntervalMonths: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	c := &slipsCase{s: s, agreement: run.ID, added: run.Installments[0].ID, sent: run.Installments[1].ID}
	newBatch := func(invoice int64) int64 {
		t.Helper()
		b := id(`INSERT INTO ticket_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`, s.account)
		if ans, err := ChangeBatchMembers(ctx, pool, TicketBatchKind, storage.Company(company), b, storage.OpAdd,
			[]int64{invoice}); err != nil || len(ans.Done) != 1 {
			t.Fatalf("add invoice %d: %v %+v", invoice, err, ans)
		}
		return b
	}
	c.closed = newBatch(c.sent)
	recs := c.file(t, c.closed)
	for _, r := range recs {
		if r[0] == '1' && strings.TrimSpace(field(r, 38, 62)) == fmt.Sprint(c.sent) {
			c.entry = r
		}
	}
	if c.entry == "" {
		t.Fatalf("no entry of installment %d in the file of batch %d", c.sent, c.closed)
	}
	c.open = newBatch(c.added)
	return c
}

// file writes the file of a batch and answers its records.
func (c *slipsCase) file(t *testing.T, batch int64) []string {
	t.Helper()
	ctx := context.Background()
	var res *BatchFileResult
	if err := pgx.BeginFunc(ctx, c.s.pool, func(tx pgx.Tx) error {
		var err error
		res, err = writeBatchFile(ctx, tx, TicketBatchKind, c.s.company, batch, 0)
		return err
	}); err != nil {
		t.Fatalf("file of batch %d: %v", batch, err)
	}
	stored, err := storage.ReadBatchFile(ctx, c.s.pool, c.s.company, res.FileID, true)
	if err != nil {
		t.Fatal(err)
	}
	content, err := stored.Content()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(content), "\r\n"), "\r\n")
}

// field is a record's positions from to to, counted from 1.
func field(rec string, from, to int) string { return rec[from-1 : to] }

// check asserts what the agreement's end left: the installments
// canceled with their slips cleared; the first removed from its open
// batch, the second reverted in its closed one, both batches without
// titles, each with a history row as removeInvoices and revertInvoices
// write (of the actor given), its note naming the agreement; and the account's next file, of another batch, carries the drop
// of the second (Bradesco 400: movement 02 with the entry's nosso número,
// seu número, due date, amount and control) and nothing of the first.
func (c *slipsCase) check(t *testing.T, end, ended, actor string) {
	t.Helper()
	ctx := context.Background()
	pool, company := c.s.pool, c.s.company
	for _, inv := range []int64{c.added, c.sent} {
		var status, barcode, line string
		var registered bool
		if err := pool.QueryRow(ctx, `SELECT status, coalesce(ticket_barcode, ''), coalesce(ticket_digitable, ''), ticket_registered FROM invoices
			WHERE company_id = $1 AND id = $2`, company, inv).Scan(&status, &barcode, &line, &registered); err != nil {
			t.Fatal(err)
		}
		if status != "canceled" || barcode != "" || line != "" || registered {
			t.Errorf("installment %d: %s, barcode %q, digitable %q, registered %v; want canceled without a slip",
				inv, status, barcode, line, registered)
		}
	}
	var members []string
	rows, err := pool.Query(ctx, `SELECT batch_id, invoice_id, state, drop_batch_id FROM ticket_batch_invoices
		WHERE company_id = $1 AND invoice_id = any($2) ORDER BY id`, company, []int64{c.added, c.sent})
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var batch, inv int64
		var state string
		var drop *int64
		if err := rows.Scan(&batch, &inv, &state, &drop); err != nil {
			t.Fatal(err)
		}
		members = append(members, fmt.Sprintf("%d/%d %s %v", batch, inv, state, drop))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d/%d reverted <nil>", c.closed, c.sent); len(members) != 1 || members[0] != want {
		t.Errorf("member rows after the %s: %v, want only %s (the added one removed)", end, members, want)
	}
	for _, b := range []int64{c.open, c.closed} {
		var titles int64
		var total string
		if err := pool.QueryRow(ctx, `SELECT titles, total::text FROM ticket_batches WHERE company_id = $1 AND id = $2`,
			company, b).Scan(&titles, &total); err != nil {
			t.Fatal(err)
		}
		if titles != 0 || total != "0.00" {
			t.Errorf("batch %d after the %s: %d titles, total %s; want none", b, end, titles, total)
		}
	}
	for inv, want := range map[int64]string{
		c.added: fmt.Sprintf("removed from collection batch %d", c.open),
		c.sent:  fmt.Sprintf("reverted in collection batch %d: the bank is to drop the title", c.closed),
	} {
		want += fmt.Sprintf(" (installment canceled: agreement %d %s) by %s", c.agreement, ended, actor)
		var note string
		if err := pool.QueryRow(ctx, `SELECT coalesce(string_agg(note || ' by ' || actor, ' | '), '') FROM invoice_history
			WHERE company_id = $1 AND invoice_id = $2 AND origin = 'ticket_batch' AND note NOT LIKE 'added%'`,
			company, inv).Scan(&note); err != nil {
			t.Fatal(err)
		}
		if note != want {
			t.Errorf("history of installment %d after the %s: %q, want %q", inv, end, note, want)
		}
	}
	if n, err := storage.PendingTicketDrops(ctx, pool, company, c.s.account); err != nil || n != 1 {
		t.Errorf("drops pending after the %s: %d (%v), want 1", end, n, err)
	}

	next := c.s.batch(t, 1)
	var drops []string
	for _, r := range c.file(t, next) {
		if r[0] != '1' {
			continue
		}
		switch control := strings.TrimSpace(field(r, 38, 62)); {
		case field(r, 109, 110) == "02":
			drops = append(drops, r)
		case control == fmt.Sprint(c.added) || control == fmt.Sprint(c.sent):
			t.Errorf("the next file registers installment %s again: %q", control, r)
		}
	}
	if len(drops) != 1 {
		t.Fatalf("the next file carries %d drops, want the sent installment's", len(drops))
	}
	for _, s := range []struct {
		from, to int
		name     string
	}{{71, 82, "nosso número"}, {111, 120, "seu número"}, {121, 126, "due date"}, {127, 139, "amount"}, {38, 62, "control"}} {
		if got, want := field(drops[0], s.from, s.to), field(c.entry, s.from, s.to); got != want {
			t.Errorf("the drop's %s %q, want the entry's %q", s.name, got, want)
		}
	}
}

// TestAgreementCancelTakesSlipsOut: canceling an agreement takes its
// installments out of their collection batches as the batch operations
// do: the one added to a batch without a file is removed, the one sent is
// reverted, and the account's next file asks the bank to drop it.
func TestAgreementCancelTakesSlipsOut(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	c := newSlipsCase(t, newTicketSetup(t, pool, newCompany(t, pool, "Acordos")))
	if err := storage.CancelAgreement(context.Background(), pool, storage.Company(c.s.company), c.agreement); err != nil {
		t.Fatal(err)
	}
	c.check(t, "cancel", "canceled", "system")
}

// TestOverdueBreakTakesSlipsOut: the nightly finance:overdue run breaks
// an agreement whose installment is owed past agreement_break_days, and
// its installments leave their collection batches as on a cancel; the
// result counts the slips removed and reverted.
func TestOverdueBreakTakesSlipsOut(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	c := newSlipsCase(t, newTicketSetup(t, p.pool, p.companyA))
	var today time.Time
	if _, err := p.pool.Exec(context.Background(), `UPDATE invoices SET due_date = due_date - 31 WHERE company_id = $1 AND id = $2`,
		p.companyA, c.added); err != nil {
		t.Fatal(err)
	}
	if err := p.pool.QueryRow(context.Background(), `SELECT company_today($1)`, p.companyA).Scan(&today); err != nil {
		t.Fatal(err)
	}
	res := runOverdueOn(t, p, finance.DateOf(today).String())
	if res.AgreementsBroken != 1 || res.AgreementSlipsRemoved != 1 || res.AgreementSlipsReverted != 1 {
		t.Errorf("result %+v; want one agreement broken, one slip removed and one reverted", res)
	}
	c.check(t, "break", "broken", "job")
}

// TestAgreementCancelWaitsForARevert: a cancel that meets a revert by
// hand under way in the sent installment's batch waits for it, holding no
// invoice the revert needs (the batches are locked before the invoices,
// as the batch operations take them), then takes out what is left: the
// installment reverted by hand keeps its one revert, and the one added
// elsewhere is removed.
func TestAgreementCancelWaitsForARevert(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	c := newSlipsCase(t, newTicketSetup(t, pool, newCompany(t, pool, "Acordos")))
	conn, err := pgx.Connect(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	revert, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer revert.Rollback(ctx) //nolint:errcheck // committed below; this is for a failure before
	b, err := storage.LockBatch(ctx, revert, storage.TicketBatch, c.s.company, c.closed)
	if err != nil {
		t.Fatal(err)
	}
	canceled := make(chan error, 1)
	go func() {
		canceled <- storage.CancelAgreement(ctx, pool, storage.Company(c.s.company), c.agreement)
	}()
	waitForLockWaiters(t, conn, 1)
	if ans, err := storage.RevertMembers(ctx, revert, b, storage.Actor{Kind: storage.ActorSystem}, []int64{c.sent}); err != nil ||
		len(ans.Done) != 1 {
		t.Fatalf("the revert by hand: %v %+v", err, ans)
	}
	if err := revert.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-canceled; err != nil {
		t.Fatalf("the cancel: %v", err)
	}
	var states []string
	rows, err := pool.Query(ctx, `SELECT m.invoice_id || ' ' || m.state || ' ' || b.titles
		FROM ticket_batch_invoices m JOIN ticket_batches b ON b.company_id = m.company_id AND b.id = m.batch_id
		WHERE m.company_id = $1 AND m.invoice_id = any($2) ORDER BY m.id`, c.s.company, []int64{c.added, c.sent})
	if err != nil {
		t.Fatal(err)
	}
	if states, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d reverted 0", c.sent); len(states) != 1 || states[0] != want {
		t.Errorf("members after the cancel: %v, want %s alone", states, want)
	}
	var reverts, status string
	if err := pool.QueryRow(ctx, `SELECT string_agg(note, ' | '), (SELECT status FROM invoices WHERE company_id = $1 AND id = $2)
		FROM invoice_history WHERE company_id = $1 AND invoice_id = $2 AND origin = 'ticket_batch' AND note LIKE 'reverted%'`,
		c.s.company, c.sent).Scan(&reverts, &status); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("reverted in collection batch %d: the bank is to drop the title", c.closed); reverts != want || status != "canceled" {
		t.Errorf("the sent installment: %s, reverts %q; want canceled, reverted once by hand", status, reverts)
	}
}
