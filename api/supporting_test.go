package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// crudCase is the round trip of one extension resource through the API.
type crudCase struct {
	path    string
	create  map[string]any
	update  map[string]any
	filter  string // a query that keeps the record created
	include string // an include the resource declares ("" when none)
}

// create is a POST with company A's key, expecting 201; it returns the id.
func (e *testEnv) create(t *testing.T, path string, body map[string]any) int64 {
	t.Helper()
	r := e.do(t, http.MethodPost, path, e.keyA, body)
	if r.status != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, r.status, r.raw)
	}
	return num(t, r.record(t)["id"])
}

// roundTrip creates, reads, lists with a filter and an include, updates
// and deletes a record of company A, and checks that company B can do none
// of that to it.
func roundTrip(t *testing.T, e *testEnv, c crudCase) {
	t.Helper()
	id := e.create(t, c.path, c.create)
	one := fmt.Sprintf("%s/%d", c.path, id)

	rec := e.get(t, one, http.StatusOK).record(t)
	for k, v := range c.create {
		if s, ok := v.(string); ok && !strings.HasPrefix(k, "_") && fmt.Sprint(rec[k]) != s {
			t.Errorf("GET %s: %s = %v, want %q", one, k, rec[k], s)
		}
	}
	if ids := e.get(t, c.path+"?"+c.filter, http.StatusOK).ids(t); !slices.Contains(ids, id) {
		t.Errorf("GET %s?%s: %v, want %d among them", c.path, c.filter, ids, id)
	}
	if c.include != "" {
		r := e.get(t, fmt.Sprintf("%s?filter[id]=%d&include[%s]", c.path, id, c.include), http.StatusOK)
		if data := r.data(t); len(data) != 1 {
			t.Errorf("include[%s]: %s", c.include, r.raw)
		} else if _, ok := data[0][c.include]; !ok {
			t.Errorf("include[%s] missing: %s", c.include, r.raw)
		}
		e.get(t, fmt.Sprintf("%s?include[%s]", one, c.include), http.StatusOK)
	}
	up := e.do(t, http.MethodPut, one, e.keyA, c.update)
	if up.status != http.StatusOK {
		t.Fatalf("PUT %s: %d %s", one, up.status, up.raw)
	}
	for k, v := range c.update {
		if s, ok := v.(string); ok && fmt.Sprint(up.record(t)[k]) != s {
			t.Errorf("PUT %s: %s = %v, want %q", one, k, up.record(t)[k], s)
		}
	}

	// company B sees nothing of it
	if r := e.do(t, http.MethodGet, c.path, e.keyB, nil); r.status != http.StatusOK || slices.Contains(r.ids(t), id) {
		t.Errorf("B lists %s: %d %s", c.path, r.status, r.raw)
	}
	for _, m := range []struct {
		method string
		body   any
	}{{http.MethodGet, nil}, {http.MethodPut, c.update}, {http.MethodDelete, nil}} {
		if r := e.do(t, m.method, one, e.keyB, m.body); r.status != http.StatusNotFound {
			t.Errorf("B %s %s: %d, want 404: %s", m.method, one, r.status, r.raw)
		}
	}
	e.get(t, one, http.StatusOK) // still there

	if r := e.do(t, http.MethodDelete, one, e.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("DELETE %s: %d %s", one, r.status, r.raw)
	}
	e.get(t, one, http.StatusNotFound)
}

