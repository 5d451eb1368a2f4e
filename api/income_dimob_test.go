package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// yearEndFixture is incomeFixture's building and contract made a
// declared rental (the contract with dimob, signed; the business with its
// responsible person and address), with a late fee item for each way of
// its two flags (owner_report and dimob, both false by default) and an
// administration fee of type default marked dimob.
type yearEndFixture struct {
	*incomeFixture
	feeItems   map[string]int64 // by "report=<bool> dimob=<bool>"
	adminOther int64            // type default, debit owner, credit business, dimob
}

func yearEndEnv(t *testing.T, opts ...envOption) *yearEndFixture {
	t.Helper()
	f := &yearEndFixture{incomeFixture: incomeEnv(t, opts...), feeItems: map[string]int64{}}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/financial/businesses/%d", f.business), f.keyA, map[string]any{
		"name": "Horizonte Imóveis Ltda", "responsible_cpf": "123.456.789-09", "street": "Rua da Consolação",
		"number": "1000", "district": "Consolação", "city": "São Paulo", "state": "SP", "zip_code": "01302-000"}); r.status != http.StatusOK {
		t.Fatalf("business: %d %s", r.status, r.raw)
	}
	f.exec(t, `UPDATE contracts SET dimob = true, signed_at = '2023-12-20' WHERE company_id = $1 AND id = $2`, f.compA, f.contract)
	for _, id := range []int64{f.rent, f.adminFee, f.irrf} {
		if r := f.do(t, http.MethodPut, fmt.Sprintf("/financial/transactionItems/%d", id), f.keyA, map[string]any{"dimob": true}); r.status != http.StatusOK {
			t.Fatalf("item %d: %d %s", id, r.status, r.raw)
		}
	}
	for _, report := range []bool{false, true} {
		for _, dimob := range []bool{false, true} {
			key := fmt.Sprintf("report=%v dimob=%v", report, dimob)
			f.feeItems[key] = f.create(t, "/financial/transactionItems", map[string]any{"description": "Multa e juros (" + key + ")",
				"debit": "customer", "credit": "owner", "type": "fee", "owner_report": report, "dimob": dimob})
		}
	}
	f.adminOther = f.create(t, "/financial/transactionItems", map[string]any{"description": "Taxa de administração (antiga)",
		"debit": "owner", "credit": "business", "type": "default", "owner_report": true, "dimob": true})
	return f
}

// lateInvoice is rentInvoice's invoice of month, with its late fee and
// interest, the administration fee booked as admin.
func (f *yearEndFixture) lateInvoice(t *testing.T, month string, admin int64) int64 {
	t.Helper()
	return f.create(t, "/invoices", map[string]any{"type": "contract", "contract_id": f.contract, "payer_id": f.tenant,
		"business_id": f.business, "account_id": f.account, "description": "Aluguel " + month, "total": "2310.00",
		"date": month + "-01", "due_date": month + "-10", "billing_method": "ticket",
		"items":           lines(f.rent, "2000.00", f.condo, "350.00", admin, "200.00", f.irrf, "40.00"),
		"ticket_late_fee": true, "ticket_late_fee_percentage": "2", "ticket_late_fee_interest": "1"})
}

// payLate pays an invoice as pay does, its late fee and interest booked as
// the fee item of the flags given: the only active item of type fee of the
// company while it is paid (a payment books them as the company's active
// fee item).
func (f *yearEndFixture) payLate(t *testing.T, id int64, paidAt, creditAt string, report, dimob bool) {
	t.Helper()
	f.exec(t, `UPDATE transaction_items SET active = (id = $2) WHERE company_id = $1 AND type = 'fee'`, f.compA,
		f.feeItems[fmt.Sprintf("report=%v dimob=%v", report, dimob)])
	f.pay(t, id, paidAt, creditAt)
}

