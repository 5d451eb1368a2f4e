package storage_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// overdueFixture is a company with what an invoice needs (a payer, a
// business and its account), for the overdue statements' tests.
type overdueFixture struct {
	pool                              *pgxpool.Pool
	company, payer, business, account int64
}

func newOverdueFixture(t testing.TB, pool *pgxpool.Pool, name string) *overdueFixture {
	t.Helper()
	ctx := context.Background()
	f := &overdueFixture{pool: pool}
	var err error
	if f.company, _, err = storage.EnsureCompany(ctx, pool, name); err != nil {
		t.Fatal(err)
	}
	f.business = f.id(t, `INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte Imóveis') RETURNING id`)
	f.account = f.id(t, `INSERT INTO accounts (company_id, business_id) VALUES ($1, $2) RETURNING id`, f.business)
	f.payer = f.id(t, `INSERT INTO persons (company_id, name) VALUES ($1, 'Ana Inquilina') RETURNING id`)
	return f
}

// id runs an insert of the company's (its $1) and returns the id.
func (f *overdueFixture) id(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := f.pool.QueryRow(context.Background(), sql, append([]any{f.company}, args...)...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func (f *overdueFixture) contract(t *testing.T) int64 {
	t.Helper()
	return f.id(t, `INSERT INTO contracts (company_id, type, tenant_id) VALUES ($1, 'rent', $2) RETURNING id`, f.payer)
}

// invoice inserts an invoice of contract (0: none) as inv says: its
// status, paid and due date.
func (f *overdueFixture) invoice(t *testing.T, contract int64, inv finance.Invoice) int64 {
	t.Helper()
	status := string(inv.Status)
	if status == "" {
		status = "unpaid"
	}
	var contractID, paidAt any
	if contract != 0 {
		contractID = contract
	}
	if inv.Paid {
		paidAt = inv.DueDate
	}
	return f.id(t, `INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
			status, paid, paid_at, description, total, date, due_date)
		VALUES ($1, 'contract', $2, $3, $4, $5, 'ticket', $6, $7, $8, 'Aluguel', 1500, $9, $9) RETURNING id`,
		f.payer, contractID, f.business, f.account, status, inv.Paid, paidAt, inv.DueDate)
}

// all is the widest id range.
const allFrom, allTo = int64(1), int64(math.MaxInt64)

// pass runs one chunk of a pass (update is storage.UpdateInvoiceStatuses
// or storage.UpdatePaymentStatuses) of job on asOf over the ids from..to,
// in its own transaction.
func (f *overdueFixture) pass(t *testing.T, update func(context.Context, pgx.Tx, storage.OverdueChunk) (storage.OverdueChunkResult, error),
	job int64, asOf finance.Date, from, to int64, first, last bool) storage.OverdueChunkResult {
	t.Helper()
	var res storage.OverdueChunkResult
	err := pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error {
		var err error
		res, err = update(context.Background(), tx, storage.OverdueChunk{CompanyID: f.company, JobID: job,
			From: from, To: to, AsOf: asOf, First: first, Last: last})
		return err
	})
	if err != nil {
		t.Fatalf("job %d on %s, ids %d-%d: %v", job, asOf, from, to, err)
	}
	return res
}

// invoices runs the invoice pass of the company on asOf as a run of job
// with one chunk, every invoice id.
func (f *overdueFixture) invoices(t *testing.T, job int64, asOf finance.Date) storage.OverdueChunkResult {
	t.Helper()
	return f.pass(t, storage.UpdateInvoiceStatuses, job, asOf, allFrom, allTo, true, true)
}

// payments runs the contract pass of the company on asOf as a run of job
// with one chunk, every contract id.
func (f *overdueFixture) payments(t *testing.T, job int64, asOf finance.Date) storage.OverdueChunkResult {
	t.Helper()
	return f.pass(t, storage.UpdatePaymentStatuses, job, asOf, allFrom, allTo, true, true)
}

// TestPaymentStatusSQL runs the cases of finance.PaymentStatusAsOf through
// the Go rule and through the SQL of UpdatePaymentStatuses, one contract a
// case: both must give the same answer, each boundary included.
func TestPaymentStatusSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Pontual")
	today := finance.MustDate("2024-06-30")
	// open is an open invoice due days before today (negative: after).
	open := func(days int) finance.Invoice { return finance.Invoice{DueDate: today.AddDays(-days)} }
	with := func(status finance.InvoiceStatus, days int) finance.Invoice {
		inv := open(days)
		inv.Status = status
		return inv
	}
	paid := finance.Invoice{Status: finance.InvoicePaid, Paid: true, DueDate: today.AddDays(-200)}
	tests := []struct {
		name     string
		invoices []finance.Invoice
		want     finance.PaymentStatus
	}{
		{"no invoice", nil, finance.PaymentNothing},
		{"only canceled", []finance.Invoice{with(finance.InvoiceCanceled, 40), with(finance.InvoiceCanceled, -3)}, finance.PaymentNothing},
		{"all paid", []finance.Invoice{paid, paid}, finance.PaymentOK},
		{"paid late ones do not count", []finance.Invoice{paid, open(-20)}, finance.PaymentOK},
		{"due in 11 days", []finance.Invoice{paid, open(-11)}, finance.PaymentOK},
		{"due in 10 days", []finance.Invoice{open(-10)}, finance.PaymentDue10Days},
		{"due in 6 days", []finance.Invoice{open(-6)}, finance.PaymentDue10Days},
		{"due in 5 days", []finance.Invoice{open(-5)}, finance.PaymentDue5Days},
		{"due today", []finance.Invoice{open(0)}, finance.PaymentDue5Days},
		{"nearest decides", []finance.Invoice{open(-9), open(-2)}, finance.PaymentDue5Days},
		{"1 day late", []finance.Invoice{open(1)}, finance.Payment5Days},
		{"4 days late", []finance.Invoice{open(4)}, finance.Payment5Days},
		{"5 days late", []finance.Invoice{open(5)}, finance.Payment30Days},
		{"30 days late", []finance.Invoice{open(30)}, finance.Payment30Days},
		{"31 days late", []finance.Invoice{open(31)}, finance.PaymentMonth},
		{"90 days late", []finance.Invoice{open(90)}, finance.PaymentMonth},
		{"91 days late", []finance.Invoice{open(91)}, finance.Payment3Months},
		{"stored overdue counts as open", []finance.Invoice{with(finance.InvoiceOverdue, 6)}, finance.Payment30Days},
		{"oldest decides", []finance.Invoice{open(2), open(95), open(-3)}, finance.Payment3Months},
		{"late beats due soon", []finance.Invoice{open(-1), open(1)}, finance.Payment5Days},
		{"canceled late one beside a paid one", []finance.Invoice{with(finance.InvoiceCanceled, 95), paid}, finance.PaymentOK},
		{"refunded and uncollectible are not owed", []finance.Invoice{
			with(finance.InvoiceRefunded, 50), with(finance.InvoiceUncollectible, 50)}, finance.PaymentOK},
		{"renegotiated is not owed", []finance.Invoice{with(finance.InvoiceRenegotiated, 50)}, finance.PaymentOK},
		{"in protest is still owed", []finance.Invoice{with(finance.InvoiceInProtest, 50)}, finance.PaymentMonth},
		{"partially paid is still owed", []finance.Invoice{with(finance.InvoicePartiallyPaid, 3)}, finance.Payment5Days},
	}
	contracts := make([]int64, len(tests))
	for i, tt := range tests {
		contracts[i] = f.contract(t)
		for _, inv := range tt.invoices {
			f.invoice(t, contracts[i], inv)
		}
	}
	// The inserts brought each contract to its status on the real today
	// (migration 0066); the pass, on 2024-06-30, writes every contract
	// whose status differs on that date, and dates all of them.
	if _, err := pool.Exec(ctx, `UPDATE contracts SET payment_status_date = NULL WHERE company_id = $1`, f.company); err != nil {
		t.Fatal(err)
	}
	if res := f.payments(t, 1, today); !res.All || res.Visited != int64(len(tests)) || res.Updated != int64(len(tests)) {
		t.Fatalf("first pass: %+v, want every contract recalculated and written", res)
	}
	for i, tt := range tests {
		var got string
		var dated finance.Date
		if err := pool.QueryRow(ctx, `SELECT payment_status, payment_status_date FROM contracts WHERE company_id = $1 AND id = $2`,
			f.company, contracts[i]).Scan(&got, &dated); err != nil {
			t.Fatal(err)
		}
		goRule := finance.PaymentStatusAsOf(tt.invoices, today)
		if finance.PaymentStatus(got) != tt.want || goRule != tt.want {
			t.Errorf("%s: SQL %s, Go %s, want %s", tt.name, got, goRule, tt.want)
		}
		if dated != today {
			t.Errorf("%s: payment_status_date %s, want %s", tt.name, dated, today)
		}
	}
	if res := f.payments(t, 2, today); res.All || res.Visited != 0 || res.Updated != 0 {
		t.Errorf("second run on the same date: %+v, want only the changed contracts visited and none written", res)
	}
}

