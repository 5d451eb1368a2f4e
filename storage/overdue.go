package storage

// The nightly overdue recalculation (docs/jobs.md, finance:overdue): set-based
// statements that bring a company's invoice statuses, contract payment
// statuses and calendar event statuses to what package finance's rules say
// on a date, one id range at a time. Each statement writes only the rows
// whose value changes, so a second run on the same date writes nothing.

import (
	"context"
	"fmt"

	"github.com/propfin/propfin/finance"
)

// OriginOverdue is the origin of the invoice history rows the overdue
// recalculation writes (actor ActorJob, the job's id).
const OriginOverdue = "overdue"

// IDSpan is the lowest and highest id of a company's rows in a table; both
// are zero when it has none.
type IDSpan struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// Empty reports whether the span holds no row.
func (s IDSpan) Empty() bool { return s.Max == 0 }

// OverdueTables are the tables the overdue recalculation writes, in the
// order it writes them.
var OverdueTables = []string{"invoices", "contracts", "events"}

// CompanyIDSpan returns the span of the company's ids in table, one of
// OverdueTables.
func CompanyIDSpan(ctx context.Context, q DBTX, table string, companyID int64) (IDSpan, error) {
	if !overdueTable(table) {
		return IDSpan{}, fmt.Errorf("id span of %q: not a table of the overdue recalculation", table)
	}
	var s IDSpan
	err := q.QueryRow(ctx, `SELECT coalesce(min(id), 0), coalesce(max(id), 0) FROM `+table+
		` WHERE company_id = $1`, companyID).Scan(&s.Min, &s.Max)
	if err != nil {
		return IDSpan{}, translate(err, "id span of "+table)
	}
	return s, nil
}

func overdueTable(table string) bool {
	for _, t := range OverdueTables {
		if t == table {
			return true
		}
	}
	return false
}

// invoiceStatusAsOf is finance.InvoiceStatusAsOf for the invoices it
// moves, those not paid and stored unpaid or overdue: overdue from the day
// after the due date ($4), unpaid up to it. The stored status is read the
// same way by the API (invoiceStatusExpr).
const invoiceStatusAsOf = `CASE WHEN due_date < $4::date THEN 'overdue' ELSE 'unpaid' END`

// The two history entries an overdue run writes, as FieldChange lists.
const (
	historyToOverdue = `[{"field":"status","from":"unpaid","to":"overdue"}]`
	historyToUnpaid  = `[{"field":"status","from":"overdue","to":"unpaid"}]`
)

// UpdateInvoiceStatuses moves the company's invoices with ids from..to
// (inclusive) that are not paid and stored unpaid or overdue to their
// status on asOf, and writes a history row (actor job jobID, origin
// overdue) for each one moved, in one statement. Other statuses are left
// as they are. It returns how many invoices it moved.
func UpdateInvoiceStatuses(ctx context.Context, q DBTX, companyID, jobID int64, from, to int64, asOf finance.Date) (int64, error) {
	// Only unpaid and overdue are moved, and only between the two, so a
	// row's status before the update is the other one.
	tag, err := q.Exec(ctx, `WITH moved AS (
			UPDATE invoices SET status = `+invoiceStatusAsOf+`, updated_at = now()
			WHERE company_id = $1 AND id BETWEEN $2 AND $3 AND NOT paid AND status IN ('unpaid', 'overdue')
				AND status IS DISTINCT FROM `+invoiceStatusAsOf+`
			RETURNING id, status)
		INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes)
		SELECT $1, id, $5, $6, $7, CASE status WHEN 'overdue' THEN $8::jsonb ELSE $9::jsonb END FROM moved`,
		companyID, from, to, asOf, ActorJob, jobID, OriginOverdue, historyToOverdue, historyToUnpaid)
	if err != nil {
		return 0, translate(err, "update invoice statuses")
	}
	return tag.RowsAffected(), nil
}

// paymentStatusAsOf is finance.PaymentStatusAsOf in SQL, over a row with
// counted (the contract has an invoice that is not canceled) and
// oldest_open (the earliest due date of its open invoices, NULL when none)
// on the date $4. The earliest open due date decides both branches of the
// Go rule: when it is past, it is the oldest late invoice; when it is not,
// no invoice is late and it is the nearest one due. TestPaymentStatusSQL
// runs the Go rule's cases through both.
const paymentStatusAsOf = `CASE
	WHEN NOT coalesce(counted, false) THEN 'nothing'
	WHEN oldest_open IS NULL THEN 'ok'
	WHEN $4::date - oldest_open > 90 THEN '3_months'
	WHEN $4::date - oldest_open > 30 THEN 'month'
	WHEN $4::date - oldest_open > 4 THEN '30_days'
	WHEN $4::date - oldest_open > 0 THEN '5_days'
	WHEN oldest_open - $4::date <= 5 THEN 'due_5_days'
	WHEN oldest_open - $4::date <= 10 THEN 'due_10_days'
	ELSE 'ok' END`

// UpdatePaymentStatuses sets payment_status of the company's contracts
// with ids from..to (inclusive) to their status on asOf, computed from
// their invoices in one statement, and payment_status_date to asOf where
// the status changes (or was never dated). It returns how many contracts
// it wrote.
func UpdatePaymentStatuses(ctx context.Context, q DBTX, companyID, from, to int64, asOf finance.Date) (int64, error) {
	tag, err := q.Exec(ctx, `WITH invoiced AS (
			SELECT contract_id,
				bool_or(status <> 'canceled') AS counted,
				min(due_date) FILTER (WHERE `+invoiceOpen+`) AS oldest_open
			FROM invoices WHERE company_id = $1 AND contract_id BETWEEN $2 AND $3
			GROUP BY contract_id),
		classified AS (
			SELECT c.id, `+paymentStatusAsOf+` AS payment_status
			FROM contracts c LEFT JOIN invoiced i ON i.contract_id = c.id
			WHERE c.company_id = $1 AND c.id BETWEEN $2 AND $3)
		UPDATE contracts c SET payment_status = n.payment_status, payment_status_date = $4, updated_at = now()
		FROM classified n
		WHERE c.company_id = $1 AND c.id = n.id
			AND (c.payment_status IS DISTINCT FROM n.payment_status OR c.payment_status_date IS NULL)`,
		companyID, from, to, asOf)
	if err != nil {
		return 0, translate(err, "update payment statuses")
	}
	return tag.RowsAffected(), nil
}

// eventStatusAsOf is finance.EventStatusAsOf in SQL on the date $4: the
// expression the events resource reads status with (eventStatusSQL), so
// that what the run stores is what a read shows that day.
var eventStatusAsOf = eventStatusSQL("$4::date")

// UpdateEventStatuses sets the status of the company's calendar events
// with ids from..to (inclusive) to their status on asOf and returns how
// many it changed.
func UpdateEventStatuses(ctx context.Context, q DBTX, companyID, from, to int64, asOf finance.Date) (int64, error) {
	tag, err := q.Exec(ctx, `UPDATE events SET status = `+eventStatusAsOf+`, updated_at = now()
		WHERE company_id = $1 AND id BETWEEN $2 AND $3 AND status IS DISTINCT FROM `+eventStatusAsOf,
		companyID, from, to, asOf)
	if err != nil {
		return 0, translate(err, "update event statuses")
	}
	return tag.RowsAffected(), nil
}
