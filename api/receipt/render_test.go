package receipt

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
)

func render(t *testing.T, p Page) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, p); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.String()
}

// text is the page without tags and with entities decoded, close to what
// a reader sees.
func text(page string) string {
	noScript := regexp.MustCompile(`(?s)<(script|style)>.*?</(script|style)>`).ReplaceAllString(page, "")
	noTags := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(noScript, " ")
	return strings.Join(strings.Fields(html.UnescapeString(noTags)), " ")
}

func TestRenderVariants(t *testing.T) {
	t.Parallel()
	always := []string{"Imobiliária São Jorge Ltda", "CNPJ 12.345.678/0001-95", "Maria da Silva",
		"CPF 123.456.789-09", "Aluguel R$ 1.200,00", "Condomínio R$ 300,00", "Total R$ 1.500,00",
		"Competência 01/11/2026", "Vencimento 24/11/2026"}
	payment := []string{"Linha digitável", "Copiar linha digitável", "Copiar código PIX", "PIX copia e cola", "QR code"}
	tests := []struct {
		name    string
		page    func() Page
		want    []string
		notWant []string
		images  int
	}{
		{
			name:    "unpaid with boleto and PIX",
			page:    unpaidPage,
			want:    append([]string{"Fatura nº 1234", "Em aberto", testLine, testPix}, payment...),
			notWant: []string{"Recibo de pagamento", "Pago em", "Vencida em", "cancelada"},
			images:  2,
		},
		{
			name:    "unpaid with PIX only",
			page:    func() Page { p := unpaidPage(); p.Boleto = nil; return p },
			want:    []string{"Copiar código PIX", testPix},
			notWant: []string{"Linha digitável", testLine},
			images:  1,
		},
		{
			name:    "unpaid with boleto only",
			page:    func() Page { p := unpaidPage(); p.PixCode = ""; return p },
			want:    []string{"Linha digitável", testLine},
			notWant: []string{"Copiar código PIX", "QR code"},
			images:  1,
		},
		{
			name:    "unpaid without payment means",
			page:    func() Page { p := unpaidPage(); p.PixCode, p.Boleto = "", nil; return p },
			want:    []string{"Fatura nº 1234", "Em aberto"},
			notWant: payment,
		},
		{
			name:   "overdue",
			page:   func() Page { p := unpaidPage(); p.Status = StatusOverdue; return p },
			want:   []string{"Vencido", "Vencida em 24/11/2026", "multa e juros", "Linha digitável", "Copiar código PIX"},
			images: 2,
		},
		{
			name: "paid",
			page: paidPage,
			want: []string{"Recibo de pagamento", "Pago", "Recebemos de Maria da Silva (CPF 123.456.789-09) a importância de R$ 1.531,50",
				"Pago em 26/11/2026", "Creditado em 27/11/2026", "Multa R$ 30,00", "Juros R$ 1,50",
				"Valor pago R$ 1.531,50", "Forma de pagamento Boleto"},
			notWant: append([]string{"Desconto", "Em aberto", testLine, testPix}, payment...),
		},
		{
			name: "paid with discount, no credit date",
			page: func() Page {
				p := paidPage()
				p.Payment = &Payment{PaidAt: date(2026, 11, 20), Amount: dec("1425"), Discount: dec("75"), Method: "pix"}
				return p
			},
			want:    []string{"Desconto R$ 75,00", "Valor pago R$ 1.425,00", "Forma de pagamento PIX"},
			notWant: []string{"Multa", "Juros", "Creditado em"},
		},
		{
			name:    "canceled",
			page:    func() Page { p := unpaidPage(); p.Status = StatusCanceled; return p },
			want:    []string{"Fatura cancelada", "Cancelado", "Esta fatura foi cancelada", "não efetue pagamento"},
			notWant: append([]string{"Recibo de pagamento", testLine, testPix}, payment...),
		},
		{
			name:    "in protest",
			page:    func() Page { p := unpaidPage(); p.Status = StatusInProtest; return p },
			want:    []string{"Em protesto", "não pode ser paga por esta página"},
			notWant: append([]string{testLine, testPix}, payment...),
		},
		{
			name: "partially paid",
			page: func() Page {
				p := paidPage()
				p.Status, p.PixCode, p.Balance = StatusPartiallyPaid, "", dec("1000")
				p.Payment = &Payment{Amount: dec("500"), Method: "ticket"}
				p.Parts = []Payment{{PaidAt: date(2026, 11, 10), Amount: dec("500")}}
				return p
			},
			want: []string{"Pago parcialmente", "Valor pago R$ 500,00", "Pagamentos Pago em Valor Multa e juros 10/11/2026 R$ 500,00 R$ 0,00",
				"Saldo em aberto R$ 1.000,00", "O boleto desta fatura é do valor total: não o use para pagar o saldo.",
				"peça a Imobiliária São Jorge Ltda um PIX do saldo"},
			notWant: append([]string{"Recibo de pagamento", testLine}, payment...),
		},
		{
			name: "partially paid with a PIX code of the balance",
			page: func() Page {
				p := unpaidPage()
				p.Status, p.Balance = StatusPartiallyPaid, dec("1000")
				p.Payment = &Payment{Amount: dec("500")}
				return p
			},
			want:    []string{"Saldo em aberto R$ 1.000,00", "PIX do saldo", "PIX copia e cola", "Copiar código PIX"},
			notWant: []string{"Linha digitável", "peça a"},
			images:  1,
		},
		{
			name: "paid in parts",
			page: func() Page {
				p := paidPage()
				p.Payment = &Payment{PaidAt: date(2026, 11, 22), Amount: dec("1512"), LateFee: dec("10"), Interest: dec("2"),
					Method: "ticket", InParts: true}
				p.Parts = []Payment{{PaidAt: date(2026, 11, 10), Amount: dec("1000")},
					{PaidAt: date(2026, 11, 22), Amount: dec("512"), LateFee: dec("10"), Interest: dec("2")}}
				return p
			},
			want: []string{"a importância de R$ 1.512,00", "Rua das Flores, 10, em 2 pagamentos.",
				"10/11/2026 R$ 1.000,00 R$ 0,00 22/11/2026 R$ 512,00 R$ 12,00", "Quitado em 22/11/2026"},
			notWant: []string{"Pago em 22/11/2026"},
		},
		{
			name: "paid, part of it given back",
			page: func() Page { p := paidPage(); p.Payment.Refunded = dec("100"); return p },
			want: []string{"a importância de R$ 1.531,50", "Dessa importância, R$ 100,00 foi devolvida ao pagador.",
				"Valor pago R$ 1.531,50 Devolvido R$ 100,00 Valor retido R$ 1.431,50"},
		},
		{
			name: "paid in parts by two means",
			page: func() Page {
				p := paidPage()
				p.Payment = &Payment{PaidAt: date(2026, 11, 22), Amount: dec("1512"), InParts: true}
				p.Parts = []Payment{{PaidAt: date(2026, 11, 10), Amount: dec("1000"), Method: "pix"},
					{PaidAt: date(2026, 11, 22), Amount: dec("512"), Method: "cash"}}
				return p
			},
			want: []string{"Pago em Valor Multa e juros Forma", "10/11/2026 R$ 1.000,00 R$ 0,00 PIX",
				"22/11/2026 R$ 512,00 R$ 0,00 Dinheiro"},
			notWant: []string{"Forma de pagamento", "Devolvido"},
		},
		{
			name: "paid transaction",
			page: func() Page {
				p := paidPage()
				p.Kind, p.Number = KindTransaction, ""
				return p
			},
			want:    []string{"Recibo de pagamento", "Valor pago R$ 1.531,50"},
			notWant: []string{"Fatura"},
		},
		{
			name:    "canceled transaction",
			page:    func() Page { p := unpaidPage(); p.Kind, p.Status = KindTransaction, StatusCanceled; return p },
			want:    []string{"Lançamento cancelado", "Este lançamento foi cancelado"},
			notWant: payment,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			page := render(t, tt.page())
			got := text(page)
			for _, w := range append(always, tt.want...) {
				if !strings.Contains(got, w) {
					t.Errorf("page text lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("page text has %q:\n%s", w, got)
				}
			}
			if n := strings.Count(page, "<img "); n != tt.images {
				t.Errorf("page has %d images, want %d", n, tt.images)
			}
		})
	}
}

