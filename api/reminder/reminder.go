// Package reminder writes the billing reminder e-mail of an invoice, in
// Portuguese: the subject, a plain text and an HTML body saying the amount
// and due date, what is owed on the reminder's date (with the late fee and
// interest once the invoice is late), how to pay (the PIX code, the
// boleto's digitable line) and the link to the invoice's receipt page.
// Its input is plain values; package api fills them from the invoice and
// makes the link.
package reminder

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"text/template"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/ptbr"
	"github.com/propfin/propfin/api/receipt"
)

// Notice is what a reminder says.
type Notice struct {
	Company     string // who sends it (the property manager)
	Business    string // who bills the invoice; "" when the same or unknown
	Payer       string
	Number      string // the invoice's number
	Description string
	DueDate     time.Time
	Date        time.Time // the reminder's date
	Total       decimal.Decimal
	// As of Date: the days late, the late fee, the interest, the
	// punctuality discount, and what paying on Date costs.
	DaysLate                    int
	LateFee, Interest, Discount decimal.Decimal
	Due                         decimal.Decimal
	// PartiallyPaid: parts of the invoice are paid, and Balance (what of
	// Total is still open) is what the reminder is of.
	PartiallyPaid bool
	Balance       decimal.Decimal
	Link          string // the receipt page; "" when links are not configured
	LinkExpires   time.Time
	PixCode       string
	Digitable     string
	// StaleMeans: the invoice's boleto or stored PIX code were left out,
	// charging more than the balance; the message says so and how the
	// balance is paid.
	StaleMeans bool
}

// days is the number of days from the reminder's date to the due date
// (negative once past).
func (n Notice) days() int {
	d := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	return int(d(n.DueDate).Sub(d(n.Date)).Hours() / 24)
}

// Subject is the message's subject.
func (n Notice) Subject() string {
	what := "Fatura " + n.Number
	if n.PartiallyPaid {
		what = "Saldo da fatura " + n.Number
	}
	switch days := n.days(); {
	case days > 1:
		return fmt.Sprintf("Lembrete: %s de %s vence em %d dias (%s)", what, ptbr.Money(n.open()), days, ptbr.Date(n.DueDate))
	case days == 1:
		return fmt.Sprintf("Lembrete: %s de %s vence amanhã (%s)", what, ptbr.Money(n.open()), ptbr.Date(n.DueDate))
	case days == 0:
		return fmt.Sprintf("%s de %s vence hoje (%s)", what, ptbr.Money(n.open()), ptbr.Date(n.DueDate))
	}
	return fmt.Sprintf("%s em atraso desde %s: %s em %s", what, ptbr.Date(n.DueDate), ptbr.Money(n.Due), ptbr.Date(n.Date))
}

// open is what of the invoice the reminder is of: its total, or the
// balance of one partially paid.
func (n Notice) open() decimal.Decimal {
	if n.PartiallyPaid {
		return n.Balance
	}
	return n.Total
}

// lead is the sentence that opens the message.
func (n Notice) lead() string {
	switch days := n.days(); {
	case days > 1:
		return fmt.Sprintf("Lembramos que a sua fatura vence em %d dias, em %s.", days, ptbr.Date(n.DueDate))
	case days == 1:
		return fmt.Sprintf("Lembramos que a sua fatura vence amanhã, %s.", ptbr.Date(n.DueDate))
	case days == 0:
		return fmt.Sprintf("A sua fatura vence hoje, %s.", ptbr.Date(n.DueDate))
	}
	return fmt.Sprintf("A sua fatura venceu em %s e ainda não consta como paga.", ptbr.Date(n.DueDate))
}

// row is one line of the amounts table.
type row struct{ Label, Value string }

// rows are the invoice's amounts as of the reminder's date.
func (n Notice) rows() []row {
	rows := []row{{"Fatura", n.Number}}
	if n.Description != "" {
		rows = append(rows, row{"Descrição", n.Description})
	}
	if n.Business != "" && n.Business != n.Company {
		rows = append(rows, row{"Emitida por", n.Business})
	}
	rows = append(rows, row{"Valor", ptbr.Money(n.Total)})
	if n.PartiallyPaid {
		rows = append(rows, row{"Valor já abatido", ptbr.Money(n.Total.Sub(n.Balance))}, row{"Saldo em aberto", ptbr.Money(n.Balance)})
	}
	rows = append(rows, row{"Vencimento", ptbr.Date(n.DueDate)})
	if n.DaysLate > 0 {
		rows = append(rows, row{"Dias de atraso", fmt.Sprint(n.DaysLate)})
		if n.LateFee.IsPositive() {
			rows = append(rows, row{"Multa", ptbr.Money(n.LateFee)})
		}
		if n.Interest.IsPositive() {
			rows = append(rows, row{"Juros", ptbr.Money(n.Interest)})
		}
		rows = append(rows, row{"Total em " + ptbr.Date(n.Date), ptbr.Money(n.Due)})
	} else if n.Discount.IsPositive() {
		rows = append(rows, row{"Desconto de pontualidade, pagando hoje", ptbr.Money(n.Discount)},
			row{"Total pagando hoje (" + ptbr.Date(n.Date) + ")", ptbr.Money(n.Due)})
	}
	return rows
}

