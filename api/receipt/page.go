package receipt

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Status is the state of the invoice or transaction, with the values of
// the spec's invoice status.
type Status string

// The statuses a page can show.
const (
	StatusPaid          Status = "paid"
	StatusUnpaid        Status = "unpaid"
	StatusOverdue       Status = "overdue"
	StatusInProtest     Status = "in_protest"
	StatusRefunded      Status = "refunded"
	StatusPartiallyPaid Status = "partially_paid"
	StatusCanceled      Status = "canceled"
	StatusUncollectible Status = "uncollectible"
	StatusRenegotiated  Status = "renegotiated"
)

// statusLabels are the statuses as the page names them.
var statusLabels = map[Status]string{
	StatusPaid:          "Pago",
	StatusUnpaid:        "Em aberto",
	StatusOverdue:       "Vencido",
	StatusInProtest:     "Em protesto",
	StatusRefunded:      "Estornado",
	StatusPartiallyPaid: "Pago parcialmente",
	StatusCanceled:      "Cancelado",
	StatusUncollectible: "Incobrável",
	StatusRenegotiated:  "Renegociado",
}

// Payable reports whether the page offers means of payment (boleto, PIX):
// only an unpaid or overdue record does. A protested title is paid at the
// notary's office, and the other states owe nothing through this page.
func (s Status) Payable() bool { return s == StatusUnpaid || s == StatusOverdue }

// Page is everything the public page shows, as plain values. Amounts are
// in reais; dates are calendar dates, shown in their own location (the
// zero time is "not shown"); tax ids are bare, as stored, or punctuated as
// people write them (pix.BareTaxID's forms), and punctuated by the page.
type Page struct {
	Kind        string // KindInvoice or KindTransaction
	Number      string // the number people use (the invoice's id2), optional
	Business    Party  // who charges (the company's business: name, CNPJ)
	Payer       Party  // who pays (name, CPF or CNPJ)
	Description string
	Competence  time.Time // the competence date (the invoice's date)
	DueDate     time.Time
	Items       []Item
	Total       decimal.Decimal
	// Status is the record's status, as stored or computed by the loader
	// (an unpaid invoice past its due date should come as StatusOverdue).
	Status Status
	// Payment is what was paid; required when Status is StatusPaid, shown
	// when given for StatusPartiallyPaid, ignored otherwise.
	Payment *Payment
	// Boleto is the bank slip, shown only while Status.Payable().
	Boleto *Boleto
	// PixCode is the PIX copy-and-paste payload (BR Code), shown with its
	// QR code while Status.Payable(), and for StatusPartiallyPaid as the
	// code of the balance (the loader gives only one that charges no more
	// than is left); empty when there is none.
	PixCode string
	// Parts are the invoice's payments, in the order they were paid, when
	// it was paid in more than one or is partially paid; shown each with
	// its day, amount and, when any says it, its means of payment.
	Parts []Payment
	// Balance is what of Total a partially paid invoice still owes.
	Balance decimal.Decimal
}

// Party is a person or business on the page.
type Party struct {
	Name  string
	TaxID string // CPF (11 digits) or CNPJ (14 characters); empty if unknown
}

// Item is one line of the invoice.
type Item struct {
	Description string
	Amount      decimal.Decimal
}

// Payment is what was paid, and when.
type Payment struct {
	PaidAt   time.Time       // the payment date
	CreditAt time.Time       // the date the money was credited, if known
	Amount   decimal.Decimal // the amount paid, fees and discount included
	LateFee  decimal.Decimal // zero when none
	Interest decimal.Decimal // zero when none
	Discount decimal.Decimal // zero when none
	// Method is the spec's billing-method value (ticket, pix, cash, ...),
	// empty if unknown.
	Method string
	// InParts: the payment is the sum of several parts (Page.Parts), and
	// PaidAt the day of the one that settled the invoice.
	InParts bool
	// Refunded is what of Amount was given back to the payer (refunds);
	// zero when none.
	Refunded decimal.Decimal
}

// Kept is what of a payment was not given back.
func (p Payment) Kept() decimal.Decimal { return p.Amount.Sub(p.Refunded) }

// Charges are the late fee and interest a payment paid.
func (p Payment) Charges() decimal.Decimal { return p.LateFee.Add(p.Interest) }

// Boleto is the bank slip of an unpaid invoice: its 47-digit digitable
// line and its 44-digit barcode, digits with or without the printed
// punctuation. They must be the same slip.
type Boleto struct {
	DigitableLine string
	Barcode       string
}

// validate checks what Render relies on; an invalid page is the loader's
// bug, reported rather than shown half right.
func (p *Page) validate() error {
	if _, ok := kindCodes[p.Kind]; !ok {
		return fmt.Errorf("page kind %q, want %q or %q", p.Kind, KindInvoice, KindTransaction)
	}
	if _, ok := statusLabels[p.Status]; !ok {
		return fmt.Errorf("page status %q is unknown", p.Status)
	}
	if p.Status == StatusPaid && p.Payment == nil {
		return fmt.Errorf("page status is paid but it has no payment")
	}
	if p.Boleto != nil && p.Status.Payable() {
		if err := p.Boleto.validate(); err != nil {
			return fmt.Errorf("page boleto: %w", err)
		}
	}
	return nil
}

// validate checks the lengths and that line and barcode hold the same
// digits: the line is the barcode rearranged, plus three check digits.
func (b *Boleto) validate() error {
	line, bar := stripPunct(b.DigitableLine), stripPunct(b.Barcode)
	if len(line) != 47 || !isDigits(line) {
		return fmt.Errorf("digitable line %q is not 47 digits", b.DigitableLine)
	}
	if len(bar) != 44 || !isDigits(bar) {
		return fmt.Errorf("barcode %q is not 44 digits", b.Barcode)
	}
	same := line[0:4] == bar[0:4] && line[4:9] == bar[19:24] && line[10:20] == bar[24:34] &&
		line[21:31] == bar[34:44] && line[32] == bar[4] && line[33:47] == bar[5:19]
	if !same {
		return fmt.Errorf("digitable line %s and barcode %s are not the same slip", line, bar)
	}
	return nil
}
