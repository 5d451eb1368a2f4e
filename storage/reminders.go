package storage

// Billing reminders (docs/jobs.md, "invoices:remind"): which invoices a
// company's rules remind on a date, the rows that make each reminder go
// at most once, and the read-only resource that lists them.

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// Reminders is the resource of the reminders sent (/financial/reminders).
const Reminders = "reminders"

// The statuses of a reminder (migration 0037 says what each means).
const (
	ReminderSending = "sending"
	ReminderSent    = "sent"
	ReminderFailed  = "failed"
	ReminderRefused = "refused"
	ReminderUnknown = "unknown"
	ReminderSkipped = "skipped"
)

// ReminderStatuses lists them.
var ReminderStatuses = []string{ReminderSending, ReminderSent, ReminderFailed, ReminderRefused, ReminderUnknown, ReminderSkipped}

// RemindableStatuses are the statuses of the invoices reminded, of those
// not paid: owed and in the company's hands. A paid, refunded, canceled,
// uncollectible (written off) or renegotiated invoice is never reminded,
// nor one in protest, which the notary's office collects; any status
// added later is left out until it is listed here.
var RemindableStatuses = []string{"unpaid", "overdue", "partially_paid"}

// remindable is the condition on an invoice (alias i) of being reminded;
// the repeated open condition lets invoices_open_status serve it.
const remindable = `NOT i.paid AND i.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible')
	AND i.status = ANY ($3::text[])`

func remindersResource() *Resource {
	return &Resource{
		Name: Reminders, Table: "reminders", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true, References: Invoices},
			{Name: "rule", Type: Int, Filterable: true},
			{Name: "date", Type: Date, Filterable: true},
			{Name: "due_date", Type: Date, Filterable: true},
			{Name: "to", Type: String, Filterable: true},
			{Name: "subject", Type: String, Filterable: true},
			{Name: "status", Type: String, Filterable: true, Enum: ReminderStatuses},
			{Name: "attempts", Type: Int, Filterable: true},
			{Name: "error", Type: String, Filterable: true},
			{Name: "job_id", Type: Int, Filterable: true, References: Jobs},
			{Name: "created_at", Type: DateTime, Filterable: true},
			{Name: "sent_at", Type: DateTime, Filterable: true},
		},
		Relations: []Relation{
			{Name: "invoice", Kind: BelongsTo, Resource: Invoices, Key: "invoice_id"},
			{Name: "job", Kind: BelongsTo, Resource: Jobs, Key: "job_id"},
		},
	}
}

// ReminderKey names one reminder of a date: an invoice and a rule.
type ReminderKey struct {
	InvoiceID int64
	Rule      int
}

// DueReminderKeys lists, in invoice and rule order, the company's
// invoices that one of rules reminds on date (remindable, due rule days
// before date) whose reminder has not been sent, refused, or tried with
// an unknown outcome (none, or one failed or skipped), and counts those
// it leaves out. It reads invoices_open_status and reminders_once alone.
func DueReminderKeys(ctx context.Context, q DBTX, companyID int64, date finance.Date, rules []int) ([]ReminderKey, int, error) {
	rows, err := q.Query(ctx, `SELECT i.id, r.rule, EXISTS (SELECT 1 FROM reminders m
			WHERE m.company_id = $1 AND m.invoice_id = i.id AND m.rule = r.rule AND m.date = $2
				AND m.status NOT IN ('failed', 'skipped'))
		FROM unnest($4::int[]) AS r (rule)
		JOIN invoices i ON i.company_id = $1 AND i.due_date = $2::date - r.rule AND `+remindable+`
		ORDER BY i.id, r.rule`, companyID, date, RemindableStatuses, rules)
	if err != nil {
		return nil, 0, translate(err, "reminders due")
	}
	var keys []ReminderKey
	var k ReminderKey
	var done bool
	before := 0
	_, err = pgx.ForEachRow(rows, []any{&k.InvoiceID, &k.Rule, &done}, func() error {
		if done {
			before++
		} else {
			keys = append(keys, k)
		}
		return nil
	})
	return keys, before, translate(err, "reminders due")
}

// DueReminder is what the message of one reminder says: the invoice as
// the rules read it (with its lines when its late fee is on one item's),
// its number, status, payer, business and company, and how it is paid.
type DueReminder struct {
	ReminderKey
	Invoice      finance.Invoice
	Number       string // the invoice's id2, or its id
	Status       string
	PayerName    string
	PayerEmail   string // "" when the payer has none
	BusinessName string
	CompanyName  string
	TimeZone     string // the company's IANA time zone: the message's Date header is written in it
	PixCode      string
	Digitable    string // the boleto's digitable line
	// Paid is what the invoice's standing parts paid of it (a partially
	// paid invoice's reminder is of its rest: finance.DueOn).
	Paid finance.PaidSoFar
}

