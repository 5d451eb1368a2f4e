package boleto

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestFactor checks due-date factors published around the 2025 restart
// (FEBRABAN: 9999 on 2025-02-21, 1000 on 2025-02-22) and by boleto2net's
// test suite (Boleto2.Net.Testes/FatorVencimento.cs).
func TestFactor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		due  string
		want int
	}{
		{"2000-07-03", 1000}, // first factor of the first cycle
		{"2000-07-05", 1002},
		{"2014-01-18", 5947},
		{"2014-03-12", 6000},
		{"2017-01-21", 7046},
		{"2025-02-21", 9999},
		{"2025-02-22", 1000},
		{"2025-02-23", 1001},
		{"2029-05-20", 2548}, // brcobranca itau_spec.rb, line 34191.09008 ... 4 25480000675787
		{"2049-10-13", 9999}, // end of the second cycle: 2025-02-22 + 8999 days
		{"2049-10-14", 1000},
	}
	for _, tt := range tests {
		got, err := Factor(date(t, tt.due))
		if err != nil {
			t.Errorf("Factor(%s): %v", tt.due, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Factor(%s) = %d, want %d", tt.due, got, tt.want)
		}
	}
}

func TestFactorIgnoresTimeAndLocation(t *testing.T) {
	t.Parallel()
	saoPaulo := time.FixedZone("BRT", -3*3600)
	// 23:30 on 2025-02-21 in São Paulo is already the 22nd in UTC; the due
	// date is the calendar date where it was given.
	got, err := Factor(time.Date(2025, 2, 21, 23, 30, 0, 0, saoPaulo))
	if err != nil || got != 9999 {
		t.Errorf("Factor(2025-02-21 23:30 -03) = %d, %v; want 9999", got, err)
	}
}

func TestFactorErrors(t *testing.T) {
	t.Parallel()
	_, err := Factor(date(t, "2000-07-02"))
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Due" {
		t.Errorf("Factor(2000-07-02) error = %v, want a *FieldError on Due", err)
	}
	if f, err := Factor(time.Time{}); f != 0 || err != nil {
		t.Errorf("Factor(zero) = %d, %v; want 0 (no due date)", f, err)
	}
}

func TestFactorDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		factor int
		ref    string
		want   string // "" for no date
	}{
		{9999, "2025-02-21", "2025-02-21"},
		{1000, "2025-02-21", "2025-02-22"},
		{1000, "2025-02-22", "2025-02-22"},
		// Before the restart, a low factor read today is still the first cycle
		// when it is within 3000 days back...
		{7046, "2020-01-01", "2017-01-21"},
		// ...and a factor of the new cycle read before the restart is in the
		// future.
		{2548, "2024-01-01", "2029-05-20"},
		{2548, "2026-11-22", "2029-05-20"},
		// A date 3000 days back is in the window, one day more is not (and
		// the next date with factor 1000, 2049-10-14, is beyond 5500 days).
		{1000, "2033-05-11", "2025-02-22"},
		{1000, "2033-05-12", ""},
		// From 2026-11-22 the window runs from 2018-09-05 (factor 7638) to
		// 2041-12-13 (factor 7138); factors 7139 to 7637 have no date.
		{7638, "2026-11-22", "2018-09-05"},
		{7138, "2026-11-22", "2041-12-13"},
		{7139, "2026-11-22", ""},
		{7637, "2026-11-22", ""},
		{6000, "2026-11-22", "2038-11-01"},
		{0, "2026-11-22", ""},
		{999, "2026-11-22", ""},
	}
	for _, tt := range tests {
		got, ok := FactorDate(tt.factor, date(t, tt.ref))
		if tt.want == "" {
			if ok {
				t.Errorf("FactorDate(%d, %s) = %s, want no date", tt.factor, tt.ref, got.Format(time.DateOnly))
			}
			continue
		}
		if !ok || got.Format(time.DateOnly) != tt.want {
			t.Errorf("FactorDate(%d, %s) = %s, %v; want %s", tt.factor, tt.ref, got.Format(time.DateOnly), ok, tt.want)
		}
	}
}

