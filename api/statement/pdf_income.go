package statement

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/propfin/propfin/api/ptbr"
)

// The income report's table: the month and four amounts.
const (
	monthWidth  = 32.0
	incomeWidth = (contentWidth - monthWidth) / 4
)

// RenderIncomePDF writes the PDF of an income report: the content of its
// page on A4 pages, each contract kept whole on a page when it fits one,
// the year's totals last. An invalid report ([IncomeReport.Totals]) is an
// error and nothing is written.
func RenderIncomePDF(w io.Writer, r IncomeReport) error {
	v, err := newIncomeView(r)
	if err != nil {
		return fmt.Errorf("rendering income report PDF: %w", err)
	}
	footer := r.Company.Name + " · " + incomeTitle + " " + strconv.Itoa(r.Year) + " · " + r.Owner.Name
	d := newPDF(incomeTitle+" · "+v.Period+" · "+r.Owner.Name, r.Company.Name, r.IssuedAt, footer)
	d.header(r.Company, incomeTitle, v.Period)
	issuers := "Administradora (emitente)"
	if v.BySource {
		issuers = "Administradoras (emitentes)"
	}
	pairs := [][2]string{{"Beneficiário", partyText(r.Owner)}}
	for i, p := range v.Issuers {
		if i > 0 {
			issuers = ""
		}
		pairs = append(pairs, [2]string{issuers, partyText(p)})
	}
	d.fields(append(pairs, [2]string{"Emitido em", ptbr.Date(r.IssuedAt)}))
	if r.Notice != "" {
		d.notice(r.Notice)
	}
	for _, src := range v.T.Sources {
		if v.BySource {
			d.incomeSourceHead(src.Source)
		}
		for _, c := range src.Contracts {
			d.incomeContract(c)
		}
		if v.BySource {
			d.incomeSourceTotal(src)
		}
	}
	if len(v.T.Contracts) == 0 {
		d.space(4)
		d.row([]column{{contentWidth, "Nenhum contrato com rendimentos neste ano.", "L"}}, nil)
	}
	d.incomeTotals(v)
	d.space(4)
	d.font("", 8)
	d.row([]column{{contentWidth, v.Head.Fine, "L"}}, nil)
	if err := d.output(w); err != nil {
		return fmt.Errorf("rendering income report PDF: %w", err)
	}
	return nil
}

// incomeSourceHead heads an administrator's contracts: its name and tax
// id, kept on the page of its first contract.
func (d *pdfDoc) incomeSourceHead(p Party) {
	d.space(7)
	d.keep(3*lineHeight+5*lineHeight+16*lineHeight, nil)
	d.rule(0.5)
	d.space(1)
	d.font("B", 12)
	d.row([]column{{contentWidth, "Administradora: " + strings.TrimSpace(p.Name), "L"}}, nil)
	d.font("", bodySize)
	if t := partyTaxID(p); t != "" {
		d.row([]column{{contentWidth, t, "L"}}, nil)
	}
}

// incomeSourceTotal writes what an administrator's contracts add up to.
func (d *pdfDoc) incomeSourceTotal(src IncomeSourceTotals) {
	d.space(3)
	d.keep(4*lineHeight, nil)
	d.monthHead("")
	d.font("B", bodySize)
	d.row(monthColumns("Total da administradora", src.Year), nil)
	d.font("", bodySize)
}

// incomeContract writes a contract with its twelve months and year.
func (d *pdfDoc) incomeContract(c IncomeContractTotals) {
	d.space(5)
	d.keep(5*lineHeight+16*lineHeight, nil)
	d.font("B", 11)
	d.row([]column{{contentWidth, c.Title, "L"}}, nil)
	d.font("", bodySize)
	d.fields([][2]string{{"Inquilino", partyText(c.Tenant)}, c.Declaration(), {"Imóvel", c.Address},
		{"Vigência", period(c.Start, c.End)}})
	d.space(1)
	d.monthTable(c.Months, &c.Year, "Total do ano")
}

