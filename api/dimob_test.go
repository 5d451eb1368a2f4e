package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance/dimob"
)

// payLedger writes the fixture's year through the API: L-0123's rent of
// November 2023 (paid then), of December 2023 (paid in January 2024), of
// January, of February (paid on the 29th, credited on March 1st), of March
// (paid late, in April), of April, of May (paid, undone, paid again in
// June) and of December 2024 (paid in January 2025); a rent of the
// contract without dimob paid in March; and the sale's commission, paid by
// the seller in August.
func (f *dimobFixture) payLedger(t *testing.T) {
	t.Helper()
	for _, p := range []struct{ month, paid, credit string }{
		{"2023-11", "2023-11-10", "2023-11-10"},
		{"2023-12", "2024-01-05", "2024-01-08"},
		{"2024-01", "2024-01-10", "2024-01-11"},
		{"2024-02", "2024-02-29", "2024-03-01"},
		{"2024-03", "2024-04-15", "2024-04-16"},
		{"2024-04", "2024-04-10", "2024-04-10"},
		{"2024-05", "2024-05-10", "2024-05-13"},
		{"2024-12", "2025-01-06", "2025-01-07"},
	} {
		f.invoices[p.month] = f.leaseInvoice(t, f.lease, p.month, nil)
		f.setPaid(t, f.invoices[p.month], p.paid, p.credit)
	}
	// May's payment undone (its reversal dated today, years later) and paid again
	f.setPaid(t, f.invoices["2024-05"], "", "")
	f.setPaid(t, f.invoices["2024-05"], "2024-06-03", "2024-06-04")

	f.invoices["off"] = f.leaseInvoice(t, f.leaseOff, "2024-03", nil)
	f.setPaid(t, f.invoices["off"], "2024-03-10", "2024-03-11")

	f.invoices["sale"] = f.create(t, "/invoices", map[string]any{
		"type": "contract", "contract_id": f.sale, "building_id": f.saleBuilding, "payer_id": f.seller,
		"business_id": f.business, "account_id": f.account, "description": "Comissão V-0042", "total": "51000.00",
		"date": "2024-08-20", "due_date": "2024-08-25", "billing_method": "ticket",
		"items": []any{map[string]any{"item_id": f.comm, "amount": "51000.00"}}})
	f.setPaid(t, f.invoices["sale"], "2024-08-25", "2024-08-26")
}

// monthCents is a year of one owner's amounts, in cents: rent, commission
// and tax withheld by month (0 = January).
type monthCents [12][3]int64

func cents(t *testing.T, d decimal.Decimal) int64 {
	t.Helper()
	if !d.Round(2).Equal(d) {
		t.Fatalf("%s is finer than a cent", d)
	}
	return d.Shift(2).IntPart()
}

// fromLedger sums, per owner, the year's declared amounts from L-0123's
// entries as GET /transactions gives them: the payments that stand (a
// payment entry no reversal points at), of the items with dimob, each in
// the month its invoice says the tenant paid (paid_at).
func (f *dimobFixture) fromLedger(t *testing.T, year int) map[int64]*monthCents {
	t.Helper()
	entries := f.get(t, fmt.Sprintf("/transactions?filter[contract_id]=%d&filter[extract]=owner&perPage=100", f.lease),
		http.StatusOK).data(t)
	reversed := map[int64]bool{}
	for _, e := range entries {
		if e["mode"] == "chargeback" {
			reversed[num(t, e["reverses_id"])] = true
		}
	}
	if len(reversed) == 0 {
		t.Fatal("the ledger has no reversal: the fixture should undo a payment")
	}
	paidAt := map[int64]string{}
	out := map[int64]*monthCents{}
	for _, e := range entries {
		if e["mode"] != "invoice" || reversed[num(t, e["id"])] {
			continue
		}
		kind := map[int64]int{f.rent: 0, f.adminFee: 1, f.irrf: 2}
		k, declared := kind[num(t, e["item_id"])]
		if !declared {
			continue // the condominium: dimob false
		}
		inv := num(t, e["invoice_id"])
		if _, ok := paidAt[inv]; !ok {
			paidAt[inv] = f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t)["paid_at"].(string)
		}
		day := paidAt[inv]
		if !strings.HasPrefix(day, fmt.Sprint(year)+"-") {
			continue
		}
		var month int
		fmt.Sscanf(day[5:7], "%d", &month)
		amount := cents(t, decimal.RequireFromString(fmt.Sprint(e["amount"])))
		// rent is what the owner is credited; commission and tax what it is debited
		if (k == 0) != (e["type"] == "credit") {
			amount = -amount
		}
		owner := num(t, e["owner_id"])
		if out[owner] == nil {
			out[owner] = &monthCents{}
		}
		out[owner][month-1][k] += amount
	}
	return out
}

