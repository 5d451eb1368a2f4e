package storage

import (
	"testing"

	"github.com/shopspring/decimal"
)

// TestPaymentCountChange: a payment batch's titles and total count the
// payments it pays out (added, sent, paid): a sent payment the bank
// refuses leaves them, a reverted or failed one the bank pays all the
// same comes back, and the other events change nothing.
func TestPaymentCountChange(t *testing.T) {
	t.Parallel()
	amount := decimal.RequireFromString("480.00")
	tests := []struct {
		state, kind string
		n           int64
		amount      string
	}{
		{"sent", PaymentFailed, -1, "-480"},
		{"sent", PaymentPaid, 0, "0"},
		{"sent", PaymentScheduled, 0, "0"},
		{"reverted", PaymentFailed, 0, "0"},
		{"reverted", PaymentCancelled, 0, "0"},
		{"reverted", PaymentPaid, 1, "480"},
		{"failed", PaymentPaid, 1, "480"},
	}
	for _, tt := range tests {
		e := PaymentEvent{Match: PaymentMatch{State: tt.state, Amount: amount}, Kind: tt.kind}
		n, got := paymentCountChange(e)
		if n != tt.n || !got.Equal(decimal.RequireFromString(tt.amount)) {
			t.Errorf("%s payment %s: %d, %s; want %d, %s", tt.state, tt.kind, n, got, tt.n, tt.amount)
		}
	}
}
