package storage

// The nightly overdue recalculation (docs/jobs.md, finance:overdue): set-based
// statements that bring a company's invoice statuses, contract payment
// statuses and calendar event statuses to what package finance's rules say
// on a date, a chunk at a time. The invoice and contract statements read
// only the rows whose status can change on the date (migration 0017), and
// each statement writes only the rows whose value changes, so a second run
// on the same date reads next to nothing and writes nothing.

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

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
// order it writes them: the agreements it breaks (BreakOverdueAgreements)
// after the invoices' statuses and before the contracts', which the
// originals given back change.
var OverdueTables = []string{"invoices", "agreements", "contracts", "events"}

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

// planned runs a statement unprepared, as an unnamed statement that
// PostgreSQL plans for the values of each run (the mode is the first of
// the arguments). A prepared statement may be given a generic plan after
// five runs, one that cannot tell a chunk's date or range from another's
// (docs/performance.md): one chunk may look at a few rows through
// invoices_open_status, the next at every row of its range.
func planned(args ...any) []any {
	return append([]any{pgx.QueryExecModeDescribeExec}, args...)
}

// The passes of the recalculation that keep the dates their stored
// statuses hold for (overdue_state).
const (
	PassInvoices  = "invoices"
	PassContracts = "contracts"
)

// OverdueWindow is the dates from Low to High that the stored statuses of a
// pass hold for: every row of the pass without a mark holds its status of
// some day between them (both zero: not known).
type OverdueWindow struct {
	Low, High finance.Date
}

// Known reports whether the dates are known.
func (w OverdueWindow) Known() bool { return !w.Low.IsZero() }

// With returns w widened to include d (not known stays not known).
func (w OverdueWindow) With(d finance.Date) OverdueWindow {
	if !w.Known() {
		return w
	}
	if d.Before(w.Low) {
		w.Low = d
	}
	if d.After(w.High) {
		w.High = d
	}
	return w
}

// maxOverdueWindowDays bounds how far apart the dates a pass looks for
// changes between may be (those the stored statuses hold for, and its
// own): further apart, the contract pass recalculates every contract, and
// a run cuts both passes into chunks as it does when they are not known.
const maxOverdueWindowDays = 31

// Narrow reports whether a run on asOf finds the rows that change by
// looking for changes only: the dates are known and, with asOf, at most
// maxOverdueWindowDays apart.
func (w OverdueWindow) Narrow(asOf finance.Date) bool {
	w = w.With(asOf)
	return w.Known() && w.Low.DaysUntil(w.High) <= maxOverdueWindowDays
}

// OverdueWindows reads the company's windows of both passes as they are,
// without waiting for a run that holds them, to plan a run.
func OverdueWindows(ctx context.Context, q DBTX, companyID int64) (map[string]OverdueWindow, error) {
	rows, err := q.Query(ctx, `SELECT pass, as_of_low, as_of_high FROM overdue_state WHERE company_id = $1`, companyID)
	if err != nil {
		return nil, translate(err, "overdue windows")
	}
	windows := map[string]OverdueWindow{}
	for rows.Next() {
		var pass string
		var w OverdueWindow
		if err := rows.Scan(&pass, &w.Low, &w.High); err != nil {
			return nil, translate(err, "overdue windows")
		}
		windows[pass] = w
	}
	return windows, translate(rows.Err(), "overdue windows")
}

// OverduePlanFacts reads, in one statement, what a run's plan is cut
// from: the company's windows of both passes, as OverdueWindows reads
// them, and the span of its ids in each of OverdueTables, as
// CompanyIDSpan reads it (each span one min/max probe of the table's key).
func OverduePlanFacts(ctx context.Context, q DBTX, companyID int64) (map[string]OverdueWindow, map[string]IDSpan, error) {
	var b strings.Builder
	b.WriteString(`SELECT true, pass, 0::bigint, 0::bigint, as_of_low, as_of_high FROM overdue_state WHERE company_id = $1`)
	for _, t := range OverdueTables {
		b.WriteString("\n\tUNION ALL SELECT false, '" + t + "', coalesce(min(id), 0), coalesce(max(id), 0), NULL::date, NULL::date FROM " +
			t + " WHERE company_id = $1")
	}
	rows, err := q.Query(ctx, b.String(), companyID)
	if err != nil {
		return nil, nil, translate(err, "overdue plan")
	}
	defer rows.Close()
	windows, spans := map[string]OverdueWindow{}, map[string]IDSpan{}
	for rows.Next() {
		var window bool
		var name string
		var span IDSpan
		var w OverdueWindow
		if err := rows.Scan(&window, &name, &span.Min, &span.Max, &w.Low, &w.High); err != nil {
			return nil, nil, translate(err, "overdue plan")
		}
		if window {
			windows[name] = w
		} else {
			spans[name] = span
		}
	}
	return windows, spans, translate(rows.Err(), "overdue plan")
}

