package jobs

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/pix"
	"github.com/propfin/propfin/storage"
)

// TestDropStaleMeans: the reminder of a partly paid invoice leaves out its
// boleto (of the whole total) and a PIX code charging more than the
// balance due, and keeps a code of the balance or one without an amount;
// an invoice with no part keeps both.
func TestDropStaleMeans(t *testing.T) {
	t.Parallel()
	code := func(amount string) string {
		c, err := pix.BuildStatic(pix.Static{Key: "52998224725", Name: "Horizonte Imoveis", City: "Sao Paulo", Amount: amount})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	d := decimal.RequireFromString
	const line = "23791234059000000000104009876501716550000080000"
	partly := finance.PaidSoFar{Principal: d("300.00"), Parts: 1}
	for _, c := range []struct {
		name           string
		paid           finance.PaidSoFar
		pix            string
		keepPix, stale bool
	}{
		{"partly paid, a code of the total", partly, code("800.00"), false, true},
		{"partly paid, a code of the balance", partly, code("500.00"), true, true},
		{"partly paid, a code without an amount", partly, code(""), true, true},
		{"no part", finance.PaidSoFar{}, code("800.00"), true, false},
	} {
		n := ReminderNotice{DueReminder: storage.DueReminder{PixCode: c.pix, Digitable: line, Paid: c.paid},
			Settlement: finance.Settlement{Invoice: d("500.00"), Total: d("500.00")}}
		n.dropStaleMeans()
		if (n.PixCode != "") != c.keepPix || (n.Digitable == "") != (c.paid.Parts > 0) || n.StaleMeans != c.stale {
			t.Errorf("%s: pix %q, boleto %q, stale %v", c.name, n.PixCode, n.Digitable, n.StaleMeans)
		}
	}
}
