package storage

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// The emission of webhook events (docs/api.md, "Webhooks"): an event is
// written in the transaction of the change that causes it, with one
// delivery and one webhook:deliver job per endpoint subscribed to its type,
// so that a rolled-back change emits nothing and a committed one is never
// lost (the jobs are the outbox's rows, relayed like any other). Every
// writer calls EmitEvents (or, inside a statement of its own, the SQL of
// EventDoc and emitCTEs), set-based: one INSERT ... SELECT for any number
// of records, which writes nothing at all when no active endpoint of the
// company subscribes to the type (an uncorrelated EXISTS, run once).

// subscribedSQL holds when the company (the SQL of its id) has an active
// endpoint subscribed to eventType (the SQL of a text).
func subscribedSQL(company, eventType string) string {
	return `EXISTS (SELECT 1 FROM webhook_endpoints we WHERE we.company_id = ` + company +
		` AND we.active AND we.events && ARRAY[` + eventType + `::text, '*'])`
}

// deliveriesCTEs follows a CTE named ev (company_id, id, type: the events
// written) with the CTEs that write one delivery per endpoint endpoints
// selects for each event (a condition over ev and we, the endpoint), one
// job per delivery, and the relay's wake-up; the statement ends with
// SELECT ... FROM the CTE counts (events, deliveries, woke).
func deliveriesCTEs(endpoints string) string {
	return `,
	dl AS (
		INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id)
		SELECT ev.company_id, we.id, ev.id FROM ev
		JOIN webhook_endpoints we ON we.company_id = ev.company_id AND ` + endpoints + `
		ORDER BY ev.id, we.id
		RETURNING company_id, id, endpoint_id),
	dj AS (
		INSERT INTO jobs (company_id, kind, queue, payload, submitted_by, lane)
		SELECT company_id, '` + KindWebhookDeliver + `', '` + QueueWebhooks + `', json_build_object('delivery_id', id),
			'webhooks', 'webhook:' || endpoint_id
		FROM dl ORDER BY id
		RETURNING 1),
	woke AS (SELECT pg_notify('` + JobsChannel + `', '') FROM (SELECT 1 FROM dj LIMIT 1) AS one)` + emittedCounts
}

// emittedCounts ends a statement of deliveriesCTEs: what it wrote.
const emittedCounts = `
	SELECT (SELECT count(*) FROM ev), (SELECT count(*) FROM dl), (SELECT count(*) FROM woke)`

// deliveriesOnly is deliveriesCTEs without its closing select, for a
// statement that answers something else (FinishJobs); it must read woke.
func deliveriesOnly(endpoints string) string {
	return strings.TrimSuffix(deliveriesCTEs(endpoints), emittedCounts)
}

// subscribedEndpoints selects, for deliveriesCTEs, the active endpoints
// subscribed to the event's type.
const subscribedEndpoints = `we.active AND we.events && ARRAY[ev.type, '*']`

// Emitted counts what an emission wrote.
type Emitted struct {
	Events, Deliveries int64
}

func scanEmitted(row pgx.Row) (Emitted, error) {
	var e Emitted
	var woke int64
	err := row.Scan(&e.Events, &e.Deliveries, &woke)
	return e, err
}

