package jobs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs/mail"
	"github.com/propfin/propfin/jobs/mail/mailbox"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// plainComposer writes a message naming the invoice, the rule and what is
// owed (the API's composer, with its links and Portuguese, is tested in
// package api).
type plainComposer struct{}

func (plainComposer) Compose(n ReminderNotice) (mail.Message, error) {
	return mail.Message{From: mail.Address{Address: "cobranca@example.com"}, To: n.To,
		Subject: fmt.Sprintf("invoice %d rule %d", n.InvoiceID, n.Rule),
		Text:    fmt.Sprintf("owed %s on %s", n.Settlement.Total.StringFixed(2), n.Date)}, nil
}

// remindPlatform is a platform whose invoices:remind sends to a mailbox
// that asks refuse about each recipient (nil: takes all).
func remindPlatform(t *testing.T, refuse func(from, to string) error) (*platform, *mailbox.Server) {
	t.Helper()
	box, err := mailbox.Listen("127.0.0.1:0", mailbox.Options{Refuse: refuse})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	host, port, _ := net.SplitHostPort(box.Addr())
	p := &platform{pool: storagetest.NewDB(t), redis: storagetest.NewRedis(t)}
	if p.kinds, err = Kinds(KindsConfig{Reminders: &RemindersConfig{Composer: plainComposer{}, Connections: 3,
		SMTP: mail.Config{Host: host, Port: port, Security: mail.StartTLS}}}); err != nil {
		t.Fatal(err)
	}
	p.companyA = newCompany(t, p.pool, "Company A")
	p.companyB = newCompany(t, p.pool, "Company B")
	p.run(t)
	return p, box
}

// seedReminders gives the company n payers, each with an invoice due
// today (rule 0) and e-mail payer<i>@example.com, and turns reminders on.
func seedReminders(t *testing.T, pool *pgxpool.Pool, company int64, n int) {
	t.Helper()
	ctx := context.Background()
	for _, s := range []string{
		`INSERT INTO persons (company_id, name, email) SELECT $1, 'Payer ' || i, 'payer' || i || '@example.com' FROM generate_series(1, $2) i`,
		`INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte')`,
		`INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM businesses WHERE company_id = $1`,
		`INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, description, total, date, due_date)
			SELECT $1, 'single', p.id, a.business_id, a.id, 'ticket', 'Aluguel', 1000, current_date,
				(now() AT TIME ZONE 'America/Sao_Paulo')::date
			FROM persons p, accounts a WHERE p.company_id = $1 AND a.company_id = $1 AND $2 > 0`,
		`UPDATE companies SET reminders_enabled = true WHERE id = $1 AND $2 > 0`,
	} {
		args := []any{company}
		if strings.Contains(s, "$2") {
			args = append(args, n)
		}
		if _, err := pool.Exec(ctx, s, args...); err != nil {
			t.Fatalf("%.60s: %v", s, err)
		}
	}
}

