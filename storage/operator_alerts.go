package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// Operator alerts (docs/operations.md, "Alerts"): a job that ended failed
// (raised by FinishJobs, once per job and generation), a scheduled run not
// finished at the set time after its firing (RaiseRunMissing, once per
// company, schedule and date), an owner's transfer the bank paid after it
// was voided (by the payment return that records it, once per transfer:
// transfers_void_paid.go) and a short payment a return file reported and
// did not book (RaiseShortPayments, once per line of a file's content), and
// money a return file brought that nothing books (RaiseOverPayments, once
// per line too), and a payment the bank made that a payment return's line
// does not book (RaiseUnbookedPayments, once per line too). An
// alert is a row the operator webhook sender reads (sent_at null: not
// delivered yet; sent_open and resolved_sent_at: delivered open, its
// resolution not yet), and the Prometheus gauge of open alerts counts.

// Alert kinds.
const (
	AlertJobFailed        = "job_failed"
	AlertRunMissing       = "run_missing"
	AlertVoidTransferPaid = "void_transfer_paid"
	// AlertShortPayment: a return file's line paid less than its parts
	// add up to, not booked; open while its invoice or payment is unpaid.
	AlertShortPayment = "short_payment"
	// AlertOverPayment: a return file's line brought money for an
	// invoice that nothing books (beyond its rest, beyond the bank's own
	// parts, or on an invoice paid already), or a part recorded by hand
	// paid more than the discounted amount by the discount date, to be
	// given back or applied. Nothing in the ledger records that: it holds
	// until an operator records what was done with the money
	// (ResolveAlert).
	AlertOverPayment = "over_payment"
	// AlertUnbookedPayment: a payment return's line reports a payment of
	// a batch paid (the money left the account) and books nothing: the
	// line is not_settled (its entry deleted, in another batch since, its
	// date to come, ...) or already_paid (the entry was paid: the bank may
	// have paid twice). Nothing in the ledger records that: it holds until
	// an operator records what was done (ResolveAlert).
	AlertUnbookedPayment = "unbooked_payment"
)

// handResolved are the kinds of alert an operator closes by saying what
// was done with the money (ResolveAlert): nothing in the ledger closes
// them.
var handResolved = []string{AlertOverPayment, AlertUnbookedPayment}

// AlertKinds are the kinds of alert, in the order the API lists them.
var AlertKinds = []string{AlertJobFailed, AlertRunMissing, AlertVoidTransferPaid, AlertShortPayment, AlertOverPayment,
	AlertUnbookedPayment}

// Alert is one operator alert.
type Alert struct {
	CompanyID  int64
	ID         int64
	Kind       string
	JobID      *int64
	Generation *int
	JobKind    *string
	Schedule   *string
	RunDate    *time.Time
	// TransactionID is the transfer of a void_transfer_paid alert.
	TransactionID *int64
	// InvoiceID or PaymentID (a payment batch's member) is what a short
	// payment's alert names.
	InvoiceID *int64
	PaymentID *int64
	Message   string
	RaisedAt  time.Time
	// SentAt is when the operator webhook delivered the alert; nil: not
	// yet. ResolvedSentAt is when it delivered its resolution (an alert
	// delivered open that stopped holding is posted again, once).
	SentAt         *time.Time
	ResolvedSentAt *time.Time
	// Resolution (AlertResolutions), its reason, who recorded it (the
	// admin token's label) and when: what was done with an over
	// payment's money (ResolveAlert); nil while not said.
	Resolution       *string
	ResolutionReason *string
	ResolvedBy       *string
	ResolvedAt       *time.Time
	// Open: the job is still failed at that generation, the night has
	// still no finished run, the owner paid a voided transfer still owes
	// on its invoice, the invoice or payment paid short is still unpaid,
	// or the over payment is not resolved (read with the alert).
	Open bool
}

// RunMissing is the alert of a company's run of a schedule on a date that
// had not finished in time: the run is Kind's run of Key, JobID the job
// recorded for it when there is one.
type RunMissing struct {
	CompanyID int64
	Schedule  string
	Date      string
	Kind      string
	Key       string
	JobID     *int64
	Message   string
}

