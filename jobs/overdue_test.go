package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// overdueDate is the date of the overdue runs of the tests.
const overdueDate = "2026-11-24"

// seedOverdue gives a company three contracts: one with an invoice ten
// days late, one with an invoice due in three days, one with a paid
// invoice; and, when the events table has a status, an event forty days
// past. Every row is stored as before any run: unpaid, nothing.
func seedOverdue(t *testing.T, pool *pgxpool.Pool, company int64) {
	t.Helper()
	ctx := context.Background()
	stmts := []string{
		`INSERT INTO persons (company_id, name) VALUES ($1, 'Ana Inquilina')`,
		`INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte Imóveis')`,
		`INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM businesses WHERE company_id = $1`,
		`INSERT INTO contracts (company_id, type, tenant_id) SELECT $1, 'rent', id FROM persons, generate_series(1, 3) WHERE company_id = $1`,
		`INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
				status, paid, paid_at, description, total, date, due_date)
			SELECT $1, 'contract', c.tenant_id, c.id, a.business_id, a.id, 'ticket',
				CASE WHEN n = 3 THEN 'paid' ELSE 'unpaid' END, n = 3, CASE WHEN n = 3 THEN $2::date - 10 END,
				'Aluguel', 1500, $2::date - 10, $2::date + CASE n WHEN 1 THEN -10 WHEN 2 THEN 3 ELSE -10 END
			FROM (SELECT c.*, row_number() OVER (ORDER BY id) AS n FROM contracts c WHERE company_id = $1) c,
				accounts a WHERE a.company_id = $1`,
	}
	for _, s := range stmts {
		args := []any{company}
		if strings.Contains(s, "$2") {
			args = append(args, overdueDate)
		}
		if _, err := pool.Exec(ctx, s, args...); err != nil {
			t.Fatalf("%.50s: %v", s, err)
		}
	}
	if _, err := pool.Exec(ctx, `INSERT INTO events (company_id, title, status, initial_date) VALUES ($1, 'Vistoria', 'scheduled', $2::date - 40)`,
		company, overdueDate); err != nil {
		t.Fatal(err)
	}
	// The invoices' inserts brought the contracts to their status on the
	// real today (migration 0066); the runs here are of dates before it,
	// on contracts as a database written before that migration holds them:
	// nothing, undated.
	if _, err := pool.Exec(ctx, `UPDATE contracts SET payment_status = 'nothing', payment_status_date = NULL WHERE company_id = $1`,
		company); err != nil {
		t.Fatal(err)
	}
}