// OverdueChunk is one range of ids in one run of a pass: the company, the
// run's job, the date, and whether the range is the run's first or last
// of the pass.
type OverdueChunk struct {
	CompanyID, JobID int64
	From, To         int64
	AsOf             finance.Date
	First, Last      bool
}

// OverdueChunkResult is what a chunk did: how many rows it recalculated
// (Visited) and wrote (Updated), whether it recalculated every row of its
// range that can change (All) or looked for changes only, and, for the
// invoices pass, how many partly paid invoices fell due (PastDue: their
// status kept, each sent its invoice.overdue).
type OverdueChunkResult struct {
	Visited, Updated int64
	All              bool
	PastDue          int64
}

// overdueTake is what a chunk finds in its pass's row of overdue_state:
// the dates as it leaves them (widened to include its own) and the job
// sweeping (0: none).
type overdueTake struct {
	window OverdueWindow
	sweep  int64
	// listening: an endpoint of the company listens to
	// invoice.overdue (Subscribed), read for the invoices pass alone
	listening bool
}

// takeOverdueState locks the company's row of overdue_state for pass
// (creating it, with its dates not known), widens its dates to include
// c.AsOf, and records c's job as the last to write: the sweep goes on when
// the previous chunk of the pass was the same job's, starts at a run's
// first chunk, and is broken by any other. For the invoices
// pass it also reads whether an endpoint listens to invoice.overdue, in
// the same statement.
func takeOverdueState(ctx context.Context, tx pgx.Tx, pass string, c OverdueChunk) (overdueTake, error) {
	var t overdueTake
	var sweep *int64
	listening := "false"
	if pass == PassInvoices {
		listening = subscribedSQL("$1", "'"+EventInvoiceOverdue+"'")
	}
	err := tx.QueryRow(ctx, `INSERT INTO overdue_state AS s (company_id, pass, last_job, sweep_job)
		VALUES ($1, $2, $3, CASE WHEN $5 THEN $3::bigint END)
		ON CONFLICT (company_id, pass) DO UPDATE SET
			as_of_low = CASE WHEN s.as_of_low IS NOT NULL THEN least(s.as_of_low, $4::date) END,
			as_of_high = CASE WHEN s.as_of_high IS NOT NULL THEN greatest(s.as_of_high, $4::date) END,
			sweep_job = CASE WHEN $5 THEN $3::bigint WHEN s.last_job = $3 AND s.sweep_job = $3 THEN $3::bigint END,
			last_job = $3
		RETURNING as_of_low, as_of_high, sweep_job, `+listening,
		c.CompanyID, pass, c.JobID, c.AsOf, c.First).Scan(&t.window.Low, &t.window.High, &sweep, &t.listening)
	if err != nil {
		return overdueTake{}, translate(err, "take the overdue state of "+pass)
	}
	if sweep != nil {
		t.sweep = *sweep
	}
	return t, nil
}

// endOverdueCTE is the CTE that sets the dates the statuses of pass hold
// for to c.AsOf ($4) alone at the end of a sweep (c is the last chunk and
// every chunk of its run followed one another with no other run's between
// them: every row was recalculated for c.AsOf, or is marked), in the
// chunk's own statement; job is the placeholder of c.JobID. Empty when c
// does not end a sweep.
func endOverdueCTE(pass string, c OverdueChunk, sweepJob int64, job string) string {
	if !c.Last || sweepJob != c.JobID {
		return ""
	}
	return `,
		ended AS (
			UPDATE overdue_state SET as_of_low = $4, as_of_high = $4
			WHERE company_id = $1 AND pass = '` + pass + `' AND sweep_job = ` + job + `)`
}