func TestSupportingResources(t *testing.T) {
	t.Parallel()
	e := setup(t)
	business := e.create(t, "/financial/businesses", map[string]any{"name": "Horizonte Administradora", "tax_id": "11222333000181"})
	account := e.create(t, "/financial/accounts", map[string]any{"business_id": business, "bank": "341", "layout": "cnab400",
		"agency": "0057", "account": "12345", "account_digit": "7", "wallet": "109"})
	plan := e.create(t, "/financial/plans", map[string]any{"name": "Receitas", "code": "1"})

	cases := []crudCase{
		{
			path: "/persons",
			create: map[string]any{
				"name": "Maria da Silva", "tax_id": "52998224725", "email": "maria@example.com", "phone": "11999990000",
				"zip_code": "01310100", "street": "Av. Paulista", "number": "1000", "complement": "ap 12",
				"district": "Bela Vista", "city": "São Paulo", "state": "SP",
				"bank": "001", "agency": "1234", "agency_digit": "X", "account": "567890", "account_digit": "1",
				"account_type": "checking", "pix_key": "maria@example.com", "_origin": "site",
			},
			update:  map[string]any{"phone": "1133334444", "account_type": "savings"},
			filter:  "filter[taxIdIn][]=52998224725&filter[name]=maria%25",
			include: "ownerships",
		},
		{
			path:    "/financial/businesses",
			create:  map[string]any{"name": "Filial Centro", "tax_id": "11444777000161", "city": "Campinas", "state": "SP"},
			update:  map[string]any{"street": "Rua Barão de Jaguara"},
			filter:  "filter[city]=Campinas",
			include: "accounts",
		},
		{
			path: "/financial/accounts",
			create: map[string]any{
				"business_id": business, "description": "Itaú cobrança", "bank": "341", "layout": "cnab240",
				"agency": "0057", "account": "12345", "account_digit": "7", "wallet": "109",
				"wallet_variation": "019", "covenant": "1234567", "transmission_code": "001", "station": "02",
				"modality": "01", "pix_key": "11222333000181",
			},
			update:  map[string]any{"wallet": "112"},
			filter:  fmt.Sprintf("filter[businessIn][]=%d&filter[layout]=cnab240", business),
			include: "business",
		},
		{
			path:    "/financial/plans",
			create:  map[string]any{"name": "Aluguéis", "code": "1.1", "parent_id": plan},
			update:  map[string]any{"name": "Aluguéis recebidos"},
			filter:  fmt.Sprintf("filter[planAllIn][]=%d", plan),
			include: "parent",
		},
		{
			path: "/financial/billings",
			create: map[string]any{
				"name": "Boleto Itaú", "billing_method": "ticket", "account_id": account,
				"ticket_late_fee": true, "ticket_late_fee_percentage": "2.00", "ticket_late_fee_interest": "1.00",
				"ticket_discount": true, "ticket_discount_mode": "percentage", "ticket_discount_percentage": "5.00",
				"ticket_discount_days": 5,
			},
			update:  map[string]any{"billing_method": "pix"},
			filter:  "filter[billingMethodIn][]=ticket&filter[billingMethodIn][]=pix",
			include: "account",
		},
		{
			path:   "/tags",
			create: map[string]any{"name": "VIP", "color": "#ff0000"},
			update: map[string]any{"color": "#00ff00"},
			filter: "filter[color]=%23ff0000",
		},
		{
			path: "/buildings",
			create: map[string]any{
				"title": "Edifício Aurora", "reference": "AU-1", "zip_code": "20040002", "street": "Rua da Assembleia",
				"number": "10", "district": "Centro", "city": "Rio de Janeiro", "state": "RJ",
			},
			update:  map[string]any{"complement": "bloco B"},
			filter:  "filter[state]=RJ",
			include: "owners",
		},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) { roundTrip(t, e, c) })
	}
}

