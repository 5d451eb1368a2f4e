package statement

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"codeberg.org/go-pdf/fpdf"
)

func renderPDF(t *testing.T, doc Document) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, doc, FormatPDF); err != nil {
		t.Fatalf("Render PDF: %v", err)
	}
	return buf.Bytes()
}

// TestPDFReader: the test's reader gets back the text fpdf was given,
// escapes and accents included, from compressed and uncompressed
// streams, page by page; and it refuses a file whose cross-reference
// offsets are wrong.
func TestPDFReader(t *testing.T) {
	t.Parallel()
	for _, compress := range []bool{true, false} {
		f := fpdf.New("P", "mm", "A4", "")
		f.SetCompression(compress)
		f.SetFont("Helvetica", "", 10)
		f.AddPage()
		f.CellFormat(0, 5, encode(`(parênteses) \ barra, ação`), "", 1, "L", false, 0, "")
		f.CellFormat(0, 5, encode("segunda"), "", 1, "L", false, 0, "")
		f.AddPage()
		f.CellFormat(0, 5, encode("página 2 — fim"), "", 1, "L", false, 0, "")
		var buf bytes.Buffer
		if err := f.Output(&buf); err != nil {
			t.Fatal(err)
		}
		got := readPDF(t, buf.Bytes()).pageTexts(t)
		want := []string{`(parênteses) \ barra, ação segunda`, "página 2 — fim"}
		if !slices.Equal(got, want) {
			t.Errorf("compress %v: pages %q, want %q", compress, got, want)
		}
		entry := regexp.MustCompile(`\n(\d{10}) 00000 n`).FindSubmatchIndex(buf.Bytes())
		broken := bytes.Clone(buf.Bytes())
		broken[entry[3]-1]++ // the first object's offset, one byte off
		if _, err := parsePDF(broken); err == nil {
			t.Errorf("compress %v: a wrong xref offset was read without error", compress)
		}
	}
}

func TestStatementPDF(t *testing.T) {
	t.Parallel()
	data := renderPDF(t, march())
	f := readPDF(t, data)
	pages := f.pageTexts(t)
	all := strings.Join(pages, " ")
	checkText(t, "statement PDF", all, statementText...)
	checkText(t, "statement PDF", all, marchTotals...)
	last := pages[len(pages)-1]
	checkText(t, "statement PDF's last page", last, marchTotals...)
	checkText(t, "statement PDF's last page", last, "Demonstrativo emitido por Imobiliária São Jorge Ltda.")
	for i, p := range pages {
		checkText(t, fmt.Sprintf("statement PDF page %d", i+1), p,
			fmt.Sprintf("Imobiliária São Jorge Ltda · Prestação de contas de março de 2024 · Ana Conceição Araújo página %d de %d", i+1, len(pages)))
	}
	if got := f.info(t, "/Title"); got != "Prestação de contas · março de 2024 · Ana Conceição Araújo" {
		t.Errorf("title %q", got)
	}
	if got := f.info(t, "/Author"); got != "Imobiliária São Jorge Ltda" {
		t.Errorf("author %q", got)
	}
	if got := f.info(t, "/CreationDate"); got != "D:20240401000000" {
		t.Errorf("creation date %q, want the closing day", got)
	}
	for _, want := range []string{"/MediaBox [0 0 595.28 841.89]", "/BaseFont /Helvetica", "/Encoding /WinAnsiEncoding", "/Filter /FlateDecode"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the PDF lacks %s (A4, the standard Helvetica in Windows-1252, compressed)", want)
		}
	}
	// the same statement makes the same bytes
	if again := renderPDF(t, march()); !bytes.Equal(again, data) {
		t.Error("two PDFs of the same statement differ")
	}
}

// TestStatementPDFPaginates: 500 lines take several pages; each line is
// on one of them, once and in order; a page that continues the contract
// heads it again with its columns; the summary is whole on the last page.
func TestStatementPDFPaginates(t *testing.T) {
	t.Parallel()
	const n = 500
	pages := readPDF(t, renderPDF(t, longStatement(n))).pageTexts(t)
	if len(pages) < 2 {
		t.Fatalf("%d lines on %d page", n, len(pages))
	}
	all := strings.Join(pages, " ")
	next := 0
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("Lançamento nº %04d R$ 10,00", i)
		if c := strings.Count(all, line); c != 1 {
			t.Fatalf("%q appears %d times", line, c)
		}
		at := strings.Index(all, line)
		if at < next {
			t.Fatalf("%q out of order", line)
		}
		next = at
	}
	for i, p := range pages[1:] {
		if !strings.HasPrefix(p, "Contrato 2001 (continuação) Data Descrição Valor") {
			t.Errorf("page %d starts %.60q, not with the contract continued and its columns", i+2, p)
		}
	}
	last := pages[len(pages)-1]
	checkText(t, "last page", last, "Total recebido R$ 5.000,00", "Total repassado -R$ 5.000,00",
		"Resumo do mês Saldo anterior R$ 0,00", "Saldo final em 31/03/2024 R$ 0,00",
		fmt.Sprintf("página %d de %d", len(pages), len(pages)))
	for i, p := range pages[:len(pages)-1] {
		checkNoText(t, fmt.Sprintf("page %d", i+1), p, "Resumo do mês", "Saldo final em")
	}
	t.Logf("%d lines: %d pages", n, len(pages))
}

