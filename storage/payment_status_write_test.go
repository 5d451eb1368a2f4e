package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestPaymentStatusFollowsTheWrites: every write of a contract's invoices
// that can change its payment status brings it to today's at once
// (migration 0066), dated today, and keeps the contract marked for the
// night; a write that changes nothing a status is computed from leaves the
// contract's row alone.
func TestPaymentStatusFollowsTheWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Em Dia")
	if _, err := pool.Exec(ctx, `UPDATE companies SET time_zone = 'America/Manaus' WHERE id = $1`, f.company); err != nil {
		t.Fatal(err)
	}
	today, err := storage.CompanyToday(ctx, pool, f.company)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, append([]any{f.company}, args...)...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// state is the contract's status, its date and its updated_at.
	state := func(contract int64) (string, finance.Date, time.Time) {
		t.Helper()
		var status string
		var dated *finance.Date
		var updated time.Time
		if err := pool.QueryRow(ctx, `SELECT payment_status, payment_status_date, updated_at FROM contracts
				WHERE company_id = $1 AND id = $2`, f.company, contract).Scan(&status, &dated, &updated); err != nil {
			t.Fatal(err)
		}
		if dated == nil {
			return status, finance.Date{}, updated
		}
		return status, *dated, updated
	}
	want := func(step string, contract int64, status string) {
		t.Helper()
		got, dated, _ := state(contract)
		if got != status || dated != today {
			t.Errorf("%s: payment_status %s dated %s, want %s dated %s", step, got, dated, status, today)
		}
	}

	c := f.contract(t)
	if got, dated, _ := state(c); got != "nothing" || !dated.IsZero() {
		t.Fatalf("new contract: %s dated %s, want nothing, undated", got, dated)
	}
	late := f.invoice(t, c, finance.Invoice{DueDate: today.AddDays(-40)})
	want("an invoice 40 days late added", c, "month")
	soon := f.invoice(t, c, finance.Invoice{DueDate: today.AddDays(3)})
	want("one due in 3 days beside it", c, "month")
	exec(`UPDATE invoices SET paid = true, status = 'paid', paid_at = now() WHERE company_id = $1 AND id = $2`, late)
	want("the late one paid", c, "due_5_days")
	exec(`UPDATE invoices SET due_date = $2 WHERE company_id = $1 AND id = $3`, today.AddDays(8), soon)
	want("the open one's due date moved 8 days ahead", c, "due_10_days")

	_, _, before := state(c)
	exec(`UPDATE invoices SET description = 'Aluguel de dezembro' WHERE company_id = $1 AND id = $2`, soon)
	if _, _, after := state(c); !after.Equal(before) {
		t.Errorf("a description changed: the contract was written (updated_at %s, was %s)", after, before)
	}

	exec(`UPDATE invoices SET status = 'canceled' WHERE company_id = $1 AND id = $2`, soon)
	want("the open one canceled", c, "ok")
	exec(`UPDATE invoices SET status = 'unpaid' WHERE company_id = $1 AND id = $2`, soon)
	want("restored", c, "due_10_days")

	other := f.contract(t)
	exec(`UPDATE invoices SET contract_id = $2 WHERE company_id = $1 AND id = $3`, other, soon)
	want("moved away: the contract left with a paid invoice", c, "ok")
	want("moved in", other, "due_10_days")
	exec(`DELETE FROM invoices WHERE company_id = $1 AND id = $2`, soon)
	want("deleted", other, "nothing")

	// A statement of many invoices of many contracts: one refresh, each
	// contract its own status.
	many := []int64{f.contract(t), f.contract(t), f.contract(t)}
	exec(`INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
			status, description, total, date, due_date)
		SELECT $1, 'contract', $2, c, $3, $4, 'ticket', 'unpaid', 'Aluguel', 1500, d, d
		FROM unnest($5::bigint[], $6::date[]) AS v (c, d)`, f.payer, f.business, f.account,
		many, []finance.Date{today.AddDays(-2), today.AddDays(-95), today})
	want("inserted together, 2 days late", many[0], "5_days")
	want("inserted together, 95 days late", many[1], "3_months")
	want("inserted together, due today", many[2], "due_5_days")

	var marks int
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT contract_id) FROM contract_payment_marks WHERE company_id = $1`,
		f.company).Scan(&marks); err != nil {
		t.Fatal(err)
	}
	if marks != 5 {
		t.Errorf("%d contracts marked, want all 5: the night still recalculates what a write refreshed", marks)
	}
}

// TestPaymentStatusRefreshSkipsALockedContract: a write never waits on a
// contract another transaction holds; the contract keeps its status and its
// mark, for the night.
func TestPaymentStatusRefreshSkipsALockedContract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Ocupada")
	today, err := storage.CompanyToday(ctx, pool, f.company)
	if err != nil {
		t.Fatal(err)
	}
	c := f.contract(t)
	inv := f.invoice(t, c, finance.Invoice{DueDate: today.AddDays(-10)})

	holder, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	if _, err := holder.Exec(ctx, `SELECT 1 FROM contracts WHERE company_id = $1 AND id = $2 FOR UPDATE`, f.company, c); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '2s'`); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, `UPDATE invoices SET paid = true, status = 'paid', paid_at = now() WHERE company_id = $1 AND id = $2`, f.company, inv)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		t.Fatalf("the payment waited on the locked contract: %s %s", pgErr.Code, pgErr.Message)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var status string
	var marked bool
	if err := pool.QueryRow(ctx, `SELECT payment_status,
			EXISTS (SELECT 1 FROM contract_payment_marks WHERE company_id = $1 AND contract_id = $2)
		FROM contracts WHERE company_id = $1 AND id = $2`, f.company, c).Scan(&status, &marked); err != nil {
		t.Fatal(err)
	}
	if status != "30_days" || !marked {
		t.Errorf("locked contract: %s, marked %v; want its status before the payment (30_days) and its mark kept", status, marked)
	}
}

// TestPaymentStatusAfterTwoWritersAtOnce: two transactions pay the two
// late invoices of one contract at once (a return file's two chunks): each
// refresh computes without the other's payment, the second skips the
// contract the first holds, and the contract is left late with nothing
// open; RefreshMarkedPaymentStatuses, once both have committed, brings it
// to ok.
func TestPaymentStatusAfterTwoWritersAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Simultânea")
	today, err := storage.CompanyToday(ctx, pool, f.company)
	if err != nil {
		t.Fatal(err)
	}
	c := f.contract(t)
	october := f.invoice(t, c, finance.Invoice{DueDate: today.AddDays(-40)})
	november := f.invoice(t, c, finance.Invoice{DueDate: today.AddDays(-10)})
	pay := `UPDATE invoices SET paid = true, status = 'paid', paid_at = now() WHERE company_id = $1 AND id = $2`
	first, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx)
	if _, err := first.Exec(ctx, pay, f.company, october); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, pay, f.company, november); err != nil { // the second writer, committed at once
		t.Fatal(err)
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	status := func() string {
		t.Helper()
		var s string
		if err := pool.QueryRow(ctx, `SELECT payment_status FROM contracts WHERE company_id = $1 AND id = $2`, f.company, c).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := status(); got != "30_days" {
		t.Fatalf("after the two writers: %s, want 30_days (the first's, computed with November open)", got)
	}
	if n, err := storage.RefreshMarkedPaymentStatuses(ctx, pool, f.company); err != nil || n != 1 {
		t.Fatalf("refresh: %d contracts, %v; want 1", n, err)
	}
	if got := status(); got != "ok" {
		t.Errorf("after the refresh: %s, want ok", got)
	}
}
