package storage_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/propfin/propfin/storage/storagetest"
)

// BenchmarkPaymentStatusTrigger: what the statement trigger of invoices'
// updates (invoices_overdue_mark_update, migration 0066) costs the updates
// of invoices, on 10,000 contracts of ten invoices each:
//   - moves: 10,000 invoices between unpaid and overdue in one statement
//     (the nightly overdue pass's kind of update: nothing a payment status
//     is computed from changes, so the trigger only compares the rows it
//     was handed);
//   - payments: 1,000 invoices of 1,000 contracts paid or unpaid in one
//     statement (a return file's chunk: every contract marked and its
//     status refreshed).
//
// Blocks with the trigger disabled and enabled alternate in the same run,
// so that a shared machine's load weighs on both alike; each reports the
// median time of a statement. docs/performance.md, "The payment status
// brought to today by the writes", has the figures.
func BenchmarkPaymentStatusTrigger(b *testing.B) {
	ctx := context.Background()
	pool := storagetest.NewDB(b)
	f := newOverdueFixture(b, pool, "Imobiliária Volume")
	const contracts, months = 10_000, 10
	seed := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO contracts (company_id, type, tenant_id) SELECT $1, 'rent', $2 FROM generate_series(1, $3::int)`,
			[]any{f.company, f.payer, contracts}},
		// month by month, so that consecutive ids are of different contracts
		{`INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
				status, description, total, date, due_date)
			SELECT $1, 'contract', $2, c.id, $3, $4, 'ticket', 'unpaid', 'Aluguel', 1500,
				current_date + (m * 30 - 200), current_date + (m * 30 - 200)
			FROM generate_series(1, $5::int) AS m, (SELECT id FROM contracts WHERE company_id = $1) AS c
			ORDER BY m, c.id`, []any{f.company, f.payer, f.business, f.account, months}},
		{`VACUUM ANALYZE invoices, contracts`, nil},
	}
	for _, st := range seed {
		if _, err := pool.Exec(ctx, st.sql, st.args...); err != nil {
			b.Fatalf("%.60s: %v", st.sql, err)
		}
	}
	var first int64
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM invoices WHERE company_id = $1`, f.company).Scan(&first); err != nil {
		b.Fatal(err)
	}
	statements := []struct {
		name string
		sql  string
		rows int64
	}{
		{"moves", `UPDATE invoices SET status = CASE status WHEN 'unpaid' THEN 'overdue' ELSE 'unpaid' END
			WHERE company_id = $1 AND id BETWEEN $2 + 1000 AND $2 + 1000 + $3 - 1`, contracts},
		{"payments", `UPDATE invoices SET paid = NOT paid, status = CASE WHEN paid THEN 'unpaid' ELSE 'paid' END,
				paid_at = CASE WHEN paid THEN NULL ELSE due_date END
			WHERE company_id = $1 AND id BETWEEN $2 AND $2 + $3 - 1`, 1_000},
	}
	modes := []string{`ALTER TABLE invoices DISABLE TRIGGER invoices_overdue_mark_update`,
		`ALTER TABLE invoices ENABLE TRIGGER invoices_overdue_mark_update`}
	const block = 5
	times := map[string]*[2][]time.Duration{}
	for _, s := range statements {
		times[s.name] = &[2][]time.Duration{}
	}
	b.ResetTimer()
	for done := 0; done < b.N; done += block {
		for mode, alter := range modes {
			if _, err := pool.Exec(ctx, alter); err != nil {
				b.Fatal(err)
			}
			for range block {
				for _, s := range statements {
					start := time.Now()
					if _, err := pool.Exec(ctx, s.sql, f.company, first, s.rows); err != nil {
						b.Fatalf("%s: %v", s.name, err)
					}
					times[s.name][mode] = append(times[s.name][mode], time.Since(start))
				}
			}
		}
	}
	b.StopTimer()
	for _, s := range statements {
		t := times[s.name]
		p50 := [2]time.Duration{}
		for mode, name := range []string{"off", "on"} {
			slices.Sort(t[mode])
			p50[mode] = t[mode][len(t[mode])/2]
			b.ReportMetric(float64(p50[mode].Microseconds())/1000, s.name+"-ms-trigger-"+name)
		}
		b.ReportMetric(float64(p50[1])/float64(p50[0]), s.name+"-on/off")
	}
	var refreshed int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM contracts WHERE company_id = $1 AND payment_status_date IS NOT NULL`,
		f.company).Scan(&refreshed); err != nil || refreshed == 0 {
		b.Fatalf("no contract refreshed (%v): the benchmark measured nothing", err)
	}
}
