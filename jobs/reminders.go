package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs/mail"
	"github.com/propfin/propfin/storage"
)

// KindInvoicesRemind sends a company's billing reminders of a date (the
// régua de cobrança): one e-mail per open invoice that one of the
// company's rules reminds on the date, at most once (docs/jobs.md).
const KindInvoicesRemind = "invoices:remind"

// remindBatch is how many reminders are read, claimed, sent and recorded
// together.
const remindBatch = 200

// DefaultMailConnections is how many connections to the mail server one
// run sends over at once, unless the configuration says.
const DefaultMailConnections = 4

// staleSending is how long a reminder may stay sending before the next
// run marks it unknown: far longer than one message takes (mail's
// timeouts), so that only a run that stopped leaves one that old.
const staleSending = 15 * time.Minute

// RemindPayload is the payload of invoices:remind: the date of the
// company's reminders, once per company and date.
type RemindPayload struct {
	Date string `json:"date"`
}

// Check implements Checker: a date (DatePayload's rules).
func (p RemindPayload) Check() []finance.Problem { return DatePayload(p).Check() }

// UniqueKey implements Keyed: one run per company and date.
func (p RemindPayload) UniqueKey() string { return p.Date }

// CheckCompany implements CompanyChecker: the date must be the company's
// today or yesterday. A reminder says what is owed on its date; sent days
// later, it would say it of a day gone, and a day early it would say an
// invoice is due today when it is due tomorrow. Yesterday is allowed for
// a run made up by a scheduler that was down, a retry or a run again the
// morning after the mail server came back.
func (p RemindPayload) CheckCompany(ctx context.Context, q storage.DBTX, companyID int64) error {
	date, err := finance.ParseDate(p.Date)
	if err != nil {
		return fmt.Errorf("remind payload: %w", err) // Check refused it first
	}
	return checkRemindDate(ctx, q, companyID, date)
}

func checkRemindDate(ctx context.Context, q storage.DBTX, companyID int64, date finance.Date) error {
	today, err := storage.CompanyToday(ctx, q, companyID)
	if err != nil {
		return err
	}
	if date.After(today) || date.Before(today.AddDays(-1)) {
		return finance.InvalidInput([]finance.Problem{{Field: "payload.date", Message: fmt.Sprintf(
			"must be the company's today (%s) or yesterday: a reminder tells what is owed on its date", today)}})
	}
	return nil
}

// ReminderNotice is what the message of one reminder says: the invoice,
// the rule and date, the recipient, where replies go, the name it is sent
// by, and what the invoice costs paid on the date (the late fee and
// interest after the due date, the punctuality discount before it; of a
// partially paid invoice, its rest: Settlement.Invoice is the balance).
type ReminderNotice struct {
	storage.DueReminder
	CompanyID  int64
	Date       finance.Date
	To         mail.Address
	ReplyTo    string // "" for none
	SenderName string // the company's reminders_sender_name; "" for none (the company's name)
	Settlement finance.Settlement
	// StaleMeans is set when the invoice's boleto or stored PIX code was
	// left out: they charge more than its balance (dropStaleMeans).
	StaleMeans bool
}

// dropStaleMeans leaves out of a partly paid invoice's reminder the means
// of payment that charge more than what is due on the date: its boleto,
// which is always of the whole total (no slip is issued for a balance),
// and a PIX code whose amount is more than the balance with its charges
// (storage.PixCodeCharges). A reminder never hands out a means to pay
// more than is owed.
func (n *ReminderNotice) dropStaleMeans() {
	if n.Paid.Parts == 0 {
		return
	}
	if n.Digitable != "" {
		n.Digitable, n.StaleMeans = "", true
	}
	limit := decimal.Max(n.Settlement.Total, n.Settlement.Invoice)
	if n.PixCode != "" && !storage.PixCodeCharges(n.PixCode, limit) {
		n.PixCode, n.StaleMeans = "", true
	}
}

