package storagetest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Billing is a company ready to bill contracts, seeded with SQL: a
// business and its account, a billing setting, a tenant, an owner and
// the building they own, and the transaction items contracts bill on
// (rent, condominium: customer to owner; an administration fee, owner to
// business, which MonthlyContracts does not bill).
type Billing struct {
	Company, Business, Account, Billing int64
	Tenant, Owner, Building             int64
	RentItem, CondoItem, AdminItem      int64
}

// NewBilling seeds company with what its contracts are billed with.
func NewBilling(t testing.TB, pool *pgxpool.Pool, company int64) Billing {
	t.Helper()
	b := Billing{Company: company}
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var v int64
		if err := pool.QueryRow(context.Background(), sql, append([]any{company}, args...)...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	b.Business = id(`INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte Imóveis') RETURNING id`)
	b.Account = id(`INSERT INTO accounts (company_id, business_id) VALUES ($1, $2) RETURNING id`, b.Business)
	b.Billing = id(`INSERT INTO billings (company_id, name) VALUES ($1, 'Boleto padrão') RETURNING id`)
	b.Tenant = id(`INSERT INTO persons (company_id, name) VALUES ($1, 'Ana Inquilina') RETURNING id`)
	b.Owner = id(`INSERT INTO persons (company_id, name) VALUES ($1, 'Bruno Proprietário') RETURNING id`)
	b.Building = id(`INSERT INTO buildings (company_id, title) VALUES ($1, 'Apto 101') RETURNING id`)
	id(`INSERT INTO building_owners (company_id, building_id, person_id, percentage) VALUES ($1, $2, $3, 100) RETURNING id`,
		b.Building, b.Owner)
	item := `INSERT INTO transaction_items (company_id, description, debit, credit, type, purpose)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`
	b.RentItem = id(item, "Aluguel", "customer", "owner", "rent", "rent")
	b.CondoItem = id(item, "Condomínio", "customer", "owner", "default", nil)
	b.AdminItem = id(item, "Taxa de administração", "owner", "business", "default", nil)
	return b
}

// MonthlyContracts inserts n active monthly rent contracts of b, amount
// 2000.00, starting on start (periods are calendar months) with their
// first due date on due and later ones on its day, each with one
// condominium item of 350.00, in two statements; it returns their ids in
// order.
func (b Billing) MonthlyContracts(t testing.TB, pool *pgxpool.Pool, n int, start, due string) []int64 {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `INSERT INTO contracts (company_id, type, active, building_id, tenant_id, billing_id,
			business_id, account_id, billing_method, start_at, recurrency, modality, amount, due_date, due_day,
			billing_timing, ticket_late_fee, ticket_late_fee_percentage, ticket_late_fee_interest)
		SELECT $1::bigint, 'rent', 'active', $2::bigint, $3::bigint, $4::bigint, $5::bigint, $6::bigint, 'ticket', $7::date, 'monthly', 'monthly', 2000.00,
			$8::date, extract(day FROM $8::date)::int, 'pre', true, 2, 1
		FROM generate_series(1, $9::int) AS g ORDER BY g
		RETURNING id`, b.Company, b.Building, b.Tenant, b.Billing, b.Business, b.Account, start, due, n)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 0, n)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	_, err = pool.Exec(ctx, `INSERT INTO contract_items (company_id, contract_id, mode, item_id, description, calculate_mode, amount)
		SELECT $1, id, 'item', $2, 'Condomínio', 'fixed', 350.00 FROM unnest($3::bigint[]) AS id`, b.Company, b.CondoItem, ids)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
