package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
)

// entryKeys are the keys docs/api.md lists for the entries of a refund's
// or a write-off's answer; nullKeys those an entry may have no value of.
var (
	entryKeys = []string{"id", "refunds_id", "type", "extract", "amount", "item_id", "person_id", "owner_id",
		"business_id", "description"}
	nullKeys = []string{"refunds_id", "item_id", "person_id", "owner_id", "business_id", "description"}
)

// entriesNulls checks that every entry of an operation's answer carries
// every documented key (and no other) and answers, for each entry in
// order, "extract:key,key" naming the keys sent as null.
func entriesNulls(t *testing.T, what string, data map[string]any) []string {
	t.Helper()
	var out []string
	for _, e := range data["entries"].([]any) {
		m := e.(map[string]any)
		var keys, nulls []string
		for k, v := range m {
			keys = append(keys, k)
			if v == nil {
				nulls = append(nulls, k)
			}
		}
		slices.Sort(keys)
		slices.Sort(nulls)
		if want := slices.Sorted(slices.Values(entryKeys)); !slices.Equal(keys, want) {
			t.Errorf("%s: an entry's keys %v, want %v", what, keys, want)
		}
		out = append(out, fmt.Sprintf("%s:%s", m["extract"], strings.Join(nulls, ",")))
	}
	return out
}

