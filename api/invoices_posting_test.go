package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// postingFixture is docs/ledger.md's worked example through the API: a
// building owned 60% by ownerA and 40% by ownerB, and a rent invoice on it
// with rent, condominium and administration-fee lines, 2% late fee and 1%
// a month interest.
type postingFixture struct {
	*invoiceFixture
	building, ownerA, ownerB int64
	invoice                  int64
}

func postingEnv(t *testing.T) *postingFixture {
	t.Helper()
	f := &postingFixture{invoiceFixture: invoiceEnv(t)}
	f.ownerA = f.create(t, "/persons", map[string]any{"name": "Ana Sessenta"})
	f.ownerB = f.create(t, "/persons", map[string]any{"name": "Bruno Quarenta"})
	f.building = f.create(t, "/buildings", map[string]any{"title": "Cedro", "reference": "CE-3"})
	for person, share := range map[int64]string{f.ownerA: "60", f.ownerB: "40"} {
		f.create(t, fmt.Sprintf("/buildings/%d/owners", f.building), map[string]any{"person_id": person, "percentage": share})
	}
	f.invoice = f.invoiceFixture.invoice(t, map[string]any{
		"building_id": f.building, "total": "2350.00", "date": "2024-03-01", "due_date": "2024-03-10",
		"ticket_late_fee": true, "ticket_late_fee_percentage": "2", "ticket_late_fee_interest": "1",
		"items": []any{
			map[string]any{"item_id": f.rent, "amount": "2000.00", "description": "Aluguel"},
			map[string]any{"item_id": f.condo, "amount": "350.00", "description": "Condomínio"},
			map[string]any{"item_id": f.adminFee, "amount": "200.00", "description": "Taxa de administração"},
		},
	})
	return f
}

// posted reads the invoice with its ledger entries and every line.
func (f *postingFixture) posted(t *testing.T) map[string]any {
	t.Helper()
	return f.get(t, fmt.Sprintf("/invoices/%d?include[autoTransactions]&include[itemsAll]", f.invoice), http.StatusOK).record(t)
}

// holder names whose statement an entry is on.
func (f *postingFixture) holder(t *testing.T, e map[string]any) string {
	t.Helper()
	switch e["extract"] {
	case "business":
		return "business"
	case "customer":
		if num(t, e["person_id"]) == f.payer {
			return "payer"
		}
	case "owner":
		switch num(t, e["owner_id"]) {
		case f.ownerA:
			return "ownerA"
		case f.ownerB:
			return "ownerB"
		}
	}
	t.Fatalf("entry on an unexpected statement: %v", e)
	return ""
}

// describe is an entry as "type holder amount": credit ownerA 1200.00.
func (f *postingFixture) describe(t *testing.T, e map[string]any) string {
	t.Helper()
	return fmt.Sprintf("%s %s %v", e["type"], f.holder(t, e), e["amount"])
}

// balances sums entries by statement (credits less debits) and checks
// that their debits equal their credits.
func (f *postingFixture) balances(t *testing.T, entries []map[string]any) map[string]string {
	t.Helper()
	sums := map[string]decimal.Decimal{}
	var debits, credits decimal.Decimal
	for _, e := range entries {
		amount := decimal.RequireFromString(fmt.Sprint(e["amount"]))
		if e["type"] == "debit" {
			debits = debits.Add(amount)
			amount = amount.Neg()
		} else {
			credits = credits.Add(amount)
		}
		h := f.holder(t, e)
		sums[h] = sums[h].Add(amount)
	}
	if !debits.Equal(credits) {
		t.Errorf("entries not balanced: debits %s, credits %s", debits, credits)
	}
	out := map[string]string{}
	for h, v := range sums {
		out[h] = v.StringFixed(2)
	}
	return out
}

func list(t *testing.T, rec map[string]any, name string) []map[string]any {
	t.Helper()
	raw, ok := rec[name].([]any)
	if !ok {
		t.Fatalf("%s is not a list: %v", name, rec[name])
	}
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		out[i] = r.(map[string]any)
	}
	return out
}

// byMode splits entries into the payment's (mode invoice) and the
// reversals (mode chargeback).
func byMode(entries []map[string]any) (posted, reversals []map[string]any) {
	for _, e := range entries {
		if e["mode"] == "chargeback" {
			reversals = append(reversals, e)
		} else {
			posted = append(posted, e)
		}
	}
	return posted, reversals
}