// ReminderComposer writes the message of a reminder: its sender, subject
// and text, the receipt page's link (package api's, which makes the
// links and writes Portuguese).
type ReminderComposer interface {
	Compose(n ReminderNotice) (mail.Message, error)
}

// RemindersConfig is what invoices:remind sends with.
type RemindersConfig struct {
	SMTP     mail.Config
	Composer ReminderComposer
	// Connections is how many connections one run sends over at once
	// (0: DefaultMailConnections).
	Connections int
}

// RemindResult is the result of a run: its date and rules, and how many
// reminders were due, sent, not taken (failed: its retries send them),
// refused for good, of unknown outcome, skipped (no address), done before
// (a run of the same date sent, refused or is sending them), and left
// sending by an earlier run and marked unknown now.
type RemindResult struct {
	Date    string `json:"date"`
	Enabled bool   `json:"enabled"`
	Rules   []int  `json:"rules"`
	Due     int    `json:"due"`
	Sent    int    `json:"sent"`
	Failed  int    `json:"failed"`
	Refused int    `json:"refused"`
	Unknown int    `json:"unknown"`
	Skipped int    `json:"skipped"`
	Before  int    `json:"before"`
	Stale   int64  `json:"stale"`
}

// RemindKind declares invoices:remind. cfg nil (a process without a mail
// server) fails the runs of companies whose reminders are on.
func RemindKind(cfg *RemindersConfig) *Kind {
	return Define(KindInvoicesRemind, Options{Queue: QueueDefault, Direct: true, Rerun: true, MaxRetry: 8, Timeout: 3 * time.Hour},
		func(ctx context.Context, r *Run, p RemindPayload) (any, error) {
			date, err := finance.ParseDate(p.Date)
			if err != nil {
				return nil, Permanent(fmt.Errorf("payload date: %w", err))
			}
			if err := checkRemindDate(ctx, r.Pool(), r.CompanyID(), date); err != nil {
				return nil, Permanent(err)
			}
			settings, err := storage.ReminderSettingsOf(ctx, r.Pool(), r.CompanyID())
			if err != nil {
				return nil, err
			}
			res := RemindResult{Date: date.String(), Enabled: settings.Enabled, Rules: settings.Days}
			if !settings.Enabled {
				return res, nil
			}
			if cfg == nil {
				return nil, Permanent(finance.Errorf(finance.Invalid,
					"This worker has no mail server (PROPFIN_SMTP_URL): no reminder was sent. Retry the job once it has one."))
			}
			rs := &reminderRun{run: r, cfg: cfg, date: date, settings: settings, res: &res}
			defer rs.closeConns()
			return res, rs.do(ctx)
		})
}

// reminderRun is one run's state: what it sends with, and its counts.
type reminderRun struct {
	run      *Run
	cfg      *RemindersConfig
	date     finance.Date
	settings storage.ReminderSettings
	res      *RemindResult

	connMu sync.Mutex
	conns  []*mail.Conn // idle connections, reused across batches
}

func (rs *reminderRun) do(ctx context.Context) error {
	r := rs.run
	stale, err := storage.MarkStaleReminders(ctx, r.Pool(), r.CompanyID(), time.Now().Add(-staleSending))
	if err != nil {
		return err
	}
	rs.res.Stale = stale
	keys, before, err := storage.DueReminderKeys(ctx, r.Pool(), r.CompanyID(), rs.date, rs.settings.Days)
	if err != nil {
		return err
	}
	rs.res.Due, rs.res.Before = len(keys)+before, before
	if err := r.Progress(ctx, 0, int64(len(keys))); err != nil {
		return err
	}
	for from := 0; from < len(keys); from += remindBatch {
		batch := keys[from:min(from+remindBatch, len(keys))]
		unreachable, err := rs.batch(ctx, batch)
		if err != nil {
			return err
		}
		if err := r.Progress(ctx, int64(from+len(batch)), int64(len(keys))); err != nil {
			return err
		}
		if unreachable != nil {
			return finance.Errorf(finance.Unavailable, "The mail server could not be reached (%v): %d reminders not sent; "+
				"the job is retried until it is, through the company's next day.", unreachable, len(keys)-from-len(batch)+rs.res.Failed)
		}
	}
	if rs.res.Failed > 0 {
		// Conflict: the message is the client's to read, and the retry is spent
		return finance.Errorf(finance.Conflict, "The mail server did not take %d of %d reminders (the rows say why); "+
			"the job's retries send them.", rs.res.Failed, rs.res.Due)
	}
	return nil
}

