package statement

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/unicode/norm"
)

// The PDF's page: A4 portrait, in millimetres.
const (
	pageMargin   = 15.0
	footerSpace  = 14.0 // below the last line of a page: the footer's band
	contentWidth = 210 - 2*pageMargin
	lineHeight   = 4.6
	bodySize     = 9.0
	fontFamily   = "Helvetica"
	pageAlias    = "{nb}"
)

// pdfDoc is a PDF being drawn: fpdf with its standard Helvetica, whose
// encoding is Windows-1252, and the text turned into it.
type pdfDoc struct {
	f *fpdf.Fpdf
}

// newPDF starts an A4 document with its metadata (UTF-8) and a footer on
// every page: footer, then "página N de M".
func newPDF(title, author string, created time.Time, footer string) *pdfDoc {
	f := fpdf.New("P", "mm", "A4", "")
	d := &pdfDoc{f: f}
	f.SetMargins(pageMargin, pageMargin, pageMargin)
	f.SetAutoPageBreak(true, footerSpace) // a safety net: rows break pages themselves (ensure)
	f.SetTitle(title, true)
	f.SetAuthor(author, true)
	f.SetCreator("propfin", true)
	f.SetProducer("propfin", true)
	f.SetLang("pt-BR")
	f.SetCatalogSort(true)
	if !created.IsZero() {
		f.SetCreationDate(created)
		f.SetModificationDate(created)
	}
	f.AliasNbPages(pageAlias)
	f.SetFooterFunc(func() {
		f.SetY(-footerSpace + 4)
		d.font("", 7.5)
		f.SetTextColor(90, 100, 115)
		d.cell(contentWidth-30, 4, d.fit(footer, contentWidth-32), "L")
		d.cell(30, 4, fmt.Sprintf("página %d de %s", f.PageNo(), pageAlias), "R")
		f.SetTextColor(0, 0, 0)
	})
	f.AddPage()
	d.font("", bodySize)
	return d
}

// encode turns UTF-8 text into Windows-1252, the encoding of the standard
// fonts: every letter of Portuguese is there. A character that is not is
// replaced by its letter without the accent when it has one (ő is o),
// else by "?".
func encode(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if c, ok := charmap.Windows1252.EncodeRune(r); ok {
			b = append(b, c)
			continue
		}
		c, ok := charmap.Windows1252.EncodeRune([]rune(norm.NFD.String(string(r)))[0])
		if !ok || c >= 0x80 {
			c = '?'
		}
		b = append(b, c)
	}
	return string(b)
}

func (d *pdfDoc) font(style string, size float64) { d.f.SetFont(fontFamily, style, size) }

// cell writes one line of text in a cell of width w, aligned "L", "R" or
// "C", and moves right.
func (d *pdfDoc) cell(w, h float64, text, align string) {
	d.f.CellFormat(w, h, encode(text), "", 0, align, false, 0, "")
}

// fit shortens text with "…" until it fits width w in the current font.
func (d *pdfDoc) fit(text string, w float64) string {
	if d.f.GetStringWidth(encode(text)) <= w {
		return text
	}
	r := []rune(text)
	for len(r) > 0 && d.f.GetStringWidth(encode(string(r)+"…")) > w {
		r = r[:len(r)-1]
	}
	return strings.TrimSpace(string(r)) + "…"
}

// split breaks text into the lines that fit width w in the current font.
func (d *pdfDoc) split(text string, w float64) []string {
	if text == "" {
		return []string{""}
	}
	var lines []string
	for _, l := range d.f.SplitLines([]byte(encode(text)), w) {
		lines = append(lines, string(l))
	}
	return lines
}

// column is one cell of a table row.
type column struct {
	width float64
	text  string
	align string // "L" or "R"
}

// row writes cells side by side, wrapping each to its width, and moves to
// the line below the tallest; a row that does not fit in what is left of
// the page starts a new one first, and onBreak draws what heads a
// continued table. It returns the row's height.
func (d *pdfDoc) row(cols []column, onBreak func()) float64 {
	wrapped := make([][]string, len(cols))
	n := 1
	for i, c := range cols {
		wrapped[i] = d.split(c.text, c.width)
		n = max(n, len(wrapped[i]))
	}
	h := float64(n) * lineHeight
	d.keep(h, onBreak)
	x, y := d.f.GetXY()
	for i, c := range cols {
		for j, l := range wrapped[i] {
			d.f.SetXY(x, y+float64(j)*lineHeight)
			d.f.CellFormat(c.width, lineHeight, l, "", 0, c.align, false, 0, "")
		}
		x += c.width
	}
	d.f.SetXY(pageMargin, y+h)
	return h
}

// keep starts a new page when h does not fit in what is left of this
// one, and then calls onBreak (when not nil) in the font of the moment,
// restored after it.
func (d *pdfDoc) keep(h float64, onBreak func()) {
	if !d.ensure(h) || onBreak == nil {
		return
	}
	s := d.f.GetFontStyle()
	size, _ := d.f.GetFontSize()
	onBreak()
	d.f.SetFont(fontFamily, s, size)
}

// ensure starts a new page when h does not fit in what is left of this
// one, and reports whether it did.
func (d *pdfDoc) ensure(h float64) bool {
	_, pageH := d.f.GetPageSize()
	if d.f.GetY()+h <= pageH-footerSpace {
		return false
	}
	s := d.f.GetFontStyle()
	size, _ := d.f.GetFontSize()
	d.f.AddPage()
	d.f.SetFont(fontFamily, s, size)
	return true
}

// rule draws a horizontal line across the content at the current height.
func (d *pdfDoc) rule(weight float64) {
	y := d.f.GetY()
	d.f.SetLineWidth(weight)
	d.f.Line(pageMargin, y, pageMargin+contentWidth, y)
}

// space moves down by h.
func (d *pdfDoc) space(h float64) { d.f.SetY(d.f.GetY() + h) }

// header writes the top of the first page: the company, the title, the
// period.
func (d *pdfDoc) header(company Party, title, periodText string) {
	d.font("B", 13)
	d.row([]column{{contentWidth, company.Name, "L"}}, nil)
	if t := partyTaxID(company); t != "" {
		d.font("", bodySize)
		d.row([]column{{contentWidth, t, "L"}}, nil)
	}
	d.space(3)
	d.font("B", 16)
	d.f.SetX(pageMargin)
	d.cell(contentWidth, 8, title, "L")
	d.f.Ln(8)
	d.font("", 12)
	d.cell(contentWidth, 6, periodText, "L")
	d.f.Ln(7)
	d.rule(0.3)
	d.space(3)
	d.font("", bodySize)
}

// fields writes label and value pairs, the value wrapped beside its label.
func (d *pdfDoc) fields(pairs [][2]string) {
	for _, p := range pairs {
		if p[1] == "" {
			continue
		}
		d.row([]column{{35, p[0], "L"}, {contentWidth - 35, p[1], "L"}}, nil)
	}
}

// partyText is a party's name and tax id on one line.
func partyText(p Party) string {
	if t := partyTaxID(p); t != "" {
		return strings.TrimSpace(p.Name) + " (" + t + ")"
	}
	return strings.TrimSpace(p.Name)
}

// output writes the document, or the first error fpdf met while drawing
// it; nothing is written on error.
func (d *pdfDoc) output(w io.Writer) error {
	var buf bytes.Buffer
	if err := d.f.Output(&buf); err != nil {
		return fmt.Errorf("making PDF: %w", err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("writing PDF: %w", err)
	}
	return nil
}
