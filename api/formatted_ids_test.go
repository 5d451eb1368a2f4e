package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
)

// TestFormattedTaxIDsAndPostcodes: the CPF, CNPJ and CEP forms people
// paste (123.456.789-09, 11.222.333/0001-81, 12.abc.345/01de-35,
// 01310-200) are accepted by every field holding one, on create and on
// update, stored as bare digits (upper-case letters for the alphanumeric
// CNPJ), and found by the filters on those fields given either form.
func TestFormattedTaxIDsAndPostcodes(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	contract := f.newContract(t, nil)
	cases := []struct {
		name    string
		path    string
		create  map[string]any
		update  map[string]any // formatted too; checked like create
		stored  map[string]any // what both read back as
		filters []string       // each keeps the record, given the formatted form
	}{
		{
			name: "person", path: "/persons",
			create: map[string]any{"name": "Ana", "tax_id": "529.982.247-25", "zip_code": "01310-200", "pix_key": "123.456.789-09"},
			update: map[string]any{"tax_id": "529.982.247-25", "zip_code": "01.310-200", "pix_key": "123.456.789-09"},
			stored: map[string]any{"tax_id": "52998224725", "zip_code": "01310200", "pix_key": "12345678909"},
			filters: []string{"filter[tax_id]=529.982.247-25", "filter[taxIdIn][]=529.982.247-25",
				"filter[zip_code]=01310-200", "filter[pix_key]=123.456.789-09"},
		},
		{
			name: "business, alphanumeric CNPJ in lower case", path: "/financial/businesses",
			create:  map[string]any{"name": "Aurora", "tax_id": "12.abc.345/01de-35", "zip_code": "20040-002"},
			update:  map[string]any{"tax_id": "12abc34501de35"},
			stored:  map[string]any{"tax_id": "12ABC34501DE35", "zip_code": "20040002"},
			filters: []string{"filter[taxIdIn][]=12.ABC.345/01DE-35", "filter[tax_id]=12.abc.345/01de-35"},
		},
		{
			name: "account", path: "/financial/accounts",
			create:  map[string]any{"business_id": f.business, "pix_key": "11.222.333/0001-81"},
			update:  map[string]any{"pix_key": "11.222.333/0001-81"},
			stored:  map[string]any{"pix_key": "11222333000181"},
			filters: []string{"filter[pix_key]=11.222.333/0001-81"},
		},
		{
			name: "building", path: "/buildings",
			create:  map[string]any{"title": "Brisa", "zip_code": "22021-001"},
			update:  map[string]any{"zip_code": "22021-001"},
			stored:  map[string]any{"zip_code": "22021001"},
			filters: []string{"filter[zip_code]=22021-001"},
		},
		{
			name: "contract occupant", path: contractPath(contract, "occupants"),
			create:  map[string]any{"type": "guarantor", "tax_id": "11.444.777/0001-61"},
			update:  map[string]any{"tax_id": "11.444.777/0001-61"},
			stored:  map[string]any{"tax_id": "11444777000161"},
			filters: []string{"filter[tax_id]=11.444.777/0001-61"},
		},
		{
			name: "condominium (an integer zip_code)", path: "/condominiums",
			create:  condominiumBody(t, f.testEnv, map[string]any{"zip_code": "01310-200"}),
			update:  map[string]any{"title": "Residencial Aurora", "zip_code": "01310-200"},
			stored:  map[string]any{"zip_code": "1310200"},
			filters: []string{"filter[zip_code]=01310-200"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := f.create(t, c.path, c.create)
			one := fmt.Sprintf("%s/%d", c.path, id)
			checkStored(t, "POST "+c.path, f.get(t, one, http.StatusOK).record(t), c.stored, c.create)
			up := f.do(t, http.MethodPut, one, f.keyA, c.update)
			if up.status != http.StatusOK {
				t.Fatalf("PUT %s: %d %s", one, up.status, up.raw)
			}
			checkStored(t, "PUT "+one, up.record(t), c.stored, c.update)
			for _, filter := range c.filters {
				query := c.path + "?" + escapeValues(filter)
				if ids := f.get(t, query, http.StatusOK).ids(t); !slices.Contains(ids, id) {
					t.Errorf("GET %s: %v, want %d among them", query, ids, id)
				}
			}
		})
	}

	t.Run("invoices by their payer's tax id", func(t *testing.T) {
		invoice := f.create(t, "/invoices", f.body(nil)) // payer 52998224725
		query := "/invoices?" + escapeValues("filter[payerTaxIdIn][]=529.982.247-25")
		if ids := f.get(t, query, http.StatusOK).ids(t); !slices.Equal(ids, []int64{invoice}) {
			t.Errorf("GET %s: %v, want [%d]", query, ids, invoice)
		}
	})
}

// checkStored compares the fields of rec that the body gave with what they
// are stored as.
func checkStored(t *testing.T, what string, rec, stored, body map[string]any) {
	t.Helper()
	for k, want := range stored {
		if _, given := body[k]; given && fmt.Sprint(rec[k]) != want {
			t.Errorf("%s: %s reads %v, want %v", what, k, rec[k], want)
		}
	}
}

// escapeValues escapes the values of a query string written plainly
// (the / and the letters of a tax id stay readable in the test).
func escapeValues(query string) string {
	v, err := url.ParseQuery(query)
	if err != nil {
		panic(err)
	}
	return v.Encode()
}

// TestMalformedTaxIDsAndPostcodes: what is neither the bare form nor one of
// the masks people write stays a 422 naming the field, and so does a
// formatted value with wrong check digits or of the wrong kind.
func TestMalformedTaxIDsAndPostcodes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct {
		path  string
		body  map[string]any
		field string
	}{
		{"/persons", map[string]any{"name": "x", "tax_id": "529.982.247-26"}, "tax_id"}, // wrong check digit
		{"/persons", map[string]any{"name": "x", "tax_id": "529982247-25"}, "tax_id"},
		{"/persons", map[string]any{"name": "x", "tax_id": "529.982.24725"}, "tax_id"},
		{"/persons", map[string]any{"name": "x", "tax_id": " 529.982.247-25"}, "tax_id"},
		{"/persons", map[string]any{"name": "x", "tax_id": "11.222.333/0001-8A"}, "tax_id"},
		{"/persons", map[string]any{"name": "x", "pix_key": "529.982.247-26"}, "pix_key"},
		{"/persons", map[string]any{"name": "x", "zip_code": "01310 200"}, "zip_code"},
		{"/persons", map[string]any{"name": "x", "zip_code": "0131-0200"}, "zip_code"},
		{"/persons", map[string]any{"name": "x", "zip_code": "1310-200"}, "zip_code"},
		{"/financial/businesses", map[string]any{"name": "x", "tax_id": "529.982.247-25"}, "tax_id"}, // a CPF
		{"/buildings", map[string]any{"zip_code": "CEP 01310-200"}, "zip_code"},
		{"/condominiums", map[string]any{"title": "x", "zip_code": "0131-0200"}, "zip_code"},
	}
	for _, c := range cases {
		r := e.do(t, http.MethodPost, c.path, e.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Contains(r.problemFields(t), c.field) {
			t.Errorf("POST %s %v: %d %s, want 422 naming %s", c.path, c.body, r.status, r.raw, c.field)
		}
	}
}
