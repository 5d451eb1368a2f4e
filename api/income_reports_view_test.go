package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/propfin/propfin/api/statement"
	"github.com/propfin/propfin/finance"
	rules "github.com/propfin/propfin/finance/statement"
	"github.com/propfin/propfin/storage"
)

// viewIncome is an owner's year as storage reads it, with lines of the
// businesses given (0: entries of no business): contract 10+b of each
// business b, a rent of 1.000,00 paid on May 10th and its fee of 100,00.
func viewIncome(businesses ...int64) (*storage.IncomeReports, storage.IncomeOwner) {
	r := &storage.IncomeReports{CompanyName: "Imobiliária Grupo", Year: 2024, Contracts: map[int64]storage.IncomeContract{},
		Businesses: map[int64]storage.IncomeParty{
			1: {ID: 1, Name: "Horizonte Administração", TaxID: "11222333000181"},
			2: {ID: 2, Name: "Horizonte Vendas", TaxID: "60746948000112"},
		}}
	o := storage.IncomeOwner{ID: 5, Name: "Ana", TaxID: "52998224725"}
	for _, b := range businesses {
		contract := 10 + b
		r.Contracts[contract] = storage.IncomeContract{ID: contract, Reference: fmt.Sprintf("L-%d", contract)}
		for _, l := range []struct {
			figure finance.Declared
			cents  int64
		}{{finance.DeclaredRent, 100000}, {finance.DeclaredCommission, -10000}} {
			o.Lines = append(o.Lines, rules.IncomeLine{Month: finance.NewMonth(2024, 5), BusinessID: b, Declared: l.figure,
				Day: finance.MustDate("2024-05-10"), Line: rules.Line{Section: rules.Income, Kind: rules.Income, Cents: l.cents,
					ContractID: contract}})
		}
	}
	return r, o
}

// TestIncomeDocumentSources: the informe names as its paying source the
// business whose books hold each contract (the legal entity that received
// the rent for the owner), with its CNPJ: a report of one business is
// headed by it; one of several, or of entries of no business, by the
// company's name, each contract under its business (the company's name
// for none). The report's JSON lists each business with what it paid, the
// company's name for none.
func TestIncomeDocumentSources(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		businesses []int64
		head       statement.Party
		sources    string // each contract's source
		json       string // the JSON's businesses: "id name tax_id gross"
	}{
		{"one business", []int64{1}, statement.Party{Name: "Horizonte Administração", TaxID: "11222333000181"},
			"Contrato L-11: Horizonte Administração 11222333000181",
			"1 Horizonte Administração 11222333000181 1000"},
		{"two businesses and entries of none", []int64{2, 1, 0}, statement.Party{Name: "Imobiliária Grupo"},
			"Contrato L-10: Imobiliária Grupo ; Contrato L-11: Horizonte Administração 11222333000181; " +
				"Contrato L-12: Horizonte Vendas 60746948000112",
			"<nil> Imobiliária Grupo <nil> 1000; 1 Horizonte Administração 11222333000181 1000; " +
				"2 Horizonte Vendas 60746948000112 1000"},
		{"entries of no business alone", []int64{0}, statement.Party{Name: "Imobiliária Grupo"},
			"Contrato L-10: Imobiliária Grupo ", "<nil> Imobiliária Grupo <nil> 1000"},
		{"nothing in the year", nil, statement.Party{Name: "Imobiliária Grupo"}, "", ""},
	} {
		r, o := viewIncome(c.businesses...)
		doc := incomeDocument(r, o)
		if doc.Company != c.head {
			t.Errorf("%s: headed by %+v, want %+v", c.name, doc.Company, c.head)
		}
		var sources []string
		for _, k := range doc.Contracts {
			sources = append(sources, fmt.Sprintf("%s: %s %s", k.Title, k.Source.Name, k.Source.TaxID))
		}
		if got := strings.Join(sources, "; "); got != c.sources {
			t.Errorf("%s: sources\n%s\nwant\n%s", c.name, got, c.sources)
		}
		if _, err := doc.Totals(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		raw, err := json.Marshal(incomeReportOf(r, o))
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			Businesses []struct {
				ID    *int64  `json:"business_id"`
				Name  *string `json:"name"`
				TaxID *string `json:"tax_id"`
				Total struct {
					Gross json.Number `json:"gross_rent"`
				} `json:"total"`
				Months []any `json:"months"`
			} `json:"businesses"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			t.Fatal(err)
		}
		var listed []string
		for _, b := range answer.Businesses {
			show := func(p any) string {
				switch v := p.(type) {
				case *int64:
					if v != nil {
						return fmt.Sprint(*v)
					}
				case *string:
					if v != nil {
						return *v
					}
				}
				return "<nil>"
			}
			if len(b.Months) != 12 {
				t.Errorf("%s: business %s has %d months", c.name, show(b.ID), len(b.Months))
			}
			listed = append(listed, fmt.Sprintf("%s %s %s %s", show(b.ID), show(b.Name), show(b.TaxID),
				strings.TrimSuffix(b.Total.Gross.String(), ".00")))
		}
		if got := strings.Join(listed, "; "); got != c.json || answer.Businesses == nil {
			t.Errorf("%s: the JSON's businesses\n%s\nwant\n%s\n%s", c.name, got, c.json, raw)
		}
	}
}

// TestIncomeReportPayingSource: each contract of the JSON names its paying
// source, the tenant, by kind: a company (the fonte pagadora the owner
// declares the rent against, with the IR it withheld), a person (the
// carnê-leão's), or unknown (no CPF or CNPJ).
func TestIncomeReportPayingSource(t *testing.T) {
	t.Parallel()
	r, o := viewIncome(0, 1, 2)
	r.Contracts[10] = storage.IncomeContract{ID: 10, Reference: "L-10"}
	r.Contracts[11] = storage.IncomeContract{ID: 11, Reference: "L-11",
		Tenant: storage.IncomeParty{ID: 7, Name: "Padaria Ltda", TaxID: "11222333000181"}}
	r.Contracts[12] = storage.IncomeContract{ID: 12, Reference: "L-12",
		Tenant: storage.IncomeParty{ID: 8, Name: "Maria", TaxID: "12345678909"}}
	raw, err := json.Marshal(incomeReportOf(r, o))
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Contracts []struct {
			Reference string `json:"reference"`
			Source    struct {
				Kind  string  `json:"kind"`
				ID    *int64  `json:"id"`
				Name  *string `json:"name"`
				TaxID *string `json:"tax_id"`
			} `json:"paying_source"`
		} `json:"contracts"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range answer.Contracts {
		s := c.Reference + " " + c.Source.Kind
		if c.Source.Name != nil {
			s += fmt.Sprintf(" %d %s %s", *c.Source.ID, *c.Source.Name, *c.Source.TaxID)
		}
		got = append(got, s)
	}
	if want := "L-10 unknown; L-11 company 7 Padaria Ltda 11222333000181; L-12 individual 8 Maria 12345678909"; strings.Join(got, "; ") != want {
		t.Errorf("paying sources\n%s\nwant\n%s\n%s", strings.Join(got, "; "), want, raw)
	}
}