// TestFactorDateRoundTrip checks that every date in the window around a
// reference comes back from its factor, across the 2025 restart.
func TestFactorDateRoundTrip(t *testing.T) {
	t.Parallel()
	for _, ref := range []string{"2010-06-01", "2024-12-31", "2025-02-22", "2026-11-22", "2045-01-01"} {
		r := date(t, ref)
		for d := -WindowBefore; d <= WindowAfter; d += 7 {
			due := r.AddDate(0, 0, d)
			f, err := Factor(due)
			if err != nil {
				continue // before 2000-07-03
			}
			got, ok := FactorDate(f, r)
			if !ok || !got.Equal(due) {
				t.Fatalf("ref %s: FactorDate(Factor(%s) = %d) = %s, %v", ref, due.Format(time.DateOnly), f, got.Format(time.DateOnly), ok)
			}
		}
	}
}

func TestBarcodeAccessors(t *testing.T) {
	t.Parallel()
	bc, err := ParseLine("34191.09008 01015.271248 80212.460002 4 25480000675787")
	if err != nil {
		t.Fatal(err)
	}
	if bc.Bank() != "341" || bc.CheckDigit() != 4 || bc.Factor() != 2548 || bc.Amount() != 675787 ||
		bc.FreeField() != "1090001015271248021246000" {
		t.Errorf("accessors = %s %d %d %d %s", bc.Bank(), bc.CheckDigit(), bc.Factor(), bc.Amount(), bc.FreeField())
	}
	if got := bc.Line(); got != "34191090080101527124880212460002425480000675787" {
		t.Errorf("Line = %s", got)
	}
	due, ok := bc.DueDate(date(t, "2026-11-22"))
	if !ok || due.Format(time.DateOnly) != "2029-05-20" {
		t.Errorf("DueDate = %s, %v", due, ok)
	}
}