func TestSupportingChecks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct {
		path  string
		body  map[string]any
		field string
	}{
		{"/persons", map[string]any{"name": "x", "tax_id": "123"}, "tax_id"},
		{"/persons", map[string]any{"name": "x", "tax_id": "529.982.247/25"}, "tax_id"},
		{"/persons", map[string]any{"name": "x", "account_type": "current"}, "account_type"},
		{"/persons", map[string]any{"name": "x", "state": "XX"}, "state"},
		{"/persons", map[string]any{"name": "x", "zip_code": "0131010"}, "zip_code"},
		{"/persons", map[string]any{"name": " "}, "name"},
		{"/financial/businesses", map[string]any{"name": "x", "tax_id": "52998224725"}, "tax_id"},
		{"/financial/accounts", map[string]any{"description": "x"}, "business_id"},
		{"/financial/billings", map[string]any{"name": "x", "billing_method": "boleto"}, "billing_method"},
		{"/financial/billings", map[string]any{"name": "x", "ticket_late_fee_percentage": "2.001"}, "ticket_late_fee_percentage"},
		{"/financial/billings", map[string]any{"name": "x", "ticket_discount_percentage": "101"}, "ticket_discount_percentage"},
		{"/tags", map[string]any{"color": "#fff"}, "name"},
		{"/buildings", map[string]any{"state": "sp"}, "state"},
	}
	for _, c := range cases {
		r := e.do(t, http.MethodPost, c.path, e.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Contains(r.problemFields(t), c.field) {
			t.Errorf("POST %s %v: %d %s, want 422 naming %s", c.path, c.body, r.status, r.raw, c.field)
		}
	}

	business := e.create(t, "/financial/businesses", map[string]any{"name": "B"})
	account := e.create(t, "/financial/accounts", map[string]any{"business_id": business})
	for _, field := range []string{"next_file_sequence", "next_nosso_numero"} {
		if r := e.do(t, http.MethodPut, fmt.Sprintf("/financial/accounts/%d", account), e.keyA, map[string]any{field: 9}); r.status != http.StatusUnprocessableEntity {
			t.Errorf("PUT %s: %d %s, want 422 (read-only)", field, r.status, r.raw)
		}
	}
	rec := e.get(t, fmt.Sprintf("/financial/accounts/%d", account), http.StatusOK).record(t)
	if num(t, rec["next_file_sequence"]) != 1 || num(t, rec["next_nosso_numero"]) != 1 {
		t.Errorf("account counters do not start at 1: %v", rec)
	}
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/financial/businesses/%d", business), e.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete of a business with accounts: %d %s", r.status, r.raw)
	}

	e.create(t, "/tags", map[string]any{"name": "dup"})
	if r := e.do(t, http.MethodPost, "/tags", e.keyA, map[string]any{"name": "dup"}); r.status != http.StatusConflict {
		t.Errorf("duplicate tag: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPost, "/tags", e.keyB, map[string]any{"name": "dup"}); r.status != http.StatusCreated {
		t.Errorf("another company's tag of the same name: %d %s", r.status, r.raw)
	}
}

// TestPlanTree: the tree filter takes a plan and everything below it, and
// the parent and children relations follow the tree.
func TestPlanTree(t *testing.T) {
	t.Parallel()
	e := setup(t)
	root := e.create(t, "/financial/plans", map[string]any{"name": "Despesas"})
	child := e.create(t, "/financial/plans", map[string]any{"name": "Manutenção", "parent_id": root})
	grandchild := e.create(t, "/financial/plans", map[string]any{"name": "Elétrica", "parent_id": child})
	other := e.create(t, "/financial/plans", map[string]any{"name": "Receitas"})

	ids := e.get(t, fmt.Sprintf("/financial/plans?filter[planAllIn][]=%d&sort=id", root), http.StatusOK).ids(t)
	if !slices.Equal(ids, []int64{root, child, grandchild}) {
		t.Errorf("planAllIn root: %v", ids)
	}
	ids = e.get(t, fmt.Sprintf("/financial/plans?filter[planAllIn][]=%d&filter[planAllIn][]=%d&sort=id", child, other), http.StatusOK).ids(t)
	if !slices.Equal(ids, []int64{child, grandchild, other}) {
		t.Errorf("planAllIn child, other: %v", ids)
	}
	rec := e.get(t, fmt.Sprintf("/financial/plans/%d?include[children]=id&include[parent]=id", child), http.StatusOK).record(t)
	kids, _ := rec["children"].([]any)
	parent, _ := rec["parent"].(map[string]any)
	if len(kids) != 1 || num(t, kids[0].(map[string]any)["id"]) != grandchild || parent == nil || num(t, parent["id"]) != root {
		t.Errorf("relations of the middle plan: %v", rec)
	}
	if r := e.do(t, http.MethodPut, fmt.Sprintf("/financial/plans/%d", root), e.keyA, map[string]any{"parent_id": root}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a plan as its own parent: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/financial/plans/%d", root), e.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete of a plan with children: %d %s", r.status, r.raw)
	}
	// B sees none of A's tree through the filter
	r := e.do(t, http.MethodGet, fmt.Sprintf("/financial/plans?filter[planAllIn][]=%d", root), e.keyB, nil)
	if r.status != http.StatusOK || len(r.ids(t)) != 0 {
		t.Errorf("B through planAllIn: %s", r.raw)
	}
}

