package storage_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// errRollBack rolls a benchmark's close back, so that every iteration
// closes the same month.
var errRollBack = errors.New("roll back")

// BenchmarkCloseOwnerStatements closes a month of a company with 10,000
// owners and 100,000 contracts (ten an owner): four owner entries a
// contract that month (rent and condominium credited, the administration
// fee debited, a transfer) and a repair left out of the report on every
// tenth, 410,000 entries in all, after a closed month of the same
// shape, so that the late entries are looked for. Beside it,
// BenchmarkReadOwnerMonth reads the same entries bare.
//
//	go test ./storage/ -run '^$' -bench 'CloseOwnerStatements|ReadOwnerMonth' -benchtime 3x
func BenchmarkCloseOwnerStatements(b *testing.B) {
	pool, company, month := statementBenchData(b)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		var sum storage.StatementSummary
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) (err error) {
			if sum, err = storage.CloseOwnerStatements(ctx, tx, company, 0, month); err != nil {
				return err
			}
			return errRollBack
		})
		if !errors.Is(err, errRollBack) {
			b.Fatal(err)
		}
		if sum.Statements != 10_000 || sum.Lines != 410_000 {
			b.Fatalf("%+v", sum)
		}
	}
}

// BenchmarkReadOwnerMonth reads the month's owner entries with the
// columns a close reads, and nothing else: the floor of a close.
func BenchmarkReadOwnerMonth(b *testing.B) {
	pool, company, month := statementBenchData(b)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		rows, err := pool.Query(ctx, `SELECT id, owner_id, business_id, date, type, mode, amount::text, item_id, description,
			    contract_id, building_id, invoice_id
			FROM transactions WHERE company_id = $1 AND date BETWEEN $2 AND $3 AND extract = 'owner' AND owner_id IS NOT NULL
			ORDER BY owner_id, business_id, date, id`, company, month.First(), month.Last())
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if rows.Err() != nil || n != 410_000 {
			b.Fatal(n, rows.Err())
		}
	}
}

// statementBenchData writes the benchmarks' company: February 2024 closed,
// March 2024 to close.
func statementBenchData(b *testing.B) (*pgxpool.Pool, int64, finance.Month) {
	b.Helper()
	ctx := context.Background()
	pool := storagetest.NewDB(b)
	company, _, err := storage.EnsureCompany(ctx, pool, "Bench Statements")
	if err != nil {
		b.Fatal(err)
	}
	for _, sql := range []string{
		`INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte')`,
		`INSERT INTO persons (company_id, name) SELECT $1, 'Proprietário ' || g FROM generate_series(1, 10000) g`,
		`INSERT INTO transaction_items (company_id, description, debit, credit, owner_report) VALUES
		    ($1, 'Aluguel', 'customer', 'owner', true), ($1, 'Condomínio', 'customer', 'owner', true),
		    ($1, 'Taxa de administração', 'owner', 'business', true), ($1, 'Reparos', 'owner', 'business', false)`,
	} {
		if _, err := pool.Exec(ctx, sql, company); err != nil {
			b.Fatal(err)
		}
	}
	for _, m := range []string{"2024-02", "2024-03"} {
		_, err = pool.Exec(ctx, `
			WITH o AS (SELECT array_agg(id ORDER BY id) ids FROM persons WHERE company_id = $1),
			     i AS (SELECT array_agg(id ORDER BY id) ids FROM transaction_items WHERE company_id = $1),
			     b AS (SELECT id FROM businesses WHERE company_id = $1)
			INSERT INTO transactions (company_id, mode, type, extract, owner_id, person_id, business_id, item_id, amount, date, description)
			SELECT $1, e.mode, e.type, 'owner', o.ids[1 + c % 10000], o.ids[1 + c % 10000], b.id, i.ids[e.item], e.amount,
			       ($2 || '-01')::date + (c % 28), e.description
			FROM generate_series(0, 99999) c, o, i, b,
			LATERAL (VALUES ('invoice', 'credit', 1, 2000.00, 'Aluguel'), ('invoice', 'credit', 2, 350.00, 'Condomínio'),
			                ('invoice', 'debit', 3, 200.00, 'Taxa de administração'),
			                ('transfer', 'transfer', NULL, 2150.00, 'Repasse'),
			                (CASE WHEN c % 10 = 0 THEN 'transaction' END, 'debit', 4, 99.90, 'Reparo')) e (mode, type, item, amount, description)
			WHERE e.mode IS NOT NULL OR c % 10 = 0`, company, m)
		if err != nil {
			b.Fatal(err)
		}
		if m == "2024-02" {
			err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				_, err := storage.CloseOwnerStatements(ctx, tx, company, 0, finance.NewMonth(2024, 2))
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := pool.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return pool, company, finance.NewMonth(2024, 3)
}