// scenario is a year's amounts of an owner whose share of one month's
// invoice is rent, fee and tax (cents), paid times[m] times in month m.
func scenario(rent, fee, tax int64, times [12]int64) *monthCents {
	var m monthCents
	for i, n := range times {
		m[i] = [3]int64{n * rent, n * fee, n * tax}
	}
	return &m
}

// fileCents is a rental's months as the file holds them.
func fileCents(t *testing.T, r dimob.Rental) *monthCents {
	t.Helper()
	var m monthCents
	for i, mo := range r.Months {
		m[i] = [3]int64{cents(t, mo.Rent), cents(t, mo.Commission), cents(t, mo.TaxWithheld)}
	}
	return &m
}

func compareMonths(t *testing.T, what string, got, want *monthCents) {
	t.Helper()
	for m := range want {
		for k, name := range []string{"rent", "commission", "tax withheld"} {
			if got[m][k] != want[m][k] {
				t.Errorf("%s: month %d %s = %d cents, want %d", what, m+1, name, got[m][k], want[m][k])
			}
		}
	}
}

// TestDimobFromTheLedger: the DIMOB of 2024 of a ledger paid through the
// API and written by a real worker. The preview writes nothing; the job
// writes a file that finance/dimob reads back at every position; its R02
// records are one per owner of L-0123, and their months, cent by cent,
// are the owners' entries of the items with dimob, in the month the tenant
// paid (not the month due or credited): December 2023's rent in January,
// February's paid on the 29th and credited in March in February, March's
// in April, May's undone (its reversal dated years later) and paid again
// in June, December 2024's out (it is 2025's); the condominium (an item
// without dimob) and the contract without dimob are left out. R04 is the
// sale with its commission. 2025's DIMOB has December's rent in January.
func TestDimobFromTheLedger(t *testing.T) {
	t.Parallel()
	f := dimobEnv(t)
	f.payLedger(t)

	runs, jobsBefore := f.count(t, "dimob_runs"), f.count(t, "jobs")
	check := f.preview(t, 2024)
	if check["blocks"] != false || num(t, check["rentals"]) != 2 || num(t, check["sales"]) != 1 ||
		len(dimobProblems(t, check, "problems")) != 0 {
		t.Fatalf("preview: %v", check)
	}
	// The one warning: L-0999, paid in 2024 with dimob false, is left out.
	if ws := dimobProblems(t, check, "warnings"); len(ws) != 1 || ws[0]["contract"] != "L-0999" ||
		ws[0]["field"] != "dimob" || num(t, ws[0]["id"]) != f.leaseOff {
		t.Fatalf("preview's warnings: %v", ws)
	}
	if f.count(t, "dimob_runs") != runs || f.count(t, "jobs") != jobsBefore {
		t.Fatal("the preview wrote a run or a job")
	}

	job, run := f.run(t, 2024)
	result := job["result"].(map[string]any)
	if run["status"] != "written" || num(t, run["rentals"]) != 2 || num(t, run["sales"]) != 1 ||
		run["file_name"] != "DIMOB-11444777000161-2024.txt" || num(t, result["run_id"]) != num(t, run["id"]) ||
		result["status"] != "written" || len(dimobProblems(t, run, "problems")) != 0 {
		t.Fatalf("run %v, job result %v", run, result)
	}
	data, header, d := f.file(t, num(t, run["id"]))
	if got := header.Get("Content-Type"); got != "text/plain; charset=us-ascii" {
		t.Errorf("Content-Type %q", got)
	}
	if got := header.Get("Content-Disposition"); got != "attachment; filename=DIMOB-11444777000161-2024.txt" {
		t.Errorf("Content-Disposition %q", got)
	}
	if int64(len(data)) != num(t, run["file_size"]) || int64(len(data)) != num(t, result["bytes"]) {
		t.Errorf("%d bytes; the run says %v, the job %v", len(data), run["file_size"], result["bytes"])
	}

	dc := d.Declarant
	if dc.CNPJ != "11444777000161" || dc.Name != "Imobiliaria Conceicao Ltda" || dc.ResponsibleCPF != "12345678909" ||
		dc.Municipality != "7107" || dc.UF != "SP" || dc.Year != 2024 || dc.Amended ||
		dc.Address != "Rua da Consolacao, 1000, sala 12, Consolacao, Sao Paulo - SP, CEP 01302-000" {
		t.Errorf("declarant %+v", dc)
	}
	if len(d.Rentals) != 2 || len(d.Sales) != 1 {
		t.Fatalf("%d rentals and %d sales, want 2 and 1", len(d.Rentals), len(d.Sales))
	}
	ledger := f.fromLedger(t, 2024)
	jan, feb, apr, jun := 0, 1, 3, 5
	var times [12]int64
	times[jan], times[feb], times[apr], times[jun] = 2, 1, 2, 1
	for i, o := range []struct {
		id              int64
		taxID, name     string
		rent, fee, irrf int64
	}{
		{f.ownerA, "52998224725", "Jose Araujo", 600000, 60000, 9000},
		{f.ownerB, "11144477735", "Maria da Conceicao Ferreira", 400000, 40000, 6000},
	} {
		r := d.Rentals[i]
		if r.Owner.TaxID != o.taxID || r.Owner.Name != o.name || r.Tenant.TaxID != "11222333000181" ||
			r.Tenant.Name != "Padaria Pao de Acucar Ltda" || r.Contract.Number != "L-0123" ||
			r.Contract.Date.String() != "2023-03-15" || r.Property.Address != "Rua Augusta, 500, loja 2 - Consolacao" ||
			r.Property.CEP != "01305000" || r.Property.Municipality != "7107" || r.Property.UF != "SP" || r.Property.Rural {
			t.Errorf("rentals[%d] %+v", i, r)
		}
		got := fileCents(t, r)
		compareMonths(t, fmt.Sprintf("%s, the file against the ledger", o.name), got, ledger[o.id])
		compareMonths(t, fmt.Sprintf("%s, the file against the payments made", o.name), got, scenario(o.rent, o.fee, o.irrf, times))
	}
	s := d.Sales[0]
	if s.Contract.Number != "V-0042" || s.Contract.Date.String() != "2024-08-20" || s.Buyer.TaxID != "39053344705" ||
		s.Seller.TaxID != "71460238001" || s.Seller.Name != "Pedro Henrique Muller" || cents(t, s.Amount) != 85000000 ||
		cents(t, s.Commission) != 5100000 || s.Property.Municipality != "6291" || s.Property.CEP != "13025320" {
		t.Errorf("sale %+v", s)
	}

	// December 2024's rent, paid in January 2025, is 2025's
	next := f.preview(t, 2025)
	if num(t, next["rentals"]) != 2 || num(t, next["sales"]) != 0 {
		t.Errorf("2025: %v", next)
	}
}
