package dimob

import (
	"github.com/propfin/propfin/finance"
	"github.com/shopspring/decimal"
)

// Declaration is one DIMOB: a declarant's (one CNPJ's) rentals and
// brokered sales of one calendar year.
type Declaration struct {
	Declarant Declarant `json:"declarant"`
	// Rentals are written as R02 records, in this order, one per
	// contract and owner.
	Rentals []Rental `json:"rentals"`
	// Sales are written as R04 records, in this order.
	Sales []Sale `json:"sales"`
	// LeftOut counts the operations of the year the caller left out of
	// Rentals and Sales (contracts not marked to be declared): with any,
	// a declaration without rentals and sales is not said to be one a
	// company without operations does not file. Not written in the file.
	LeftOut int `json:"-"`
}

// Declarant is the company that files (ficha Dados Iniciais, record R01).
type Declarant struct {
	CNPJ string `json:"cnpj"` // bare: 14 characters, as storage keeps it
	Name string `json:"name"` // nome empresarial
	// ResponsibleCPF is the CPF of the person responsible for the
	// company before the Receita Federal (bare, 11 digits).
	ResponsibleCPF string `json:"responsible_cpf"`
	Address        string `json:"address"` // the full address, in one line
	UF             string `json:"uf"`
	Municipality   string `json:"municipality"` // the 4-digit RFB/SIAFI code (see LookupIBGE)
	Year           int    `json:"year"`         // the calendar year declared
	// Amended is set for a declaration that replaces one already filed
	// (retificadora); ReceiptNumber is then the receipt of the one it
	// replaces (up to 10 digits).
	Amended       bool   `json:"amended"`
	ReceiptNumber string `json:"receipt_number"`
	// Special is the special situation the declaration is filed for
	// (the company's extinction, merger, incorporation or total split);
	// nil for a normal declaration.
	Special *SpecialSituation `json:"special,omitempty"`
}

// SpecialSituation is the event a special-situation declaration reports.
type SpecialSituation struct {
	Code SituationCode `json:"code"`
	Date finance.Date  `json:"date"` // the day of the event, in the calendar year declared
}

// SituationCode is the code of a special situation, as record R01 writes it.
type SituationCode int

// The special situations of the layout (code 00 is the normal declaration,
// a nil Declarant.Special).
const (
	Extinction    SituationCode = 1 // extinção
	Merger        SituationCode = 2 // fusão
	Incorporation SituationCode = 3 // incorporação / incorporada
	TotalSplit    SituationCode = 4 // cisão total
)

// Valid reports whether c is one of the four special situations.
func (c SituationCode) Valid() bool { return c >= Extinction && c <= TotalSplit }

// Party is a person or company named in a record: an owner (locador), a
// tenant (locatário), a buyer or a seller.
type Party struct {
	// TaxID is the bare CPF (11 digits) or CNPJ (14 characters). A tenant
	// living abroad may have "NDP" (não domiciliado no país), which the
	// layout accepts for the tenant alone.
	TaxID string `json:"tax_id"`
	Name  string `json:"name"`
}

// Contract is the contract a record reports.
type Contract struct {
	Number string       `json:"number"` // at most 6 characters: the layout's field holds 6
	Date   finance.Date `json:"date"`
}

// Property is the property a record reports.
type Property struct {
	Rural        bool   `json:"rural"`        // false: urban (U), true: rural (R)
	Address      string `json:"address"`      // street, number and complement, in one line
	CEP          string `json:"cep"`          // 8 digits (a hyphen is allowed: 01310-100)
	Municipality string `json:"municipality"` // the 4-digit RFB/SIAFI code (see FindMunicipality)
	UF           string `json:"uf"`
}

// Month is what one month of a rental brought: the gross rent the tenant
// paid in the month, the administrator's commission taken in it and the
// income tax the tenant withheld. Every amount is in reais, at most two
// decimal places, never negative.
type Month struct {
	Rent        decimal.Decimal `json:"rent"`
	Commission  decimal.Decimal `json:"commission"`
	TaxWithheld decimal.Decimal `json:"tax_withheld"`
}

// Net is what is left to the owner: rent less commission and tax withheld.
func (m Month) Net() decimal.Decimal { return m.Rent.Sub(m.Commission).Sub(m.TaxWithheld) }

// Rental is one rental contract and one of its owners for the year (ficha
// Locação, record R02): a contract with two owners is two Rentals, each
// with the owner's share of the amounts.
type Rental struct {
	Contract Contract `json:"contract"`
	Owner    Party    `json:"owner"`
	Tenant   Party    `json:"tenant"`
	// Months are January to December of the calendar year, each with the
	// amounts of the month the tenant paid in (not the month the rent was
	// due for).
	Months   [12]Month `json:"months"`
	Property Property  `json:"property"`
}

// Sale is one brokered sale (ficha Intermediação de Venda, record R04),
// of a contract signed in the calendar year.
type Sale struct {
	Contract   Contract        `json:"contract"`
	Buyer      Party           `json:"buyer"`
	Seller     Party           `json:"seller"`
	Amount     decimal.Decimal `json:"amount"`     // the sale's price
	Commission decimal.Decimal `json:"commission"` // the declarant's commission
	Property   Property        `json:"property"`
}
