package statement

import (
	"fmt"
	"io"

	"github.com/propfin/propfin/api/ptbr"
)

// The statement's table: date, description, amount.
const (
	dateWidth   = 22.0
	amountWidth = 34.0
	descWidth   = contentWidth - dateWidth - amountWidth
)

// RenderStatementPDF writes the PDF of an owner statement: the content of
// its page, on A4 pages with the company, owner and month in every
// page's footer. A section that continues on another page is headed
// again there; the month's summary is kept whole, on the last page. A
// statement that does not add up ([OwnerStatement.Totals]) is an error
// and nothing is written.
func RenderStatementPDF(w io.Writer, s OwnerStatement) error {
	v, err := newStatementView(s)
	if err != nil {
		return fmt.Errorf("rendering statement PDF: %w", err)
	}
	footer := s.Company.Name + " · " + statementTitle + " de " + v.Period + " · " + s.Owner.Name
	d := newPDF(statementTitle+" · "+v.Period+" · "+s.Owner.Name, s.Company.Name, s.ClosedAt, footer)
	d.header(s.Company, statementTitle, v.Period)
	business := ""
	if v.ShowBusiness {
		business = partyText(s.Business)
	}
	d.fields([][2]string{{"Proprietário", partyText(s.Owner)}, {"Empresa", business},
		{"Período", v.Range}, {"Fechada em", ptbr.Date(s.ClosedAt)}})
	d.space(2)
	d.amountRow("Saldo anterior", s.Opening, "")
	d.amountRow("Saldo final", s.Closing, "B")
	for _, sec := range v.T.Sections {
		d.statementSection(sec)
	}
	if len(v.T.Sections) == 0 {
		d.space(4)
		d.row([]column{{contentWidth, "Nenhum lançamento neste mês.", "L"}}, nil)
	}
	d.statementSummary(v)
	d.space(4)
	d.font("", 8)
	d.row([]column{{contentWidth, v.Head.Fine, "L"}}, nil)
	if err := d.output(w); err != nil {
		return fmt.Errorf("rendering statement PDF: %w", err)
	}
	return nil
}

// amountRow writes a label and an amount across the content, in style.
func (d *pdfDoc) amountRow(label string, amount Cents, style string) {
	d.font(style, bodySize)
	d.row([]column{{contentWidth - amountWidth, label, "L"}, {amountWidth, ptbr.Cents(amount), "R"}}, nil)
	d.font("", bodySize)
}

// statementSection writes a contract's lines, by kind, with their totals.
func (d *pdfDoc) statementSection(sec SectionTotals) {
	d.space(5)
	d.keep(6*lineHeight, nil) // the heading with its first lines
	d.font("B", 11)
	d.row([]column{{contentWidth, sec.Title, "L"}}, nil)
	d.font("", bodySize)
	if sec.Address != "" {
		d.row([]column{{contentWidth, sec.Address, "L"}}, nil)
	}
	if sec.Tenant != "" {
		d.row([]column{{contentWidth, "Inquilino: " + sec.Tenant, "L"}}, nil)
	}
	tableHead := func() {
		d.font("B", 8)
		d.f.SetTextColor(74, 86, 102)
		d.row([]column{{dateWidth, "Data", "L"}, {descWidth, "Descrição", "L"}, {amountWidth, "Valor", "R"}}, nil)
		d.f.SetTextColor(0, 0, 0)
		d.rule(0.3)
	}
	continued := func() {
		d.font("B", bodySize)
		d.row([]column{{contentWidth, sec.Title + " (continuação)", "L"}}, nil)
		tableHead()
	}
	tableHead()
	for _, g := range sec.Groups {
		d.keep(2*lineHeight, continued)
		d.font("B", bodySize)
		d.space(1)
		d.row([]column{{contentWidth, g.Label, "L"}}, continued)
		d.font("", bodySize)
		for _, l := range g.Lines {
			d.row([]column{{dateWidth, ptbr.Date(l.Date), "L"}, {descWidth, lineText(l), "L"},
				{amountWidth, ptbr.Cents(l.Amount), "R"}}, continued)
			d.f.SetDrawColor(220, 225, 232)
			d.rule(0.1)
			d.f.SetDrawColor(0, 0, 0)
		}
		d.font("I", bodySize)
		d.row([]column{{dateWidth + descWidth, g.Total.Label, "L"}, {amountWidth, ptbr.Cents(g.Total.Amount), "R"}}, continued)
	}
	d.rule(0.3)
	d.font("B", bodySize)
	d.row([]column{{dateWidth + descWidth, "Resultado no mês", "L"}, {amountWidth, ptbr.Cents(sec.Net), "R"}}, continued)
	d.font("", bodySize)
}

// statementSummary writes the month's summary, whole on one page.
func (d *pdfDoc) statementSummary(v statementView) {
	d.font("", bodySize)
	hidden := d.split(v.HiddenText, contentWidth)
	h := 8 + float64(len(v.T.Kinds)+2)*lineHeight + 3
	if v.HiddenText != "" {
		h += 2 + float64(len(hidden))*lineHeight
	}
	d.space(6)
	d.keep(h, nil)
	d.font("B", 12)
	d.cell(contentWidth, 7, "Resumo do mês", "L")
	d.f.Ln(8)
	d.amountRow("Saldo anterior", v.Opening, "")
	for _, k := range v.T.Kinds {
		d.amountRow(k.Label, k.Amount, "")
	}
	d.space(1)
	d.rule(0.5)
	d.space(1)
	d.amountRow("Saldo final em "+v.LastDay, v.Closing, "B")
	if v.HiddenText != "" {
		d.space(2)
		d.row([]column{{contentWidth, v.HiddenText, "L"}}, nil)
	}
}