// TestSupportingReferencesStayInCompany: company B cannot point any
// reference at a record of company A.
func TestSupportingReferencesStayInCompany(t *testing.T) {
	t.Parallel()
	e := setup(t)
	businessA := e.create(t, "/financial/businesses", map[string]any{"name": "A"})
	accountA := e.create(t, "/financial/accounts", map[string]any{"business_id": businessA})
	planA := e.create(t, "/financial/plans", map[string]any{"name": "A"})
	personA := e.create(t, "/persons", map[string]any{"name": "A"})

	bCreate := func(path string, body map[string]any) int64 {
		t.Helper()
		r := e.do(t, http.MethodPost, path, e.keyB, body)
		if r.status != http.StatusCreated {
			t.Fatalf("B POST %s: %d %s", path, r.status, r.raw)
		}
		return num(t, r.record(t)["id"])
	}
	businessB := bCreate("/financial/businesses", map[string]any{"name": "B"})
	accountB := bCreate("/financial/accounts", map[string]any{"business_id": businessB})
	planB := bCreate("/financial/plans", map[string]any{"name": "B"})
	billingB := bCreate("/financial/billings", map[string]any{"name": "B", "account_id": accountB})
	buildingB := bCreate("/buildings", map[string]any{"title": "B"})

	cases := []struct {
		method, path string
		body         map[string]any
		field        string
	}{
		{http.MethodPost, "/financial/accounts", map[string]any{"business_id": businessA}, "business_id"},
		{http.MethodPut, fmt.Sprintf("/financial/accounts/%d", accountB), map[string]any{"business_id": businessA}, "business_id"},
		{http.MethodPost, "/financial/billings", map[string]any{"name": "x", "account_id": accountA}, "account_id"},
		{http.MethodPut, fmt.Sprintf("/financial/billings/%d", billingB), map[string]any{"account_id": accountA}, "account_id"},
		{http.MethodPost, "/financial/plans", map[string]any{"name": "x", "parent_id": planA}, "parent_id"},
		{http.MethodPut, fmt.Sprintf("/financial/plans/%d", planB), map[string]any{"parent_id": planA}, "parent_id"},
		{http.MethodPost, fmt.Sprintf("/buildings/%d/owners", buildingB), map[string]any{"person_id": personA}, "person_id"},
	}
	for _, c := range cases {
		r := e.do(t, c.method, c.path, e.keyB, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Contains(r.problemFields(t), c.field) {
			t.Errorf("B %s %s %v: %d %s, want 422 naming %s", c.method, c.path, c.body, r.status, r.raw, c.field)
		}
	}
}

// TestBuildingOwners: owners live under their building; another
// building's owner, or another company's building, is a 404.
func TestBuildingOwners(t *testing.T) {
	t.Parallel()
	e := setup(t)
	b1 := e.create(t, "/buildings", map[string]any{"title": "Um"})
	b2 := e.create(t, "/buildings", map[string]any{"title": "Dois"})
	p1 := e.create(t, "/persons", map[string]any{"name": "Ana", "tax_id": "52998224725"})
	p2 := e.create(t, "/persons", map[string]any{"name": "Bruno"})

	owners1 := fmt.Sprintf("/buildings/%d/owners", b1)
	owners2 := fmt.Sprintf("/buildings/%d/owners", b2)
	o1 := e.create(t, owners1, map[string]any{"person_id": p1, "percentage": "60"})
	o2 := e.create(t, owners1, map[string]any{"person_id": p2, "percentage": "40.00"})
	o3 := e.create(t, owners2, map[string]any{"person_id": p2, "percentage": "100"})

	r := e.get(t, owners1+"?sort=id&include[person]=name", http.StatusOK)
	if ids := r.ids(t); !slices.Equal(ids, []int64{o1, o2}) {
		t.Errorf("owners of building 1: %v", ids)
	}
	if person, _ := r.data(t)[0]["person"].(map[string]any); person == nil || person["name"] != "Ana" {
		t.Errorf("include[person]: %s", r.raw)
	}
	if rec := e.get(t, fmt.Sprintf("%s/%d", owners1, o1), http.StatusOK).record(t); num(t, rec["building_id"]) != b1 || fmt.Sprint(rec["percentage"]) != "60.00" {
		t.Errorf("owner: %v", rec)
	}
	if ids := e.get(t, fmt.Sprintf("%s?filter[personIn][]=%d", owners1, p2), http.StatusOK).ids(t); !slices.Equal(ids, []int64{o2}) {
		t.Errorf("personIn: %v", ids)
	}
	// the building's relation and the tree of includes
	rec := e.get(t, fmt.Sprintf("/buildings/%d?include[owners.person]=name", b1), http.StatusOK).record(t)
	if owners, _ := rec["owners"].([]any); len(owners) != 2 {
		t.Errorf("include[owners]: %v", rec)
	}
	if ids := e.get(t, fmt.Sprintf("/buildings?filter[ownerIn][]=%d&sort=id", p2), http.StatusOK).ids(t); !slices.Equal(ids, []int64{b1, b2}) {
		t.Errorf("ownerIn: %v", ids)
	}
	if ids := e.get(t, fmt.Sprintf("/persons/%d?include[ownerships]", p2), http.StatusOK).record(t)["ownerships"].([]any); len(ids) != 2 {
		t.Errorf("include[ownerships]: %v", ids)
	}

	// another building's owner under this building
	for _, m := range []struct {
		method string
		body   any
	}{{http.MethodGet, nil}, {http.MethodPut, map[string]any{"percentage": "1"}}, {http.MethodDelete, nil}} {
		if r := e.do(t, m.method, fmt.Sprintf("%s/%d", owners2, o1), e.keyA, m.body); r.status != http.StatusNotFound {
			t.Errorf("%s owner %d under building %d: %d %s", m.method, o1, b2, r.status, r.raw)
		}
	}
	if ids := e.get(t, owners2, http.StatusOK).ids(t); !slices.Equal(ids, []int64{o3}) {
		t.Errorf("owners of building 2: %v", ids)
	}
	// a person owns a building once; the share is at most 100
	if r := e.do(t, http.MethodPost, owners1, e.keyA, map[string]any{"person_id": p1}); r.status != http.StatusConflict {
		t.Errorf("second share of one person: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPost, owners2, e.keyA, map[string]any{"person_id": p1, "percentage": "100.01"}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("share past 100: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPost, owners2, e.keyA, map[string]any{"person_id": p1, "building_id": b1}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("building_id in the body: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPut, fmt.Sprintf("%s/%d", owners1, o1), e.keyA, map[string]any{"percentage": "55.5"}); r.status != http.StatusOK || fmt.Sprint(r.record(t)["percentage"]) != "55.50" {
		t.Errorf("update share: %d %s", r.status, r.raw)
	}

	// company B: A's building is not there, nor its owners
	for _, m := range []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, owners1, nil},
		{http.MethodPost, owners1, map[string]any{"person_id": p1}},
		{http.MethodGet, fmt.Sprintf("%s/%d", owners1, o1), nil},
		{http.MethodPut, fmt.Sprintf("%s/%d", owners1, o1), map[string]any{"percentage": "1"}},
		{http.MethodDelete, fmt.Sprintf("%s/%d", owners1, o1), nil},
	} {
		if r := e.do(t, m.method, m.path, e.keyB, m.body); r.status != http.StatusNotFound {
			t.Errorf("B %s %s: %d %s", m.method, m.path, r.status, r.raw)
		}
	}
	// a person or a building with owners is not deleted
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/persons/%d", p1), e.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete of an owner person: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/buildings/%d", b2), e.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete of an owned building: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("%s/%d", owners2, o3), e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete owner: %d %s", r.status, r.raw)
	}
	e.get(t, fmt.Sprintf("%s/%d", owners2, o3), http.StatusNotFound)
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/buildings/%d", b2), e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete building without owners: %d %s", r.status, r.raw)
	}
}

