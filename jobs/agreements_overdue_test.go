package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TestOverdueJobBreaksAgreements: the nightly finance:overdue run breaks
// an agreement whose installment is overdue past the company's
// agreement_break_days (30 by default), counts it, and gives its original
// back overdue.
func TestOverdueJobBreaksAgreements(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	ctx := context.Background()
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var v int64
		if err := p.pool.QueryRow(ctx, sql, append([]any{p.companyA}, args...)...).Scan(&v); err != nil {
			t.Fatalf("%.60s: %v", sql, err)
		}
		return v
	}
	var now time.Time
	if err := p.pool.QueryRow(ctx, `SELECT company_today($1)`, p.companyA).Scan(&now); err != nil {
		t.Fatal(err)
	}
	today := finance.DateOf(now)
	payer := id(`INSERT INTO persons (company_id, name) VALUES ($1, 'Ana Inquilina') RETURNING id`)
	owner := id(`INSERT INTO persons (company_id, name) VALUES ($1, 'Olga Proprietária') RETURNING id`)
	business := id(`INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte') RETURNING id`)
	account := id(`INSERT INTO accounts (company_id, business_id) VALUES ($1, $2) RETURNING id`, business)
	rent := id(`INSERT INTO transaction_items (company_id, description, debit, credit, type)
		VALUES ($1, 'Aluguel', 'customer', 'owner', 'rent') RETURNING id`)
	original := id(`INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, description, total, date, due_date)
		VALUES ($1, 'single', $2, $3, $4, 'ticket', 'Aluguel', 1000, $5::date - 10, $5::date) RETURNING id`, payer, business, account, today)
	id(`INSERT INTO invoice_items (company_id, invoice_id, item_id, amount, owner_id) VALUES ($1, $2, $3, 1000, $4) RETURNING id`,
		original, rent, owner)
	store := storage.NewStore(p.pool, storage.DefaultRegistry())
	run, err := storage.CreateAgreement(ctx, store.Pool(), storage.Company(p.companyA), storage.AgreementRequest{InvoiceIDs: []int64{original},
		Installments: 2, FirstDueDate: today, IntervalMonths: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.pool.Exec(ctx, `UPDATE invoices SET due_date = $3 WHERE company_id = $1 AND id = $2`,
		p.companyA, run.Installments[0].ID, today.AddDays(-31)); err != nil {
		t.Fatal(err)
	}
	res := runOverdueOn(t, p, today.String())
	var status, by, back string
	if err := p.pool.QueryRow(ctx, `SELECT a.status, a.broken_by, i.status FROM agreements a
		JOIN invoices i ON i.company_id = a.company_id AND i.id = $3 WHERE a.company_id = $1 AND a.id = $2`,
		p.companyA, run.ID, original).Scan(&status, &by, &back); err != nil {
		t.Fatal(err)
	}
	if res.AgreementsBroken != 1 || status != "broken" || by != "overdue" || back != "unpaid" {
		t.Errorf("result %+v; agreement %s by %s, original %s; want one broken by overdue, the original unpaid (due today)",
			res, status, by, back)
	}
}
