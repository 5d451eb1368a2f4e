package storage_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// ledgerFixture is the company of the ledger tests (docs/ledger.md's
// worked example): a business, a payer, a building owned 60/40 let
// through a contract, and the items rent and condominium (customer to
// owner), administration fee (owner to business), fee and discount.
type ledgerFixture struct {
	pool                                               *pgxpool.Pool
	company, business, account                         int64
	payer, owner60, owner40, building, contract        int64
	rent, condo, admin, fee, discount, rentIn, rentOut int64
	names                                              map[string]string // "extract id" → name
}

func newLedgerFixture(t *testing.T) *ledgerFixture {
	t.Helper()
	return newLedgerFixtureIn(t, storagetest.NewDB(t), "Imobiliária Livro-Razão")
}

// newLedgerFixtureIn sets the fixture up as the company named name in
// pool's database (several companies may share one).
func newLedgerFixtureIn(t *testing.T, pool *pgxpool.Pool, name string) *ledgerFixture {
	t.Helper()
	ctx := context.Background()
	f := &ledgerFixture{pool: pool}
	var err error
	if f.company, _, err = storage.EnsureCompany(ctx, f.pool, name); err != nil {
		t.Fatal(err)
	}
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var v int64
		if err := f.pool.QueryRow(ctx, sql, append([]any{f.company}, args...)...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	person := `INSERT INTO persons (company_id, name) VALUES ($1, $2) RETURNING id`
	f.business = id(`INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte Imóveis') RETURNING id`)
	f.account = id(`INSERT INTO accounts (company_id, business_id) VALUES ($1, $2) RETURNING id`, f.business)
	f.payer = id(person, "Ana Inquilina")
	f.owner60 = id(person, "Bruno Proprietário")
	f.owner40 = id(person, "Carla Proprietária")
	f.building = id(`INSERT INTO buildings (company_id, title) VALUES ($1, 'Apto 101') RETURNING id`)
	owner := `INSERT INTO building_owners (company_id, building_id, person_id, percentage) VALUES ($1, $2, $3, $4) RETURNING id`
	id(owner, f.building, f.owner60, "60")
	id(owner, f.building, f.owner40, "40")
	f.contract = id(`INSERT INTO contracts (company_id, type, building_id, tenant_id) VALUES ($1, 'rent', $2, $3) RETURNING id`,
		f.building, f.payer)
	f.rentIn = id(`INSERT INTO plans (company_id, name) VALUES ($1, 'Aluguéis a receber') RETURNING id`)
	f.rentOut = id(`INSERT INTO plans (company_id, name) VALUES ($1, 'Aluguéis a repassar') RETURNING id`)
	item := `INSERT INTO transaction_items (company_id, description, debit, credit, type, debit_plan_id, credit_plan_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`
	f.rent = id(item, "Aluguel", "customer", "owner", "rent", f.rentIn, f.rentOut)
	f.condo = id(item, "Condomínio", "customer", "owner", "default", nil, nil)
	f.admin = id(item, "Taxa de administração", "owner", "business", "default", nil, nil)
	f.fee = id(item, "Multa e juros", "customer", "owner", "fee", nil, nil)
	f.discount = id(item, "Desconto", "owner", "customer", "discount", nil, nil)
	f.names = map[string]string{
		fmt.Sprintf("customer %d", f.payer): "payer", fmt.Sprintf("owner %d", f.owner60): "owner60",
		fmt.Sprintf("owner %d", f.owner40): "owner40", fmt.Sprintf("business %d", f.business): "business",
	}
	return f
}

// invoice inserts the worked example's invoice, paid on paidAt and
// credited on creditAt, with extra settings (column = value) and its
// three lines; it returns the invoice's id.
func (f *ledgerFixture) invoice(t *testing.T, dueDate, paidAt, creditAt string, settings string) int64 {
	t.Helper()
	ctx := context.Background()
	var inv int64
	err := f.pool.QueryRow(ctx, `
		INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
		    status, paid, paid_at, credit_at, description, total, date, due_date)
		VALUES ($1, 'contract', $2, $3, $4, $5, 'ticket', 'paid', true, $6, $7, 'Aluguel 3/12', 2350.00, '2024-03-01', $8)
		RETURNING id`, f.company, f.payer, f.contract, f.business, f.account, paidAt, creditAt, dueDate).Scan(&inv)
	if err != nil {
		t.Fatal(err)
	}
	if settings != "" {
		if _, err := f.pool.Exec(ctx, `UPDATE invoices SET `+settings+` WHERE company_id = $1 AND id = $2`, f.company, inv); err != nil {
			t.Fatal(err)
		}
	}
	_, err = f.pool.Exec(ctx, `
		INSERT INTO invoice_items (company_id, invoice_id, item_id, amount) VALUES
		    ($1, $2, $3, 2000.00), ($1, $2, $4, 350.00), ($1, $2, $5, 200.00)`,
		f.company, inv, f.rent, f.condo, f.admin)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// lateSettings: 2% late fee and 1% a month interest on the total.
const lateSettings = `ticket_late_fee = true, ticket_late_fee_percentage = 2, ticket_late_fee_interest = 1`

// inTx runs fn in a transaction, committed when fn returns nil.
func inTx(t *testing.T, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func (f *ledgerFixture) post(t *testing.T, inv int64) error {
	return inTx(t, f.pool, func(tx pgx.Tx) error {
		return storage.PostInvoicePayment(context.Background(), tx, f.company, inv)
	})
}

func (f *ledgerFixture) undo(t *testing.T, inv int64) error {
	return inTx(t, f.pool, func(tx pgx.Tx) error {
		return storage.UndoInvoicePayment(context.Background(), tx, f.company, inv)
	})
}

// ledgerRow is an entry as stored.
type ledgerRow struct {
	id, reverses              int64
	typ, extract, mode, split string
	holder, item, plan, date  string
	amount                    decimal.Decimal
}

// sameRow compares two rows, amounts by value.
func sameRow(a, b ledgerRow) bool {
	equal := a.amount.Equal(b.amount)
	a.amount, b.amount = decimal.Zero, decimal.Zero
	return equal && a == b
}

// line writes a row as "type holder amount item" with the fixture's names.
func (f *ledgerFixture) line(r ledgerRow) string {
	items := map[string]string{fmt.Sprint(f.rent): "rent", fmt.Sprint(f.condo): "condo", fmt.Sprint(f.admin): "admin",
		fmt.Sprint(f.fee): "fee", fmt.Sprint(f.discount): "discount"}
	return fmt.Sprintf("%s %s %s %s", r.typ, f.names[r.extract+" "+r.holder], r.amount.StringFixed(2), items[r.item])
}

func (f *ledgerFixture) entries(t *testing.T, inv int64) []ledgerRow {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		SELECT id, coalesce(reverses_id, 0), type, extract, mode, split,
		       CASE extract WHEN 'business' THEN business_id WHEN 'owner' THEN owner_id ELSE person_id END::text,
		       item_id::text, coalesce(plan_id::text, ''), date::text, amount::text
		FROM transactions WHERE company_id = $1 AND invoice_id = $2 ORDER BY id`, f.company, inv)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ledgerRow, error) {
		var r ledgerRow
		err := row.Scan(&r.id, &r.reverses, &r.typ, &r.extract, &r.mode, &r.split, &r.holder, &r.item, &r.plan, &r.date, &r.amount)
		return r, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// balances sums rows by party: credits less debits.
func (f *ledgerFixture) balances(rows []ledgerRow) map[string]string {
	sums := map[string]decimal.Decimal{}
	for _, r := range rows {
		name := f.names[r.extract+" "+r.holder]
		if r.typ == "debit" {
			sums[name] = sums[name].Sub(r.amount)
		} else {
			sums[name] = sums[name].Add(r.amount)
		}
	}
	out := map[string]string{}
	for k, v := range sums {
		out[k] = v.StringFixed(2)
	}
	return out
}

// settled reads what the invoice says its payment settled and its
// settlement lines.
func (f *ledgerFixture) settled(t *testing.T, inv int64) (amounts string, lines []string) {
	t.Helper()
	ctx := context.Background()
	err := f.pool.QueryRow(ctx, `
		SELECT concat_ws(' ', coalesce(paid_amount::text, 'null'), coalesce(paid_late_fee::text, 'null'),
		                 coalesce(paid_interest::text, 'null'), coalesce(paid_discount::text, 'null'))
		FROM invoices WHERE company_id = $1 AND id = $2`, f.company, inv).Scan(&amounts)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.pool.Query(ctx, `
		SELECT kind || ' ' || amount::text || ' ' || (item_id = $3)::text || ' ' || description
		FROM invoice_items WHERE company_id = $1 AND invoice_id = $2 AND kind <> 'line' ORDER BY id`,
		f.company, inv, f.fee)
	if err != nil {
		t.Fatal(err)
	}
	lines, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return amounts, lines
}

func checkBalanced(t *testing.T, rows []ledgerRow) {
	t.Helper()
	var debits, credits decimal.Decimal
	for _, r := range rows {
		if r.typ == "debit" {
			debits = debits.Add(r.amount)
		} else {
			credits = credits.Add(r.amount)
		}
	}
	if !debits.Equal(credits) {
		t.Errorf("debits %s, credits %s", debits, credits)
	}
}

// TestPostInvoicePaymentLate posts docs/ledger.md's worked example: due
// 2024-03-10, paid 2024-03-25 (15 days late), credited 2024-03-26; then
// refuses to post it twice, undoes it, and posts it again.
func TestPostInvoicePaymentLate(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	inv := f.invoice(t, "2024-03-10", "2024-03-25", "2024-03-26", lateSettings)
	if err := f.post(t, inv); err != nil {
		t.Fatal(err)
	}
	rows := f.entries(t, inv)
	var got []string
	for _, r := range rows {
		got = append(got, f.line(r))
		if r.mode != "invoice" || r.date != "2024-03-26" || r.split != fmt.Sprintf("invoice-%d-payment-1", inv) || r.reverses != 0 {
			t.Errorf("entry %+v: want mode invoice, date 2024-03-26, split of payment 1", r)
		}
	}
	want := []string{
		"debit payer 2000.00 rent", "credit owner60 1200.00 rent", "credit owner40 800.00 rent",
		"debit payer 350.00 condo", "credit owner60 210.00 condo", "credit owner40 140.00 condo",
		"debit owner60 120.00 admin", "debit owner40 80.00 admin", "credit business 200.00 admin",
		"debit payer 47.00 fee", "credit owner60 28.20 fee", "credit owner40 18.80 fee",
		"debit payer 11.75 fee", "credit owner60 7.05 fee", "credit owner40 4.70 fee",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("entries:\n%q\nwant\n%q", got, want)
	}
	if rows[0].plan != fmt.Sprint(f.rentIn) || rows[1].plan != fmt.Sprint(f.rentOut) {
		t.Errorf("rent plans %s and %s, want %d (debit side) and %d (credit side)", rows[0].plan, rows[1].plan, f.rentIn, f.rentOut)
	}
	checkBalanced(t, rows)
	wantBalances := map[string]string{"payer": "-2408.75", "owner60": "1325.25", "owner40": "883.50", "business": "200.00"}
	if b := f.balances(rows); fmt.Sprint(b) != fmt.Sprint(wantBalances) {
		t.Errorf("balances %v, want %v", b, wantBalances)
	}
	amounts, lines := f.settled(t, inv)
	wantLines := []string{"late_fee 47.00 true Multa por atraso", "interest 11.75 true Juros de mora (15 dias)"}
	if amounts != "2408.75 47.00 11.75 0.00" || !slices.Equal(lines, wantLines) {
		t.Errorf("settled %q with lines %q", amounts, lines)
	}

	if err := f.post(t, inv); finance.ErrorCode(err) != finance.Conflict {
		t.Errorf("posting twice: %v, want a conflict", err)
	}

	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	f.checkUndone(t, inv, rows)
	if err := f.undo(t, inv); err != nil {
		t.Fatal(err)
	}
	if n := len(f.entries(t, inv)); n != 2*len(rows) {
		t.Errorf("a second undo left %d entries, want %d", n, 2*len(rows))
	}

	if err := f.post(t, inv); err != nil {
		t.Fatalf("posting after the undo: %v", err)
	}
	again := f.entries(t, inv)[2*len(rows):]
	if len(again) != len(rows) || again[0].split != fmt.Sprintf("invoice-%d-payment-2", inv) {
		t.Errorf("second payment: %d entries, split %q", len(again), again[0].split)
	}
}

// checkUndone: every entry of the payment is still there and reversed
// once, dated today in the company's time zone, every party nets to zero,
// and the invoice's settlement is gone.
func (f *ledgerFixture) checkUndone(t *testing.T, inv int64, posted []ledgerRow) {
	t.Helper()
	var today string
	if err := f.pool.QueryRow(context.Background(),
		`SELECT (now() AT TIME ZONE time_zone)::date::text FROM companies WHERE id = $1`, f.company).Scan(&today); err != nil {
		t.Fatal(err)
	}
	all := f.entries(t, inv)
	if len(all) != 2*len(posted) {
		t.Fatalf("%d entries after the undo, want %d", len(all), 2*len(posted))
	}
	for i, o := range posted {
		r := all[len(posted)+i]
		if !sameRow(all[i], o) {
			t.Errorf("entry %d changed: %+v, was %+v", o.id, all[i], o)
		}
		if r.reverses != o.id || r.mode != "chargeback" || r.typ == o.typ || !r.amount.Equal(o.amount) ||
			r.holder != o.holder || r.extract != o.extract || r.date != today || r.split != o.split+"-chargeback" {
			t.Errorf("reversal %+v of %+v (today %s)", r, o, today)
		}
	}
	for party, b := range f.balances(all) {
		if b != "0.00" {
			t.Errorf("%s nets %s after the undo", party, b)
		}
	}
	if amounts, lines := f.settled(t, inv); amounts != "null null null null" || len(lines) != 0 {
		t.Errorf("after the undo the invoice says %q with lines %q", amounts, lines)
	}
}

// TestPostInvoicePaymentEarlyDiscount: paid 7 days early, 5% of the rent
// off, borne by the owners 60/40.
func TestPostInvoicePaymentEarlyDiscount(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	inv := f.invoice(t, "2024-03-10", "2024-03-03", "2024-03-04", fmt.Sprintf(`ticket_discount = true,
		ticket_discount_mode = 'percentage', ticket_discount_percentage = 5, ticket_discount_days = 5,
		ticket_discount_action = 'owner', ticket_late_fee_item_id = %d`, f.rent))
	if err := f.post(t, inv); err != nil {
		t.Fatal(err)
	}
	rows := f.entries(t, inv)
	var got []string
	for _, r := range rows[9:] {
		got = append(got, f.line(r))
	}
	want := []string{"debit owner60 60.00 discount", "debit owner40 40.00 discount", "credit payer 100.00 discount"}
	if len(rows) != 12 || !slices.Equal(got, want) {
		t.Errorf("%d entries, the discount's %q, want %q", len(rows), got, want)
	}
	checkBalanced(t, rows)
	wantBalances := map[string]string{"payer": "-2250.00", "owner60": "1230.00", "owner40": "820.00", "business": "200.00"}
	if b := f.balances(rows); fmt.Sprint(b) != fmt.Sprint(wantBalances) {
		t.Errorf("balances %v, want %v", b, wantBalances)
	}
	if amounts, lines := f.settled(t, inv); amounts != "2250.00 0.00 0.00 100.00" ||
		!slices.Equal(lines, []string{"discount 100.00 false Desconto de pontualidade"}) {
		t.Errorf("settled %q with lines %q", amounts, lines)
	}
}

func TestPostInvoicePaymentRefusals(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	late := f.invoice(t, "2024-03-10", "2024-03-25", "2024-03-26", lateSettings)
	unpaid := f.invoice(t, "2024-03-10", "2024-03-25", "2024-03-26", "paid = false, status = 'unpaid'")
	if _, err := f.pool.Exec(ctx, `UPDATE transaction_items SET active = false WHERE company_id = $1 AND id = $2`,
		f.company, f.fee); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		inv   int64
		code  finance.Code
		field string
	}{
		{"late without an active fee item", late, finance.Invalid, "paid"},
		{"not paid", unpaid, finance.Invalid, "paid"},
		{"no such invoice", late + 1000, finance.NotFound, ""},
	}
	for _, tt := range tests {
		err := f.post(t, tt.inv)
		var e *finance.Error
		if !errors.As(err, &e) || e.Code != tt.code {
			t.Errorf("%s: %v, want %s", tt.name, err, tt.code)
			continue
		}
		if tt.field != "" && (len(e.Problems) != 1 || e.Problems[0].Field != tt.field) {
			t.Errorf("%s: problems %+v, want one on %s", tt.name, e.Problems, tt.field)
		}
	}
	if n := len(f.entries(t, late)); n != 0 {
		t.Errorf("a refused posting left %d entries", n)
	}
	other, _, err := storage.EnsureCompany(ctx, f.pool, "Outra")
	if err != nil {
		t.Fatal(err)
	}
	err = inTx(t, f.pool, func(tx pgx.Tx) error { return storage.UndoInvoicePayment(ctx, tx, other, late) })
	if finance.ErrorCode(err) != finance.NotFound {
		t.Errorf("undoing another company's invoice: %v, want not found", err)
	}
}
