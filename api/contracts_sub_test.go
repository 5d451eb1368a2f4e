package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestContractSubResources: vehicles, occupants, items, files, inspects
// and insurances are full CRUD under their contract; the contract comes
// from the path (a body naming it is a 422); another contract's record is
// a 404 under this path, and so is every route for company B.
func TestContractSubResources(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	id, other := f.newContract(t, nil), f.newContract(t, nil)
	cases := []struct {
		path           string
		create, update map[string]any
		filter         string
	}{
		{"vehicles", map[string]any{"brand": "Fiat", "model": "Uno", "color": "prata", "plate": "ABC1D23"}, map[string]any{"color": "preto"}, "filter[plate]=ABC1D23"},
		{"occupants", map[string]any{"type": "tenant", "name": "Ana", "person_id": f.tenant, "tax_id": "52998224725", "principal": true,
			"percentage": "50", "start_at": "2024-07-01", "end_at": "2025-06-30", "description": "titular", "notes": "n"}, map[string]any{"principal": false}, "filter[principal]=true"},
		{"items", map[string]any{"mode": "item", "item_id": f.rent, "description": "Aluguel", "calculate_mode": "fixed", "amount": "2500.00",
			"start_at": "2024-07-01", "config": `{"installment":1,"billing_mode":"monthly"}`}, map[string]any{"amount": "2600.00"}, "filter[calculate_mode]=fixed"},
		{"files", map[string]any{"name": "contrato.pdf", "url": "https://files.example.com/c.pdf", "content_type": "application/pdf"}, map[string]any{"name": "c2.pdf"}, "filter[name]=contrato.pdf"},
		{"inspects", map[string]any{"kind": "entry", "inspected_at": "2024-07-01", "notes": "ok"}, map[string]any{"kind": "exit"}, "filter[kind]=entry"},
		{"insurances", map[string]any{"kind": "fire", "insurer": "Porto", "policy": "P-1", "start_at": "2024-07-01", "end_at": "2025-06-30", "amount": "300.00"},
			map[string]any{"policy": "P-2"}, "filter[policy]=P-1"},
	}
	for _, c := range cases {
		under := contractPath(id, c.path)
		child := f.create(t, under, c.create)
		one := fmt.Sprintf("%s/%d", under, child)
		if rec := f.get(t, one+"?include[contract]=id", http.StatusOK).record(t); num(t, rec["contract_id"]) != id || relatedID(t, rec, "contract") != id {
			t.Errorf("%s: %v", c.path, rec)
		}
		if ids := f.get(t, under+"?"+c.filter, http.StatusOK).ids(t); !slices.Equal(ids, []int64{child}) {
			t.Errorf("list %s?%s: %v", c.path, c.filter, ids)
		}
		if ids := f.get(t, contractPath(other, c.path), http.StatusOK).ids(t); len(ids) != 0 {
			t.Errorf("%s of the other contract: %v", c.path, ids)
		}
		if r := f.do(t, http.MethodPut, one, f.keyA, c.update); r.status != http.StatusOK {
			t.Errorf("update %s: %d %s", c.path, r.status, r.raw)
		}
		if r := f.do(t, http.MethodPost, under, f.keyA, map[string]any{"contract_id": other}); r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: contract_id in a body: %d %s", c.path, r.status, r.raw)
		}
		otherOne := fmt.Sprintf("%s/%d", contractPath(other, c.path), child)
		f.get(t, otherOne, http.StatusNotFound)
		for _, m := range []string{http.MethodPut, http.MethodDelete} {
			if r := f.do(t, m, otherOne, f.keyA, c.update); r.status != http.StatusNotFound {
				t.Errorf("%s %s under another contract: %d, want 404", m, c.path, r.status)
			}
		}
		for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
			if r := f.do(t, m, one, f.keyB, c.update); r.status != http.StatusNotFound {
				t.Errorf("B %s %s: %d, want 404", m, c.path, r.status)
			}
		}
		if r := f.do(t, http.MethodGet, under, f.keyB, nil); r.status != http.StatusNotFound {
			t.Errorf("B lists %s of A's contract: %d, want 404", c.path, r.status)
		}
		if r := f.do(t, http.MethodPost, under, f.keyB, c.create); r.status != http.StatusNotFound {
			t.Errorf("B creates %s under A's contract: %d, want 404", c.path, r.status)
		}
		if r := f.do(t, http.MethodDelete, one, f.keyA, nil); r.status != http.StatusOK {
			t.Errorf("delete %s: %d %s", c.path, r.status, r.raw)
		}
		f.get(t, one, http.StatusNotFound)
	}
	f.get(t, contractPath(999999, "vehicles"), http.StatusNotFound)
}

