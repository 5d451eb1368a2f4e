package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// expressionRegistry is the registry with the invoices' status filter
// read through the expression alone (no Equals): the reference the
// rewritten filter is held to, and what the list ran before it.
func expressionRegistry(t testing.TB) *storage.Registry {
	t.Helper()
	resources := storage.Resources()
	for _, r := range resources {
		if r.Name != storage.Invoices {
			continue
		}
		for i := range r.Columns {
			if r.Columns[i].Name == "status" {
				r.Columns[i].Equals = nil
			}
		}
	}
	reg, err := storage.NewRegistry(resources...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// statusQuery is filter[status]=status (and the due dates, when given),
// sorted by due date, with its total.
func statusQuery(status string, dueFrom, dueTo finance.Date) storage.ListQuery {
	q := storage.ListQuery{Fields: []string{"id", "status"}, Page: 1, PerPage: 1000, WithTotal: true,
		Sort:    []storage.SortKey{{Column: "due_date"}},
		Filters: []storage.Filter{{Column: "status", Op: storage.Equal, Values: []any{status}}}}
	if !dueFrom.IsZero() {
		q.Filters = append(q.Filters, storage.Filter{Column: "due_date", Op: storage.Between, Values: []any{dueFrom.Time(), dueTo.Time()}})
	}
	return q
}

// listIDs runs a list and gives the ids of its page and its total.
func listIDs(t *testing.T, store *storage.Store, company int64, q storage.ListQuery) ([]int64, int64) {
	t.Helper()
	page, err := store.List(context.Background(), store.Registry().MustResource(storage.Invoices), storage.Company(company), q)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(page.Records))
	for i, r := range page.Records {
		ids[i], _ = r.ID()
	}
	return ids, *page.Total
}

// TestInvoiceStatusFilterIsTheExpression: filter[status], written on the
// stored columns, selects for every status exactly the invoices the
// status read as of today (the expression) has that value, over every
// stored status, paid or not, due yesterday, today and tomorrow in the
// company's time zone; and the rows are those the expression alone
// selects, in the same order.
func TestInvoiceStatusFilterIsTheExpression(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Pontual")
	other := newOverdueFixture(t, pool, "Outra Imobiliária")
	// a zone far from UTC, so that today is not the server's date at every hour
	f.exec(t, `UPDATE companies SET time_zone = 'Pacific/Kiritimati' WHERE id = $1`)
	today, err := storage.CompanyToday(ctx, pool, f.company)
	if err != nil {
		t.Fatal(err)
	}
	read := map[int64]string{} // id: the status as the list reads it
	for _, stored := range storage.InvoiceStatuses {
		for _, paid := range []bool{false, true} {
			if paid && (stored == "unpaid" || stored == "overdue") {
				continue // refused by invoices_paid_status_check (TestPaidInvoiceIsNeverStoredOpen)
			}
			for _, days := range []int{-1, 0, 1} {
				inv := finance.Invoice{Status: finance.InvoiceStatus(stored), Paid: paid, DueDate: today.AddDays(days)}
				f.invoice(t, 0, inv)
				other.invoice(t, 0, inv)
			}
		}
	}
	store := storage.NewStore(pool, storage.DefaultRegistry())
	reference := storage.NewStore(pool, expressionRegistry(t))
	all, err := store.List(ctx, store.Registry().MustResource(storage.Invoices), storage.Company(f.company),
		storage.ListQuery{Fields: []string{"id", "status", "due_date"}, Page: 1, PerPage: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Records {
		id, _ := r.ID()
		status, _ := r.Value("status")
		read[id] = fmt.Sprint(status)
	}
	for _, due := range []struct {
		name     string
		from, to finance.Date
	}{{"any due date", finance.Date{}, finance.Date{}}, {"due yesterday to tomorrow", today.AddDays(-1), today.AddDays(1)},
		{"due today", today, today}, {"due yesterday", today.AddDays(-1), today.AddDays(-1)}} {
		for _, status := range storage.InvoiceStatuses {
			t.Run(due.name+"/"+status, func(t *testing.T) {
				q := statusQuery(status, due.from, due.to)
				got, total := listIDs(t, store, f.company, q)
				want, wantTotal := listIDs(t, reference, f.company, q)
				if !slices.Equal(got, want) || total != wantTotal {
					t.Fatalf("filter[status]=%s: %v (total %d); the expression selects %v (total %d)", status, got, total, want, wantTotal)
				}
				for _, id := range got {
					if read[id] != status {
						t.Errorf("invoice %d reads %s, listed as %s", id, read[id], status)
					}
				}
				if n := countRead(read, status); due.from.IsZero() && len(got) != n {
					t.Errorf("filter[status]=%s: %d invoices, %d read so", status, len(got), n)
				}
			})
		}
	}
	// the boundaries, as the expression reads them: due today is not late
	if countRead(read, "overdue") != 2 || countRead(read, "unpaid") != 4 {
		t.Errorf("%d overdue and %d unpaid: want the two open ones due yesterday overdue, the four due today and tomorrow unpaid",
			countRead(read, "overdue"), countRead(read, "unpaid"))
	}
}

func countRead(read map[int64]string, status string) int {
	n := 0
	for _, s := range read {
		if s == status {
			n++
		}
	}
	return n
}

// TestPaidInvoiceIsNeverStoredOpen: the database refuses an invoice
// stored paid and unpaid or overdue (invoices_paid_status_check), which
// the rewritten status filter relies on; a paid invoice may be stored with
// any other status.
func TestPaidInvoiceIsNeverStoredOpen(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Coerente")
	due := finance.MustDate("2026-03-10")
	for _, status := range storage.InvoiceStatuses {
		_, err := pool.Exec(context.Background(), `INSERT INTO invoices (company_id, type, payer_id, business_id, account_id,
				billing_method, status, paid, paid_at, description, total, date, due_date)
			VALUES ($1, 'single', $2, $3, $4, 'ticket', $5, true, $6, 'Aluguel', 1500, $6, $6)`,
			f.company, f.payer, f.business, f.account, status, due)
		var pgErr *pgconn.PgError
		refused := errors.As(err, &pgErr) && pgErr.Code == "23514" && pgErr.ConstraintName == "invoices_paid_status_check"
		if open := status == "unpaid" || status == "overdue"; refused != open || (!open && err != nil) {
			t.Errorf("paid and stored %s: %v", status, err)
		}
	}
}

// TestPaidStatusMigrationStoresPaid: migration 0024 stores paid the paid
// invoices written unpaid or overdue before it, with a history row each,
// and leaves every other invoice as it is.
func TestPaidStatusMigrationStoresPaid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Antiga")
	migration, err := os.ReadFile("migrations/0024_invoice_paid_status.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ALTER TABLE invoices DROP CONSTRAINT invoices_paid_status_check;
			DROP STATISTICS invoices_paid_status; DROP FUNCTION company_today`); err != nil {
		t.Fatal(err)
	}
	due := finance.MustDate("2026-03-10")
	ids := map[string]int64{}
	for _, c := range []struct {
		name, status string
		paid         bool
	}{{"paid unpaid", "unpaid", true}, {"paid overdue", "overdue", true}, {"paid", "paid", true},
		{"open overdue", "overdue", false}, {"refunded", "refunded", true}} {
		ids[c.name] = f.invoice(t, 0, finance.Invoice{Status: finance.InvoiceStatus(c.status), Paid: c.paid, DueDate: due})
	}
	if _, err := pool.Exec(ctx, string(migration)); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"paid unpaid": "paid", "paid overdue": "paid", "paid": "paid",
		"open overdue": "overdue", "refunded": "refunded"} {
		var status string
		var history []string
		err := pool.QueryRow(ctx, `SELECT status, ARRAY(SELECT actor || ' ' || origin || ' ' || changes::text FROM invoice_history h
			WHERE h.company_id = i.company_id AND h.invoice_id = i.id) FROM invoices i WHERE company_id = $1 AND id = $2`,
			f.company, ids[name]).Scan(&status, &history)
		if err != nil {
			t.Fatal(err)
		}
		var wantHistory []string
		if name == "paid unpaid" || name == "paid overdue" {
			wantHistory = []string{fmt.Sprintf(`system update [{"to": "paid", "from": "%s", "field": "status"}]`, name[5:])}
		}
		if status != want || fmt.Sprint(history) != fmt.Sprint(wantHistory) {
			t.Errorf("%s: stored %s with history %q; want %s with %q", name, status, history, want, wantHistory)
		}
	}
	var err2 *pgconn.PgError
	_, err = pool.Exec(ctx, `UPDATE invoices SET status = 'unpaid' WHERE company_id = $1 AND id = $2`, f.company, ids["paid"])
	if !errors.As(err, &err2) || err2.ConstraintName != "invoices_paid_status_check" {
		t.Errorf("after the migration a paid invoice set unpaid: %v, want the constraint's refusal", err)
	}
}

// planTracer keeps the last statement a pool ran, with its arguments.
type planTracer struct {
	sql  string
	args []any
}

func (p *planTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	p.sql, p.args = d.SQL, d.Args
	return ctx
}

func (p *planTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// plan is what a test reads of a statement's plan: the indexes it reads,
// whether it reads the invoices whole (a sequential scan), and whether it
// sorts.
type plan struct {
	indexes        []string
	seqScan, sorts bool
}

// explain runs EXPLAIN on a statement.
func explain(t *testing.T, pool *pgxpool.Pool, sql string, args []any) plan {
	t.Helper()
	var raw []byte
	if err := pool.QueryRow(context.Background(), "EXPLAIN (FORMAT JSON) "+sql, args...).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal(raw, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("plan %s: %v", raw, err)
	}
	var p plan
	var walk func(n planNode)
	walk = func(n planNode) {
		if n.IndexName != "" {
			p.indexes = append(p.indexes, n.IndexName)
		}
		p.seqScan = p.seqScan || (n.NodeType == "Seq Scan" && n.Relation == "invoices")
		p.sorts = p.sorts || n.NodeType == "Sort" || n.NodeType == "Incremental Sort"
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	return p
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	IndexName string     `json:"Index Name"`
	Plans     []planNode `json:"Plans"`
}

// TestInvoiceStatusFilterReadsTheOpenIndex: a month's invoices asked by
// status overdue or unpaid, sorted by due date (the invoice list of
// docs/performance.md), are read through a partial index of the open
// invoices; this month's open ones in due-date order, so that the page
// ends the scan (no sort of the month's open invoices); the expression
// alone can use neither. 40,000 invoices: a past month's 20,000, all paid,
// and this month's, three in five paid.
func TestInvoiceStatusFilterReadsTheOpenIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setup := storagetest.NewDB(t)
	f := newOverdueFixture(t, setup, "Imobiliária Grande")
	today, err := storage.CompanyToday(ctx, setup, f.company)
	if err != nil {
		t.Fatal(err)
	}
	past, current := today.AddDays(-60), today.AddDays(-10)
	f.exec(t, `INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, status, paid,
			paid_at, description, total, date, due_date)
		SELECT $1, 'single', $2, $3, $4, 'ticket', CASE WHEN m.paid THEN 'paid' ELSE 'unpaid' END, m.paid,
			CASE WHEN m.paid THEN m.first END, 'Aluguel ' || g, 1500, m.first, m.first + g % 30
		FROM generate_series(1, 20000) g, LATERAL (VALUES ($5::date, true), ($6::date, g % 5 < 3)) AS m(first, paid)`,
		f.payer, f.business, f.account, past, current)
	if _, err := setup.Exec(ctx, `ANALYZE invoices`); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	tracer := &planTracer{}
	cfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	openIndexes := []string{"invoices_open_due_date", "invoices_open_status"}
	for _, c := range []struct {
		status   string
		from     finance.Date
		inOrder  bool // read in due-date order: no sort
		nonEmpty bool
	}{
		{"overdue", past, false, false},
		{"unpaid", current, true, true},
		{"overdue", current, true, true},
	} {
		q := statusQuery(c.status, c.from, c.from.AddDays(29))
		q.Fields, q.PerPage, q.WithTotal = nil, 25, false
		for _, reg := range []struct {
			name     string
			registry *storage.Registry
			indexed  bool
		}{{"the filter", storage.DefaultRegistry(), true}, {"the expression", expressionRegistry(t), false}} {
			store := storage.NewStore(pool, reg.registry)
			page, err := store.List(ctx, reg.registry.MustResource(storage.Invoices), storage.Company(f.company), q)
			if err != nil || (len(page.Records) > 0) != c.nonEmpty {
				t.Fatalf("%s %s from %s: %d records, %v", reg.name, c.status, c.from, len(page.Records), err)
			}
			plan := explain(t, pool, tracer.sql, tracer.args)
			usesOpen := slices.ContainsFunc(plan.indexes, func(ix string) bool { return slices.Contains(openIndexes, ix) })
			if usesOpen != reg.indexed || (reg.indexed && (plan.seqScan || c.inOrder && plan.sorts)) {
				t.Errorf("%s %s from %s: the plan reads indexes %v (sequential scan %v, sort %v); want an index of the open invoices: %v, in order: %v",
					reg.name, c.status, c.from, plan.indexes, plan.seqScan, plan.sorts, reg.indexed, c.inOrder)
			}
			t.Logf("%s %s from %s: indexes %v, sequential scan %v, sort %v", reg.name, c.status, c.from, plan.indexes, plan.seqScan, plan.sorts)
		}
	}
}

// TestTodayBoundPlannedWithItsValues: a list whose filter bounds a date
// by company_today (TodayBound) is planned with its values every time,
// never cached by name, where a generic plan made for no values would
// sort every open invoice; a list without such a bound is cached by name
// as before (the check below sees named statements).
func TestTodayBoundPlannedWithItsValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setup := storagetest.NewDB(t)
	f := newOverdueFixture(t, setup, "Imobiliária Planos")
	today, err := storage.CompanyToday(ctx, setup, f.company)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1 // the check reads the statements of the connection the lists ran on
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := storage.NewStore(pool, storage.DefaultRegistry())
	named := func(like string) int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE $1`, like).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, status := range []string{"unpaid", "overdue", "paid"} {
		for range 8 {
			listIDs(t, store, f.company, statusQuery(status, today.AddDays(-15), today.AddDays(15)))
		}
	}
	if n := named("%company_today%"); n != 0 {
		t.Errorf("%d statements bounded by company_today are cached by name: they get a generic plan after five runs", n)
	}
	if n := named(`%FROM "invoices"%`); n == 0 {
		t.Error("the list of paid invoices is not cached by name either: the check sees no named statement")
	}
}