// monthTable writes twelve months, and a total row when total is given.
func (d *pdfDoc) monthTable(months [12]IncomeMonth, total *IncomeMonth, totalLabel string) {
	tableHead := func() { d.monthHead("Mês") }
	tableHead()
	d.font("", bodySize)
	for i, m := range months {
		d.row(monthColumns(monthTitle(i), m), tableHead)
	}
	if total != nil {
		d.rule(0.3)
		d.font("B", bodySize)
		d.row(monthColumns(totalLabel, *total), tableHead)
		d.font("", bodySize)
	}
}

// monthHead writes the head of a table of months, first names its first
// column.
func (d *pdfDoc) monthHead(first string) {
	d.font("B", 8)
	d.f.SetTextColor(74, 86, 102)
	d.row([]column{{monthWidth, first, "L"}, {incomeWidth, "Aluguel bruto", "R"}, {incomeWidth, "Taxa de administração", "R"},
		{incomeWidth, "IR retido", "R"}, {incomeWidth, "Líquido", "R"}}, nil)
	d.f.SetTextColor(0, 0, 0)
	d.rule(0.3)
}

func monthColumns(label string, m IncomeMonth) []column {
	return []column{{monthWidth, label, "L"}, {incomeWidth, ptbr.Cents(m.Gross), "R"},
		{incomeWidth, ptbr.Cents(m.AdminFee), "R"}, {incomeWidth, ptbr.Cents(m.Withheld), "R"},
		{incomeWidth, ptbr.Cents(m.Net()), "R"}}
}

// incomeTotals writes the year's totals (month by month when there is
// more than one contract), kept whole on one page.
func (d *pdfDoc) incomeTotals(v incomeView) {
	h := 8 + 5*lineHeight + float64(3+2*len(v.T.Payers)+3)*lineHeight
	if v.ByMonth {
		h += 14 * lineHeight
	}
	d.space(6)
	d.keep(h, nil)
	d.font("B", 12)
	d.cell(contentWidth, 7, "Totais do ano", "L")
	d.f.Ln(8)
	if v.ByMonth {
		d.monthTable(v.T.Months, nil, "")
		d.space(3)
	}
	d.amountRow("Aluguéis brutos", v.T.Year.Gross, "")
	d.amountRow("Taxas de administração", v.T.Year.AdminFee, "")
	d.amountRow("IR retido", v.T.Year.Withheld, "")
	d.space(1)
	d.rule(0.5)
	d.space(1)
	d.amountRow("Rendimento líquido", v.T.Year.Net(), "B")
	d.incomeDeclaration(v)
}

// incomeDeclaration writes where the owner declares the year's rent: each
// company tenant as the paying source, with the IR it withheld; the rent
// from persons for the carnê-leão, with the administration fees taken
// from it.
func (d *pdfDoc) incomeDeclaration(v incomeView) {
	d.space(4)
	d.font("B", 11)
	d.row([]column{{contentWidth, "Para a declaração", "L"}}, nil)
	d.font("", bodySize)
	for _, p := range v.T.Payers {
		d.amountRow("Rendimentos recebidos de pessoa jurídica "+partyText(p.Payer), p.Year.Gross, "")
		d.amountRow("IR retido pela fonte", p.Year.Withheld, "")
	}
	if v.HasIndividuals() {
		d.amountRow("Rendimentos recebidos de pessoas físicas (carnê-leão)", v.T.Individuals.Gross, "")
		d.amountRow("Taxas de administração", v.T.Individuals.AdminFee, "")
	}
	if v.HasUnknown() {
		d.amountRow("Rendimentos de inquilinos sem CPF ou CNPJ no cadastro", v.T.Unknown.Gross, "")
	}
}

// notice writes a notice above the report's contracts, in bold, wrapped
// to the page's width.
func (d *pdfDoc) notice(text string) {
	d.space(4)
	d.font("B", bodySize)
	d.row([]column{{contentWidth, text, "L"}}, nil)
	d.font("", bodySize)
}
