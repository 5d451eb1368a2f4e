package api

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// TestContractCreateRules: the spec's required fields, every enum, the
// period, due_day, references within the company, tags, metadata and the
// read-only payment status are checked before anything is written, each
// refusal a 422 naming its field.
func TestContractCreateRules(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	r := f.do(t, http.MethodPost, "/financial/contracts", f.keyA, map[string]any{"reference": "X"})
	want := []string{"account_id", "amount", "billing_id", "billing_method", "building_id", "business_id", "due_date",
		"recurrency", "start_at", "tenant_id", "type"}
	got := r.problemFields(t)
	slices.Sort(got)
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("empty body: %d %v, want 422 naming %v", r.status, got, want)
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"type off the list", map[string]any{"type": "lease"}, "type"},
		{"sale_type", map[string]any{"sale_type": "barter"}, "sale_type"},
		{"active", map[string]any{"active": "paused"}, "active"},
		{"status", map[string]any{"status": "open"}, "status"},
		{"access", map[string]any{"access": "none"}, "access"},
		{"modality", map[string]any{"modality": "weekly"}, "modality"},
		{"recurrency", map[string]any{"recurrency": "yearly"}, "recurrency"},
		{"billing_timing", map[string]any{"billing_timing": "during"}, "billing_timing"},
		{"readjust_indicator", map[string]any{"readjust_indicator": "IGPM"}, "readjust_indicator"},
		{"transfer_mode", map[string]any{"transfer_mode": "auto"}, "transfer_mode"},
		{"fiscal_note_trigger", map[string]any{"fiscal_note_trigger": "none"}, "fiscal_note_trigger"},
		{"billing_method", map[string]any{"billing_method": "boleto"}, "billing_method"},
		{"ticket_discount_mode", map[string]any{"ticket_discount_mode": "owner"}, "ticket_discount_mode"},
		{"the spec's list for the action is the mode's", map[string]any{"ticket_discount_action": "percentage"}, "ticket_discount_action"},
		{"end before start", map[string]any{"start_at": "2024-07-01", "end_at": "2024-06-30"}, "end_at"},
		{"due_day 0", map[string]any{"due_day": 0}, "due_day"},
		{"due_day 32", map[string]any{"due_day": 32}, "due_day"},
		{"readjust_with", map[string]any{"readjust_with": 0}, "readjust_with"},
		{"payment_status is the nightly run's", map[string]any{"payment_status": "ok"}, "payment_status"},
		{"payment_status_date too", map[string]any{"payment_status_date": "2024-01-01"}, "payment_status_date"},
		{"metadata", map[string]any{"metadata": "{not json"}, "metadata"},
		{"tags of the company", map[string]any{"tag": []int64{f.tag1, 999999}}, "tag"},
		{"user", map[string]any{"user_id": 999999}, "user_id"},
		{"team", map[string]any{"team_id": 999999}, "team_id"},
		{"deal", map[string]any{"deal_id": 999999}, "deal_id"},
		{"guarantor", map[string]any{"guarantor_1": 999999}, "guarantor_1"},
		{"renewed", map[string]any{"renewed_id": 999999}, "renewed_id"},
		{"documentables privacy", map[string]any{"documentables": []any{map[string]any{"privacy": "secret"}}}, "documentables.0.privacy"},
	}
	for _, c := range cases {
		r := f.do(t, http.MethodPost, "/financial/contracts", f.keyA, f.contractBody(c.body))
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("%s: %d %s, want 422 naming %s", c.name, r.status, r.raw, c.field)
		}
	}
	if n := f.scalar(t, `SELECT count(*) FROM contracts WHERE company_id = $1`, f.compA); n != 0 {
		t.Errorf("%d contracts written by refused creates", n)
	}
	// the action takes who bears the discount; the bounds are inclusive
	id := f.newContract(t, map[string]any{"ticket_discount_action": "owner", "ticket_discount_mode": "percentage",
		"due_day": 31, "end_at": "2024-07-01", "tag": []int64{f.tag1}, "metadata": `{"origin":"crm"}`,
		"user_id": f.user, "team_id": f.team, "deal_id": f.deal})
	rec := f.get(t, contractPath(id), http.StatusOK).record(t)
	for k, v := range map[string]string{"ticket_discount_action": "owner", "status": "progress", "active": "active",
		"payment_status": "nothing", "guarantee": "undefined", "metadata": `{"origin":"crm"}`, "end_at": "2024-07-01"} {
		if fmt.Sprint(rec[k]) != v {
			t.Errorf("%s = %v, want %s", k, rec[k], v)
		}
	}
	// company B cannot point at A's records
	r = f.do(t, http.MethodPost, "/financial/contracts", f.keyB, f.contractBody(map[string]any{"renewed_id": id}))
	want = []string{"account_id", "billing_id", "building_id", "business_id", "renewed_id", "tenant_id"}
	if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("B pointing at A's records: %d %v, want 422 naming %v", r.status, got, want)
	}
}

