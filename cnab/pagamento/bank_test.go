package pagamento

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/propfin/propfin/cnab"
)

// TestPIXFileOnly: Bradesco and Itaú take PIX payments only in a PIX file
// (G021; SISPAG's "arquivo separado"), the other banks beside other
// payments; an unknown bank is not such a bank.
func TestPIXFileOnly(t *testing.T) {
	t.Parallel()
	for bank, want := range map[string]bool{"001": false, "033": false, "237": true, "341": true, "756": false, "104": false, "": false} {
		if got := PIXFileOnly(bank); got != want {
			t.Errorf("PIXFileOnly(%q) = %v, want %v", bank, got, want)
		}
	}
}

// TestRequired holds Required to NewWriter, bank by bank: a payer with
// every field passes; without any one field Required lists, the header is
// refused naming that field; without any other (the agency digit, the
// covenant where the bank takes none), it passes.
func TestRequired(t *testing.T) {
	t.Parallel()
	clear := map[string]func(*Payer){
		"agency":        func(p *Payer) { p.Agency = "" },
		"agency_digit":  func(p *Payer) { p.AgencyDigit = "" },
		"account":       func(p *Payer) { p.Account = "" },
		"account_digit": func(p *Payer) { p.AccountDigit = "" },
		"covenant":      func(p *Payer) { p.Covenant = "" },
	}
	for _, bank := range Supported() {
		required := Required(bank)
		if len(required) < 3 {
			t.Errorf("bank %s: Required = %v", bank, required)
		}
		for field, without := range clear {
			r := testRemittance(bank)
			r.Payer.AgencyDigit = "5"
			without(&r.Payer)
			_, err := NewWriter(&bytes.Buffer{}, r, nil)
			var ps cnab.Problems
			switch {
			case slices.Contains(required, field) && (!errors.As(err, &ps) || ps[0].Field != "payer."+field):
				t.Errorf("bank %s without %s: %v, want a problem naming payer.%s", bank, field, err, field)
			case !slices.Contains(required, field) && err != nil:
				t.Errorf("bank %s without %s (not required): %v", bank, field, err)
			}
		}
	}
	if got := Required("104"); got != nil {
		t.Errorf("Required of a bank not written: %v", got)
	}
}