// TestTaxIDAndPixKeyChecks: tax ids are CPFs or CNPJs (numeric or
// alphanumeric) with valid check digits, a business's a CNPJ; PIX keys are
// of one of the PIX key types. Refusals are 422s naming the field, on
// create and update alike.
func TestTaxIDAndPixKeyChecks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	business := e.create(t, "/financial/businesses", map[string]any{"name": "B", "tax_id": "11222333000181"})
	person := e.create(t, "/persons", map[string]any{"name": "P"})
	cases := []struct {
		name, method, path string
		body               map[string]any
		field              string // "" when accepted
	}{
		{"person CPF", http.MethodPost, "/persons", map[string]any{"name": "x", "tax_id": "52998224725"}, ""},
		{"person numeric CNPJ", http.MethodPost, "/persons", map[string]any{"name": "x", "tax_id": "11444777000161"}, ""},
		{"person alphanumeric CNPJ", http.MethodPost, "/persons", map[string]any{"name": "x", "tax_id": "12ABC34501DE35"}, ""},
		{"business numeric CNPJ", http.MethodPost, "/financial/businesses", map[string]any{"name": "x", "tax_id": "11444777000161"}, ""},
		{"business alphanumeric CNPJ", http.MethodPost, "/financial/businesses", map[string]any{"name": "x", "tax_id": "12ABC34501DE35"}, ""},
		{"person CPF wrong digit", http.MethodPost, "/persons", map[string]any{"name": "x", "tax_id": "52998224724"}, "tax_id"},
		{"person CPF repeated digits", http.MethodPost, "/persons", map[string]any{"name": "x", "tax_id": "11111111111"}, "tax_id"},
		{"person CNPJ wrong digit", http.MethodPost, "/persons", map[string]any{"name": "x", "tax_id": "11222333000180"}, "tax_id"},
		{"person alphanumeric CNPJ wrong digit", http.MethodPost, "/persons", map[string]any{"name": "x", "tax_id": "12ABC34501DE36"}, "tax_id"},
		{"person CNPJ in lower case (stored upper)", http.MethodPost, "/persons", map[string]any{"name": "x", "tax_id": "12abc34501de35"}, ""},
		{"person phone as tax id", http.MethodPost, "/persons", map[string]any{"name": "x", "tax_id": "+5573988899345"}, "tax_id"},
		{"business CNPJ wrong digit", http.MethodPost, "/financial/businesses", map[string]any{"name": "x", "tax_id": "12ABC34501DE36"}, "tax_id"},
		{"business CPF", http.MethodPost, "/financial/businesses", map[string]any{"name": "x", "tax_id": "52998224725"}, "tax_id"},
		{"person pix CPF", http.MethodPost, "/persons", map[string]any{"name": "x", "pix_key": "52998224725"}, ""},
		{"person pix e-mail", http.MethodPost, "/persons", map[string]any{"name": "x", "pix_key": "maria@example.com"}, ""},
		{"person pix phone", http.MethodPost, "/persons", map[string]any{"name": "x", "pix_key": "+5573988899345"}, ""},
		{"person pix EVP", http.MethodPost, "/persons", map[string]any{"name": "x", "pix_key": "123e4567-e12b-12d1-a456-426655440000"}, ""},
		{"account pix alphanumeric CNPJ", http.MethodPost, "/financial/accounts", map[string]any{"business_id": business, "pix_key": "12ABC34501DE35"}, ""},
		{"person pix bad CPF", http.MethodPost, "/persons", map[string]any{"name": "x", "pix_key": "52998224724"}, "pix_key"},
		{"person pix phone without +55", http.MethodPost, "/persons", map[string]any{"name": "x", "pix_key": "73988899345a"}, "pix_key"},
		{"person pix e-mail without domain", http.MethodPost, "/persons", map[string]any{"name": "x", "pix_key": "maria@"}, "pix_key"},
		{"account pix landline", http.MethodPost, "/financial/accounts", map[string]any{"business_id": business, "pix_key": "+551133334444"}, "pix_key"},
		{"account pix bad EVP", http.MethodPost, "/financial/accounts", map[string]any{"business_id": business, "pix_key": "123e4567-e12b-12d1-a456-42665544000g"}, "pix_key"},
		{"update person bad tax id", http.MethodPut, fmt.Sprintf("/persons/%d", person), map[string]any{"tax_id": "52998224724"}, "tax_id"},
		{"update person bad pix key", http.MethodPut, fmt.Sprintf("/persons/%d", person), map[string]any{"pix_key": "x"}, "pix_key"},
		{"update business bad tax id", http.MethodPut, fmt.Sprintf("/financial/businesses/%d", business), map[string]any{"tax_id": "11222333000182"}, "tax_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, c.method, c.path, e.keyA, c.body)
			switch {
			case c.field == "" && r.status/100 != 2:
				t.Errorf("%s %s %v: %d %s, want accepted", c.method, c.path, c.body, r.status, r.raw)
			case c.field != "" && (r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field})):
				t.Errorf("%s %s %v: %d %s, want 422 naming %s", c.method, c.path, c.body, r.status, r.raw, c.field)
			}
		})
	}
}