// TestBookedEntrySchema: the OpenAPI document requires every key of an
// operation's entries and lets the ones an entry may lack be null.
func TestBookedEntrySchema(t *testing.T) {
	t.Parallel()
	s, err := reflector.SchemaFor(storage.BookedEntry{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(slices.Values(s.Required)), slices.Sorted(slices.Values(entryKeys)); !slices.Equal(got, want) {
		t.Errorf("required %v, want %v", got, want)
	}
	for _, k := range nullKeys {
		if types, _ := s.Properties[k].Type.([]string); !slices.Contains(types, "null") {
			t.Errorf("%s: type %v, not nullable", k, s.Properties[k].Type)
		}
	}
}

// refundBody is a rent of 1,000.00 credited to the owner with an
// administration fee of 100.00 from the owner to the business (not
// charged to the payer), of the building the owner owns (whose owner the
// late fee and interest credit), due dueIn days from today, 2% late fee and 1% a
// month of interest: the invoice of the refund and write-off tests.
func (f *invoiceFixture) refundBody(dueIn int) map[string]any {
	return f.body(map[string]any{"due_date": today(dueIn), "date": today(dueIn - 10), "building_id": f.building,
		"ticket_late_fee": true, "ticket_late_fee_percentage": "2", "ticket_late_fee_interest": "1",
		"items": []any{
			map[string]any{"item_id": f.rent, "amount": "1000.00", "owner_id": f.owner},
			map[string]any{"item_id": f.adminFee, "amount": "100.00", "owner_id": f.owner},
		}})
}

// operate posts a refund or a write-off (what: refund, writeOff) of
// invoice id with company A's key.
func (f *invoiceFixture) operate(t *testing.T, id int64, what string, body map[string]any) response {
	t.Helper()
	return f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/%s", id, what), f.keyA, body)
}

// balances sums the invoice's entries by statement ("customer",
// "owner", "business"), credits less debits, in cents.
func (f *invoiceFixture) balances(t *testing.T, id int64) map[string]int64 {
	t.Helper()
	rows, err := f.pool.Query(t.Context(), `SELECT extract, sum(CASE type WHEN 'credit' THEN amount ELSE -amount END * 100)::bigint
		FROM transactions WHERE company_id = $1 AND invoice_id = $2 GROUP BY extract`, f.compA, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var extract string
		var cents int64
		if err := rows.Scan(&extract, &cents); err != nil {
			t.Fatal(err)
		}
		out[extract] = cents
	}
	return out
}

// TestInvoiceRefund: a partial refund of a payment, its preview, the
// whole of the rest, the refusals (each a 422 naming its field, another
// company's invoice a 404), and the payment undone with its refunds.
func TestInvoiceRefund(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.create(t, "/invoices", f.refundBody(10))
	unpaid := f.create(t, "/invoices", f.refundBody(10))
	paidOn := today(-3)
	f.pay(t, id, paidOn)

	refusals := []struct {
		name  string
		id    int64
		key   string
		body  map[string]any
		code  int
		field string
	}{
		{"an unpaid invoice", unpaid, f.keyA, map[string]any{"amount": "10.00", "reason": "x"}, 422, "paid"},
		{"zero", id, f.keyA, map[string]any{"amount": 0, "reason": "x"}, 422, "amount"},
		{"more than was paid", id, f.keyA, map[string]any{"amount": "1000.01", "reason": "x"}, 422, "amount"},
		{"a third of a cent", id, f.keyA, map[string]any{"amount": "1.003", "reason": "x"}, 422, "amount"},
		{"no amount", id, f.keyA, map[string]any{"reason": "x"}, 422, "amount"},
		{"before the payment", id, f.keyA, map[string]any{"amount": "10.00", "date": today(-4), "reason": "x"}, 422, "date"},
		{"after today", id, f.keyA, map[string]any{"amount": "10.00", "date": today(1), "reason": "x"}, 422, "date"},
		{"no reason", id, f.keyA, map[string]any{"amount": "10.00"}, 422, "reason"},
		{"an unknown field", id, f.keyA, map[string]any{"amount": "10.00", "reason": "x", "owner": 1}, 422, "owner"},
		{"another company's invoice", id, f.keyB, map[string]any{"amount": "10.00", "reason": "x"}, 404, ""},
	}
	for _, c := range refusals {
		r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/refund", c.id), c.key, c.body)
		switch {
		case r.status != c.code:
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.raw, c.code)
		case c.code == 422 && !slices.Equal(r.problemFields(t), []string{c.field}):
			t.Errorf("%s: %s, want a problem on %s", c.name, r.raw, c.field)
		}
	}
	// an unknown field is named with the checks of the rest, in one 422
	if r := f.operate(t, id, "refund", map[string]any{"amount": "1000.01", "reason": "x", "owner": 1}); r.status != 422 ||
		!slices.Equal(r.problemFields(t), []string{"owner", "amount"}) {
		t.Errorf("an unknown field beside the checks: %d %s", r.status, r.raw)
	}
	if b := f.balances(t, id); b["customer"] != -100000 || b["owner"] != 90000 || b["business"] != 10000 {
		t.Fatalf("the refusals wrote entries: %v", b)
	}

	// 250.00 of 1,000.00: a quarter of every line back
	r := f.operate(t, id, "refund", map[string]any{"amount": 250, "date": today(-1), "reason": "cobrança em duplicidade"})
	if r.status != http.StatusOK {
		t.Fatalf("partial refund: %d %s", r.status, r.raw)
	}
	got := r.record(t)
	if got["status"] != "paid" || fmt.Sprint(got["refunded_amount"]) != "250.00" || fmt.Sprint(got["paid_amount"]) != "1000.00" ||
		got["date"] != today(-1) || got["split"] != fmt.Sprintf("invoice-%d-payment-1-refund-1", id) {
		t.Errorf("partial refund's answer: %s", r.raw)
	}
	var entries []string
	for _, e := range got["entries"].([]any) {
		m := e.(map[string]any)
		entries = append(entries, fmt.Sprintf("%s %s %s", m["type"], m["extract"], m["amount"]))
	}
	want := []string{"credit customer 250.00", "debit owner 250.00", "credit owner 25.00", "debit business 25.00"}
	if !slices.Equal(entries, want) {
		t.Errorf("partial refund's entries %v, want %v", entries, want)
	}
	// the tenant's and the business's entries name no owner, the
	// business's no person: null, not left out
	wantNulls := []string{"customer:owner_id", "owner:", "owner:", "business:owner_id,person_id"}
	if got := entriesNulls(t, "partial refund", got); !slices.Equal(got, wantNulls) {
		t.Errorf("partial refund's null keys %v, want %v", got, wantNulls)
	}
	rec := f.get(t, fmt.Sprintf("/invoices/%d", id), http.StatusOK).record(t)
	if rec["status"] != "paid" || fmt.Sprint(rec["refunded_amount"]) != "250.00" || rec["paid"] != true {
		t.Errorf("after the partial refund: %v %v", rec["status"], rec["refunded_amount"])
	}
	if b := f.balances(t, id); b["customer"] != -75000 || b["owner"] != 67500 || b["business"] != 7500 {
		t.Errorf("balances after 250.00 refunded: %v", b)
	}
	rows := f.history(t, id)
	last := rows[len(rows)-1]
	if last["origin"] != "refund" || !strings.Contains(fmt.Sprint(last["note"]), "cobrança em duplicidade") ||
		!strings.Contains(fmt.Sprint(last["note"]), "250.00") {
		t.Errorf("refund's history row: %v", last)
	}
	if c := change(t, last, "refunded_amount"); c == nil || c["from"] != nil || fmt.Sprint(c["to"]) != "250.00" {
		t.Errorf("refund's history changes: %v", last["changes"])
	}

	// the preview of the rest answers the refund and stores nothing
	preview := f.operate(t, id, "refund", map[string]any{"amount": "750.00", "reason": "devolução", "preview": true})
	if preview.status != http.StatusOK || preview.record(t)["status"] != "refunded" || preview.record(t)["preview"] != true ||
		fmt.Sprint(preview.record(t)["refunded_amount"]) != "1000.00" {
		t.Fatalf("preview: %d %s", preview.status, preview.raw)
	}
	if b := f.balances(t, id); b["customer"] != -75000 || len(f.history(t, id)) != len(rows) {
		t.Errorf("the preview stored: %v", b)
	}
	if got := entriesNulls(t, "preview", preview.record(t)); !slices.Equal(got, wantNulls) {
		t.Errorf("preview's null keys %v, want %v", got, wantNulls)
	}

	whole := f.operate(t, id, "refund", map[string]any{"amount": "750.00", "reason": "devolução"})
	if whole.status != http.StatusOK || whole.record(t)["status"] != "refunded" ||
		fmt.Sprint(whole.record(t)["refunded_amount"]) != "1000.00" {
		t.Fatalf("whole refund: %d %s", whole.status, whole.raw)
	}
	if p, w := withoutIDs(preview.record(t)), withoutIDs(whole.record(t)); p != w {
		t.Errorf("the preview differs from the run:\n%s\n%s", p, w)
	}
	if b := f.balances(t, id); b["customer"] != 0 || b["owner"] != 0 || b["business"] != 0 {
		t.Errorf("balances after the whole refund: %v", b)
	}
	if r := f.operate(t, id, "refund", map[string]any{"amount": "0.01", "reason": "x"}); r.status != 422 ||
		!slices.Equal(r.problemFields(t), []string{"amount"}) {
		t.Errorf("a refunded invoice refunded again: %d %s", r.status, r.raw)
	}

	// the payment undone: its refunds with it, and paid again
	if r := f.put(t, id, map[string]any{"paid": false}); r.status != 200 || r.record(t)["status"] != "unpaid" ||
		r.record(t)["refunded_amount"] != nil {
		t.Fatalf("undo: %d %s", r.status, r.raw)
	}
	if b := f.balances(t, id); b["customer"] != 0 || b["owner"] != 0 || b["business"] != 0 {
		t.Errorf("balances after the undo: %v", b)
	}
	f.pay(t, id, today(0))
	if b := f.balances(t, id); b["customer"] != -100000 || b["owner"] != 90000 || b["business"] != 10000 {
		t.Errorf("paid again: %v", b)
	}
}

// TestInvoiceWriteOff: an overdue invoice written off without a write-off
// item (no loss booked) and with one (the loss on the business's
// statement), each undone by moving it back to unpaid; the refusals.
func TestInvoiceWriteOff(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.create(t, "/invoices", f.refundBody(-5))
	paid := f.create(t, "/invoices", f.refundBody(10))
	f.pay(t, paid, today(0))
	batched := f.create(t, "/invoices", f.refundBody(10))
	batch := f.scalar(t, `INSERT INTO ticket_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`, f.compA, f.account)
	f.exec(t, `INSERT INTO ticket_batch_invoices (company_id, batch_id, invoice_id, account_id, our_number, nosso_numero, amount,
		due_date, document_number, payer_name, payer_document, payer_address, payer_district, payer_city, payer_state, payer_zip)
		VALUES ($1, $2, $3, $4, 1, '1', 1000, $5, '1', 'Paula', '52998224725', 'Rua A', 'Centro', 'São Paulo', 'SP', '01001000')`,
		f.compA, batch, batched, f.account, today(10))

	for _, c := range []struct {
		name  string
		id    int64
		key   string
		body  map[string]any
		code  int
		field string
	}{
		{"a paid invoice", paid, f.keyA, map[string]any{"reason": "x"}, 422, "paid"},
		{"in a collection batch", batched, f.keyA, map[string]any{"reason": "x"}, 422, "ticket_batch"},
		{"after today", id, f.keyA, map[string]any{"reason": "x", "date": today(1)}, 422, "date"},
		{"no reason", id, f.keyA, map[string]any{}, 422, "reason"},
		{"an amount", id, f.keyA, map[string]any{"reason": "x", "amount": 10}, 422, "amount"},
		{"another company's invoice", id, f.keyB, map[string]any{"reason": "x"}, 404, ""},
	} {
		r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/writeOff", c.id), c.key, c.body)
		switch {
		case r.status != c.code:
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.raw, c.code)
		case c.code == 422 && !slices.Equal(r.problemFields(t), []string{c.field}):
			t.Errorf("%s: %s, want a problem on %s", c.name, r.raw, c.field)
		}
	}

	// no write-off item: the status alone
	r := f.operate(t, id, "writeOff", map[string]any{"reason": "inquilino desaparecido", "date": today(-1)})
	if r.status != 200 || r.record(t)["status"] != "uncollectible" || r.record(t)["written_off_at"] != today(-1) ||
		len(r.record(t)["entries"].([]any)) != 0 {
		t.Fatalf("write-off: %d %s", r.status, r.raw)
	}
	if msg := fmt.Sprint(r.body["message"]); !strings.HasPrefix(msg, "Written off; nothing was booked: the company keeps no write-off item") {
		t.Errorf("the write-off that booked nothing says %q", msg)
	}
	if ids := f.get(t, "/invoices?filter[overdue]=true", 200).ids(t); slices.Contains(ids, id) {
		t.Errorf("a written-off invoice is overdue: %v", ids)
	}
	if r := f.operate(t, id, "writeOff", map[string]any{"reason": "x"}); r.status != 422 || !slices.Equal(r.problemFields(t), []string{"status"}) {
		t.Errorf("written off twice: %d %s", r.status, r.raw)
	}
	if r := f.put(t, id, map[string]any{"paid": true, "paid_at": today(0)}); r.status != 422 {
		t.Errorf("a written-off invoice paid: %d %s", r.status, r.raw)
	}
	undo := f.put(t, id, map[string]any{"status": "unpaid"})
	if undo.status != 200 || undo.record(t)["status"] != "overdue" || undo.record(t)["written_off_at"] != nil {
		t.Fatalf("undo: %d %s", undo.status, undo.raw)
	}
	rows := f.history(t, id)
	if got := origins(rows[len(rows)-2:]); !slices.Equal(got, []string{"write_off", "write_off_undone"}) {
		t.Errorf("history: %v", origins(rows))
	}

	// with a write-off item: the loss on the business's statement
	loss := f.item(t, "Perda com inadimplência", "business", "customer", "default")
	owners := f.item(t, "Débito do proprietário", "owner", "business", "default")
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"write_off_item_id": owners}); r.status != 422 ||
		!slices.Equal(r.problemFields(t), []string{"write_off_item_id"}) {
		t.Errorf("an item debiting the owner: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"write_off_item_id": loss}); r.status != 200 ||
		num(t, r.record(t)["write_off_item_id"]) != loss {
		t.Fatalf("setting: %d %s", r.status, r.raw)
	}
	r = f.operate(t, id, "writeOff", map[string]any{"reason": "acordo frustrado"})
	if r.status != 200 || r.record(t)["split"] != fmt.Sprintf("invoice-%d-write-off-1", id) {
		t.Fatalf("write-off with the item: %d %s", r.status, r.raw)
	}
	if msg := fmt.Sprint(r.body["message"]); msg != "Written off." {
		t.Errorf("the write-off that booked its loss says %q", msg)
	}
	if b := f.balances(t, id); b["business"] != -100000 || b["customer"] != 100000 {
		t.Errorf("the loss: %v", b)
	}
	for _, e := range entriesNulls(t, "write-off", r.record(t)) { // a loss takes from no entry
		if _, nulls, _ := strings.Cut(e, ":"); !slices.Contains(strings.Split(nulls, ","), "refunds_id") {
			t.Errorf("write-off entry %s: refunds_id not null", e)
		}
	}
	if r := f.put(t, id, map[string]any{"status": "unpaid"}); r.status != 200 {
		t.Fatalf("undo: %d %s", r.status, r.raw)
	}
	if b := f.balances(t, id); b["business"] != 0 || b["customer"] != 0 {
		t.Errorf("the loss undone: %v", b)
	}
	if n := f.scalar(t, `SELECT count(*) FROM transactions WHERE company_id = $1 AND invoice_id = $2`, f.compA, id); n != 4 {
		t.Errorf("%d entries: the loss and its reversal are kept", n)
	}
}

// withoutIDs is an operation's answer without the ids of its entries (a
// preview's are those of entries rolled back) and its preview flag.
func withoutIDs(answer map[string]any) string {
	out := map[string]any{}
	for k, v := range answer {
		if k != "preview" && k != "entries" {
			out[k] = v
		}
	}
	var entries []string
	for _, e := range answer["entries"].([]any) {
		m := e.(map[string]any)
		entries = append(entries, fmt.Sprint(m["refunds_id"], m["type"], m["extract"], m["amount"], m["item_id"], m["description"]))
	}
	return fmt.Sprint(out, entries)
}

// TestWriteNamesEveryProblem: a write whose body has problems of its own
// (a required field missing, an unknown field) is still checked on the
// rest, so that one 422 names them all, and nothing is written.
func TestWriteNamesEveryProblem(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.create(t, "/invoices", f.refundBody(10))
	path := fmt.Sprintf("/invoices/%d", id)
	for _, c := range []struct {
		body   map[string]any
		fields []string
	}{
		{map[string]any{"paid": true}, []string{"billing_method", "paid_at"}},
		{map[string]any{"paid": true, "billing_method": "ticket", "foo": 1}, []string{"foo", "paid_at"}},
		{map[string]any{"billing_method": "ticket", "paid": true, "paid_at": today(0), "foo": 1}, []string{"foo"}},
	} {
		r := f.do(t, http.MethodPut, path, f.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), c.fields) {
			t.Errorf("%v: %d %s, want 422 naming %v", c.body, r.status, r.raw, c.fields)
		}
	}
	if rec := f.get(t, path, http.StatusOK).record(t); rec["paid"] != false || rec["status"] != "unpaid" {
		t.Errorf("a refused write was written: %v %v", rec["paid"], rec["status"])
	}
	if b := f.balances(t, id); len(b) != 0 {
		t.Errorf("a refused payment posted: %v", b)
	}
	// another company's record: the body's problems, as before
	if r := f.do(t, http.MethodPut, path, f.keyB, map[string]any{"paid": true}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"billing_method"}) {
		t.Errorf("another company's invoice: %d %s", r.status, r.raw)
	}
}