// TestContractOccupantRules: the type is one of the spec's, a tax id has
// valid check digits, the period is in order, and typeIn[] and include
// [person] work.
func TestContractOccupantRules(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	id := f.newContract(t, nil)
	under := contractPath(id, "occupants")
	cases := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "Sem tipo"}, "type"},
		{map[string]any{"type": "neighbour"}, "type"},
		{map[string]any{"type": "tenant", "tax_id": "52998224724"}, "tax_id"},
		{map[string]any{"type": "tenant", "start_at": "2024-07-01", "end_at": "2024-06-01"}, "end_at"},
		{map[string]any{"type": "tenant", "person_id": 999999}, "person_id"},
		{map[string]any{"type": "tenant", "percentage": "100.001"}, "percentage"},
	}
	for _, c := range cases {
		if r := f.do(t, http.MethodPost, under, f.keyA, c.body); r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("%v: %d %s, want 422 naming %s", c.body, r.status, r.raw, c.field)
		}
	}
	guarantor := f.create(t, under, map[string]any{"type": "guarantor", "person_id": f.payer, "tax_id": "11222333000181", "start_at": "2024-07-01"})
	resident := f.create(t, under, map[string]any{"type": "resident", "name": "Rita"})
	if r := f.do(t, http.MethodPut, fmt.Sprintf("%s/%d", under, guarantor), f.keyA, map[string]any{"end_at": "2024-01-01"}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"end_at"}) {
		t.Errorf("end before the stored start: %d %s", r.status, r.raw)
	}
	if ids := f.get(t, under+"?sort=id&filter[typeIn][]=guarantor&filter[typeIn][]=witness", http.StatusOK).ids(t); !slices.Equal(ids, []int64{guarantor}) {
		t.Errorf("typeIn: %v", ids)
	}
	f.get(t, under+"?filter[typeIn][]=neighbour", http.StatusUnprocessableEntity)
	data := f.get(t, under+"?sort=id&include[person]=name", http.StatusOK).data(t)
	if len(data) != 2 || num(t, data[1]["id"]) != resident || data[1]["person"] != nil {
		t.Fatalf("include[person]: %v", data)
	}
	if person, _ := data[0]["person"].(map[string]any); person["name"] != "Paula Pagadora" {
		t.Errorf("include[person] of the guarantor: %v", data[0]["person"])
	}
}