// year is 2024 with late payments, each month's late fee on another of
// the fee items: January on time; February guaranteed on the 15th and
// paid late on the 29th, credited on March 1st (its late fee on an item
// with owner_report false and dimob true); March paid in April (false,
// false); April on time; May late (true, true); June late (true, false),
// its administration fee of type default; July paid on time, its month
// closed, then its payment undone (on August 5th) and paid again late on
// the 12th (false, true); December paid on the 31st, credited on January
// 2nd. The months are closed through January 2025.
func (f *yearEndFixture) year(t *testing.T) {
	t.Helper()
	jan := f.lateInvoice(t, "2024-01", f.adminFee)
	f.payLate(t, jan, "2024-01-08", "2024-01-09", false, true)
	feb := f.lateInvoice(t, "2024-02", f.adminFee)
	f.run(t, "contracts:transfer", `{"date":"2024-02-15"}`)
	f.payLate(t, feb, "2024-02-29", "2024-03-01", false, true)
	mar := f.lateInvoice(t, "2024-03", f.adminFee)
	f.payLate(t, mar, "2024-04-02", "2024-04-03", false, false)
	apr := f.lateInvoice(t, "2024-04", f.adminFee)
	f.payLate(t, apr, "2024-04-10", "2024-04-10", false, false)
	may := f.lateInvoice(t, "2024-05", f.adminFee)
	f.payLate(t, may, "2024-05-24", "2024-05-27", true, true)
	jun := f.lateInvoice(t, "2024-06", f.adminOther)
	f.payLate(t, jun, "2024-06-17", "2024-06-18", true, false)
	jul := f.lateInvoice(t, "2024-07", f.adminFee)
	f.payLate(t, jul, "2024-07-10", "2024-07-11", false, true)
	f.run(t, "owners:statements", `{"month":"2024-01"}`)
	f.run(t, "owners:statements", `{"month":"2024-07"}`)
	f.pay(t, jul, "", "")
	f.exec(t, `UPDATE transactions SET date = '2024-08-05' WHERE company_id = $1 AND mode = 'chargeback'`, f.compA)
	f.payLate(t, jul, "2024-08-12", "2024-08-13", false, true)
	dec := f.lateInvoice(t, "2024-12", f.adminFee)
	f.payLate(t, dec, "2024-12-31", "2025-01-02", true, true)
	f.run(t, "owners:statements", `{"month":"2025-01"}`)
}

