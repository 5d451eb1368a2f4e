package dimob

import (
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/pix"
	"github.com/shopspring/decimal"
)

// options is what the caller passes: pix's CPF/CNPJ rule.
var options = Options{ValidTaxID: pix.ValidTaxID}

func amount(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// months builds a year of one owner's share of a rent: rent, commission
// and tax withheld in every month the tenant paid in. The tenant paid
// March's rent late, in April, and December's in January of the next
// year, so March and December have nothing and April has two.
func months(rent, commission, tax string) [12]Month {
	one := Month{Rent: amount(rent), Commission: amount(commission), TaxWithheld: amount(tax)}
	two := Month{Rent: one.Rent.Add(one.Rent), Commission: one.Commission.Add(one.Commission), TaxWithheld: one.TaxWithheld.Add(one.TaxWithheld)}
	var ms [12]Month
	for m := range ms {
		switch m {
		case 2, 11: // March, December: not paid in their month
		case 3: // April: April's rent and March's
			ms[m] = two
		default:
			ms[m] = one
		}
	}
	return ms
}

// sample is the declaration of the golden file: a company in São Paulo
// that administers one contract whose property has two owners (60% and
// 40% of a rent of R$ 10,000.00, 10% commission) and whose tenant, a
// company, withholds income tax on each owner's share; and one sale it
// brokered in Campinas.
func sample() Declaration {
	property := Property{Address: "Rua Augusta, 500, loja 2 - Consolação", CEP: "01305-000", Municipality: "7107", UF: "SP"}
	contract := Contract{Number: "L-0123", Date: finance.MustDate("2023-03-15")}
	tenant := Party{TaxID: "11222333000181", Name: "Padaria Pão de Açúcar Ltda"}
	return Declaration{
		Declarant: Declarant{
			CNPJ:           "11444777000161",
			Name:           "Imobiliária Conceição Ltda",
			ResponsibleCPF: "12345678909",
			Address:        "Rua da Consolação, 1000, sala 12, Consolação, São Paulo - SP, CEP 01302-000",
			UF:             "SP",
			Municipality:   "7107",
			Year:           2024,
		},
		Rentals: []Rental{
			{Contract: contract, Owner: Party{TaxID: "52998224725", Name: "José Araújo"}, Tenant: tenant,
				Months: months("6000.00", "600.00", "754.00"), Property: property},
			{Contract: contract, Owner: Party{TaxID: "11144477735", Name: "Maria da Conceição Ferreira"}, Tenant: tenant,
				Months: months("4000.00", "400.00", "237.23"), Property: property},
		},
		Sales: []Sale{{
			Contract:   Contract{Number: "V-0042", Date: finance.MustDate("2024-08-20")},
			Buyer:      Party{TaxID: "39053344705", Name: "Ana Luíza Gonçalves"},
			Seller:     Party{TaxID: "71460238001", Name: "Pedro Henrique Müller"},
			Amount:     amount("850000.00"),
			Commission: amount("51000.00"),
			Property:   Property{Address: "Avenida Norte-Sul, 1234, apto 81", CEP: "13025-320", Municipality: "6291", UF: "SP"},
		}},
	}
}