// TestInvoicePaymentPosting: paying docs/ledger.md's worked example
// through PUT /invoices posts its fifteen entries, settlement lines and
// paid_* amounts; the entries are the book (409 through /transactions);
// undoing the payment reverses every entry and deletes none, removes the
// settlement lines and clears the amounts; the payment can be posted again.
func TestInvoicePaymentPosting(t *testing.T) {
	t.Parallel()
	f := postingEnv(t)
	r := f.put(t, f.invoice, map[string]any{"paid": true, "paid_at": "2024-03-25", "credit_at": "2024-03-26"})
	if r.status != http.StatusOK {
		t.Fatalf("pay: %d %s", r.status, r.raw)
	}
	settled := map[string]string{"paid_amount": "2408.75", "paid_late_fee": "47.00", "paid_interest": "11.75", "paid_discount": "0.00"}
	for field, want := range settled {
		if got := fmt.Sprint(r.record(t)[field]); got != want {
			t.Errorf("the payment's answer: %s %s, want %s", field, got, want)
		}
	}

	rec := f.posted(t)
	entries := list(t, rec, "autoTransactions")
	var got []string
	for _, e := range entries {
		got = append(got, f.describe(t, e))
		if e["mode"] != "invoice" || e["date"] != "2024-03-26" || e["split"] != fmt.Sprintf("invoice-%d-payment-1", f.invoice) ||
			e["paid"] != true || num(t, e["building_id"]) != f.building || e["reverses_id"] != nil {
			t.Errorf("entry: %v", e)
		}
	}
	want := []string{
		"debit payer 2000.00", "credit ownerA 1200.00", "credit ownerB 800.00", // Aluguel
		"debit payer 350.00", "credit ownerA 210.00", "credit ownerB 140.00", // Condomínio
		"debit ownerA 120.00", "debit ownerB 80.00", "credit business 200.00", // Taxa de administração
		"debit payer 47.00", "credit ownerA 28.20", "credit ownerB 18.80", // Multa por atraso
		"debit payer 11.75", "credit ownerA 7.05", "credit ownerB 4.70", // Juros de mora (15 dias)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("entries:\n%q\nwant\n%q", got, want)
	}
	wantBalances := map[string]string{"payer": "-2408.75", "ownerA": "1325.25", "ownerB": "883.50", "business": "200.00"}
	if b := f.balances(t, entries); fmt.Sprint(b) != fmt.Sprint(wantBalances) {
		t.Errorf("balances %v, want %v", b, wantBalances)
	}
	var lines []string
	for _, l := range list(t, rec, "itemsAll") {
		lines = append(lines, fmt.Sprintf("%s %v %v", l["kind"], l["amount"], num(t, l["item_id"]) == f.fee))
	}
	if want := []string{"line 2000.00 false", "line 350.00 false", "line 200.00 false", "late_fee 47.00 true", "interest 11.75 true"}; !slices.Equal(lines, want) {
		t.Errorf("itemsAll: %q, want %q", lines, want)
	}

	// the posted entries are the book
	entry := fmt.Sprintf("/transactions/%v", entries[0]["id"])
	for _, m := range []string{http.MethodPut, http.MethodDelete} {
		if r := f.do(t, m, entry, f.keyA, map[string]any{"notes": "x"}); r.status != http.StatusConflict {
			t.Errorf("%s a posted entry: %d %s, want 409", m, r.status, r.raw)
		}
	}
	// a write that keeps the invoice paid posts nothing more
	if r := f.put(t, f.invoice, map[string]any{"paid": true, "paid_at": "2024-03-25"}); r.status != http.StatusOK {
		t.Errorf("paid: true again, same values: %d %s", r.status, r.raw)
	}
	if n := len(list(t, f.posted(t), "autoTransactions")); n != 15 {
		t.Errorf("entries after a write keeping paid: %d, want 15", n)
	}

	// undo
	r = f.put(t, f.invoice, map[string]any{"paid": false})
	if r.status != http.StatusOK {
		t.Fatalf("undo: %d %s", r.status, r.raw)
	}
	undone := r.record(t)
	for _, field := range []string{"paid_at", "credit_at", "paid_amount", "paid_late_fee", "paid_interest", "paid_discount"} {
		if undone[field] != nil {
			t.Errorf("after the undo %s is %v", field, undone[field])
		}
	}
	if undone["paid"] != false || undone["status"] != "overdue" {
		t.Errorf("after the undo: paid %v, status %v", undone["paid"], undone["status"])
	}
	rec = f.posted(t)
	posted, reversals := byMode(list(t, rec, "autoTransactions"))
	if len(posted) != 15 || len(reversals) != 15 {
		t.Fatalf("after the undo: %d entries and %d reversals, want 15 and 15 (nothing deleted)", len(posted), len(reversals))
	}
	originals := map[string]map[string]any{}
	for _, e := range posted {
		originals[fmt.Sprint(e["id"])] = e
	}
	for _, rev := range reversals {
		o := originals[fmt.Sprint(rev["reverses_id"])]
		if o == nil {
			t.Errorf("reversal of no posted entry: %v", rev)
			continue
		}
		delete(originals, fmt.Sprint(rev["reverses_id"]))
		if rev["type"] == o["type"] || fmt.Sprint(rev["amount"]) != fmt.Sprint(o["amount"]) || f.holder(t, rev) != f.holder(t, o) ||
			rev["date"] != today(0) || rev["split"] != fmt.Sprint(o["split"], "-chargeback") {
			t.Errorf("reversal %v of %v", rev, o)
		}
	}
	if len(originals) != 0 {
		t.Errorf("entries not reversed: %v", originals)
	}
	for h, b := range f.balances(t, list(t, rec, "autoTransactions")) {
		if b != "0.00" {
			t.Errorf("%s's balance after the undo: %s", h, b)
		}
	}
	if got := list(t, rec, "itemsAll"); len(got) != 3 || slices.ContainsFunc(got, func(l map[string]any) bool { return l["kind"] != "line" }) {
		t.Errorf("itemsAll after the undo: %v", got)
	}
	reversal := fmt.Sprintf("/transactions/%v", reversals[0]["id"])
	for _, m := range []string{http.MethodPut, http.MethodDelete} {
		if r := f.do(t, m, reversal, f.keyA, map[string]any{"notes": "x"}); r.status != http.StatusConflict {
			t.Errorf("%s a reversal: %d %s, want 409", m, r.status, r.raw)
		}
	}

	rows := f.history(t, f.invoice)
	if got := origins(rows); !slices.Equal(got, []string{"create", "payment", "update", "payment_undone"}) {
		t.Fatalf("history origins: %v", got)
	}
	for field, to := range settled {
		if c := change(t, rows[1], field); c == nil || c["from"] != nil || fmt.Sprint(c["to"]) != to {
			t.Errorf("payment's %s: %v", field, rows[1]["changes"])
		}
		if c := change(t, rows[3], field); c == nil || fmt.Sprint(c["from"]) != to || c["to"] != nil {
			t.Errorf("payment_undone's %s: %v", field, rows[3]["changes"])
		}
	}
	if c, _ := rows[2]["changes"].([]any); len(c) != 0 {
		t.Errorf("the write keeping the payment changed: %v", c)
	}

	// paid again, on time: a second payment, its own split
	f.pay(t, f.invoice, "2024-03-10")
	posted, _ = byMode(list(t, f.posted(t), "autoTransactions"))
	second := 0
	for _, e := range posted {
		if e["split"] == fmt.Sprintf("invoice-%d-payment-2", f.invoice) {
			second++
		}
	}
	if second != 9 {
		t.Errorf("entries of the second payment (on time: no late fee nor interest): %d, want 9", second)
	}
}

