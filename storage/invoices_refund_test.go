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

// TestRefundInvoiceWorked: docs/ledger.md's worked example ("Refunds")
// on PostgreSQL: the invoice paid late (2,408.75) and credited on
// 2024-03-26, refunded 1,000.00 on 2024-04-02, then the 1,408.75 left
// on 2024-04-05; the entries, the parties' balances, the invoice's
// amounts and status after each; then the payment undone with its
// refunds.
func TestRefundInvoiceWorked(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	inv := f.invoice(t, "2024-03-10", "2024-03-25", "2024-03-26", lateSettings)
	if err := f.post(t, inv); err != nil {
		t.Fatal(err)
	}
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	sc := storage.Scope{CompanyID: f.company}
	refund := func(amount, date string) storage.InvoiceOperation {
		t.Helper()
		out, err := storage.RefundInvoice(ctx, store.Pool(), sc, inv, storage.RefundRequest{Amount: decimal.RequireFromString(amount),
			Date: finance.MustDate(date), Reason: "aluguel cobrado em dobro"})
		if err != nil {
			t.Fatalf("refund %s: %v", amount, err)
		}
		return out
	}
	steps := []struct {
		amount, date, status, refunded string
		lines                          []string
		balances                       map[string]string
	}{
		{"1000.00", "2024-04-02", "paid", "1000.00", []string{
			"credit payer 830.32 rent", "debit owner60 498.20 rent", "debit owner40 332.12 rent",
			"credit payer 145.30 condo", "debit owner60 87.18 condo", "debit owner40 58.12 condo",
			"credit owner60 49.82 admin", "credit owner40 33.21 admin", "debit business 83.03 admin",
			"credit payer 19.51 fee", "debit owner60 11.71 fee", "debit owner40 7.80 fee",
			"credit payer 4.87 fee", "debit owner60 2.93 fee", "debit owner40 1.94 fee",
		}, map[string]string{"payer": "-1408.75", "owner60": "775.05", "owner40": "516.73", "business": "116.97"}},
		{"1408.75", "2024-04-05", "refunded", "2408.75", nil,
			map[string]string{"payer": "0.00", "owner60": "0.00", "owner40": "0.00", "business": "0.00"}},
	}
	for _, s := range steps {
		out := refund(s.amount, s.date)
		if out.Status != s.status || out.RefundedAmount == nil || out.RefundedAmount.String() != s.refunded ||
			out.PaidAmount == nil || out.PaidAmount.String() != "2408.75" {
			t.Errorf("refund %s: %+v", s.amount, out)
		}
		rows := f.entries(t, inv)
		var lines []string
		for _, r := range rows {
			if r.split == out.Split {
				if r.mode != "chargeback" || r.date != s.date || r.reverses != 0 {
					t.Errorf("refund %s: entry %+v", s.amount, r)
				}
				lines = append(lines, f.line(r))
			}
		}
		if s.lines != nil && !slices.Equal(lines, s.lines) {
			t.Errorf("refund %s: entries\n%v\nwant\n%v", s.amount, lines, s.lines)
		}
		checkBalanced(t, rows)
		if got := f.balances(rows); fmt.Sprint(got) != fmt.Sprint(s.balances) {
			t.Errorf("refund %s: balances %v, want %v", s.amount, got, s.balances)
		}
	}
	if _, err := storage.RefundInvoice(ctx, store.Pool(), sc, inv, storage.RefundRequest{Amount: decimal.New(1, -2), Reason: "x"}); finance.ErrorCode(err) != finance.Invalid {
		t.Errorf("a refunded invoice refunded again: %v", err)
	}
	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	rows := f.entries(t, inv)
	if len(rows) != 6*15 {
		t.Errorf("%d entries after the undo, want the payment's 15, the two refunds' 30 and a reversal of each", len(rows))
	}
	checkBalanced(t, rows)
	for who, b := range f.balances(rows) {
		if b != "0.00" {
			t.Errorf("%s at %s after the undo", who, b)
		}
	}
	if amounts, _ := f.settled(t, inv); amounts != "null null null null" {
		t.Errorf("after the undo: %s", amounts)
	}
}
