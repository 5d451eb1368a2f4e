package statement

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestCentsOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in      string
		want    Cents
		wantErr string
	}{
		{"0", 0, ""},
		{"1234.56", 123456, ""},
		{"-0.5", -50, ""},
		{"2350", 235000, ""},
		{"1.10", 110, ""},
		{"0.005", 0, "past the cent"},
		{"92233720368547758.08", 0, "out of range"},
		{"-92233720368547758.08", math.MinInt64, ""},
	} {
		got, err := CentsOf(decimal.RequireFromString(c.in))
		switch {
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("CentsOf(%s): error %v, want one saying %q", c.in, err, c.wantErr)
		case c.wantErr == "" && (err != nil || got != c.want):
			t.Errorf("CentsOf(%s) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestPartyTaxID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   Party
		want string
	}{
		{Party{Name: "x"}, ""},
		{Party{Name: "x", TaxID: "  "}, ""},
		{Party{Name: "x", TaxID: "52998224725"}, "CPF 529.982.247-25"},
		{Party{Name: "x", TaxID: "12abc34501de35"}, "CNPJ 12.ABC.345/01DE-35"},
	} {
		if got := partyTaxID(c.in); got != c.want {
			t.Errorf("partyTaxID(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFormatMonth(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, month, last string }{
		{"2024-01", "janeiro de 2024", "31/01/2024"},
		{"2024-02", "fevereiro de 2024", "29/02/2024"},
		{"2023-02", "fevereiro de 2023", "28/02/2023"},
		{"2024-03", "março de 2024", "31/03/2024"},
		{"2024-06", "junho de 2024", "30/06/2024"},
		{"2024-12", "dezembro de 2024", "31/12/2024"},
		{"2024-3", "2024-3", ""},
		{"2024-13", "2024-13", ""},
		{"março", "março", ""},
	} {
		if got := formatMonth(c.in); got != c.month {
			t.Errorf("formatMonth(%q) = %q, want %q", c.in, got, c.month)
		}
		if got := lastDay(c.in); got != c.last {
			t.Errorf("lastDay(%q) = %q, want %q", c.in, got, c.last)
		}
	}
}

func TestMonthTitle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   int
		want string
	}{{0, "Janeiro"}, {2, "Março"}, {11, "Dezembro"}, {12, ""}} {
		if got := monthTitle(c.in); got != c.want {
			t.Errorf("monthTitle(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLineText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line Line
		want string
	}{
		{Line{Description: "Aluguel", Kind: Received}, "Aluguel"},
		{Line{Description: "Repasse", Kind: Transfer, Transfer: &Destination{PixKey: "529.982.247-25"}}, "Repasse (para PIX 529.982.247-25)"},
		{Line{Description: "Repasse", Kind: Transfer, Transfer: &Destination{PixKey: "+5511987654321"}}, "Repasse (para PIX +5511987654321)"},
		{Line{Kind: Transfer, Transfer: &Destination{Bank: "001 Banco do Brasil", Branch: "0001-9", Account: "12345-6"}},
			"Para Banco 001 Banco do Brasil, agência 0001-9, conta 12345-6"},
		{Line{Description: "Repasse", Kind: Transfer}, "Repasse (destino não registrado)"},
		{Line{Description: "Repasse", Kind: Transfer, Transfer: &Destination{PixKey: " "}}, "Repasse (destino não registrado)"},
		{Line{Description: "Estorno do aluguel", Kind: Adjustment, Corrects: "2024-01"}, "Estorno do aluguel (corrige janeiro de 2024)"},
		{Line{Description: "  Tarifa  ", Kind: Deduction, Corrects: "2024-01"}, "Tarifa"},
	} {
		if got := lineText(c.line); got != c.want {
			t.Errorf("lineText(%+v) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestHiddenText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   Hidden
		want string
	}{
		{Hidden{}, ""},
		{Hidden{Count: 1, Amount: -990}, "1 lançamento interno não é mostrado neste demonstrativo; soma -R$ 9,90 e não entra no saldo."},
		{Hidden{Count: 3, Amount: 4500}, "3 lançamentos internos não são mostrados neste demonstrativo; somam R$ 45,00 e não entram no saldo."},
		{Hidden{Count: 2, Amount: -1240, InBalance: true}, "2 lançamentos internos não são mostrados neste demonstrativo; somam -R$ 12,40, já incluídos no saldo final."},
	} {
		if got := hiddenText(c.in); got != c.want {
			t.Errorf("hiddenText(%+v) =\n%q, want\n%q", c.in, got, c.want)
		}
	}
}

func TestPeriod(t *testing.T) {
	t.Parallel()
	var none time.Time
	for _, c := range []struct {
		start, end time.Time
		want       string
	}{
		{date(2023, 2, 1), date(2026, 1, 31), "01/02/2023 a 31/01/2026"},
		{date(2024, 3, 1), none, "desde 01/03/2024 (em vigor)"},
		{none, date(2024, 12, 31), "até 31/12/2024"},
		{none, none, ""},
	} {
		if got := period(c.start, c.end); got != c.want {
			t.Errorf("period(%v, %v) = %q, want %q", c.start, c.end, got, c.want)
		}
	}
}

func TestEncode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"Prestação", "Presta\xe7\xe3o"},
		{"Conceição Araújo, nº 5 — ação", "Concei\xe7\xe3o Ara\xfajo, n\xba 5 \x97 a\xe7\xe3o"},
		{"€ 1", "\x80 1"},
		{"Erdős", "Erdos"},  // ő is not in Windows-1252: its letter
		{"Łódź", "?\xf3dz"}, // Ł has no letter under it; ó is there; ź is z
		{"日本", "??"},        // no letter at all
		{"\xff", "?"},       // not UTF-8
		{"R$ 1.234,56", "R$ 1.234,56"},
	} {
		if got := encode(c.in); got != c.want {
			t.Errorf("encode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