// informeCents is an owner's 2024 report of the contract, month by month
// (gross rent, administration fee and tax withheld, in cents), and its
// year and the report's as "year rent commission tax".
func (f *yearEndFixture) informeCents(t *testing.T, owner int64) (months *monthCents, contractYear, reportYear string) {
	t.Helper()
	r := f.get(t, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024", owner), http.StatusOK)
	var out monthCents
	report := r.data(t)[0]
	if report["final"] != true || report["warning"] != nil {
		t.Errorf("owner %d's 2024, closed through January 2025, is not final: %s", owner, r.raw)
	}
	contracts := report["contracts"].([]any)
	if len(contracts) != 1 {
		t.Fatalf("owner %d's report has %d contracts: %s", owner, len(contracts), r.raw)
	}
	contract := contracts[0].(map[string]any)
	for i, m := range contract["months"].([]any) {
		m := m.(map[string]any)
		for k, key := range []string{"gross_rent", "admin_fee", "tax_withheld"} {
			out[i][k] = cents(t, decimal.RequireFromString(fmt.Sprint(m[key])))
		}
	}
	year := func(total any) string {
		m := total.(map[string]any)
		return fmt.Sprintf("year %v %v %v", m["gross_rent"], m["admin_fee"], m["tax_withheld"])
	}
	return &out, year(contract["total"]), year(report["total"])
}

// yearText writes a year of cents as "MM rent commission tax" lines for
// the months with an amount, then "year rent commission tax".
func yearText(m *monthCents) string {
	var b strings.Builder
	var total [3]int64
	for i, mo := range m {
		if mo != [3]int64{} {
			fmt.Fprintf(&b, "%02d %s %s %s\n", i+1, decimal.New(mo[0], -2).StringFixed(2), decimal.New(mo[1], -2).StringFixed(2),
				decimal.New(mo[2], -2).StringFixed(2))
		}
		for k := range total {
			total[k] += mo[k]
		}
	}
	fmt.Fprintf(&b, "year %s %s %s", decimal.New(total[0], -2).StringFixed(2), decimal.New(total[1], -2).StringFixed(2),
		decimal.New(total[2], -2).StringFixed(2))
	return b.String()
}

// TestIncomeReportsAgreeWithDimob: for a year of late payments whose late
// fee and interest are booked on items with owner_report and dimob each
// way, an administration fee of type default marked dimob among them, a
// guaranteed month, a payment on the last day of a month credited the
// next, one undone after its month was closed and paid again, and one paid
// on December 31st and credited in January, each owner's income report of
// 2024 and the R02 of the DIMOB of 2024 (the file the job writes, read
// back) hold the same rent, administration fee and tax withheld, month by
// month and over the year, to the cent; and both are what the tenant paid.
func TestIncomeReportsAgreeWithDimob(t *testing.T) {
	t.Parallel()
	f := yearEndEnv(t)
	f.year(t)
	d := &dimobFixture{testEnv: f.testEnv, business: f.business}
	_, run := d.run(t, 2024)
	if run["status"] != "written" {
		t.Fatalf("the DIMOB of 2024: %v", run)
	}
	_, _, decl := d.file(t, num(t, run["id"]))
	if len(decl.Rentals) != 2 {
		t.Fatalf("%d rentals, want Ana's and Bruno's", len(decl.Rentals))
	}
	for i, o := range []struct {
		id    int64
		taxID string
		want  string
	}{
		// January on time; February paid on the 29th, 19 days late (late
		// fee 2% of 2,310.00 = 46.20, interest 14.63; Ana's 60%: 27.72 and
		// 8.78, the cent left of the split to the largest share); March in
		// April, 23 days late, beside April's; May 14 days, June 7 (its fee
		// of type default with dimob), July's paid again in August 33 days
		// late (July nets to nothing), December on the 31st, 21 days late
		{f.ana, "52998224725", `01 1200.00 120.00 24.00
02 1236.50 120.00 24.00
04 2438.35 240.00 48.00
05 1234.19 120.00 24.00
06 1230.96 120.00 24.00
08 1242.97 120.00 24.00
12 1237.43 120.00 24.00
year 9820.40 960.00 192.00`},
		{f.bruno, "11144477735", `01 800.00 80.00 16.00
02 824.33 80.00 16.00
04 1625.56 160.00 32.00
05 822.79 80.00 16.00
06 820.63 80.00 16.00
08 828.64 80.00 16.00
12 824.94 80.00 16.00
year 6546.89 640.00 128.00`},
	} {
		r := decl.Rentals[i]
		if r.Owner.TaxID != o.taxID || r.Contract.Number != "L-0456" {
			t.Fatalf("rentals[%d]: %+v", i, r)
		}
		fromDimob := fileCents(t, r)
		fromInforme, contractYear, reportYear := f.informeCents(t, o.id)
		compareMonths(t, fmt.Sprintf("%s: the income report against the DIMOB", r.Owner.Name), fromInforme, fromDimob)
		if got := yearText(fromDimob); got != o.want {
			t.Errorf("%s's 2024 in the DIMOB:\n%s\nwant\n%s", r.Owner.Name, got, o.want)
		}
		year := o.want[strings.LastIndexByte(o.want, '\n')+1:]
		if contractYear != year || reportYear != year {
			t.Errorf("%s's 2024 in the income report: the contract's %s, the report's %s; the DIMOB's %s",
				r.Owner.Name, contractYear, reportYear, year)
		}
	}
}

// todayInZone moves company A to time zone and reads its today as the
// code reads dates: the database's clock in the company's time zone.
func todayInZone(t *testing.T, e *testEnv, zone string) finance.Date {
	t.Helper()
	e.exec(t, `UPDATE companies SET time_zone = $2 WHERE id = $1`, e.compA, zone)
	today, err := storage.CompanyToday(t.Context(), e.pool, e.compA)
	if err != nil {
		t.Fatal(err)
	}
	return today
}

// TestDimobOfTheYearNotOver: a DIMOB declares a closed calendar year; the
// year still running in the company's time zone is refused for a file
// (422 on year, saying so, nothing recorded; a submission of its job
// alike) and previewed with a warning on the year.
func TestDimobOfTheYearNotOver(t *testing.T) {
	t.Parallel()
	f := dimobEnv(t)
	today := todayInZone(t, f.testEnv, "Pacific/Kiritimati")
	current := today.Year()
	notOver := fmt.Sprintf("%d is not over (today is %s in the company's time zone)", current, today)

	r := f.do(t, http.MethodPost, "/financial/dimob", f.keyA, f.dimobBody(current, nil))
	if r.status != http.StatusUnprocessableEntity || fmt.Sprint(r.problemFields(t)) != "[year]" ||
		!strings.Contains(r.raw, notOver) || !strings.Contains(r.raw, "preview: true") {
		t.Errorf("the file of %d: %d %s", current, r.status, r.raw)
	}
	_, _, err := f.srv.jobs.Submit(t.Context(), f.pool, f.compA, jobs.NewDimobFile(jobs.DimobPayload{BusinessID: f.business, Year: current}))
	var coded *finance.Error
	if !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) != 1 ||
		coded.Problems[0].Field != "payload.year" || !strings.HasPrefix(coded.Problems[0].Message, notOver) {
		t.Errorf("the job of %d submitted: %v", current, err)
	}
	if n, m := f.count(t, "dimob_runs"), f.count(t, "jobs"); n != 0 || m != 0 {
		t.Errorf("the refused requests recorded %d runs and %d jobs", n, m)
	}
	r = f.do(t, http.MethodPost, "/financial/dimob", f.keyA, map[string]any{"business_id": f.business + 1000, "year": current})
	if r.status != http.StatusUnprocessableEntity || fmt.Sprint(r.problemFields(t)) != "[business_id year]" {
		t.Errorf("no such business, and the year not over: %d %s", r.status, r.raw)
	}

	check := f.preview(t, current)
	var year []map[string]any
	for _, w := range dimobProblems(t, check, "warnings") {
		if w["record"] == "declaration" && w["declaration_field"] == "year" {
			year = append(year, w)
		}
	}
	if check["blocks"] != false || len(year) != 1 || year[0]["field"] != "year" || year[0]["resource"] != "" ||
		!strings.HasPrefix(fmt.Sprint(year[0]["message"]), notOver) ||
		!strings.HasSuffix(fmt.Sprint(year[0]["message"]), "the check reads the year so far") {
		t.Errorf("the preview of %d: %v", current, check)
	}
	for _, w := range dimobProblems(t, f.preview(t, current-1), "warnings") {
		if w["declaration_field"] == "year" {
			t.Errorf("the preview of %d: %v", current-1, w)
		}
	}
}

