package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// refund gives back amount of invoice id's payment on date.
func (f *yearEndFixture) refund(t *testing.T, id int64, amount, date string) {
	t.Helper()
	r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/refund", id), f.keyA,
		map[string]any{"amount": amount, "date": date, "reason": "cobrança a maior"})
	if r.status != http.StatusOK {
		t.Fatalf("refund of invoice %d on %s: %d %s", id, date, r.status, r.raw)
	}
}

// TestRefundInTheDimob: November's rent paid on the 26th and refunded
// 100.00 on December 4th, December's rent paid in January. The refund
// counts in November, the month of the payment it gives back (the same
// year): November is the rent less the refund, December holds nothing
// and is not negative, the DIMOB does not block, and each owner's income
// report holds the same months to the cent. A refund in January 2025 of
// all of October 2024's payment counts in October too (October holds
// nothing), and the DIMOB of 2024 warns that one filed before it is to be
// amended; the DIMOB of 2025 does not block.
func TestRefundInTheDimob(t *testing.T) {
	t.Parallel()
	f := yearEndEnv(t)
	f.run(t, "owners:statements", `{"month":"2024-01"}`)
	nov := f.rentInvoice(t, "2024-11", false)
	f.pay(t, nov, "2024-11-26", "2024-11-26")
	// 100.00 of 2,310.00 (docs/ledger.md, "Refunds"): the rent 86.59 (86.58
	// and the cent the payer's lines lack), the condominium 15.15, the
	// administration fee 8.65, the IRRF 1.74 (rounded up: it credits the
	// payer); Ana's 60% of the rent 51.96 (51.95 and the cent left), of the
	// fee 5.19, of the IRRF 1.05; Bruno's 34.63, 3.46 and 0.69
	f.refund(t, nov, "100.00", "2024-12-04")
	dec := f.rentInvoice(t, "2024-12", false)
	f.pay(t, dec, "2025-01-06", "2025-01-06")
	oct := f.rentInvoice(t, "2024-10", false)
	f.pay(t, oct, "2024-10-08", "2024-10-08")
	f.refund(t, oct, "2310.00", "2025-01-07") // all of it, in the next year
	f.run(t, "owners:statements", `{"month":"2025-01"}`)

	d := &dimobFixture{testEnv: f.testEnv, business: f.business}
	check := d.preview(t, 2024)
	if check["blocks"] != false {
		t.Errorf("the DIMOB of 2024 blocks: %v", check["problems"])
	}
	var later []string
	for _, w := range dimobProblems(t, check, "warnings") {
		if strings.HasPrefix(fmt.Sprint(w["declaration_field"]), "months") {
			later = append(later, fmt.Sprintf("%v %v %v: %v", w["record"], w["declaration_field"], w["resource"], w["message"]))
		}
	}
	refunded := fmt.Sprintf(" months[9].rent transactions: the refund of invoice %d on 2025-01-07 gives back a payment of 2024-10-08 "+
		"and counts in October, the payment's month: if the DIMOB of 2024 was filed before 2025-01-07, file this one as its "+
		"amended declaration (amended, with the receipt of the one filed)", oct)
	if want := []string{"rentals[0]" + refunded, "rentals[1]" + refunded}; !slices.Equal(later, want) {
		t.Errorf("the DIMOB of 2024 warns of its months:\n%s\nwant\n%s", strings.Join(later, "\n"), strings.Join(want, "\n"))
	}
	if check := d.preview(t, 2025); check["blocks"] != false {
		t.Errorf("the DIMOB of 2025 blocks: %v", check["problems"])
	}
	amended := d.do(t, http.MethodPost, "/financial/dimob", f.keyA, d.dimobBody(2024, map[string]any{"preview": true,
		"amended": true, "receipt_number": "1234567890"}))
	if amended.status != http.StatusOK || strings.Contains(amended.raw, "the refund of invoice") {
		t.Errorf("the amended DIMOB of 2024 still says to amend: %d %s", amended.status, amended.raw)
	}
	_, run := d.run(t, 2024)
	if run["status"] != "written" {
		t.Fatalf("the DIMOB of 2024: %v", run)
	}
	_, _, decl := d.file(t, num(t, run["id"]))
	if len(decl.Rentals) != 2 {
		t.Fatalf("%d rentals, want Ana's and Bruno's", len(decl.Rentals))
	}
	for i, o := range []struct {
		id   int64
		want string
	}{
		// October refunded in all: nothing; November 1,200.00 − 51.96,
		// 120.00 − 5.19, 24.00 − 1.05 (Bruno's 800.00 − 34.63, 80.00 −
		// 3.46, 16.00 − 0.69); December paid in January: 2025's
		{f.ana, `11 1148.04 114.81 22.95
year 1148.04 114.81 22.95`},
		{f.bruno, `11 765.37 76.54 15.31
year 765.37 76.54 15.31`},
	} {
		r := decl.Rentals[i]
		fromDimob := fileCents(t, r)
		if got := yearText(fromDimob); got != o.want {
			t.Errorf("%s's 2024 in the DIMOB:\n%s\nwant\n%s", r.Owner.Name, got, o.want)
		}
		fromInforme, contractYear, reportYear := f.informeCents(t, o.id)
		compareMonths(t, fmt.Sprintf("%s: the income report against the DIMOB", r.Owner.Name), fromInforme, fromDimob)
		year := o.want[strings.LastIndexByte(o.want, '\n')+1:]
		if contractYear != year || reportYear != year {
			t.Errorf("%s's 2024 in the income report: the contract's %s, the report's %s; the DIMOB's %s",
				r.Owner.Name, contractYear, reportYear, year)
		}
	}
}
