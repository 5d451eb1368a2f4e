package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestInvoiceCreate: the required fields, the total against the lines
// charged to the payer, the record written with its lines and status.
func TestInvoiceCreate(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	r := f.do(t, http.MethodPost, "/invoices", f.keyA, f.body(map[string]any{
		"tag": []int64{f.tag1}, "protest": `{"status":"none"}`, "ticket_late_fee_percentage": "2.50", "building_id": f.building,
		"items": append(lines(f.rent, "1000.00", f.adminFee, "100.00"), map[string]any{"item_id": f.condo, "amount": "0.00", "description": "nada"}),
	}))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	rec := r.record(t)
	if rec["status"] != "unpaid" || fmt.Sprint(rec["total"]) != "1000.00" || fmt.Sprint(rec["ticket_late_fee_percentage"]) != "2.50" ||
		rec["paid"] != false || rec["pix_code"] != nil || fmt.Sprint(rec["tag"]) != fmt.Sprintf("[%d]", f.tag1) {
		t.Errorf("created: %s", r.raw)
	}
	if got := items(t, rec); len(got) != 3 {
		t.Errorf("items: %v", got)
	}

	refused := []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"nothing", map[string]any{}, []string{"type", "payer_id", "business_id", "account_id", "billing_method", "description", "total", "date", "due_date", "items"}},
		{"no lines", f.body(map[string]any{"items": []any{}}), []string{"items"}},
		{"total above the lines", f.body(map[string]any{"total": "1100.00", "items": lines(f.rent, "1000", f.adminFee, "100")}), []string{"total", "items"}},
		{"total below the lines", f.body(map[string]any{"total": "999.99"}), []string{"total", "items"}},
		{"a line crediting the customer counted as a charge", f.body(map[string]any{"total": "1100.00", "items": lines(f.rent, "1000", f.discount, "100")}), []string{"total", "items"}},
		{"a line whose item has no parties", f.body(map[string]any{"items": lines(f.rent, "1000", f.partyless, "0")}), []string{"items.1.item_id"}},
		{"a line whose item has no parties, counted", f.body(map[string]any{"total": "1050.00", "items": lines(f.rent, "1000", f.partyless, "50")}), []string{"items.1.item_id"}},
		{"a line without amount", f.body(map[string]any{"items": []any{map[string]any{"item_id": f.rent}}}), []string{"items.0.amount"}},
		{"a line of an unknown item", f.body(map[string]any{"items": lines(999999, "1000")}), []string{"items.0.item_id"}},
		{"a billing method off the list", f.body(map[string]any{"billing_method": "boleto"}), []string{"billing_method"}},
		{"a status set on create", f.body(map[string]any{"status": "paid"}), []string{"status"}},
		{"paid without paid_at", f.body(map[string]any{"paid": true}), []string{"paid_at"}},
		{"paid_at without paid", f.body(map[string]any{"paid_at": today(0)}), []string{"paid_at"}},
		{"a pix code", f.body(map[string]any{"pix_code": "x"}), []string{"pix_code"}},
		{"settled amounts", f.body(map[string]any{"paid_amount": "1"}), []string{"paid_amount"}},
		{"a percentage with 3 places", f.body(map[string]any{"ticket_late_fee_interest": "0.333"}), []string{"ticket_late_fee_interest"}},
		{"protest not JSON", f.body(map[string]any{"protest": "{"}), []string{"protest"}},
	}
	for _, c := range refused {
		r := f.do(t, http.MethodPost, "/invoices", f.keyA, c.body)
		if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || !slices.Equal(got, c.fields) {
			t.Errorf("%s: %d %s, want 422 naming %v", c.name, r.status, r.raw, c.fields)
		}
	}
	if r := f.do(t, http.MethodPost, "/invoices", f.keyA, f.body(map[string]any{"total": "1100.00", "items": lines(f.rent, "1000", f.adminFee, "100")})); !strings.Contains(r.raw, "1100.00") || !strings.Contains(r.raw, "1000.00") {
		t.Errorf("the mismatch names both amounts: %s", r.raw)
	}
	if r := f.do(t, http.MethodPost, "/invoices", f.keyA, f.body(map[string]any{"items": lines(f.rent, "1000", f.partyless, "0")})); !strings.Contains(r.raw, "needs both a debit and a credit party") {
		t.Errorf("the refusal of a line without parties says why: %s", r.raw)
	}
	if n := f.count(t, "invoices"); n != 1 {
		t.Errorf("invoices stored: %d, want 1", n)
	}
	// a line crediting the customer (a rebate) is taken off the total
	if r := f.do(t, http.MethodPost, "/invoices", f.keyA, f.body(map[string]any{"total": "900.00", "building_id": f.building, "items": lines(f.rent, "1000", f.discount, "100")})); r.status != http.StatusCreated {
		t.Errorf("a rebate line: %d %s", r.status, r.raw)
	}
	// update requires billing_method
	id := num(t, rec["id"])
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", id), f.keyA, map[string]any{"description": "x"}); r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"billing_method"}) {
		t.Errorf("update without billing_method: %d %s", r.status, r.raw)
	}
}

