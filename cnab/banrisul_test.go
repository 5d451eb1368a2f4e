package cnab

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestBanrisulBeneficiaryCode checks the código do beneficiário of both
// Banrisul layouts against references outside this package: brcobranca's
// spec/fixtures/remessa/remessa-banrisul-cnab400.rem, and the CNAB 240
// fixture of a brcobranca fork's Banrisul 240 writer, write agency 1102
// and code 9000150 as 1102900015046, the 7 digits followed by their NC 46,
// in the CNAB 400 header (27-39) and detail (18-30) and in the first 13
// positions of the CNAB 240 convênio (file header 33-52, batch header
// 34-53), blanks after.
func TestBanrisulBeneficiaryCode(t *testing.T) {
	t.Parallel()
	type spot struct {
		line       int // 1-based; 0 means every detail line of a CNAB 400 file
		start, end int
		want       string
	}
	tests := []struct {
		sample string
		spots  []spot
	}{
		{"041_400", []spot{
			{1, 27, 39, "1102900015046"},
			{0, 18, 30, "1102900015046"},
		}},
		{"041_240", []spot{
			{1, 33, 45, "1102900015046"},
			{1, 46, 52, "       "},
			{2, 34, 46, "1102900015046"},
			{2, 47, 53, "       "},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.sample, func(t *testing.T) {
			t.Parallel()
			rem, titles := sample(t, tt.sample)
			rem.Beneficiary.Agency = "1102"
			rem.Beneficiary.Covenant = "9000150"
			lines := writeLines(t, rem, titles)
			for _, sp := range tt.spots {
				at := []int{sp.line}
				if sp.line == 0 {
					at = nil
					for i := 2; i < len(lines); i++ {
						at = append(at, i)
					}
				}
				for _, n := range at {
					if got := lines[n-1][sp.start-1 : sp.end]; got != sp.want {
						t.Errorf("line %d positions %d-%d: got %q, want %q", n, sp.start, sp.end, got, sp.want)
					}
				}
			}
		})
	}
}

// TestBanrisulCodeWithItsNC checks that a beneficiary code given as the
// bank prints it, with its NC, is rejected on the remittance with a
// message that says which 7 digits to give, in both layouts.
func TestBanrisulCodeWithItsNC(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"041_400", "041_240"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rem, _ := sample(t, name)
			rem.Beneficiary.Covenant = "900015046"
			var out bytes.Buffer
			_, err := NewWriter(&out, rem, nil)
			var ps Problems
			if !errors.As(err, &ps) || len(ps) != 1 {
				t.Fatalf("got %v, want one problem", err)
			}
			p := ps[0]
			if p.Title != HeaderIndex || p.Field != "beneficiary.covenant" || !strings.Contains(p.Message, "9000150 followed by its NC 46") {
				t.Errorf("got %+v, want a remittance problem on beneficiary.covenant naming 9000150 and its NC", p)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %d bytes for an invalid remittance", out.Len())
			}
		})
	}
}

// writeLines writes a remittance and returns its records without line
// endings or the end-of-file mark.
func writeLines(t *testing.T, rem Remittance, titles []Title) []string {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, rem, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range titles {
		if err := w.Write(title); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := strings.TrimSuffix(out.String(), "\x1a")
	return strings.Split(strings.TrimSuffix(data, "\r\n"), "\r\n")
}
