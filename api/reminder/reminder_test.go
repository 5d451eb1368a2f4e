package reminder

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestPartiallyPaidNotice: the reminder of an invoice partly paid is of
// its balance, what the tenant still owes, with the late fee and interest
// on it: not of the invoice's total.
func TestPartiallyPaidNotice(t *testing.T) {
	t.Parallel()
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	day := func(s string) time.Time { v, _ := time.Parse(time.DateOnly, s); return v }
	n := Notice{Company: "Horizonte", Payer: "Paula", Number: "7", DueDate: day("2024-03-10"), Date: day("2024-03-13"),
		Total: d("1500.00"), PartiallyPaid: true, Balance: d("500.00"),
		// DueOn of the rest, 3 days late at 2 % and 1 % a month: 10.00 and 0.50
		DaysLate: 3, LateFee: d("10.00"), Interest: d("0.50"), Due: d("510.50")}
	text, _, err := n.Bodies()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Valor: R$ 1.500,00", "Valor já abatido: R$ 1.000,00", "Saldo em aberto: R$ 500,00", "Multa: R$ 10,00",
		"Total em 13/03/2024: R$ 510,50", "o que falta pagar é o saldo em aberto abaixo, com a multa e os juros sobre ele"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if s := n.Subject(); s != "Saldo da fatura 7 em atraso desde 10/03/2024: R$ 510,50 em 13/03/2024" {
		t.Errorf("subject %q", s)
	}
	n.Date, n.DaysLate, n.LateFee, n.Interest, n.Due = day("2024-03-05"), 0, decimal.Zero, decimal.Zero, d("500.00")
	if s := n.Subject(); s != "Lembrete: Saldo da fatura 7 de R$ 500,00 vence em 5 dias (10/03/2024)" {
		t.Errorf("subject before the due date %q", s)
	}
}

// TestStaleMeansNotice: a reminder whose boleto and PIX code were left out
// (they charge the whole total) says not to use them and how the balance
// is paid, and shows neither; its link is to the page of the payments and
// the balance.
func TestStaleMeansNotice(t *testing.T) {
	t.Parallel()
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	day := func(s string) time.Time { v, _ := time.Parse(time.DateOnly, s); return v }
	n := Notice{Company: "Horizonte", Payer: "Paula", Number: "20", DueDate: day("2026-12-09"), Date: day("2026-12-04"),
		Total: d("800.00"), PartiallyPaid: true, Balance: d("500.00"), Due: d("500.00"), StaleMeans: true,
		Link: "https://example.com/r/x", LinkExpires: day("2027-01-04")}
	text, html, err := n.Bodies()
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{text, html} {
		for _, want := range []string{"O boleto e o PIX emitidos antes do pagamento parcial cobram o valor total da fatura: não os use.",
			"pediremos um PIX do saldo", "com os pagamentos, o saldo em aberto"} {
			if !strings.Contains(body, want) {
				t.Errorf("the message lacks %q:\n%s", want, body)
			}
		}
		if strings.Contains(body, "com o boleto, o PIX") || strings.Contains(body, "Linha digitável") {
			t.Errorf("the message still offers the boleto:\n%s", body)
		}
	}
	n.PixCode = "000201-balance"
	if text, _, _ := n.Bodies(); strings.Contains(text, "pediremos") || !strings.Contains(text, "000201-balance") {
		t.Errorf("with a code of the balance:\n%s", text)
	}
}