// EmitEvents writes, in q (the transaction of the change), one event of
// eventType for each record of res among ids, its data the record as GET
// returns it (read in q: after the change), and a delivery with its job
// for each endpoint subscribed. It writes nothing when no active endpoint
// of the company subscribes to eventType, unless the type is one the
// company keeps always (webhook.disabled). where, when not "", limits the
// records further (a condition over the table's columns: `"mode" =
// 'transfer'`).
//
// Nobody listening is asked first, in a statement of its own: the
// emission's statement, the records' JSON over every column, takes a
// millisecond or more to plan, which most companies (none of their
// endpoints subscribed, or none at all) need not pay at each run of a
// nightly kind.
func EmitEvents(ctx context.Context, q DBTX, companyID int64, eventType string, res *Resource, ids []int64, where string) (Emitted, error) {
	if len(ids) == 0 {
		return Emitted{}, nil
	}
	keep := "AND " + subscribedSQL("$1", "$2")
	if eventType == EventWebhookDisabled {
		keep = ""
	} else if listening, err := Subscribed(ctx, q, companyID, eventType); err != nil || !listening {
		return Emitted{}, err
	}
	if where != "" {
		where = " AND (" + where + ")"
	}
	sql := `WITH ev AS (
		INSERT INTO webhook_events (company_id, type, data)
		SELECT $1, $2, (` + RecordJSONSQL(res, "$1", "") + `)::json FROM ` + ident(res.Table) + `
		WHERE company_id = $1 AND id = any($3::bigint[])` + where + ` ` + keep + `
		ORDER BY id
		RETURNING company_id, id, type)` + deliveriesCTEs(subscribedEndpoints)
	e, err := scanEmitted(q.QueryRow(ctx, sql, companyID, eventType, ids))
	if err != nil {
		return Emitted{}, translate(err, "emit "+eventType)
	}
	return e, nil
}

// EmitRecordEvents is EmitEvents of the records of the resource named
// name, as the declared resources describe them.
func EmitRecordEvents(ctx context.Context, q DBTX, companyID int64, eventType, name string, ids []int64, where string) (Emitted, error) {
	return EmitEvents(ctx, q, companyID, eventType, eventResource(name), ids, where)
}

// EmitDocument writes one event whose data is doc (a JSON document), for
// the endpoints subscribed to its type: the events of no record (a job's,
// written with its outcome, use FinishJobs).
func EmitDocument(ctx context.Context, q DBTX, companyID int64, eventType string, doc []byte) (Emitted, error) {
	keep := "WHERE " + subscribedSQL("$1", "$2")
	if eventType == EventWebhookDisabled {
		keep = ""
	}
	sql := `WITH ev AS (
		INSERT INTO webhook_events (company_id, type, data)
		SELECT $1, $2, $3::json ` + keep + `
		RETURNING company_id, id, type)` + deliveriesCTEs(subscribedEndpoints)
	e, err := scanEmitted(q.QueryRow(ctx, sql, companyID, eventType, string(doc)))
	if err != nil {
		return Emitted{}, translate(err, "emit "+eventType)
	}
	return e, nil
}

// EmitPing writes a ping event, its data the endpoint as GET returns it,
// and its one delivery to that endpoint alone (active or not: a test of
// an endpoint being set up), and returns the delivery's id.
func EmitPing(ctx context.Context, q DBTX, companyID, endpointID int64) (int64, error) {
	sql := `WITH ev AS (
		INSERT INTO webhook_events (company_id, type, data)
		SELECT $1, '` + EventPing + `', (` + RecordJSONSQL(eventResource(Webhooks), "$1", "") + `)::json
		FROM webhook_endpoints WHERE company_id = $1 AND id = $2
		RETURNING company_id, id, type)` + deliveriesCTEs("we.id = $2")
	sql = strings.Replace(sql, "SELECT (SELECT count(*) FROM ev), (SELECT count(*) FROM dl)",
		"SELECT (SELECT count(*) FROM ev), (SELECT coalesce(max(id), 0) FROM dl)", 1)
	e, err := scanEmitted(q.QueryRow(ctx, sql, companyID, endpointID))
	if err != nil {
		return 0, translate(err, "emit ping")
	}
	if e.Events == 0 {
		return 0, recordNotFound(endpointID)
	}
	return e.Deliveries, nil
}

// EventDoc is the SQL of a select-list or RETURNING item that is the JSON
// text of a row of res (over its columns, qualified by qualifier when not
// "") as GET returns it when the company (the SQL of its id) has an active
// endpoint subscribed to eventType (the SQL of a text), and NULL
// otherwise: a statement that writes many rows (the nightly runs) carries
// its events' data out of its own RETURNING, computed only when someone
// listens.
func EventDoc(res *Resource, company, eventType, qualifier string) string {
	return `CASE WHEN ` + subscribedSQL(company, eventType) + ` THEN ` + RecordJSONSQL(res, company, qualifier) + ` END`
}

