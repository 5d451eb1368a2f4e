package storage_test

import (
	"context"
	"testing"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// BenchmarkInvoiceStatusFilter measures a page of a month's invoices by
// status (the invoice list of docs/performance.md: filter[due_date|b] of
// a month, filter[status], sort=due_date, 25 a page) through the filter
// on the stored columns, beside the same list read through the status
// expression alone (what the list ran before). 200,000 invoices of one
// company: a past month of 100,000, every one paid, and this month's
// 100,000, three in five paid and the others open.
//
//	go test -run '^$' -bench InvoiceStatusFilter -benchtime 20x -count 3 ./storage
func BenchmarkInvoiceStatusFilter(b *testing.B) {
	ctx := context.Background()
	pool := storagetest.NewDB(b)
	company, _, err := storage.EnsureCompany(ctx, pool, "Bench Status")
	if err != nil {
		b.Fatal(err)
	}
	today, err := storage.CompanyToday(ctx, pool, company)
	if err != nil {
		b.Fatal(err)
	}
	past, current := today.AddDays(-60), today.AddDays(-10)
	_, err = pool.Exec(ctx, `
		WITH biz AS (INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte') RETURNING id),
		     acc AS (INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM biz RETURNING id, business_id),
		     payer AS (INSERT INTO persons (company_id, name) VALUES ($1, 'Ana') RETURNING id)
		INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, status, paid, paid_at,
			description, total, date, due_date)
		SELECT $1, 'single', payer.id, acc.business_id, acc.id, 'ticket',
			CASE WHEN m.paid THEN 'paid' ELSE 'unpaid' END, m.paid, CASE WHEN m.paid THEN m.first END,
			'Aluguel ' || g, 1500, m.first, m.first + g % 30
		FROM generate_series(1, 100000) g, acc, payer,
			LATERAL (VALUES ($2::date, true), ($3::date, g % 5 < 3)) AS m(first, paid)`, company, past, current)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE invoices`); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name     string
		status   string
		from, to finance.Date
	}{
		{"past-month-overdue-none", "overdue", past, past.AddDays(29)},
		{"this-month-unpaid", "unpaid", current, current.AddDays(29)},
		{"this-month-overdue", "overdue", current, current.AddDays(29)},
		{"past-month-paid", "paid", past, past.AddDays(29)},
	}
	for _, c := range cases {
		q := statusQuery(c.status, c.from, c.to)
		q.Fields, q.PerPage, q.WithTotal = nil, 25, false // every column, as the list route reads them
		for _, reg := range []struct {
			name     string
			registry *storage.Registry
		}{{"filter", storage.DefaultRegistry()}, {"expression", expressionRegistry(b)}} {
			store := storage.NewStore(pool, reg.registry)
			res := reg.registry.MustResource(storage.Invoices)
			b.Run(c.name+"/"+reg.name, func(b *testing.B) {
				for range b.N {
					if _, err := store.List(ctx, res, storage.Company(company), q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
