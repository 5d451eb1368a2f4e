package jobs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/storage"
)

// TestRemittanceLayoutsAreCnabs: the bank and layout pairs a batch's
// account may have are those package cnab writes.
func TestRemittanceLayoutsAreCnabs(t *testing.T) {
	t.Parallel()
	if got, want := storage.RemittanceLayouts(), cnab.Supported(); !slices.Equal(got, want) {
		t.Errorf("storage.RemittanceLayouts() = %v, cnab.Supported() = %v", got, want)
	}
	for _, pair := range cnab.Supported() {
		bank, digits, _ := strings.Cut(pair, "/")
		layout := "cnab" + digits
		if got, want := storage.RemittanceRequired(bank, layout), cnab.Required(bank, layoutOf(layout)); !slices.Equal(got, want) {
			t.Errorf("%s: storage.RemittanceRequired = %v, cnab.Required = %v", pair, got, want)
		}
	}
}

// TestInterestForms: for every layout package cnab writes, a title with
// interest in the form interestForms says the layout takes is accepted,
// and one in a form it says the layout does not take is refused (the
// beneficiaries and titles of cnab/testdata).
func TestInterestForms(t *testing.T) {
	t.Parallel()
	for _, pair := range cnab.Supported() {
		var bank string
		var width int
		fmt.Sscanf(pair, "%3s/%d", &bank, &width)
		perDay, monthly := interestForms(bank, cnab.Layout(width))
		in := readCnabInput(t, bank, width)
		for _, form := range []struct {
			name     string
			accepted bool
			set      func(*cnab.Title)
		}{
			{"per day", perDay, func(ti *cnab.Title) { ti.InterestPerDay = decimal.RequireFromString("0.50") }},
			{"monthly", monthly, func(ti *cnab.Title) { ti.InterestMonthlyPercent = decimal.RequireFromString("1.00") }},
		} {
			w, err := cnab.NewWriter(discard{}, in.Remittance, nil)
			if err != nil {
				t.Fatalf("%s: %v", pair, err)
			}
			var title cnab.Title
			for ti, err := range in.Each() {
				if err != nil {
					t.Fatalf("%s: %v", pair, err)
				}
				title = ti
				break
			}
			title.InterestPerDay, title.InterestMonthlyPercent = decimal.Zero, decimal.Zero
			form.set(&title)
			if err := w.Write(title); (err == nil) != form.accepted {
				t.Errorf("%s, interest %s: accepted %v, want %v (%v)", pair, form.name, err == nil, form.accepted, err)
			}
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// readCnabInput reads a layout's test input of package cnab.
func readCnabInput(t *testing.T, bank string, width int) cnab.Input {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "cnab", "testdata", fmt.Sprintf("%s_%d.json", bank, width)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := cnab.DecodeInput(f)
	if err != nil {
		t.Fatal(err)
	}
	return in
}
