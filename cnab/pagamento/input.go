package pagamento

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
)

// Remittance is what the file says once: the bank, the file sequence
// number and the paying company's account.
type Remittance struct {
	// Bank is the three-digit code of the bank that debits the payer's
	// account and runs the payments: one of Supported() ("001", "033",
	// "237", "341", "756").
	Bank string `json:"bank"`
	// Sequence is the file sequence number (NSA), increasing by one for
	// every file sent to the bank for this agreement. The caller keeps
	// it. Itaú's header has no such field; it is checked all the same.
	Sequence int `json:"sequence"`
	// Created is the date and time written in the header as the file's
	// generation time.
	Created time.Time `json:"created"`
	// PIX marks a file that holds PIX payments only: with PIX set every
	// payment must be a PIX one. Bradesco and Itaú take PIX payments only
	// in such a file; Banco do Brasil, Santander and Sicoob also take them
	// in a batch of their own beside other batches.
	PIX bool `json:"pix,omitempty"`
	// Payer is the company whose account is debited.
	Payer Payer `json:"payer"`
}

// Payer is the company that pays: its name, CPF or CNPJ, the account
// debited and, optionally, its address (printed in the batch header).
type Payer struct {
	Name     string `json:"name"`
	Document string `json:"document"` // CPF (11 digits) or CNPJ (14 digits)
	// Agency and Account are digits only, their check digits apart.
	// AccountDigit has one or two characters.
	Agency       string `json:"agency"`
	AgencyDigit  string `json:"agency_digit,omitempty"`
	Account      string `json:"account"`
	AccountDigit string `json:"account_digit"`
	// Covenant is the bank's code of the payment agreement (código do
	// convênio): required by Bradesco and Sicoob (text, up to 20
	// characters), Banco do Brasil (up to 9 digits) and Santander (the
	// agreement number, up to 12 digits, or the whole 20-digit code of
	// note G009); not used by Itaú.
	Covenant string  `json:"covenant,omitempty"`
	Address  Address `json:"address,omitzero"`
}

// Address is a postal address; every part is optional.
type Address struct {
	Street     string `json:"street,omitempty"`
	Number     string `json:"number,omitempty"` // digits only, up to 5
	Complement string `json:"complement,omitempty"`
	District   string `json:"district,omitempty"`
	City       string `json:"city,omitempty"`
	ZIP        string `json:"zip,omitempty"`   // CEP, 8 digits
	State      string `json:"state,omitempty"` // two-letter UF
}

// Kind is how a payment reaches the beneficiary.
type Kind string

// The payment kinds.
const (
	// KindTransfer credits an account: a credit in account when the
	// beneficiary's bank is the payer's bank, a TED otherwise.
	KindTransfer Kind = "transfer"
	// KindPIX is a PIX transfer to account data (bank ISPB, agency,
	// account and account type).
	KindPIX Kind = "pix"
	// KindPIXKey is a PIX transfer to a key (PIXKey and PIXKeyType).
	KindPIXKey Kind = "pix_key"
	// KindBoleto pays a boleto by its barcode.
	KindBoleto Kind = "boleto"
)

// KeyType is the type of a PIX key.
type KeyType string

// The PIX key types.
const (
	KeyPhone    KeyType = "phone"    // +55, area code and a 9-digit mobile number
	KeyEmail    KeyType = "email"    // up to 77 characters
	KeyDocument KeyType = "document" // CPF or CNPJ, digits
	KeyRandom   KeyType = "random"   // the 36-character random key (EVP)
)

// AccountType is the kind of account credited by a PIX to account data.
type AccountType string

// The account types.
const (
	AccountChecking AccountType = "checking" // conta corrente (default)
	AccountSavings  AccountType = "savings"  // conta poupança
	AccountPayment  AccountType = "payment"  // conta de pagamento
)

// Payment is one payment to make.
type Payment struct {
	Kind Kind `json:"kind"`
	// Reference is the company's own identifier of the payment (seu
	// número), up to 20 characters; the bank returns it unchanged in the
	// return file, where it is how a payment is found again. Required.
	Reference string `json:"reference"`
	// Amount is the amount to pay in reais with at most two decimal
	// places; Cents is the same in integer cents. Give one of them.
	Amount decimal.Decimal `json:"amount"`
	Cents  int64           `json:"amount_cents,omitempty"`
	// Date is the day the payment is to be made.
	Date cnab.Date `json:"date"`

	// Beneficiary is who receives the money. For a boleto, the
	// beneficiary of the slip (cedente), written in segment J-52.
	Beneficiary Beneficiary `json:"beneficiary"`

	// Account is the account credited (KindTransfer, KindPIX).
	Account Account `json:"account,omitzero"`
	// TEDPurpose is the BCB purpose code of a TED (finalidade, five
	// digits); "00010" (crédito em conta) when empty.
	TEDPurpose string `json:"ted_purpose,omitempty"`

	// PIXKey and PIXKeyType are the key of a KindPIXKey payment.
	PIXKey     string  `json:"pix_key,omitempty"`
	PIXKeyType KeyType `json:"pix_key_type,omitempty"`

	// Barcode is the boleto's 44-digit barcode or its 47-digit digitable
	// line (KindBoleto); spaces and punctuation are ignored.
	Barcode string `json:"barcode,omitempty"`
	// Due is the boleto's due date; required with a barcode.
	Due cnab.Date `json:"due,omitzero"`
	// Discount (desconto + abatimento) and Surcharge (mora + multa) take
	// the boleto's nominal amount (in the barcode, or Nominal when the
	// barcode has none) to the amount paid: paid = nominal - discount +
	// surcharge. Optional.
	Discount  decimal.Decimal `json:"discount,omitzero"`
	Surcharge decimal.Decimal `json:"surcharge,omitzero"`
	// Nominal is the boleto's amount when its barcode carries none.
	Nominal decimal.Decimal `json:"nominal,omitzero"`
}

// Beneficiary is the person or company paid.
type Beneficiary struct {
	Name     string `json:"name"`
	Document string `json:"document"` // CPF (11 digits) or CNPJ (14 digits)
}

// Account is a bank account credited by a transfer or a PIX.
type Account struct {
	// Bank is the three-digit bank code (COMPE); required for a
	// transfer. Optional for a PIX to account data, since an institution
	// may have an ISPB and no COMPE code, except at Sicoob, whose layout
	// names the institution by bank code only.
	Bank string `json:"bank,omitempty"`
	// ISPB is the eight-digit code of the institution in the payment
	// system; required for a PIX to account data (Sicoob does not write
	// it) and, at Itaú, for a TED to a payment account.
	ISPB         string      `json:"ispb,omitempty"`
	Agency       string      `json:"agency,omitempty"`
	AgencyDigit  string      `json:"agency_digit,omitempty"`
	Account      string      `json:"account,omitzero"`
	AccountDigit string      `json:"account_digit,omitempty"`
	Type         AccountType `json:"type,omitempty"`
}
