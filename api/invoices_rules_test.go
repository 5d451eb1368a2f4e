package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// history reads the history of an invoice, oldest first.
func (f *invoiceFixture) history(t *testing.T, id int64) []map[string]any {
	t.Helper()
	return f.get(t, fmt.Sprintf("/invoices/%d/history?sort=id&perPage=100", id), http.StatusOK).data(t)
}

func origins(rows []map[string]any) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r["origin"]))
	}
	return out
}

// change finds the change of field in a history row (nil: none).
func change(t *testing.T, row map[string]any, field string) map[string]any {
	t.Helper()
	list, ok := row["changes"].([]any)
	if !ok {
		t.Fatalf("changes: %v", row["changes"])
	}
	for _, c := range list {
		if m := c.(map[string]any); m["field"] == field {
			return m
		}
	}
	return nil
}

// TestInvoiceStatusAndPayment: the status moves a client may make, the
// payment and its undoing, what a paid invoice keeps, and the history of
// each write.
func TestInvoiceStatusAndPayment(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, map[string]any{"building_id": f.building})
	steps := []struct {
		name   string
		body   map[string]any
		status int
		field  string // the problem's field, or the message's word on 409
		after  string // status read back
	}{
		{"overdue is the system's", map[string]any{"status": "overdue"}, 422, "status", "unpaid"},
		{"paid through paid only", map[string]any{"status": "paid"}, 422, "status", "unpaid"},
		{"partially_paid is the posting's", map[string]any{"status": "partially_paid"}, 422, "status", "unpaid"},
		{"uncollectible is the write-off's", map[string]any{"status": "uncollectible"}, 422, "status", "unpaid"},
		{"into protest", map[string]any{"status": "in_protest"}, 200, "", "in_protest"},
		{"protest withdrawn", map[string]any{"status": "unpaid"}, 200, "", "unpaid"},
		{"canceled", map[string]any{"status": "canceled"}, 200, "", "canceled"},
		{"a canceled invoice is not paid", map[string]any{"paid": true, "paid_at": today(0)}, 422, "paid", "canceled"},
		{"a canceled invoice goes back to unpaid only", map[string]any{"status": "in_protest"}, 422, "status", "canceled"},
		{"reopened", map[string]any{"status": "unpaid"}, 200, "", "unpaid"},
		{"paid without paid_at", map[string]any{"paid": true}, 422, "paid_at", "unpaid"},
		{"paid with another status", map[string]any{"paid": true, "paid_at": today(0), "status": "canceled"}, 422, "status", "unpaid"},
		{"paid", map[string]any{"paid": true, "paid_at": today(-1)}, 200, "", "paid"},
		{"a paid invoice's total", map[string]any{"total": "900.00", "items": []any{}}, 409, "total", "paid"},
		{"a paid invoice's due date", map[string]any{"due_date": today(30)}, 409, "due_date", "paid"},
		{"a paid invoice's lines", map[string]any{"items": lines(f.condo, "0")}, 409, "items", "paid"},
		{"the same values change nothing", map[string]any{"total": "1000", "due_date": today(10), "description": "pago"}, 200, "", "paid"},
		{"a paid invoice is not canceled", map[string]any{"status": "canceled"}, 422, "status", "paid"},
		{"refunded is the refund's", map[string]any{"status": "refunded"}, 422, "status", "paid"},
		{"payment undone", map[string]any{"paid": false}, 200, "", "unpaid"},
	}
	for _, s := range steps {
		r := f.put(t, id, s.body)
		switch {
		case r.status != s.status:
			t.Errorf("%s: %d %s, want %d", s.name, r.status, r.raw, s.status)
		case s.status == 422 && !slices.Equal(r.problemFields(t), []string{s.field}):
			t.Errorf("%s: %s, want a problem naming %s", s.name, r.raw, s.field)
		case s.status == 409 && !strings.Contains(r.raw, s.field) || s.status == 409 && !strings.Contains(r.raw, "paid: false"):
			t.Errorf("%s: %s, want a message naming %s and how to undo the payment", s.name, r.raw, s.field)
		}
		if got := f.get(t, fmt.Sprintf("/invoices/%d", id), http.StatusOK).record(t)["status"]; got != s.after {
			t.Errorf("%s: status %v, want %s", s.name, got, s.after)
		}
	}
	rec := f.get(t, fmt.Sprintf("/invoices/%d", id), http.StatusOK).record(t)
	if rec["paid"] != false || rec["paid_at"] != nil || rec["credit_at"] != nil {
		t.Errorf("after the undo: %v", rec)
	}

	rows := f.history(t, id)
	want := []string{"create", "update", "update", "update", "update", "payment", "update", "payment_undone"}
	if got := origins(rows); !slices.Equal(got, want) {
		t.Fatalf("history origins: %v, want %v", got, want)
	}
	for _, row := range rows {
		if row["actor"] != "user" || row["actor_id"] == nil {
			t.Errorf("actor: %v", row)
		}
	}
	if items := change(t, rows[0], "items"); items == nil || len(items["to"].([]any)) != 1 || len(items["from"].([]any)) != 0 {
		t.Errorf("create's items: %v", rows[0]["changes"])
	}
	if c := change(t, rows[0], "total"); c == nil || c["from"] != nil || fmt.Sprint(c["to"]) != "1000.00" {
		t.Errorf("create's total: %v", rows[0]["changes"])
	}
	payment := rows[5]
	// the payment's row says what the posting settled, too
	for field, to := range map[string]string{"paid": "true", "status": "paid", "paid_at": today(-1), "credit_at": today(-1),
		"paid_amount": "1000.00", "paid_late_fee": "0.00", "paid_interest": "0.00", "paid_discount": "0.00"} {
		if c := change(t, payment, field); c == nil || fmt.Sprint(c["to"]) != to {
			t.Errorf("payment's %s: %v", field, payment["changes"])
		}
	}
	for _, field := range []string{"paid_amount", "paid_late_fee", "paid_interest", "paid_discount"} {
		if c := change(t, rows[7], field); c == nil || c["from"] == nil || c["to"] != nil {
			t.Errorf("undo's %s: %v", field, rows[7]["changes"])
		}
	}
	if c := change(t, rows[6], "description"); c == nil || c["to"] != "pago" || change(t, rows[6], "total") != nil {
		t.Errorf("an update lists what changed only: %v", rows[6]["changes"])
	}
	if c := change(t, rows[7], "status"); c == nil || c["from"] != "paid" || c["to"] != "unpaid" {
		t.Errorf("undo's status: %v", rows[7]["changes"])
	}
}

