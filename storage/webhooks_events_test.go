package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// jsonKeys lists the keys of a JSON object in their order.
func jsonKeys(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", doc)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestRecordJSONSQL: the JSON PostgreSQL builds for an event's data
// (RecordJSONSQL) is the JSON GET writes for the same row (Record's
// encoder), key for key and in the same order, for records holding every
// column type: an invoice with custom fields, tags, decimals, dates and a
// derived status; its contract; its payment's ledger entries; a job with
// a JSON result; a calendar event with a local date-time; a webhook.
func TestRecordJSONSQL(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	reg := store.Registry()
	sc := storage.Company(f.company)
	tag := f.id(t, `INSERT INTO tags (company_id, name) VALUES ($1, 'aluguel "novo"') RETURNING id`)
	inv, err := store.Create(ctx, reg.MustResource(storage.Invoices), sc, storage.Write{
		Values: map[string]any{"type": "contract", "payer_id": f.payer, "contract_id": f.contract, "business_id": f.business,
			"account_id": f.account, "billing_method": "ticket", "description": "Aluguel\nde março — \"101\"", "total": "1234.50",
			"date": "2026-03-01", "due_date": "2020-03-10", "tag": []int64{tag}},
		Custom:   map[string]json.RawMessage{"zeta": json.RawMessage(`{"a": [1, 2.50]}`), "alpha": json.RawMessage(`"x"`)},
		Children: map[string][]storage.ChildWrite{"items": {{Write: storage.Write{Values: map[string]any{"item_id": f.rent, "amount": "1234.50"}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	invoiceID, _ := inv.ID()
	if _, err := store.Update(ctx, reg.MustResource(storage.Invoices), sc, invoiceID, storage.Write{
		Values: map[string]any{"paid": true, "paid_at": "2020-03-10"}}); err != nil {
		t.Fatal(err)
	}
	job, _, err := storage.SubmitJob(ctx, f.pool, f.company, storage.NewJob{Kind: "test:json", Queue: "default", SubmittedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `UPDATE jobs SET state = 'succeeded', result = '{"b": 1, "a": [true, null]}', finished_at = now()
		WHERE company_id = $1 AND id = $2`, f.company, job.ID); err != nil {
		t.Fatal(err)
	}
	event := f.id(t, `INSERT INTO events (company_id, title, time_zone, initial_date)
		VALUES ($1, 'Vistoria', 'America/Manaus', '2026-05-04 13:30:59.9+00') RETURNING id`)
	hook := f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/h', '{invoice.paid,ping}', 'whsec_x') RETURNING id`)
	entries := f.ids(t, `SELECT id FROM transactions WHERE company_id = $1 AND invoice_id = $2`, invoiceID)
	if len(entries) == 0 {
		t.Fatal("the payment posted no entries")
	}
	cases := map[string][]int64{
		storage.Invoices:     {invoiceID},
		storage.Contracts:    {f.contract},
		storage.Transactions: entries,
		storage.Jobs:         {job.ID},
		storage.Events:       {event},
		storage.Webhooks:     {hook},
		storage.Persons:      {f.payer},
	}
	for name, ids := range cases {
		res := reg.MustResource(name)
		for _, id := range ids {
			rec, err := store.Get(ctx, res, sc, id, storage.GetQuery{CustomFields: true})
			if err != nil {
				t.Fatalf("%s %d: %v", name, id, err)
			}
			want := rec.AppendJSON(nil)
			var got []byte
			err = f.pool.QueryRow(ctx, `SELECT `+storage.RecordJSONSQL(res, "$1", "")+` FROM `+pgx.Identifier{res.Table}.Sanitize()+
				` WHERE company_id = $1 AND id = $2`, f.company, id).Scan(&got)
			if err != nil {
				t.Fatalf("%s %d: %v", name, id, err)
			}
			if gk, wk := jsonKeys(t, got), jsonKeys(t, want); !reflect.DeepEqual(gk, wk) {
				t.Errorf("%s %d: keys\n%v\nwant\n%v", name, id, gk, wk)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s %d: %v: %s", name, id, err, got)
			}
			json.Unmarshal(want, &w) //nolint:errcheck // the encoder's output is JSON
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s %d:\n%s\nwant\n%s", name, id, got, want)
			}
		}
	}
}

func (f *ledgerFixture) id(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := f.pool.QueryRow(context.Background(), sql, append([]any{f.company}, args...)...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func (f *ledgerFixture) ids(t *testing.T, sql string, args ...any) []int64 {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), sql, append([]any{f.company}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// webhookCounts counts a company's events of a type, deliveries and
// delivery jobs.
func (f *ledgerFixture) webhookCounts(t *testing.T, q storage.DBTX, eventType string) (events, deliveries, jobs int) {
	t.Helper()
	err := q.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM webhook_events WHERE company_id = $1 AND type = $2),
			(SELECT count(*) FROM webhook_deliveries d JOIN webhook_events e ON e.company_id = d.company_id AND e.id = d.event_id
				WHERE d.company_id = $1 AND e.type = $2),
			(SELECT count(*) FROM jobs WHERE company_id = $1 AND kind = 'webhook:deliver')`, f.company, eventType).
		Scan(&events, &deliveries, &jobs)
	if err != nil {
		t.Fatal(err)
	}
	return events, deliveries, jobs
}

// TestRolledBackWriteEmitsNothing: a return file's payment settled in a
// transaction writes its invoice.paid event, delivery and job in that
// transaction (seen inside it); rolled back, none of them is left;
// committed, they are all there, once. Without an endpoint subscribed,
// nothing is written at all.
func TestRolledBackWriteEmitsNothing(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	inv := f.invoice(t, "2024-03-10", "2024-03-10", "2024-03-11", "")
	f.unpaid(t, inv)
	settle := func(tx pgx.Tx) {
		t.Helper()
		out, err := storage.SettleReportedPayments(ctx, tx, f.company, storage.Actor{Kind: storage.ActorReturnFile, ID: 1},
			[]storage.ReportedPayment{reported(inv, "2350.00", "0", "0")})
		if err != nil || out[0].Outcome != storage.PaymentSettled {
			t.Fatalf("settle: %v %+v", err, out)
		}
	}
	// no endpoint: the payment writes no event
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	settle(tx)
	if e, d, j := f.webhookCounts(t, tx, storage.EventInvoicePaid); e+d+j != 0 {
		t.Errorf("without an endpoint: %d events, %d deliveries, %d jobs", e, d, j)
	}
	tx.Rollback(ctx) //nolint:errcheck // the test's

	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/h', '{invoice.paid}', 'whsec_x') RETURNING id`)
	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret, active) VALUES ($1, 'https://example.com/off', '{*}', 'whsec_x', false) RETURNING id`)
	tx, err = f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	settle(tx)
	if e, d, j := f.webhookCounts(t, tx, storage.EventInvoicePaid); e != 1 || d != 1 || j != 1 {
		t.Errorf("inside the transaction: %d events, %d deliveries, %d jobs; want 1 each", e, d, j)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if e, d, j := f.webhookCounts(t, f.pool, storage.EventInvoicePaid); e+d+j != 0 {
		t.Errorf("rolled back: %d events, %d deliveries, %d jobs left", e, d, j)
	}
	if err := inTx(t, f.pool, func(tx pgx.Tx) error { settle(tx); return nil }); err != nil {
		t.Fatal(err)
	}
	if e, d, j := f.webhookCounts(t, f.pool, storage.EventInvoicePaid); e != 1 || d != 1 || j != 1 {
		t.Errorf("committed: %d events, %d deliveries, %d jobs; want 1 each", e, d, j)
	}
	var lane string
	if err := f.pool.QueryRow(ctx, `SELECT lane FROM jobs WHERE company_id = $1 AND kind = 'webhook:deliver'`, f.company).Scan(&lane); err != nil ||
		lane == "" {
		t.Errorf("the delivery job's lane %q (%v)", lane, err)
	}
}

// TestInvoiceWritesEmit: the invoices' shared write path emits one event
// per write, of the write's type: created, updated, paid, payment
// reversed, canceled; each carries the invoice as GET returns it after
// the write.
func TestInvoiceWritesEmit(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	res := store.Registry().MustResource(storage.Invoices)
	sc := storage.Company(f.company)
	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/h', '{*}', 'whsec_x') RETURNING id`)
	rec, err := store.Create(ctx, res, sc, storage.Write{
		Values: map[string]any{"type": "single", "payer_id": f.payer, "business_id": f.business, "account_id": f.account,
			"billing_method": "ticket", "description": "Taxa", "total": "100.00", "date": "2026-03-01", "due_date": "2099-03-10",
			"building_id": f.building},
		Children: map[string][]storage.ChildWrite{"items": {{Write: storage.Write{Values: map[string]any{"item_id": f.condo, "amount": "100.00"}}}}},
	})
	if err != nil {
		var fe *finance.Error
		errors.As(err, &fe)
		t.Fatalf("create: %v %+v", err, fe.Problems)
	}
	id, _ := rec.ID()
	steps := []struct {
		values map[string]any
		want   string
	}{
		{map[string]any{"description": "Taxa extra"}, storage.EventInvoiceUpdated},
		{map[string]any{"paid": true, "paid_at": "2026-03-05"}, storage.EventInvoicePaid},
		{map[string]any{"paid": false}, storage.EventInvoicePaymentReversed},
		{map[string]any{"status": "canceled"}, storage.EventInvoiceCanceled},
	}
	for _, s := range steps {
		if _, err := store.Update(ctx, res, sc, id, storage.Write{Values: s.values}); err != nil {
			var fe *finance.Error
			errors.As(err, &fe)
			t.Fatalf("%v: %v %+v", s.values, err, fe.Problems)
		}
	}
	rows, err := f.pool.Query(ctx, `SELECT type, data->>'status', data->>'description' FROM webhook_events WHERE company_id = $1 ORDER BY id`, f.company)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var typ, status, desc string
		if err := rows.Scan(&typ, &status, &desc); err != nil {
			t.Fatal(err)
		}
		got = append(got, typ+" "+status+" "+desc)
	}
	want := []string{"invoice.created unpaid Taxa", "invoice.updated unpaid Taxa extra", "invoice.paid paid Taxa extra",
		"invoice.payment_reversed unpaid Taxa extra", "invoice.canceled canceled Taxa extra"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n%q\nwant\n%q", got, want)
	}
}

// TestOverdueEmitsOncePerInvoice: the nightly overdue run emits one
// invoice.overdue per invoice it moves to overdue, from its own statement,
// the data the invoice as now overdue; a second run of the date emits
// none, and a company without an endpoint gets none.
func TestOverdueEmitsOncePerInvoice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Atrasos")
	quiet := newOverdueFixture(t, pool, "Imobiliária Sem Webhooks")
	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/h', '{invoice.overdue}', 'whsec_x') RETURNING id`)
	today := finance.MustDate("2024-03-06")
	late := map[int64]bool{}
	for i := range 4 {
		late[f.invoice(t, 0, finance.Invoice{DueDate: today.AddDays(-1 - i)})] = true
		f.invoice(t, 0, finance.Invoice{DueDate: today.AddDays(i)})
		quiet.invoice(t, 0, finance.Invoice{DueDate: today.AddDays(-1 - i)})
	}
	for run := int64(1); run <= 2; run++ {
		f.invoices(t, run, today)
		quiet.invoices(t, run, today)
		rows, err := pool.Query(ctx, `SELECT company_id, (data->>'id')::bigint, data->>'status' FROM webhook_events WHERE type = 'invoice.overdue'`)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for rows.Next() {
			var company, id int64
			var status string
			if err := rows.Scan(&company, &id, &status); err != nil {
				t.Fatal(err)
			}
			if company != f.company || !late[id] || status != "overdue" || seen[id] {
				t.Errorf("run %d: event of company %d, invoice %d, %s (seen before: %v)", run, company, id, status, seen[id])
			}
			seen[id] = true
		}
		rows.Close()
		if len(seen) != len(late) {
			t.Errorf("run %d: %d invoices with an overdue event, want %d", run, len(seen), len(late))
		}
	}
}

// TestOverdueTellsPartlyPaidInvoicesFallingDue: a partly paid invoice
// keeps its status past its due date, and the overdue run counts it and
// emits its invoice.overdue (the invoice as it is, partially_paid) the
// night it falls due: once, a second run of the date telling none; the
// first run of a company tells every one past due; a run after missed
// nights tells every one that fell due since the last; one created after
// its due date is told by the next run; a company without an endpoint is
// counted and gets no event; two runs interleaved tell each once.
func TestOverdueTellsPartlyPaidInvoicesFallingDue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Imobiliária Parcelas")
	quiet := newOverdueFixture(t, pool, "Imobiliária Parcelas Sem Webhooks")
	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/h', '{invoice.overdue}', 'whsec_x') RETURNING id`)
	today := finance.MustDate("2024-03-06")
	part := func(f *overdueFixture, due finance.Date) int64 {
		return f.invoice(t, 0, finance.Invoice{Status: finance.InvoicePartiallyPaid, DueDate: due})
	}
	longAgo := part(f, today.AddDays(-10)) // fell due before the company's first run
	yesterday := part(f, today.AddDays(-1))
	onToday := part(f, today)
	later := part(f, today.AddDays(2))
	month := part(f, today.AddDays(30))
	part(quiet, today.AddDays(-1))
	events := func() map[int64]int {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT company_id, (data->>'id')::bigint, data->>'status', (data->>'past_due')::bool
			FROM webhook_events WHERE type = 'invoice.overdue'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		seen := map[int64]int{}
		for rows.Next() {
			var company, id int64
			var status string
			var pastDue *bool
			if err := rows.Scan(&company, &id, &status, &pastDue); err != nil {
				t.Fatal(err)
			}
			if company != f.company || status != "partially_paid" || pastDue == nil || !*pastDue {
				t.Errorf("event of company %d, invoice %d: %s, past_due %v", company, id, status, pastDue)
			}
			seen[id]++
		}
		return seen
	}
	runs := []struct {
		job   int64
		on    finance.Date
		fell  []int64 // the invoices told by this run
		quiet int64   // the quiet company's count
	}{
		{1, today, []int64{longAgo, yesterday}, 1},
		{2, today, nil, 0},                         // the same date again
		{3, today.AddDays(1), []int64{onToday}, 0}, // the next night
		{4, today.AddDays(5), []int64{later}, 0},   // after three nights missed
		{5, today.AddDays(5), nil, 0},              // again
	}
	want := map[int64]int{}
	for _, r := range runs {
		res := f.invoices(t, r.job, r.on)
		if q := quiet.invoices(t, r.job, r.on); q.PastDue != r.quiet || q.Updated != 0 {
			t.Errorf("run %d, quiet company: %+v, want %d fallen due and none moved", r.job, q, r.quiet)
		}
		for _, id := range r.fell {
			want[id]++
		}
		if res.PastDue != int64(len(r.fell)) || res.Updated != 0 {
			t.Errorf("run %d on %s: %+v, want %d fallen due and none moved", r.job, r.on, res, len(r.fell))
		}
		if got := events(); !reflect.DeepEqual(got, want) {
			t.Errorf("run %d on %s: invoice.overdue events by invoice %v, want %v", r.job, r.on, got, want)
		}
	}
	// a run of two chunks: the second tells from the date the first found
	first := f.pass(t, storage.UpdateInvoiceStatuses, 6, today.AddDays(40), allFrom, later, true, false)
	second := f.pass(t, storage.UpdateInvoiceStatuses, 6, today.AddDays(40), later+1, allTo, false, true)
	want[month]++
	if first.PastDue != 0 || second.PastDue != 1 {
		t.Errorf("a run of two chunks: %+v and %+v, want the second to tell invoice %d", first, second, month)
	}
	if got := events(); !reflect.DeepEqual(got, want) {
		t.Errorf("a run of two chunks: invoice.overdue events by invoice %v, want %v", got, want)
	}
	// a run of two chunks with another run's first chunk between them (a
	// catch-up of an earlier date): the second chunk tells the invoice due
	// the day before its date
	night := today.AddDays(45)
	edge := part(f, night.AddDays(-1))
	f.pass(t, storage.UpdateInvoiceStatuses, 7, night, allFrom, later, true, false)
	f.pass(t, storage.UpdateInvoiceStatuses, 8, today.AddDays(43), allFrom, later, true, false)
	if got := f.pass(t, storage.UpdateInvoiceStatuses, 7, night, later+1, allTo, false, true); got.PastDue != 1 {
		t.Errorf("the second chunk after another run's first: %+v, want invoice %d told", got, edge)
	}
	want[edge]++
	if got := events(); !reflect.DeepEqual(got, want) {
		t.Errorf("two runs interleaved: invoice.overdue events by invoice %v, want %v", got, want)
	}
	var statuses []string
	rows, err := pool.Query(ctx, `SELECT DISTINCT status FROM invoices WHERE company_id = $1`, f.company)
	if err != nil {
		t.Fatal(err)
	}
	statuses, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || !reflect.DeepEqual(statuses, []string{"partially_paid"}) {
		t.Errorf("statuses after the runs: %v, %v; want partially_paid only", statuses, err)
	}

	// created after its due date, its part recorded since the last run:
	// the next run tells it, once
	backdated := part(f, today.AddDays(20))
	if got := f.invoices(t, 9, night); got.PastDue != 1 {
		t.Errorf("an invoice created after its due date: %+v, want it told", got)
	}
	if got := f.invoices(t, 10, night); got.PastDue != 0 {
		t.Errorf("the same night again: %+v, want none told", got)
	}
	want[backdated]++
	if got := events(); !reflect.DeepEqual(got, want) {
		t.Errorf("an invoice created after its due date: invoice.overdue events by invoice %v, want %v", got, want)
	}
}

// TestEmitEventsAsksWhoListensFirst: an emission for a company with no
// endpoint subscribed to the type is one small statement, not the
// emission's (whose records' JSON takes a millisecond or more to plan at
// each run of a nightly kind); with one subscribed it writes the event.
func TestEmitEventsAsksWhoListensFirst(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	inv := f.invoice(t, "2024-03-10", "2024-03-10", "2024-03-11", "")
	var times storagetest.StatementTimes
	timed := storagetest.TimedDB(t, &times)
	emit := func() (storage.Emitted, []storagetest.StatementTime) {
		t.Helper()
		times.Reset()
		e, err := storage.EmitRecordEvents(ctx, timed, f.company, storage.EventInvoiceUpdated, storage.Invoices, []int64{inv}, "")
		if err != nil {
			t.Fatal(err)
		}
		return e, times.Times()
	}
	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/p', '{invoice.paid}', 'whsec_x') RETURNING id`)
	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret, active) VALUES ($1, 'https://example.com/off', '{*}', 'whsec_x', false) RETURNING id`)
	e, ran := emit()
	if e.Events != 0 || len(ran) != 1 || !strings.HasPrefix(ran[0].Statement, "SELECT EXISTS") {
		t.Errorf("no endpoint subscribed: %+v, statements %+v; want no event and one look", e, ran)
	}
	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/u', '{invoice.updated}', 'whsec_x') RETURNING id`)
	e, ran = emit()
	if e.Events != 1 || e.Deliveries != 1 || len(ran) != 2 {
		t.Errorf("one endpoint subscribed: %+v, statements %+v; want one event, one delivery, two statements", e, ran)
	}
}