// RaiseRunMissing raises the alert of a run that had not finished in
// time; raised is false when it was raised before.
func RaiseRunMissing(ctx context.Context, q DBTX, m RunMissing) (raised bool, err error) {
	tag, err := q.Exec(ctx, `INSERT INTO operator_alerts (company_id, kind, schedule, run_date, job_kind, run_key, job_id, message)
		VALUES ($1, 'run_missing', $2, $3::date, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
		m.CompanyID, m.Schedule, m.Date, m.Kind, m.Key, m.JobID, m.Message)
	if err != nil {
		return false, translate(err, "raise run missing")
	}
	return tag.RowsAffected() == 1, nil
}

// LineAlert is the alert of a return file's line paid short or paid
// over: the return file's job, the line's key (ReturnTariffKey: the
// file's content and line), the invoice or the payment (a payment batch's
// member, short payments only) it names, and the words.
type LineAlert struct {
	JobID     int64
	Key       string
	InvoiceID int64
	PaymentID int64
	Message   string
}

// RaiseShortPayments raises the alerts of short payments, each once per
// key (a second reading of the same file raises nothing new), and returns
// how many it raised.
func RaiseShortPayments(ctx context.Context, q DBTX, companyID int64, shorts []LineAlert) (int64, error) {
	return raiseLineAlerts(ctx, q, companyID, AlertShortPayment, shorts)
}

// RaiseOverPayments raises the alerts of money a return file's lines
// brought that nothing books, each once per key, and returns how many it
// raised.
func RaiseOverPayments(ctx context.Context, q DBTX, companyID int64, overs []LineAlert) (int64, error) {
	return raiseLineAlerts(ctx, q, companyID, AlertOverPayment, overs)
}

// RaiseUnbookedPayments raises the alerts of payments the bank made that
// a payment return's lines book nowhere (not_settled, already_paid), each
// once per key, and returns how many it raised.
func RaiseUnbookedPayments(ctx context.Context, q DBTX, companyID int64, lines []LineAlert) (int64, error) {
	return raiseLineAlerts(ctx, q, companyID, AlertUnbookedPayment, lines)
}

// raiseLineAlerts raises alerts of kind (short_payment, over_payment,
// unbooked_payment: each has a unique index on its key) for lines of return files.
func raiseLineAlerts(ctx context.Context, q DBTX, companyID int64, kind string, shorts []LineAlert) (int64, error) {
	if len(shorts) == 0 {
		return 0, nil
	}
	n := len(shorts)
	jobs, invoices, payments := make([]int64, n), make([]int64, n), make([]int64, n)
	keys, messages := make([]string, n), make([]string, n)
	for i, sp := range shorts {
		jobs[i], invoices[i], payments[i], keys[i], messages[i] = sp.JobID, sp.InvoiceID, sp.PaymentID, sp.Key, sp.Message
	}
	tag, err := q.Exec(ctx, `INSERT INTO operator_alerts (company_id, kind, job_id, run_key, invoice_id, payment_id, message)
		SELECT $1, '`+kind+`', nullif(u.job, 0), u.key, nullif(u.invoice, 0), nullif(u.payment, 0), u.message
		FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::text[]) AS u(job, key, invoice, payment, message)
		ON CONFLICT (company_id, run_key) WHERE kind = '`+kind+`' DO NOTHING`,
		companyID, jobs, keys, invoices, payments, messages)
	if err != nil {
		return 0, translate(err, "raise "+kind+" alerts")
	}
	return tag.RowsAffected(), nil
}

// openAlertSQL says whether an alert still holds: its job is failed at
// its generation; the owner of its transfer still owes on the transfer's
// invoice (the owner's entries of the invoice add up to less than zero);
// the invoice or payment paid short is not paid; an over payment or an
// unbooked payment, until what was done with the money is recorded (nothing in the ledger says
// it was given back: ResolveAlert); no run of its night's key has
// succeeded. a is the alert's alias.
const openAlertSQL = `CASE a.kind
	WHEN 'job_failed' THEN EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = a.company_id AND j.id = a.job_id
		AND j.generation = a.generation AND j.state = 'failed')
	WHEN 'void_transfer_paid' THEN coalesce((SELECT sum(CASE t.type WHEN 'credit' THEN t.amount ELSE -t.amount END)
		FROM transactions x JOIN transactions t ON t.company_id = x.company_id AND t.invoice_id = x.invoice_id
		     AND t.owner_id = x.owner_id AND t.extract = 'owner'
		WHERE x.company_id = a.company_id AND x.id = a.transaction_id), 0) < 0
	WHEN 'short_payment' THEN EXISTS (SELECT 1 FROM invoices i WHERE i.company_id = a.company_id AND i.id = a.invoice_id
		AND NOT i.paid) OR EXISTS (SELECT 1 FROM payment_batch_transactions m WHERE m.company_id = a.company_id
		AND m.id = a.payment_id AND m.state NOT IN ('paid', 'cancelled'))
	WHEN 'over_payment' THEN a.resolved_at IS NULL
	WHEN 'unbooked_payment' THEN a.resolved_at IS NULL
	ELSE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = a.company_id AND j.kind = a.job_kind
		AND j.unique_key = a.run_key AND j.state = 'succeeded') END`

// alertColumns are the columns of an Alert, over operator_alerts a.
const alertColumns = `a.company_id, a.id, a.kind, a.job_id, a.generation, a.job_kind, a.schedule, a.run_date,
	a.transaction_id, a.invoice_id, a.payment_id, a.message, a.raised_at, a.sent_at, a.resolved_sent_at,
	a.resolution, a.resolution_reason, a.resolved_by, a.resolved_at, ` + openAlertSQL

// unresolvedOverPaymentSQL holds for an over payment or an unbooked
// payment not resolved: it holds until someone says what was done with
// the money, however old, so the list and the gauge keep it past their
// week. a is the alert's alias.
const unresolvedOverPaymentSQL = `(a.kind IN ('over_payment', 'unbooked_payment') AND a.resolved_at IS NULL)`

// Alerts lists the alerts raised since, and the over payments not
// resolved however old, newest first, at most limit.
func Alerts(ctx context.Context, q DBTX, since time.Time, limit int) ([]Alert, error) {
	rows, err := q.Query(ctx, `SELECT `+alertColumns+` FROM operator_alerts a
		WHERE a.raised_at >= $1 OR `+unresolvedOverPaymentSQL+` ORDER BY a.raised_at DESC, a.id DESC LIMIT $2`, since, limit)
	if err != nil {
		return nil, translate(err, "alerts")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Alert])
	return out, translate(err, "alerts")
}

// OpenAlerts counts the alerts that still hold, by kind (the gauge
// propfin_operator_alerts_open), among those raised in the last week, and
// the over payments not resolved however old.
func OpenAlerts(ctx context.Context, q DBTX) (map[string]int64, error) {
	rows, err := q.Query(ctx, `SELECT a.kind, count(*) FILTER (WHERE `+openAlertSQL+`) FROM operator_alerts a
		WHERE a.raised_at > now() - interval '7 days' OR `+unresolvedOverPaymentSQL+` GROUP BY a.kind`)
	if err != nil {
		return nil, translate(err, "open alerts")
	}
	defer rows.Close()
	out := make(map[string]int64, len(AlertKinds))
	for _, k := range AlertKinds {
		out[k] = 0
	}
	for rows.Next() {
		var kind string
		var n int64
		if err := rows.Scan(&kind, &n); err != nil {
			return nil, translate(err, "open alerts")
		}
		out[kind] = n
	}
	return out, translate(rows.Err(), "open alerts")
}

// AlertSender delivers one post of an alert (the operator webhook, signed
// like the company webhooks); an error leaves the post undelivered, for
// the next round. An alert is handed to it first with SentAt nil, in its
// state then (Open); and, when it was delivered open and has stopped
// holding since, once more, with SentAt set and Open false: its
// resolution.
type AlertSender func(ctx context.Context, a Alert) error

// unsentAlertSQL takes the oldest alert not delivered yet that no other
// sender holds.
const unsentAlertSQL = `SELECT ` + alertColumns + ` FROM operator_alerts a
	WHERE a.sent_at IS NULL ORDER BY a.raised_at, a.id LIMIT 1 FOR UPDATE OF a SKIP LOCKED`

// unresolvedAlertSQL takes the oldest alert delivered open that no longer
// holds and whose resolution is not delivered yet, that no other sender
// holds.
const unresolvedAlertSQL = `SELECT ` + alertColumns + ` FROM operator_alerts a
	WHERE a.sent_open AND a.resolved_sent_at IS NULL AND NOT (` + openAlertSQL + `)
	ORDER BY a.raised_at, a.id LIMIT 1 FOR UPDATE OF a SKIP LOCKED`

// SendAlerts is the seam of the operator webhook: it takes up to limit
// posts not delivered yet, hands each to send and marks it delivered in
// the same transaction, one post per transaction, skipping the alerts
// another sender holds: first the alerts not delivered yet, oldest first
// (each marked with whether it held then), then the resolutions of the
// alerts delivered open that have stopped holding, oldest first. A
// failed post ends the round. It returns how many posts were delivered.
func SendAlerts(ctx context.Context, db Beginner, send AlertSender, limit int) (int, error) {
	sent := 0
	for sent < limit {
		done := false
		err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
			a, found, err := nextAlertPost(ctx, tx)
			if err != nil || !found {
				done = true
				return err
			}
			if err := send(ctx, a); err != nil {
				done = true
				return err
			}
			if a.SentAt == nil {
				_, err = tx.Exec(ctx, `UPDATE operator_alerts SET sent_at = now(), sent_open = $3
					WHERE company_id = $1 AND id = $2`, a.CompanyID, a.ID, a.Open)
			} else {
				_, err = tx.Exec(ctx, `UPDATE operator_alerts SET resolved_sent_at = now()
					WHERE company_id = $1 AND id = $2`, a.CompanyID, a.ID)
			}
			return err
		})
		if err != nil {
			return sent, translate(err, "send alerts")
		}
		if done {
			return sent, nil
		}
		sent++
	}
	return sent, nil
}

// nextAlertPost locks, in tx, the next alert to post: one not delivered
// yet, else the resolution of one delivered open.
func nextAlertPost(ctx context.Context, tx pgx.Tx) (Alert, bool, error) {
	for _, sql := range []string{unsentAlertSQL, unresolvedAlertSQL} {
		rows, err := tx.Query(ctx, sql)
		if err != nil {
			return Alert{}, false, err
		}
		alerts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Alert])
		if err != nil {
			return Alert{}, false, err
		}
		if len(alerts) > 0 {
			return alerts[0], true, nil
		}
	}
	return Alert{}, false, nil
}

// PruneAlerts deletes a company's alerts raised before cutoff that no
// longer hold (openAlertSQL, judged against the jobs as they are: prune
// the alerts before the jobs they name), sent or not, batch rows a
// statement, and returns how many it deleted. An alert that still holds
// is kept however old.
func PruneAlerts(ctx context.Context, q DBTX, companyID int64, cutoff time.Time, batch int) (int64, error) {
	var total int64
	for {
		tag, err := q.Exec(ctx, `DELETE FROM operator_alerts WHERE company_id = $1 AND id IN (
			SELECT a.id FROM operator_alerts a WHERE a.company_id = $1 AND a.raised_at < $2
				AND NOT (`+openAlertSQL+`) LIMIT $3)`, companyID, cutoff, batch)
		if err != nil {
			return total, translate(err, "prune alerts")
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, translate(err, "prune alerts")
		}
	}
}

// AlertResolutions are what may be done with an over payment's money:
// given back to the payer, applied (to another invoice, a credit of the
// payer's), or otherwise dealt with (the reason says how).
var AlertResolutions = []string{"refunded", "applied", "other"}

// AlertResolution is what an operator records of an alert's money: the
// resolution (AlertResolutions), why (the reason, required), and who (the
// admin token's label).
type AlertResolution struct {
	Resolution string
	Reason     string
	Operator   string
}

// ResolveAlert records, in tx, what was done with the money of the
// over_payment or unbooked_payment alert id (of any company): its resolution, reason, who and
// when, and a row of the operators' audit log (action alerts.resolve),
// so that it no longer holds (openAlertSQL: out of the gauge, pruned
// once old). It answers the alert as it leaves it and the audit row's id. NotFound for no such
// alert; Conflict for an alert of another kind (it closes by itself when
// what it names is settled) or one resolved already; Invalid for a
// resolution not of AlertResolutions or no reason.
func ResolveAlert(ctx context.Context, tx pgx.Tx, id int64, r AlertResolution) (Alert, int64, error) {
	a, err := lockOverPayment(ctx, tx, 0, id, r)
	if err != nil {
		return a, 0, err
	}
	what := "invoice 0"
	switch {
	case a.InvoiceID != nil:
		what = fmt.Sprintf("invoice %d", *a.InvoiceID)
	case a.PaymentID != nil:
		what = fmt.Sprintf("payment %d", *a.PaymentID)
	}
	audit, err := RecordAudit(ctx, tx, AuditEntry{Operator: r.Operator, Action: "alerts.resolve", Reason: r.Reason,
		Selection: fmt.Sprintf("alert %d (%s, company %d, %s): %s", id, a.Kind, a.CompanyID, what, r.Resolution)})
	if err != nil {
		return a, 0, err
	}
	rows, err := tx.Query(ctx, `UPDATE operator_alerts a SET resolution = $3, resolution_reason = $4, resolved_by = $5,
		    resolved_at = now(), resolution_audit_id = $6
		WHERE a.company_id = $1 AND a.id = $2 RETURNING `+alertColumns, a.CompanyID, id, r.Resolution, r.Reason, r.Operator, audit)
	if err != nil {
		return a, 0, translate(err, fmt.Sprintf("resolve alert %d", id))
	}
	a, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[Alert])
	return a, audit, translate(err, fmt.Sprintf("resolve alert %d", id))
}

// lockOverPayment checks the resolution r and locks the over_payment alert
// id of company companyID (0: of any company, as an operator resolves
// it), refusing one resolved already. NotFound for no such alert, and, for
// a company, for an alert of another kind (its over payments are all it
// reads); Conflict, for an operator, for an alert of another kind (it
// closes by itself once what it names is settled).
func lockOverPayment(ctx context.Context, tx pgx.Tx, companyID, id int64, r AlertResolution) (Alert, error) {
	var ps []finance.Problem
	if !slices.Contains(AlertResolutions, r.Resolution) {
		ps = append(ps, finance.Problem{Field: "resolution", Message: "must be one of " + strings.Join(AlertResolutions, ", ")})
	}
	if strings.TrimSpace(r.Reason) == "" {
		ps = append(ps, finance.Problem{Field: "reason", Message: "is required: say what was done with the money (it is kept with the over payment)"})
	}
	if len(ps) > 0 {
		return Alert{}, finance.InvalidInput(ps)
	}
	name := fmt.Sprintf("Alert %d", id)
	if companyID != 0 {
		name = fmt.Sprintf("Over payment %d", id)
	}
	rows, err := tx.Query(ctx, `SELECT `+alertColumns+` FROM operator_alerts a
		WHERE a.id = $1 AND ($2 = 0 OR (a.company_id = $2 AND a.kind = 'over_payment')) FOR UPDATE`, id, companyID)
	if err != nil {
		return Alert{}, translate(err, strings.ToLower(name))
	}
	alerts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Alert])
	switch {
	case err != nil:
		return Alert{}, translate(err, strings.ToLower(name))
	case len(alerts) == 0:
		return Alert{}, finance.Errorf(finance.NotFound, "%s not found.", name)
	}
	a := alerts[0]
	switch {
	case !slices.Contains(handResolved, a.Kind):
		return a, finance.Errorf(finance.Conflict, "Alert %d is a %s alert: it closes by itself once what it names is "+
			"settled; only an over_payment or unbooked_payment alert is resolved by hand.", id, a.Kind)
	case a.ResolvedAt != nil:
		return a, finance.Errorf(finance.Conflict, "%s is resolved already (%s by %s on %s: %s).", name, *a.Resolution,
			*a.ResolvedBy, a.ResolvedAt.UTC().Format(time.DateTime), *a.ResolutionReason)
	}
	return a, nil
}