// TestContractItemRules: config is written on create only, item_default is
// a filter alone, a parent is an item of the same contract, and the items'
// filters and includes.
func TestContractItemRules(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	id, other := f.newContract(t, nil), f.newContract(t, nil)
	under := contractPath(id, "items")
	f.exec(t, `UPDATE transaction_items SET readjust = true WHERE id = $1`, f.rent)
	rent := f.create(t, under, map[string]any{"item_id": f.rent, "amount": "2500.00", "transfer_owner_id": f.owner, "config": `{"installment":1}`})
	fee := f.create(t, under, map[string]any{"mode": "commission", "item_id": f.adminFee, "parent_id": rent, "broker_id": f.broker,
		"calculate_mode": "percentage", "percentage": "10.5", "percentage_mode": "rental_value", "commissioned_type": "broker", "amount": "250.00"})
	otherItem := f.create(t, contractPath(other, "items"), map[string]any{"item_id": f.condo, "amount": "300.00"})
	f.exec(t, `UPDATE contract_items SET item_default = true WHERE id = $1`, fee)
	cases := []struct {
		method, path string
		body         map[string]any
		field        string
	}{
		{http.MethodPut, fmt.Sprintf("%s/%d", under, rent), map[string]any{"config": `{"installment":2}`}, "config"},
		{http.MethodPost, under, map[string]any{"item_default": true}, "item_default"},
		{http.MethodPost, under, map[string]any{"parent_id": otherItem}, "parent_id"},
		{http.MethodPost, under, map[string]any{"mode": "fee"}, "mode"},
		{http.MethodPost, under, map[string]any{"commissioned_type": "boss"}, "commissioned_type"},
		{http.MethodPost, under, map[string]any{"config": "{"}, "config"},
		{http.MethodPost, under, map[string]any{"start_at": "2024-07-01", "end_at": "2024-06-30"}, "end_at"},
	}
	for _, c := range cases {
		if r := f.do(t, c.method, c.path, f.keyA, c.body); r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("%s %v: %d %s, want 422 naming %s", c.method, c.body, r.status, r.raw, c.field)
		}
	}
	rec := f.get(t, fmt.Sprintf("%s/%d", under, rent), http.StatusOK).record(t)
	if _, shown := rec["item_default"]; shown || rec["config"] != `{"installment":1}` {
		t.Errorf("item: %v", rec)
	}
	filters := []struct {
		query string
		want  []int64
	}{
		{"filter[modeIn][]=commission", []int64{fee}},
		{fmt.Sprintf("filter[contractIn][]=%d", id), []int64{rent, fee}},
		{fmt.Sprintf("filter[contractIn][]=%d", other), nil},
		{fmt.Sprintf("filter[ownerIn][]=%d", f.owner), []int64{rent}},
		{"filter[amountMin]=1000", []int64{rent}},
		{"filter[withReadjust]=true", []int64{rent}},
		{"filter[withReadjust]=false", []int64{fee}},
		{"filter[item_default]=true", []int64{fee}},
		{fmt.Sprintf("filter[parent_id]=%d", rent), []int64{fee}},
		// the rent item leaves percentage_mode out: it stores the default
		{"filter[percentage_mode]=rental_value", []int64{rent, fee}},
		{fmt.Sprintf("filter[contract_id]=%d", id), []int64{rent, fee}},
		{fmt.Sprintf("filter[broker_id]=%d", f.broker), []int64{fee}},
		{"filter[start_at|empty]", []int64{rent, fee}},
	}
	for _, c := range filters {
		if got := f.get(t, under+"?sort=id&"+c.query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	for _, q := range []string{"fields=item_default", "sort=item_default", "filter[modeIn][]=fee", "filter[amountMin]=x", "filter[config]=" + url.QueryEscape("{}")} {
		f.get(t, under+"?"+q, http.StatusUnprocessableEntity)
	}
	got := f.get(t, fmt.Sprintf("%s/%d?include[item]&include[contract]&include[parent]&include[transfer_owner]&include[broker]", under, fee), http.StatusOK).record(t)
	for name, want := range map[string]int64{"item": f.adminFee, "contract": id, "parent": rent, "transfer_owner": 0, "broker": f.broker} {
		if relatedID(t, got, name) != want {
			t.Errorf("include[%s]: %v, want %d", name, got[name], want)
		}
	}
	if relatedID(t, f.get(t, fmt.Sprintf("%s/%d?include[transfer_owner]", under, rent), http.StatusOK).record(t), "transfer_owner") != f.owner {
		t.Errorf("include[transfer_owner] of the rent item")
	}
}

// TestContractBodyNamesWhereItemsGo: a contract's items (a sub-resource,
// written after the contract) given in its body are a 422 on the field
// saying the path they are written through; a field no sub-resource has
// is a bare unknown field.
func TestContractBodyNamesWhereItemsGo(t *testing.T) {
	f := contractEnv(t)
	cases := []struct{ field, says string }{
		{"items", "unknown field: the items are written through /financial/contracts/{contract}/items"},
		{"occupants", "written through /financial/contracts/{contract}/occupants"},
		{"itemz", "unknown field"},
	}
	for _, c := range cases {
		r := f.do(t, http.MethodPost, "/financial/contracts", f.keyA, f.contractBody(map[string]any{c.field: []any{}}))
		if r.status != http.StatusUnprocessableEntity || !sameStrings(r.problemFields(t), []string{c.field}) || !strings.Contains(r.raw, c.says) {
			t.Errorf("%s: %d %s, want 422 on %s saying %q", c.field, r.status, r.raw, c.field, c.says)
		}
	}
	if r := f.do(t, http.MethodPost, "/financial/contracts", f.keyA, f.contractBody(map[string]any{"itemz": []any{}})); strings.Contains(r.raw, "written through") {
		t.Errorf("a field no sub-resource has names one: %s", r.raw)
	}
}
