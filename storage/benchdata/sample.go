package benchdata

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
)

// Sample is what a load works on: records of a company drawn at random,
// read from the database as it is now (after a load has changed it, too).
type Sample struct {
	Today             finance.Date // in the company's time zone
	FirstDue, LastDue finance.Date // of its invoices

	Invoices  []int64       // any invoice
	Open      []OpenInvoice // contract invoices not paid, unpaid or overdue
	Contracts []int64
	Owners    []int64 // persons owning a building
	Payers    []int64 // tenants
	Bills     []int64 // the business's own entries (mode transaction)

	Business, Account int64   // the first business and its account
	ChargeItems       []int64 // active items charging the payer for the business (services)
	ExpensePlans      []int64 // plans under the one coded 2 (expenses)
	PaymentStatuses   []string
}

// OpenInvoice is an invoice a load may change or pay.
type OpenInvoice struct {
	ID            int64
	DueDate       finance.Date
	BillingMethod string
}

// SampleOf draws up to size records of each kind from company's data.
func SampleOf(ctx context.Context, pool *pgxpool.Pool, company Company, size int) (Sample, error) {
	s := Sample{}
	var today, first, last time.Time
	err := pool.QueryRow(ctx, `SELECT (now() AT TIME ZONE c.time_zone)::date,
			coalesce(min(i.due_date), now()::date), coalesce(max(i.due_date), now()::date)
		FROM companies c LEFT JOIN invoices i ON i.company_id = c.id WHERE c.id = $1 GROUP BY c.id`,
		company.ID).Scan(&today, &first, &last)
	if err != nil {
		return s, fmt.Errorf("sample of %s: %w", company.Name, err)
	}
	s.Today, s.FirstDue, s.LastDue = finance.DateOf(today), finance.DateOf(first), finance.DateOf(last)
	ids := func(dst *[]int64, sql string) {
		if err == nil {
			*dst, err = collect(ctx, pool, sql, pgx.RowTo[int64], company.ID, size)
		}
	}
	ids(&s.Invoices, `SELECT id FROM invoices WHERE company_id = $1 ORDER BY random() LIMIT $2`)
	ids(&s.Contracts, `SELECT id FROM contracts WHERE company_id = $1 ORDER BY random() LIMIT $2`)
	ids(&s.Owners, `SELECT person_id FROM (SELECT DISTINCT person_id FROM building_owners WHERE company_id = $1) o
		ORDER BY random() LIMIT $2`)
	ids(&s.Payers, `SELECT tenant_id FROM contracts WHERE company_id = $1 ORDER BY random() LIMIT $2`)
	ids(&s.Bills, `SELECT id FROM transactions WHERE company_id = $1 AND mode = 'transaction' ORDER BY random() LIMIT $2`)
	ids(&s.ChargeItems, `SELECT id FROM transaction_items WHERE company_id = $1 AND active AND debit = 'customer'
		AND credit = 'business' ORDER BY id LIMIT $2`)
	ids(&s.ExpensePlans, `SELECT p.id FROM plans p JOIN plans parent ON parent.company_id = p.company_id AND parent.id = p.parent_id
		WHERE p.company_id = $1 AND parent.code = '2' ORDER BY p.id LIMIT $2`)
	if err == nil {
		s.Open, err = collect(ctx, pool, `SELECT id, due_date, billing_method FROM invoices
			WHERE company_id = $1 AND type = 'contract' AND NOT paid AND status IN ('unpaid', 'overdue')
			ORDER BY random() LIMIT $2`, pgx.RowToStructByPos[OpenInvoice], company.ID, size)
	}
	if err == nil {
		err = pool.QueryRow(ctx, `SELECT b.id, a.id FROM businesses b JOIN accounts a ON a.company_id = b.company_id
			AND a.business_id = b.id WHERE b.company_id = $1 ORDER BY b.id, a.id LIMIT 1`, company.ID).Scan(&s.Business, &s.Account)
	}
	if err != nil {
		return s, fmt.Errorf("sample of %s: %w", company.Name, err)
	}
	s.PaymentStatuses = []string{string(finance.PaymentOK), string(finance.Payment5Days), string(finance.Payment30Days),
		string(finance.PaymentMonth), string(finance.Payment3Months), string(finance.PaymentDue5Days)}
	return s, nil
}

// UsedJobKeys returns the unique keys of the company's jobs of kind (the
// dates of its nightly runs).
func UsedJobKeys(ctx context.Context, pool *pgxpool.Pool, company int64, kind string) (map[string]bool, error) {
	keys, err := collect(ctx, pool, `SELECT unique_key FROM jobs WHERE company_id = $1 AND kind = $2 AND unique_key IS NOT NULL`,
		pgx.RowTo[string], company, kind)
	if err != nil {
		return nil, fmt.Errorf("keys of %s jobs: %w", kind, err)
	}
	used := make(map[string]bool, len(keys))
	for _, k := range keys {
		used[k] = true
	}
	return used, nil
}

func collect[T any](ctx context.Context, pool *pgxpool.Pool, sql string, row pgx.RowToFunc[T], args ...any) ([]T, error) {
	rows, err := pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, row)
}
