package dimob

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// TestSampleHasNoProblems: the golden file's declaration is clean, so
// that each case below shows its own problem alone.
func TestSampleHasNoProblems(t *testing.T) {
	t.Parallel()
	if ps := options.Check(sample()); len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
}

// want is one expected problem: its severity, record, field and a part of
// its message.
type want struct {
	severity Severity
	record   string
	field    string
	message  string
}

func blocks(record, field, message string) want { return want{Blocking, record, field, message} }

func warns(record, field, message string) want { return want{Warning, record, field, message} }

// TestCheckProblems: each change to the sample gives exactly the problems
// listed, in order: every blocking problem of docs/dimob.md and every
// warning has its case.
func TestCheckProblems(t *testing.T) {
	t.Parallel()
	const r0, r1, s0, decl = "rentals[0]", "rentals[1]", "sales[0]", "declarant"
	tests := []struct {
		name   string
		change func(d *Declaration)
		want   []want
	}{
		// The declarant.
		{"declarant CNPJ check digit", func(d *Declaration) { d.Declarant.CNPJ = "11444777000162" },
			[]want{blocks(decl, "cnpj", `"11444777000162" is not a valid CNPJ`)}},
		{"declarant CNPJ is a CPF", func(d *Declaration) { d.Declarant.CNPJ = "12345678909" },
			[]want{blocks(decl, "cnpj", "not a valid CNPJ")}},
		{"declarant without CNPJ", func(d *Declaration) { d.Declarant.CNPJ = "" },
			[]want{blocks(decl, "cnpj", "required")}},
		{"declarant without name", func(d *Declaration) { d.Declarant.Name = " " },
			[]want{blocks(decl, "name", "required")}},
		{"declarant without responsible CPF", func(d *Declaration) { d.Declarant.ResponsibleCPF = "" },
			[]want{blocks(decl, "responsible_cpf", "required: the CPF")}},
		{"responsible CPF check digit", func(d *Declaration) { d.Declarant.ResponsibleCPF = "12345678900" },
			[]want{blocks(decl, "responsible_cpf", "not a valid CPF")}},
		{"responsible is a CNPJ", func(d *Declaration) { d.Declarant.ResponsibleCPF = "11222333000181" },
			[]want{blocks(decl, "responsible_cpf", "not a valid CPF")}},
		{"declarant without address", func(d *Declaration) { d.Declarant.Address = "" },
			[]want{blocks(decl, "address", "required")}},
		{"declarant's state", func(d *Declaration) { d.Declarant.UF = "sp" },
			[]want{blocks(decl, "uf", `"sp" is not a state`)}},
		{"declarant without state", func(d *Declaration) { d.Declarant.UF = "" },
			[]want{blocks(decl, "uf", "required: the state")}},
		{"declarant without municipality", func(d *Declaration) { d.Declarant.Municipality = "" },
			[]want{blocks(decl, "municipality", "required: the 4-digit RFB/SIAFI code")}},
		{"declarant's IBGE code for the municipality", func(d *Declaration) { d.Declarant.Municipality = "3550308" },
			[]want{blocks(decl, "municipality", "not an RFB/SIAFI municipality code")}},
		{"declarant's municipality in another state", func(d *Declaration) { d.Declarant.Municipality = "6001" },
			[]want{blocks(decl, "municipality", "6001 is Rio de Janeiro (RJ), not in SP")}},
		{"year", func(d *Declaration) { d.Declarant.Year = 24 },
			append([]want{blocks(decl, "year", "24 is not a calendar year")}, contractsAfterYear24...)},
		{"amended without receipt", func(d *Declaration) { d.Declarant.Amended = true },
			[]want{blocks(decl, "receipt_number", "required for an amended declaration")}},
		{"amended with a bad receipt", func(d *Declaration) { d.Declarant.Amended, d.Declarant.ReceiptNumber = true, "12345678901" },
			[]want{blocks(decl, "receipt_number", "at most 10 digits")}},
		{"receipt of an original declaration", func(d *Declaration) { d.Declarant.ReceiptNumber = "123" },
			[]want{warns(decl, "receipt_number", "not written")}},
		{"special situation code", func(d *Declaration) {
			d.Declarant.Special = &SpecialSituation{Code: 5, Date: finance.MustDate("2024-05-01")}
		}, []want{blocks(decl, "special.code", "5 is not a special situation")}},
		{"special situation without date", func(d *Declaration) { d.Declarant.Special = &SpecialSituation{Code: Extinction} },
			[]want{blocks(decl, "special.date", "required")}},
		{"special situation in another year", func(d *Declaration) {
			d.Declarant.Special = &SpecialSituation{Code: TotalSplit, Date: finance.MustDate("2025-01-10")}
		}, []want{blocks(decl, "special.date", "not in the calendar year 2024")}},
		{"declarant's name cut", func(d *Declaration) { d.Declarant.Name = strings.Repeat("Imobiliária ", 6) },
			[]want{warns(decl, "name", "cut to the 60 characters")}},
		{"declarant's name with characters outside ASCII", func(d *Declaration) { d.Declarant.Name = "Imobiliária ★ Estrela" },
			[]want{warns(decl, "name", `written as spaces: "Imobiliaria   Estrela"`)}},

		// A rental.
		{"owner's CPF check digit", func(d *Declaration) { d.Rentals[0].Owner.TaxID = "52998224726" },
			[]want{blocks(r0, "owner.tax_id", `"52998224726" is not a valid CPF or CNPJ`)}},
		{"owner without CPF", func(d *Declaration) { d.Rentals[1].Owner.TaxID = "" },
			[]want{blocks(r1, "owner.tax_id", "required")}},
		{"owner's CPF formatted", func(d *Declaration) { d.Rentals[0].Owner.TaxID = "529.982.247-25" },
			[]want{blocks(r0, "owner.tax_id", "bare: 11 digits")}},
		{"owner not resident", func(d *Declaration) { d.Rentals[0].Owner.TaxID = "NDP" },
			[]want{blocks(r0, "owner.tax_id", "not a valid CPF or CNPJ")}},
		{"owner without name", func(d *Declaration) { d.Rentals[0].Owner.Name = "" },
			[]want{blocks(r0, "owner.name", "required")}},
		{"tenant's CNPJ check digit", func(d *Declaration) { d.Rentals[0].Tenant.TaxID = "11222333000182" },
			[]want{blocks(r0, "tenant.tax_id", "not a valid CPF or CNPJ")}},
		{"tenant without CNPJ", func(d *Declaration) { d.Rentals[1].Tenant.TaxID = "" },
			[]want{blocks(r1, "tenant.tax_id", "required")}},
		{"tenant not resident is accepted", func(d *Declaration) { d.Rentals[0].Tenant.TaxID = "NDP" }, nil},
		{"tenant without name", func(d *Declaration) { d.Rentals[0].Tenant.Name = "" },
			[]want{blocks(r0, "tenant.name", "required")}},
		{"contract without number", func(d *Declaration) { d.Rentals[0].Contract.Number = "" },
			[]want{blocks(r0, "contract.number", "required")}},
		{"contract number too long", func(d *Declaration) { d.Rentals[0].Contract.Number = "L-01234" },
			[]want{blocks(r0, "contract.number", "longer than the 6 characters")}},
		{"contract without date", func(d *Declaration) { d.Rentals[0].Contract.Date = finance.Date{} },
			[]want{blocks(r0, "contract.date", "required")}},
		{"contract after the year", func(d *Declaration) { d.Rentals[0].Contract.Date = finance.MustDate("2025-01-02") },
			[]want{blocks(r0, "contract.date", "not between 1950 and the calendar year 2024")}},
		{"contract before 1950", func(d *Declaration) { d.Rentals[0].Contract.Date = finance.MustDate("1949-12-31") },
			[]want{blocks(r0, "contract.date", "not between 1950")}},
		{"property without address", func(d *Declaration) { d.Rentals[0].Property.Address = "" },
			[]want{blocks(r0, "property.address", "required")}},
		{"property without CEP", func(d *Declaration) { d.Rentals[0].Property.CEP = "" },
			[]want{blocks(r0, "property.cep", "not a CEP")}},
		{"property's CEP short", func(d *Declaration) { d.Rentals[0].Property.CEP = "0130500" },
			[]want{blocks(r0, "property.cep", `"0130500" is not a CEP`)}},
		{"property's CEP bare is accepted", func(d *Declaration) { d.Rentals[0].Property.CEP = "01305000" }, nil},
		{"property without state", func(d *Declaration) { d.Rentals[0].Property.UF = "" },
			[]want{blocks(r0, "property.uf", "required: the state")}},
		{"property without municipality", func(d *Declaration) { d.Rentals[0].Property.Municipality = "" },
			[]want{blocks(r0, "property.municipality", "required")}},
		{"property's municipality unknown", func(d *Declaration) { d.Rentals[0].Property.Municipality = "0000" },
			[]want{blocks(r0, "property.municipality", `"0000" is not an RFB/SIAFI municipality code`)}},
		{"property's municipality in another state", func(d *Declaration) { d.Rentals[0].Property.Municipality = "5865" },
			[]want{blocks(r0, "property.municipality", "5865 is Niterói (RJ), not in SP")}},
		{"property's address cut", func(d *Declaration) { d.Rentals[0].Property.Address = strings.Repeat("Rua Augusta ", 6) },
			[]want{warns(r0, "property.address", "cut to the 60 characters")}},
		{"negative rent", func(d *Declaration) { d.Rentals[0].Months[4].Rent = amount("-10.00") },
			[]want{blocks(r0, "months[4].rent", "May rent -10.00 is negative")}},
		{"negative commission", func(d *Declaration) { d.Rentals[0].Months[0].Commission = amount("-1") },
			[]want{blocks(r0, "months[0].commission", "January commission -1.00 is negative")}},
		{"negative commission, in reais and cents", func(d *Declaration) { d.Rentals[1].Months[11].Commission = amount("-3.4") },
			[]want{blocks(r1, "months[11].commission", "December commission -3.40 is negative")}},
		{"negative tax withheld", func(d *Declaration) { d.Rentals[1].Months[11].TaxWithheld = amount("-0.01") },
			[]want{blocks(r1, "months[11].tax_withheld", "December tax withheld -0.01 is negative")}},
		{"rent finer than a cent", func(d *Declaration) { d.Rentals[0].Months[1].Rent = amount("6000.005") },
			[]want{blocks(r0, "months[1].rent", "February rent 6000.005 has more than two decimal places")}},
		{"rent too large", func(d *Declaration) { d.Rentals[0].Months[1].Rent = amount("1000000000000") },
			[]want{blocks(r0, "months[1].rent", "February rent 1000000000000.00 does not fit the layout's 12 digits")}},
		{"rent too large, in cents", func(d *Declaration) { d.Rentals[0].Months[1].Rent = decimal.New(100000000000000, -2) },
			[]want{blocks(r0, "months[1].rent", "does not fit the layout's 12 digits")}},
		{"rent the largest the layout holds", func(d *Declaration) { d.Rentals[0].Months[1].Rent = amount("999999999999.99") }, nil},
		{"negative net to the owner", func(d *Declaration) { d.Rentals[0].Months[5].Commission = amount("5300.00") },
			[]want{warns(r0, "months[5].rent", "June: the owner's net is negative (-54.00 = rent 6000.00 less commission 5300.00 and tax withheld 754.00)")}},
		{"negative net to the owner, no tax withheld", func(d *Declaration) {
			d.Rentals[0].Months[5].Commission, d.Rentals[0].Months[5].TaxWithheld = amount("6000.01"), amount("0")
		}, []want{warns(r0, "months[5].rent", "June: the owner's net is negative (-0.01 = rent 6000.00 less commission 6000.01 and tax withheld 0.00)")}},
		{"the owner's net zero, no tax withheld", func(d *Declaration) {
			d.Rentals[0].Months[5].Commission, d.Rentals[0].Months[5].TaxWithheld = amount("6000"), amount("0")
		}, nil},
		{"tax withheld by a tenant with a CPF", func(d *Declaration) {
			d.Rentals[0].Tenant.TaxID = "09876543229"
			for m := range d.Rentals[0].Months {
				if m != 6 {
					d.Rentals[0].Months[m].TaxWithheld = amount("0")
				}
			}
		}, []want{warns(r0, "months[6].tax_withheld", "July: tax withheld by a tenant with a CPF")}},
		{"nothing paid in the year", func(d *Declaration) { d.Rentals[1].Months = [12]Month{} },
			[]want{warns(r1, "months", "nothing was paid in 2024")}},
		{"the tenant is the owner", func(d *Declaration) {
			d.Rentals[0].Tenant.TaxID = "11444777000161"
			d.Rentals[0].Owner.TaxID = "11444777000161"
		}, []want{warns(r0, "tenant.tax_id", "the tenant is the owner")}},
		{"contract and owner twice", func(d *Declaration) { d.Rentals[1].Owner = d.Rentals[0].Owner },
			[]want{blocks(r1, "owner.tax_id", "contract L-0123 and this owner are already in rentals[0]")}},

		// A sale.
		{"buyer's CPF check digit", func(d *Declaration) { d.Sales[0].Buyer.TaxID = "39053344700" },
			[]want{blocks(s0, "buyer.tax_id", "not a valid CPF or CNPJ")}},
		{"buyer not resident", func(d *Declaration) { d.Sales[0].Buyer.TaxID = "NDP" },
			[]want{blocks(s0, "buyer.tax_id", "not a valid CPF or CNPJ")}},
		{"seller without CPF", func(d *Declaration) { d.Sales[0].Seller.TaxID = "" },
			[]want{blocks(s0, "seller.tax_id", "required")}},
		{"seller without name", func(d *Declaration) { d.Sales[0].Seller.Name = "" },
			[]want{blocks(s0, "seller.name", "required")}},
		{"sale of another year", func(d *Declaration) { d.Sales[0].Contract.Date = finance.MustDate("2023-12-31") },
			[]want{blocks(s0, "contract.date", "not between 2024 and the calendar year 2024")}},
		{"negative sale", func(d *Declaration) { d.Sales[0].Amount = amount("-850000") },
			[]want{blocks(s0, "amount", "the sale's amount -850000.00 is negative")}},
		{"sale of nothing", func(d *Declaration) { d.Sales[0].Amount = amount("0") },
			[]want{warns(s0, "amount", "the sale's amount is zero")}},
		{"negative sale commission", func(d *Declaration) { d.Sales[0].Commission = amount("-51000") },
			[]want{blocks(s0, "commission", "the commission -51000.00 is negative")}},
		{"the buyer is the seller", func(d *Declaration) { d.Sales[0].Buyer = d.Sales[0].Seller },
			[]want{warns(s0, "buyer.tax_id", "the buyer is the seller")}},
		{"sold property without CEP", func(d *Declaration) { d.Sales[0].Property.CEP = "13025" },
			[]want{blocks(s0, "property.cep", "not a CEP")}},
		{"sold property without municipality", func(d *Declaration) { d.Sales[0].Property.Municipality = "" },
			[]want{blocks(s0, "property.municipality", "required")}},

		// The declaration.
		{"nothing to declare", func(d *Declaration) { d.Rentals, d.Sales = nil, nil },
			[]want{warns("declaration", "rentals", "a company without operations in the year does not file")}},
		{"nothing declared, operations left out by the caller", func(d *Declaration) { d.Rentals, d.Sales, d.LeftOut = nil, nil, 2 },
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := sample()
			tt.change(&d)
			ps := options.Check(d)
			if len(ps) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(tt.want), ps)
			}
			for i, w := range tt.want {
				p := ps[i]
				if p.Severity != w.severity || p.Record != w.record || p.Field != w.field || !strings.Contains(p.Message, w.message) {
					t.Errorf("problem %d = %v\nwant %s: %s: %s: …%s…", i, p, w.severity, w.record, w.field, w.message)
				}
			}
		})
	}
}

