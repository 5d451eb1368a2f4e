package receipt

import (
	"time"

	"github.com/shopspring/decimal"
)

// A real slip (Itaú, wallet 109, R$ 6.757,87 due 2029-05-20) from the
// boleto package's public test vectors, and a static PIX payload built by
// the pix package's example.
const (
	testBarcode = "34194254800006757871090001015271248021246000"
	testLine    = "34191.09008 01015.271248 80212.460002 4 25480000675787"
	testPix     = "00020126330014br.gov.bcb.pix0111123456789095204000053039865407" +
		"1500.005802BR5921Imobiliaria Sao Jorge6009Sao Paulo62170513Aluguel11202663041931"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// unpaidPage is an invoice with a boleto and a PIX code.
func unpaidPage() Page {
	return Page{
		Kind:        KindInvoice,
		Number:      "1234",
		Business:    Party{Name: "Imobiliária São Jorge Ltda", TaxID: "12345678000195"},
		Payer:       Party{Name: "Maria da Silva", TaxID: "12345678909"},
		Description: "Aluguel novembro/2026 - Rua das Flores, 10",
		Competence:  date(2026, 11, 1),
		DueDate:     date(2026, 11, 24),
		Items: []Item{
			{Description: "Aluguel", Amount: dec("1200.00")},
			{Description: "Condomínio", Amount: dec("300.00")},
		},
		Total:   dec("1500.00"),
		Status:  StatusUnpaid,
		Boleto:  &Boleto{DigitableLine: testLine, Barcode: testBarcode},
		PixCode: testPix,
	}
}

// paidPage is the same invoice, paid late.
func paidPage() Page {
	p := unpaidPage()
	p.Status = StatusPaid
	p.Payment = &Payment{
		PaidAt:   date(2026, 11, 26),
		CreditAt: date(2026, 11, 27),
		Amount:   dec("1531.50"),
		LateFee:  dec("30.00"),
		Interest: dec("1.50"),
		Method:   "ticket",
	}
	return p
}