// TestPaymentStatusDateMovesWithTheStatus: the date is the day the
// status was set, kept while the status holds.
func TestPaymentStatusDateMovesWithTheStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Datada")
	c := f.contract(t)
	f.invoice(t, c, finance.Invoice{DueDate: finance.MustDate("2024-06-10")})
	read := func() (string, string) {
		var s string
		var d finance.Date
		if err := pool.QueryRow(ctx, `SELECT payment_status, payment_status_date FROM contracts WHERE company_id = $1 AND id = $2`,
			f.company, c).Scan(&s, &d); err != nil {
			t.Fatal(err)
		}
		return s, d.String()
	}
	for _, step := range []struct{ day, status, dated string }{
		{"2024-05-30", "ok", "2024-05-30"},
		{"2024-06-01", "due_10_days", "2024-06-01"},
		{"2024-06-02", "due_10_days", "2024-06-01"}, // unchanged: date kept
		{"2024-06-11", "5_days", "2024-06-11"},
	} {
		f.payments(t, 1, finance.MustDate(step.day))
		if s, d := read(); s != step.status || d != step.dated {
			t.Errorf("on %s: %s dated %s, want %s dated %s", step.day, s, d, step.status, step.dated)
		}
	}
}

// TestInvoiceStatusSQL moves invoices between unpaid and overdue as
// finance.InvoiceStatusAsOf does, leaves every other status alone, and
// writes one history row per invoice moved.
func TestInvoiceStatusSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Em Dia")
	today := finance.MustDate("2024-03-06")
	due := func(days int) finance.Date { return today.AddDays(-days) }
	tests := []struct {
		status finance.InvoiceStatus
		paid   bool
		late   int // days past the due date
		want   finance.InvoiceStatus
	}{
		{finance.InvoiceUnpaid, false, -1, finance.InvoiceUnpaid},
		{finance.InvoiceUnpaid, false, 0, finance.InvoiceUnpaid}, // due today: not late
		{finance.InvoiceUnpaid, false, 1, finance.InvoiceOverdue},
		{finance.InvoiceUnpaid, false, 400, finance.InvoiceOverdue},
		{finance.InvoiceOverdue, false, 1, finance.InvoiceOverdue},
		{finance.InvoiceOverdue, false, 0, finance.InvoiceUnpaid}, // due date moved ahead
		{finance.InvoiceOverdue, false, -5, finance.InvoiceUnpaid},
		{finance.InvoicePaid, true, 10, finance.InvoicePaid},
		{finance.InvoiceCanceled, false, 10, finance.InvoiceCanceled},
		{finance.InvoiceRefunded, true, 10, finance.InvoiceRefunded},
		{finance.InvoiceUncollectible, false, 10, finance.InvoiceUncollectible},
		{finance.InvoicePartiallyPaid, false, 10, finance.InvoicePartiallyPaid},
		{finance.InvoiceInProtest, false, 10, finance.InvoiceInProtest},
	}
	ids := make([]int64, len(tests))
	moved := 0
	for i, tt := range tests {
		inv := finance.Invoice{Status: tt.status, Paid: tt.paid, DueDate: due(tt.late)}
		if goRule := finance.InvoiceStatusAsOf(inv, today); goRule != tt.want {
			t.Fatalf("case %d: the Go rule says %s, the table %s", i, goRule, tt.want)
		}
		ids[i] = f.invoice(t, 0, inv)
		if tt.want != tt.status {
			moved++
		}
	}
	const jobID = 77
	if res := f.invoices(t, jobID, today); !res.All || res.Updated != int64(moved) {
		t.Fatalf("first pass: %+v, want every invoice that moves taken, %d moved", res, moved)
	}
	for i, tt := range tests {
		var got string
		var history []string
		if err := pool.QueryRow(ctx, `SELECT status, ARRAY(SELECT actor || ' ' || actor_id || ' ' || origin || ' ' || changes::text
				FROM invoice_history h WHERE h.company_id = i.company_id AND h.invoice_id = i.id)
			FROM invoices i WHERE company_id = $1 AND id = $2`, f.company, ids[i]).Scan(&got, &history); err != nil {
			t.Fatal(err)
		}
		if finance.InvoiceStatus(got) != tt.want {
			t.Errorf("%s paid %v %d days late: %s, want %s", tt.status, tt.paid, tt.late, got, tt.want)
		}
		var wantHistory []string
		if tt.want != tt.status {
			wantHistory = []string{fmt.Sprintf(`job %d overdue [{"to": "%s", "from": "%s", "field": "status"}]`, jobID, tt.want, tt.status)}
		}
		if fmt.Sprint(history) != fmt.Sprint(wantHistory) {
			t.Errorf("%s %d days late: history %q, want %q", tt.status, tt.late, history, wantHistory)
		}
	}
	// The two moved back to unpaid are marked (only a move to overdue is
	// known to be the run's own): the next run looks at them and moves
	// nothing, the one after at nothing.
	if res := f.invoices(t, jobID+1, today); res.All || res.Visited != 2 || res.Updated != 0 {
		t.Errorf("second run on the same date: %+v, want the 2 moved back looked at, none moved", res)
	}
	if res := f.invoices(t, jobID+2, today); res.All || res.Visited != 0 || res.Updated != 0 {
		t.Errorf("third run on the same date: %+v, want nothing looked at nor moved", res)
	}
}

