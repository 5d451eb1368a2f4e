package api

import (
	"strings"
	"testing"

	"github.com/propfin/propfin/api/statement"
	"github.com/propfin/propfin/finance"
	rules "github.com/propfin/propfin/finance/statement"
	"github.com/propfin/propfin/storage"
)

// viewPage is a closed statement as storage reads it: contract 7 (number
// 1001, in building 3) with the rent, the fee, a guarantee advanced and
// recovered and a recovery reversed, a transfer by PIX; building 4 alone
// with a repair; a transfer of no property to a bank account; an
// adjustment of February. 500,00 + 1.000,00 − 100,00 + 900,00 − 900,00 +
// 900,00 − 800,00 − 50,00 − 20,00 − 10,00 − 3,00 (hidden) = 1.417,00.
func viewPage() storage.StatementPage {
	d := func(s string) finance.Date {
		v, err := finance.ParseDate(s)
		if err != nil {
			panic(err)
		}
		return v
	}
	l := func(section rules.Section, date, desc string, cents, contract, building int64) rules.Line {
		return rules.Line{Section: section, Kind: section, Date: d(date), Description: desc, Cents: cents,
			ContractID: contract, BuildingID: building}
	}
	pix := l(rules.Transfers, "2024-03-28", "Repasse", -80000, 7, 3)
	pix.Destination = "PIX 52998224725"
	bank := l(rules.Transfers, "2024-03-29", "Repasse avulso", -2000, 0, 0)
	bank.Destination = "Banco 341, agência 1234-5, conta 56789-0"
	adj := l(rules.Adjustments, "2024-03-02", "Tarifa", -1000, 7, 3)
	adj.Kind, adj.CorrectsMonth = rules.Deductions, finance.NewMonth(2024, 2)
	return storage.StatementPage{
		CompanyName: "Imobiliária", BusinessName: "Horizonte", BusinessTaxID: "11222333000181",
		OwnerName: "Ana", OwnerTaxID: "52998224725", Month: finance.NewMonth(2024, 3), ClosedOn: d("2024-04-01"),
		Opening: 50000, Closing: 141700,
		Totals: rules.Totals{Income: 100000, Deductions: -15000, Guarantee: 90000, Transfers: -82000, Adjustments: -1000,
			Shown: 10, HiddenCount: 1, HiddenCents: -300},
		Lines: []rules.Line{
			l(rules.Income, "2024-03-26", "Aluguel", 100000, 7, 3),
			l(rules.Deductions, "2024-03-20", "Reparo", -5000, 0, 4),
			l(rules.Deductions, "2024-03-26", "Taxa", -10000, 7, 3),
			l(rules.Guarantee, "2024-03-15", "Repasse garantido", 90000, 7, 3),
			l(rules.Guarantee, "2024-03-26", "Compensação", -90000, 7, 3),
			l(rules.Guarantee, "2024-03-27", "Estorno: Compensação", 90000, 7, 0),
			pix, bank, adj,
			l(rules.Transfers, "2024-03-30", "Repasse em dinheiro", 0, 0, 0),
		},
		Contracts: map[int64]storage.StatementContract{7: {ID: 7, Number: 1001, BuildingID: 3, TenantName: "Tiago"}},
		Buildings: map[int64]storage.StatementBuilding{
			3: {ID: 3, Title: "Edifício Aurora", Address: storage.Address{Street: "Rua A", Number: "1", City: "Santos", State: "SP"}},
			4: {ID: 4, Address: storage.Address{Street: "Rua B", Number: "2", ZipCode: "01310100"}},
		},
	}
}

// TestOwnerStatementOf: the close's sections become the page's kinds (a
// guarantee by its sign, a transfer with its destination read back, an
// adjustment with its month), the lines are grouped under their contract
// (its number, building and tenant), their building alone, or none, in
// that order; the hidden lines are in the balance; the business heads it
// (the company's name when there is none); and a page that does
// not add up to the stored totals, or a destination the close never
// writes, is refused.
func TestOwnerStatementOf(t *testing.T) {
	t.Parallel()
	doc, err := ownerStatementOf(viewPage())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sec := range doc.Sections {
		got = append(got, sec.Title+" | "+sec.Address+" | "+sec.Tenant)
		for _, l := range sec.Lines {
			s := "  " + string(l.Kind) + " " + l.Description
			if l.Transfer != nil {
				s += " -> " + l.Transfer.PixKey + l.Transfer.Bank + "/" + l.Transfer.Branch + "/" + l.Transfer.Account
			}
			if l.Corrects != "" {
				s += " corrects " + l.Corrects
			}
			got = append(got, s)
		}
	}
	want := `Contrato 1001 · Edifício Aurora | Rua A, 1, Santos/SP | Tiago
  received Aluguel
  deduction Taxa
  guaranteed_advanced Repasse garantido
  guaranteed_recovered Compensação
  guaranteed_advanced Estorno: Compensação
  transfer Repasse -> 52998224725//
  adjustment Tarifa corrects 2024-02
Imóvel 4 | Rua B, 2, CEP 01310-100 | 
  deduction Reparo
Outros lançamentos |  | 
  transfer Repasse avulso -> 341/1234-5/56789-0
  transfer Repasse em dinheiro`
	if strings.Join(got, "\n") != want {
		t.Errorf("sections:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if doc.Hidden != (statement.Hidden{Count: 1, Amount: -300, InBalance: true}) || doc.Month != "2024-03" ||
		doc.ClosedAt.Format("2006-01-02") != "2024-04-01" {
		t.Errorf("document %+v", doc)
	}
	// headed by the business, with its CNPJ, not by the company's name
	if doc.Company != (statement.Party{Name: "Horizonte", TaxID: "11222333000181"}) || doc.Business != (statement.Party{}) {
		t.Errorf("headed by %+v (business %+v), want the business Horizonte with its CNPJ", doc.Company, doc.Business)
	}
	noBusiness := viewPage()
	noBusiness.BusinessName, noBusiness.BusinessTaxID = "", ""
	if doc, err := ownerStatementOf(noBusiness); err != nil || doc.Company != (statement.Party{Name: "Imobiliária"}) {
		t.Errorf("a statement of no business: headed by %+v (%v), want the company's name", doc.Company, err)
	}

	for name, change := range map[string]func(*storage.StatementPage){
		"a stored total that differs": func(p *storage.StatementPage) { p.Totals.Guarantee -= 1 },
		"a shown count that differs":  func(p *storage.StatementPage) { p.Totals.Shown++ },
		"a closing that differs":      func(p *storage.StatementPage) { p.Closing++ },
		"an unknown destination":      func(p *storage.StatementPage) { p.Lines[6].Destination = "Conta 1" },
		"an unknown section":          func(p *storage.StatementPage) { p.Lines[0].Section = "fees" },
	} {
		p := viewPage()
		change(&p)
		if _, err := ownerStatementOf(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
