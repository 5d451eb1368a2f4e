package storage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// The invoice writes outside the shared write path emit invoice.updated
// (docs/api.md, "Events"): the auto_transfer_status written by the
// transfer run and by a contract's transfer settings, a collection
// batch's slips written and cleared, a return file's registrations and
// rejections. Each event's data is the invoice as GET returns it after the
// write; a write that changes nothing emits nothing, and a company without
// an endpoint gets no event.

// invoiceEvents reads the company's events after event id after, as
// "type id" in id order, checks each one's data against the invoice as GET
// returns it now, and answers the last event's id.
func invoiceEvents(t *testing.T, pool *pgxpool.Pool, company, after int64) ([]string, int64) {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT id, type, (data->>'id')::bigint, data::text FROM webhook_events
		WHERE company_id = $1 AND id > $2 ORDER BY id`, company, after)
	if err != nil {
		t.Fatal(err)
	}
	type event struct {
		id, invoice int64
		typ, data   string
	}
	var events []event
	for rows.Next() {
		var e event
		if err := rows.Scan(&e.id, &e.typ, &e.invoice, &e.data); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	store := storage.NewStore(pool, storage.DefaultRegistry())
	res := store.Registry().MustResource(storage.Invoices)
	var out []string
	last := after
	for _, e := range events {
		out, last = append(out, fmt.Sprintf("%s %d", e.typ, e.invoice)), e.id
		rec, err := store.Get(ctx, res, storage.Company(company), e.invoice, storage.GetQuery{CustomFields: true})
		if err != nil {
			t.Fatal(err)
		}
		var got, want any
		if err := json.Unmarshal([]byte(e.data), &got); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(rec.AppendJSON(nil), &want) //nolint:errcheck // the encoder's output is JSON
		if !reflect.DeepEqual(got, want) {
			t.Errorf("event %d (%s %d): data\n%s\nwant the invoice as GET returns it\n%s", e.id, e.typ, e.invoice, e.data, rec.AppendJSON(nil))
		}
	}
	return out, last
}

// eventField reads a field of the data of the company's last event of the
// invoice.
func eventField(t *testing.T, pool *pgxpool.Pool, company, invoice int64, field string) string {
	t.Helper()
	var v *string
	err := pool.QueryRow(context.Background(), `SELECT data->>$3 FROM webhook_events WHERE company_id = $1
		AND (data->>'id')::bigint = $2 ORDER BY id DESC LIMIT 1`, company, invoice, field).Scan(&v)
	if err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return "null"
	}
	return *v
}

func checkEvents(t *testing.T, step string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: events %q, want %q", step, got, want)
	}
}

// TestTransferStatusEmitsInvoiceUpdated: the auto_transfer_status written
// by a contract's transfer settings and by the transfer run emits
// invoice.updated of the invoice, its data showing the new status; a run
// or a settings change that changes no status emits nothing, and nothing
// is written while no endpoint listens.
func TestTransferStatusEmitsInvoiceUpdated(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	contracts := store.Registry().MustResource(storage.Contracts)
	setMode := func(mode string) {
		t.Helper()
		if _, err := store.Update(ctx, contracts, storage.Company(f.company), f.contract, storage.Write{
			Values: map[string]any{"transfer_mode": mode, "transfer_after_days": 5}}); err != nil {
			t.Fatalf("contract's transfer_mode %s: %v", mode, err)
		}
	}
	f.setContract(t, "transfer_mode = 'after_receive', transfer_after_days = 5")
	inv := f.paidInvoice(t)
	f.checkStatus(t, "posted", inv, finance.AutoTransferWaiting)

	setMode("manually")
	f.checkStatus(t, "manually", inv, finance.AutoTransferNone)
	got, last := invoiceEvents(t, f.pool, f.company, 0)
	checkEvents(t, "without an endpoint", got)

	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/h', '{invoice.updated}', 'whsec_x') RETURNING id`)
	setMode("after_receive")
	got, last = invoiceEvents(t, f.pool, f.company, last)
	checkEvents(t, "the contract's settings", got, fmt.Sprint("invoice.updated ", inv))
	if s := eventField(t, f.pool, f.company, inv, "auto_transfer_status"); s != "waiting" {
		t.Errorf("the contract's settings: auto_transfer_status %s, want waiting", s)
	}
	setMode("after_receive")
	got, last = invoiceEvents(t, f.pool, f.company, last)
	checkEvents(t, "the same settings again", got)

	f.transfer(t, "2024-03-30", 1)
	got, last = invoiceEvents(t, f.pool, f.company, last)
	checkEvents(t, "the run of the day before", got)
	f.transfer(t, "2024-03-31", 1)
	got, last = invoiceEvents(t, f.pool, f.company, last)
	checkEvents(t, "the run of the day", got, fmt.Sprint("invoice.updated ", inv))
	if s := eventField(t, f.pool, f.company, inv, "auto_transfer_status"); s != "transferred" {
		t.Errorf("the run: auto_transfer_status %s, want transferred", s)
	}
	f.transfer(t, "2024-03-31", 1)
	got, _ = invoiceEvents(t, f.pool, f.company, last)
	checkEvents(t, "the run again", got)
}