// TestContractUpdateRules: the period is checked against the stored dates,
// a status change is dated today unless the body dates it, payment_status
// stays read-only, and a contract cannot renew itself.
func TestContractUpdateRules(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	id := f.newContract(t, map[string]any{"end_at": "2025-06-30"})
	cases := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"end_at": "2024-06-30"}, "end_at"},
		{map[string]any{"start_at": "2025-07-01"}, "end_at"},
		{map[string]any{"payment_status": "ok"}, "payment_status"},
		{map[string]any{"renewed_id": id}, "renewed_id"},
		{map[string]any{"due_day": -1}, "due_day"},
	}
	for _, c := range cases {
		if r := f.putContract(t, id, c.body); r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("%v: %d %s, want 422 naming %s", c.body, r.status, r.raw, c.field)
		}
	}
	r := f.putContract(t, id, map[string]any{"status": "closing", "active": "suspended"})
	if rec := r.record(t); rec["status_date"] != today(0) || rec["active_date"] != today(0) {
		t.Errorf("status change: status_date %v, active_date %v, want today %s", rec["status_date"], rec["active_date"], today(0))
	}
	r = f.putContract(t, id, map[string]any{"status": "renew", "status_date": "2025-01-02", "end_at": nil})
	if rec := r.record(t); rec["status_date"] != "2025-01-02" || rec["end_at"] != nil || rec["active_date"] != today(0) {
		t.Errorf("dated status change: %s", r.raw)
	}
	f.exec(t, `UPDATE contracts SET status_date = '2020-01-01' WHERE id = $1`, id)
	if rec := f.putContract(t, id, map[string]any{"status": "renew", "notes": "x"}).record(t); rec["status_date"] != "2020-01-01" {
		t.Errorf("the same status again moved status_date: %v", rec["status_date"])
	}
}