// eventsFromCTE continues a WITH whose CTE source (company_id, doc)
// holds rows with EventDoc's document: the events of eventType for the
// rows whose doc is not NULL, their deliveries and jobs. The statement's
// last SELECT must read woke (the relay's wake-up), as
// (SELECT count(*) FROM woke).
func eventsFromCTE(source, eventType string) string {
	return `,
	ev AS (
		INSERT INTO webhook_events (company_id, type, data)
		SELECT company_id, '` + eventType + `', doc::json FROM ` + source + ` WHERE doc IS NOT NULL
		RETURNING company_id, id, type)` + deliveriesOnly(subscribedEndpoints)
}

// eventRegistry is the registry whose declarations the events' data
// follows: the default one, built once. It is set in init, so that the
// writes a resource's declaration refers to (a batch kind's, its hooks')
// may emit through it without an initialization cycle.
var eventRegistry func() *Registry

func init() { eventRegistry = sync.OnceValue(DefaultRegistry) }

// eventResource is the declared resource named name.
func eventResource(name string) *Resource {
	return eventRegistry().MustResource(name)
}

// recordJSONCache holds RecordJSONSQL's answers by resource, company and
// qualifier.
var recordJSONCache sync.Map

// RecordJSONSQL is a SQL expression giving the JSON text that GET writes
// for a row of res (every visible column in its declared order, then its
// custom fields as _name in name order; Record.AppendJSON), over the
// row's columns (qualified by qualifier when not ""); company is the SQL
// of the company's id, for the columns read through today's date.
// TestRecordJSONSQL holds it to Record.AppendJSON for every column type.
func RecordJSONSQL(res *Resource, company, qualifier string) string {
	key := res.Name + "\x00" + company + "\x00" + qualifier
	if v, ok := recordJSONCache.Load(key); ok {
		return v.(string)
	}
	var b strings.Builder
	b.WriteString(`'{'`)
	first := true
	for _, c := range res.Columns {
		if !c.Visible() {
			continue
		}
		sep := ","
		if first {
			sep, first = "", false
		}
		b.WriteString(" || ")
		b.WriteString(quoteLiteral(sep + `"` + c.Name + `":`))
		b.WriteString(" || ")
		b.WriteString(jsonValueSQL(c, columnRef(c, company, qualifier), qualifier))
	}
	if res.CustomFields {
		b.WriteString(` || coalesce((SELECT string_agg(',' || to_json('_' || cf.k)::text || ':' || cf.v::text, '' ORDER BY cf.k COLLATE "C") FROM jsonb_each(`)
		b.WriteString(columnOf("custom_fields", qualifier))
		b.WriteString(`) AS cf(k, v)), '')`)
	}
	b.WriteString(` || '}'`)
	sql := b.String()
	recordJSONCache.Store(key, sql)
	return sql
}

// columnRef is the SQL of a column's value: its name, or its expression
// for a derived column (today's date of the company for {today}).
func columnRef(c Column, company, qualifier string) string {
	switch {
	case c.Expr == "":
		return columnOf(c.Name, qualifier)
	case qualifier != "":
		return "(" + qualified(c.Expr, ident(qualifier)) + ")"
	}
	return "(" + strings.ReplaceAll(c.Expr, "{today}", fmt.Sprintf(todayOf, company)) + ")"
}

// columnOf is a column's quoted name, qualified when qualifier is not "".
func columnOf(name, qualifier string) string {
	if qualifier == "" {
		return ident(name)
	}
	return ident(qualifier) + "." + ident(name)
}

// jsonValueSQL is the JSON text of a value as Record.AppendJSON writes it
// (appendValue): numbers and booleans as they print, decimals with every
// digit, dates as YYYY-MM-DD, date-times as YYYY-MM-DD HH:MM:SS in UTC
// (a Local one on its row's zone's clock), JSON as it is, null for NULL.
func jsonValueSQL(c Column, v, qualifier string) string {
	var s string
	switch c.Type {
	case Int, Bool, Decimal:
		s = "(" + v + ")::text"
	case Date:
		s = `'"' || to_char(` + v + `, 'YYYY-MM-DD') || '"'`
	case DateTime:
		zone := "'UTC'"
		if c.Local {
			// the reading of zonedSQL: the instant rounded to the second
			zone, v = columnOf(c.rowZone, qualifier), "to_timestamp(extract(epoch FROM "+v+")::bigint)"
		}
		s = `'"' || to_char(` + v + ` AT TIME ZONE ` + zone + `, 'YYYY-MM-DD HH24:MI:SS') || '"'`
	case JSON:
		s = "(" + v + ")::text"
	case IntArray, TextArray:
		s = "array_to_json(" + v + ")::text"
	default: // String, JSONText: a JSON string
		s = "to_json((" + v + ")::text)::text"
	}
	return "coalesce(" + s + ", 'null')"
}