// TestInvoiceOverdueAndPix: an open invoice past its due date reads
// overdue before any nightly run; a new value or due date discards the
// PIX code, and the history says so; line changes are in the history.
func TestInvoiceOverdueAndPix(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	late := f.invoice(t, map[string]any{"due_date": today(-1)})
	if got := f.get(t, fmt.Sprintf("/invoices/%d", late), http.StatusOK).record(t)["status"]; got != "overdue" {
		t.Errorf("past due: %v", got)
	}
	if r := f.put(t, late, map[string]any{"due_date": today(1)}); r.status != http.StatusOK || r.record(t)["status"] != "unpaid" {
		t.Errorf("due date moved ahead: %s", r.raw)
	}

	id := f.invoice(t, nil)
	f.exec(t, `UPDATE invoices SET pix_code = 'PIXCODE' WHERE id = $1`, id)
	if r := f.put(t, id, map[string]any{"description": "outro", "total": "1000.00"}); r.status != http.StatusOK || r.record(t)["pix_code"] != "PIXCODE" {
		t.Errorf("a write keeping value and due date keeps the code: %s", r.raw)
	}
	lineID := idOf(items(t, f.put(t, id, nil).record(t))[0][0])
	r := f.put(t, id, map[string]any{"total": "1100.00", "items": []any{map[string]any{"id": lineID, "amount": "1100.00"}}})
	if r.status != http.StatusOK || r.record(t)["pix_code"] != nil {
		t.Fatalf("a new value discards the code: %s", r.raw)
	}
	rows := f.history(t, id)
	last := rows[len(rows)-1]
	if c := change(t, last, "pix_code"); c == nil || c["from"] != "PIXCODE" || c["to"] != nil {
		t.Errorf("history of the discarded code: %v", last["changes"])
	}
	items := change(t, last, "items")
	if items == nil {
		t.Fatalf("history of the lines: %v", last["changes"])
	}
	from, _ := json.Marshal(items["from"])
	to, _ := json.Marshal(items["to"])
	if !strings.Contains(string(from), `"amount":1000.00`) || !strings.Contains(string(to), `"amount":1100.00`) {
		t.Errorf("lines before and after: %s %s", from, to)
	}
	f.exec(t, `UPDATE invoices SET pix_code = 'PIXCODE' WHERE id = $1`, id)
	if r := f.put(t, id, map[string]any{"due_date": today(20)}); r.status != http.StatusOK || r.record(t)["pix_code"] != nil {
		t.Errorf("a new due date discards the code: %s", r.raw)
	}
}

