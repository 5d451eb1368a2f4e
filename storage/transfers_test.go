package storage_test

import (
	"context"
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

// The owners' transfers on docs/ledger.md's worked example: the invoice
// of 2,350.00 due 2024-03-10, paid 2024-03-25 with late fee and interest,
// credited 2024-03-26, owners A (60%) 1,325.25 and B (40%) 883.50.

// setContract sets the fixture's contract (column = value, ...).
func (f *ledgerFixture) setContract(t *testing.T, settings string) {
	t.Helper()
	if _, err := f.pool.Exec(context.Background(), `UPDATE contracts SET `+settings+` WHERE company_id = $1 AND id = $2`,
		f.company, f.contract); err != nil {
		t.Fatal(err)
	}
}

// paidInvoice is the worked example's invoice, paid late and posted.
func (f *ledgerFixture) paidInvoice(t *testing.T) int64 {
	t.Helper()
	inv := f.invoice(t, "2024-03-10", "2024-03-25", "2024-03-26", lateSettings)
	if err := f.post(t, inv); err != nil {
		t.Fatal(err)
	}
	return inv
}

// unpaidInvoice is the worked example's invoice, due 2024-03-10, not paid.
func (f *ledgerFixture) unpaidInvoice(t *testing.T) int64 {
	t.Helper()
	inv := f.invoice(t, "2024-03-10", "2024-03-25", "2024-03-26", lateSettings)
	f.exec(t, `UPDATE invoices SET paid = false, status = 'unpaid', paid_at = NULL, credit_at = NULL WHERE company_id = $1 AND id = $2`, inv)
	return inv
}

// pay marks the invoice paid on paidAt, credited on creditAt, and posts it.
func (f *ledgerFixture) pay(t *testing.T, inv int64, paidAt, creditAt string) {
	t.Helper()
	f.exec(t, `UPDATE invoices SET paid = true, status = 'paid', paid_at = $3, credit_at = $4 WHERE company_id = $1 AND id = $2`,
		inv, paidAt, creditAt)
	if err := f.post(t, inv); err != nil {
		t.Fatal(err)
	}
}

func (f *ledgerFixture) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := f.pool.Exec(context.Background(), sql, append([]any{f.company}, args...)...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// transferJobID is the job the fixture's transfer runs act as.
const transferJobID = 9001

// transfer runs the transfer of the day on, in parts parts.
func (f *ledgerFixture) transfer(t *testing.T, on string, parts int) storage.TransferSummary {
	t.Helper()
	var sum storage.TransferSummary
	for k := range parts {
		err := inTx(t, f.pool, func(tx pgx.Tx) error {
			s, err := storage.TransferOwners(context.Background(), tx, f.company, transferJobID, finance.MustDate(on), parts, k)
			sum = sum.Add(s)
			return err
		})
		if err != nil {
			t.Fatalf("transfer on %s: %v", on, err)
		}
	}
	return sum
}

// transfers lists the company's transfers as "owner amount date due_date
// paid-out-entries".
func (f *ledgerFixture) transfers(t *testing.T) []string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		SELECT 'owner ' || t.owner_id, t.amount::text, t.date::text, t.due_date::text,
		       (SELECT count(*) FROM transactions p WHERE p.company_id = t.company_id AND p.transfer_id = t.id)
		FROM transactions t WHERE t.company_id = $1 AND t.mode = 'transfer' ORDER BY t.id`, f.company)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var holder, amount, date, due string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&holder, &amount, &date, &due, &n}, func() error {
		out = append(out, fmt.Sprintf("%s %s %s %s %d", f.names[holder], amount, date, due, n))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// statements is every party's balance: credits less debits and transfers.
func (f *ledgerFixture) statements(t *testing.T) map[string]string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		SELECT extract || ' ' || CASE extract WHEN 'business' THEN business_id ELSE person_id END,
		       sum(CASE type WHEN 'credit' THEN amount ELSE -amount END)::text
		FROM transactions WHERE company_id = $1 GROUP BY 1`, f.company)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var holder, sum string
	_, err = pgx.ForEachRow(rows, []any{&holder, &sum}, func() error {
		out[f.names[holder]] = sum
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unpaidOut lists the owners' entries of the invoice not paid out, as
// "mode type owner amount".
func (f *ledgerFixture) unpaidOut(t *testing.T, inv int64) []string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		SELECT mode || ' ' || type || ' owner ' || owner_id || ' ' || amount::text FROM transactions
		WHERE company_id = $1 AND invoice_id = $2 AND extract = 'owner' AND transfer_id IS NULL AND mode <> 'transfer'
		ORDER BY id`, f.company, inv)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range out {
		head, rest, _ := strings.Cut(s, " owner ")
		id, amount, _ := strings.Cut(rest, " ")
		out[i] = head + " " + f.names["owner "+id] + " " + amount
	}
	return out
}

func checkStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func checkStatements(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("statement of %s: got %s, want %s (all: %v)", k, got[k], v, got)
		}
	}
}

// TestTransferModes: each transfer mode pays the owners their share of the
// payment (what the posting credited them, 60/40) on its day and not
// before, with every entry of theirs paid out; a run done again writes
// nothing; manually is never transferred.
func TestTransferModes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, contract string
		before, on     string // the day before it is due, and the day
	}{
		{"after_receive 5 days", "transfer_mode = 'after_receive', transfer_after_days = 5", "2024-03-30", "2024-03-31"},
		{"after_receive same day", "transfer_mode = 'after_receive'", "2024-03-25", "2024-03-26"},
		{"fixed_day 10", "transfer_mode = 'fixed_day', transfer_after_days = 10", "2024-04-09", "2024-04-10"},
		{"fixed_day 31 in a month of 31", "transfer_mode = 'fixed_day', transfer_after_days = 31", "2024-03-30", "2024-03-31"},
		// 2024-04-13 is a Saturday: the Monday after
		{"fixed_day_or_next on a Saturday", "transfer_mode = 'fixed_day_or_next', transfer_after_days = 13", "2024-04-14", "2024-04-15"},
		{"fixed_day_or_next on a weekday", "transfer_mode = 'fixed_day_or_next', transfer_after_days = 10", "2024-04-09", "2024-04-10"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newLedgerFixture(t)
			f.setContract(t, c.contract)
			inv := f.paidInvoice(t)
			if s := f.transfer(t, c.before, 1); s.Transfers != 0 {
				t.Errorf("the day before: %d transfers", s.Transfers)
			}
			s := f.transfer(t, c.on, 1)
			if s.Transfers != 2 || s.Amount.String() != "2208.75" {
				t.Errorf("on the day: %d transfers of %s, want 2 of 2208.75", s.Transfers, s.Amount)
			}
			// owner A's five entries (rent, condominium, late fee, interest, fee), B's five
			checkStrings(t, "transfers", f.transfers(t), []string{
				"owner60 1325.25 " + c.on + " " + c.on + " 5",
				"owner40 883.50 " + c.on + " " + c.on + " 5",
			})
			checkStrings(t, "not paid out", f.unpaidOut(t, inv), nil)
			checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "200.00"})
			if s := f.transfer(t, c.on, 1); s.Transfers != 0 || s.Invoices != 0 {
				t.Errorf("run again: %+v", s)
			}
			if s := f.transfer(t, "2024-12-31", 1); s.Transfers != 0 {
				t.Errorf("a later run: %d transfers", s.Transfers)
			}
			checkStrings(t, "transfers after the runs again", f.transfers(t), []string{
				"owner60 1325.25 " + c.on + " " + c.on + " 5",
				"owner40 883.50 " + c.on + " " + c.on + " 5",
			})
		})
	}
}

// TestTransferNever: manually (also what a contract stores when it names
// no mode), a fixed day without a day, or an invoice with
// transfer_auto_disabled are never transferred by the run.
func TestTransferNever(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, contract, invoice string }{
		{"manually", "transfer_mode = 'manually', transfer_after_days = 0", ""},
		{"fixed_day without a day", "transfer_mode = 'fixed_day', transfer_after_days = NULL", ""},
		{"disabled on the invoice", "transfer_mode = 'after_receive'", "transfer_auto_disabled = true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newLedgerFixture(t)
			f.setContract(t, c.contract)
			inv := f.paidInvoice(t)
			if c.invoice != "" {
				f.exec(t, `UPDATE invoices SET `+c.invoice+` WHERE company_id = $1 AND id = $2`, inv)
			}
			if s := f.transfer(t, "2025-12-31", 1); s.Transfers != 0 {
				t.Errorf("%d transfers", s.Transfers)
			}
			checkStrings(t, "transfers", f.transfers(t), nil)
			checkStatements(t, f.statements(t), map[string]string{"owner60": "1325.25", "owner40": "883.50"})
		})
	}
}

// TestTransferInParts: a run split in parts (by invoice id) writes what
// one part writes, and each part done again writes nothing.
func TestTransferInParts(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, "transfer_mode = 'after_receive'")
	for range 5 {
		f.paidInvoice(t)
	}
	if s := f.transfer(t, "2024-03-26", 3); s.Transfers != 10 || s.Amount.String() != "11043.75" {
		t.Errorf("in 3 parts: %d transfers of %s", s.Transfers, s.Amount)
	}
	if s := f.transfer(t, "2024-03-26", 3); s.Transfers != 0 {
		t.Errorf("again: %d transfers", s.Transfers)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "1000.00"})
}

// TestGuaranteedTransferBeforeThePayment: the tenant has not paid by the
// due date plus the release days: the business advances the owners'
// share at face value and it is transferred; the payment, late, makes the
// business whole, and the owners are paid only what it brought beyond the
// guarantee (their part of the late fee and interest).
func TestGuaranteedTransferBeforeThePayment(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, `transfer_mode = 'after_receive', transfer_after_days = 2, guaranteed_transfer = true,
		guaranteed_transfer_release_after_days = 5, start_at = '2024-01-01', guaranteed_transfer_months = 12`)
	inv := f.unpaidInvoice(t)
	if s := f.transfer(t, "2024-03-14", 1); s.Guarantees != 0 || s.Transfers != 0 {
		t.Errorf("before the release: %+v", s)
	}
	s := f.transfer(t, "2024-03-15", 1)
	if s.Guarantees != 1 || s.Guaranteed.String() != "2150.00" || s.Transfers != 2 {
		t.Errorf("on the release: %+v", s)
	}
	// at face value: A 1,200.00 + 210.00 − 120.00; B 800.00 + 140.00 − 80.00
	checkStrings(t, "guaranteed transfers", f.transfers(t), []string{
		"owner60 1290.00 2024-03-15 2024-03-15 1",
		"owner40 860.00 2024-03-15 2024-03-15 1",
	})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "-2150.00"})
	if s := f.transfer(t, "2024-03-16", 1); s.Guarantees != 0 || s.Transfers != 0 {
		t.Errorf("the next night: %+v", s)
	}

	f.pay(t, inv, "2024-03-25", "2024-03-26")
	// the payment's entries and the guarantee's settlement: the business is whole
	checkStatements(t, f.statements(t), map[string]string{
		"owner60": "35.25", "owner40": "23.50", "business": "200.00", "payer": "-2408.75"})
	if s := f.transfer(t, "2024-03-27", 1); s.Transfers != 0 {
		t.Errorf("before after_receive's 2 days: %d transfers", s.Transfers)
	}
	if s := f.transfer(t, "2024-03-28", 1); s.Transfers != 2 || s.Guarantees != 0 {
		t.Errorf("after the payment: %+v", s)
	}
	checkStrings(t, "transfers", f.transfers(t), []string{
		"owner60 1290.00 2024-03-15 2024-03-15 1",
		"owner40 860.00 2024-03-15 2024-03-15 1",
		// the payment's five entries and the settlement's debit
		"owner60 35.25 2024-03-28 2024-03-28 6",
		"owner40 23.50 2024-03-28 2024-03-28 6",
	})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "200.00"})
	if s := f.transfer(t, "2024-03-28", 1); s.Transfers != 0 || s.Guarantees != 0 {
		t.Errorf("run again: %+v", s)
	}

	// undone: the guarantee is open again, the owners owe the 35.25 and 23.50
	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "-35.25", "owner40": "-23.50", "business": "-2150.00"})
	if s := f.transfer(t, "2024-04-30", 1); s.Transfers != 0 || s.Guarantees != 0 {
		t.Errorf("after the undo: %+v", s)
	}
	// paid again: settled again, the owners' debt nets against it
	f.pay(t, inv, "2024-03-25", "2024-03-26")
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "200.00"})
	if s := f.transfer(t, "2024-04-30", 1); s.Transfers != 0 {
		t.Errorf("paid again: %d transfers", s.Transfers)
	}
}

// TestGuaranteedTransferAfterThePayment: paid before its release day, a
// guaranteed invoice is not guaranteed: its share is transferred as any.
func TestGuaranteedTransferAfterThePayment(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, `transfer_mode = 'after_receive', guaranteed_transfer = true, guaranteed_transfer_release_after_days = 5`)
	inv := f.unpaidInvoice(t)
	f.exec(t, `UPDATE invoices SET ticket_late_fee = false WHERE company_id = $1 AND id = $2`, inv)
	f.pay(t, inv, "2024-03-12", "2024-03-13")
	s := f.transfer(t, "2024-03-15", 1)
	if s.Guarantees != 0 || s.Transfers != 2 {
		t.Errorf("%+v", s)
	}
	checkStrings(t, "transfers", f.transfers(t), []string{
		"owner60 1290.00 2024-03-15 2024-03-13 3",
		"owner40 860.00 2024-03-15 2024-03-13 3",
	})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "200.00"})
}

// TestGuaranteeLimits: a guarantee of some months covers the invoices due
// in them only; a canceled invoice is never guaranteed.
func TestGuaranteeLimits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, contract, invoice string
		guaranteed              bool
	}{
		{"within the months", "start_at = '2024-01-01', guaranteed_transfer_months = 3", "", true},
		{"after the months", "start_at = '2023-12-01', guaranteed_transfer_months = 3", "", false},
		{"no months", "start_at = '2020-01-01', guaranteed_transfer_months = 0", "", true},
		{"canceled", "guaranteed_transfer_months = NULL", "status = 'canceled'", false},
		{"renegotiated: its agreement's installments are owed", "guaranteed_transfer_months = NULL", "status = 'renegotiated'", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newLedgerFixture(t)
			f.setContract(t, "transfer_mode = 'after_receive', guaranteed_transfer = true, "+c.contract)
			inv := f.unpaidInvoice(t)
			if c.invoice != "" {
				f.exec(t, `UPDATE invoices SET `+c.invoice+` WHERE company_id = $1 AND id = $2`, inv)
			}
			s := f.transfer(t, "2024-03-10", 1)
			if got := s.Guarantees == 1; got != c.guaranteed {
				t.Errorf("guaranteed %v, want %v (%+v)", got, c.guaranteed, s)
			}
		})
	}
}

// TestTransferThenUndo: a payment undone after its share was transferred
// leaves the owners owing it (the undo is not refused); the run pays
// nothing while they owe, and a new payment nets against the debt.
func TestTransferThenUndo(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, "transfer_mode = 'after_receive'")
	inv := f.paidInvoice(t)
	f.transfer(t, "2024-03-26", 1)
	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "-1325.25", "owner40": "-883.50", "business": "0.00"})
	if s := f.transfer(t, "2024-12-31", 1); s.Transfers != 0 {
		t.Errorf("after the undo: %d transfers", s.Transfers)
	}
	f.pay(t, inv, "2024-03-25", "2024-03-26")
	if s := f.transfer(t, "2024-12-31", 1); s.Transfers != 0 {
		t.Errorf("paid again: %d transfers", s.Transfers)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "200.00"})
	checkStrings(t, "transfers", f.transfers(t), []string{
		"owner60 1325.25 2024-03-26 2024-03-26 5",
		"owner40 883.50 2024-03-26 2024-03-26 5",
	})
}

// TestTransferCompanyIsolation: a company's run touches its own invoices
// only.
func TestTransferCompanyIsolation(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	a := newLedgerFixtureIn(t, pool, "Imobiliária A")
	b := newLedgerFixtureIn(t, pool, "Imobiliária B")
	for _, f := range []*ledgerFixture{a, b} {
		f.setContract(t, "transfer_mode = 'after_receive', guaranteed_transfer = true")
		f.paidInvoice(t)
		f.unpaidInvoice(t)
	}
	n, err := storage.CountTransferInvoices(context.Background(), pool, a.company, finance.MustDate("2024-03-26"))
	if err != nil || n != 2 {
		t.Errorf("count of A: %d, %v; want 2", n, err)
	}
	if s := a.transfer(t, "2024-03-26", 1); s.Invoices != 2 || s.Transfers != 4 || s.Guarantees != 1 {
		t.Errorf("A: %+v", s)
	}
	checkStrings(t, "B's transfers", b.transfers(t), nil)
	checkStatements(t, b.statements(t), map[string]string{"owner60": "1325.25", "owner40": "883.50", "business": "200.00"})
	if s := b.transfer(t, "2024-03-26", 1); s.Invoices != 2 || s.Transfers != 4 {
		t.Errorf("B: %+v", s)
	}
}

// TestTransferReadsItsCompanyOnly: a company's transfer run reads its own
// entries only, however many other companies' transfers and entries
// the ledger holds, and with statistics taken before those were written
// (as at the start of a night of many companies, when every company's
// run writes transfers the statistics have not seen): no condition of the
// run's statements is a probe of every company's entries at once (a
// hashed EXISTS over all transfers, say). Counted by the transaction's
// own table statistics (pg_stat_xact_user_tables).
func TestTransferReadsItsCompanyOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	a := newLedgerFixtureIn(t, pool, "Imobiliária A")
	others := newLedgerFixtureIn(t, pool, "Imobiliária B")
	for _, f := range []*ledgerFixture{a, others} {
		f.setContract(t, "transfer_mode = 'after_receive', guaranteed_transfer = true")
	}
	const otherInvoices = 150
	for range otherInvoices {
		others.paidInvoice(t)
	}
	a.paidInvoice(t)
	a.unpaidInvoice(t)
	if _, err := pool.Exec(ctx, `ANALYZE transactions, invoices, contracts`); err != nil {
		t.Fatal(err)
	}
	if s := others.transfer(t, "2024-03-26", 1); s.Transfers != 2*otherInvoices {
		t.Fatalf("the other company's run: %+v", s)
	}
	var own int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE company_id = $1`, a.company).Scan(&own); err != nil {
		t.Fatal(err)
	}
	// a connection of its own: the counts it reads are its own statements'
	conn, err := pgx.Connect(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read, then rolled back
	s, err := storage.TransferOwners(ctx, tx, a.company, transferJobID, finance.MustDate("2024-03-26"), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Invoices != 2 || s.Transfers != 4 || s.Guarantees != 1 {
		t.Errorf("A's run: %+v", s)
	}
	var read int64
	err = tx.QueryRow(ctx, `SELECT seq_tup_read + idx_tup_fetch FROM pg_stat_xact_user_tables
		WHERE relid = 'transactions'::regclass`).Scan(&read)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("A's run read %d rows of transactions (A has %d)", read, own)
	// the company's entries, each read by a few of the run's statements;
	// the other company holds 150 invoices' entries and 300 transfers
	if limit := 10 * own; read > limit {
		t.Errorf("A's run read %d rows of transactions; A has %d (the other company %d invoices' worth): want at most %d",
			read, own, otherInvoices, limit)
	}
}

// TestUnpaidTransferChanges: a transfer the run wrote unpaid (the company
// pays its transfers by batch) may have its billing_method and account_id
// changed, notes beside them, even once its month's owner statements are
// closed (it is on no statement while unpaid): how and from which account
// it is paid is the manager's to fix for transfers already written. Its
// amount, owner or date alone cannot change (409), and once paid nothing of
// it can (409, saying it is paid).
func TestUnpaidTransferChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newLedgerFixture(t)
	f.exec(t, `UPDATE companies SET transfer_payment = 'batch' WHERE id = $1`)
	f.setContract(t, "transfer_mode = 'after_receive', transfer_after_days = 5, billing_method = 'ticket'")
	f.paidInvoice(t)
	if s := f.transfer(t, "2024-03-31", 1); s.Transfers != 2 {
		t.Fatalf("%d transfers, want 2", s.Transfers)
	}
	var id int64
	if err := f.pool.QueryRow(ctx, `SELECT id FROM transactions WHERE company_id = $1 AND mode = 'transfer' AND owner_id = $2`,
		f.company, f.owner60).Scan(&id); err != nil {
		t.Fatal(err)
	}
	var other int64
	if err := f.pool.QueryRow(ctx, `INSERT INTO accounts (company_id, business_id) VALUES ($1, $2) RETURNING id`,
		f.company, f.business).Scan(&other); err != nil {
		t.Fatal(err)
	}
	if err := inTx(t, f.pool, func(tx pgx.Tx) error {
		_, err := storage.CloseOwnerStatements(ctx, tx, f.company, 0, finance.NewMonth(2024, 3))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	res := store.Registry().MustResource(storage.Transactions)
	update := func(values map[string]any) error {
		_, err := store.Update(ctx, res, storage.Company(f.company), id, storage.Write{Values: values})
		return err
	}
	stored := func() string {
		var s string
		if err := f.pool.QueryRow(ctx, `SELECT concat_ws(' ', billing_method, (account_id = $3)::text, paid::text, date, amount, coalesce(notes, '-'))
			FROM transactions WHERE company_id = $1 AND id = $2`, f.company, id, other).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		name   string
		values map[string]any
		want   finance.Code // "" when taken
		say    string
	}{
		{"how and from where it is paid", map[string]any{"billing_method": "ted", "account_id": other, "notes": "TED"}, "", ""},
		{"its amount", map[string]any{"amount": "1.00", "billing_method": "pix"}, finance.Conflict, "amount cannot change"},
		{"its owner", map[string]any{"owner_id": f.owner40}, finance.Conflict, "owner_id cannot change"},
		{"its date alone", map[string]any{"date": "2024-04-02"}, finance.Conflict, "give paid true with the day it was paid"},
		{"paid without the day", map[string]any{"paid": true}, finance.Invalid, "date"},
	} {
		err := update(c.values)
		var e *finance.Error
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want it taken", c.name, err)
		case c.want == "":
		case !errors.As(err, &e) || e.Code != c.want || !strings.Contains(fmt.Sprint(e.Message, e.Problems), c.say):
			t.Errorf("%s: %v, want %q saying %q", c.name, err, c.want, c.say)
		}
	}
	if got, want := stored(), "ted true false 2024-03-31 1325.25 TED"; got != want {
		t.Errorf("the transfer is %q, want %q", got, want)
	}
	if err := update(map[string]any{"paid": true, "date": "2024-04-02", "billing_method": "pix"}); err != nil {
		t.Fatalf("marking it paid: %v", err)
	}
	err := update(map[string]any{"billing_method": "ted"})
	if finance.ErrorCode(err) != finance.Conflict || !strings.Contains(err.Error(), "is paid: it cannot be changed") {
		t.Errorf("changing a paid transfer: %v, want 409 saying it is paid", err)
	}
	if got, want := stored(), "pix true true 2024-04-02 1325.25 TED"; got != want {
		t.Errorf("the transfer is %q, want %q", got, want)
	}
}
