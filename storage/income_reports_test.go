package storage_test

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
	"github.com/propfin/propfin/storage/storagetest"
)

// incomeLedger is a company's owner ledger for the income reports: two
// owners, two businesses, two contracts, and items the reports declare
// (one of them left out of the owners' statements, one of type default
// marked dimob) and one they do not.
type incomeLedger struct {
	pool                                        *pgxpool.Pool
	company, ana, bruno, nobody, tenant         int64
	b1, b2, lease, ended, account               int64
	rent, fee, duty, hiddenRent, repair, marked int64
	named                                       map[string]int64 // the entries, by name
	closed                                      finance.Month
}

func newIncomeLedger(t *testing.T, pool *pgxpool.Pool, name string) *incomeLedger {
	t.Helper()
	ctx := context.Background()
	company, _, err := storage.EnsureCompany(ctx, pool, name)
	if err != nil {
		t.Fatal(err)
	}
	l := &incomeLedger{pool: pool, company: company, named: map[string]int64{}}
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var v int64
		if err := pool.QueryRow(ctx, sql, append([]any{company}, args...)...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	person := `INSERT INTO persons (company_id, name, tax_id) VALUES ($1, $2, $3) RETURNING id`
	l.ana, l.bruno = id(person, name+" Ana", "52998224725"), id(person, name+" Bruno", nil)
	l.nobody = id(person, name+" Nobody", nil)
	tenant := id(person, name+" Padaria Ltda", "11222333000181")
	l.tenant = tenant
	l.b1 = id(`INSERT INTO businesses (company_id, name, tax_id) VALUES ($1, 'Horizonte', '11444777000161') RETURNING id`)
	l.account = id(`INSERT INTO accounts (company_id, business_id) VALUES ($1, $2) RETURNING id`, l.b1)
	l.b2 = id(`INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte Sul') RETURNING id`)
	building := id(`INSERT INTO buildings (company_id, title, street, number, complement, district, city, state, zip_code)
		VALUES ($1, 'Loja', 'Rua Augusta', '500', 'loja 2', 'Consolação', 'São Paulo', 'SP', '01305000') RETURNING id`)
	contract := `INSERT INTO contracts (company_id, type, reference, building_id, tenant_id, business_id, start_at, end_at, termination_at)
		VALUES ($1, 'rent', $2, $3, $4, $5, $6, $7, $8) RETURNING id`
	l.lease = id(contract, "L-1", building, tenant, l.b1, "2023-03-15", nil, nil)
	l.ended = id(contract, nil, building, tenant, l.b2, "2022-01-01", "2026-12-31", "2024-06-30")
	item := `INSERT INTO transaction_items (company_id, description, debit, credit, type, owner_report, dimob)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`
	l.rent = id(item, "Aluguel", "customer", "owner", "rent", true, false)
	l.fee = id(item, "Taxa de administração", "owner", "business", "commission", true, false)
	l.duty = id(item, "IRRF", "owner", "customer", "duty", true, false)
	l.hiddenRent = id(item, "Aluguel interno", "customer", "owner", "rent", false, false)
	l.repair = id(item, "Reparos", "owner", "business", "default", true, false)
	l.marked = id(item, "Taxa de administração (antiga)", "owner", "business", "default", true, true)
	return l
}

// entry writes an owner's entry of a payment as name: a credit or debit
// of the owner's, business's and contract's, of item, dated date;
// reverses names the entry it reverses ("" none).
func (l *incomeLedger) entry(t *testing.T, name string, owner, business, contract, item int64, typ, date, amount, reverses string) {
	t.Helper()
	mode := "invoice"
	if reverses != "" {
		mode = "chargeback"
	}
	l.writeEntry(t, name, mode, 0, owner, business, contract, item, typ, date, amount, reverses)
}

// writeEntry writes an owner's entry of mode as entry does, of invoice
// (0: none).
func (l *incomeLedger) writeEntry(t *testing.T, name, mode string, invoice, owner, business, contract, item int64, typ, date, amount,
	reverses string) {
	t.Helper()
	var rev any
	if reverses != "" {
		rev = l.named[reverses]
	}
	var id int64
	err := l.pool.QueryRow(context.Background(), `INSERT INTO transactions (company_id, mode, type, extract, owner_id, person_id,
		    business_id, contract_id, item_id, amount, date, description, reverses_id, invoice_id)
		VALUES ($1, $2, $3, 'owner', $4, $4, $5, $6, $7, $8, $9, $10, $11, nullif($12::bigint, 0)) RETURNING id`,
		l.company, mode, typ, owner, business, contract, item, amount, date, name, rev, invoice).Scan(&id)
	if err != nil {
		t.Fatalf("entry %s: %v", name, err)
	}
	l.named[name] = id
}

// paidInvoice writes an invoice of the lease paid on paidAt.
func (l *incomeLedger) paidInvoice(t *testing.T, paidAt string) int64 {
	t.Helper()
	var id int64
	err := l.pool.QueryRow(context.Background(), `INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id,
		    account_id, billing_method, status, paid, paid_at, credit_at, description, total, date, due_date)
		VALUES ($1, 'contract', $2, $3, $4, $5, 'ticket', 'paid', true, $6, $6::date + 2, 'Aluguel', 1200, $6, $6) RETURNING id`,
		l.company, l.tenant, l.lease, l.b1, l.account, paidAt).Scan(&id)
	if err != nil {
		t.Fatalf("invoice paid on %s: %v", paidAt, err)
	}
	return id
}

// close closes every month after the last closed one through m.
func (l *incomeLedger) close(t *testing.T, from, through finance.Month) {
	t.Helper()
	ctx := context.Background()
	for m := from; m <= through; m = m.Add(1) {
		err := pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
			_, err := storage.CloseOwnerStatements(ctx, tx, l.company, 0, m)
			return err
		})
		if err != nil {
			t.Fatalf("close %s: %v", m, err)
		}
	}
	l.closed = through
}

