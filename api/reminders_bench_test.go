package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	jobmail "github.com/propfin/propfin/jobs/mail"
	"github.com/propfin/propfin/jobs/mail/mailbox"
	"github.com/propfin/propfin/storage"
)

// The reminders benchmark's data: open invoices reminded on the run's
// date, a quarter on each default rule, beside as many paid ones.
const (
	benchReminders     = 100_000
	benchReminderConns = 4
)

// BenchmarkReminders measures the nightly reminders of a company with
// 100,000 open invoices a rule reminds today (25,000 due in five days,
// today, three and ten days ago, the late ones with a late fee and
// interest) and 100,000 paid ones due today: the invoices:remind job
// (worker time, from its start to its recorded result) sending through
// the API's composer to an SMTP server in process, beside a bare baseline
// in the same run: one SELECT of the same invoices and their payers'
// addresses, and one fixed message each sent over as many connections to
// the same server, nothing written, with a small message and with one
// reminder as the job writes them (of its size). Then the job again
// for the date, which sends nothing. Run it once per count:
//
//	go test -run '^$' -bench Reminders -benchtime 1x -count 3 ./api
func BenchmarkReminders(b *testing.B) {
	if b.N != 1 {
		b.Fatal("run with -benchtime 1x: each run needs the seeded state")
	}
	env := setup(b)
	ctx := context.Background()
	var taken, size atomic.Int64
	box, err := mailbox.Listen("127.0.0.1:0", mailbox.Options{Keep: 1, OnMessage: func(m mailbox.Message) {
		taken.Add(1)
		size.Add(int64(len(m.Raw)))
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer box.Close()
	host, port, _ := net.SplitHostPort(box.Addr())
	server := jobmail.Config{Host: host, Port: port, Security: jobmail.StartTLS}
	composer, err := NewReminderComposer(ReminderMailConfig{From: jobmail.Address{Address: "cobranca@example.com"},
		ReceiptSecret: []byte(testReceiptSecret), PublicURL: "https://api.example.com"})
	if err != nil {
		b.Fatal(err)
	}
	withWorkersOf(b, env, jobs.KindsConfig{Reminders: &jobs.RemindersConfig{SMTP: server, Composer: composer, Connections: benchReminderConns}})
	seedReminderBench(b, env)

	t0 := time.Now()
	bareDue := bareReminders(b, env, server, nil)
	bare := time.Since(t0)
	if bareDue != benchReminders || taken.Load() != benchReminders {
		b.Fatalf("bare: %d due, %d taken; want %d", bareDue, taken.Load(), benchReminders)
	}
	bareBytes := size.Load()
	// the same with a message of the job's size: one composed reminder, sent to each
	full := fullReminder(b, composer)
	t0 = time.Now()
	bareReminders(b, env, server, full)
	bareFull := time.Since(t0)
	taken.Store(0)
	size.Store(0)

	job, took := benchRemindJob(b, env, false)
	if job.Due != benchReminders || job.Sent != benchReminders || taken.Load() != benchReminders {
		b.Fatalf("job: %+v, %d taken in all", job, taken.Load())
	}
	again, tookAgain := benchRemindJob(b, env, true)
	if again.Sent != 0 || again.Before != benchReminders || taken.Load() != benchReminders {
		b.Fatalf("job again: %+v", again)
	}
	var rows int64
	if err := env.pool.QueryRow(ctx, `SELECT count(*) FROM reminders WHERE company_id = $1 AND status = 'sent'`, env.compA).Scan(&rows); err != nil {
		b.Fatal(err)
	}
	if rows != benchReminders {
		b.Fatalf("%d rows sent, want %d", rows, benchReminders)
	}
	b.ReportMetric(took.Seconds(), "job-s")
	b.ReportMetric(bare.Seconds(), "bare-s")
	b.ReportMetric(took.Seconds()/bare.Seconds(), "job/bare")
	b.ReportMetric(float64(benchReminders)/took.Seconds(), "reminders/s")
	b.ReportMetric(tookAgain.Seconds()*1000, "again-ms")
	b.ReportMetric(float64(bareBytes)/benchReminders, "bare-B/msg")
	b.ReportMetric(float64(size.Load())/benchReminders, "job-B/msg")
	b.ReportMetric(bareFull.Seconds(), "bare-full-s")
	b.ReportMetric(float64(len(full)), "full-B/msg")
}

// seedReminderBench writes the benchmark's invoices for company A, set
// based, and turns its reminders on.
func seedReminderBench(b *testing.B, env *testEnv) {
	ctx := context.Background()
	for _, s := range []string{
		`INSERT INTO persons (company_id, name, email) SELECT $1, 'Pagador ' || i, 'pagador' || i || '@example.com' FROM generate_series(1, 10000) i`,
		`INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte Imóveis')`,
		`INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM businesses WHERE company_id = $1`,
		`INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, status, paid, paid_at, description,
				total, date, due_date, ticket_late_fee, ticket_late_fee_percentage, ticket_late_fee_interest, pix_code)
			SELECT $1, 'single', p.id, a.business_id, a.id, 'ticket', CASE WHEN paid THEN 'paid' ELSE 'unpaid' END, paid,
				CASE WHEN paid THEN today - 1 END, 'Aluguel', 1500 + n % 100, today - 20,
				CASE WHEN paid THEN today ELSE today - (ARRAY[-5, 0, 3, 10])[n % 4 + 1] END, true, 2, 1,
				'00020126330014br.gov.bcb.pix0111529982247255204000053039865406' || n || '5802BR5917Horizonte Imoveis6009Sao Paulo6304ABCD'
			FROM generate_series(1, 2 * ` + fmt.Sprint(benchReminders) + `) n,
				LATERAL (SELECT n > ` + fmt.Sprint(benchReminders) + ` AS paid, (now() AT TIME ZONE 'America/Sao_Paulo')::date AS today) v,
				LATERAL (SELECT min(id) + n % 10000 AS id FROM persons WHERE company_id = $1) p,
				(SELECT * FROM accounts WHERE company_id = $1 LIMIT 1) a`,
		`UPDATE companies SET reminders_enabled = true WHERE id = $1`,
		`VACUUM (ANALYZE) invoices, persons`,
	} {
		args := []any{env.compA}
		if s[:6] == "VACUUM" {
			args = nil
		}
		t0 := time.Now()
		if _, err := env.pool.Exec(ctx, s, args...); err != nil {
			b.Fatalf("%.60s: %v", s, err)
		}
		b.Logf("%.50s: %s", s, time.Since(t0).Round(10*time.Millisecond))
	}
}

// fullReminder is one reminder as the job composes them, written.
func fullReminder(b *testing.B, composer *ReminderComposer) []byte {
	due := finance.MustDate(today(-3))
	msg, err := composer.Compose(jobs.ReminderNotice{
		DueReminder: storage.DueReminder{ReminderKey: storage.ReminderKey{InvoiceID: 1, Rule: 3}, Number: "1", Status: "overdue",
			PayerName: "Pagador 1", CompanyName: "Company A", BusinessName: "Horizonte Imóveis",
			PixCode: "00020126330014br.gov.bcb.pix01115299822472552040000530398654061500.005802BR5917Horizonte Imoveis6009Sao Paulo6304ABCD",
			Invoice: finance.Invoice{Description: "Aluguel", Total: decimal.RequireFromString("1500"), DueDate: due}},
		CompanyID: 1, Date: finance.MustDate(today(0)), To: jobmail.Address{Name: "Pagador 1", Address: "pagador1@example.com"},
		Settlement: finance.Settlement{Total: decimal.RequireFromString("1531.50"), DaysLate: 3,
			LateFee: decimal.RequireFromString("30"), Interest: decimal.RequireFromString("1.5")}})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := msg.Bytes()
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// bareReminders is the baseline: one SELECT of the invoices due a
// reminder today, and a fixed message each (body, or a small one naming
// the invoice when nil) sent over benchReminderConns connections,
// nothing written; how many it sent.
func bareReminders(b *testing.B, env *testEnv, server jobmail.Config, body []byte) int {
	ctx := context.Background()
	rows, err := env.pool.Query(ctx, `SELECT i.id, p.email, i.total::text, i.due_date::text
		FROM invoices i JOIN persons p ON p.company_id = i.company_id AND p.id = i.payer_id
		WHERE i.company_id = $1 AND NOT i.paid AND i.status IN ('unpaid', 'overdue', 'partially_paid')
			AND i.due_date = ANY (ARRAY(SELECT (now() AT TIME ZONE 'America/Sao_Paulo')::date - d FROM unnest(ARRAY[-5, 0, 3, 10]) d))`,
		env.compA)
	if err != nil {
		b.Fatal(err)
	}
	type due struct{ id, to, total, date string }
	var all []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.id, &d.to, &d.total, &d.date); err != nil {
			b.Fatal(err)
		}
		all = append(all, d)
	}
	if rows.Err() != nil {
		b.Fatal(rows.Err())
	}
	next := make(chan due)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range benchReminderConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := jobmail.Dial(ctx, server)
			if err != nil {
				b.Error(err)
				return
			}
			defer conn.Close()
			for d := range next {
				msg := body
				if msg == nil {
					msg = []byte("From: cobranca@example.com\r\nTo: " + d.to + "\r\nSubject: Fatura " + d.id + "\r\n\r\nR$ " + d.total + " em " + d.date + "\r\n")
				}
				if conn.Send("cobranca@example.com", d.to, msg) != nil {
					failed.Add(1)
				}
			}
		}()
	}
	for _, d := range all {
		next <- d
	}
	close(next)
	wg.Wait()
	if failed.Load() > 0 {
		b.Fatalf("bare: %d not sent", failed.Load())
	}
	return len(all)
}

// benchRemindJob runs invoices:remind of company A for today (again:
// a run again of the date) and returns its result and worker time.
func benchRemindJob(b *testing.B, env *testEnv, again bool) (jobs.RemindResult, time.Duration) {
	ctx := context.Background()
	kinds, err := jobs.Kinds(jobs.KindsConfig{})
	if err != nil {
		b.Fatal(err)
	}
	payload, _ := json.Marshal(jobs.RemindPayload{Date: today(0)})
	submitted, _, err := kinds.Submit(ctx, env.pool, env.compA, jobs.Submission{Kind: jobs.KindInvoicesRemind, Payload: payload,
		SubmittedBy: "bench", Rerun: again})
	if err != nil {
		b.Fatal(err)
	}
	id := submitted.ID
	for {
		job, err := storage.GetJob(ctx, env.pool, env.compA, id)
		if err != nil {
			b.Fatal(err)
		}
		if job.Finished() {
			if job.State != storage.JobSucceeded {
				b.Fatalf("job %s: %s", job.State, job.Error)
			}
			var res jobs.RemindResult
			if err := json.Unmarshal(job.Result, &res); err != nil {
				b.Fatal(err)
			}
			return res, job.FinishedAt.Sub(*job.StartedAt)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
