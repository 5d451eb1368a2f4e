package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/propfin/propfin/api/statement/pdftext"
)

// TestIncomeReportBesideALaterRefund: a refund made after the year of one
// of its payments counts in the payment's month in both documents
// (docs/dimob.md, "Refunds"). Until the month the refund is in is closed,
// the income report, read from the closed statements, does not hold it:
// it is then not final, warns in the DIMOB's words, and its link is
// refused; once that month is closed it is final again and holds the
// refund, month by month what the DIMOB of the year declares.
func TestIncomeReportBesideALaterRefund(t *testing.T) {
	t.Parallel()
	f := yearEndEnv(t, withReceipts())
	jan := f.lateInvoice(t, "2024-01", f.adminFee)
	f.payLate(t, jan, "2024-01-08", "2024-01-09", false, true)
	f.run(t, "owners:statements", `{"month":"2024-01"}`)
	f.run(t, "owners:statements", `{"month":"2025-01"}`)
	report := fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024", f.ana)
	if r := f.get(t, report, http.StatusOK); r.data(t)[0]["final"] != true {
		t.Fatalf("before the refund, 2024 closed through January 2025 is not final: %s", r.raw)
	}
	given := f.get(t, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=2024", f.ana), http.StatusOK).record(t)
	givenURL, _ := given["url"].(string)
	if page := informePage(t, givenURL); strings.Contains(page, "retificado") {
		t.Errorf("the final informe's page has a notice:\n%s", page)
	}

	if r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/refund", jan), f.keyA,
		map[string]any{"amount": "231.00", "date": "2025-02-05", "reason": "desconto concedido depois"}); r.status != http.StatusOK {
		t.Fatalf("refund: %d %s", r.status, r.raw)
	}
	refund := fmt.Sprintf("the refund of invoice %d on 2025-02-05 gives back a payment of 2024-01-08 and counts in January, "+
		"the payment's month", jan)
	d := &dimobFixture{testEnv: f.testEnv, business: f.business}
	if p := d.preview(t, 2024); !strings.Contains(fmt.Sprint(p), refund) {
		t.Fatalf("the DIMOB's preview does not warn of the refund: %v", p)
	}
	r := f.get(t, report, http.StatusOK)
	got := r.data(t)[0]
	if got["final"] != false || !strings.HasPrefix(fmt.Sprint(got["warning"]), refund) ||
		!strings.Contains(fmt.Sprint(got["warning"]), "2025-02 is closed") {
		t.Errorf("with the refund on no closed statement, the report: final %v, warning %v", got["final"], got["warning"])
	}
	checkAnswerSchema(t, f.testEnv, "/financial/incomeReports", r.raw)
	link := fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=2024", f.ana)
	if r := f.do(t, http.MethodGet, link, f.keyA, nil); r.status != http.StatusUnprocessableEntity ||
		fmt.Sprint(r.problemFields(t)) != "[filter[year]]" || !strings.Contains(r.raw, refund) {
		t.Errorf("the link with the refund on no closed statement: %d %s", r.status, r.raw)
	}
	// the link given while it was final opens with the closed figures and
	// says they leave the refund out, on the page and in the PDF
	notice := fmt.Sprintf("Este informe será retificado: o estorno da fatura %d em 05/02/2025, que devolve um pagamento "+
		"de 08/01/2024 (conta em janeiro de 2024) ainda não consta de uma prestação de contas fechada, e os valores abaixo "+
		"não o incluem. O informe retificado é emitido depois do fechamento de fevereiro de 2025.", jan)
	if page := informePage(t, givenURL); !strings.Contains(page, notice) {
		t.Errorf("the page of the link given before the refund lacks the notice %q:\n%s", notice, page)
	}
	if pdf := informePDF(t, givenURL); !strings.Contains(pdf, "Este informe será retificado: o estorno da fatura") {
		t.Errorf("the PDF of the link given before the refund lacks the notice:\n%s", pdf)
	}
	// Bruno's report names the same refund: his share was refunded too
	if r := f.get(t, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024", f.bruno), http.StatusOK); r.data(t)[0]["final"] != false {
		t.Errorf("Bruno's report with the refund on no closed statement: %s", r.raw)
	}

	f.run(t, "owners:statements", `{"month":"2025-02"}`)
	if page := informePage(t, givenURL); strings.Contains(page, "retificado") {
		t.Errorf("once February is closed the page still has a notice:\n%s", page)
	}
	_, run := d.run(t, 2024)
	_, _, decl := d.file(t, num(t, run["id"]))
	if len(decl.Rentals) != 2 {
		t.Fatalf("%d rentals, want Ana's and Bruno's", len(decl.Rentals))
	}
	for i, o := range []struct {
		id   int64
		want string
	}{
		// January: rent 2,000.00 less the refund's part of it (231.00 of
		// 2,310.00: 10%, 200.00), the fee and the IRRF given back in part
		// with it; Ana 60%, Bruno 40%
		{f.ana, "01 1080.00 108.00 21.60\nyear 1080.00 108.00 21.60"},
		{f.bruno, "01 720.00 72.00 14.40\nyear 720.00 72.00 14.40"},
	} {
		fromDimob := fileCents(t, decl.Rentals[i])
		fromInforme, _, reportYear := f.informeCents(t, o.id)
		compareMonths(t, fmt.Sprintf("owner %d: the income report against the DIMOB", o.id), fromInforme, fromDimob)
		if got := yearText(fromDimob); got != o.want {
			t.Errorf("owner %d's 2024 in the DIMOB:\n%s\nwant\n%s", o.id, got, o.want)
		}
		if year := o.want[strings.LastIndexByte(o.want, '\n')+1:]; reportYear != year {
			t.Errorf("owner %d's 2024 in the income report: %s, the DIMOB's %s", o.id, reportYear, year)
		}
	}
}

// informePage is the text of the public page of an income report link.
func informePage(t *testing.T, url string) string {
	t.Helper()
	status, _, body := fetchPublic(t, url)
	if status != http.StatusOK {
		t.Fatalf("%s: %d %s", url, status, body)
	}
	return pageText(body)
}

// informePDF is the text of the PDF of an income report link, its pages
// joined.
func informePDF(t *testing.T, url string) string {
	t.Helper()
	status, _, body := fetchPublic(t, url+"/pdf")
	if status != http.StatusOK {
		t.Fatalf("%s/pdf: %d", url, status)
	}
	doc, err := pdftext.Parse(body)
	if err != nil {
		t.Fatalf("%s/pdf: %v", url, err)
	}
	pages, err := doc.PageTexts()
	if err != nil {
		t.Fatalf("%s/pdf: %v", url, err)
	}
	return strings.Join(pages, " ")
}
