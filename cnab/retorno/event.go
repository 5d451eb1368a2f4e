package retorno

import (
	"strconv"

	"github.com/propfin/propfin/cnab"
	"github.com/shopspring/decimal"
)

// Kind tells a collection title (boleto) from a payment made for the
// company (pagamento a fornecedores).
type Kind string

// The two kinds of event.
const (
	KindTitle   Kind = "title"
	KindPayment Kind = "payment"
)

// Occurrence is what happened to a title or payment, the bank's
// occurrence code put in one of a few classes that a caller acts on. The
// bank's own code and its meaning are always in Event.Code and
// Event.Description.
type Occurrence string

// The classes of occurrence.
const (
	// EntryConfirmed: the bank registered the title (entrada confirmada).
	EntryConfirmed Occurrence = "entry_confirmed"
	// Paid: the title was paid (liquidação), or the payment was made.
	Paid Occurrence = "paid"
	// WrittenOff: the title was removed from collection without being
	// paid through it (baixa).
	WrittenOff Occurrence = "written_off"
	// Rejected: the bank refused an entry, an instruction, a change or a
	// payment; Event.Reasons says why.
	Rejected Occurrence = "rejected"
	// InstructionConfirmed: an instruction or change was accepted
	// (abatimento, vencimento, outros dados, ...).
	InstructionConfirmed Occurrence = "instruction_confirmed"
	// Protest: a protest step (sent to the notary, protested, withdrawn).
	Protest Occurrence = "protest"
	// Fee: a fee or cost was charged (tarifa, custas).
	Fee Occurrence = "fee"
	// Scheduled: a payment was accepted and waits for its date.
	Scheduled Occurrence = "scheduled"
	// Other: a code the bank documents that fits none of the classes
	// above (payer's claims, DDA notices, ...).
	Other Occurrence = "other"
	// Unknown: a code the bank's table used here does not list. It is
	// reported, never dropped.
	Unknown Occurrence = "unknown"
)

// Reason is one of the bank's reason codes that come with an occurrence
// (motivos: why an entry was rejected, how a title was paid, which fee
// was charged). Description is empty when the code is not in the bank's
// table.
type Reason struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

// Event is one title or payment as a return file reports it: one detail
// record in CNAB 400, the segments of one title (T and U) or one payment
// (A and B, J and J-52) in CNAB 240.
//
// Amounts are in cents. Fields a layout does not carry are zero.
type Event struct {
	// Line is the line number (1 for the first) of the event's first
	// record.
	Line   int         `json:"line"`
	Bank   string      `json:"bank"`
	Layout cnab.Layout `json:"layout"`
	Kind   Kind        `json:"kind"`

	// Code is the bank's occurrence code as the file has it; Description
	// its meaning in the bank's table ("" when the code is unknown).
	Code        string     `json:"code"`
	Occurrence  Occurrence `json:"occurrence"`
	Description string     `json:"description"`
	// Reasons are the reason codes that came with the occurrence, in the
	// file's order.
	Reasons []Reason `json:"reasons,omitempty"`

	// OurNumber is the bank's number of the title (nosso número) without
	// its check digit, OurNumberDigit the check digit ("" when the bank's
	// number has none). For a payment it is the bank's own number of the
	// payment.
	OurNumber      string `json:"our_number"`
	OurNumberDigit string `json:"our_number_digit,omitempty"`
	// DocumentNumber is the company's number of the title or payment
	// (número do documento, seu número).
	DocumentNumber string `json:"document_number,omitempty"`
	// Control is the company's own identifier returned unchanged (uso da
	// empresa, identificação do título na empresa).
	Control string `json:"control,omitempty"`
	// Wallet is the collection wallet (carteira) where the layout has it;
	// WalletCode the wallet's letter or code where the layout has one
	// beside its number (Itaú's "código da carteira", 108).
	Wallet     string `json:"wallet,omitempty"`
	WalletCode string `json:"wallet_code,omitempty"`
	// Species is the kind of title (espécie: duplicata, recibo, ...) as
	// the bank codes it; Modality the collection modality or wallet
	// variation where the layout has one apart.
	Species  string `json:"species,omitempty"`
	Modality string `json:"modality,omitempty"`
	// Instalment is the instalment the record speaks of (parcela,
	// pagamento parcial), as the bank writes it.
	Instalment string `json:"instalment,omitempty"`
	// Currency is the bank's currency code of the title (código da
	// moeda, 09 or 00 for the real at most banks).
	Currency string `json:"currency,omitempty"`

	// Beneficiary is the beneficiary's account as the record names it.
	Beneficiary Account `json:"beneficiary,omitzero"`
	// CollectingBank and CollectingAgency (with its check digit) are the
	// bank and agency that received the payment or handle the title
	// (banco cobrador/recebedor, agência cobradora).
	CollectingBank        string `json:"collecting_bank,omitempty"`
	CollectingAgency      string `json:"collecting_agency,omitempty"`
	CollectingAgencyDigit string `json:"collecting_agency_digit,omitempty"`
	// PayerDocument is the payer's CPF (11 digits) or CNPJ (14
	// characters), the field's zero-fill taken away (payerDocument says
	// how, with or without the record's type); "" when the field is
	// zeros. PayerDocumentType is the record's type: "cpf" or "cnpj" (or
	// the bank's code when it is neither; "" when the layout has none).
	PayerDocument     string `json:"payer_document,omitempty"`
	PayerDocumentType string `json:"payer_document_type,omitempty"`

	// Amount is the title's face value or the payment's amount.
	Amount Cents `json:"amount"`
	// Paid is what the payer paid: the title's value with late fee and
	// interest, less discount and abatement, as the bank reports it
	// (valor pago, valor recebido); for a payment, what the bank actually
	// paid (valor real). Read from its own positions, or, in a layout that
	// carries only the amount credited and the tariff, their sum on a paid
	// title (docs/cnab-retorno.md says which).
	Paid Cents `json:"paid"`
	// Credited is what the bank credited to the account for the title
	// (valor líquido, valor lançado em conta corrente): Paid less the
	// Tariff where the layout does not carry it apart. Zero for a payment.
	Credited Cents `json:"credited"`
	// Tariff is the bank's tariff or costs for this occurrence (tarifa,
	// despesas de cobrança, custas).
	Tariff Cents `json:"tariff"`
	// Interest is the late interest paid (juros de mora). Layouts that
	// carry interest and fine as one value put it here.
	Interest Cents `json:"interest"`
	// Fine is the late fee paid (multa), where the layout has it apart.
	Fine      Cents `json:"fine"`
	Discount  Cents `json:"discount"`
	Abatement Cents `json:"abatement"`
	IOF       Cents `json:"iof"`
	// OtherExpenses and OtherCredits are the layout's "outras despesas" and
	// "outros créditos".
	OtherExpenses Cents `json:"other_expenses"`
	OtherCredits  Cents `json:"other_credits"`

	// Due is the title's due date, or the date a payment was scheduled
	// for.
	Due cnab.Date `json:"due"`
	// Date is the date of the occurrence: the payment date of a paid
	// title (data da ocorrência), the date a payment was made.
	Date cnab.Date `json:"date"`
	// CreditDate is when the amount is available in the account (data do
	// crédito).
	CreditDate cnab.Date `json:"credit_date"`

	// Channel is how the title was paid (agency, ATM, internet banking,
	// PIX, ...), with the bank's code and its meaning, where the layout
	// says it.
	Channel Channel `json:"channel,omitzero"`
	// PIX is the PIX charge of the title (boleto híbrido), from the
	// layout's PIX record that follows its detail.
	PIX *PIX `json:"pix,omitempty"`

	// Payer is the payer's name, where the layout has it; for a payment,
	// the payee (favorecido or cedente of the paid boleto).
	Payer string `json:"payer,omitempty"`
	// Barcode is the 44-digit barcode of a paid boleto (segment J).
	Barcode string `json:"barcode,omitempty"`
}

