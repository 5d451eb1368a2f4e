package statement

import (
	"fmt"
	"time"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

var (
	company = Party{Name: "Imobiliária São Jorge Ltda", TaxID: "12345678000195"}
	ownerA  = Party{Name: "Ana Conceição Araújo", TaxID: "52998224725"}
)

// march is owner A's statement of March 2024: the rent of the ledger's
// worked example (60% of it) paid late with its administration fee, a
// repair debited to this owner and the transfer; a second contract with
// a guaranteed rent advanced, February's rent paid late recovering its
// advance, a correction of February and a transfer to a bank account.
//
//	contract 1001: 1.200,00 + 210,00 + 28,20 + 7,05 − 120,00 − 350,00 − 975,25 = 0,00
//	contract 1002: 1.800,00 − 1.800,00 + 1.800,00 − 180,00 − 45,30 − 1.620,00 = −45,30
//	closing: 500,00 − 45,30 = 454,70
func march() OwnerStatement {
	return OwnerStatement{
		Company:  company,
		Business: Party{Name: "São Jorge Administração de Imóveis", TaxID: "11.222.333/0001-81"},
		Owner:    ownerA,
		Month:    "2024-03",
		ClosedAt: date(2024, 4, 1),
		Opening:  50000,
		Closing:  45470,
		Sections: []Section{
			{
				Title:   "Contrato 1001",
				Address: "Rua das Flores, 10, ap. 31 - Centro, São Paulo/SP",
				Tenant:  "Maria da Silva",
				Lines: []Line{
					{Date: date(2024, 3, 26), Description: "Aluguel março/2024 (60%)", Kind: Received, Amount: 120000},
					{Date: date(2024, 3, 26), Description: "Condomínio março/2024", Kind: Received, Amount: 21000},
					{Date: date(2024, 3, 26), Description: "Multa por atraso", Kind: Received, Amount: 2820},
					{Date: date(2024, 3, 26), Description: "Juros de mora (15 dias)", Kind: Received, Amount: 705},
					{Date: date(2024, 3, 26), Description: "Taxa de administração (10%)", Kind: Deduction, Amount: -12000},
					{Date: date(2024, 3, 18), Description: "Reparo hidráulico no banheiro", Kind: Deduction, Amount: -35000},
					{Date: date(2024, 3, 31), Description: "Repasse", Kind: Transfer, Amount: -97525,
						Transfer: &Destination{PixKey: "52998224725"}},
				},
			},
			{
				Title:   "Contrato 1002",
				Address: "Avenida Paulista, 1500, conj. 42 - Bela Vista, São Paulo/SP",
				Tenant:  "João Pereira Comércio Ltda",
				Lines: []Line{
					{Date: date(2024, 3, 20), Description: "Aluguel fevereiro/2024, pago em atraso", Kind: Received, Amount: 180000},
					{Date: date(2024, 3, 20), Description: "Recuperação do aluguel garantido de fevereiro/2024", Kind: GuaranteedRecovered, Amount: -180000},
					{Date: date(2024, 3, 15), Description: "Aluguel garantido março/2024", Kind: GuaranteedAdvanced, Amount: 180000},
					{Date: date(2024, 3, 15), Description: "Taxa de administração (10%)", Kind: Deduction, Amount: -18000},
					{Date: date(2024, 3, 2), Description: "Estorno de tarifa bancária", Kind: Adjustment, Amount: -4530, Corrects: "2024-02"},
					{Date: date(2024, 3, 15), Description: "Repasse", Kind: Transfer, Amount: -162000,
						Transfer: &Destination{Bank: "341 Itaú", Branch: "1234", Account: "56789-0"}},
				},
			},
		},
		Hidden: Hidden{Count: 2, Amount: -1240},
	}
}

// marchTotals are the March statement's amounts as the documents write
// them, worked by hand from the lines above.
var marchTotals = []string{
	"Saldo anterior R$ 500,00",
	"Total recebido R$ 3.245,25",
	"Total de descontos -R$ 650,00",
	"Total adiantado R$ 1.800,00",
	"Total recuperado -R$ 1.800,00",
	"Total de ajustes -R$ 45,30",
	"Total repassado -R$ 2.595,25",
	"Saldo final em 31/03/2024 R$ 454,70",
}

// longStatement is a statement of n received lines of R$ 10,00 each on
// one contract, and one transfer paying them out; the lines are numbered
// in their descriptions.
func longStatement(n int) OwnerStatement {
	s := march()
	s.Sections = []Section{{Title: "Contrato 2001", Address: "Rua Longa, 500", Tenant: "Condomínio Edifício Aurora"}}
	for i := 1; i <= n; i++ {
		s.Sections[0].Lines = append(s.Sections[0].Lines, Line{Date: date(2024, 3, 1+i%28),
			Description: fmt.Sprintf("Lançamento nº %04d", i), Kind: Received, Amount: 1000})
	}
	s.Sections[0].Lines = append(s.Sections[0].Lines, Line{Date: date(2024, 3, 31), Description: "Repasse",
		Kind: Transfer, Amount: Cents(-1000 * n), Transfer: &Destination{PixKey: "ana@example.com"}})
	s.Opening, s.Closing = 0, 0
	s.Hidden = Hidden{}
	return s
}

// year2024 is owner A's income report of 2024: contract 1001 the whole
// year (R$ 1.200,00 a month, 10% fee, no tax: the tenant is a person),
// contract 1002 from March (R$ 6.000,00 a month, 10% fee, R$ 589,00 of IR
// withheld by the tenant, a company).
//
//	1001: 12 × 1.200,00 = 14.400,00; fees 1.440,00; net 12.960,00
//	1002: 10 × 6.000,00 = 60.000,00; fees 6.000,00; IR 5.890,00; net 48.110,00
//	year: 74.400,00; 7.440,00; 5.890,00; 61.070,00
func year2024() IncomeReport {
	r := IncomeReport{
		Company:  company,
		Owner:    ownerA,
		Year:     2024,
		IssuedAt: date(2025, 2, 10),
		Contracts: []IncomeContract{
			{Title: "Contrato 1001", Tenant: Party{Name: "Maria da Silva", TaxID: "123.456.789-09"},
				Address: "Rua das Flores, 10, ap. 31 - Centro, São Paulo/SP", Start: date(2023, 2, 1), End: date(2026, 1, 31)},
			{Title: "Contrato 1002", Tenant: Party{Name: "João Pereira Comércio Ltda", TaxID: "11222333000181"},
				Address: "Avenida Paulista, 1500, conj. 42 - Bela Vista, São Paulo/SP", Start: date(2024, 3, 1)},
		},
	}
	for m := range 12 {
		r.Contracts[0].Months[m] = IncomeMonth{Gross: 120000, AdminFee: 12000}
		if m >= 2 {
			r.Contracts[1].Months[m] = IncomeMonth{Gross: 600000, AdminFee: 60000, Withheld: 58900}
		}
	}
	return r
}

// twoSources is year2024 with each contract received through a business
// of its own: 1001 through São Jorge Administração, 1002 through São
// Jorge Vendas.
func twoSources() IncomeReport {
	r := year2024()
	r.Contracts[0].Source = Party{Name: "São Jorge Administração de Imóveis", TaxID: "11222333000181"}
	r.Contracts[1].Source = Party{Name: "São Jorge Vendas", TaxID: "60.746.948/0001-12"}
	return r
}

var yearTotals = []string{
	"Aluguéis brutos R$ 74.400,00",
	"Taxas de administração R$ 7.440,00",
	"IR retido R$ 5.890,00",
	"Rendimento líquido R$ 61.070,00",
}