// TestInvoiceStatusChunks: a first run in two chunks moves in each the
// invoices of its range that move, of the company only; the next runs on
// the same date look at the invoice moved back to unpaid (marked: only a
// move to overdue is known to be a run's), then at nothing.
func TestInvoiceStatusChunks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Em Lotes")
	other := newOverdueFixture(t, pool, "Imobiliária Vizinha")
	today := finance.MustDate("2024-03-06")
	var moving []int64
	for i := range 8 {
		other.invoice(t, 0, finance.Invoice{DueDate: today.AddDays(-3)})
		moving = append(moving, f.invoice(t, 0, finance.Invoice{DueDate: today.AddDays(-1 - i)}))             // unpaid, late
		f.invoice(t, 0, finance.Invoice{DueDate: today.AddDays(i)})                                           // unpaid, not late
		f.invoice(t, 0, finance.Invoice{Status: finance.InvoiceOverdue, DueDate: today.AddDays(-1 - i)})      // overdue, late
		f.invoice(t, 0, finance.Invoice{Status: finance.InvoicePaid, Paid: true, DueDate: today.AddDays(-i)}) // paid
	}
	moving = append(moving, f.invoice(t, 0, finance.Invoice{Status: finance.InvoiceOverdue, DueDate: today})) // due date moved ahead
	split := moving[4] - 1
	if res := f.pass(t, storage.UpdateInvoiceStatuses, 1, today, allFrom, split, true, false); !res.All || res.Updated != 4 {
		t.Errorf("first range: %+v, want every invoice taken, 4 moved", res)
	}
	if res := f.pass(t, storage.UpdateInvoiceStatuses, 1, today, split+1, allTo, false, true); !res.All || res.Updated != 5 {
		t.Errorf("second range: %+v, want every invoice taken, 5 moved", res)
	}
	var late string
	if err := pool.QueryRow(ctx, `SELECT string_agg(DISTINCT status, ',') FROM invoices WHERE company_id = $1`, other.company).Scan(&late); err != nil || late != "unpaid" {
		t.Errorf("the other company's invoices: %s (%v), want unpaid as they were", late, err)
	}
	if res := f.invoices(t, 2, today); res.All || res.Visited != 1 || res.Updated != 0 {
		t.Errorf("second run: %+v, want 1 looked at, none moved", res)
	}
	if res := f.invoices(t, 3, today); res.All || res.Visited != 0 || res.Updated != 0 {
		t.Errorf("third run: %+v, want nothing looked at", res)
	}
	f.invoicesRule(t, today)
}