func TestRenderImages(t *testing.T) {
	t.Parallel()
	page := html.UnescapeString(render(t, unpaidPage()))
	for _, want := range []string{
		`<img class="barcode" data-check src="data:image/svg+xml;base64,`,
		`<img class="qr" data-check src="data:image/png;base64,`,
		`data-value="34191090080101527124880212460002425480000675787"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

// TestRenderPageMeta checks what makes the page usable on a phone, in
// print and offline.
func TestRenderPageMeta(t *testing.T) {
	t.Parallel()
	page := render(t, unpaidPage())
	for _, want := range []string{
		`<html lang="pt-BR">`,
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`@media print`,
		`.copy{display:none!important}`,
		`navigator.clipboard`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if m := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]`).FindString(stripDataURIs(page)); m != "" {
		t.Errorf("page refers to another address: %q", m)
	}
}

// stripDataURIs drops the data: URIs, whose base64 could contain anything.
func stripDataURIs(page string) string {
	return regexp.MustCompile(`data:[^"]*`).ReplaceAllString(page, "")
}

// TestContentSecurityPolicyHashes checks that the policy's hashes are
// those of the style and script the page inlines, or the browser would
// refuse them.
func TestContentSecurityPolicyHashes(t *testing.T) {
	t.Parallel()
	page := render(t, unpaidPage())
	for _, tag := range []string{"style", "script"} {
		m := regexp.MustCompile(`(?s)<` + tag + `>(.*?)</` + tag + `>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("page has no <%s>", tag)
		}
		if h := sourceHash(m[1]); !strings.Contains(contentSecurityPolicy, tag+"-src "+h) {
			t.Errorf("policy %q lacks %s-src %s", contentSecurityPolicy, tag, h)
		}
	}
}

func TestRenderEscapes(t *testing.T) {
	t.Parallel()
	p := unpaidPage()
	p.Description = `<script>alert(1)</script>`
	p.Payer.Name = `"><img src=x onerror=alert(1)>`
	page := render(t, p)
	for _, bad := range []string{"<script>alert", "<img src=x"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds unescaped %q", bad)
		}
	}
}

func TestRenderRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*Page)
	}{
		{"unknown kind", func(p *Page) { p.Kind = "contract" }},
		{"unknown status", func(p *Page) { p.Status = "in_agreement" }},
		{"paid without payment", func(p *Page) { p.Status = StatusPaid }},
		{"short barcode", func(p *Page) { p.Boleto.Barcode = testBarcode[1:] }},
		{"letters in line", func(p *Page) { p.Boleto.DigitableLine = "x" + testLine[1:] }},
		{"line of another slip", func(p *Page) { p.Boleto.Barcode = testBarcode[:43] + "1" }},
		{"invalid PIX code", func(p *Page) { p.PixCode = testPix[:len(testPix)-1] + "0" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := unpaidPage()
			tt.edit(&p)
			var buf bytes.Buffer
			if err := Render(&buf, p); err == nil {
				t.Fatal("Render succeeded, want an error")
			}
			if buf.Len() != 0 {
				t.Errorf("Render wrote %d bytes on error", buf.Len())
			}
		})
	}
}

func TestRenderNotFound(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := RenderNotFound(&buf); err != nil {
		t.Fatal(err)
	}
	if got := text(buf.String()); !strings.Contains(got, "Página não encontrada") || !strings.Contains(got, "expirou") {
		t.Errorf("not-found page text: %s", got)
	}
}