// batch reads, claims, sends and records the reminders of keys. It
// returns the error of a mail server that could not be reached, which
// ends the run after the batch is recorded.
func (rs *reminderRun) batch(ctx context.Context, keys []storage.ReminderKey) (unreachable error, err error) {
	r := rs.run
	due, err := storage.LoadDueReminders(ctx, r.Pool(), r.CompanyID(), rs.date, keys)
	if err != nil {
		return nil, err
	}
	claims := make([]storage.ReminderClaim, len(due))
	msgs := make(map[storage.ReminderKey]mail.Message, len(due))
	for i, d := range due {
		claims[i] = rs.claim(d, msgs)
	}
	claimed, err := storage.ClaimReminders(ctx, r.Pool(), r.CompanyID(), r.Job.ID, rs.date, claims)
	if err != nil {
		return nil, err
	}
	sending := 0
	for _, c := range claims {
		if c.Status == storage.ReminderSkipped {
			rs.res.Skipped++
		} else {
			sending++
		}
	}
	rs.res.Before += sending - len(claimed)
	outcomes, unreachable := rs.send(ctx, claimed, msgs)
	// recorded even when ctx ended: the messages went
	if err := storage.RecordReminderOutcomes(context.WithoutCancel(ctx), r.Pool(), r.CompanyID(), r.Job.ID, rs.date, outcomes); err != nil {
		return nil, err
	}
	for _, o := range outcomes {
		switch o.Status {
		case storage.ReminderSent:
			rs.res.Sent++
		case storage.ReminderFailed:
			rs.res.Failed++
		case storage.ReminderRefused:
			rs.res.Refused++
		case storage.ReminderUnknown:
			rs.res.Unknown++
		}
	}
	return unreachable, ctx.Err()
}

// claim composes the message of a due reminder (kept in msgs) and makes
// its claim; a reminder without a usable address, or whose message cannot
// be written, is skipped with the reason.
func (rs *reminderRun) claim(d storage.DueReminder, msgs map[storage.ReminderKey]mail.Message) storage.ReminderClaim {
	c := storage.ReminderClaim{ReminderKey: d.ReminderKey, DueDate: d.Invoice.DueDate, Status: storage.ReminderSkipped}
	raw := strings.TrimSpace(d.PayerEmail)
	if raw == "" {
		c.Error = "the payer has no e-mail address"
		return c
	}
	addr, err := mail.ParseAddress(raw)
	if err != nil {
		c.To, c.Error = raw, "the payer's e-mail address is not one: "+err.Error()
		return c
	}
	c.To = addr.Address
	n := ReminderNotice{DueReminder: d, CompanyID: rs.run.CompanyID(), Date: rs.date, To: *addr}
	n.To.Name = d.PayerName
	if rs.settings.ReplyTo != nil {
		n.ReplyTo = *rs.settings.ReplyTo
	}
	if rs.settings.SenderName != nil {
		n.SenderName = *rs.settings.SenderName
	}
	if n.Settlement, err = finance.DueOn(d.Invoice, rs.date, d.Paid); err != nil { // of the rest, when partly paid
		c.Error = "the amount due cannot be computed: " + err.Error()
		return c
	}
	n.dropStaleMeans()
	msg, err := rs.cfg.Composer.Compose(n)
	if err != nil {
		c.Error = "the message cannot be written: " + err.Error()
		return c
	}
	c.Subject, c.Status = msg.Subject, storage.ReminderSending
	msgs[d.ReminderKey] = msg
	return c
}