// TestOverdueEventStatusSQL runs the cases of finance.EventStatusAsOf through the
// Go rule and through UpdateEventStatuses.
func TestOverdueEventStatusSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Agenda")
	date := finance.MustDate("2024-02-28")
	tests := []struct {
		status  finance.EventStatus
		today   string
		undated bool
		want    finance.EventStatus
	}{
		{finance.EventScheduled, "2024-02-28", false, finance.EventScheduled},
		{finance.EventScheduled, "2024-02-29", false, finance.EventLate},         // 1 day
		{finance.EventScheduled, "2024-03-04", false, finance.EventLate},         // 5 days
		{finance.EventScheduled, "2024-03-05", false, finance.EventFiveDaysLate}, // 6 days
		{finance.EventLate, "2024-03-29", false, finance.EventFiveDaysLate},      // 30 days
		{finance.EventFiveDaysLate, "2024-03-30", false, finance.EventThirtyDaysLate},
		{finance.EventScheduled, "2024-05-30", false, finance.EventThirtyDaysLate},
		{finance.EventRecurrent, "2024-02-27", false, finance.EventRecurrent},
		{finance.EventLate, "2024-02-20", false, finance.EventScheduled}, // date moved ahead
		{finance.EventConcluded, "2025-01-01", false, finance.EventConcluded},
		{finance.EventCancelled, "2025-01-01", false, finance.EventCancelled},
		{finance.EventScheduled, "2025-01-01", true, finance.EventScheduled},
	}
	for i, tt := range tests {
		eventDate := date
		if tt.undated {
			eventDate = finance.Date{}
		}
		today := finance.MustDate(tt.today)
		if goRule := finance.EventStatusAsOf(tt.status, eventDate, today); goRule != tt.want {
			t.Fatalf("case %d: the Go rule says %s, the table %s", i, goRule, tt.want)
		}
		// noon of the event's day in its own time zone: the day a read shows
		id := f.id(t, `INSERT INTO events (company_id, title, status, time_zone, initial_date)
			VALUES ($1, 'Vistoria', $2, 'America/Sao_Paulo', ($3::date + time '12:00') AT TIME ZONE 'America/Sao_Paulo') RETURNING id`,
			tt.status, eventDate)
		n, err := storage.UpdateEventStatuses(ctx, pool, f.company, id, id, today)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := pool.QueryRow(ctx, `SELECT status FROM events WHERE company_id = $1 AND id = $2`, f.company, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if finance.EventStatus(got) != tt.want || (n == 1) != (tt.want != tt.status) {
			t.Errorf("%s on %s: %s (%d written), want %s", tt.status, tt.today, got, n, tt.want)
		}
		if n, err := storage.UpdateEventStatuses(ctx, pool, f.company, id, id, today); err != nil || n != 0 {
			t.Errorf("%s on %s: second run wrote %d (%v)", tt.status, tt.today, n, err)
		}
	}
}

