package api

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// TestInvoiceSubResources: files and messages are full CRUD under their
// invoice; history is read-only; another invoice's record is a 404.
func TestInvoiceSubResources(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id, other := f.invoice(t, nil), f.invoice(t, nil)
	cases := []struct {
		path           string
		create, update map[string]any
	}{
		{"files", map[string]any{"name": "boleto.pdf", "url": "https://files.example.com/1.pdf", "content_type": "application/pdf"}, map[string]any{"name": "boleto-2.pdf"}},
		{"messages", map[string]any{"channel": "whatsapp", "recipient": "+5511999990000", "body": "Lembrete", "sent_at": "2024-03-01 12:00:00"}, map[string]any{"body": "Lembrete 2"}},
	}
	for _, c := range cases {
		under := fmt.Sprintf("/invoices/%d/%s", id, c.path)
		child := f.create(t, under, c.create)
		one := fmt.Sprintf("%s/%d", under, child)
		if rec := f.get(t, one, http.StatusOK).record(t); num(t, rec["invoice_id"]) != id {
			t.Errorf("%s: %v", c.path, rec)
		}
		if ids := f.get(t, under, http.StatusOK).ids(t); !slices.Equal(ids, []int64{child}) {
			t.Errorf("list %s: %v", c.path, ids)
		}
		if r := f.do(t, http.MethodPut, one, f.keyA, c.update); r.status != http.StatusOK {
			t.Errorf("update %s: %d %s", c.path, r.status, r.raw)
		}
		if r := f.do(t, http.MethodPost, under, f.keyA, map[string]any{"invoice_id": other}); r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: invoice_id in a body: %d %s", c.path, r.status, r.raw)
		}
		f.get(t, fmt.Sprintf("/invoices/%d/%s/%d", other, c.path, child), http.StatusNotFound)
		if r := f.do(t, http.MethodDelete, one, f.keyA, nil); r.status != http.StatusOK {
			t.Errorf("delete %s: %d %s", c.path, r.status, r.raw)
		}
		f.get(t, one, http.StatusNotFound)
	}
	if r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/messages", id), f.keyA, map[string]any{"channel": "fax", "body": "x"}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a channel off the list: %d %s", r.status, r.raw)
	}
	history := fmt.Sprintf("/invoices/%d/history", id)
	row := f.get(t, history, http.StatusOK).ids(t)[0]
	f.get(t, fmt.Sprintf("%s/%d", history, row), http.StatusOK)
	f.get(t, fmt.Sprintf("/invoices/%d/history/%d", other, row), http.StatusNotFound)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		path := history
		if m != http.MethodPost {
			path = fmt.Sprintf("%s/%d", history, row)
		}
		if r := f.do(t, m, path, f.keyA, map[string]any{"note": "x"}); r.status != http.StatusMethodNotAllowed {
			t.Errorf("%s history: %d %s, want the read-only 405", m, r.status, r.raw)
		}
	}
}

// TestInvoiceIsolation: company B reaches nothing of company A's invoice,
// its lines, files, messages or history, and cannot point at A's records.
func TestInvoiceIsolation(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, nil)
	file := f.create(t, fmt.Sprintf("/invoices/%d/files", id), map[string]any{"name": "a", "url": "https://a"})
	message := f.create(t, fmt.Sprintf("/invoices/%d/messages", id), map[string]any{"channel": "sms", "body": "a"})
	history := f.history(t, id)[0]["id"]
	inv := fmt.Sprintf("/invoices/%d", id)
	cases := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, inv, nil},
		{http.MethodPut, inv, map[string]any{"billing_method": "pix"}},
		{http.MethodDelete, inv + "?removeLiquidated=true", nil},
		{http.MethodGet, inv + "/files", nil},
		{http.MethodPost, inv + "/files", map[string]any{"name": "b", "url": "https://b"}},
		{http.MethodGet, fmt.Sprintf("%s/files/%d", inv, file), nil},
		{http.MethodPut, fmt.Sprintf("%s/files/%d", inv, file), map[string]any{"name": "b"}},
		{http.MethodDelete, fmt.Sprintf("%s/files/%d", inv, file), nil},
		{http.MethodGet, inv + "/messages", nil},
		{http.MethodPost, inv + "/messages", map[string]any{"channel": "sms", "body": "b"}},
		{http.MethodGet, fmt.Sprintf("%s/messages/%d", inv, message), nil},
		{http.MethodPut, fmt.Sprintf("%s/messages/%d", inv, message), map[string]any{"body": "b"}},
		{http.MethodDelete, fmt.Sprintf("%s/messages/%d", inv, message), nil},
		{http.MethodGet, inv + "/history", nil},
		{http.MethodGet, fmt.Sprintf("%s/history/%v", inv, history), nil},
	}
	for _, c := range cases {
		if r := f.do(t, c.method, c.path, f.keyB, c.body); r.status != http.StatusNotFound {
			t.Errorf("B %s %s: %d %s, want 404", c.method, c.path, r.status, r.raw)
		}
	}
	if r := f.do(t, http.MethodGet, "/invoices", f.keyB, nil); r.status != http.StatusOK || len(r.ids(t)) != 0 {
		t.Errorf("B lists A's invoices: %s", r.raw)
	}
	// B's invoice pointing at A's records
	r := f.do(t, http.MethodPost, "/invoices", f.keyB, f.body(map[string]any{"contract_id": f.contract, "building_id": f.building}))
	want := []string{"account_id", "building_id", "business_id", "contract_id", "payer_id"}
	if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("B pointing at A's records: %d %s, want 422 naming %v", r.status, r.raw, want)
	}
	// nothing changed for A
	f.get(t, fmt.Sprintf("%s/files/%d", inv, file), http.StatusOK)
	f.get(t, fmt.Sprintf("%s/messages/%d", inv, message), http.StatusOK)
	if rows := f.history(t, id); len(rows) != 1 {
		t.Errorf("A's history: %v", rows)
	}
}