// TestContractDocumentables: documentables are written with the contract,
// returned in the write's response and through include[documentables],
// edited and removed by id, and deleted with the contract.
func TestContractDocumentables(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	r := f.do(t, http.MethodPost, "/financial/contracts", f.keyA, f.contractBody(map[string]any{"documentables": []any{
		map[string]any{"template_id": 7, "content": "<p>Contrato</p>", "privacy": "private"},
		map[string]any{"template_id": 8, "content": "<p>Vistoria</p>"},
	}}))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	rec := r.record(t)
	id := num(t, rec["id"])
	docs := relatedIDs(t, rec, "documentables")
	if len(docs) != 2 {
		t.Fatalf("documentables in the response: %v", rec["documentables"])
	}
	if second := rec["documentables"].([]any)[1].(map[string]any); second["privacy"] != "private" || num(t, second["contract_id"]) != id {
		t.Errorf("second document: %v", second)
	}
	r = f.putContract(t, id, map[string]any{"documentables": []any{
		map[string]any{"id": docs[0], "privacy": "public"},
		map[string]any{"id": docs[1], "delete": true},
		map[string]any{"template_id": 9},
	}})
	if r.status != http.StatusOK {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	got := f.get(t, contractPath(id)+"?include[documentables]", http.StatusOK).record(t)
	if ids := relatedIDs(t, got, "documentables"); len(ids) != 2 || ids[0] != docs[0] {
		t.Errorf("documentables after the update: %v", got["documentables"])
	}
	other := f.newContract(t, nil)
	if r := f.putContract(t, other, map[string]any{"documentables": []any{map[string]any{"id": docs[0], "delete": true}}}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"documentables.0.id"}) {
		t.Errorf("another contract's document: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodDelete, contractPath(id), f.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	if n := f.scalar(t, `SELECT count(*) FROM contract_documents WHERE contract_id = $1`, id); n != 0 {
		t.Errorf("%d documents left after the contract's delete", n)
	}
}

// TestContractIsolationAndDelete: company B reaches nothing of A's
// contract; a contract with invoices is not deleted (409); deleting one
// removes its sub-records and unlinks its events.
func TestContractIsolationAndDelete(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	id := f.newContract(t, nil)
	for _, c := range []struct {
		method string
		body   any
	}{{http.MethodGet, nil}, {http.MethodPut, map[string]any{"notes": "B"}}, {http.MethodDelete, nil}} {
		if r := f.do(t, c.method, contractPath(id), f.keyB, c.body); r.status != http.StatusNotFound {
			t.Errorf("B %s: %d %s, want 404", c.method, r.status, r.raw)
		}
	}
	if r := f.do(t, http.MethodGet, "/financial/contracts", f.keyB, nil); r.status != http.StatusOK || len(r.ids(t)) != 0 {
		t.Errorf("B lists A's contracts: %s", r.raw)
	}
	billed := f.newContract(t, nil)
	f.invoice(t, map[string]any{"type": "contract", "contract_id": billed})
	if r := f.do(t, http.MethodDelete, contractPath(billed), f.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete a billed contract: %d %s, want 409", r.status, r.raw)
	}
	f.create(t, contractPath(id, "vehicles"), map[string]any{"plate": "ABC1D23"})
	f.create(t, contractPath(id, "occupants"), map[string]any{"type": "resident"})
	f.create(t, contractPath(id, "items"), map[string]any{"item_id": f.rent})
	event := f.scalar(t, `INSERT INTO events (company_id, contract_id, title) VALUES ($1, $2, 'Visita') RETURNING id`, f.compA, id)
	if r := f.do(t, http.MethodDelete, contractPath(id), f.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	left := f.scalar(t, `SELECT (SELECT count(*) FROM contract_vehicles WHERE contract_id = $1)
		+ (SELECT count(*) FROM contract_occupants WHERE contract_id = $1) + (SELECT count(*) FROM contract_items WHERE contract_id = $1)`, id)
	if left != 0 {
		t.Errorf("%d sub-records left", left)
	}
	if n := f.scalar(t, `SELECT count(*) FROM events WHERE id = $1 AND contract_id IS NULL`, event); n != 1 {
		t.Errorf("the event was not kept unlinked")
	}
}

// TestContractReadjustOffWarning: a contract written with how it is
// readjusted (readjust_indicator, readjust_with) but not readjust_active
// is stored as written, off (the default), and its 2xx answer warns that
// it is not readjusted; a write that gives readjust_active, true or
// false, or that does not touch the readjustment, is not warned. The
// answers match the OpenAPI document's schemas.
func TestContractReadjustOffWarning(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	warnings := func(r response) []string {
		t.Helper()
		items, _ := r.body["warnings"].([]any)
		var out []string
		for _, it := range items {
			w := it.(map[string]any)
			out = append(out, fmt.Sprint(w["field"], ": ", w["message"]))
		}
		return out
	}
	const warned = "readjust_active: is false: the nightly run does not readjust this contract, whatever readjust_indicator " +
		"and readjust_with say; send readjust_active true to readjust it on readjust_at_effective"

	r := f.do(t, http.MethodPost, "/financial/contracts", f.keyA,
		f.contractBody(map[string]any{"readjust_indicator": "IGP-M", "readjust_with": 12}))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	rec := r.record(t)
	if got := warnings(r); !slices.Equal(got, []string{warned}) || rec["readjust_active"] != false || rec["readjust_at_effective"] != nil {
		t.Errorf("create with an index and a period: warnings %q, readjust_active %v, readjust_at_effective %v",
			got, rec["readjust_active"], rec["readjust_at_effective"])
	}
	checkOperationAnswer(t, f.testEnv, "post", "/financial/contracts", http.StatusCreated, r.raw)
	id := num(t, rec["id"])

	steps := []struct {
		name string
		body map[string]any
		warn bool
	}{
		{"another field", map[string]any{"notes": "Chaves com a portaria"}, false},
		{"the index alone", map[string]any{"readjust_indicator": "IPCA"}, true},
		{"the period alone", map[string]any{"readjust_with": 24}, true},
		{"off, said so", map[string]any{"readjust_indicator": "IGP-M", "readjust_active": false}, false},
		{"on", map[string]any{"readjust_indicator": "IGP-M", "readjust_active": true}, false},
		{"the period, once it is on", map[string]any{"readjust_with": 12}, false},
	}
	for _, s := range steps {
		r := f.putContract(t, id, s.body)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", s.name, r.status, r.raw)
		}
		if got := warnings(r); s.warn != (len(got) == 1 && got[0] == warned) || !s.warn && len(got) > 0 {
			t.Errorf("%s: warnings %q, want warned %v", s.name, got, s.warn)
		}
		if s.warn {
			checkOperationAnswer(t, f.testEnv, "put", "/financial/contracts/{id}", http.StatusOK, r.raw)
		}
	}
	if rec := f.get(t, contractPath(id), http.StatusOK); rec.body["warnings"] != nil || rec.record(t)["readjust_active"] != true {
		t.Errorf("GET: %s", rec.raw)
	}

	for name, body := range map[string]map[string]any{
		"on":           {"readjust_indicator": "IGP-M", "readjust_with": 12, "readjust_active": true},
		"off, said so": {"readjust_indicator": "IGP-M", "readjust_active": false},
		"no index":     {},
	} {
		r := f.do(t, http.MethodPost, "/financial/contracts", f.keyA, f.contractBody(body))
		if r.status != http.StatusCreated || r.body["warnings"] != nil {
			t.Errorf("create %s: %d %s", name, r.status, r.raw)
		}
	}
}
