package statement

import (
	"testing"

	"github.com/propfin/propfin/api/statement/pdftest"
)

// The PDFs of the tests are read back by package pdftest; these are its
// calls under the names the tests use.

type pdfFile struct{ *pdftest.File }

func readPDF(t *testing.T, data []byte) pdfFile { t.Helper(); return pdfFile{pdftest.Read(t, data)} }

func parsePDF(data []byte) (*pdftest.File, error) { return pdftest.Parse(data) }

func (f pdfFile) pageTexts(t *testing.T) []string { t.Helper(); return f.PageTexts(t) }

func (f pdfFile) info(t *testing.T, key string) string { t.Helper(); return f.Info(t, key) }