// TestTicketSlipsEmitInvoiceUpdated: a collection batch's slips written on
// its invoices (added), cleared (removed, reverted), and a return file's
// registrations and rejections emit invoice.updated of each invoice they
// change, with the slip as written; a reversal of an invoice whose slip
// is cleared already, and a return file read again, emit nothing.
func TestTicketSlipsEmitInvoiceUpdated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Boletos")
	quiet := newOverdueFixture(t, pool, "Boletos Sem Webhooks")
	actor := storage.Actor{Kind: storage.ActorJob, ID: 7}
	in := func(fn func(tx pgx.Tx) error) {
		t.Helper()
		if err := pgx.BeginFunc(ctx, pool, fn); err != nil {
			t.Fatal(err)
		}
	}
	tickets := batchKindFixtures(f)[0]
	f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/h', '{*}', 'whsec_x') RETURNING id`)
	a, b, c := tickets.record(t), tickets.record(t), tickets.record(t)
	_, last := invoiceEvents(t, pool, f.company, 0)
	step := func(what string, want ...int64) {
		t.Helper()
		var got []string
		got, last = invoiceEvents(t, pool, f.company, last)
		wanted := make([]string, len(want))
		for i, id := range want {
			wanted[i] = fmt.Sprint("invoice.updated ", id)
		}
		checkEvents(t, what, got, wanted...)
	}

	open := tickets.batchOf(t, f, "open", a, b)
	in(func(tx pgx.Tx) error { _, err := storage.RemoveMembers(ctx, tx, open, actor, []int64{a}); return err })
	step("removed", a)
	if s := eventField(t, pool, f.company, a, "ticket_barcode"); s != "null" {
		t.Errorf("removed: ticket_barcode %s, want null", s)
	}
	closed := tickets.batchOf(t, f, "closed", a, c)
	in(func(tx pgx.Tx) error {
		_, err := storage.RevertMembers(ctx, tx, closed, actor, []int64{a, c})
		return err
	})
	step("reverted (a's slip cleared already)", c)

	in(func(tx pgx.Tx) error {
		_, err := storage.InsertTicketMembers(ctx, tx, open, actor, []storage.TicketMember{ticketMember(a, 901)})
		return err
	})
	step("added", a)
	if s := eventField(t, pool, f.company, a, "ticket_digitable"); s != ticketMember(a, 901).Digitable {
		t.Errorf("added: ticket_digitable %s", s)
	}

	at := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	register := []storage.TicketEvent{{Match: storage.TicketMatch{InvoiceID: a}, Kind: storage.TicketRegistered, At: at}}
	for run := range 2 {
		in(func(tx pgx.Tx) error { return storage.ApplyTicketEvents(ctx, tx, f.company, actor, register) })
		if run == 0 {
			step("registered", a)
			if s := eventField(t, pool, f.company, a, "ticket_registered"); s != "true" {
				t.Errorf("registered: ticket_registered %s", s)
			}
		} else {
			step("registered again")
		}
	}
	reject := []storage.TicketEvent{{Match: storage.TicketMatch{InvoiceID: b, MemberID: memberID(t, f, open.ID, b), Registered: true},
		Kind: storage.TicketRejected, Reasons: "03 entrada rejeitada"}}
	for run := range 2 {
		in(func(tx pgx.Tx) error { return storage.ApplyTicketEvents(ctx, tx, f.company, actor, reject) })
		if run == 0 {
			step("rejected", b)
			if s := eventField(t, pool, f.company, b, "ticket_info"); s != "03 entrada rejeitada" {
				t.Errorf("rejected: ticket_info %s", s)
			}
		} else {
			step("rejected again")
		}
	}

	d := batchKindFixtures(quiet)[0].record(t)
	qb := batchKindFixtures(quiet)[0].batchOf(t, quiet, "open", d)
	in(func(tx pgx.Tx) error { _, err := storage.RemoveMembers(ctx, tx, qb, actor, nil); return err })
	if got, _ := invoiceEvents(t, pool, quiet.company, 0); len(got) != 0 {
		t.Errorf("a company without an endpoint: events %q", got)
	}
}

// ticketMember is a title of the invoice with nosso número n.
func ticketMember(invoice, n int64) storage.TicketMember {
	s := fmt.Sprint(n)
	return storage.TicketMember{InvoiceID: invoice, Document: fmt.Sprint(invoice), OurNumber: n, NossoNumero: s, Digit: "1",
		Barcode: "2379" + strings.Repeat("0", 40-len(s)) + s, Digitable: "2379" + strings.Repeat("1", 43-len(s)) + s,
		Amount: decimal.NewFromInt(100), Due: finance.MustDate("2026-03-10"),
		Payer: storage.TitlePayer{Name: "Ana", Document: "12345678909", Address: "Rua A", District: "Centro", City: "São Paulo",
			State: "SP", ZIP: "01001000"}}
}

// memberID is the id of the invoice's member row in the batch.
func memberID(t *testing.T, f *overdueFixture, batch, invoice int64) int64 {
	t.Helper()
	return f.id(t, `SELECT id FROM ticket_batch_invoices WHERE company_id = $1 AND batch_id = $2 AND invoice_id = $3`, batch, invoice)
}