// view is what the templates read.
type view struct {
	Payer, Lead, Company, Link, LinkExpires, PixCode, Digitable string
	Rows                                                        []row
	PartiallyPaid, Late, StaleMeans                             bool
}

func (n Notice) view() view {
	v := view{Payer: n.Payer, Lead: n.lead(), Company: n.Company, Link: n.Link, PixCode: n.PixCode,
		Rows: n.rows(), PartiallyPaid: n.PartiallyPaid, Late: n.DaysLate > 0,
		StaleMeans: n.StaleMeans}
	if n.Link != "" {
		v.LinkExpires = ptbr.Date(n.LinkExpires)
	}
	if n.Digitable != "" {
		v.Digitable = receipt.FormatLine(n.Digitable)
	}
	if strings.TrimSpace(v.Payer) == "" {
		v.Payer = "cliente"
	}
	return v
}

var textBody = template.Must(template.New("text").Parse(`Olá, {{.Payer}}.

{{.Lead}}
{{if .PartiallyPaid}}
Esta fatura tem pagamento parcial registrado: o que falta pagar é o saldo em aberto abaixo{{if .Late}}, com a multa e os juros sobre ele{{end}}.
{{end}}{{if .StaleMeans}}
O boleto e o PIX emitidos antes do pagamento parcial cobram o valor total da fatura: não os use.{{if not .PixCode}} Para pagar o saldo, responda a esta mensagem e pediremos um PIX do saldo.{{end}}
{{end}}
{{range .Rows}}{{.Label}}: {{.Value}}
{{end}}{{if or .PixCode .Digitable .Link}}
Para pagar:
{{if .PixCode}}
PIX (copia e cola):
{{.PixCode}}
{{end}}{{if .Digitable}}
Linha digitável do boleto:
{{.Digitable}}
{{end}}{{if .Link}}
{{if .PartiallyPaid}}Página da fatura, com os pagamentos, o saldo em aberto e, depois do pagamento, o recibo:{{else}}Página da fatura, com o boleto, o PIX e, depois do pagamento, o recibo:{{end}}
{{.Link}}
(link válido até {{.LinkExpires}})
{{end}}{{end}}
Se você já pagou, por favor desconsidere esta mensagem.

{{.Company}}
`))

var htmlBody = htmltemplate.Must(htmltemplate.New("html").Parse(`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"></head>
<body style="font-family:Arial,Helvetica,sans-serif;font-size:15px;color:#222;line-height:1.4">
<p>Olá, {{.Payer}}.</p>
<p>{{.Lead}}</p>
{{if .PartiallyPaid}}<p>Esta fatura tem pagamento parcial registrado: o que falta pagar é o saldo em aberto abaixo{{if .Late}}, com a multa e os juros sobre ele{{end}}.</p>{{end}}
{{if .StaleMeans}}<p>O boleto e o PIX emitidos antes do pagamento parcial cobram o valor total da fatura: não os use.{{if not .PixCode}} Para pagar o saldo, responda a esta mensagem e pediremos um PIX do saldo.{{end}}</p>{{end}}
<table style="border-collapse:collapse">
{{range .Rows}}<tr><td style="padding:2px 12px 2px 0;color:#555">{{.Label}}</td><td style="padding:2px 0"><strong>{{.Value}}</strong></td></tr>
{{end}}</table>
{{if or .PixCode .Digitable .Link}}<h3 style="font-size:16px">Para pagar</h3>
{{if .PixCode}}<p>PIX (copia e cola):<br><code style="word-break:break-all">{{.PixCode}}</code></p>{{end}}
{{if .Digitable}}<p>Linha digitável do boleto:<br><code>{{.Digitable}}</code></p>{{end}}
{{if .Link}}<p><a href="{{.Link}}">Abrir a página da fatura</a> ({{if .PartiallyPaid}}com os pagamentos, o saldo em aberto{{else}}com o boleto, o PIX{{end}} e, depois do pagamento, o recibo; link válido até {{.LinkExpires}}).</p>{{end}}
{{end}}<p>Se você já pagou, por favor desconsidere esta mensagem.</p>
<p>{{.Company}}</p>
</body></html>
`))

// Bodies writes the plain text and the HTML of the message.
func (n Notice) Bodies() (text, html string, err error) {
	v := n.view()
	var t, h bytes.Buffer
	if err := textBody.Execute(&t, v); err != nil {
		return "", "", fmt.Errorf("reminder text: %w", err)
	}
	if err := htmlBody.Execute(&h, v); err != nil {
		return "", "", fmt.Errorf("reminder html: %w", err)
	}
	return t.String(), h.String(), nil
}