// send sends the messages of the reminders claimed over the run's
// connections, and says what became of each. When the server cannot be
// reached, the reminders not tried are failed (not sent), and the error
// is returned.
func (rs *reminderRun) send(ctx context.Context, claimed []storage.ReminderKey, msgs map[storage.ReminderKey]mail.Message) (
	[]storage.ReminderOutcome, error) {
	outcomes := make([]storage.ReminderOutcome, len(claimed))
	next := make(chan int)
	var mu sync.Mutex
	var unreachable error
	workers := min(rs.connections(), len(claimed))
	var wg sync.WaitGroup
	for range workers {
		conn := rs.takeConn()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				mu.Lock()
				stop := unreachable != nil
				mu.Unlock()
				if stop {
					outcomes[i] = notTried(claimed[i])
					continue
				}
				var err error
				outcomes[i], conn, err = rs.sendOne(ctx, conn, claimed[i], msgs[claimed[i]])
				if err != nil {
					mu.Lock()
					unreachable = err
					mu.Unlock()
				}
			}
			rs.giveConn(conn)
		}()
	}
	for i := range claimed {
		if ctx.Err() != nil {
			outcomes[i] = notTried(claimed[i])
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return outcomes, unreachable
}

// notTried is the outcome of a reminder claimed and not sent.
func notTried(k storage.ReminderKey) storage.ReminderOutcome {
	return storage.ReminderOutcome{ReminderKey: k, Status: storage.ReminderFailed,
		Error: "not sent: the run stopped before it (the mail server could not be reached, or the run was stopped)"}
}

// sendOne sends one message over conn (dialling when there is none, or
// it broke), and returns its outcome and the connection to go on with. A
// dial that fails is returned as the error: the server cannot be reached.
func (rs *reminderRun) sendOne(ctx context.Context, conn *mail.Conn, k storage.ReminderKey, msg mail.Message) (
	storage.ReminderOutcome, *mail.Conn, error) {
	out := storage.ReminderOutcome{ReminderKey: k}
	raw, err := msg.Bytes()
	if err != nil {
		out.Status, out.Error = storage.ReminderFailed, err.Error()
		return out, conn, nil
	}
	if conn != nil && conn.Broken() {
		conn.Close()
		conn = nil
	}
	if conn == nil {
		if conn, err = mail.Dial(ctx, rs.cfg.SMTP); err != nil {
			out.Status, out.Error = storage.ReminderFailed, "not sent: "+err.Error()
			return out, nil, err
		}
	}
	err = conn.Send(msg.From.Address, msg.To.Address, raw)
	var se *mail.SendError
	switch {
	case err == nil:
		out.Status, out.SentAt = storage.ReminderSent, time.Now()
	case errors.As(err, &se) && se.Maybe:
		out.Status, out.Error = storage.ReminderUnknown, "the connection broke after the message was written, before the server answered: it may have gone, and is not sent again ("+err.Error()+")"
	case errors.As(err, &se) && se.Permanent():
		out.Status, out.Error = storage.ReminderRefused, err.Error()
	default:
		out.Status, out.Error = storage.ReminderFailed, err.Error()
	}
	return out, conn, nil
}

func (rs *reminderRun) connections() int {
	if rs.cfg.Connections > 0 {
		return rs.cfg.Connections
	}
	return DefaultMailConnections
}

// takeConn takes an idle connection (nil when there is none).
func (rs *reminderRun) takeConn() *mail.Conn {
	rs.connMu.Lock()
	defer rs.connMu.Unlock()
	if len(rs.conns) == 0 {
		return nil
	}
	c := rs.conns[len(rs.conns)-1]
	rs.conns = rs.conns[:len(rs.conns)-1]
	return c
}

// giveConn keeps a connection for the next batch.
func (rs *reminderRun) giveConn(c *mail.Conn) {
	if c == nil {
		return
	}
	if c.Broken() {
		c.Close()
		return
	}
	rs.connMu.Lock()
	rs.conns = append(rs.conns, c)
	rs.connMu.Unlock()
}

func (rs *reminderRun) closeConns() {
	for _, c := range rs.conns {
		c.Close()
	}
	rs.conns = nil
}
