package finance

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"
)

func TestMoneyJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		amount string
		want   string
	}{
		{"1000", "1000.00"},
		{"1000.0", "1000.00"},
		{"0.5", "0.50"},
		{"-2.1", "-2.10"},
		{"0", "0.00"},
		{"-0.01", "-0.01"},
		{"235000.00", "235000.00"},
		{"10.000", "10.00"},      // zeros past the cent are only zeros
		{"1000.005", "1000.005"}, // finer than a cent: every digit, never rounded
		{"99999999999999.99", "99999999999999.99"},
	}
	for _, tc := range tests {
		t.Run(tc.amount, func(t *testing.T) {
			m := Money(dec(tc.amount))
			got, err := json.Marshal(m)
			if err != nil || string(got) != tc.want {
				t.Errorf("json.Marshal(Money(%s)) = %s, %v; want %s", tc.amount, got, err, tc.want)
			}
			if m.String() != tc.want {
				t.Errorf("String() = %s, want %s", m.String(), tc.want)
			}
			// in a struct, as results hold it, and as a pointer
			got, _ = json.Marshal(struct {
				Amount  Money  `json:"amount"`
				Pointer *Money `json:"pointer"`
			}{m, &m})
			if want := `{"amount":` + tc.want + `,"pointer":` + tc.want + `}`; string(got) != want {
				t.Errorf("in a struct: %s, want %s", got, want)
			}
		})
	}
}

// TestMoneyReadsNumbersAndStrings: a result written by this version (a
// number) and one written by an older version (decimal text) read alike.
func TestMoneyReadsNumbersAndStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json string
		want string // "" for an error
	}{
		{`250.00`, "250"},
		{`"250.00"`, "250"},
		{`"2350"`, "2350"},
		{`2350`, "2350"},
		{`-2.10`, "-2.1"},
		{`"0"`, "0"},
		{`"abc"`, ""},
		{`true`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.json, func(t *testing.T) {
			var m Money
			err := json.Unmarshal([]byte(tc.json), &m)
			switch {
			case tc.want == "" && err == nil:
				t.Errorf("%s read as %s, want an error", tc.json, m)
			case tc.want != "" && (err != nil || !m.Decimal().Equal(dec(tc.want))):
				t.Errorf("%s read as %s, %v; want %s", tc.json, m, err, tc.want)
			}
		})
	}
	var kept = Money(dec("1.00"))
	if err := json.Unmarshal([]byte(`null`), &kept); err != nil || !kept.Decimal().Equal(dec("1")) {
		t.Errorf("null: %s, %v; want the amount kept", kept, err)
	}
}

func TestPercentJSON(t *testing.T) {
	t.Parallel()
	for amount, want := range map[string]string{"2": "2.00", "0.33": "0.33", "10.5": "10.50", "0": "0.00"} {
		got, err := json.Marshal(Percent(dec(amount)))
		if err != nil || string(got) != want {
			t.Errorf("Percent(%s) = %s, %v; want %s", amount, got, err, want)
		}
		var back Percent
		if err := json.Unmarshal(got, &back); err != nil || !back.Decimal().Equal(decimal.RequireFromString(amount)) {
			t.Errorf("Percent %s read back as %s, %v", got, back.Decimal(), err)
		}
	}
}

// TestInvoiceJSONWritesMoney: an invoice (what `propfin finance schedule`
// prints) writes its amounts as money and its rates with two places, and
// reads back what it wrote.
func TestInvoiceJSONWritesMoney(t *testing.T) {
	t.Parallel()
	inv := Invoice{Type: InvoiceContract, Total: dec("1925"), Items: []InvoiceItem{{ItemID: 1, Amount: dec("1500.5")}},
		LateFee: LateFee{TicketLateFeePercentage: dec("10"), TicketLateFeeInterest: dec("0.33"),
			TicketDiscountFixed: dec("0"), TicketDiscountPercentage: dec("5")}}
	b, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"total": "1925.00", "ticket_late_fee_percentage": "10.00",
		"ticket_late_fee_interest": "0.33", "ticket_discount_fixed": "0.00", "ticket_discount_percentage": "5.00",
		"items": `[{"item_id":1,"amount":1500.50}]`} {
		if string(fields[name]) != want {
			t.Errorf("%s: %s, want %s (all: %s)", name, fields[name], want, b)
		}
	}
	var back Invoice
	if err := json.Unmarshal(b, &back); err != nil || !back.Total.Equal(inv.Total) || !back.Items[0].Amount.Equal(inv.Items[0].Amount) ||
		!back.TicketDiscountPercentage.Equal(inv.TicketDiscountPercentage) || !back.TicketLateFeeInterest.Equal(inv.TicketLateFeeInterest) {
		t.Errorf("read back: %+v, %v", back, err)
	}
}
