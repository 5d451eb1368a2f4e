package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runCnabArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"cnab"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// The slip of brcobranca's itau_spec.rb due 2029-05-20, after the 2025
// factor restart.
const (
	cnabTestBarcode = "34194254800006757871090001015271248021246000"
	cnabTestLine    = "34191090080101527124880212460002425480000675787"
	cnabTestPrinted = "34191.09008 01015.271248 80212.460002 4 25480000675787"
)

func TestCnabLineAndBarcode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"line", []string{"line", cnabTestBarcode}, cnabTestLine},
		{"line formatted", []string{"line", "-formatted", cnabTestBarcode}, cnabTestPrinted},
		{"barcode", []string{"barcode", cnabTestLine}, cnabTestBarcode},
		{"barcode of printed line", []string{"barcode", cnabTestPrinted}, cnabTestBarcode},
		{"barcode of unquoted line", append([]string{"barcode"}, strings.Fields(cnabTestPrinted)...), cnabTestBarcode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCnabArgs(t, tt.args...)
			if code != 0 || stdout != tt.want+"\n" || stderr != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

func TestCnabErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"line of a short barcode", []string{"line", cnabTestBarcode[1:]}, "barcode has 43 digits, want 44"},
		{"line of a bad check digit", []string{"line", "34195" + cnabTestBarcode[5:]}, "general check digit is 5, want 4"},
		{"barcode of a bad field digit", []string{"barcode", "34191.09009 01015.271248 80212.460002 4 25480000675787"}, "field 1 check digit (position 10) is 9, want 8"},
		{"barcode of a letter", []string{"barcode", "3419x"}, "invalid character"},
		{"barcode of a barcode", []string{"barcode", cnabTestBarcode}, "44 digits, want 47"},
		{"no argument", []string{"line"}, "usage: propfin cnab line"},
		{"unknown subcommand", []string{"frobnicate"}, `unknown subcommand "frobnicate" (subcommands: line, barcode, remessa, pagamento, retorno)`},
		{"no subcommand", nil, "usage: propfin cnab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCnabArgs(t, tt.args...)
			if code != 1 || stdout != "" || !strings.Contains(stderr, tt.says) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, tt.says)
			}
		})
	}
}

func TestCnabHelp(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCnabArgs(t, "line", "-h")
	if code != 0 || !strings.Contains(stderr, "-formatted") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