// invoiceStatusAsOf is finance.InvoiceStatusAsOf for the invoices it
// moves, those not paid and stored unpaid or overdue: overdue from the day
// after the due date ($4), unpaid up to it. The stored status is read the
// same way by the API (invoiceStatusExpr).
const invoiceStatusAsOf = `CASE WHEN due_date < $4::date THEN 'overdue' ELSE 'unpaid' END`

// invoicesWhere selects the ids of the company's ($1) invoices that are
// open and meet one of conds, each a range of invoices_open_status
// (migration 0017), so that the rows are not visited; invoiceOpen is
// repeated so that the index's predicate is implied.
func invoicesWhere(conds ...string) string {
	for i, c := range conds {
		conds[i] = `SELECT id FROM invoices WHERE "company_id" = $1 AND ` + invoiceOpen + ` AND ` + c
	}
	return strings.Join(conds, " UNION ALL ")
}

// invoicesDueBetween selects the ids of the company's unpaid and overdue
// invoices due on a day from low up to the day before high (placeholders):
// those whose status on some day from low to high differs from another's.
func invoicesDueBetween(low, high string) string {
	between := `"due_date" >= ` + low + ` AND "due_date" < ` + high
	return invoicesWhere(`"status" = 'unpaid' AND `+between, `"status" = 'overdue' AND `+between)
}

// The two history entries an overdue run writes, as FieldChange lists.
const (
	historyToOverdue = `[{"field":"status","from":"unpaid","to":"overdue"}]`
	historyToUnpaid  = `[{"field":"status","from":"overdue","to":"unpaid"}]`
)

// overdueEmission is what the statement adds for the invoice.overdue
// events of the invoices the run moves to overdue (the invoice as written,
// from the update's RETURNING) when an endpoint of the company listens:
// once per invoice, since an invoice is moved to overdue once for its due
// date (a second run of the date moves nothing).
func overdueEmission(listening bool) emission {
	e := emissionOf(listening, invoicesResource(), "$1", EventInvoiceOverdue, "moved")
	if listening {
		e.doc = `CASE WHEN status = 'overdue' THEN ` + e.doc + ` END`
	}
	return e
}

// pastDueSQL counts the company's ($1) partly paid invoices of ids
// $2..$3 falling due for the run on $4: due before $4 and not told yet for
// their due date (invoice_past_due_told, migration 0064), and emits their
// invoice.overdue, the invoice as it is, when an endpoint listens (the
// relay's wake-up second), recording that they were told; it drops the
// records of the range's invoices not past due as of $4 (a run of an
// earlier date) or no longer partly paid, so that a later run tells them
// again when they fall due again. A partially_paid
// invoice keeps its status past its due date (docs/api.md, "Part
// payments"): nothing is written to it. invoices_open_status finds them.
// A statement of its own, prepared (its plan kept: the update beside it is
// planned at each run, and this one in it made that plan a quarter
// dearer).
func pastDueSQL(listening bool) string {
	em := emissionOf(listening, invoicesResource(), "$1", EventInvoiceOverdue, "fell")
	return `WITH fell AS (
			SELECT company_id, id, due_date, ` + em.doc + ` AS doc FROM invoices
			WHERE "company_id" = $1 AND ` + invoiceOpen + ` AND "status" = 'partially_paid'
				AND "due_date" < $4::date AND id BETWEEN $2 AND $3
				AND NOT EXISTS (SELECT 1 FROM invoice_past_due_told t WHERE t.company_id = invoices.company_id
					AND t.invoice_id = invoices.id AND t.due_date = invoices.due_date)),
		told AS (
			INSERT INTO invoice_past_due_told AS t (company_id, invoice_id, due_date)
			SELECT company_id, id, due_date FROM fell
			ON CONFLICT (company_id, invoice_id) DO UPDATE SET due_date = EXCLUDED.due_date, told_at = now()),
		untold AS (
			DELETE FROM invoice_past_due_told t USING invoices i
			WHERE t.company_id = $1 AND t.invoice_id BETWEEN $2 AND $3
				AND i.company_id = t.company_id AND i.id = t.invoice_id
				AND (i.due_date >= $4::date OR i.status <> 'partially_paid'))` + em.ctes + `
		SELECT (SELECT count(*) FROM fell), ` + em.woke
}