// TestIncomeReportOfTheYearNotOver: the report of the year still running
// in the company's time zone is answered, the months closed so far, with
// final false and a warning that says so; its link is refused with the
// same words; the year after is a 422.
func TestIncomeReportOfTheYearNotOver(t *testing.T) {
	t.Parallel()
	f := incomeEnv(t, withReceipts())
	today := todayInZone(t, f.testEnv, "Pacific/Kiritimati")
	current := today.Year()
	notOver := fmt.Sprintf("%d is not over (today is %s in the company's time zone)", current, today)

	r := f.get(t, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=%d", f.ana, current), http.StatusOK)
	report := r.data(t)[0]
	if report["final"] != false || !strings.HasPrefix(fmt.Sprint(report["warning"]), notOver) {
		t.Errorf("the report of %d: %s", current, r.raw)
	}
	checkAnswerSchema(t, f.testEnv, "/financial/incomeReports", r.raw)
	r = f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=%d", f.ana, current),
		f.keyA, nil)
	if r.status != http.StatusUnprocessableEntity || fmt.Sprint(r.problemFields(t)) != "[filter[year]]" || !strings.Contains(r.raw, notOver) {
		t.Errorf("the link of %d: %d %s", current, r.status, r.raw)
	}
	for _, path := range []string{"/financial/incomeReports", "/financial/incomeReports/link"} {
		r := f.do(t, http.MethodGet, fmt.Sprintf("%s?filter[owner_id]=%d&filter[year]=%d", path, f.ana, current+1), f.keyA, nil)
		if r.status != http.StatusUnprocessableEntity || fmt.Sprint(r.problemFields(t)) != "[filter[year]]" ||
			!strings.Contains(r.raw, fmt.Sprintf("is after the current year, %d (today is %s", current, today)) {
			t.Errorf("%s of %d: %d %s", path, current+1, r.status, r.raw)
		}
	}
}