// TestPlanCycles: a plan's parent may not be the plan itself nor any plan
// below it, at any depth; moving a plan elsewhere in its tree is fine.
func TestPlanCycles(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := e.create(t, "/financial/plans", map[string]any{"name": "A"})
	b := e.create(t, "/financial/plans", map[string]any{"name": "B", "parent_id": a})
	c := e.create(t, "/financial/plans", map[string]any{"name": "C", "parent_id": b})
	d := e.create(t, "/financial/plans", map[string]any{"name": "D"})
	plan := func(id int64) string { return fmt.Sprintf("/financial/plans/%d", id) }
	cases := []struct {
		name          string
		id, parent    int64
		status        int
		wantParentOfA any
	}{
		{"A under C: A -> B -> C -> A", a, c, http.StatusUnprocessableEntity, nil},
		{"A under B", a, b, http.StatusUnprocessableEntity, nil},
		{"A under itself", a, a, http.StatusUnprocessableEntity, nil},
		{"B under C", b, c, http.StatusUnprocessableEntity, nil},
		{"C under A (a move up)", c, a, http.StatusOK, nil},
		{"A under D", a, d, http.StatusOK, json.Number(strconv.FormatInt(d, 10))},
		{"D under C, now below A", d, c, http.StatusUnprocessableEntity, json.Number(strconv.FormatInt(d, 10))},
	}
	for _, tc := range cases {
		r := e.do(t, http.MethodPut, plan(tc.id), e.keyA, map[string]any{"parent_id": tc.parent})
		if r.status != tc.status || tc.status != http.StatusOK && !slices.Equal(r.problemFields(t), []string{"parent_id"}) {
			t.Errorf("%s: %d %s, want %d", tc.name, r.status, r.raw, tc.status)
		}
		if got := e.get(t, plan(a), http.StatusOK).record(t)["parent_id"]; got != tc.wantParentOfA {
			t.Errorf("%s: A's parent is %v, want %v", tc.name, got, tc.wantParentOfA)
		}
	}
}

