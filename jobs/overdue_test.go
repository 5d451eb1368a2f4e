package jobs

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
	job := p.submit(t, KindFinanceOverdue, DatePayload{Date: overdueDate})
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	if done.State != storage.JobSucceeded {
		t.Fatalf("finance:overdue %s: %s", done.State, done.Error)
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
	if first.Invoices != 1 || first.Contracts != 3 || first.Events == nil || *first.Events != 1 {
		t.Fatalf("first run: %+v, want 1 invoice, 3 contracts (dated the first time), 1 event", first)
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
	if second.Invoices != 0 || second.Contracts != 0 || second.Events == nil || *second.Events != 0 {
		t.Errorf("second run on the same date: %+v, want nothing written", second)
	}
	if again := overdueState(t, p.pool, p.companyA); again != settled {
		t.Errorf("second run changed company A:\n%s\nwas\n%s", again, settled)
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
	plan := overduePlan{Date: overdueDate, Spans: map[string]storage.IDSpan{
		"invoices":  {Min: 7, Max: 100_006},
		"contracts": {Min: 3, Max: 3},
		"events":    {},
	}}
	var got []string
	for _, c := range plan.chunks() {
		got = append(got, fmt.Sprintf("%s %d-%d", c.Table, c.From, c.To))
	}
	want := "[invoices 7-50006 invoices 50007-100006 contracts 3-3]"
	if fmt.Sprint(got) != want {
		t.Errorf("chunks %v, want %s", got, want)
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
