package storage_test

import (
	"context"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// BenchmarkUnpaidEntries: what the entries' status costs the lists of
// what is due (docs/performance.md, "The entries' status"), which leave
// the void entries out by asking of every unpaid entry whether a reversal
// names it (transaction_reversed). A company's ledger of 200,000 bills
// over 300 days, every other one unpaid: the first page (50, by due date)
// of filter[unpaid]=true through the list machinery, without and with its
// total (100,000), beside the count of the unpaid entries on paid alone,
// as it was before the status.
//
//	go test ./storage/ -run '^$' -bench 'UnpaidEntries' -benchtime 20x
func BenchmarkUnpaidEntries(b *testing.B) {
	ctx := context.Background()
	pool := storagetest.NewDB(b)
	company, _, err := storage.EnsureCompany(ctx, pool, "Imobiliária das Contas")
	if err != nil {
		b.Fatal(err)
	}
	var business int64
	if err := pool.QueryRow(ctx, `INSERT INTO businesses (company_id, name) VALUES ($1, 'Contas') RETURNING id`,
		company).Scan(&business); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO transactions (company_id, type, mode, extract, business_id, date, amount, paid)
		SELECT $1, 'debit', 'transaction', 'business', $2, '2024-01-01'::date + g % 300, 10, g % 2 = 0
		FROM generate_series(1, 200000) g`, company, business); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE transactions`); err != nil {
		b.Fatal(err)
	}
	store := storage.NewStore(pool, storage.DefaultRegistry())
	res := store.Registry().MustResource(storage.Transactions)
	unpaid, _ := res.Filter("unpaid")
	for _, total := range []bool{false, true} {
		b.Run(map[bool]string{false: "page", true: "page+total"}[total], func(b *testing.B) {
			q := storage.ListQuery{Page: 1, PerPage: 50, WithTotal: total, Sort: []storage.SortKey{{Column: "due_date"}},
				Special: []storage.SpecialCondition{{Filter: unpaid, Values: []any{true}}}}
			for range b.N {
				page, err := store.List(ctx, res, storage.Company(company), q)
				if err != nil || len(page.Records) != 50 || total && *page.Total != 100_000 {
					b.Fatalf("%v: %d entries", err, len(page.Records))
				}
			}
		})
	}
	b.Run("bare count", func(b *testing.B) {
		for range b.N {
			var n int64
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE company_id = $1 AND NOT paid`,
				company).Scan(&n); err != nil || n != 100_000 {
				b.Fatal(err, n)
			}
		}
	})
}
