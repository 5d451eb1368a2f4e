package pagamento

import "testing"

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
