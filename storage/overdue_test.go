package storage_test

import (
	"context"
	"fmt"
	"math"
	"testing"

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

func newOverdueFixture(t *testing.T, pool *pgxpool.Pool, name string) *overdueFixture {
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
func (f *overdueFixture) id(t *testing.T, sql string, args ...any) int64 {
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
	if _, err := storage.UpdatePaymentStatuses(ctx, pool, f.company, allFrom, allTo, today); err != nil {
		t.Fatal(err)
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
	n, err := storage.UpdatePaymentStatuses(ctx, pool, f.company, allFrom, allTo, today)
	if err != nil || n != 0 {
		t.Errorf("second run on the same date wrote %d contracts (%v), want 0", n, err)
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
		if _, err := storage.UpdatePaymentStatuses(ctx, pool, f.company, allFrom, allTo, finance.MustDate(step.day)); err != nil {
			t.Fatal(err)
		}
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
	n, err := storage.UpdateInvoiceStatuses(ctx, pool, f.company, jobID, allFrom, allTo, today)
	if err != nil || n != int64(moved) {
		t.Fatalf("moved %d (%v), want %d", n, err, moved)
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
	if n, err := storage.UpdateInvoiceStatuses(ctx, pool, f.company, jobID, allFrom, allTo, today); err != nil || n != 0 {
		t.Errorf("second run on the same date moved %d (%v), want 0", n, err)
	}
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
	b := newOverdueFixture(t, pool, "Imobiliária B")
	today := finance.MustDate("2024-06-30")
	bContract := b.contract(t)
	bInvoice := b.invoice(t, bContract, finance.Invoice{DueDate: today.AddDays(-40)})
	bEvent := b.id(t, `INSERT INTO events (company_id, title, initial_date) VALUES ($1, 'Visita', $2) RETURNING id`, today.AddDays(-40))
	a.invoice(t, a.contract(t), finance.Invoice{DueDate: today.AddDays(-40)})
	a.id(t, `INSERT INTO events (company_id, title, initial_date) VALUES ($1, 'Visita', $2) RETURNING id`, today.AddDays(-40))
	counts := map[string]int64{}
	var err error
	if counts["invoices"], err = storage.UpdateInvoiceStatuses(ctx, pool, a.company, 1, allFrom, allTo, today); err != nil {
		t.Fatal(err)
	}
	if counts["contracts"], err = storage.UpdatePaymentStatuses(ctx, pool, a.company, allFrom, allTo, today); err != nil {
		t.Fatal(err)
	}
	if counts["events"], err = storage.UpdateEventStatuses(ctx, pool, a.company, allFrom, allTo, today); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(counts) != "map[contracts:1 events:1 invoices:1]" {
		t.Errorf("company A: %v, want one of each", counts)
	}
	var inv, pay, ev string
	var history int
	if err := pool.QueryRow(ctx, `SELECT (SELECT status FROM invoices WHERE company_id = $1 AND id = $2),
			(SELECT payment_status || coalesce(payment_status_date::text, '') FROM contracts WHERE company_id = $1 AND id = $3),
			(SELECT status FROM events WHERE company_id = $1 AND id = $4),
			(SELECT count(*) FROM invoice_history WHERE company_id = $1)`,
		b.company, bInvoice, bContract, bEvent).Scan(&inv, &pay, &ev, &history); err != nil {
		t.Fatal(err)
	}
	if inv != "unpaid" || pay != "nothing" || ev != "scheduled" || history != 0 {
		t.Errorf("company B touched: invoice %s, contract %s, event %s, %d history rows", inv, pay, ev, history)
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