// Account is a beneficiary's account at the bank as a return file names
// it: the agency and account with their check digits, and the code the
// bank gave the beneficiary (convênio, código do beneficiário/cedente)
// where the record has one. Fields the record does not carry are empty.
type Account struct {
	Agency       string `json:"agency,omitempty"`
	AgencyDigit  string `json:"agency_digit,omitempty"`
	Account      string `json:"account,omitempty"`
	AccountDigit string `json:"account_digit,omitempty"`
	Code         string `json:"code,omitempty"`
}

// Channel is the bank's code for the way a title was paid and its meaning
// in the bank's table ("" when the table does not list the code).
type Channel struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

// PIX is what a return file says of the PIX charge attached to a title.
// Fields the bank's record does not carry are empty.
type PIX struct {
	// KeyType is the kind of key: "cpf", "cnpj", "phone", "email" or
	// "evp" (random key), as package pix names them.
	KeyType string `json:"key_type,omitempty"`
	Key     string `json:"key,omitempty"`
	// TxID is the charge's transaction id (62.05 of the BR Code).
	TxID string `json:"txid,omitempty"`
	// Location is the URL of a dynamic charge (26.25), without scheme.
	Location string `json:"location,omitempty"`
	// QRCode is the BR Code (copia e cola) the bank generated.
	QRCode string `json:"qr_code,omitempty"`
	// Error is the bank's code when the PIX charge could not be
	// generated (the title is registered without it).
	Error string `json:"error,omitempty"`
}

// FullOurNumber returns the nosso número followed by its check digit.
func (e *Event) FullOurNumber() string { return e.OurNumber + e.OurNumberDigit }

// PrintedOurNumber is the nosso número as the bank's slip and portal show
// it, for people: the number, a hyphen and its check digit (00000099-7),
// the number alone when it has none.
func (e *Event) PrintedOurNumber() string {
	if e.OurNumberDigit == "" {
		return e.OurNumber
	}
	return e.OurNumber + "-" + e.OurNumberDigit
}

// Cents is an amount of money in cents. Its JSON form is a number with
// two decimal places, 1234.56, written from the integer cents, as the API
// writes money (docs/api.md, "Money").
type Cents int64

// Decimal returns the amount in reais.
func (c Cents) Decimal() decimal.Decimal { return decimal.New(int64(c), -2) }

func (c Cents) String() string {
	v := int64(c)
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v/100, 10) + "." + strconv.FormatInt(100+v%100, 10)[1:]
	if neg {
		return "-" + s
	}
	return s
}

// MarshalJSON writes the amount as the number 1234.56.
func (c Cents) MarshalJSON() ([]byte, error) {
	return []byte(c.String()), nil
}