// contractsAfterYear24 are the problems of the sample's contracts when
// the year is 24: every contract is dated after it.
var contractsAfterYear24 = []want{
	blocks("rentals[0]", "contract.date", "not between 1950 and the calendar year"),
	blocks("rentals[1]", "contract.date", "not between 1950 and the calendar year"),
	blocks("sales[0]", "contract.date", "not between 24 and the calendar year"),
}

// TestProblemNamesTheRecord: a problem says which record, contract, owner
// and field to fix.
func TestProblemNamesTheRecord(t *testing.T) {
	t.Parallel()
	d := sample()
	d.Rentals[1].Property.CEP = "1234"
	ps := options.Check(d)
	if len(ps) != 1 {
		t.Fatalf("problems: %v", ps)
	}
	want := Problem{Severity: Blocking, Record: "rentals[1]", Contract: "L-0123", Owner: "Maria da Conceição Ferreira",
		Field: "property.cep", Message: `"1234" is not a CEP (8 digits)`}
	if ps[0] != want {
		t.Errorf("problem = %#v\nwant %#v", ps[0], want)
	}
	if got, want := ps[0].String(), `blocking: rentals[1] (contract L-0123, owner Maria da Conceição Ferreira): property.cep: "1234" is not a CEP (8 digits)`; got != want {
		t.Errorf("String() = %q\nwant %q", got, want)
	}
}

func TestCheckNeedsTheTaxIDRule(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("Check without ValidTaxID did not panic")
		}
	}()
	Options{}.Check(sample())
}