// TestOverdueStatementsKeepToTheCompany: every statement of a company
// leaves another company's rows alone, whatever the id range.
func TestOverdueStatementsKeepToTheCompany(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	a := newOverdueFixture(t, pool, "Imobiliária A")
	fb := newOverdueFixture(t, pool, "Imobiliária B")
	bCompany := fb.company
	today := finance.MustDate("2024-06-30")
	bContract := fb.contract(t)
	bInvoice := fb.invoice(t, bContract, finance.Invoice{DueDate: today.AddDays(-40)})
	bEvent := fb.id(t, `INSERT INTO events (company_id, title, initial_date) VALUES ($1, 'Visita', $2) RETURNING id`, today.AddDays(-40))
	a.invoice(t, a.contract(t), finance.Invoice{DueDate: today.AddDays(-40)})
	a.id(t, `INSERT INTO events (company_id, title, initial_date) VALUES ($1, 'Visita', $2) RETURNING id`, today.AddDays(-40))
	// b reads company B's rows: the passes of A must leave them as they were.
	b := func() (inv, pay, ev string, history int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT (SELECT status FROM invoices WHERE company_id = $1 AND id = $2),
				(SELECT payment_status || coalesce(payment_status_date::text, '') FROM contracts WHERE company_id = $1 AND id = $3),
				(SELECT status FROM events WHERE company_id = $1 AND id = $4),
				(SELECT count(*) FROM invoice_history WHERE company_id = $1)`,
			bCompany, bInvoice, bContract, bEvent).Scan(&inv, &pay, &ev, &history); err != nil {
			t.Fatal(err)
		}
		return inv, pay, ev, history
	}
	inv0, pay0, ev0, history0 := b()
	counts := map[string]int64{}
	var err error
	counts["invoices"] = a.invoices(t, 1, today).Updated
	counts["contracts"] = a.payments(t, 1, today).Updated
	if counts["events"], err = storage.UpdateEventStatuses(ctx, pool, a.company, allFrom, allTo, today); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(counts) != "map[contracts:1 events:1 invoices:1]" {
		t.Errorf("company A: %v, want one of each", counts)
	}
	if inv, pay, ev, history := b(); inv != inv0 || pay != pay0 || ev != ev0 || history != history0 || inv != "unpaid" || history != 0 {
		t.Errorf("company B touched: invoice %s, contract %s, event %s, %d history rows; before: %s, %s, %s, %d",
			inv, pay, ev, history, inv0, pay0, ev0, history0)
	}
}

// TestCompanyIDSpan: the span of one company's ids, zero when none.
func TestCompanyIDSpan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	a := newOverdueFixture(t, pool, "Imobiliária A")
	b := newOverdueFixture(t, pool, "Imobiliária B")
	first := a.contract(t)
	b.contract(t)
	last := a.contract(t)
	if s, err := storage.CompanyIDSpan(ctx, pool, "contracts", a.company); err != nil || s != (storage.IDSpan{Min: first, Max: last}) {
		t.Errorf("contracts of A: %+v (%v), want %d..%d", s, err, first, last)
	}
	if s, err := storage.CompanyIDSpan(ctx, pool, "invoices", a.company); err != nil || !s.Empty() {
		t.Errorf("invoices of A: %+v (%v), want empty", s, err)
	}
	if _, err := storage.CompanyIDSpan(ctx, pool, "persons", a.company); err == nil {
		t.Error("a table outside the recalculation was read")
	}
}

// TestOverduePlanFacts: the one statement of a run's plan reads what
// OverdueWindows and CompanyIDSpan read, for each table and pass, of the
// company alone: before its first run (no window) and after one.
func TestOverduePlanFacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	a := newOverdueFixture(t, pool, "Imobiliária A")
	b := newOverdueFixture(t, pool, "Imobiliária B")
	a.contract(t)
	b.contract(t)
	a.contract(t)
	a.invoice(t, 0, finance.Invoice{DueDate: finance.MustDate("2024-03-01")})
	b.invoice(t, 0, finance.Invoice{DueDate: finance.MustDate("2024-03-01")})
	check := func(when string) {
		t.Helper()
		windows, spans, err := storage.OverduePlanFacts(ctx, pool, a.company)
		if err != nil {
			t.Fatal(err)
		}
		wantWindows, err := storage.OverdueWindows(ctx, pool, a.company)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(windows, wantWindows) {
			t.Errorf("%s: windows %+v, want %+v", when, windows, wantWindows)
		}
		if len(spans) != len(storage.OverdueTables) {
			t.Errorf("%s: spans of %d tables, want %d", when, len(spans), len(storage.OverdueTables))
		}
		for _, table := range storage.OverdueTables {
			want, err := storage.CompanyIDSpan(ctx, pool, table, a.company)
			if err != nil {
				t.Fatal(err)
			}
			if spans[table] != want {
				t.Errorf("%s: span of %s %+v, want %+v", when, table, spans[table], want)
			}
		}
	}
	check("before the first run")
	a.invoices(t, 1, finance.MustDate("2024-03-06"))
	a.payments(t, 1, finance.MustDate("2024-03-06"))
	check("after a run")
	if w, _, _ := storage.OverduePlanFacts(ctx, pool, a.company); !w[storage.PassInvoices].Known() || !w[storage.PassContracts].Known() {
		t.Errorf("after a run: windows %+v, want both known", w)
	}
}

// TestPaymentStatusSteps: the steps the contract pass looks for are the
// days on which the Go rule's status changes, and its open statuses are
// the ones the Go rule counts as owed.
func TestPaymentStatusSteps(t *testing.T) {
	t.Parallel()
	today := finance.MustDate("2024-06-30")
	status := func(late int) finance.PaymentStatus {
		return finance.PaymentStatusAsOf([]finance.Invoice{{DueDate: today.AddDays(-late)}}, today)
	}
	var steps []int
	for late := -400; late <= 400; late++ {
		if status(late) != status(late-1) {
			steps = append(steps, late)
		}
	}
	if fmt.Sprint(steps) != fmt.Sprint(storage.PaymentStatusSteps) {
		t.Errorf("the Go rule changes status %d days late, the pass looks for %v", steps, storage.PaymentStatusSteps)
	}
	var open []string
	for _, s := range storage.InvoiceStatuses {
		late := finance.Invoice{Status: finance.InvoiceStatus(s), DueDate: today.AddDays(-40)}
		if finance.PaymentStatusAsOf([]finance.Invoice{late}, today) == finance.PaymentMonth {
			open = append(open, s)
		}
	}
	slices.Sort(open)
	want := slices.Sorted(slices.Values(storage.OpenInvoiceStatuses))
	if fmt.Sprint(open) != fmt.Sprint(want) {
		t.Errorf("the Go rule owes invoices %v, the pass reads %v", open, want)
	}
}

// TestPaymentStepDates: a contract whose oldest open invoice gives it
// another status on two days from low to high has that invoice due on
// one of the step dates, for every due date around and every two days;
// and there are none when low is high.
func TestPaymentStepDates(t *testing.T) {
	t.Parallel()
	low := finance.MustDate("2024-06-30")
	status := func(due, day finance.Date) finance.PaymentStatus {
		return finance.PaymentStatusAsOf([]finance.Invoice{{DueDate: due}}, day)
	}
	for width := 0; width <= 4; width++ {
		high := low.AddDays(width)
		dates := storage.PaymentStepDates(low, high)
		if width == 0 && len(dates) != 0 {
			t.Errorf("from %s to itself: %v, want none", low, dates)
		}
		for due := low.AddDays(-120); due.Before(high.AddDays(30)); due = due.AddDays(1) {
			for a := low; !a.After(high); a = a.AddDays(1) {
				for b := a; !b.After(high); b = b.AddDays(1) {
					if status(due, a) != status(due, b) && !slices.Contains(dates, due) {
						t.Errorf("due %s: %s on %s, %s on %s, but not among the step dates from %s to %s",
							due, status(due, a), a, status(due, b), b, low, high)
					}
				}
			}
		}
	}
}

// followsRules fails unless every invoice and every contract of the
// company holds the Go rule's status on today (invoicesRule, paymentsRule).
func (f *overdueFixture) followsRules(t *testing.T, today finance.Date) {
	t.Helper()
	f.invoicesRule(t, today)
	f.paymentsRule(t, today)
}

// invoicesRule fails unless every invoice of the company holds the Go
// rule's status on today for what is stored, and no invoice mark is left.
func (f *overdueFixture) invoicesRule(t *testing.T, today finance.Date) {
	t.Helper()
	ctx := context.Background()
	rows, err := f.pool.Query(ctx, `SELECT id, status, paid, coalesce(due_date::text, '') FROM invoices WHERE company_id = $1 ORDER BY id`, f.company)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var inv finance.Invoice
		var due string
		if err := rows.Scan(&id, &inv.Status, &inv.Paid, &due); err != nil {
			t.Fatal(err)
		}
		if due != "" {
			inv.DueDate = finance.MustDate(due)
		}
		if want := finance.InvoiceStatusAsOf(inv, today); inv.Status != want {
			t.Errorf("on %s invoice %d (due %s, paid %v): %s, want %s", today, id, due, inv.Paid, inv.Status, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	f.noMarks(t, today, "invoice_status_marks")
}

// noMarks fails unless the company has no row left in table.
func (f *overdueFixture) noMarks(t *testing.T, today finance.Date, table string) {
	t.Helper()
	var marks int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM `+table+` WHERE company_id = $1`, f.company).Scan(&marks); err != nil || marks != 0 {
		t.Errorf("on %s: %d rows left in %s (%v)", today, marks, table, err)
	}
}