// TestInvoiceDelete: a paid invoice needs removeLiquidated, an invoice
// with a fiscal note removeWithFiscalNote; the history stays.
func TestInvoiceDelete(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	del := func(id int64, query string) response {
		return f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d%s", id, query), f.keyA, nil)
	}
	noted := map[string]any{"building_id": f.building, "items": []any{map[string]any{"item_id": f.rent, "amount": "1000.00", "fiscal_note": "NF-123"}}}
	plain := f.invoice(t, nil)
	paid := f.invoice(t, map[string]any{"building_id": f.building})
	f.pay(t, paid, today(0))
	withNote := f.invoice(t, noted)
	both := f.invoice(t, noted)
	f.pay(t, both, today(0))

	cases := []struct {
		name   string
		id     int64
		query  string
		status int
		words  []string
	}{
		{"an unknown option", plain, "?force=true", 422, []string{"force"}},
		{"paid", paid, "", 409, []string{"removeLiquidated"}},
		{"paid, the other flag", paid, "?removeWithFiscalNote=true", 409, []string{"removeLiquidated"}},
		{"fiscal note", withNote, "?removeLiquidated=true", 409, []string{"removeWithFiscalNote"}},
		{"paid with a fiscal note, one flag", both, "?removeLiquidated=1", 409, []string{"removeWithFiscalNote"}},
		{"paid with a fiscal note, no flag", both, "", 409, []string{"removeLiquidated", "removeWithFiscalNote"}},
		{"plain", plain, "", 200, nil},
		{"paid, removeLiquidated", paid, "?removeLiquidated=true", 200, nil},
		{"fiscal note, removeWithFiscalNote", withNote, "?removeWithFiscalNote=true", 200, nil},
		{"both flags", both, "?removeLiquidated=true&removeWithFiscalNote=true", 200, nil},
	}
	for _, c := range cases {
		r := del(c.id, c.query)
		if r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.raw, c.status)
		}
		for _, w := range c.words {
			if !strings.Contains(r.raw, w) {
				t.Errorf("%s: %s does not name %s", c.name, r.raw, w)
			}
		}
	}
	if n := f.count(t, "invoices"); n != 0 {
		t.Errorf("invoices left: %d", n)
	}
	var got []string
	rows, err := f.pool.Query(t.Context(), `SELECT origin FROM invoice_history WHERE company_id = $1 AND invoice_id = $2 ORDER BY id`, f.compA, paid)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			t.Fatal(err)
		}
		got = append(got, o)
	}
	if want := []string{"create", "payment", "payment_undone", "delete"}; !slices.Equal(got, want) {
		t.Errorf("history of the deleted paid invoice: %v, want %v", got, want)
	}
	if n := f.count(t, "invoice_items"); n != 0 {
		t.Errorf("lines left: %d", n)
	}
	// the two payments' entries (rent: debit customer, credit owner) and
	// their reversals stay in the book, unlinked from the deleted invoices
	var posted, reversed, linked int
	if err := f.pool.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE mode = 'invoice'), count(*) FILTER (WHERE mode = 'chargeback'),
		count(invoice_id) FROM transactions WHERE company_id = $1`, f.compA).Scan(&posted, &reversed, &linked); err != nil {
		t.Fatal(err)
	}
	if posted != 4 || reversed != 4 || linked != 0 {
		t.Errorf("entries after the deletes: %d posted, %d reversals, %d linked; want 4, 4, 0", posted, reversed, linked)
	}
}

// TestInvoiceWriteGuards: a tag of another company (or none) is refused,
// a payment dated after today is refused, and an invoice a client's ledger
// entry points at is not deleted.
func TestInvoiceWriteGuards(t *testing.T) {
	f := invoiceEnv(t)
	tagB := f.scalar(t, `INSERT INTO tags (company_id, name) VALUES ($1, 'B') RETURNING id`, f.compB)
	for _, tags := range [][]int64{{tagB}, {999}} {
		r := f.do(t, http.MethodPost, "/invoices", f.keyA, f.body(map[string]any{"tag": tags}))
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"tag"}) {
			t.Errorf("tag %v: %d %s, want a 422 naming tag", tags, r.status, r.raw)
		}
	}
	id := f.invoice(t, map[string]any{"building_id": f.building})
	r := f.put(t, id, map[string]any{"paid": true, "paid_at": today(2)})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"paid_at"}) {
		t.Errorf("paid the day after tomorrow: %d %s, want a 422 naming paid_at", r.status, r.raw)
	}
	f.exec(t, `INSERT INTO transactions (company_id, type, amount, date, invoice_id) VALUES ($1, 'credit', 5, current_date, $2)`,
		f.compA, id)
	r = f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d", id), f.keyA, nil)
	if r.status != http.StatusConflict || !strings.Contains(r.raw, "ledger entries") {
		t.Errorf("delete with a client's entry pointing at it: %d %s, want 409", r.status, r.raw)
	}
}

// TestInvoiceOwnerLines: an invoice with a line nobody could be booked to
// (its item credits or debits the owner, the line names no owner_id, and
// the invoice's building, its own or its contract's, has no owners, or
// there is none) is refused where it is written, create or update, naming
// the line and both ways to fix it, in the words of the payment that
// would have failed; nothing is stored.
func TestInvoiceOwnerLines(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	ownerless := lines(f.rent, "1000.00")
	for _, c := range []struct {
		name   string
		body   map[string]any
		fields []string
		words  []string
		not    string
	}{
		{"no building", map[string]any{"items": ownerless}, []string{"items.0.owner_id"},
			[]string{"transaction item " + fmt.Sprint(f.rent), "has no building", "set the line's owner_id", "the invoice's building_id"},
			"the building"},
		{"a building without owners", map[string]any{"building_id": f.building2, "items": ownerless}, []string{"items.0.owner_id"},
			[]string{fmt.Sprintf("building %d has no owners", f.building2), "set the line's owner_id",
				fmt.Sprintf("/buildings/%d/owners", f.building2)}, ""},
		{"the second line only", map[string]any{"total": "1050.00", "items": []any{
			map[string]any{"item_id": f.rent, "amount": "1000.00", "owner_id": f.owner},
			map[string]any{"item_id": f.condo, "amount": "50.00"}}}, []string{"items.1.owner_id"}, []string{"has no building"}, ""},
		{"a line debiting the owner", map[string]any{"items": append(lines(f.adminFee, "100.00"),
			map[string]any{"item_id": f.rent, "amount": "1000.00", "owner_id": f.owner})}, []string{"items.0.owner_id"},
			[]string{"transaction item " + fmt.Sprint(f.adminFee)}, ""},
	} {
		r := f.do(t, http.MethodPost, "/invoices", f.keyA, f.body(c.body))
		if r.status != http.StatusUnprocessableEntity || r.body["return"] != false || !slices.Equal(r.problemFields(t), c.fields) ||
			(c.not != "" && strings.Contains(r.raw, c.not)) {
			t.Errorf("%s: %d %s, want 422 naming %v", c.name, r.status, r.raw, c.fields)
		}
		for _, w := range c.words {
			if !strings.Contains(r.raw, w) {
				t.Errorf("%s: %s lacks %q", c.name, r.raw, w)
			}
		}
	}
	if n := f.count(t, "invoices"); n != 0 {
		t.Errorf("refused invoices stored: %d", n)
	}

	// payable: the line names its owner; the building has owners; a
	// contract's invoice takes its contract's building
	named := f.invoice(t, nil)
	shared := f.invoice(t, map[string]any{"building_id": f.building, "items": ownerless})
	f.invoice(t, map[string]any{"type": "contract", "contract_id": f.contract, "items": ownerless})

	// updates: a new line, or another building, is checked as the write leaves the invoice
	for _, c := range []struct {
		name  string
		id    int64
		body  map[string]any
		field string
	}{
		{"a line without owner added", named, map[string]any{"total": "1050.00",
			"items": []any{map[string]any{"item_id": f.condo, "amount": "50.00"}}}, "items.1.owner_id"},
		{"a building without owners", shared, map[string]any{"building_id": f.building2}, "items.0.owner_id"},
		{"no building", shared, map[string]any{"building_id": nil}, "items.0.owner_id"},
	} {
		r := f.put(t, c.id, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("%s: %d %s, want 422 naming %s", c.name, r.status, r.raw, c.field)
		}
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d?include[items]", shared), http.StatusOK).record(t); num(t, rec["building_id"]) != f.building {
		t.Errorf("a refused update changed the invoice: %v", rec)
	}
	// and both invoices are paid
	f.pay(t, named, today(0))
	f.pay(t, shared, today(0))
}
