package statement

import (
	"bytes"
	"errors"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"
)

func renderHTML(t *testing.T, doc Document) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, doc, FormatHTML); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.String()
}

// text is the page without tags and with entities decoded, close to what
// a reader sees.
func text(page string) string {
	noStyle := regexp.MustCompile(`(?s)<(script|style)>.*?</(script|style)>`).ReplaceAllString(page, "")
	noTags := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(noStyle, " ")
	return strings.Join(strings.Fields(html.UnescapeString(noTags)), " ")
}

func checkText(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

func checkNoText(t *testing.T, what, got string, notWant ...string) {
	t.Helper()
	for _, w := range notWant {
		if strings.Contains(got, w) {
			t.Errorf("%s has %q:\n%s", what, w, got)
		}
	}
}

// statementText is what both documents of the March statement say,
// beside its totals: the header, the parties, every line as a reader
// sees it (date, text, amount) and every group's and section's total.
var statementText = []string{
	"Imobiliária São Jorge Ltda", "CNPJ 12.345.678/0001-95", "Prestação de contas", "março de 2024",
	"Proprietário Ana Conceição Araújo", "CPF 529.982.247-25",
	"Empresa São Jorge Administração de Imóveis", "CNPJ 11.222.333/0001-81",
	"Período 01/03/2024 a 31/03/2024", "Fechada em 01/04/2024",
	"Saldo anterior R$ 500,00", "Saldo final R$ 454,70",
	"Contrato 1001", "Rua das Flores, 10, ap. 31 - Centro, São Paulo/SP", "Inquilino: Maria da Silva",
	"Recebido dos inquilinos 26/03/2024 Aluguel março/2024 (60%) R$ 1.200,00",
	"26/03/2024 Juros de mora (15 dias) R$ 7,05 Total recebido R$ 1.445,25",
	"Descontos 26/03/2024 Taxa de administração (10%) -R$ 120,00 18/03/2024 Reparo hidráulico no banheiro -R$ 350,00 Total de descontos -R$ 470,00",
	"Repasses ao proprietário 31/03/2024 Repasse (para PIX 529.982.247-25) -R$ 975,25 Total repassado -R$ 975,25 Resultado no mês R$ 0,00",
	"Aluguel garantido adiantado 15/03/2024 Aluguel garantido março/2024 R$ 1.800,00 Total adiantado R$ 1.800,00",
	"Aluguel garantido recuperado 20/03/2024 Recuperação do aluguel garantido de fevereiro/2024 -R$ 1.800,00",
	"Ajustes de meses anteriores 02/03/2024 Estorno de tarifa bancária (corrige fevereiro de 2024) -R$ 45,30 Total de ajustes -R$ 45,30",
	"15/03/2024 Repasse (para Banco 341 Itaú, agência 1234, conta 56789-0) -R$ 1.620,00",
	"Total repassado -R$ 1.620,00 Resultado no mês -R$ 45,30",
	"Resumo do mês",
	"2 lançamentos internos não são mostrados neste demonstrativo; somam -R$ 12,40 e não entram no saldo.",
}

func TestStatementHTML(t *testing.T) {
	t.Parallel()
	page := renderHTML(t, march())
	got := text(page)
	checkText(t, "statement page", got, statementText...)
	checkText(t, "statement page", got, marchTotals...)
	checkText(t, "statement page", got, "Demonstrativo emitido por Imobiliária São Jorge Ltda.")
	checkText(t, "statement page", page, `<html lang="pt-BR">`, `name="viewport" content="width=device-width, initial-scale=1"`,
		`<a class="pdf" href="?format=pdf">Baixar PDF</a>`, `id="totais"`, "@media print")
	// the summary's kinds in their order
	summary := got[strings.Index(got, "Resumo do mês"):]
	last := -1
	for _, w := range marchTotals {
		i := strings.Index(summary, w)
		if i < last {
			t.Errorf("summary: %q out of order", w)
		}
		last = i
	}
}

func TestStatementHTMLVariants(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		change  func(*OwnerStatement)
		want    []string
		notWant []string
	}{
		{
			name:    "the business is the company",
			change:  func(s *OwnerStatement) { s.Business = s.Company },
			notWant: []string{"Empresa"},
		},
		{
			name:    "no business",
			change:  func(s *OwnerStatement) { s.Business = Party{} },
			notWant: []string{"Empresa"},
		},
		{
			name:    "nothing hidden, not closed, owner without tax id",
			change:  func(s *OwnerStatement) { s.Hidden, s.ClosedAt, s.Owner.TaxID = Hidden{}, time.Time{}, "" },
			want:    []string{"Proprietário Ana Conceição Araújo Empresa"},
			notWant: []string{"lançamentos internos", "Fechada em", "CPF"},
		},
		{
			name:   "hidden in the balance",
			change: func(s *OwnerStatement) { s.Hidden.InBalance = true; s.Closing += s.Hidden.Amount },
			want:   []string{"Saldo final em 31/03/2024 R$ 442,30", "somam -R$ 12,40, já incluídos no saldo final."},
		},
		{
			name:    "no lines",
			change:  func(s *OwnerStatement) { s.Sections = nil; s.Closing = s.Opening },
			want:    []string{"Nenhum lançamento neste mês.", "Total recebido R$ 0,00", "Saldo final em 31/03/2024 R$ 500,00"},
			notWant: []string{"Contrato", "Resultado no mês"},
		},
		{
			name: "markup in the data is text",
			change: func(s *OwnerStatement) {
				s.Owner.Name = `<script>alert("x")</script>`
				s.Sections[0].Lines[0].Description = `<img src=x onerror=alert(1)>`
			},
			want: []string{`<script>alert("x")</script>`, `<img src=x onerror=alert(1)>`},
		},
	} {
		s := march()
		c.change(&s)
		page := renderHTML(t, s)
		got := text(page)
		checkText(t, c.name, got, c.want...)
		checkNoText(t, c.name, got, c.notWant...)
		if strings.Contains(page, "<script>") || strings.Contains(page, "<img") {
			t.Errorf("%s: the data's markup reached the page as markup", c.name)
		}
	}
}