// write is the ledger of the test, closed from 2023-12 to 2025-01.
func (l *incomeLedger) write(t *testing.T) {
	t.Helper()
	april := l.paidInvoice(t, "2024-04-30")
	l.entry(t, "rent 2023-12", l.ana, l.b1, l.lease, l.rent, "credit", "2023-12-11", "1200.00", "")
	l.entry(t, "rent 2024-01", l.ana, l.b1, l.lease, l.rent, "credit", "2024-01-11", "1200.00", "")
	l.entry(t, "fee 2024-01", l.ana, l.b1, l.lease, l.fee, "debit", "2024-01-11", "120.00", "")
	l.entry(t, "irrf 2024-01", l.ana, l.b1, l.lease, l.duty, "debit", "2024-01-11", "24.00", "")
	l.entry(t, "hidden 2024-01", l.ana, l.b1, l.lease, l.hiddenRent, "credit", "2024-01-12", "10.00", "")
	l.entry(t, "repair 2024-01", l.ana, l.b1, l.lease, l.repair, "debit", "2024-01-20", "150.00", "")
	l.entry(t, "marked 2024-01", l.ana, l.b1, l.lease, l.marked, "debit", "2024-01-20", "30.00", "")
	l.writeEntry(t, "by hand 2024-01", "transaction", 0, l.ana, l.b1, l.lease, l.rent, "credit", "2024-01-21", "99.00", "")
	l.writeEntry(t, "rent 2024-04 paid", "invoice", april, l.ana, l.b1, l.lease, l.rent, "credit", "2024-05-02", "1200.00", "")
	l.entry(t, "undo 2023-12", l.ana, l.b1, l.lease, l.rent, "debit", "2024-01-05", "1200.00", "rent 2023-12")
	l.entry(t, "rent 2024-02", l.ana, l.b1, l.lease, l.rent, "credit", "2024-02-09", "1200.00", "")
	l.entry(t, "undo 2024-02", l.ana, l.b1, l.lease, l.rent, "debit", "2024-03-02", "1200.00", "rent 2024-02")
	l.entry(t, "rent 2024-05 b2", l.ana, l.b2, l.ended, l.rent, "credit", "2024-05-10", "300.00", "")
	l.entry(t, "rent 2024-06 bruno", l.bruno, l.b1, l.lease, l.rent, "credit", "2024-06-10", "800.00", "")
	l.entry(t, "rent 2024-12", l.ana, l.b1, l.lease, l.rent, "credit", "2024-12-10", "1200.00", "")
	l.entry(t, "rent 2025-01", l.ana, l.b1, l.lease, l.rent, "credit", "2025-01-10", "1200.00", "")
	l.close(t, finance.NewMonth(2023, 12), finance.NewMonth(2024, 12))
	// written after December was closed: an adjustment of 2025-01 correcting 2024-12
	l.entry(t, "late 2024-12", l.ana, l.b1, l.lease, l.fee, "debit", "2024-12-31", "120.00", "")
	l.close(t, finance.NewMonth(2025, 1), finance.NewMonth(2025, 1))
}