// TestInvoiceItemOperations: add, edit and delete lines with the total in
// one write; a bad element, or a total that no longer matches, rolls the
// whole write back; settlement lines cannot be touched through items.
func TestInvoiceItemOperations(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, map[string]any{"total": "1050.00", "building_id": f.building, "items": lines(f.rent, "1000.00", f.condo, "50.00")})
	rec := f.get(t, fmt.Sprintf("/invoices/%d?include[items]", id), http.StatusOK).record(t)
	got := items(t, rec)
	rentLine, condoLine := idOf(got[0][0]), idOf(got[1][0])

	r := f.put(t, id, map[string]any{"total": "1225.00", "items": []any{
		map[string]any{"id": rentLine, "amount": "1200.00"},
		map[string]any{"id": condoLine, "item_id": f.condo, "delete": true},
		map[string]any{"item_id": f.condo, "amount": "25.00", "description": "condomínio"},
		map[string]any{"item_id": f.adminFee, "amount": "120.00"}, // debited to the owner: not in the total
	}})
	if r.status != http.StatusOK {
		t.Fatalf("item operations: %d %s", r.status, r.raw)
	}
	got = items(t, r.record(t))
	if len(got) != 3 || got[0][2] != "1200.00" || got[1][2] != "25.00" || got[2][2] != "120.00" || fmt.Sprint(r.record(t)["total"]) != "1225.00" {
		t.Fatalf("after the operations: %v %s", got, r.raw)
	}

	// settlement line written by the posting
	settlement := f.scalar(t, `INSERT INTO invoice_items (company_id, invoice_id, kind, item_id, amount)
		VALUES ($1, $2, 'late_fee', $3, 20) RETURNING id`, f.compA, id, f.fee)
	before := f.get(t, fmt.Sprintf("/invoices/%d?include[itemsAll]", id), http.StatusOK).raw

	refused := []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"a bad amount in the second element", map[string]any{"total": "1300.00", "items": []any{
			map[string]any{"id": rentLine, "amount": "1275.00"},
			map[string]any{"item_id": f.condo, "amount": "abc"},
		}}, []string{"items.1.amount"}},
		{"a line added whose item has no parties", map[string]any{"items": []any{map[string]any{"item_id": f.partyless, "amount": "0"}}}, []string{"items.0.item_id"}},
		{"a line moved to an item without parties", map[string]any{"items": []any{map[string]any{"id": rentLine, "item_id": f.partyless}}}, []string{"items.0.item_id"}},
		{"an amount of three places", map[string]any{"items": []any{map[string]any{"id": rentLine, "amount": "1.001"}}}, []string{"items.0.amount"}},
		{"the total left behind", map[string]any{"items": []any{map[string]any{"id": rentLine, "amount": "1300.00"}}}, []string{"total", "items"}},
		{"the total alone", map[string]any{"total": "1.00"}, []string{"total", "items"}},
		{"a settlement line edited", map[string]any{"items": []any{map[string]any{"id": settlement, "amount": "0"}}}, []string{"items.0.id"}},
		{"a settlement line deleted", map[string]any{"items": []any{map[string]any{"id": settlement, "delete": true}}}, []string{"items.0.id"}},
		{"a line of another invoice", map[string]any{"items": []any{map[string]any{"id": 999999, "amount": "1"}}}, []string{"items.0.id"}},
	}
	for _, c := range refused {
		r := f.put(t, id, c.body)
		if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || !slices.Equal(got, c.fields) {
			t.Errorf("%s: %d %s, want 422 naming %v", c.name, r.status, r.raw, c.fields)
		}
	}
	if after := f.get(t, fmt.Sprintf("/invoices/%d?include[itemsAll]", id), http.StatusOK).raw; after != before {
		t.Errorf("a refused write changed the invoice:\n%s\n%s", before, after)
	}
}

// TestInvoiceKeepsALine refuses an update that deletes every line.
func TestInvoiceKeepsALine(t *testing.T) {
	f := invoiceEnv(t)
	id := f.invoice(t, nil)
	rec := f.get(t, fmt.Sprintf("/invoices/%d?include[items]", id), http.StatusOK).record(t)
	line := num(t, rec["items"].([]any)[0].(map[string]any)["id"])
	r := f.put(t, id, map[string]any{"total": "0", "items": []any{map[string]any{"id": line, "delete": true}}})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"items"}) {
		t.Fatalf("every line deleted: %d %s, want a 422 naming items", r.status, r.raw)
	}
}