// incomePayersText is what both documents of the 2024 income report
// say of where the owner declares each rent: the company tenant as the
// paying source (fonte pagadora) with its CNPJ and the IR it withheld,
// the rent from a person for the carnê-leão.
var incomePayersText = []string{
	"Para a declaração",
	"Rendimentos recebidos de pessoa jurídica João Pereira Comércio Ltda (CNPJ 11.222.333/0001-81) R$ 60.000,00 IR retido pela fonte R$ 5.890,00",
	"Rendimentos recebidos de pessoas físicas (carnê-leão) R$ 14.400,00 Taxas de administração R$ 1.440,00",
}

// incomeText is what both documents of the 2024 income report say,
// beside the year's totals.
var incomeText = []string{
	"Imobiliária São Jorge Ltda", "CNPJ 12.345.678/0001-95", "Informe de rendimentos", "Ano-calendário 2024",
	"Beneficiário Ana Conceição Araújo", "CPF 529.982.247-25",
	"Administradora (emitente) Imobiliária São Jorge Ltda", "Emitido em 10/02/2025",
	"Contrato 1001", "Inquilino Maria da Silva", "CPF 123.456.789-09",
	"Imóvel Rua das Flores, 10, ap. 31 - Centro, São Paulo/SP", "Vigência 01/02/2023 a 31/01/2026",
	"Janeiro R$ 1.200,00 R$ 120,00 R$ 0,00 R$ 1.080,00",
	"Total do ano R$ 14.400,00 R$ 1.440,00 R$ 0,00 R$ 12.960,00",
	"Declaração Aluguel recebido de pessoa física: carnê-leão",
	"Contrato 1002", "Inquilino João Pereira Comércio Ltda", "CNPJ 11.222.333/0001-81",
	"Fonte pagadora João Pereira Comércio Ltda (CNPJ 11.222.333/0001-81), que reteve R$ 5.890,00 de IR no ano",
	"Vigência desde 01/03/2024 (em vigor)",
	"Fevereiro R$ 0,00 R$ 0,00 R$ 0,00 R$ 0,00 Março R$ 6.000,00 R$ 600,00 R$ 589,00 R$ 4.811,00",
	"Total do ano R$ 60.000,00 R$ 6.000,00 R$ 5.890,00 R$ 48.110,00",
	"Totais do ano",
	"Dezembro R$ 7.200,00 R$ 720,00 R$ 589,00 R$ 5.891,00",
}