// LoadDueReminders reads the reminders of keys that are still due on date
// (the invoice still remindable and due rule days before), in the order
// of keys.
func LoadDueReminders(ctx context.Context, q DBTX, companyID int64, date finance.Date, keys []ReminderKey) ([]DueReminder, error) {
	ids, rules := make([]int64, len(keys)), make([]int32, len(keys))
	for i, k := range keys {
		ids[i], rules[i] = k.InvoiceID, int32(k.Rule)
	}
	rows, err := q.Query(ctx, `SELECT k.id, k.rule, coalesce(i.id2, i.id::text), i.status, i.description, i.total, i.date,
			i.due_date, i.ticket_late_fee, coalesce(i.ticket_late_fee_item_id, 0), coalesce(i.ticket_late_fee_percentage, 0),
			coalesce(i.ticket_late_fee_interest, 0), i.ticket_discount, coalesce(i.ticket_discount_mode, ''),
			coalesce(i.ticket_discount_fixed, 0), coalesce(i.ticket_discount_percentage, 0), coalesce(i.ticket_discount_days, 0),
			coalesce(p.name, ''), coalesce(p.email, ''), coalesce(b.name, ''), c.name, c.time_zone,
			coalesce(i.pix_code, ''), coalesce(i.ticket_digitable, ''),
			coalesce(pp.principal, 0), coalesce(pp.parts, 0)
		FROM unnest($4::bigint[], $5::int[]) WITH ORDINALITY AS k (id, rule, n)
		JOIN invoices i ON i.company_id = $1 AND i.id = k.id AND i.due_date = $2::date - k.rule AND `+remindable+`
		JOIN companies c ON c.id = i.company_id
		LEFT JOIN persons p ON p.company_id = i.company_id AND p.id = i.payer_id
		LEFT JOIN businesses b ON b.company_id = i.company_id AND b.id = i.business_id
		LEFT JOIN LATERAL (SELECT sum(principal) AS principal, count(*) AS parts FROM invoice_payments
		                   WHERE company_id = i.company_id AND invoice_id = i.id AND undone_at IS NULL) pp ON true
		ORDER BY k.n`, companyID, date, RemindableStatuses, ids, rules)
	if err != nil {
		return nil, translate(err, "load reminders")
	}
	var out []DueReminder
	var withLines []int64
	var r DueReminder
	var mode string
	inv := &r.Invoice
	_, err = pgx.ForEachRow(rows, []any{&r.InvoiceID, &r.Rule, &r.Number, &r.Status, &inv.Description, &inv.Total, &inv.Date,
		&inv.DueDate, &inv.TicketLateFee, &inv.TicketLateFeeItemID, &inv.TicketLateFeePercentage,
		&inv.TicketLateFeeInterest, &inv.TicketDiscount, &mode,
		&inv.TicketDiscountFixed, &inv.TicketDiscountPercentage, &inv.TicketDiscountDays,
		&r.PayerName, &r.PayerEmail, &r.BusinessName, &r.CompanyName, &r.TimeZone, &r.PixCode, &r.Digitable,
		&r.Paid.Principal, &r.Paid.Parts}, func() error {
		inv.ID, inv.TicketDiscountMode = r.InvoiceID, finance.DiscountMode(mode)
		if inv.TicketLateFeeItemID != 0 {
			withLines = append(withLines, r.InvoiceID)
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, errReminderRow(translate(err, "load reminders"))
	}
	lines, err := reminderLines(ctx, q, companyID, withLines)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Invoice.Items = lines[out[i].InvoiceID]
	}
	return out, nil
}

// ReminderClaim is a reminder about to be sent (Status ReminderSending),
// or one that cannot be (ReminderSkipped, with its Error).
type ReminderClaim struct {
	ReminderKey
	DueDate finance.Date
	To      string
	Subject string
	Status  string
	Error   string
}

// ClaimReminders writes the rows of claims for the run jobID of date, and
// returns the keys whose row it wrote with status sending: a new row, or
// one failed (or skipped) before, whose attempt it counts. A row in any
// other status is left as it is, so a reminder sent, refused, of unknown
// outcome or being sent is never claimed twice. Only invoices still
// remindable and due rule days before date are claimed. It commits on its
// own (q is the pool): the row must be stored before the message goes.
func ClaimReminders(ctx context.Context, q DBTX, companyID, jobID int64, date finance.Date, claims []ReminderClaim) ([]ReminderKey, error) {
	n := len(claims)
	ids, rules, tos, subjects, statuses, errs := make([]int64, n), make([]int32, n), make([]*string, n), make([]string, n),
		make([]string, n), make([]*string, n)
	for i, c := range claims {
		ids[i], rules[i], subjects[i], statuses[i] = c.InvoiceID, int32(c.Rule), c.Subject, c.Status
		if c.To != "" {
			tos[i] = &claims[i].To
		}
		if c.Error != "" {
			errs[i] = &claims[i].Error
		}
	}
	rows, err := q.Query(ctx, `INSERT INTO reminders AS r (company_id, invoice_id, rule, date, due_date, "to", subject, status, error, job_id)
		SELECT $1, i.id, c.rule, $2, i.due_date, c.to, c.subject, c.status, c.error, $6
		FROM unnest($4::bigint[], $5::int[], $7::text[], $8::text[], $9::text[], $10::text[]) AS c (id, rule, "to", subject, status, error)
		JOIN invoices i ON i.company_id = $1 AND i.id = c.id AND i.due_date = $2::date - c.rule AND `+remindable+`
		ON CONFLICT (company_id, invoice_id, rule, date) DO UPDATE SET
			"to" = excluded."to", subject = excluded.subject, status = excluded.status, error = excluded.error,
			job_id = excluded.job_id, attempts = r.attempts + 1, claimed_at = now()
		WHERE r.status IN ('failed', 'skipped')
		RETURNING invoice_id, rule, status`,
		companyID, date, RemindableStatuses, ids, rules, jobID, tos, subjects, statuses, errs)
	if err != nil {
		return nil, translate(err, "claim reminders")
	}
	var claimed []ReminderKey
	var k ReminderKey
	var status string
	_, err = pgx.ForEachRow(rows, []any{&k.InvoiceID, &k.Rule, &status}, func() error {
		if status == ReminderSending {
			claimed = append(claimed, k)
		}
		return nil
	})
	return claimed, translate(err, "claim reminders")
}

// ReminderOutcome is what became of a reminder claimed: sent (SentAt), or
// failed, refused or unknown with its Error.
type ReminderOutcome struct {
	ReminderKey
	Status string
	Error  string
	SentAt time.Time
}

// RecordReminderOutcomes writes the outcomes of the reminders the run
// jobID claimed on date, on the rows it left sending.
func RecordReminderOutcomes(ctx context.Context, q DBTX, companyID, jobID int64, date finance.Date, outcomes []ReminderOutcome) error {
	n := len(outcomes)
	ids, rules, statuses, errs, sent := make([]int64, n), make([]int32, n), make([]string, n), make([]*string, n), make([]*time.Time, n)
	for i, o := range outcomes {
		ids[i], rules[i], statuses[i] = o.InvoiceID, int32(o.Rule), o.Status
		if o.Error != "" {
			errs[i] = &outcomes[i].Error
		}
		if !o.SentAt.IsZero() {
			sent[i] = &outcomes[i].SentAt
		}
	}
	_, err := q.Exec(ctx, `UPDATE reminders r SET status = o.status, error = o.error, sent_at = o.sent_at
		FROM unnest($4::bigint[], $5::int[], $6::text[], $7::text[], $8::timestamptz[]) AS o (id, rule, status, error, sent_at)
		WHERE r.company_id = $1 AND r.invoice_id = o.id AND r.rule = o.rule AND r.date = $2
			AND r.status = 'sending' AND r.job_id = $3`,
		companyID, date, jobID, ids, rules, statuses, errs, sent)
	return translate(err, "record reminder outcomes")
}

// MarkStaleReminders marks unknown the company's reminders left sending
// since before: the run that claimed them stopped before it recorded
// whether the server took them. It returns how many it marked.
func MarkStaleReminders(ctx context.Context, q DBTX, companyID int64, before time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `UPDATE reminders SET status = 'unknown',
			error = 'the run stopped while sending: the message may have gone, and is not sent again'
		WHERE company_id = $1 AND status = 'sending' AND claimed_at < $2`, companyID, before)
	if err != nil {
		return 0, translate(err, "mark stale reminders")
	}
	return tag.RowsAffected(), nil
}

// reminderLines reads the client lines of invoices, by invoice, for the
// late fee computed on one item's lines.
func reminderLines(ctx context.Context, q DBTX, companyID int64, ids []int64) (map[int64][]finance.InvoiceItem, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := q.Query(ctx, `SELECT invoice_id, id, item_id, amount FROM invoice_items
		WHERE company_id = $1 AND invoice_id = any($2) AND kind = 'line' ORDER BY invoice_id, id`, companyID, ids)
	if err != nil {
		return nil, translate(err, "reminder invoice lines")
	}
	out := map[int64][]finance.InvoiceItem{}
	var inv int64
	l := finance.InvoiceItem{Kind: finance.LineLine}
	_, err = pgx.ForEachRow(rows, []any{&inv, &l.ID, &l.ItemID, &l.Amount}, func() error {
		out[inv] = append(out[inv], l)
		return nil
	})
	if err != nil {
		return nil, translate(err, "reminder invoice lines")
	}
	return out, nil
}

// errReminderRow wraps a row that does not read.
func errReminderRow(err error) error { return fmt.Errorf("read a due reminder: %w", err) }
