package cnab

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestCaixaWriteOff checks Caixa's 224-227 (notes C028/C029): the days
// written as given from 5 to 120, refused outside; blanks for the bank's
// default; with a protest, code 2 and blanks (never 000, which Caixa
// reads as "write off the day after the due date"), and a write-off term
// given beside a protest is a warning saying it was not written.
func TestCaixaWriteOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		protest  int
		writeOff int
		want     string // 221-227, when written
		errField string // the field of the error, when refused
		warning  string // the field of the one warning, when any
	}{
		{"bank default", 0, 0, "3001   ", "", ""},
		{"shortest", 0, 5, "3001005", "", ""},
		{"thirty days", 0, 30, "3001030", "", ""},
		{"longest", 0, 120, "3001120", "", ""},
		{"too short", 0, 3, "", "write_off_days", ""},
		{"four days", 0, 4, "", "write_off_days", ""},
		{"too long", 0, 121, "", "write_off_days", ""},
		{"far too long", 0, 999, "", "write_off_days", ""},
		{"protest", 10, 0, "1102   ", "", ""},
		{"protest and write-off", 10, 30, "1102   ", "", "write_off_days"},
		{"protest and a term out of range", 10, 150, "1102   ", "", "write_off_days"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rem, titles := sample(t, "104_240")
			title := titles[0]
			title.ProtestDays, title.WriteOffDays = tt.protest, tt.writeOff
			var out bytes.Buffer
			sum, err := WriteAll(&out, rem, slices.Values([]Title{title}))
			var errs, warns []string
			for _, p := range sum.Problems {
				if p.Title != 0 {
					continue
				}
				if p.Severity == SeverityError {
					errs = append(errs, p.Field+": "+p.Message)
				} else {
					warns = append(warns, p.Field)
				}
			}
			if tt.errField != "" {
				if err == nil || len(errs) != 1 || !strings.HasPrefix(errs[0], tt.errField+": Caixa writes titles off after 5 to 120 days") {
					t.Fatalf("got %v, errors %q; want one error on %s", err, errs, tt.errField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := slices.DeleteFunc([]string{tt.warning}, func(s string) bool { return s == "" }); !slices.Equal(warns, want) {
				t.Errorf("title warnings %q, want %q", warns, want)
			}
			p := strings.Split(out.String(), "\r\n")[2]
			if got := p[220:227]; got != tt.want {
				t.Errorf("221-227 = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCaixaSevenDigitCovenant checks that a 7-digit Código do
// Beneficiário is one error naming the layout it needs, written once
// although the code appears in four fields of the file.
func TestCaixaSevenDigitCovenant(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"1234567", "01234567"} {
		rem, _ := sample(t, "104_240")
		rem.Beneficiary.Covenant = code
		var out bytes.Buffer
		_, err := NewWriter(&out, rem, nil)
		ps, _ := err.(Problems)
		if len(ps) != 1 || ps[0].Field != "beneficiary.covenant" || !strings.Contains(ps[0].Message, "layout 107 (batch 067)") {
			t.Errorf("%s: got %v, want one problem naming layout 107", code, err)
		}
		if out.Len() != 0 {
			t.Errorf("%s: wrote %d bytes", code, out.Len())
		}
	}
	// A 6-digit code with leading zeros is still 6 digits.
	rem, titles := sample(t, "104_240")
	rem.Beneficiary.Covenant = "0123456"
	if _, err := WriteAll(&bytes.Buffer{}, rem, slices.Values(titles)); err != nil {
		t.Errorf("0123456: %v", err)
	}
}

// TestProblemsOnce checks that a problem several records report (a value
// written in the file and batch headers) is recorded once.
func TestProblemsOnce(t *testing.T) {
	t.Parallel()
	rem, titles := sample(t, "104_240")
	rem.Beneficiary.Name = "Imobiliária Conceição & Filhos Comércio Ltda"
	sum, err := WriteAll(&bytes.Buffer{}, rem, slices.Values(titles))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range sum.Problems {
		if p.Title == HeaderIndex && p.Field == "beneficiary.name" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d warnings on beneficiary.name, want 1: %v", n, sum.Problems)
	}
	rem.Beneficiary.Covenant = "12345678"
	_, err = NewWriter(&bytes.Buffer{}, rem, nil)
	if ps, _ := err.(Problems); len(ps) != 1 {
		t.Errorf("8-digit covenant: got %v, want one problem", err)
	}
}
