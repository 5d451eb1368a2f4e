package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// The events of the last states of invoices (docs/api.md, "Webhooks"):
// a refund, a write-off, an agreement made, canceled and broken write
// their events with them, through the API; their previews write none.

// eventsSince lists company A's events written after event id after, as
// "type invoice-id" sorted, and the last event's id.
func (e *testEnv) eventsSince(t *testing.T, after int64) ([]string, int64) {
	t.Helper()
	rows, err := e.pool.Query(t.Context(), `SELECT id, type, data->>'id' FROM webhook_events
		WHERE company_id = $1 AND id > $2 ORDER BY id`, e.compA, after)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	last := after
	for rows.Next() {
		var typ, record string
		if err := rows.Scan(&last, &typ, &record); err != nil {
			t.Fatal(err)
		}
		out = append(out, typ+" "+record)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out, last
}

// eventsOf lists "type id" for each id.
func eventsOf(typ string, ids ...int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("%s %d", typ, id)
	}
	return out
}

// TestInvoiceOperationsEmitEvents: for an endpoint subscribed to every
// event, a refund and a write-off each write invoice.updated of their
// invoice; an agreement invoice.created of each installment and
// invoice.updated of each original (renegotiated); its cancel
// invoice.canceled of each installment and invoice.updated of each
// original (given back); a break the same of the installments not paid.
// Each preview, and each refusal, writes none.
func TestInvoiceOperationsEmitEvents(t *testing.T) {
	t.Parallel()
	f := agreementEnv(t)
	f.exec(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/h', '{*}', 'whsec_x')`, f.compA)
	var last int64
	step := func(what string, status int, r response, want ...string) {
		t.Helper()
		if r.status != status {
			t.Fatalf("%s: %d %s", what, r.status, r.raw)
		}
		var got []string
		got, last = f.eventsSince(t, last)
		want = slices.Concat(want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: events\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	_, last = f.eventsSince(t, 0)

	paid := f.create(t, "/invoices", f.refundBody(10))
	f.pay(t, paid, today(-3))
	_, last = f.eventsSince(t, last)
	step("refund preview", 200, f.operate(t, paid, "refund", map[string]any{"amount": "100.00", "reason": "r", "preview": true}))
	step("refund refused", 422, f.operate(t, paid, "refund", map[string]any{"amount": "9999.00", "reason": "r"}))
	step("refund", 200, f.operate(t, paid, "refund", map[string]any{"amount": "100.00", "reason": "r"}),
		eventsOf("invoice.updated", paid)...)

	open := f.create(t, "/invoices", f.refundBody(-5))
	_, last = f.eventsSince(t, last)
	step("write-off preview", 200, f.operate(t, open, "writeOff", map[string]any{"reason": "w", "preview": true}))
	step("write-off", 200, f.operate(t, open, "writeOff", map[string]any{"reason": "w"}), eventsOf("invoice.updated", open)...)
	step("write-off refused", 422, f.operate(t, open, "writeOff", map[string]any{"reason": "w"}))

	step("agreement preview", 200, f.do(t, http.MethodPost, "/financial/agreements", f.keyA, f.body(map[string]any{"preview": true})))
	r := f.do(t, http.MethodPost, "/financial/agreements", f.keyA, f.body(nil))
	installments := installmentIDs(t, r.record(t))
	step("agreement", 201, r, slices.Concat(eventsOf("invoice.created", installments...),
		eventsOf("invoice.updated", f.originals...))...)
	id := num(t, r.record(t)["id"])
	// the originals, past due, are given back overdue
	step("cancel", 200, f.end(t, id, "cancel"), slices.Concat(eventsOf("invoice.canceled", installments...),
		eventsOf("invoice.updated", f.originals...), eventsOf("invoice.overdue", f.originals...))...)
	step("cancel refused", 409, f.end(t, id, "cancel"))

	r = f.do(t, http.MethodPost, "/financial/agreements", f.keyA, f.body(nil))
	installments = installmentIDs(t, r.record(t))
	id = num(t, r.record(t)["id"])
	f.pay(t, installments[0], today(0))
	_, last = f.eventsSince(t, last)
	step("break", 200, f.end(t, id, "break"), slices.Concat(eventsOf("invoice.canceled", installments[1:]...),
		eventsOf("invoice.updated", f.originals...), eventsOf("invoice.overdue", f.originals...))...)
}
