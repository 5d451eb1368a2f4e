package statement

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestStatementTotals(t *testing.T) {
	t.Parallel()
	s := march()
	got, err := s.Totals()
	if err != nil {
		t.Fatal(err)
	}
	wantKinds := map[LineKind][2]int64{ // amount, count
		Received:            {324525, 5},
		Deduction:           {-65000, 3},
		GuaranteedAdvanced:  {180000, 1},
		GuaranteedRecovered: {-180000, 1},
		Adjustment:          {-4530, 1},
		Transfer:            {-259525, 2},
	}
	if len(got.Kinds) != len(wantKinds) {
		t.Fatalf("%d kind totals, want %d", len(got.Kinds), len(wantKinds))
	}
	for i, k := range got.Kinds {
		if k.Kind != lineKinds[i].kind {
			t.Errorf("kind total %d is %s, want %s (the kinds' order)", i, k.Kind, lineKinds[i].kind)
		}
		w := wantKinds[k.Kind]
		if int64(k.Amount) != w[0] || int64(k.Count) != w[1] {
			t.Errorf("%s: %d cents in %d lines, want %d in %d", k.Kind, k.Amount, k.Count, w[0], w[1])
		}
	}
	if got.Lines != 13 || got.Net != -4530 {
		t.Errorf("%d lines adding up to %d, want 13 and -4530", got.Lines, got.Net)
	}
	nets := []Cents{0, -4530}
	groups := [][]LineKind{
		{Received, Deduction, Transfer},
		{Received, Deduction, GuaranteedAdvanced, GuaranteedRecovered, Adjustment, Transfer},
	}
	for i, sec := range got.Sections {
		if sec.Net != nets[i] {
			t.Errorf("section %d: net %d, want %d", i, sec.Net, nets[i])
		}
		var kinds []LineKind
		var sum Cents
		for _, g := range sec.Groups {
			kinds = append(kinds, g.Kind)
			sum += g.Total.Amount
		}
		if strings.Join(kindStrings(kinds), ",") != strings.Join(kindStrings(groups[i]), ",") {
			t.Errorf("section %d groups %v, want %v", i, kinds, groups[i])
		}
		if sum != sec.Net {
			t.Errorf("section %d: groups add up to %d, its net is %d", i, sum, sec.Net)
		}
	}
	// a group keeps its lines in the order given
	deductions := got.Sections[0].Groups[1].Lines
	if deductions[0].Description != "Taxa de administração (10%)" || deductions[1].Description != "Reparo hidráulico no banheiro" {
		t.Errorf("deductions reordered: %+v", deductions)
	}
}

func kindStrings(ks []LineKind) []string {
	var out []string
	for _, k := range ks {
		out = append(out, string(k))
	}
	return out
}

// TestStatementHiddenInBalance: hidden entries counted in the balance
// change what the closing balance must be.
func TestStatementHiddenInBalance(t *testing.T) {
	t.Parallel()
	s := march()
	s.Hidden.InBalance = true
	if _, err := s.Totals(); err == nil {
		t.Fatal("hidden amount in the balance, closing unchanged: no error")
	}
	s.Closing += s.Hidden.Amount
	if _, err := s.Totals(); err != nil {
		t.Fatalf("closing with the hidden amount: %v", err)
	}
}

// TestStatementTransferWithoutDestination: a transfer paid to an owner
// whose record had no account nor PIX key is money paid out all the
// same: the statement adds up, and both documents say no destination was
// recorded.
func TestStatementTransferWithoutDestination(t *testing.T) {
	t.Parallel()
	for _, d := range []*Destination{nil, {PixKey: " "}} {
		s := march()
		s.Sections[0].Lines[6].Transfer = d
		if _, err := s.Totals(); err != nil {
			t.Fatalf("destination %+v: %v", d, err)
		}
		var page bytes.Buffer
		if err := RenderStatementHTML(&page, s); err != nil {
			t.Fatal(err)
		}
		pdf := strings.Join(readPDF(t, renderPDF(t, s)).pageTexts(t), " ")
		for name, text := range map[string]string{"page": page.String(), "PDF": pdf} {
			if !strings.Contains(text, "Repasse (destino não registrado)") {
				t.Errorf("destination %+v: the %s does not say the destination was not recorded", d, name)
			}
		}
	}
}