// TestPlanCyclesConcurrent: two updates at once, X under Y and Y under X,
// never both succeed: one is refused, and neither fails for the lock.
func TestPlanCyclesConcurrent(t *testing.T) {
	t.Parallel()
	e := setup(t)
	x := e.create(t, "/financial/plans", map[string]any{"name": "X"})
	y := e.create(t, "/financial/plans", map[string]any{"name": "Y"})
	for round := range 10 {
		statuses := make([]int, 2)
		var wg sync.WaitGroup
		for i, pair := range [][2]int64{{x, y}, {y, x}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.status(http.MethodPut, fmt.Sprintf("/financial/plans/%d", pair[0]), map[string]any{"parent_id": pair[1]})
			}()
		}
		wg.Wait()
		slices.Sort(statuses)
		if !slices.Equal(statuses, []int{http.StatusOK, http.StatusUnprocessableEntity}) {
			t.Fatalf("round %d: statuses %v, want one 200 and one 422", round, statuses)
		}
		e.exec(t, `UPDATE plans SET parent_id = NULL WHERE company_id = $1`, e.compA)
	}
}

// TestOwnerShares: the owners of a building hold at most 100 in all (less
// while they are being entered); a refusal names percentage and the share
// the other owners hold.
func TestOwnerShares(t *testing.T) {
	t.Parallel()
	e := setup(t)
	building := e.create(t, "/buildings", map[string]any{"title": "Um"})
	other := e.create(t, "/buildings", map[string]any{"title": "Dois"})
	var persons []int64
	for i := range 4 {
		persons = append(persons, e.create(t, "/persons", map[string]any{"name": fmt.Sprintf("P%d", i)}))
	}
	owners := fmt.Sprintf("/buildings/%d/owners", building)
	o1 := e.create(t, owners, map[string]any{"person_id": persons[0], "percentage": "60"})
	o2 := e.create(t, owners, map[string]any{"person_id": persons[1], "percentage": "30"})
	cases := []struct {
		name, method, path string
		body               map[string]any
		status             int
		message            string
	}{
		{"a third owner past 100", http.MethodPost, owners, map[string]any{"person_id": persons[2], "percentage": "10.01"}, 422, "the other owners hold 90.00, so at most 10.00 is left"},
		{"a first owner's share raised past 100", http.MethodPut, fmt.Sprintf("%s/%d", owners, o1), map[string]any{"percentage": "70.5"}, 422, "the other owners hold 30.00, so at most 70.00 is left"},
		{"a share lowered", http.MethodPut, fmt.Sprintf("%s/%d", owners, o1), map[string]any{"percentage": "50"}, 200, ""},
		{"a third owner up to 100", http.MethodPost, owners, map[string]any{"person_id": persons[2], "percentage": "20"}, 201, ""},
		{"an owner without a share", http.MethodPost, owners, map[string]any{"person_id": persons[3]}, 201, ""},
		{"a share raised past 100", http.MethodPut, fmt.Sprintf("%s/%d", owners, o2), map[string]any{"percentage": "30.01"}, 422, "the other owners hold 70.00, so at most 30.00 is left"},
		{"another building's shares are its own", http.MethodPost, fmt.Sprintf("/buildings/%d/owners", other), map[string]any{"person_id": persons[0], "percentage": "100"}, 201, ""},
	}
	for _, c := range cases {
		r := e.do(t, c.method, c.path, e.keyA, c.body)
		if r.status != c.status || c.message != "" && (!slices.Equal(r.problemFields(t), []string{"percentage"}) || !strings.Contains(r.raw, c.message)) {
			t.Errorf("%s: %d %s, want %d %q", c.name, r.status, r.raw, c.status, c.message)
		}
	}
	var total string
	if err := e.pool.QueryRow(t.Context(), `SELECT sum(percentage)::text FROM building_owners WHERE building_id = $1`, building).Scan(&total); err != nil || total != "100.00" {
		t.Errorf("shares of the building: %s %v", total, err)
	}
}

// TestOwnerSharesConcurrent: owners entered at once never sum past 100:
// the writes of one building wait for each other.
func TestOwnerSharesConcurrent(t *testing.T) {
	t.Parallel()
	e := setup(t)
	building := e.create(t, "/buildings", map[string]any{"title": "Um"})
	const n = 6
	statuses := make([]int, n)
	var persons []int64
	for i := range n {
		persons = append(persons, e.create(t, "/persons", map[string]any{"name": fmt.Sprintf("P%d", i)}))
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = e.status(http.MethodPost, fmt.Sprintf("/buildings/%d/owners", building), map[string]any{"person_id": persons[i], "percentage": "30"})
		}()
	}
	wg.Wait()
	slices.Sort(statuses)
	if !slices.Equal(statuses, []int{201, 201, 201, 422, 422, 422}) {
		t.Errorf("statuses %v, want three 201 and three 422", statuses)
	}
}

// status sends a JSON request with company A's key and returns its status
// (0 when it could not be sent); safe off the test's goroutine.
func (e *testEnv) status(method, path string, body any) int {
	b, err := json.Marshal(body)
	if err != nil {
		return 0
	}
	req, err := http.NewRequest(method, e.url+path, bytes.NewReader(b))
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+e.keyA)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}