func todayOf(t *testing.T, pool *pgxpool.Pool, company int64) string {
	t.Helper()
	d, err := storage.CompanyToday(context.Background(), pool, company)
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

// reminderRows is the company's reminders as "to status attempts error".
func reminderRows(t *testing.T, pool *pgxpool.Pool, company int64) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT concat_ws(' ', "to", status, attempts, error) FROM reminders
		WHERE company_id = $1 ORDER BY "to"`, company)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestRemindersRefusedAndRetried: a reminder the server refuses for now
// (451) is an error row, and the job's retry sends it, once; one refused
// for good (550) is an error row that nothing sends again; the others go
// once.
func TestRemindersRefusedAndRetried(t *testing.T) {
	t.Parallel()
	var greylisted atomic.Bool
	greylisted.Store(true)
	p, box := remindPlatform(t, func(_, to string) error {
		switch {
		case to == "payer2@example.com" && greylisted.CompareAndSwap(true, false):
			return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "greylisted, try again"}
		case to == "payer3@example.com":
			return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
		}
		return nil
	})
	seedReminders(t, p.pool, p.companyA, 4)
	job := p.submit(t, KindInvoicesRemind, RemindPayload{Date: todayOf(t, p.pool, p.companyA)})
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	res := decodeResult[RemindResult](t, done)
	if done.State != storage.JobSucceeded || done.Attempts != 2 || res.Sent != 1 || res.Before != 3 {
		t.Errorf("job %s after %d attempts, result %+v: want succeeded on its retry, the greylisted one sent then",
			done.State, done.Attempts, res)
	}
	want := []string{
		"payer1@example.com sent 1",
		"payer2@example.com sent 2",
		"payer3@example.com refused 1 smtp RCPT TO <payer3@example.com>: 550 no such mailbox",
		"payer4@example.com sent 1",
	}
	if got := reminderRows(t, p.pool, p.companyA); !slices.Equal(got, want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var to []string
	for _, m := range box.Messages() {
		to = append(to, m.To...)
	}
	slices.Sort(to)
	if !slices.Equal(to, []string{"payer1@example.com", "payer2@example.com", "payer4@example.com"}) {
		t.Errorf("messages to %v: want one each to payers 1, 2 and 4", to)
	}
}

// TestRemindersServerDown: with the server unreachable, the run records
// an error row and is retried; once the server is back, the retry sends
// every reminder once.
func TestRemindersServerDown(t *testing.T) {
	t.Parallel()
	p, box := remindPlatform(t, nil)
	seedReminders(t, p.pool, p.companyA, 3)
	addr := box.Addr()
	box.Close()
	job := p.submit(t, KindInvoicesRemind, RemindPayload{Date: todayOf(t, p.pool, p.companyA)})
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, err := storage.GetJob(context.Background(), p.pool, p.companyA, job.ID)
		if err != nil {
			t.Fatal(err)
		}
		rows := reminderRows(t, p.pool, p.companyA)
		if strings.Contains(j.Error, "could not be reached") && len(rows) > 0 {
			if j.State == storage.JobFailed || !strings.Contains(rows[0], "failed") || !strings.Contains(rows[0], "connect") {
				t.Fatalf("job %s, rows %q: want a job waiting for its retry and a failed row saying the connection failed", j.State, rows)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s %q, rows %q after 30 s", j.State, j.Error, rows)
		}
		time.Sleep(20 * time.Millisecond)
	}
	back, err := mailbox.Listen(addr, mailbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed); done.State != storage.JobSucceeded {
		t.Fatalf("job %s %s", done.State, done.Error)
	}
	if n := len(back.Messages()); n != 3 {
		t.Errorf("%d messages once the server is back, want 3", n)
	}
	for _, r := range reminderRows(t, p.pool, p.companyA) {
		if !strings.Contains(r, " sent ") {
			t.Errorf("row %q: want sent", r)
		}
	}
}

// TestRemindersRunOncePerReminder: two runs of the same date at once (a
// run again while the first sends) send each reminder once.
func TestRemindersRunOncePerReminder(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]int{}
	p, box := remindPlatform(t, func(_, to string) error {
		mu.Lock()
		seen[to]++
		mu.Unlock()
		return nil
	})
	seedReminders(t, p.pool, p.companyA, 300)
	date, _ := finance.ParseDate(todayOf(t, p.pool, p.companyA))
	ctx := context.Background()
	// two runs claiming the same reminders, as two workers would
	run := func(jobID int64) error {
		r := &Run{Job: storage.Job{ID: jobID, CompanyID: p.companyA}, pool: p.pool}
		settings, err := storage.ReminderSettingsOf(ctx, p.pool, p.companyA)
		if err != nil {
			return err
		}
		rs := &reminderRun{run: r, cfg: reminderConfigOf(t, box), date: date, settings: settings, res: &RemindResult{}}
		defer rs.closeConns()
		keys, _, err := storage.DueReminderKeys(ctx, p.pool, p.companyA, date, settings.Days)
		if err != nil {
			return err
		}
		for from := 0; from < len(keys); from += remindBatch {
			if _, err := rs.batch(ctx, keys[from:min(from+remindBatch, len(keys))]); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make(chan error, 2)
	go func() { errs <- run(1001) }()
	go func() { errs <- run(1002) }()
	if err := errors.Join(<-errs, <-errs); err != nil {
		t.Fatal(err)
	}
	if n := len(box.Messages()); n != 300 {
		t.Errorf("%d messages, want 300", n)
	}
	for to, n := range seen {
		if n != 1 {
			t.Errorf("%s: %d messages", to, n)
		}
	}
}

func reminderConfigOf(t *testing.T, box *mailbox.Server) *RemindersConfig {
	t.Helper()
	host, port, _ := net.SplitHostPort(box.Addr())
	return &RemindersConfig{Composer: plainComposer{}, Connections: 2, SMTP: mail.Config{Host: host, Port: port, Security: mail.StartTLS}}
}

// TestRemindDateIsTodayOrYesterday: a run for another date than the
// company's today or yesterday is refused at submission.
func TestRemindDateIsTodayOrYesterday(t *testing.T) {
	t.Parallel()
	p, _ := remindPlatform(t, nil)
	today, _ := finance.ParseDate(todayOf(t, p.pool, p.companyA))
	for _, c := range []struct {
		date finance.Date
		ok   bool
	}{{today, true}, {today.AddDays(-1), true}, {today.AddDays(-2), false}, {today.AddDays(1), false}} {
		_, _, err := p.kinds.Submit(context.Background(), p.pool, p.companyA, Submission{Kind: KindInvoicesRemind,
			Payload: mustJSON(RemindPayload{Date: c.date.String()}), SubmittedBy: "test"})
		if (err == nil) != c.ok {
			t.Errorf("date %s: %v, want accepted %v", c.date, err, c.ok)
		}
	}
}

// TestRemindersLeftSendingAreNotSentAgain: a reminder a stopped run left
// sending (claimed, its outcome never recorded) may have gone: the next
// run marks it unknown and does not send it; a fresh one being sent by
// another run is left alone; the others go.
func TestRemindersLeftSendingAreNotSentAgain(t *testing.T) {
	t.Parallel()
	p, box := remindPlatform(t, nil)
	seedReminders(t, p.pool, p.companyA, 3)
	date := todayOf(t, p.pool, p.companyA)
	if _, err := p.pool.Exec(context.Background(), `INSERT INTO reminders (company_id, invoice_id, rule, date, due_date, "to", status, job_id, claimed_at)
		SELECT company_id, i.id, 0, due_date, due_date, p.email, 'sending', 999, now() - CASE WHEN p.email LIKE 'payer1@%' THEN interval '1 hour' ELSE interval '1 minute' END
		FROM invoices i JOIN persons p USING (company_id) WHERE i.company_id = $1 AND p.id = i.payer_id AND p.email IN ('payer1@example.com', 'payer2@example.com')`,
		p.companyA); err != nil {
		t.Fatal(err)
	}
	job := p.submit(t, KindInvoicesRemind, RemindPayload{Date: date})
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	res := decodeResult[RemindResult](t, done)
	if done.State != storage.JobSucceeded || res.Stale != 1 || res.Sent != 1 || res.Before != 2 {
		t.Errorf("job %s %q, result %+v: want 1 marked unknown, 1 sent, 2 done before", done.State, done.Error, res)
	}
	want := []string{
		"payer1@example.com unknown 1 the run stopped while sending: the message may have gone, and is not sent again",
		"payer2@example.com sending 1",
		"payer3@example.com sent 1",
	}
	if got := reminderRows(t, p.pool, p.companyA); !slices.Equal(got, want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if msgs := box.Messages(); len(msgs) != 1 || msgs[0].To[0] != "payer3@example.com" {
		t.Errorf("messages %v: want payer3's alone", msgs)
	}
}