// pastDueStatements are pastDueSQL, nobody listening and listening,
// built once.
var pastDueStatements = sync.OnceValue(func() [2]string { return [2]string{pastDueSQL(false), pastDueSQL(true)} })

// tellPastDue counts and tells the partly paid invoices of c's range
// falling due (pastDueSQL): those due before c.AsOf not told yet.
func tellPastDue(ctx context.Context, tx pgx.Tx, c OverdueChunk, listening bool) (int64, error) {
	sql := pastDueStatements()[0]
	if listening {
		sql = pastDueStatements()[1]
	}
	var n, woke int64
	err := tx.QueryRow(ctx, sql, c.CompanyID, c.From, c.To, c.AsOf).Scan(&n, &woke)
	return n, translate(err, "partly paid invoices falling due")
}

// EmitMadeOverdue emits invoice.overdue for the invoices of ids a write
// other than the overdue run has just stored overdue (an agreement's end
// giving its originals back: docs/api.md, "Webhooks"), the invoice as
// written. Once per invoice: stored overdue, the run does not move it
// again for its due date.
func EmitMadeOverdue(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := EmitRecordEvents(ctx, tx, companyID, EventInvoiceOverdue, Invoices, ids, `"status" = 'overdue'`)
	return err
}

// UpdateInvoiceStatuses moves the company's invoices with ids c.From..c.To
// (inclusive) whose status changes on c.AsOf (not paid, stored unpaid or
// overdue, and on the other side of their due date) to their status on
// c.AsOf, and writes a history row (actor job c.JobID, origin overdue) for
// each one moved, in one statement. Other statuses are left as they are.
//
// It looks only at the invoices whose status can differ from the one
// stored (docs/jobs.md, finance:overdue): those marked since they were last
// recalculated (written by the triggers of invoices), and those due between
// the dates the stored statuses hold for and c.AsOf, found in
// invoices_open_status without visiting the rows. When those dates are not
// known, it goes through every invoice of the range. It keeps the dates in
// overdue_state, whose row it locks, so that the chunks of two runs of a
// company never overlap; tx is the chunk's transaction.
//
// Each invoice it moves to overdue emits invoice.overdue, in the same
// statement. So does each partly paid invoice of the range falling due,
// in a statement of its own (pastDueSQL: due before c.AsOf and not before the latest date the
// statuses held for when the run began, or on the day before c.AsOf when
// that is not known), whose status stays partially_paid: it is counted in
// PastDue, not in Updated, and gets no history row.
func UpdateInvoiceStatuses(ctx context.Context, tx pgx.Tx, c OverdueChunk) (OverdueChunkResult, error) {
	take, err := takeOverdueState(ctx, tx, PassInvoices, c)
	if err != nil {
		return OverdueChunkResult{}, err
	}
	w := take.window
	res := OverdueChunkResult{All: !w.Known()}
	var woke int64
	listening := take.listening
	em := overdueEmission(listening)
	args := []any{c.CompanyID, c.From, c.To, c.AsOf, ActorJob, c.JobID, OriginOverdue, historyToOverdue, historyToUnpaid}
	// Only unpaid and overdue are moved, and only between the two, so a
	// row's status before the update is the other one. The conditions are
	// checked again on the row updated, which a payment may have changed
	// since it was found. Going through every invoice of the range, the
	// moves are counted as looked at; looking for changes, the candidates.
	candidates, moving, visited := ``, `company_id = $1 AND id BETWEEN $2 AND $3`, `(SELECT count(*) FROM moved)`
	if !res.All {
		candidates = `candidates (id) AS (
			SELECT invoice_id FROM marked
			UNION SELECT id FROM (` + invoicesDueBetween("$10::date", "$11::date") + `) w WHERE id BETWEEN $2 AND $3),`
		moving, visited = `company_id = $1 AND id = ANY (ARRAY(SELECT id FROM candidates))`, `(SELECT count(*) FROM candidates)`
		args = append(args, w.Low, w.High)
	}
	err = tx.QueryRow(ctx, `WITH marked AS (
			DELETE FROM invoice_status_marks WHERE company_id = $1 AND invoice_id BETWEEN $2 AND $3
			RETURNING invoice_id),
		`+candidates+`
		moved AS (
			UPDATE invoices SET status = `+invoiceStatusAsOf+`, updated_at = now()
			WHERE `+moving+`
				AND NOT paid AND status IN ('unpaid', 'overdue') AND status IS DISTINCT FROM `+invoiceStatusAsOf+`
			RETURNING company_id, id, status, `+em.doc+` AS doc),
		logged AS (
			INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes)
			SELECT $1, id, $5, $6, $7, CASE status WHEN 'overdue' THEN $8::jsonb ELSE $9::jsonb END FROM moved
			RETURNING 1)`+em.ctes+endOverdueCTE(PassInvoices, c, take.sweep, "$6")+`
		SELECT `+visited+`, (SELECT count(*) FROM logged), `+em.woke,
		planned(args...)...).Scan(&res.Visited, &res.Updated, &woke)
	if err != nil {
		return OverdueChunkResult{}, translate(err, "update invoice statuses")
	}
	if res.PastDue, err = tellPastDue(ctx, tx, c, listening); err != nil {
		return OverdueChunkResult{}, err
	}
	return res, nil
}

