package benchdata_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/benchdata"
	"github.com/propfin/propfin/storage/storagetest"
)

// testOptions: a large company of 150 contracts (three of 3), three
// months of invoices, foreign keys checked while copying, so that every
// reference the generator builds is proven by the database.
var testOptions = benchdata.Options{Contracts: 150, Months: 3, Seed: 7, CheckReferences: true}

// closingOptions: the same size with Closing, over the calendar year 2025
// (its last day the data set's), and 30 owners in the large company (one
// in each small one).
var closingOptions = benchdata.Options{Contracts: 150, Owners: 30, Months: 12, Day: finance.MustDate("2025-12-31"),
	Seed: 7, CheckReferences: true, Closing: true}

func generate(t *testing.T, pool *pgxpool.Pool) benchdata.Result {
	t.Helper()
	return generateWith(t, pool, testOptions)
}

func generateWith(t *testing.T, pool *pgxpool.Pool, opts benchdata.Options) benchdata.Result {
	t.Helper()
	res, err := benchdata.Generate(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGenerate: the data set has its sizes, every invoice's total is what
// its lines charge, every payment's entries balance and pay what was
// settled, its ids leave the sequences ahead, a second Generate is
// refused, Find finds it, and the same seed writes the same data set.
func TestGenerate(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	res := generate(t, pool)
	ctx := context.Background()
	if len(res.Companies) != 4 || res.Companies[0].Contracts != 150 || res.Companies[1].Contracts != 3 {
		t.Fatalf("companies: %+v", res.Companies)
	}
	for table, want := range map[string]int64{"contracts": 159, "buildings": 159, "persons": 159 + 90 + 3*1 + 4*10} {
		if n := res.Rows(table); n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
	invoices := res.Rows("invoices")
	if invoices < 159*3 || invoices > 159*4 {
		t.Errorf("%d invoices for 159 contracts over 3 months and the lead time", invoices)
	}
	for _, q := range []struct{ what, sql string }{
		{"invoices whose total is not what their lines charge", invoicesNotCharged},
		{"payments whose debits are not their credits", `SELECT count(*) FROM (SELECT split FROM transactions
			WHERE mode = 'invoice' GROUP BY split HAVING sum(amount) FILTER (WHERE type = 'debit')
			<> sum(amount) FILTER (WHERE type = 'credit')) s`},
		{"paid invoices whose tenant was not charged what was settled", `SELECT count(*) FROM invoices i
			WHERE paid AND paid_amount <> (SELECT sum(CASE type WHEN 'debit' THEN amount ELSE -amount END)
				FROM transactions t WHERE t.invoice_id = i.id AND t.extract = 'customer')`},
		{"paid invoices without entries, or open ones with", `SELECT count(*) FROM invoices i
			WHERE paid <> EXISTS (SELECT 1 FROM transactions t WHERE t.invoice_id = i.id)`},
		{"paid invoices whose payment's row is not what they were paid", `SELECT count(*) FROM invoices i
			WHERE paid <> EXISTS (SELECT 1 FROM invoice_payments p WHERE p.company_id = i.company_id AND p.invoice_id = i.id
				AND p.amount = i.paid_amount AND p.principal = i.total AND p.paid_at = i.paid_at
				AND EXISTS (SELECT 1 FROM transactions t WHERE t.company_id = p.company_id AND t.split = p.split))`},
	} {
		var n int
		if err := pool.QueryRow(ctx, q.sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q.what, err)
		}
		if n != 0 {
			t.Errorf("%d %s", n, q.what)
		}
	}
	for _, table := range []string{"persons", "buildings", "contracts", "invoices", "invoice_items", "transactions"} {
		var ahead bool
		err := pool.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence($1, 'id')) > (SELECT max(id) FROM `+table+`)`,
			table).Scan(&ahead)
		if err != nil || !ahead {
			t.Errorf("%s: the next id is not past the ids written (%v)", table, err)
		}
	}
	if _, err := benchdata.Generate(ctx, pool, testOptions); !errors.Is(err, benchdata.ErrNotEmpty) {
		t.Errorf("a second Generate: %v, want ErrNotEmpty", err)
	}
	var declared int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM contracts WHERE dimob`).Scan(&declared); err != nil || declared != 0 {
		t.Errorf("%d contracts with dimob without Closing (%v)", declared, err)
	}
	found, err := benchdata.Find(ctx, pool)
	if err != nil || !slices.Equal(found, res.Companies) {
		t.Errorf("Find: %+v %v, want %+v", found, err, res.Companies)
	}
	t.Run("same seed, same data set, same indexes", func(t *testing.T) {
		again := storagetest.NewDB(t)
		migrated := indexes(t, again)
		generate(t, again)
		if a, b := checksum(t, pool), checksum(t, again); a != b {
			t.Errorf("checksums %s and %s", a, b)
		}
		if written := indexes(t, again); !slices.Equal(written, migrated) {
			t.Errorf("indexes after the copy:\n%s\nas migrated:\n%s", strings.Join(written, "\n"), strings.Join(migrated, "\n"))
		}
	})
}

// TestGenerateClosing: with Closing, over a calendar year: the owners
// asked for; every contract with dimob and a six-digit reference, the
// items the DIMOB declares with dimob; every rent invoice with the
// administration fee, the contract's percentage of its rent line; the
// tax withheld only by tenants that are companies (a CNPJ), on lines of
// an owner of the building, above 10.00; every total what the lines
// charge, and nothing paid after the data set's day.
func TestGenerateClosing(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	res := generateWith(t, pool, closingOptions)
	if res.Today != closingOptions.Day {
		t.Errorf("the data set's day is %s, want %s", res.Today, closingOptions.Day)
	}
	if n := res.Rows("persons"); n != 159+30+3*1+4*10 {
		t.Errorf("%d persons, want the tenants, 30 and 3 owners and 40 others", n)
	}
	large := res.Companies[0].ID
	ctx := context.Background()
	for _, q := range []struct {
		what string
		sql  string
		want int
	}{
		{"owners of the large company", `SELECT count(DISTINCT person_id) FROM building_owners WHERE company_id = $1`, 30},
		{"contracts without dimob or a six-digit reference", `SELECT count(*) FROM contracts
			WHERE company_id = $1 AND NOT (dimob AND reference ~ '^[0-9]{6}$')`, 0},
		{"items with dimob", `SELECT count(*) FROM transaction_items WHERE company_id = $1 AND dimob
			AND description IN ('Aluguel', 'Multa e juros', 'Desconto de pontualidade', 'Taxa de administração',
				'IRRF retido pelo locatário')`, 5},
		{"items with dimob in all", `SELECT count(*) FROM transaction_items WHERE company_id = $1 AND dimob`, 5},
		{"rent invoices without one administration fee of 6, 8 or 10% of the rent", `SELECT count(*) FROM invoices i
			WHERE company_id = $1 AND type = 'contract' AND NOT EXISTS (
				SELECT 1 FROM invoice_items r JOIN invoice_items a ON a.company_id = r.company_id AND a.invoice_id = r.invoice_id
				JOIN transaction_items ri ON ri.company_id = r.company_id AND ri.id = r.item_id AND ri.type = 'rent'
				JOIN transaction_items ai ON ai.company_id = a.company_id AND ai.id = a.item_id
					AND ai.description = 'Taxa de administração'
				WHERE r.invoice_id = i.id AND r.company_id = i.company_id AND r.kind = 'line' AND a.kind = 'line'
					AND a.amount IN (round(r.amount * 0.06, 2), round(r.amount * 0.08, 2), round(r.amount * 0.10, 2)))`, 0},
		{"tax withheld but not by a company, for no owner of the building, or of 10.00 or less", `SELECT count(*)
			FROM invoice_items l JOIN transaction_items ti ON ti.company_id = l.company_id AND ti.id = l.item_id AND ti.type = 'duty'
			JOIN invoices i ON i.company_id = l.company_id AND i.id = l.invoice_id
			JOIN persons p ON p.company_id = i.company_id AND p.id = i.payer_id
			WHERE l.company_id = $1 AND (length(p.tax_id) <> 14 OR l.amount <= 10 OR NOT EXISTS (SELECT 1 FROM building_owners o
				WHERE o.company_id = i.company_id AND o.building_id = i.building_id AND o.person_id = l.owner_id))`, 0},
		{"invoices whose total is not what their lines charge", invoicesNotCharged + ` AND i.company_id = $1`, 0},
		{"payments after the data set's day", `SELECT count(*) FROM invoices WHERE company_id = $1 AND paid_at > '2025-12-31'`, 0},
		{"contracts not beginning in January 2025", `SELECT count(*) FROM contracts
			WHERE company_id = $1 AND date_trunc('month', start_at) <> '2025-01-01'`, 0},
	} {
		var n int
		if err := pool.QueryRow(ctx, q.sql, large).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q.what, err)
		}
		if n != q.want {
			t.Errorf("%d %s, want %d", n, q.what, q.want)
		}
	}
	var withheld, companies int
	err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM invoice_items l JOIN transaction_items ti ON ti.company_id = l.company_id
			AND ti.id = l.item_id AND ti.type = 'duty' WHERE l.company_id = $1),
		(SELECT count(*) FROM persons WHERE company_id = $1 AND length(tax_id) = 14)`, large).Scan(&withheld, &companies)
	if err != nil || withheld == 0 || companies == 0 {
		t.Errorf("%d lines of tax withheld, %d company tenants (%v): want some of each", withheld, companies, err)
	}
}

// invoicesNotCharged counts the invoices whose total is not what their
// lines charge the payer: those debiting the customer, less those
// crediting it.
const invoicesNotCharged = `SELECT count(*) FROM invoices i
	WHERE total <> (SELECT sum(CASE WHEN ti.debit = 'customer' THEN l.amount WHEN ti.credit = 'customer' THEN -l.amount ELSE 0 END)
		FROM invoice_items l JOIN transaction_items ti ON ti.company_id = l.company_id AND ti.id = l.item_id
		WHERE l.invoice_id = i.id AND l.kind = 'line')`

// indexes are the definitions of every index of the database, which the
// copy drops and creates again.
func indexes(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) < 100 {
		t.Fatalf("%d indexes in the schema", len(defs))
	}
	return defs
}

// checksum sums up the invoices, their lines and the ledger.
func checksum(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var sum string
	err := pool.QueryRow(context.Background(), `SELECT md5(
		(SELECT string_agg(concat_ws(',', id, contract_id, payer_id, total, status, paid_at, credit_at, paid_amount, due_date), ';' ORDER BY id) FROM invoices) ||
		(SELECT string_agg(concat_ws(',', invoice_id, kind, item_id, amount), ';' ORDER BY id) FROM invoice_items) ||
		(SELECT string_agg(concat_ws(',', split, type, extract, amount, person_id, date), ';' ORDER BY id) FROM transactions))`).Scan(&sum)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestGeneratedAsTheAPIWouldWrite: the nightly runs of the data set's day
// find nothing to do (no invoice to generate, no status to move), and
// every payment, undone and posted again by storage, writes the same
// settlement lines, paid amounts and ledger entries as the generator
// did, late fees, discounts and owners' splits included; with Closing
// too, its administration fees and the tax withheld by owner.
func TestGeneratedAsTheAPIWouldWrite(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string]benchdata.Options{"load": testOptions, "closing": closingOptions} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pool := storagetest.NewDB(t)
			res := generateWith(t, pool, opts)
			nothingToDo(t, pool, res)
			want := []string{"late_fee", "discount", "split 60.0000"}
			if opts.Closing {
				want = append(want, "Taxa de administração", "IRRF retido pelo locatário")
			}
			repost(t, pool, res.Companies[0].ID, want)
		})
	}
}

// nothingToDo fails when the nightly generation or overdue run of the
// data set's day would write anything.
func nothingToDo(t *testing.T, pool *pgxpool.Pool, res benchdata.Result) {
	t.Helper()
	ctx := context.Background()
	for _, c := range res.Companies {
		ids, err := storage.BillableContractIDs(ctx, pool, c.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		gen, err := storage.GenerateInvoices(ctx, pool, c.ID, ids, res.Today.AddDays(30), storage.GenerateOptions{Preview: true})
		if err != nil || len(gen.Invoices) != 0 || len(gen.Refused) != 0 || len(gen.Skipped) != 0 {
			t.Errorf("%s: the nightly generation would write %d invoices, refuse %v, skip %v (%v)",
				c.Name, len(gen.Invoices), gen.Refused, gen.Skipped, err)
		}
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			inv, err := storage.UpdateInvoiceStatuses(ctx, tx, storage.OverdueChunk{CompanyID: c.ID,
				From: 0, To: 1 << 62, AsOf: res.Today, First: true, Last: true})
			if err != nil {
				return err
			}
			moved := inv.Updated
			rated, err := storage.UpdatePaymentStatuses(ctx, tx, storage.OverdueChunk{CompanyID: c.ID,
				From: 0, To: 1 << 62, AsOf: res.Today, First: true, Last: true})
			if err == nil && (moved != 0 || rated.Updated != 0) {
				err = fmt.Errorf("the overdue run would move %d invoices and %d contracts", moved, rated.Updated)
			}
			return errors.Join(err, errors.New("rolled back"))
		})
		if err != nil && err.Error() != "rolled back" {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}

// repost undoes and posts again, through storage, every payment of the
// company, and compares what was written with what the generator wrote;
// the rows compared must hold each of want.
func repost(t *testing.T, pool *pgxpool.Pool, company int64, want []string) {
	t.Helper()
	ctx := context.Background()
	before := snapshot(t, pool, company, 1)
	for _, w := range want {
		if !slices.ContainsFunc(before, has(w)) {
			t.Fatalf("the data set lacks %q to compare:\n%s", w, before)
		}
	}
	rows, err := pool.Query(ctx, `SELECT id FROM invoices WHERE company_id = $1 AND paid ORDER BY id`, company)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if err := storage.UndoInvoicePayment(ctx, tx, company, id); err != nil {
				return err
			}
			return storage.PostInvoicePayment(ctx, tx, company, id)
		})
		if err != nil {
			t.Fatalf("invoice %d: %v", id, err)
		}
	}
	after := snapshot(t, pool, company, 2)
	if len(before) != len(after) {
		t.Fatalf("%d rows generated, %d posted by storage", len(before), len(after))
	}
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("generated:\n%s\nposted by storage:\n%s", before[i], after[i])
		}
	}
	t.Logf("%d payments posted again, %d rows compared", len(ids), len(before))
}

// snapshot is, invoice by invoice, the paid amounts, the settlement lines
// and the entries of the payment numbered n, one text line each.
func snapshot(t *testing.T, pool *pgxpool.Pool, company int64, n int) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT concat_ws(' ', 'invoice', id, paid_amount, paid_late_fee, paid_interest, paid_discount) FROM invoices
		WHERE company_id = $1 AND paid
		UNION ALL
		SELECT concat_ws(' ', 'invoice', invoice_id, 'line', kind, item_id, amount, description) FROM invoice_items
		WHERE company_id = $1 AND kind <> 'line'
		UNION ALL
		SELECT concat_ws(' ', 'invoice', invoice_id, 'entry', position, morph_key, mode, type, account_id, business_id,
			plan_id, item_id, person_id, building_id, contract_id, broker_id, owner_id, tenant_id, extract, date, amount,
			'split ' || percentage, competence, description, paid, due_date, billing_method)
		FROM transactions WHERE company_id = $1 AND split LIKE '%-payment-' || $2
		ORDER BY 1`, company, fmt.Sprint(n))
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func has(part string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, part) }
}

// BenchmarkGenerate writes a data set of 2,000 contracts and 12 months
// (about 26,000 invoices and 130,000 ledger entries) into the benchmark's
// database, once, and reports the rows the copy wrote per second.
//
//	go test -run '^$' -bench Generate -benchtime 1x ./storage/benchdata
func BenchmarkGenerate(b *testing.B) {
	pool := storagetest.NewDB(b)
	for i := range b.N {
		if i > 0 {
			b.Fatal("one data set per database: run with -benchtime 1x")
		}
		res, err := benchdata.Generate(context.Background(), pool, benchdata.Options{Contracts: 2_000, Months: 12, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		var rows int64
		for _, t := range res.Tables {
			rows += t.Rows
			b.ReportMetric(t.Took.Seconds(), t.Table+"-s")
		}
		b.ReportMetric(float64(rows)/res.Copy.Seconds(), "rows/s")
	}
}
