package statement

import (
	"testing"

	"github.com/propfin/propfin/api/statement/pdftext"
)

// The tests read the PDFs back with package pdftext; these helpers fail
// the test on anything it cannot read.

// pdfFile is a read PDF.
type pdfFile struct{ *pdftext.File }

// readPDF parses data, failing the test on anything it cannot read.
func readPDF(t *testing.T, data []byte) pdfFile {
	t.Helper()
	f, err := pdftext.Parse(data)
	if err != nil {
		t.Fatalf("reading the PDF: %v", err)
	}
	return pdfFile{f}
}

// parsePDF is pdftext.Parse.
func parsePDF(data []byte) (*pdftext.File, error) { return pdftext.Parse(data) }

// pageTexts is the text each page shows, in the order it is drawn.
func (f pdfFile) pageTexts(t *testing.T) []string {
	t.Helper()
	texts, err := f.PageTexts()
	if err != nil {
		t.Fatalf("reading the PDF's pages: %v", err)
	}
	return texts
}

// info is the document information dictionary's entry key.
func (f pdfFile) info(t *testing.T, key string) string {
	t.Helper()
	v, err := f.Info(key)
	if err != nil {
		t.Fatalf("reading the PDF's information: %v", err)
	}
	return v
}