func TestStatementInvalid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(*OwnerStatement)
		want   string
	}{
		{"month", func(s *OwnerStatement) { s.Month = "03/2024" }, "not a month"},
		{"company", func(s *OwnerStatement) { s.Company.Name = " " }, "no company name"},
		{"closing", func(s *OwnerStatement) { s.Closing++ }, "closing balance R$ 454,71 is not the opening balance R$ 500,00 plus the lines (-R$ 45,30): R$ 454,70"},
		{"untitled section", func(s *OwnerStatement) { s.Sections[1].Title = "" }, "section 2"},
		{"kind", func(s *OwnerStatement) { s.Sections[0].Lines[2].Kind = "fee" }, `invalid document: section 1 ("Contrato 1001"): line 3 ("Multa por atraso"): kind "fee" is unknown`},
		{"adjustment without month", func(s *OwnerStatement) { s.Sections[1].Lines[4].Corrects = "" }, "the month it corrects"},
		{"adjustment of the same month", func(s *OwnerStatement) { s.Sections[1].Lines[4].Corrects = "2024-03" }, "not a month before"},
		{"adjustment of a later month", func(s *OwnerStatement) { s.Sections[1].Lines[4].Corrects = "2024-05" }, "not a month before"},
		{"hidden count", func(s *OwnerStatement) { s.Hidden.Count = -1 }, "hidden entries"},
		{"hidden amount without entries", func(s *OwnerStatement) { s.Hidden = Hidden{Amount: 5} }, "hidden entries"},
	} {
		s := march()
		c.change(&s)
		_, err := s.Totals()
		if !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

func TestIncomeTotals(t *testing.T) {
	t.Parallel()
	r := year2024()
	got, err := r.Totals()
	if err != nil {
		t.Fatal(err)
	}
	want := []IncomeMonth{{Gross: 1440000, AdminFee: 144000}, {Gross: 6000000, AdminFee: 600000, Withheld: 589000}}
	for i, c := range got.Contracts {
		if c.Year != want[i] {
			t.Errorf("contract %d: year %+v, want %+v", i, c.Year, want[i])
		}
	}
	if y := got.Year; y != (IncomeMonth{Gross: 7440000, AdminFee: 744000, Withheld: 589000}) || y.Net() != 6107000 {
		t.Errorf("year %+v, net %d", y, y.Net())
	}
	if got.Months[0] != (IncomeMonth{Gross: 120000, AdminFee: 12000}) || got.Months[2] != (IncomeMonth{Gross: 720000, AdminFee: 72000, Withheld: 58900}) {
		t.Errorf("January %+v, March %+v", got.Months[0], got.Months[2])
	}
	if n := got.Months[2].Net(); n != 589100 {
		t.Errorf("March net %d, want 589100", n)
	}
}

// TestIncomeTotalsBySource: the contracts are added up by paying source,
// a source's contracts together in the order of its first, the same
// source however its CNPJ is punctuated, and a contract of no source is
// the report's company's.
func TestIncomeTotalsBySource(t *testing.T) {
	t.Parallel()
	r := twoSources()
	third := r.Contracts[0]
	third.Title, third.Source.TaxID = "Contrato 1003", "11.222.333/0001-81"
	fourth := r.Contracts[0]
	fourth.Title, fourth.Source = "Contrato 1004", Party{}
	r.Contracts = append(r.Contracts, third, fourth)
	got, err := r.Totals()
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, s := range got.Sources {
		var titles []string
		for _, c := range s.Contracts {
			titles = append(titles, c.Title)
		}
		sources = append(sources, fmt.Sprintf("%s: %s; %d %d %d", s.Source.Name, strings.Join(titles, ", "), s.Year.Gross,
			s.Year.AdminFee, s.Year.Withheld))
	}
	want := []string{
		"São Jorge Administração de Imóveis: Contrato 1001, Contrato 1003; 2880000 288000 0",
		"São Jorge Vendas: Contrato 1002; 6000000 600000 589000",
		"Imobiliária São Jorge Ltda: Contrato 1004; 1440000 144000 0",
	}
	if !slices.Equal(sources, want) {
		t.Errorf("sources:\n%s\nwant\n%s", strings.Join(sources, "\n"), strings.Join(want, "\n"))
	}
	if got.Sources[0].Months[0] != (IncomeMonth{Gross: 240000, AdminFee: 24000}) {
		t.Errorf("the first source's January: %+v", got.Sources[0].Months[0])
	}
}

func TestIncomeInvalid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(*IncomeReport)
		want   string
	}{
		{"year", func(r *IncomeReport) { r.Year = 24 }, "report year 24"},
		{"company", func(r *IncomeReport) { r.Company.Name = "" }, "no company name"},
		{"untitled contract", func(r *IncomeReport) { r.Contracts[1].Title = "" }, "contract 2 has no title"},
		{"ends before it starts", func(r *IncomeReport) { r.Contracts[0].End = date(2022, 1, 1) }, "ends (01/01/2022) before it starts (01/02/2023)"},
	} {
		r := year2024()
		c.change(&r)
		_, err := r.Totals()
		if !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