func TestIncomePDF(t *testing.T) {
	t.Parallel()
	f := readPDF(t, renderPDF(t, year2024()))
	pages := f.pageTexts(t)
	all := strings.Join(pages, " ")
	checkText(t, "income PDF", all, incomeText...)
	checkText(t, "income PDF's last page", pages[len(pages)-1], yearTotals...)
	checkText(t, "income PDF's last page", pages[len(pages)-1], incomePayersText...)
	checkNoText(t, "income PDF", all, "Fonte pagadora Imobiliária")
	if got := f.info(t, "/Title"); got != "Informe de rendimentos · Ano-calendário 2024 · Ana Conceição Araújo" {
		t.Errorf("title %q", got)
	}
}

// TestIncomePDFBySource: the PDF of a report of two businesses says what
// its page says of them: each business heading its contracts, with its
// CNPJ and its total, both named as the paying sources.
func TestIncomePDFBySource(t *testing.T) {
	t.Parallel()
	all := strings.Join(readPDF(t, renderPDF(t, twoSources())).pageTexts(t), " ")
	checkText(t, "income PDF of two sources", all, "Administradoras (emitentes) São Jorge Administração de Imóveis (CNPJ 11.222.333/0001-81) "+
		"São Jorge Vendas (CNPJ 60.746.948/0001-12)",
		"Administradora: São Jorge Administração de Imóveis CNPJ 11.222.333/0001-81 Contrato 1001",
		"Administradora: São Jorge Vendas CNPJ 60.746.948/0001-12 Contrato 1002",
		"Total da administradora R$ 14.400,00 R$ 1.440,00 R$ 0,00 R$ 12.960,00",
		"Total da administradora R$ 60.000,00 R$ 6.000,00 R$ 5.890,00 R$ 48.110,00",
		"Aluguéis recebidos por intermédio de São Jorge Administração de Imóveis (CNPJ 11.222.333/0001-81) e São Jorge Vendas "+
			"(CNPJ 60.746.948/0001-12) no ano-calendário 2024")
}

// TestIncomePDFKeepsContractsWhole: with more contracts than a page
// holds, each contract's table is on one page, from its title to its
// year's total.
func TestIncomePDFKeepsContractsWhole(t *testing.T) {
	t.Parallel()
	r := year2024()
	for i := 3; i <= 6; i++ {
		c := r.Contracts[1]
		c.Title = fmt.Sprintf("Contrato 100%d", i)
		r.Contracts = append(r.Contracts, c)
	}
	pages := readPDF(t, renderPDF(t, r)).pageTexts(t)
	if len(pages) < 3 {
		t.Fatalf("six contracts on %d pages", len(pages))
	}
	seen := 0
	for i, p := range pages {
		for _, c := range r.Contracts {
			start := strings.Index(p, c.Title+" Inquilino")
			if start < 0 {
				continue
			}
			seen++
			if !strings.Contains(p[start:], "Dezembro") || !strings.Contains(p[start:], "Total do ano") {
				t.Errorf("page %d: %s starts here and ends on another page", i+1, c.Title)
			}
		}
	}
	if seen != len(r.Contracts) {
		t.Errorf("%d contracts found, want %d", seen, len(r.Contracts))
	}
	checkText(t, "last page", pages[len(pages)-1], "Totais do ano", "Rendimento líquido")
}

// moneyRe finds the amounts a document writes.
var moneyRe = regexp.MustCompile(`-?R\$ \d{1,3}(?:\.\d{3})*,\d{2}`)

// TestPDFSameNumbersAsPage: the PDF writes every amount the page writes
// and no other, for each document.
func TestPDFSameNumbersAsPage(t *testing.T) {
	t.Parallel()
	bigger := longStatement(60)
	bigger.Sections = append(bigger.Sections, march().Sections...)
	bigger.Closing = bigger.Opening - 4530
	for name, doc := range map[string]Document{"march": march(), "long": bigger, "year": year2024(), "two sources": twoSources()} {
		page := amounts(text(renderHTML(t, doc)))
		pdf := amounts(strings.Join(readPDF(t, renderPDF(t, doc)).pageTexts(t), " "))
		if !slices.Equal(page, pdf) {
			t.Errorf("%s: the page's amounts\n%v\nthe PDF's\n%v", name, page, pdf)
		}
		if len(page) < 10 {
			t.Errorf("%s: only %d amounts found", name, len(page))
		}
	}
}

// amounts are the distinct amounts in text, sorted.
func amounts(text string) []string {
	found := moneyRe.FindAllString(text, -1)
	slices.Sort(found)
	return slices.Compact(found)
}

// BenchmarkStatementPDF draws the PDF of a statement of 500 lines.
func BenchmarkStatementPDF(b *testing.B) {
	s := longStatement(500)
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := RenderStatementPDF(&buf, s); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "bytes/pdf")
}

// BenchmarkStatementHTML renders the page of the same statement.
func BenchmarkStatementHTML(b *testing.B) {
	s := longStatement(500)
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := RenderStatementHTML(&buf, s); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
}