// overdueState is what the run may change in a company, and when it
// last changed: statuses, the latest updated_at of each table, and the
// history rows.
func overdueState(t *testing.T, pool *pgxpool.Pool, company int64) string {
	t.Helper()
	var s string
	events := `(SELECT string_agg(status || ' ' || updated_at, ',' ORDER BY id) FROM events WHERE company_id = $1)`
	err := pool.QueryRow(context.Background(), `SELECT concat_ws(' | ',
		(SELECT string_agg(status || ' ' || updated_at, ',' ORDER BY id) FROM invoices WHERE company_id = $1),
		(SELECT string_agg(payment_status || ' ' || coalesce(payment_status_date::text, '-') || ' ' || updated_at, ',' ORDER BY id)
			FROM contracts WHERE company_id = $1),
		`+events+`,
		(SELECT count(*) FROM invoice_history WHERE company_id = $1))`, company).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runOverdue submits finance:overdue for company A on overdueDate and
// waits for its result.
func runOverdue(t *testing.T, p *platform) OverdueResult {
	t.Helper()
	return runOverdueOn(t, p, overdueDate)
}

// runOverdueOn submits finance:overdue for company A on date and waits
// for its result.
func runOverdueOn(t *testing.T, p *platform, date string) OverdueResult {
	t.Helper()
	job := p.submit(t, KindFinanceOverdue, DatePayload{Date: date})
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded {
		t.Fatalf("finance:overdue %s: %s", done.State, done.Error)
	}
	// The count of calendar events is named as such, so that it is not
	// read as one of webhook events.
	keys := decodeResult[map[string]json.RawMessage](t, done)
	if _, ok := keys["calendar_events"]; !ok {
		t.Errorf("finance:overdue result %s: no calendar_events", done.Result)
	}
	if _, ok := keys["events"]; ok {
		t.Errorf("finance:overdue result %s: an events key", done.Result)
	}
	return decodeResult[OverdueResult](t, done)
}

func TestOverdueJobRecalculatesItsCompanyOnce(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	ctx := context.Background()
	seedOverdue(t, p.pool, p.companyA)
	seedOverdue(t, p.pool, p.companyB)
	before := overdueState(t, p.pool, p.companyB)

	first := runOverdue(t, p)
	if first.Invoices != 1 || first.InvoicesVisited != 1 || first.Contracts != 3 || first.ContractsVisited != 3 ||
		first.CalendarEvents == nil || *first.CalendarEvents != 1 {
		t.Fatalf("first run: %+v, want 1 invoice (the one that moves), 3 contracts (visited and dated the first time), 1 event", first)
	}
	var statuses string
	if err := p.pool.QueryRow(ctx, `SELECT concat_ws(' ',
			(SELECT string_agg(status, ',' ORDER BY id) FROM invoices WHERE company_id = $1),
			(SELECT string_agg(payment_status || '@' || payment_status_date, ',' ORDER BY id) FROM contracts WHERE company_id = $1),
			(SELECT string_agg(status, ',') FROM events WHERE company_id = $1),
			(SELECT string_agg(actor || actor_id || origin, ',') FROM invoice_history WHERE company_id = $1))`,
		p.companyA).Scan(&statuses); err != nil {
		t.Fatal(err)
	}
	var jobID int64
	if err := p.pool.QueryRow(ctx, `SELECT id FROM jobs WHERE company_id = $1 AND kind = $2`, p.companyA, KindFinanceOverdue).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("overdue,unpaid,paid 30_days@%[1]s,due_5_days@%[1]s,ok@%[1]s thirty_days_late job%[2]doverdue", overdueDate, jobID)
	if statuses != want {
		t.Errorf("company A after the run:\n%s\nwant\n%s", statuses, want)
	}
	if after := overdueState(t, p.pool, p.companyB); after != before {
		t.Errorf("company B changed:\n%s\nwas\n%s", after, before)
	}

	// The same date again (the first job deleted, as jobs:prune does, so
	// that its key is free): nothing is written.
	settled := overdueState(t, p.pool, p.companyA)
	if _, err := p.pool.Exec(ctx, `DELETE FROM jobs WHERE company_id = $1 AND id = $2`, p.companyA, jobID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // a write now would show in updated_at
	second := runOverdue(t, p)
	if second.Invoices != 0 || second.InvoicesVisited != 0 || second.Contracts != 0 || second.ContractsVisited != 0 ||
		second.CalendarEvents == nil || *second.CalendarEvents != 0 {
		t.Errorf("second run on the same date: %+v, want nothing visited nor written", second)
	}
	if again := overdueState(t, p.pool, p.companyA); again != settled {
		t.Errorf("second run changed company A:\n%s\nwas\n%s", again, settled)
	}
}

// TestOverdueJobOnLaterDays: after a first run, a contract whose invoice
// is paid reads ok from the payment (migration 0066), and the later run
// visits it and finds it right; a contract whose invoice comes near enough
// to its due date to change its status is moved by the run of that date,
// each run visiting only the contracts whose status can have changed.
func TestOverdueJobOnLaterDays(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	ctx := context.Background()
	seedOverdue(t, p.pool, p.companyA) // invoices due overdueDate - 10, + 3, and a paid one
	due := finance.MustDate(overdueDate)
	statuses := func() string {
		var s string
		if err := p.pool.QueryRow(ctx, `SELECT string_agg(payment_status || '@' || payment_status_date, ',' ORDER BY id)
			FROM contracts WHERE company_id = $1`, p.companyA).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	today, err := storage.CompanyToday(ctx, p.pool, p.companyA)
	if err != nil {
		t.Fatal(err)
	}
	// The payment brings the first contract to ok, dated the real today
	// (migration 0066); the next run visits it (marked) and finds it right.
	paidOK := "ok@" + today.String()
	days := []struct {
		date             finance.Date
		paid             bool // the first contract's invoice paid before the run
		want             string
		visited, written int64
	}{
		{due.AddDays(-15), false, "due_5_days@2026-11-09,ok@2026-11-09,ok@2026-11-09", 3, 3},
		{due.AddDays(-14), true, paidOK + ",ok@2026-11-09,ok@2026-11-09", 1, 0},
		{due.AddDays(-13), false, paidOK + ",ok@2026-11-09,ok@2026-11-09", 0, 0},
		// the second contract's invoice due in 10 days, then in 5
		{due.AddDays(-7), false, paidOK + ",due_10_days@2026-11-17,ok@2026-11-09", 1, 1},
		{due.AddDays(-2), false, paidOK + ",due_5_days@2026-11-22,ok@2026-11-09", 1, 1},
	}
	for _, d := range days {
		if d.paid {
			if _, err := p.pool.Exec(ctx, `UPDATE invoices SET paid = true, paid_at = due_date, status = 'paid'
				WHERE company_id = $1 AND due_date = $2 AND NOT paid`, p.companyA, due.AddDays(-10)); err != nil {
				t.Fatal(err)
			}
		}
		res := runOverdueOn(t, p, d.date.String())
		if got := statuses(); got != d.want || res.ContractsVisited != d.visited || res.Contracts != d.written {
			t.Errorf("run on %s: %s, %d visited, %d written; want %s, %d, %d",
				d.date, got, res.ContractsVisited, res.Contracts, d.want, d.visited, d.written)
		}
	}
}

func TestOverdueJobOfAnEmptyCompany(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	res := runOverdue(t, p)
	if res.Invoices != 0 || res.Contracts != 0 || res.Date != overdueDate {
		t.Errorf("result %+v, want nothing written", res)
	}
}

func TestOverduePlanChunks(t *testing.T) {
	t.Parallel()
	const max = math.MaxInt64
	plan := overduePlan{Date: overdueDate, Ranges: map[string][]storage.IDSpan{
		"invoices":  stretched(cut(storage.IDSpan{Min: 40, Max: 90_000}, 50_000)),
		"contracts": stretched(cut(storage.IDSpan{Min: 7, Max: 20_007}, 10_000)),
		"events":    cut(storage.IDSpan{Min: 5, Max: 50_005}, 50_000),
	}}
	var got []string
	for _, c := range plan.chunks() {
		to := fmt.Sprint(c.To)
		if c.To == max {
			to = "max"
		}
		chunk := fmt.Sprintf("%s %d-%s", c.Table, c.From, to)
		if c.First {
			chunk += " first"
		}
		if c.Last {
			chunk += " last"
		}
		got = append(got, chunk)
	}
	want := "[invoices 1-50039 first invoices 50040-max last " +
		"contracts 1-10006 first contracts 10007-20006 contracts 20007-max last " +
		"events 5-50004 first events 50005-50005 last]"
	if fmt.Sprint(got) != want {
		t.Errorf("chunks\n%v\nwant\n%s", got, want)
	}
	if r := cut(storage.IDSpan{}, 10); len(r) != 0 {
		t.Errorf("empty span: ranges %v, want none", r)
	}
}

// TestOverduePlanLooksForChanges: a pass whose statuses hold for dates
// near the run's is one chunk over every id; otherwise its table is cut
// into ranges of ids.
func TestOverduePlanLooksForChanges(t *testing.T) {
	t.Parallel()
	asOf := finance.MustDate(overdueDate)
	spans := map[string]storage.IDSpan{"invoices": {Min: 3, Max: 90_000}, "contracts": {Min: 1, Max: 25_000}, "events": {}}
	known := func(days int) storage.OverdueWindow {
		return storage.OverdueWindow{Low: asOf.AddDays(-days), High: asOf.AddDays(-days)}
	}
	tests := []struct {
		name    string
		windows map[string]storage.OverdueWindow
		want    string
	}{
		{"not known", nil, "[{1 50002} {50003 max}] [{1 10000} {10001 20000} {20001 max}]"},
		{"same date", map[string]storage.OverdueWindow{"invoices": known(0), "contracts": known(0)}, "[{1 max}] [{1 max}]"},
		{"a month before", map[string]storage.OverdueWindow{"invoices": known(31), "contracts": known(31)}, "[{1 max}] [{1 max}]"},
		{"more than a month before", map[string]storage.OverdueWindow{"invoices": known(32), "contracts": known(1)},
			"[{1 50002} {50003 max}] [{1 max}]"},
	}
	for _, tt := range tests {
		plan := cutOverduePlan(asOf, tt.windows, spans)
		got := strings.ReplaceAll(fmt.Sprint(plan.Ranges["invoices"], plan.Ranges["contracts"]), fmt.Sprint(int64(math.MaxInt64)), "max")
		if got != tt.want || plan.Ranges["events"] != nil {
			t.Errorf("%s: ranges %s, events %v; want %s, none", tt.name, got, plan.Ranges["events"], tt.want)
		}
	}
	if plan := cutOverduePlan(asOf, nil, map[string]storage.IDSpan{}); len(plan.Ranges["invoices"])+len(plan.Ranges["contracts"]) != 0 {
		t.Errorf("no rows: ranges %v, want none", plan.Ranges)
	}
}

func TestOverduePayloadIsADate(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, nil, false)
	for _, payload := range []string{`{}`, `{"date":"1999-12-31"}`, `{"date":"2024-02-30"}`,
		`{"date":"` + time.Now().UTC().AddDate(0, 0, 2).Format(time.DateOnly) + `"}`, `{"date":"2026-11-24","x":1}`} {
		_, _, err := p.kinds.Submit(context.Background(), p.pool, p.companyA, Submission{Kind: KindFinanceOverdue, Payload: []byte(payload)})
		if err == nil {
			t.Errorf("payload %s was taken", payload)
		}
	}
	kind, _ := p.kinds.Kind(KindFinanceOverdue)
	if !kind.Direct || kind.Queue != QueueCritical {
		t.Errorf("direct %v queue %s, want a direct kind on the critical queue", kind.Direct, kind.Queue)
	}
}