// TestInvoicePaymentRefusals: a payment the ledger cannot book is refused
// with the field to fix, and leaves the invoice unpaid with no entries.
// (An invoice whose owner lines nobody could be booked to is refused when
// written; the building's owners may still go after it is.)
func TestInvoicePaymentRefusals(t *testing.T) {
	t.Parallel()
	f := postingEnv(t)
	sold := f.create(t, "/buildings", map[string]any{"title": "Vendido"})
	share := f.create(t, fmt.Sprintf("/buildings/%d/owners", sold), map[string]any{"person_id": f.ownerA, "percentage": "100"})
	noOwners := f.invoiceFixture.invoice(t, map[string]any{"building_id": sold, "items": lines(f.rent, "1000.00")})
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/buildings/%d/owners/%d", sold, share), f.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete the building's owner: %d %s", r.status, r.raw)
	}
	discounted := f.invoiceFixture.invoice(t, map[string]any{"building_id": f.building, "due_date": "2024-03-10",
		"ticket_discount": true, "ticket_discount_mode": "fixed", "ticket_discount_fixed": "10", "ticket_discount_days": 5})
	f.exec(t, `UPDATE transaction_items SET active = false WHERE company_id = $1 AND id = $2`, f.compA, f.fee)
	cases := []struct {
		name   string
		id     int64
		paidAt string
		field  string
		words  string
	}{
		{"a line booked to owner, no owners", noOwners, today(0), "items.0.owner_id", "no owners"},
		{"late, no active fee item", f.invoice, "2024-03-25", "paid", "type fee"},
		{"a discount, nobody to bear it", discounted, "2024-03-01", "ticket_discount_action", "owner or business"},
	}
	for _, c := range cases {
		r := f.put(t, c.id, map[string]any{"paid": true, "paid_at": c.paidAt})
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) || !strings.Contains(r.raw, c.words) {
			t.Errorf("%s: %d %s, want 422 naming %s", c.name, r.status, r.raw, c.field)
		}
		rec := f.get(t, fmt.Sprintf("/invoices/%d?include[autoTransactions]&include[itemsAll]", c.id), http.StatusOK).record(t)
		settlement := slices.ContainsFunc(list(t, rec, "itemsAll"), func(l map[string]any) bool { return l["kind"] != "line" })
		if rec["paid"] != false || rec["paid_amount"] != nil || len(list(t, rec, "autoTransactions")) != 0 || settlement {
			t.Errorf("%s: a refused payment left %v", c.name, rec)
		}
	}
	// a part names its amount, which carries the late fee: its body has no paid
	r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/payments", f.invoice), f.keyA,
		map[string]any{"amount": "100.00", "paid_at": "2024-03-25"})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"amount"}) || !strings.Contains(r.raw, "type fee") {
		t.Errorf("a late part, no active fee item: %d %s, want 422 naming amount", r.status, r.raw)
	}
}
