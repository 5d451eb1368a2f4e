package boleto

import (
	"errors"
	"strings"
	"testing"
)

// TestBanrisulCode checks the beneficiary code with its NC against the
// one public pair of code and check digits: brcobranca's Banrisul slip
// spec gives convenio 9000150 with digito_convenio 46, and its CNAB 400
// remittance fixture writes agency 1102 and 900015046 in the código do
// cedente (see docs/cnab.md). Leading zeros beyond the seven digits are
// accepted, as for every other field of the slip's rules.
func TestBanrisulCode(t *testing.T) {
	t.Parallel()
	for _, covenant := range []string{"9000150", "09000150"} {
		got, err := BanrisulCode(covenant)
		if err != nil {
			t.Fatalf("BanrisulCode(%q): %v", covenant, err)
		}
		if got != "900015046" {
			t.Errorf("BanrisulCode(%q) = %q, want 900015046", covenant, got)
		}
	}
}

// TestBanrisulCodeRejects checks that a code the free field cannot carry
// is a *FieldError on Covenant, both from BanrisulCode and from the slip's
// Validate, and that a code given with its NC says so.
func TestBanrisulCodeRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, covenant, reason string
	}{
		{"empty", "", "is required"},
		{"letters", "90001S0", "digits only"},
		{"eight digits", "12345678", "more than 7 digits"},
		{"the printed code with its NC", "900015046", "the beneficiary code 9000150 followed by its NC 46: give the 7 digits alone"},
		{"nine digits with a wrong NC", "900015047", "more than 7 digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := BanrisulCode(tt.covenant)
			checkCovenantError(t, err, tt.reason)
			err = Beneficiary{Bank: "041", Agency: "1102", Covenant: tt.covenant}.Validate()
			checkCovenantError(t, err, tt.reason)
		})
	}
}

func checkCovenantError(t *testing.T, err error, reason string) {
	t.Helper()
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Covenant" || fe.Bank != "041" {
		t.Fatalf("err = %v, want a *FieldError of bank 041 on Covenant", err)
	}
	if !errors.Is(err, ErrField) {
		t.Errorf("errors.Is(%v, ErrField) = false", err)
	}
	if !strings.Contains(fe.Reason, reason) {
		t.Errorf("Reason = %q, want it to contain %q", fe.Reason, reason)
	}
}