// paymentStatusAsOf is finance.PaymentStatusAsOf in SQL, over a row with
// counted (the contract has an invoice that is not canceled) and
// oldest_open (the earliest due date of its open invoices, NULL when none)
// on the date $4: the database's contract_payment_status (migration 0066),
// which the writes that change a contract's invoices refresh it with too.
// The earliest open due date decides both branches of the Go rule: when it
// is past, it is the oldest late invoice; when it is not, no invoice is
// late and it is the nearest one due. TestPaymentStatusSQL runs the Go
// rule's cases through both.
const paymentStatusAsOf = `contract_payment_status(counted, oldest_open, $4::date)`

// paymentStatusSteps are the days late (negative: days before the due
// date) of a contract's oldest open invoice on which PaymentStatusAsOf
// gives another status than on the day before: due_10_days from 10 days
// before the due date, due_5_days from 5 before, 5_days from 1 day late,
// 30_days from 5, month from 31, 3_months from 91. Between two steps the
// status does not change with the date. TestPaymentStatusSteps holds the
// list to the Go rule.
var paymentStatusSteps = []int{-10, -5, 1, 5, 31, 91}

// openInvoiceStatuses are the statuses of invoiceOpen's invoices, for the
// index ranges of invoices_open_status. TestPaymentStatusSteps holds the
// list to the Go rule.
var openInvoiceStatuses = []string{"unpaid", "overdue", "in_protest", "partially_paid"}

// paymentStepDates are the due dates on which a contract's oldest open
// invoice gives its contract a status on some day from low to high that
// differs from its status on another of those days: for each step s, the
// days s days before a day after low up to high. Empty when low is high.
func paymentStepDates(low, high finance.Date) []finance.Date {
	seen := map[finance.Date]bool{}
	var dates []finance.Date
	for _, s := range paymentStatusSteps {
		for d := low.AddDays(1 - s); !d.After(high.AddDays(-s)); d = d.AddDays(1) {
			if !seen[d] {
				seen[d] = true
				dates = append(dates, d)
			}
		}
	}
	return dates
}

