package storage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TestTerminateContractChargesTheFee: the worked termination (2025-01-15)
// of a lease with a 10% administration fee: its invoices carry the fee
// outside their totals, the final invoice carries 10% of the prorated
// last rent (967.74 → 96.77) outside its total, whose deposit deduction
// is unchanged, and its payment posts (the total is what its lines charge)
// with the fee debited to the owner and credited to the business.
func TestTerminateContractChargesTheFee(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newTermFixture(t)
	f.exec(t, `INSERT INTO contract_items (company_id, contract_id, mode, item_id, description, calculate_mode, percentage)
		VALUES ($1, $2, 'item', $3, 'Taxa de administração', 'percentage', 10)`, f.lease, f.b.AdminItem)
	gen := f.generate(t, f.lease, "2025-02-10")
	if err := gen.ContractError(f.lease); err != nil || len(gen.Created) != 13 {
		t.Fatalf("%d invoices generated (%v), want 13", len(gen.Created), err)
	}
	if got := brief(gen.Invoices[1].Invoice); got != "2024-02-01..2024-02-29 due 2024-03-05 total 2350.00 "+
		"[2000.00 Aluguel] [350.00 Condomínio] [200.00 Taxa de administração]" {
		t.Errorf("February's invoice: %s", got)
	}
	run, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease,
		storage.TerminationRequest{At: finance.MustDate("2025-01-15"), Requester: finance.RequesterTenant})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("2025-01-01..2025-01-15 due %s total 2811.16 [967.74 Aluguel] [350.00 Condomínio] [96.77 Taxa de administração] "+
		"[3493.42 Multa rescisória (531 de 912 dias por cumprir)] [-2000.00 Caução: abatimento na rescisão]", run.Final.DueDate)
	if got := brief(*run.Final); got != want {
		t.Errorf("final invoice\n got %s\nwant %s", got, want)
	}
	f.exec(t, `UPDATE invoices SET paid = true, status = 'paid', paid_at = due_date, credit_at = due_date
		WHERE company_id = $1 AND id = $2`, run.FinalID)
	if err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		return storage.PostInvoicePayment(ctx, tx, f.company, run.FinalID)
	}); err != nil {
		t.Fatalf("paying the final invoice: %v", err)
	}
	var fee string
	err = f.pool.QueryRow(ctx, `SELECT string_agg(type || ' ' || extract || ' ' || amount::text, ', ' ORDER BY id)
		FROM transactions WHERE company_id = $1 AND invoice_id = $2 AND item_id = $3`, f.company, run.FinalID, f.b.AdminItem).Scan(&fee)
	if err != nil || fee != "debit owner 96.77, credit business 96.77" {
		t.Errorf("the fee's entries: %q (%v)", fee, err)
	}
}
