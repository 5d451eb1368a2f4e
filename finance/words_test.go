package finance

import "testing"

func TestDiasAndDays(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n          int
		dias, days string
	}{
		{0, "0 dias", "0 days"},
		{1, "1 dia", "1 day"},
		{2, "2 dias", "2 days"},
		{61, "61 dias", "61 days"},
	} {
		if got := Dias(c.n); got != c.dias {
			t.Errorf("Dias(%d) = %q, want %q", c.n, got, c.dias)
		}
		if got := Days(c.n); got != c.days {
			t.Errorf("Days(%d) = %q, want %q", c.n, got, c.days)
		}
	}
}

// TestInterestLineOfOneDay: a payment one day late is described "Juros de
// mora (1 dia)", in the ledger and in an agreement's installment.
func TestInterestLineOfOneDay(t *testing.T) {
	t.Parallel()
	inv := ledgerInvoice()
	p, err := PostPayment(ledgerInput(t, inv, inv.DueDate.AddDays(1).String()))
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, l := range p.Lines {
		if l.Kind == LineInterest {
			found = true
			if l.Description != "Juros de mora (1 dia)" {
				t.Errorf("interest line %q, want \"Juros de mora (1 dia)\"", l.Description)
			}
		}
	}
	if !found {
		t.Fatalf("no interest line one day late: %+v", p.Lines)
	}
}
