package storage_test

import (
	"context"
	"errors"
	"testing"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestValueChecks: the tax id and PIX key checks of the declared columns.
func TestValueChecks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		check func(string) string
		value string
		ok    bool
	}{
		{"tax id CPF", storage.CheckTaxID, "52998224725", true},
		{"tax id numeric CNPJ", storage.CheckTaxID, "11222333000181", true},
		{"tax id alphanumeric CNPJ", storage.CheckTaxID, "12ABC34501DE35", true},
		{"tax id CPF wrong digit", storage.CheckTaxID, "52998224726", false},
		{"tax id CNPJ wrong digit", storage.CheckTaxID, "11222333000182", false},
		{"tax id punctuated", storage.CheckTaxID, "529.982.247-25", false},
		{"tax id e-mail", storage.CheckTaxID, "a@b.com", false},
		{"CNPJ numeric", storage.CheckCNPJ, "11444777000161", true},
		{"CNPJ alphanumeric", storage.CheckCNPJ, "12ABC34501DE35", true},
		{"CNPJ given a CPF", storage.CheckCNPJ, "52998224725", false},
		{"CNPJ wrong digit", storage.CheckCNPJ, "12ABC34501DE34", false},
		{"pix CPF", storage.CheckPixKey, "52998224725", true},
		{"pix CNPJ", storage.CheckPixKey, "12ABC34501DE35", true},
		{"pix e-mail", storage.CheckPixKey, "contato@imobiliaria.com.br", true},
		{"pix phone", storage.CheckPixKey, "+5573988899345", true},
		{"pix EVP", storage.CheckPixKey, "123e4567-e12b-12d1-a456-426655440000", true},
		{"pix CPF wrong digit", storage.CheckPixKey, "12345678900", false},
		{"pix phone without +55", storage.CheckPixKey, "73988899345", false},
		{"pix empty", storage.CheckPixKey, "", false},
		{"pix text", storage.CheckPixKey, "chave", false},
	}
	for _, c := range cases {
		if got := c.check(c.value); (got == "") != c.ok {
			t.Errorf("%s %q: %q, want ok %v", c.name, c.value, got, c.ok)
		}
	}
}

// TestValueChecksInStore: storage runs the column checks for every caller,
// before any SQL, naming the field; and a check is declared only on a
// writable string column.
func TestValueChecksInStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	companyID, _, err := storage.EnsureCompany(ctx, pool, "Checks")
	if err != nil {
		t.Fatal(err)
	}
	reg := storage.DefaultRegistry()
	store := storage.NewStore(pool, reg)
	persons := reg.MustResource(storage.Persons)
	_, err = store.Create(ctx, persons, storage.Company(companyID), storage.Write{Values: map[string]any{"name": "x", "tax_id": "52998224726"}})
	var coded *finance.Error
	if !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) != 1 || coded.Problems[0].Field != "tax_id" {
		t.Errorf("create with a wrong CPF: %v", err)
	}
	if _, err := store.Create(ctx, persons, storage.Company(companyID), storage.Write{Values: map[string]any{"name": "x", "tax_id": nil}}); err != nil {
		t.Errorf("a null tax id is not checked: %v", err)
	}
	bad := []storage.Column{
		{Name: "n", Type: storage.Int, Writable: true, Check: storage.CheckTaxID},
		{Name: "n", Type: storage.String, Check: storage.CheckTaxID},
	}
	for _, c := range bad {
		res := &storage.Resource{Name: "r", Table: "r", Columns: []storage.Column{{Name: "id", Type: storage.Int}, c}}
		if _, err := storage.NewRegistry(res); err == nil {
			t.Errorf("a check on %v (writable %v) is accepted", c.Type, c.Writable)
		}
	}
}