func TestNoDueDateAndNoAmount(t *testing.T) {
	t.Parallel()
	b := Beneficiary{Bank: "341", Agency: "0810", Account: "53678", Wallet: "175"}
	nn, err := NewNossoNumero(b, 1)
	if err != nil {
		t.Fatal(err)
	}
	bc, err := New(b, nn, 0, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if bc.Factor() != 0 || bc.Amount() != 0 {
		t.Errorf("factor %d amount %d, want 0 and 0", bc.Factor(), bc.Amount())
	}
	if _, ok := bc.DueDate(date(t, "2026-11-22")); ok {
		t.Error("DueDate of factor 0 is ok")
	}
	back, err := ParseBarcode(bc.String())
	if err != nil || back != bc {
		t.Errorf("ParseBarcode(%s) = %s, %v", bc, back, err)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	const line = "34191.09008 01015.271248 80212.460002 4 25480000675787"
	const barcode = "34194254800006757871090001015271248021246000"
	tests := []struct {
		name     string
		parse    func(string) (Barcode, error)
		in       string
		sentinel error
		says     string
	}{
		{"line too short", ParseLine, line[:len(line)-1], ErrLength, "46 digits, want 47"},
		{"line too long", ParseLine, line + "1", ErrLength, "48 digits, want 47"},
		{"line empty", ParseLine, "", ErrLength, "0 digits"},
		{"line letter", ParseLine, "34191.O9008" + line[11:], ErrCharacter, `'O'`},
		{"line multibyte", ParseLine, "3419ç" + line[4:], ErrCharacter, `'ç'`},
		{"line field 1", ParseLine, "34191.09009" + line[11:], ErrCheckDigit, "field 1 check digit (position 10) is 9, want 8"},
		{"line field 2", ParseLine, line[:23] + "9" + line[24:], ErrCheckDigit, "field 2"},
		{"line field 3", ParseLine, line[:36] + "3" + line[37:], ErrCheckDigit, "field 3"},
		{"line general", ParseLine, line[:38] + "5" + line[39:], ErrCheckDigit, "general check digit is 5, want 4"},
		{"line amount changed", ParseLine, line[:len(line)-1] + "8", ErrCheckDigit, "general check digit"},
		{"barcode short", ParseBarcode, barcode[:43], ErrLength, "43 digits, want 44"},
		{"barcode is a line", ParseBarcode, line, ErrLength, "47 digits, want 44"},
		{"line is a barcode", ParseLine, barcode, ErrLength, "44 digits, want 47"},
		{"barcode check digit", ParseBarcode, "34195" + barcode[5:], ErrCheckDigit, "general check digit is 5, want 4"},
		{"barcode currency", ParseBarcode, "3410" + barcode[4:], ErrInvalid, "currency code is 0"},
		{"barcode arrecadacao", ParseBarcode, "8" + barcode[1:], ErrInvalid, "arrecadação"},
		{"barcode letter", ParseBarcode, "x" + barcode[1:], ErrCharacter, `'x'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.parse(tt.in)
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("err = %v, want %v", err, tt.sentinel)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err = %q, want it to say %q", err, tt.says)
			}
		})
	}
}

func TestParseIgnoresPunctuationAndSpaces(t *testing.T) {
	t.Parallel()
	want := "34194254800006757871090001015271248021246000"
	for _, in := range []string{
		"34191090080101527124880212460002425480000675787",
		"34191.09008 01015.271248 80212.460002 4 25480000675787",
		" 34191-09008\t01015/271248\n80212_460002 (4) 25480000675787\r\n",
	} {
		bc, err := ParseLine(in)
		if err != nil || bc.String() != want {
			t.Errorf("ParseLine(%q) = %s, %v", in, bc, err)
		}
	}
	bc, err := ParseBarcode("3419 4254 8000 0675 7871 0900 0101 5271 2480 2124 6000")
	if err != nil || bc.String() != want {
		t.Errorf("ParseBarcode with spaces = %s, %v", bc, err)
	}
}

func TestAssembleErrors(t *testing.T) {
	t.Parallel()
	free := strings.Repeat("0", 25)
	tests := []struct {
		name   string
		bank   string
		factor int
		amount int64
		free   string
		field  string
	}{
		{"bank", "34", 1000, 1, free, "Bank"},
		{"factor", "341", 999, 1, free, "Factor"},
		{"factor high", "341", 10000, 1, free, "Factor"},
		{"amount negative", "341", 1000, -1, free, "Amount"},
		{"amount too big", "341", 1000, MaxAmount + 1, free, "Amount"},
		{"free field short", "341", 1000, 1, free[1:], "FreeField"},
	}
	for _, tt := range tests {
		_, err := Assemble(tt.bank, tt.factor, tt.amount, tt.free)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("%s: err = %v, want a *FieldError on %s", tt.name, err, tt.field)
		}
	}
	if _, err := Assemble("341", 9999, MaxAmount, free); err != nil {
		t.Errorf("largest amount: %v", err)
	}
}

func TestFreeFieldRejectsWrongCheckDigit(t *testing.T) {
	t.Parallel()
	b := Beneficiary{Bank: "237", Agency: "1172", Account: "403005", Wallet: "19"}
	_, err := FreeField(b, NossoNumero{Number: "00000000002", Digit: "7"}, 100)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "NossoNumero" || !strings.Contains(err.Error(), `"8"`) {
		t.Errorf("err = %v, want the NossoNumero field and the right digit 8", err)
	}
	if _, err := FreeField(b, NossoNumero{Number: "00000000002"}, 100); err != nil {
		t.Errorf("without a digit: %v", err)
	}
}

func TestCents(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"0": 0, "1": 100, "1234.5": 123450, "6757.87": 675787, "99999999.99": MaxAmount} {
		got, err := Cents(decimal.RequireFromString(in))
		if err != nil || got != want {
			t.Errorf("Cents(%s) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0.001", "-1", "100000000", "1.005"} {
		if _, err := Cents(decimal.RequireFromString(in)); !errors.Is(err, ErrField) {
			t.Errorf("Cents(%s) err = %v, want ErrField", in, err)
		}
	}
}

func TestBanks(t *testing.T) {
	t.Parallel()
	want := []string{"001", "033", "041", "104", "237", "341", "748", "756"}
	if got := Banks(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Banks() = %v, want %v", got, want)
	}
	for _, code := range want {
		if BankName(code) == "" {
			t.Errorf("BankName(%s) is empty", code)
		}
	}
}

func TestFactorDateDocExamples(t *testing.T) {
	t.Parallel()
	// The examples of docs/boleto.md.
	got, ok := FactorDate(7046, date(t, "2026-11-22"))
	if !ok || got.Format(time.DateOnly) != "2041-09-12" {
		t.Errorf("FactorDate(7046, 2026-11-22) = %s, %v; want 2041-09-12", got.Format(time.DateOnly), ok)
	}
}
