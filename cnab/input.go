package cnab

import (
	"time"

	"github.com/shopspring/decimal"
)

// Layout is the record width of a remittance: 240 or 400 bytes.
type Layout int

// The two CNAB layouts.
const (
	CNAB240 Layout = 240
	CNAB400 Layout = 400
)

// Remittance is what a file says once, in its header: the bank, the layout,
// the beneficiary's account and the file sequence number.
type Remittance struct {
	// Bank is the three-digit bank code: 001, 033, 041, 104, 237, 341,
	// 748 or 756.
	Bank string `json:"bank"`
	// Layout is CNAB240 or CNAB400.
	Layout Layout `json:"layout"`
	// Version selects the bank's layout version where it has several;
	// empty means the default listed in docs/cnab.md.
	Version string `json:"version,omitempty"`
	// Sequence is the file sequence number (NSA), increasing by one for
	// every file sent to the bank for this account. The caller keeps it.
	Sequence int `json:"sequence"`
	// Created is the date and time written in the header as the file's
	// generation time.
	Created time.Time `json:"created"`
	// Test marks a file sent while the bank is validating the
	// beneficiary's files (homologação), for the banks whose header says
	// so.
	Test bool `json:"test,omitempty"`
	// Beneficiary is the account the titles are collected into.
	Beneficiary Beneficiary `json:"beneficiary"`
}

// Beneficiary (beneficiário, formerly cedente) is the company that issues the
// titles and the account and collection agreement they are registered under.
type Beneficiary struct {
	Name     string `json:"name"`
	Document string `json:"document"` // CPF (11 digits) or CNPJ (14 digits)
	// Agency and Account are the branch and account numbers, digits only,
	// with their check digits apart.
	Agency       string `json:"agency"`
	AgencyDigit  string `json:"agency_digit,omitempty"`
	Account      string `json:"account"`
	AccountDigit string `json:"account_digit,omitempty"`
	// Wallet is the collection wallet (carteira), for example "109" at
	// Itaú or "09" at Bradesco.
	Wallet string `json:"wallet"`
	// WalletVariation is Banco do Brasil's wallet variation (variação da
	// carteira).
	WalletVariation string `json:"wallet_variation,omitempty"`
	// Covenant is the bank's identifier of the collection agreement:
	// convênio (Banco do Brasil), código do beneficiário (Caixa, Sicredi,
	// Sicoob), código de transmissão (Santander), código da empresa
	// (Bradesco).
	Covenant string `json:"covenant,omitempty"`
	// TransmissionCode is Santander's código de transmissão, the number
	// the bank gives to identify the beneficiary's remittance files.
	TransmissionCode string `json:"transmission_code,omitempty"`
	// Station is Sicredi's post (posto).
	Station string `json:"station,omitempty"`
	// Modality is Sicoob's collection modality; "01" when empty.
	Modality string `json:"modality,omitempty"`
}

// Kind is the kind of document a title represents (espécie do título). Each
// bank has its own code for it.
type Kind string

// The kinds a property manager issues.
const (
	KindDuplicataMercantil Kind = "DM"
	KindDuplicataServico   Kind = "DS"
	KindRecibo             Kind = "RC"
	KindNotaPromissoria    Kind = "NP"
	KindOther              Kind = "OU"
)

// Title is one boleto to register: what the payer owes, when, and what
// happens after the due date. Amounts are in reais with at most two
// decimal places; percentages have at most two decimal places.
type Title struct {
	// OurNumber is the sequence the beneficiary chooses for the nosso
	// número; the bank's rule (package boleto) pads it to the bank's width
	// and computes its check digit. At Sicredi it is the eight digits
	// YYBNNNNN.
	OurNumber int64 `json:"our_number"`
	// DocumentNumber is the beneficiary's own number for the title (seu
	// número), printed on the boleto.
	DocumentNumber string `json:"document_number"`
	// Control is the beneficiary's identifier returned unchanged in the
	// return file (uso da empresa); optional.
	Control string `json:"control,omitempty"`
	Kind    Kind   `json:"kind,omitempty"` // default KindDuplicataMercantil

	Amount decimal.Decimal `json:"amount"`
	Issued Date            `json:"issued"`
	Due    Date            `json:"due"`

	Payer Payer `json:"payer"`

	// Fine is the late fee (multa): a percentage of the amount charged
	// once from the day after the due date; zero means none.
	FinePercent decimal.Decimal `json:"fine_percent"`
	// InterestPerDay is the interest for late payment (juros de mora) as
	// an amount per day of delay; zero means none.
	InterestPerDay decimal.Decimal `json:"interest_per_day"`
	// InterestMonthlyPercent is the interest for late payment as a
	// monthly rate in percent (1.00 for 1% a month, charged pro rata by
	// day), for the layouts that take a rate; give it or InterestPerDay,
	// not both.
	InterestMonthlyPercent decimal.Decimal `json:"interest_monthly_percent"`
	// Discount is granted when paid until DiscountUntil; zero means none.
	Discount      decimal.Decimal `json:"discount"`
	DiscountUntil Date            `json:"discount_until"`
	// ProtestDays is the number of days after the due date after which
	// the title is sent to protest; zero means do not protest.
	ProtestDays int `json:"protest_days,omitempty"`
	// WriteOffDays is the number of days after the due date after which
	// the bank stops accepting payment and returns the title (baixa /
	// devolução), where the layout carries it; zero leaves the bank's
	// default.
	WriteOffDays int `json:"write_off_days,omitempty"`
	// ProtestBusinessDays counts ProtestDays in business days rather than
	// calendar days, where the layout can say so.
	ProtestBusinessDays bool `json:"protest_business_days,omitempty"`
}

// Payer (pagador, formerly sacado) is who owes the title.
type Payer struct {
	Name     string `json:"name"`
	Document string `json:"document"` // CPF (11 digits) or CNPJ (14 digits)
	Address  string `json:"address"`
	District string `json:"district"` // bairro
	City     string `json:"city"`
	State    string `json:"state"` // two-letter UF
	ZIP      string `json:"zip"`   // CEP, 8 digits
}

// Drop is a request to the bank to drop (baixa) a title it registered
// from an earlier file of the same account: the bank stops collecting it.
// It names the title as it was registered; everything else a title
// carries (payer, fee, interest, discount, protest) only matters to an
// entry and is left out of the drop's record (docs/cnab.md, "Drops").
type Drop struct {
	// OurNumber is the sequence the title's nosso número was made from,
	// as in Title.OurNumber.
	OurNumber int64 `json:"our_number"`
	// DocumentNumber is the title's seu número, as registered.
	DocumentNumber string `json:"document_number"`
	// Control is the beneficiary's identifier of the title, returned in
	// the return file; optional.
	Control string `json:"control,omitempty"`
	// Amount and Due are the title's amount and due date as registered.
	Amount decimal.Decimal `json:"amount"`
	Due    Date            `json:"due"`
}
