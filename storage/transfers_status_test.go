package storage_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// An invoice's auto_transfer_status on docs/ledger.md's worked example,
// written by the run, the posting and its undoing.

// autoStatus is the invoice's auto_transfer_status ("" for null).
func (f *ledgerFixture) autoStatus(t *testing.T, inv int64) string {
	t.Helper()
	var s *string
	err := f.pool.QueryRow(context.Background(), `SELECT auto_transfer_status FROM invoices WHERE company_id = $1 AND id = $2`,
		f.company, inv).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	if s == nil {
		return ""
	}
	return *s
}

// statusHistory lists the invoice's history rows about its
// auto_transfer_status, as "actor actor_id origin: from -> to".
func (f *ledgerFixture) statusHistory(t *testing.T, inv int64) []string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		SELECT h.actor || ' ' || coalesce(h.actor_id::text, '-') || ' ' || h.origin || ': ' ||
		       coalesce(c->>'from', 'null') || ' -> ' || coalesce(c->>'to', 'null')
		FROM invoice_history h, jsonb_array_elements(h.changes) c
		WHERE h.company_id = $1 AND h.invoice_id = $2 AND c->>'field' = 'auto_transfer_status'
		ORDER BY h.id`, f.company, inv)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (f *ledgerFixture) checkStatus(t *testing.T, step string, inv int64, want finance.AutoTransferStatus) {
	t.Helper()
	if got := f.autoStatus(t, inv); got != string(want) {
		t.Errorf("%s: auto_transfer_status %q, want %q", step, got, want)
	}
}

// TestAutoTransferStatusSQL runs every combination of the facts through
// finance.AutoTransferFacts.Status and through the SQL the writes use:
// both must give the same status.
func TestAutoTransferStatusSQL(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	for n := range 64 {
		f := finance.AutoTransferFacts{Automatic: n&1 != 0, Posted: n&2 != 0, Guaranteed: n&4 != 0, Owed: n&8 != 0,
			Transferred: n&16 != 0, Overpaid: n&32 != 0}
		var got *string
		err := pool.QueryRow(context.Background(), `SELECT `+storage.AutoTransferStatusCase+`
			FROM (VALUES ($1::boolean, $2::boolean, $3::boolean, $4::boolean, $5::boolean, $6::boolean))
			AS f(automatic, posted, guaranteed, owed, transferred, overpaid)`,
			f.Automatic, f.Posted, f.Guaranteed, f.Owed, f.Transferred, f.Overpaid).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		sql := ""
		if got != nil {
			sql = *got
		}
		if want := f.Status(); sql != string(want) {
			t.Errorf("%+v: SQL %q, Go %q", f, sql, want)
		}
	}
}

// TestAutoTransferStatusOfAPayment: a payment posted is waiting for its
// day, the run that pays it out makes it transferred (a history row of
// the job), a run again writes nothing; undone after the transfer it is a
// chargeback, and paid again (netting the owners' debt) transferred.
// Undone before the transfer, it is null again.
func TestAutoTransferStatusOfAPayment(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, "transfer_mode = 'after_receive', transfer_after_days = 5")
	inv := f.paidInvoice(t)
	f.checkStatus(t, "posted", inv, finance.AutoTransferWaiting)
	if s := f.transfer(t, "2024-03-30", 1); s.Statuses != 0 {
		t.Errorf("the day before: %d statuses written", s.Statuses)
	}
	f.checkStatus(t, "the day before", inv, finance.AutoTransferWaiting)
	if s := f.transfer(t, "2024-03-31", 1); s.Statuses != 1 || s.Transfers != 2 {
		t.Errorf("on the day: %+v", s)
	}
	f.checkStatus(t, "transferred", inv, finance.AutoTransferTransferred)
	if s := f.transfer(t, "2024-03-31", 1); s.Statuses != 0 {
		t.Errorf("run again: %d statuses written", s.Statuses)
	}
	checkStrings(t, "history after the runs", f.statusHistory(t, inv), []string{
		fmt.Sprintf("job %d transfer: waiting -> transferred", transferJobID),
	})

	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	f.checkStatus(t, "undone after the transfer", inv, finance.AutoTransferChargeback)
	if s := f.transfer(t, "2024-12-31", 1); s.Statuses != 0 || s.Transfers != 0 {
		t.Errorf("while the owners owe: %+v", s)
	}
	f.pay(t, inv, "2024-03-25", "2024-03-26")
	f.checkStatus(t, "paid again", inv, finance.AutoTransferTransferred)

	other := f.paidInvoice(t)
	if err := f.undo(t, other); err != nil {
		t.Fatal(err)
	}
	f.checkStatus(t, "undone before the transfer", other, finance.AutoTransferNone)
	if s := f.transfer(t, "2024-12-31", 1); s.Transfers != 0 || s.Statuses != 0 {
		t.Errorf("after the undo: %+v", s)
	}
	f.checkStatus(t, "after a run", other, finance.AutoTransferNone)
}

// TestAutoTransferStatusOfAGuarantee: the guaranteed transfer makes an
// unpaid invoice guaranteed; the late payment leaves the owners their part
// of the late fee and interest to be paid out (waiting), then transferred;
// undone, the guarantee is open again (guaranteed).
func TestAutoTransferStatusOfAGuarantee(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, `transfer_mode = 'after_receive', transfer_after_days = 2, guaranteed_transfer = true,
		guaranteed_transfer_release_after_days = 5`)
	inv := f.unpaidInvoice(t)
	f.transfer(t, "2024-03-14", 1)
	f.checkStatus(t, "before the release", inv, finance.AutoTransferNone)
	if s := f.transfer(t, "2024-03-15", 1); s.Guarantees != 1 || s.Statuses != 1 {
		t.Errorf("on the release: %+v", s)
	}
	f.checkStatus(t, "released", inv, finance.AutoTransferGuaranteed)
	f.pay(t, inv, "2024-03-25", "2024-03-26")
	f.checkStatus(t, "paid late", inv, finance.AutoTransferWaiting) // 35.25 and 23.50 to pay out
	f.transfer(t, "2024-03-28", 1)
	f.checkStatus(t, "the rest paid out", inv, finance.AutoTransferTransferred)
	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	f.checkStatus(t, "undone", inv, finance.AutoTransferGuaranteed)
	checkStrings(t, "history of the runs", f.statusHistory(t, inv), []string{
		fmt.Sprintf("job %d transfer: null -> guaranteed", transferJobID),
		fmt.Sprintf("job %d transfer: waiting -> transferred", transferJobID),
	})
}

// TestAutoTransferStatusNone: an invoice the run does not transfer has no
// status, whatever happens to it: a manual contract, a fixed day without
// a day (which is not guaranteed either), transfer_auto_disabled, an
// invoice without a contract.
func TestAutoTransferStatusNone(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, contract, invoice string }{
		{"manually", "transfer_mode = 'manually', guaranteed_transfer = true", ""},
		{"fixed_day without a day", "transfer_mode = 'fixed_day', transfer_after_days = NULL, guaranteed_transfer = true", ""},
		{"disabled on the invoice", "transfer_mode = 'after_receive', guaranteed_transfer = true", "transfer_auto_disabled = true"},
		{"no contract", "transfer_mode = 'after_receive', guaranteed_transfer = true", "type = 'single', contract_id = NULL, building_id = {building}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newLedgerFixture(t)
			f.setContract(t, c.contract)
			paid, unpaid := f.paidInvoice(t), f.unpaidInvoice(t)
			if c.invoice != "" {
				set := strings.ReplaceAll(c.invoice, "{building}", fmt.Sprint(f.building))
				f.exec(t, `UPDATE invoices SET `+set+` WHERE company_id = $1 AND id = any($2)`, []int64{paid, unpaid})
			}
			if err := f.undo(t, paid); err != nil {
				t.Fatal(err)
			}
			f.pay(t, paid, "2024-03-25", "2024-03-26")
			if s := f.transfer(t, "2025-12-31", 1); s.Transfers != 0 || s.Guarantees != 0 || s.Statuses != 0 {
				t.Errorf("run: %+v", s)
			}
			for _, inv := range []int64{paid, unpaid} {
				f.checkStatus(t, "after the run", inv, finance.AutoTransferNone)
			}
		})
	}
}

// TestAutoTransferStatusMigration: migration 0019 gives the invoices the
// run wrote to before it the status their ledger says, with a history
// row, and clears a value outside the list.
func TestAutoTransferStatusMigration(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, "transfer_mode = 'after_receive', guaranteed_transfer = true")
	transferred, guaranteed, none := f.paidInvoice(t), f.unpaidInvoice(t), f.unpaidInvoice(t)
	f.exec(t, `UPDATE invoices SET due_date = '2024-04-30' WHERE company_id = $1 AND id = $2`, none)
	waiting := f.invoice(t, "2024-03-10", "2024-03-25", "2024-04-30", lateSettings) // credited after the run
	if err := f.post(t, waiting); err != nil {
		t.Fatal(err)
	}
	f.transfer(t, "2024-03-26", 1)
	want := map[int64]string{}
	for _, inv := range []int64{transferred, waiting, guaranteed, none} {
		want[inv] = f.autoStatus(t, inv)
	}
	if want[transferred] != "transferred" || want[waiting] != "waiting" || want[guaranteed] != "guaranteed" || want[none] != "" {
		t.Fatalf("before: %v", want)
	}
	// as the invoices were before 0019
	if _, err := f.pool.Exec(context.Background(), `ALTER TABLE invoices DROP CONSTRAINT invoices_auto_transfer_status_check`); err != nil {
		t.Fatal(err)
	}
	f.exec(t, `UPDATE invoices SET auto_transfer_status = CASE id WHEN $2 THEN 'done' END WHERE company_id = $1`, none)
	f.exec(t, `DELETE FROM invoice_history WHERE company_id = $1`)
	migrations, err := storage.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(migrations, func(m storage.Migration) bool { return m.Version == 19 })
	if i < 0 {
		t.Fatal("no migration 19")
	}
	if _, err := f.pool.Exec(context.Background(), migrations[i].SQL); err != nil {
		t.Fatal(err)
	}
	for inv, w := range want {
		if got := f.autoStatus(t, inv); got != w {
			t.Errorf("invoice %d: %q, want %q", inv, got, w)
		}
	}
	checkStrings(t, "history", f.statusHistory(t, transferred), []string{"system - transfer: null -> transferred"})
	checkStrings(t, "history", f.statusHistory(t, none), []string{"system - transfer: done -> null"})
	if _, err := f.pool.Exec(context.Background(), `UPDATE invoices SET auto_transfer_status = 'done' WHERE id = $1`, none); err == nil {
		t.Error("a value outside the list was stored")
	}
}