// UpdatePaymentStatuses brings payment_status of the company's contracts
// with ids c.From..c.To (inclusive) to their status on c.AsOf, computed
// from their invoices, and sets payment_status_date to c.AsOf where the
// status changes (or was never dated).
//
// It recalculates only the contracts whose status can differ from the one
// stored (docs/jobs.md, finance:overdue): those created or whose invoices
// changed since they were last recalculated (a mark, written by triggers of
// contracts and invoices), and those with an open invoice due on a day
// where the status changes between the dates the stored statuses hold for
// and c.AsOf. When those dates are not known or too far apart, it
// recalculates every contract of the range. It keeps the dates in
// overdue_state, whose row it locks, so that the chunks of two runs of a
// company never overlap; tx is the chunk's transaction.
func UpdatePaymentStatuses(ctx context.Context, tx pgx.Tx, c OverdueChunk) (OverdueChunkResult, error) {
	take, err := takeOverdueState(ctx, tx, PassContracts, c)
	if err != nil {
		return OverdueChunkResult{}, err
	}
	w := take.window
	res := OverdueChunkResult{All: !w.Narrow(c.AsOf)}
	args := []any{c.CompanyID, c.From, c.To, c.AsOf}
	visit := paymentVisitAll
	if !res.All {
		visit = paymentVisitChanged
		args = append(args, openInvoiceStatuses, paymentStepDates(w.Low, w.High))
	}
	ended := endOverdueCTE(PassContracts, c, take.sweep, fmt.Sprintf("$%d", len(args)+1))
	if ended != "" {
		args = append(args, c.JobID)
	}
	err = tx.QueryRow(ctx, visit+`,
		classified AS (
			SELECT c.id, `+paymentStatusAsOf+` AS payment_status
			FROM contracts c LEFT JOIN invoiced i ON i.contract_id = c.id
			WHERE c.company_id = $1 AND c.id BETWEEN $2 AND $3 AND `+paymentVisited("c.id", res.All)+`),
		written AS (
			UPDATE contracts c SET payment_status = n.payment_status, payment_status_date = $4, updated_at = now()
			FROM classified n
			WHERE c.company_id = $1 AND c.id BETWEEN $2 AND $3 AND c.id = n.id
				AND (c.payment_status IS DISTINCT FROM n.payment_status OR c.payment_status_date IS NULL)
			RETURNING 1)`+ended+`
		SELECT (SELECT count(*) FROM classified), (SELECT count(*) FROM written)`, planned(args...)...).Scan(&res.Visited, &res.Updated)
	if err != nil {
		return OverdueChunkResult{}, translate(err, "update payment statuses")
	}
	return res, nil
}

// paymentVisitAll reads the invoices of every contract of the range, and
// deletes the range's marks: they are all recalculated.
const paymentVisitAll = `WITH marked AS (
		DELETE FROM contract_payment_marks WHERE company_id = $1 AND contract_id BETWEEN $2 AND $3),
	invoiced AS (
		SELECT contract_id,
			bool_or(status <> 'canceled') AS counted,
			min(due_date) FILTER (WHERE ` + invoiceOpen + `) AS oldest_open
		FROM invoices WHERE company_id = $1 AND contract_id BETWEEN $2 AND $3
		GROUP BY contract_id)`

// paymentVisitChanged finds the contracts of the range whose status can
// have changed (visited): those marked (new ones, and those whose invoices
// changed), whose marks it deletes; those with an open invoice ($5, its
// statuses) due on one of the dates $6 (paymentStepDates). It reads the
// invoices of those alone.
const paymentVisitChanged = `WITH marked AS (
		DELETE FROM contract_payment_marks WHERE company_id = $1 AND contract_id BETWEEN $2 AND $3
		RETURNING contract_id),
	visited AS (
		SELECT contract_id AS id FROM marked
		UNION
		SELECT contract_id FROM invoices
		WHERE company_id = $1 AND ` + invoiceOpen + ` AND status = ANY ($5::text[]) AND due_date = ANY ($6::date[])
			AND contract_id BETWEEN $2 AND $3),
	invoiced AS (
		SELECT contract_id,
			bool_or(status <> 'canceled') AS counted,
			min(due_date) FILTER (WHERE ` + invoiceOpen + `) AS oldest_open
		FROM invoices WHERE company_id = $1 AND contract_id IN (SELECT id FROM visited)
		GROUP BY contract_id)`

// paymentVisited is the condition on a contract id of being visited.
func paymentVisited(id string, all bool) string {
	if all {
		return "true"
	}
	return id + " IN (SELECT id FROM visited)"
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