func TestIncomeHTML(t *testing.T) {
	t.Parallel()
	page := renderHTML(t, year2024())
	got := text(page)
	checkText(t, "income page", got, incomeText...)
	checkText(t, "income page", got, yearTotals...)
	checkText(t, "income page", page, `data-label="IR retido"`, `<a class="pdf" href="?format=pdf">`)

	checkText(t, "income page", got, "Aluguéis recebidos por intermédio de Imobiliária São Jorge Ltda (CNPJ 12.345.678/0001-95) "+
		"no ano-calendário 2024")
	checkNoText(t, "income page of one source", got, "Fontes pagadoras", "Fonte pagadora:", "Total por intermédio de",
		"Fonte pagadora Imobiliária")
	checkText(t, "income page", got, incomePayersText...)

	one := year2024()
	one.Contracts = one.Contracts[:1]
	one.Contracts[0].Source = Party{Name: "São Jorge Administração de Imóveis", TaxID: "11222333000181"}
	got = text(renderHTML(t, one))
	checkText(t, "income page of one contract", got, "Administradora (emitente) São Jorge Administração de Imóveis CNPJ 11.222.333/0001-81",
		"Rendimento líquido R$ 12.960,00",
		"Aluguéis recebidos por intermédio de São Jorge Administração de Imóveis (CNPJ 11.222.333/0001-81) no ano-calendário 2024")
	if n := strings.Count(got, "Janeiro"); n != 1 {
		t.Errorf("one contract: January shown %d times, want once (no month-by-month totals)", n)
	}
}

// sourcesText is what both documents of twoSources say: each business
// as the paying source of its contracts, with its CNPJ and its total.
var sourcesText = []string{
	"Administradoras (emitentes) São Jorge Administração de Imóveis CNPJ 11.222.333/0001-81 São Jorge Vendas CNPJ 60.746.948/0001-12",
	"Administradora: São Jorge Administração de Imóveis CNPJ 11.222.333/0001-81 Contrato 1001",
	"Administradora: São Jorge Vendas CNPJ 60.746.948/0001-12 Contrato 1002",
	"Aluguéis recebidos por intermédio de São Jorge Administração de Imóveis (CNPJ 11.222.333/0001-81) e São Jorge Vendas " +
		"(CNPJ 60.746.948/0001-12) no ano-calendário 2024",
	"Rendimento líquido R$ 61.070,00",
}

// TestIncomeHTMLBySource: a report of contracts received through two
// businesses shows one section per business, headed by its name and
// CNPJ, with its contracts and their total, and names both as the paying
// sources; the year's totals are of both.
func TestIncomeHTMLBySource(t *testing.T) {
	t.Parallel()
	got := text(renderHTML(t, twoSources()))
	checkText(t, "income page of two sources", got, sourcesText...)
	checkText(t, "income page of two sources", got,
		"Total do ano R$ 14.400,00 R$ 1.440,00 R$ 0,00 R$ 12.960,00 Aluguel bruto Taxa de administração IR retido Líquido "+
			"Total por intermédio de São Jorge Administração de Imóveis R$ 14.400,00 R$ 1.440,00 R$ 0,00 R$ 12.960,00",
		"Total por intermédio de São Jorge Vendas R$ 60.000,00 R$ 6.000,00 R$ 5.890,00 R$ 48.110,00")
}

// TestRenderInvalidWritesNothing: a document that does not add up is an
// error in both formats, and nothing is written.
func TestRenderInvalidWritesNothing(t *testing.T) {
	t.Parallel()
	bad := march()
	bad.Closing = 0
	badReport := year2024()
	badReport.Year = 0
	for _, doc := range []Document{bad, badReport} {
		for _, f := range []Format{FormatHTML, FormatPDF} {
			var buf bytes.Buffer
			err := Render(&buf, doc, f)
			if !errors.Is(err, errInvalid) || buf.Len() != 0 {
				t.Errorf("%T as %s: error %v, %d bytes written", doc, f, err, buf.Len())
			}
		}
	}
	if err := Render(&bytes.Buffer{}, march(), "xlsx"); !errors.Is(err, errFormat) {
		t.Errorf("format xlsx: %v", err)
	}
}