// quoteLiteral is s as a SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// emitInvoiceEvent is the invoices' last after hook: every create and
// update through the shared write path (the API's, and any caller of
// Store.Create and Store.Update) emits one event, its data the invoice as
// the write leaves it: invoice.created; invoice.paid when it marks the
// invoice paid, invoice.payment_reversed when it undoes the payment,
// invoice.canceled when it cancels it; invoice.updated for any other
// change. A delete emits none.
func emitInvoiceEvent(ctx context.Context, tx pgx.Tx, c *Change) error {
	t := invoiceEventType(c)
	if t == "" {
		return nil
	}
	_, err := EmitEvents(ctx, tx, c.Scope.CompanyID, t, c.Resource, []int64{c.ID}, "")
	return err
}

func invoiceEventType(c *Change) string {
	switch {
	case c.Op == OpCreate:
		return EventInvoiceCreated
	case c.Op == OpDelete:
		return ""
	case paying(c):
		return EventInvoicePaid
	case undoing(c):
		return EventInvoicePaymentReversed
	case c.Changed("status") && c.Value("status") == "canceled":
		return EventInvoiceCanceled
	}
	return EventInvoiceUpdated
}

// Subscribed says whether the company has an active endpoint subscribed
// to eventType: a statement that writes many rows asks it first, and runs
// without any of the emission's SQL when nobody listens.
func Subscribed(ctx context.Context, q DBTX, companyID int64, eventType string) (bool, error) {
	var yes bool
	err := q.QueryRow(ctx, `SELECT `+subscribedSQL("$1", "$2"), companyID, eventType).Scan(&yes)
	return yes, translate(err, "webhook endpoints")
}

// emission is what a set-based statement that may emit adds: the doc
// item of its source's RETURNING, the CTEs after the source, and the
// count of woke its last SELECT reads; NULL, nothing and 0 when nobody
// listens.
type emission struct{ doc, ctes, woke string }

func emissionOf(listening bool, res *Resource, company, eventType, source string) emission {
	if !listening {
		return emission{doc: "NULL::text", woke: "0"}
	}
	return emission{doc: EventDoc(res, company, "'"+eventType+"'", ""), ctes: eventsFromCTE(source, eventType),
		woke: "(SELECT count(*) FROM woke)"}
}

// execEmitting runs update, a statement that updates rows of the table of
// the resource named name for the company $1 (its args), and emits
// eventType for each row it updated, the record as the update left it
// (EmitRecordEvents), when an active endpoint of the company subscribes
// to eventType: the statement is then run with `RETURNING ` + returning
// (the SQL of the updated row's id) appended. When nobody listens, the
// update runs exactly as given, beside one look at the endpoints
// (Subscribed). A write that may touch a row without changing it says so
// in update's WHERE, so that such a row is neither updated nor emitted.
func execEmitting(ctx context.Context, tx pgx.Tx, companyID int64, eventType, name, update, returning string, args ...any) (int64, error) {
	listening, err := Subscribed(ctx, tx, companyID, eventType)
	if err != nil {
		return 0, err
	}
	if !listening {
		tag, err := tx.Exec(ctx, update, args...)
		return tag.RowsAffected(), err
	}
	rows, err := tx.Query(ctx, update+"\nRETURNING "+returning, args...)
	if err != nil {
		return 0, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, err
	}
	if _, err := EmitRecordEvents(ctx, tx, companyID, eventType, name, ids, ""); err != nil {
		return 0, err
	}
	return int64(len(ids)), nil
}