// paymentsRule fails unless every contract of the company holds the Go
// rule's status on today for its invoices as stored, dated, and no
// contract mark is left.
func (f *overdueFixture) paymentsRule(t *testing.T, today finance.Date) {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `SELECT c.id, c.payment_status, c.payment_status_date IS NOT NULL,
			coalesce(array_agg(i.status ORDER BY i.id) FILTER (WHERE i.id IS NOT NULL), '{}'),
			coalesce(array_agg(i.paid ORDER BY i.id) FILTER (WHERE i.id IS NOT NULL), '{}'),
			coalesce(array_agg(i.due_date::text ORDER BY i.id) FILTER (WHERE i.id IS NOT NULL), '{}')
		FROM contracts c LEFT JOIN invoices i ON i.company_id = c.company_id AND i.contract_id = c.id
		WHERE c.company_id = $1 GROUP BY c.company_id, c.id ORDER BY c.id`, f.company)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var stored string
		var dated bool
		var statuses, dues []string
		var paid []bool
		if err := rows.Scan(&id, &stored, &dated, &statuses, &paid, &dues); err != nil {
			t.Fatal(err)
		}
		invoices := make([]finance.Invoice, len(statuses))
		for i := range statuses {
			invoices[i] = finance.Invoice{Status: finance.InvoiceStatus(statuses[i]), Paid: paid[i], DueDate: finance.MustDate(dues[i])}
		}
		if want := finance.PaymentStatusAsOf(invoices, today); finance.PaymentStatus(stored) != want || !dated {
			t.Errorf("on %s contract %d (%v %v %v): %s (dated %v), want %s", today, id, statuses, paid, dues, stored, dated, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	f.noMarks(t, today, "contract_payment_marks")
}

// exec runs a statement of the company's ($1) or fails the test.
func (f *overdueFixture) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := f.pool.Exec(context.Background(), sql, append([]any{f.company}, args...)...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestPaymentPassDayByDay runs the invoice and contract passes as the
// nightly run does, day after day for five months, with gaps of days
// without a run, while invoices and contracts are written between runs as
// clients would: after every run every invoice and every contract holds
// the Go rule's status that day, although after the first run each pass
// looks only at the rows whose status can have changed (until a gap of
// more than a month makes the contract pass visit them all).
func TestPaymentPassDayByDay(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Diária")
	start := finance.MustDate("2024-03-01")
	var contracts, invoices []int64
	for i := range 16 {
		c := f.contract(t)
		contracts = append(contracts, c)
		// open invoices due at every distance from start, a month apart
		for k := range 3 {
			invoices = append(invoices, f.invoice(t, c, finance.Invoice{DueDate: start.AddDays(-110 + 13*i + 30*k)}))
		}
	}
	f.invoice(t, f.contract(t), finance.Invoice{Status: finance.InvoicePaid, Paid: true, DueDate: start.AddDays(-3)})
	f.contract(t)
	day := func(n int) finance.Date { return start.AddDays(n) }
	edits := map[int]func(){
		3: func() { // paid, through an update
			f.exec(t, `UPDATE invoices SET paid = true, paid_at = $3, status = 'paid' WHERE company_id = $1 AND id = $2`, invoices[6], day(3))
		},
		10: func() { // due date moved ahead
			f.exec(t, `UPDATE invoices SET due_date = due_date + 40 WHERE company_id = $1 AND id = $2`, invoices[15])
		},
		15: func() {
			f.exec(t, `UPDATE invoices SET status = 'canceled' WHERE company_id = $1 AND id = $2`, invoices[21])
		},
		20: func() { f.invoice(t, contracts[1], finance.Invoice{DueDate: day(23)}) },
		25: func() { f.exec(t, `DELETE FROM invoices WHERE company_id = $1 AND id = $2`, invoices[27]) },
		30: func() { // moved to another contract
			f.exec(t, `UPDATE invoices SET contract_id = $3 WHERE company_id = $1 AND id = $2`, invoices[9], contracts[12])
		},
		35: func() { f.invoice(t, f.contract(t), finance.Invoice{DueDate: day(43)}) },
		40: func() { f.contract(t) },
		45: func() { // the payment undone
			f.exec(t, `UPDATE invoices SET paid = false, paid_at = NULL, status = 'unpaid' WHERE company_id = $1 AND id = $2`, invoices[6])
		},
		50: func() { // a late invoice set back to unpaid by a client
			f.exec(t, `UPDATE invoices SET status = 'unpaid' WHERE company_id = $1 AND id = $2`, invoices[0])
		},
		55: func() { f.invoice(t, 0, finance.Invoice{DueDate: day(40)}) }, // added late, without a contract
		90: func() {
			f.exec(t, `UPDATE invoices SET status = 'partially_paid' WHERE company_id = $1 AND id = $2`, invoices[40])
			f.exec(t, `UPDATE invoices SET status = 'in_protest' WHERE company_id = $1 AND id = $2`, invoices[3])
			f.exec(t, `UPDATE invoices SET status = 'uncollectible' WHERE company_id = $1 AND id = $2`, invoices[46])
		},
		95: func() {
			f.exec(t, `UPDATE invoices SET status = 'unpaid' WHERE company_id = $1 AND id = $2`, invoices[3])
		},
	}
	runs := []int{}
	for n := 0; n <= 120; n++ {
		if n < 60 || n >= 80 { // no run for 20 days
			runs = append(runs, n)
		}
	}
	runs = append(runs, 160) // nor for 40
	for _, n := range runs {
		if edit, ok := edits[n]; ok {
			edit()
		}
		today := day(n)
		if res := f.invoices(t, int64(n+1), today); res.All != (n == 0) {
			t.Errorf("on day %d: every invoice that moves taken %v, want %v", n, res.All, n == 0)
		}
		if res := f.payments(t, int64(n+1), today); res.All != (n == 0 || n == 160) {
			t.Errorf("on day %d: every contract visited %v, want %v", n, res.All, n == 0 || n == 160)
		}
		f.followsRules(t, today)
	}
}

// paymentState reads the company's overdue_state of the contracts.
func (f *overdueFixture) paymentState(t *testing.T) string {
	t.Helper()
	var s string
	err := f.pool.QueryRow(context.Background(), `SELECT concat_ws(' ', coalesce(as_of_low::text, '-'), coalesce(as_of_high::text, '-'),
			'last', coalesce(last_job::text, '-'), 'sweep', coalesce(sweep_job::text, '-'))
		FROM overdue_state WHERE company_id = $1 AND pass = 'contracts'`, f.company).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPaymentStateAcrossRuns: the dates the stored statuses hold for
// narrow to a run's date only when its chunks followed one another, with
// no other run's chunk between them; chunks of two runs interleaved leave
// both dates, and the next run sets right the contracts that the earlier
// date left behind.
func TestPaymentStateAcrossRuns(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Concorrida")
	d1, d2 := finance.MustDate("2024-06-01"), finance.MustDate("2024-06-11")
	// two ranges of contracts, each with an invoice due in 3 days on d1:
	// due_5_days on d1, 30_days on d2
	var split int64
	for i := range 4 {
		c := f.contract(t)
		f.invoice(t, c, finance.Invoice{DueDate: d1.AddDays(3)})
		if i == 1 {
			split = c
		}
	}
	steps := []struct {
		job         int64
		asOf        finance.Date
		from, to    int64
		first, last bool
		want        string
	}{
		{1, d1, allFrom, split, true, false, "- - last 1 sweep 1"},                     // run 1 begins, dates not known
		{2, d2, allFrom, split, true, false, "- - last 2 sweep 2"},                     // run 2 begins
		{2, d2, split + 1, allTo, false, true, "2024-06-11 2024-06-11 last 2 sweep 2"}, // and sweeps every contract
		{1, d1, split + 1, allTo, false, true, "2024-06-01 2024-06-11 last 1 sweep -"}, // run 1 ends after: both dates held
	}
	for i, s := range steps {
		f.pass(t, storage.UpdatePaymentStatuses, s.job, s.asOf, s.from, s.to, s.first, s.last)
		if got := f.paymentState(t); got != s.want {
			t.Errorf("step %d: state %q, want %q", i, got, s.want)
		}
	}
	// the second range holds d1's status, the first d2's: a run on d2
	// finds the second range's contracts among those due on a step date
	if res := f.payments(t, 3, d2); res.All || res.Updated != 2 {
		t.Errorf("run 3: %+v, want the two contracts of the second range written, not every contract visited", res)
	}
	f.paymentsRule(t, d2)
	if got := f.paymentState(t); got != "2024-06-11 2024-06-11 last 3 sweep 3" {
		t.Errorf("after run 3: state %q", got)
	}
	// a run resumed after another run's chunk does not narrow: the first
	// range holds d1's status (run 5), the second d2's (run 4)
	f.pass(t, storage.UpdatePaymentStatuses, 4, d2, allFrom, split, true, false)
	f.pass(t, storage.UpdatePaymentStatuses, 5, d1, allFrom, allTo, true, true)
	f.pass(t, storage.UpdatePaymentStatuses, 4, d2, split+1, allTo, false, true)
	if got := f.paymentState(t); got != "2024-06-01 2024-06-11 last 4 sweep -" {
		t.Errorf("after runs 4 and 5: state %q", got)
	}
	if res := f.payments(t, 6, d2); res.All || res.Updated != 2 {
		t.Errorf("run 6: %+v, want the two contracts of the first range written", res)
	}
	f.paymentsRule(t, d2)
}

// TestOverdueMarks: the triggers mark a contract when what its payment
// status is computed from changes, an invoice when it may no longer hold
// the status the last run left, and only then.
func TestOverdueMarks(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Marcada")
	c1, c2 := f.contract(t), f.contract(t)
	var inv, loose, c3 int64
	set := func(sql string, args ...any) func() {
		return func() {
			f.exec(t, `UPDATE invoices SET `+sql+` WHERE company_id = $1 AND id = $2`, append([]any{inv}, args...)...)
		}
	}
	steps := []struct {
		name                string
		do                  func()
		contracts, invoices func() []int64
	}{
		{"invoice added", func() { inv = f.invoice(t, c1, finance.Invoice{DueDate: finance.MustDate("2024-06-10")}) },
			func() []int64 { return []int64{c1} }, func() []int64 { return []int64{inv} }},
		{"invoice without a contract", func() { loose = f.invoice(t, 0, finance.Invoice{DueDate: finance.MustDate("2024-06-10")}) },
			nil, func() []int64 { return []int64{loose} }},
		{"moved to overdue", set(`status = 'overdue'`), nil, nil},
		{"back to unpaid by a client", set(`status = 'unpaid'`), nil, func() []int64 { return []int64{inv} }},
		{"total and description", set(`total = 1600, description = 'Aluguel reajustado'`), nil, nil},
		{"due date", set(`due_date = '2024-06-15'`), func() []int64 { return []int64{c1} }, func() []int64 { return []int64{inv} }},
		{"in protest", set(`status = 'in_protest'`), nil, nil},
		{"paid", set(`paid = true, paid_at = '2024-06-20', status = 'paid'`), func() []int64 { return []int64{c1} }, nil},
		{"unpaid again", set(`paid = false, paid_at = NULL, status = 'unpaid'`),
			func() []int64 { return []int64{c1} }, func() []int64 { return []int64{inv} }},
		{"canceled", set(`status = 'canceled'`), func() []int64 { return []int64{c1} }, nil},
		{"to another contract", set(`contract_id = $3`, c2), func() []int64 { return []int64{c1, c2} }, nil},
		{"given a contract", func() { f.exec(t, `UPDATE invoices SET contract_id = $3 WHERE company_id = $1 AND id = $2`, loose, c1) },
			func() []int64 { return []int64{c1} }, nil},
		{"deleted", func() { f.exec(t, `DELETE FROM invoices WHERE company_id = $1 AND id = $2`, inv) }, func() []int64 { return []int64{c2} }, nil},
		{"new contract", func() { c3 = f.contract(t) }, func() []int64 { return []int64{c3} }, nil},
	}
	marks := func(table, column string) []int64 {
		var got []int64
		if err := pool.QueryRow(context.Background(), `SELECT coalesce(array_agg(`+column+` ORDER BY `+column+`), '{}')
			FROM `+table+` WHERE company_id = $1`, f.company).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := func(ids func() []int64) []int64 {
		if ids == nil {
			return []int64{}
		}
		return ids()
	}
	for _, s := range steps {
		f.exec(t, `DELETE FROM contract_payment_marks WHERE company_id = $1`)
		f.exec(t, `DELETE FROM invoice_status_marks WHERE company_id = $1`)
		s.do()
		if got := marks("contract_payment_marks", "contract_id"); fmt.Sprint(got) != fmt.Sprint(want(s.contracts)) {
			t.Errorf("%s: contracts marked %v, want %v", s.name, got, want(s.contracts))
		}
		if got := marks("invoice_status_marks", "invoice_id"); fmt.Sprint(got) != fmt.Sprint(want(s.invoices)) {
			t.Errorf("%s: invoices marked %v, want %v", s.name, got, want(s.invoices))
		}
	}
}