// incomeLinesText writes an owner's lines as "entry statement-month
// [corrects month] kind item_type cents business/contract figure day
// [hidden]".
func (l *incomeLedger) incomeLinesText(o storage.IncomeOwner) string {
	names := map[int64]string{}
	for name, id := range l.named {
		names[id] = name
	}
	var out []string
	for _, line := range o.Lines {
		s := fmt.Sprintf("%s %s", names[line.TransactionID], line.Month)
		if line.IsAdjustment() {
			s += " corrects " + line.CorrectsMonth.String()
		}
		figure := map[finance.Declared]string{finance.DeclaredRent: "rent", finance.DeclaredCommission: "commission",
			finance.DeclaredTax: "tax"}[line.Declared]
		s += fmt.Sprintf(" %s %s %d %d/%d %s %s", line.Kind, line.ItemType, line.Cents, line.BusinessID, line.ContractID, figure, line.Day)
		if line.Hidden {
			s += " hidden"
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

// TestIncomeReports reads the income reports of 2024 and 2023 from months
// closed through the owners:statements rule: the lines the rule declares
// whose day is in the year (the year's own lines, the adjustments that
// correct its months, in the year's statements or the next year's, a
// reversal on the day of the entry it reverses, a payment on the day its
// invoice was paid though credited and stated in the next month), each
// with its figure: a line the statements hide counts, an item of type
// default counts only marked dimob, an entry written by hand does not; of
// every owner, one, one business; the owners, contracts (the end of one
// ended early is its termination) and businesses named; the company's
// last closed month. Another company's ledger, written alike, is its own;
// a person of another company is not found; a person without lines is an
// owner without lines.
func TestIncomeReports(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	ctx := context.Background()
	store := storage.NewStore(pool, storage.DefaultRegistry())
	a, b := newIncomeLedger(t, pool, "A"), newIncomeLedger(t, pool, "B")
	a.write(t)
	b.write(t)
	read := func(l *incomeLedger, q storage.IncomeQuery) *storage.IncomeReports {
		t.Helper()
		r, err := store.IncomeReports(ctx, l.company, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		return r
	}
	const ana2024 = `rent 2024-01 2024-01 income rent 120000 %[1]d/%[2]d rent 2024-01-11
hidden 2024-01 2024-01 income rent 1000 %[1]d/%[2]d rent 2024-01-12 hidden
fee 2024-01 2024-01 deductions commission -12000 %[1]d/%[2]d commission 2024-01-11
irrf 2024-01 2024-01 deductions duty -2400 %[1]d/%[2]d tax 2024-01-11
marked 2024-01 2024-01 deductions default -3000 %[1]d/%[2]d commission 2024-01-20
rent 2024-02 2024-02 income rent 120000 %[1]d/%[2]d rent 2024-02-09
undo 2024-02 2024-03 corrects 2024-02 income rent -120000 %[1]d/%[2]d rent 2024-02-09
rent 2024-04 paid 2024-05 income rent 120000 %[1]d/%[2]d rent 2024-04-30
rent 2024-05 b2 2024-05 income rent 30000 %[3]d/%[4]d rent 2024-05-10
rent 2024-12 2024-12 income rent 120000 %[1]d/%[2]d rent 2024-12-10
late 2024-12 2025-01 corrects 2024-12 deductions commission -12000 %[1]d/%[2]d commission 2024-12-31`
	for _, l := range []*incomeLedger{a, b} {
		all := read(l, storage.IncomeQuery{Year: 2024})
		if len(all.Owners) != 2 || all.Owners[0].ID != l.ana || all.Owners[1].ID != l.bruno {
			t.Fatalf("company %d: owners %+v", l.company, all.Owners)
		}
		want := fmt.Sprintf(ana2024, l.b1, l.lease, l.b2, l.ended)
		ana := all.Owners[0]
		if got := l.incomeLinesText(ana); got != want {
			t.Errorf("company %d, Ana's 2024:\n%s\nwant\n%s", l.company, got, want)
		}
		if ana.Name != fmt.Sprint(map[int64]string{a.company: "A", b.company: "B"}[l.company], " Ana") || ana.TaxID != "52998224725" ||
			ana.ClosedAt.IsZero() {
			t.Errorf("company %d: Ana %q %q closed at %v", l.company, ana.Name, ana.TaxID, ana.ClosedAt)
		}
		if got := l.incomeLinesText(all.Owners[1]); got != fmt.Sprintf("rent 2024-06 bruno 2024-06 income rent 80000 %d/%d rent 2024-06-10", l.b1, l.lease) {
			t.Errorf("company %d, Bruno's 2024: %s", l.company, got)
		}
		if all.CompanyName == "" || !all.Closed || all.ClosedThrough != finance.NewMonth(2025, 1) {
			t.Errorf("company %d: %q closed %v through %s", l.company, all.CompanyName, all.Closed, all.ClosedThrough)
		}
		lease, ended := all.Contracts[l.lease], all.Contracts[l.ended]
		if len(all.Contracts) != 2 || lease.Reference != "L-1" || lease.Start != finance.MustDate("2023-03-15") || !lease.End.IsZero() ||
			!strings.HasSuffix(lease.Tenant.Name, "Padaria Ltda") || lease.Tenant.TaxID != "11222333000181" ||
			lease.Property.Line() != "Rua Augusta, 500, loja 2, Consolação, São Paulo - SP, CEP 01305-000" {
			t.Errorf("company %d: the lease %+v (%s)", l.company, lease, lease.Property.Line())
		}
		if ended.Reference != "" || ended.End != finance.MustDate("2024-06-30") {
			t.Errorf("company %d: the contract ended early %+v", l.company, ended)
		}
		if len(all.Businesses) != 2 || all.Businesses[l.b1].Name != "Horizonte" || all.Businesses[l.b1].TaxID != "11444777000161" ||
			all.Businesses[l.b2].Name != "Horizonte Sul" {
			t.Errorf("company %d: businesses %+v", l.company, all.Businesses)
		}

		one := read(l, storage.IncomeQuery{Year: 2024, OwnerID: l.ana})
		if len(one.Owners) != 1 || l.incomeLinesText(one.Owners[0]) != want {
			t.Errorf("company %d: Ana's read alone differs from every owner's:\n%s", l.company, l.incomeLinesText(one.Owners[0]))
		}
		books := read(l, storage.IncomeQuery{Year: 2024, OwnerID: l.ana, BusinessID: l.b2})
		if len(books.Owners) != 1 || l.incomeLinesText(books.Owners[0]) != fmt.Sprintf("rent 2024-05 b2 2024-05 income rent 30000 %d/%d rent 2024-05-10", l.b2, l.ended) ||
			len(books.Contracts) != 1 || len(books.Businesses) != 1 {
			t.Errorf("company %d: Ana's 2024 in the books of %d: %+v", l.company, l.b2, books)
		}
		y2023 := read(l, storage.IncomeQuery{Year: 2023, OwnerID: l.ana})
		if got := l.incomeLinesText(y2023.Owners[0]); got != fmt.Sprintf(`rent 2023-12 2023-12 income rent 120000 %[1]d/%[2]d rent 2023-12-11
undo 2023-12 2024-01 corrects 2023-12 income rent -120000 %[1]d/%[2]d rent 2023-12-11`, l.b1, l.lease) {
			t.Errorf("company %d, Ana's 2023:\n%s", l.company, got)
		}
		// an owner with nothing in the year: a report of zeros
		quiet := read(l, storage.IncomeQuery{Year: 2020, OwnerID: l.ana})
		if len(quiet.Owners) != 1 || quiet.Owners[0].ID != l.ana || len(quiet.Owners[0].Lines) != 0 ||
			!quiet.Owners[0].ClosedAt.IsZero() || len(quiet.Contracts) != 0 {
			t.Errorf("company %d: an owner without lines in the year: %+v", l.company, quiet)
		}
		// a person who owns nothing (the tenant, a person of no building):
		// no owner, a 422 on filter[owner_id]
		for _, person := range []int64{l.nobody, l.tenant} {
			_, err := store.IncomeReports(ctx, l.company, storage.IncomeQuery{Year: 2024, OwnerID: person})
			var coded *finance.Error
			if !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) != 1 ||
				coded.Problems[0].Field != "filter[owner_id]" || !strings.Contains(coded.Problems[0].Message, "no owner") {
				t.Errorf("company %d: person %d, who owns nothing: %v", l.company, person, err)
			}
		}
	}
	other := map[int64]int64{a.company: b.ana, b.company: a.ana}
	for company, owner := range other {
		if _, err := store.IncomeReports(ctx, company, storage.IncomeQuery{Year: 2024, OwnerID: owner}); finance.ErrorCode(err) != finance.NotFound {
			t.Errorf("company %d reading another company's owner %d: %v", company, owner, err)
		}
	}
	if ids := slices.Sorted(func(yield func(int64) bool) {
		for _, o := range read(a, storage.IncomeQuery{Year: 2025}).Owners {
			if !yield(o.ID) {
				return
			}
		}
	}); !slices.Equal(ids, []int64{a.ana}) {
		t.Errorf("2025's owners: %v", ids)
	}
}

// TestIncomeReportsUnstated: once the statements reach the next January,
// a report reads the owner's entries that count in the year by the rule
// and are on no closed statement: an undoing of a payment of the year
// made in a month not closed (on the payment's date), an entry dated in a
// closed month written after its close (on its own day); not an entry by
// hand or of an item the rule does not declare, not another owner's,
// business's or company's. An owner with nothing but such an entry is
// read too.
func TestIncomeReportsUnstated(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	ctx := context.Background()
	store := storage.NewStore(pool, storage.DefaultRegistry())
	a, b := newIncomeLedger(t, pool, "A"), newIncomeLedger(t, pool, "B")
	a.write(t)
	b.write(t)
	a.entry(t, "undo 2024-12", a.ana, a.b1, a.lease, a.rent, "debit", "2025-02-03", "1200.00", "rent 2024-12")
	a.entry(t, "late 2024-06", a.bruno, a.b1, a.lease, a.fee, "debit", "2024-06-30", "80.00", "")
	a.writeEntry(t, "by hand 2025-02", "transaction", 0, a.ana, a.b1, a.lease, a.rent, "credit", "2024-11-30", "99.00", "")
	a.entry(t, "repair 2024-11", a.ana, a.b1, a.lease, a.repair, "debit", "2024-11-30", "150.00", "")
	a.entry(t, "late 2023-12", a.nobody, a.b1, a.lease, a.rent, "credit", "2023-12-29", "10.00", "")
	read := func(l *incomeLedger, q storage.IncomeQuery) *storage.IncomeReports {
		t.Helper()
		r, err := store.IncomeReports(ctx, l.company, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		return r
	}
	unstated := func(r *storage.IncomeReports) string {
		var out []string
		for _, o := range r.Owners {
			for _, c := range o.Unstated {
				out = append(out, fmt.Sprintf("%d %s %d %s %s", o.ID, c.Kind, c.InvoiceID, c.Date, c.Day))
			}
		}
		return strings.Join(out, "\n")
	}
	want := fmt.Sprintf("%d undone 0 2025-02-03 2024-12-10\n%d entry 0 2024-06-30 2024-06-30", a.ana, a.bruno)
	if got := unstated(read(a, storage.IncomeQuery{Year: 2024})); got != want {
		t.Errorf("2024 of every owner on no statement:\n%s\nwant\n%s", got, want)
	}
	if got := unstated(read(a, storage.IncomeQuery{Year: 2024, OwnerID: a.ana})); got != fmt.Sprintf("%d undone 0 2025-02-03 2024-12-10", a.ana) {
		t.Errorf("Ana's 2024 on no statement: %s", got)
	}
	if got := unstated(read(a, storage.IncomeQuery{Year: 2024, OwnerID: a.ana, BusinessID: a.b2})); got != "" {
		t.Errorf("Ana's 2024 in the books of %d on no statement: %s", a.b2, got)
	}
	if got := unstated(read(a, storage.IncomeQuery{Year: 2023})); got != fmt.Sprintf("%d entry 0 2023-12-29 2023-12-29", a.nobody) {
		t.Errorf("2023 on no statement: %s", got)
	}
	if got := unstated(read(b, storage.IncomeQuery{Year: 2024})); got != "" {
		t.Errorf("company B's 2024 on no statement: %s", got)
	}
	// the statements not reaching the next January: nothing read (the
	// months not closed are the report's warning)
	if got := unstated(read(a, storage.IncomeQuery{Year: 2025})); got != "" {
		t.Errorf("2025 on no statement: %s", got)
	}
}
