package storage_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TestInvoicePaymentsBackfill runs migration 54's backfill on invoices
// posted as before it (the table and the column it adds dropped, the
// payments posted and undone as the whole payment's write does): a
// payment standing gets its row, the latest standing split's by its
// number; an undone one, and a paid invoice never posted, none.
func TestInvoicePaymentsBackfill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newLedgerFixture(t)
	undo := func(inv int64) {
		t.Helper()
		if err := f.undo(t, inv); err != nil {
			t.Fatal(err)
		}
		f.exec(t, `UPDATE invoices SET paid = false, status = 'unpaid', paid_at = NULL, credit_at = NULL
			WHERE company_id = $1 AND id = $2`, inv)
	}
	unpaid := func(settings string) int64 {
		t.Helper()
		inv := f.invoice(t, "2024-03-10", "2024-03-10", "2024-03-11", settings)
		f.exec(t, `UPDATE invoices SET paid = false, status = 'unpaid', paid_at = NULL, credit_at = NULL
			WHERE company_id = $1 AND id = $2`, inv)
		return inv
	}

	paid := unpaid(lateSettings)
	f.pay(t, paid, "2024-03-25", "2024-03-26")

	undone := unpaid("")
	f.pay(t, undone, "2024-03-10", "2024-03-11")
	undo(undone)

	again := unpaid("")
	f.pay(t, again, "2024-03-10", "2024-03-11")
	undo(again)
	f.pay(t, again, "2024-03-12", "2024-03-13")

	ten := unpaid("")
	for range 9 {
		f.pay(t, ten, "2024-03-10", "2024-03-11")
		undo(ten)
	}
	f.pay(t, ten, "2024-03-15", "2024-03-15")
	// a split whose reversal is gone (an entry edited by hand) stands too:
	// the latest by number is still the one that counts
	f.exec(t, `DELETE FROM transactions WHERE company_id = $1 AND split = $2`, fmt.Sprintf("invoice-%d-payment-9-chargeback", ten))

	refunded := unpaid("")
	f.pay(t, refunded, "2024-03-10", "2024-03-11")
	if _, err := storage.RefundInvoice(ctx, f.pool, storage.Scope{CompanyID: f.company}, refunded,
		storage.RefundRequest{Amount: decimal.RequireFromString("350.00"), Date: finance.MustDate("2024-03-20"),
			Reason: "condomínio cobrado a mais"}); err != nil {
		t.Fatal(err)
	}

	never := f.invoice(t, "2024-03-10", "2024-03-10", "2024-03-10", "")

	migrations, err := storage.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(migrations, func(m storage.Migration) bool { return m.Version == 54 })
	if i < 0 {
		t.Fatal("no migration 54")
	}
	for _, sql := range []string{`DROP TABLE invoice_payments`, `ALTER TABLE invoice_items DROP COLUMN payment_n`, migrations[i].SQL} {
		if _, err := f.pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%.60s: %v", sql, err)
		}
	}

	rows, err := f.pool.Query(ctx, `
		SELECT invoice_id, concat_ws(' ', n, split = 'invoice-' || invoice_id || '-payment-' || n, amount, principal,
		    late_fee, interest, discount, paid_at, credit_at, actor, undone_at IS NULL)
		FROM invoice_payments WHERE company_id = $1 ORDER BY invoice_id, n`, f.company)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][]string{}
	var inv int64
	var row string
	for rows.Next() {
		if err := rows.Scan(&inv, &row); err != nil {
			t.Fatal(err)
		}
		got[inv] = append(got[inv], row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		inv  int64
		want []string
	}{
		{"paid late", paid, []string{"1 t 2408.75 2350.00 47.00 11.75 0.00 2024-03-25 2024-03-26 system t"}},
		{"undone", undone, nil},
		{"paid, undone, paid again", again, []string{"2 t 2350.00 2350.00 0.00 0.00 0.00 2024-03-12 2024-03-13 system t"}},
		{"ten payments", ten, []string{"10 t 2350.00 2350.00 0.00 0.00 0.00 2024-03-15 2024-03-15 system t"}},
		{"refunded", refunded, []string{"1 t 2350.00 2350.00 0.00 0.00 0.00 2024-03-10 2024-03-11 system t"}},
		{"paid, never posted", never, nil},
	} {
		if !slices.Equal(got[c.inv], c.want) {
			t.Errorf("%s: rows %q, want %q", c.name, got[c.inv], c.want)
		}
	}
	var lines []string
	lr, err := f.pool.Query(ctx, `SELECT kind || ' ' || amount || ' ' || coalesce(payment_n::text, 'null') FROM invoice_items
		WHERE company_id = $1 AND invoice_id = $2 AND kind <> 'line' ORDER BY id`, f.company, paid)
	if err != nil {
		t.Fatal(err)
	}
	for lr.Next() {
		var l string
		if err := lr.Scan(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if want := []string{"late_fee 47.00 1", "interest 11.75 1"}; !slices.Equal(lines, want) {
		t.Errorf("settlement lines %q, want %q", lines, want)
	}
}
