package api

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/statement/pdftext"
)

// incomeFixture is the worked month's building and contract (statementEnv:
// Ana 60%, Bruno 40%, guaranteed with 5 release days) rented to a company
// that withholds income tax, with every party's tax id and the property's
// address, and the items of an income report: the IRRF the tenant
// withholds (duty) and an administration fee left out of the owners'
// report.
type incomeFixture struct {
	*statementFixture
	irrf, hiddenFee int64
}

func incomeEnv(t *testing.T, opts ...envOption) *incomeFixture {
	t.Helper()
	f := &incomeFixture{statementFixture: statementEnv(t, opts...)}
	put := func(path string, body map[string]any) {
		t.Helper()
		if r := f.do(t, http.MethodPut, path, f.keyA, body); r.status != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", path, r.status, r.raw)
		}
	}
	put(fmt.Sprintf("/financial/businesses/%d", f.business), map[string]any{"tax_id": "11.444.777/0001-61"})
	put(fmt.Sprintf("/persons/%d", f.ana), map[string]any{"tax_id": "529.982.247-25"})
	put(fmt.Sprintf("/persons/%d", f.bruno), map[string]any{"tax_id": "11144477735"})
	put(fmt.Sprintf("/persons/%d", f.tenant), map[string]any{"name": "Padaria Pão de Açúcar Ltda", "tax_id": "11222333000181"})
	put(fmt.Sprintf("/buildings/%d", f.building), map[string]any{"street": "Rua Augusta", "number": "500", "complement": "loja 2",
		"district": "Consolação", "city": "São Paulo", "state": "SP", "zip_code": "01305-000"})
	f.exec(t, `UPDATE contracts SET reference = 'L-0456' WHERE company_id = $1 AND id = $2`, f.compA, f.contract)
	item := func(description, debit, credit, typ string, report bool) int64 {
		return f.create(t, "/financial/transactionItems", map[string]any{"description": description, "debit": debit,
			"credit": credit, "type": typ, "owner_report": report})
	}
	f.irrf = item("IRRF retido pelo locatário", "owner", "customer", "duty", true)
	f.hiddenFee = item("Taxa de administração: acerto interno", "owner", "business", "commission", false)
	return f
}

// rentInvoice is the contract's invoice of month (YYYY-MM): rent 2,000.00,
// condominium 350.00, the administration fee of 200.00 (not charged to
// the tenant) and 40.00 of IRRF credited to the tenant: 2,310.00, due on
// the 10th; with lateFee, 2% and 1% a month when paid late.
func (f *incomeFixture) rentInvoice(t *testing.T, month string, lateFee bool) int64 {
	t.Helper()
	body := map[string]any{"type": "contract", "contract_id": f.contract, "payer_id": f.tenant, "business_id": f.business,
		"account_id": f.account, "description": "Aluguel " + month, "total": "2310.00", "date": month + "-01",
		"due_date": month + "-10", "billing_method": "ticket",
		"items": lines(f.rent, "2000.00", f.condo, "350.00", f.adminFee, "200.00", f.irrf, "40.00")}
	if lateFee {
		body["ticket_late_fee"], body["ticket_late_fee_percentage"], body["ticket_late_fee_interest"] = true, "2", "1"
	}
	return f.create(t, "/invoices", body)
}

// pay marks an invoice paid on paidAt, credited on creditAt, or undoes its
// payment (paidAt "").
func (f *incomeFixture) pay(t *testing.T, id int64, paidAt, creditAt string) {
	t.Helper()
	body := map[string]any{"paid": false, "billing_method": "ticket"}
	if paidAt != "" {
		body = map[string]any{"paid": true, "paid_at": paidAt, "credit_at": creditAt, "billing_method": "ticket"}
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", id), f.keyA, body); r.status != http.StatusOK {
		t.Fatalf("invoice %d paid at %q: %d %s", id, paidAt, r.status, r.raw)
	}
}

// year is 2024 of the contract, closed by the owners:statements job:
// January paid on time; February guaranteed on the 15th (the transfer
// run) and paid late on the 20th with its late fee and interest; March
// paid on the 8th, and an administration fee left out of the report
// debited to Ana; January closed, then February and March; in April
// March's payment is undone (on the 5th) and paid again on the 15th, and
// the months through December are closed.
func (f *incomeFixture) year(t *testing.T) {
	t.Helper()
	jan := f.rentInvoice(t, "2024-01", false)
	f.pay(t, jan, "2024-01-08", "2024-01-09")
	feb := f.rentInvoice(t, "2024-02", true)
	f.run(t, "contracts:transfer", `{"date":"2024-02-15"}`)
	f.pay(t, feb, "2024-02-20", "2024-02-21")
	mar := f.rentInvoice(t, "2024-03", false)
	f.pay(t, mar, "2024-03-08", "2024-03-11")
	f.ownerEntry(t, f.ana, f.hiddenFee, "2024-03-20", "50.00", "Acerto da taxa de administração")
	f.run(t, "owners:statements", `{"month":"2024-01"}`)
	f.run(t, "owners:statements", `{"month":"2024-03"}`)
	f.pay(t, mar, "", "")
	f.exec(t, `UPDATE transactions SET date = '2024-04-05' WHERE company_id = $1 AND mode = 'chargeback'`, f.compA)
	f.pay(t, mar, "2024-04-15", "2024-04-16")
	f.run(t, "owners:statements", `{"month":"2024-12"}`)
}

// reportText writes an answered report as one line per contract and
// month with a figure, then the year: "contract YYYY-MM gross fee tax net".
func reportText(report map[string]any) string {
	var b strings.Builder
	figures := func(m map[string]any) string {
		return fmt.Sprintf("%v %v %v %v", m["gross_rent"], m["admin_fee"], m["tax_withheld"], m["net"])
	}
	for _, c := range report["contracts"].([]any) {
		c := c.(map[string]any)
		tenant := c["tenant"].(map[string]any)
		fmt.Fprintf(&b, "%v (%v) %v %v, %v; %v to %v\n", c["reference"], c["business_id"] != nil, tenant["name"], tenant["tax_id"],
			c["address"], c["start_at"], c["end_at"])
		for _, m := range c["months"].([]any) {
			if m := m.(map[string]any); figures(m) != "0.00 0.00 0.00 0.00" {
				fmt.Fprintf(&b, "%v %s\n", m["month"], figures(m))
			}
		}
		fmt.Fprintf(&b, "year %s\n", figures(c["total"].(map[string]any)))
	}
	fmt.Fprintf(&b, "total %s", figures(report["total"].(map[string]any)))
	return b.String()
}

// statementFigures adds up, month by month, an owner's 2024 statements'
// shown lines (adjustments in the month they correct) of the fixture's
// rent and late fee items, of its administration fee and of its IRRF,
// guarantee lines left out: "YYYY-MM gross fee tax net" for each month
// with one.
func (f *incomeFixture) statementFigures(t *testing.T, owner int64) string {
	t.Helper()
	r := f.get(t, fmt.Sprintf("/financial/ownerStatements?filter[owner_id]=%d&filter[month|ge]=2024-01&include[lines]&perPage=100",
		owner), http.StatusOK)
	type figures struct{ gross, fee, tax decimal.Decimal }
	months := map[string]*figures{}
	for _, s := range r.data(t) {
		for _, l := range s["lines"].([]any) {
			l := l.(map[string]any)
			month := fmt.Sprint(s["month"])
			if l["corrects_month"] != nil {
				month = fmt.Sprint(l["corrects_month"])
			}
			if !strings.HasPrefix(month, "2024-") || l["kind"] == "guarantee" || l["item_id"] == nil {
				continue
			}
			if months[month] == nil {
				months[month] = &figures{}
			}
			amount := decimal.RequireFromString(fmt.Sprint(l["amount"]))
			switch m, item := months[month], num(t, l["item_id"]); item {
			case f.rent, f.fee:
				m.gross = m.gross.Add(amount)
			case f.adminFee:
				m.fee = m.fee.Sub(amount)
			case f.irrf:
				m.tax = m.tax.Sub(amount)
			}
		}
	}
	var b strings.Builder
	for m := range 12 {
		month := fmt.Sprintf("2024-%02d", m+1)
		if v := months[month]; v != nil && !(v.gross.IsZero() && v.fee.IsZero() && v.tax.IsZero()) {
			fmt.Fprintf(&b, "%s %s %s %s %s\n", month, v.gross.StringFixed(2), v.fee.StringFixed(2), v.tax.StringFixed(2),
				v.gross.Sub(v.fee).Sub(v.tax).StringFixed(2))
		}
	}
	return b.String()
}

// TestIncomeReportsYear: the year of incomeFixture through the API and a
// real worker. Each owner's report, to the cent: rent with February's late
// fee and interest (the owner's share of each), the fee, the IRRF, the
// net; no condominium, guarantee, transfer or the fee left out of the
// report; March's payment, undone in April, is taken from March, and its
// payment again is April's. The months equal the statements' lines of the
// same items, read through /financial/ownerStatements. Company B sees
// none of it, and what is missing or malformed is a 422 naming it.
func TestIncomeReportsYear(t *testing.T) {
	t.Parallel()
	f := incomeEnv(t)
	f.year(t)
	contract := "L-0456 (true) Padaria Pão de Açúcar Ltda 11222333000181, Rua Augusta, 500, loja 2, Consolação, " +
		"São Paulo - SP, CEP 01305-000; 2024-01-01 to <nil>\n"
	for _, c := range []struct {
		owner         int64
		name, tax, ym string
	}{
		{f.ana, "Ana Proprietária", "52998224725", contract + `2024-01 1200.00 120.00 24.00 1056.00
2024-02 1232.34 120.00 24.00 1088.34
2024-04 1200.00 120.00 24.00 1056.00
year 3632.34 360.00 72.00 3200.34
total 3632.34 360.00 72.00 3200.34`},
		{f.bruno, "Bruno Proprietário", "11144477735", contract + `2024-01 800.00 80.00 16.00 704.00
2024-02 821.56 80.00 16.00 725.56
2024-04 800.00 80.00 16.00 704.00
year 2421.56 240.00 48.00 2133.56
total 2421.56 240.00 48.00 2133.56`},
	} {
		r := f.get(t, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024", c.owner), http.StatusOK)
		data := r.data(t)
		if len(data) != 1 {
			t.Fatalf("owner %d: %s", c.owner, r.raw)
		}
		report := data[0]
		owner := report["owner"].(map[string]any)
		if num(t, report["owner_id"]) != c.owner || fmt.Sprint(report["year"]) != "2024" || owner["name"] != c.name ||
			owner["tax_id"] != c.tax || report["closed_through"] != "2024-12" || report["final"] != false ||
			!strings.Contains(fmt.Sprint(report["warning"]), "the report of 2024 is given once 2025-01 is closed") {
			t.Errorf("owner %d: %v", c.owner, report)
		}
		if got := reportText(report); got != c.ym {
			t.Errorf("%s's 2024:\n%s\nwant\n%s", c.name, got, c.ym)
		}
		// the paying source: the business that received the rent, with
		// its CNPJ and the year's figures of its books
		businesses := report["businesses"].([]any)
		if len(businesses) != 1 {
			t.Fatalf("%s's businesses: %v", c.name, businesses)
		}
		b := businesses[0].(map[string]any)
		if num(t, b["business_id"]) != f.business || b["name"] != "Horizonte" || b["tax_id"] != "11444777000161" ||
			toJSON(t, b["total"]) != toJSON(t, report["total"]) || len(b["months"].([]any)) != 12 {
			t.Errorf("%s's business: %v", c.name, b)
		}
		months := report["months"].([]any)
		if len(months) != 12 || months[2].(map[string]any)["month"] != "2024-03" ||
			fmt.Sprint(months[2].(map[string]any)["gross_rent"]) != "0.00" {
			t.Errorf("%s's months: %v", c.name, months)
		}
		var fromReport strings.Builder
		for _, line := range strings.Split(c.ym, "\n")[1:] {
			if strings.HasPrefix(line, "2024-") {
				fromReport.WriteString(line + "\n")
			}
		}
		if got := f.statementFigures(t, c.owner); got != fromReport.String() {
			t.Errorf("%s: the statements' lines add up to\n%s\nthe report has\n%s", c.name, got, fromReport.String())
		}
		if !strings.Contains(r.raw, `"gross_rent":3632.34`) && c.owner == f.ana {
			t.Errorf("money is not written as the API writes money: %s", r.raw)
		}
		checkAnswerSchema(t, f.testEnv, "/financial/incomeReports", r.raw)
	}
	// the books of another business: nothing
	other := f.create(t, "/financial/businesses", map[string]any{"name": "Outra"})
	r := f.get(t, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024&filter[business_id]=%d", f.ana, other),
		http.StatusOK)
	if got := reportText(r.data(t)[0]); got != "total 0.00 0.00 0.00 0.00" {
		t.Errorf("Ana in the books of another business: %s", got)
	}
	// a business of another company, or of none: 422, as the DIMOB answers
	for _, id := range []int64{other + 1000} {
		if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024&filter[business_id]=%d", f.ana, id), f.keyA, nil); r.status != http.StatusUnprocessableEntity ||
			fmt.Sprint(r.problemFields(t)) != "[filter[business_id]]" || !strings.Contains(r.raw, fmt.Sprintf("no businesses with id %d", id)) {
			t.Errorf("the books of business %d, of no company of A's: %d %s", id, r.status, r.raw)
		}
	}
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024&filter[business_id]=%d", f.ana, other), f.keyB, nil); r.status != http.StatusUnprocessableEntity && r.status != http.StatusNotFound {
		t.Errorf("company B asking for A's business: %d %s", r.status, r.raw)
	}
	// a year without closed months, an owner without lines: an empty report
	if got := reportText(f.get(t, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2023", f.ana),
		http.StatusOK).data(t)[0]); got != "total 0.00 0.00 0.00 0.00" {
		t.Errorf("Ana's 2023: %s", got)
	}

	// company B: A's owner is none of its own
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024", f.ana), f.keyB, nil); r.status != http.StatusNotFound ||
		strings.Contains(r.raw, "Ana") {
		t.Errorf("company B's report of A's owner: %d %s", r.status, r.raw)
	}
	bOwner := f.createAs(t, f.keyB, "/persons", map[string]any{"name": "Beatriz"})
	// a person of the company who owns nothing is no owner: a 422, not a
	// report of zeros (A's tenant, B's Beatriz before she owns a share)
	for _, c := range []struct {
		key    string
		person int64
	}{{f.keyA, f.tenant}, {f.keyB, bOwner}} {
		if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024", c.person), c.key, nil); r.status != http.StatusUnprocessableEntity ||
			fmt.Sprint(r.problemFields(t)) != "[filter[owner_id]]" || !strings.Contains(r.raw, fmt.Sprintf("person %d is no owner", c.person)) {
			t.Errorf("person %d, who owns nothing: %d %s", c.person, r.status, r.raw)
		}
	}
	f.scalar(t, `WITH b AS (INSERT INTO buildings (company_id, title) VALUES ($1, 'Casa') RETURNING id)
		INSERT INTO building_owners (company_id, building_id, person_id, percentage) SELECT $1, b.id, $2, 100 FROM b RETURNING id`,
		f.compB, bOwner)
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports?filter[owner_id]=%d&filter[year]=2024", bOwner), f.keyB, nil); r.status != http.StatusOK ||
		reportText(r.data(t)[0]) != "total 0.00 0.00 0.00 0.00" || r.data(t)[0]["closed_through"] != nil {
		t.Errorf("company B's own owner: %d %s", r.status, r.raw)
	}

	for _, c := range []struct {
		query  string
		fields string
	}{
		{"", "[filter[owner_id] filter[year]]"},
		{fmt.Sprintf("filter[owner_id]=%d", f.ana), "[filter[year]]"},
		{"filter[year]=2024", "[filter[owner_id]]"},
		{fmt.Sprintf("filter[owner_id]=%d&filter[year]=abc", f.ana), "[filter[year]]"},
		{fmt.Sprintf("filter[owner_id]=%d&filter[year]=1899", f.ana), "[filter[year]]"},
		{fmt.Sprintf("filter[owner_id]=%d&filter[year]=%d", f.ana, time.Now().UTC().Year()+1), "[filter[year]]"},
		{"filter[owner_id]=x&filter[year]=2024", "[filter[owner_id]]"},
		{"filter[owner_id]=0&filter[year]=2024", "[filter[owner_id]]"},
		{fmt.Sprintf("filter[owner_id]=%d&filter[year]=2024&filter[year]=2025", f.ana), "[filter[year]]"},
		{fmt.Sprintf("filter[owner_id]=%d&filter[year]=2024&filter[month]=2024-01", f.ana), "[filter[month]]"},
	} {
		for _, path := range []string{"/financial/incomeReports", "/financial/incomeReports/link"} {
			r := f.do(t, http.MethodGet, path+"?"+c.query, f.keyA, nil)
			if r.status != http.StatusUnprocessableEntity || fmt.Sprint(r.problemFields(t)) != c.fields || r.body["return"] != false {
				t.Errorf("%s?%s: %d %s, want a 422 on %s", path, c.query, r.status, r.raw, c.fields)
			}
		}
	}
	// the link is of the owner's whole report: no business
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=2024&filter[business_id]=%d",
		f.ana, f.business), f.keyA, nil); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a link of one business's books: %d %s", r.status, r.raw)
	}
}

// checkAnswerSchema validates an answer of GET path against the schema
// the OpenAPI document gives its 200.
func checkAnswerSchema(t *testing.T, e *testEnv, path, raw string) {
	t.Helper()
	checkOperationAnswer(t, e, "get", path, 200, raw)
}

// checkOperationAnswer validates an answer of method (lower case) on the
// document's path (its template: /financial/contracts/{id}) against the
// schema the OpenAPI document gives its status.
func checkOperationAnswer(t *testing.T, e *testEnv, method, path string, status int, raw string) {
	t.Helper()
	_, doc := fetchDocument(t, e)
	set, err := newSchemaSet(doc)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := set.compile(fmt.Sprintf("#/paths/%s/%s/responses/%d/content/application~1json/schema", escapePointer(path), method, status))
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s %s's answer does not match its schema: %v\n%s", strings.ToUpper(method), path, err, raw)
	}
}

// fetchPublic GETs a URL without a key: its status, content type and body.
func fetchPublic(t *testing.T, url string) (int, string, []byte) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), body
}

// TestIncomeReportLink: Ana's 2024 through its signed link, without a
// key: the page and the PDF (at .../pdf and with ?format=pdf, read back)
// with the figures of TestIncomeReportsYear, the parties and the
// property; a year whose December is not closed has no link; a tampered
// link, a statement's token on the report's path, the report's token on
// the receipts' path and another company's owner are refused.
func TestIncomeReportLink(t *testing.T) {
	t.Parallel()
	f := incomeEnv(t, withReceipts())
	f.year(t)
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=2024", f.ana), f.keyA, nil); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.raw, "given once 2025-01 is closed") {
		t.Errorf("the link of 2024 closed through its December only: %d %s", r.status, r.raw)
	}
	f.run(t, "owners:statements", `{"month":"2025-01"}`) // a payment of December credited in January is on its statement
	link := f.get(t, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=2024", f.ana), http.StatusOK).record(t)
	url, _ := link["url"].(string)
	expires, err := time.Parse(time.DateTime, fmt.Sprint(link["expires_at"]))
	if !strings.HasPrefix(url, f.url+"/incomeReports/") || err != nil || expires.Before(time.Now().Add(119*24*time.Hour)) {
		t.Fatalf("link %v (%v)", link, err)
	}

	status, ctype, body := fetchPublic(t, url)
	page := pageText(body)
	if status != http.StatusOK || ctype != "text/html; charset=utf-8" {
		t.Fatalf("page: %d %s\n%s", status, ctype, page)
	}
	contract := []string{"Contrato L-0456", "Padaria Pão de Açúcar Ltda", "CNPJ 11.222.333/0001-81",
		"Rua Augusta, 500, loja 2, Consolação, São Paulo - SP, CEP 01305-000"}
	totals := []string{"Aluguéis brutos R$ 3.632,34", "Taxas de administração R$ 360,00", "IR retido R$ 72,00",
		"Rendimento líquido R$ 3.200,34"}
	// headed by the business that received the rent for Ana, its paying
	// source, with its CNPJ; the company's name is not the informe's
	source := []string{"Horizonte CNPJ 11.444.777/0001-61 Informe de rendimentos",
		"Aluguéis recebidos por intermédio de Horizonte (CNPJ 11.444.777/0001-61) no ano-calendário 2024"}
	for _, want := range append(append(append([]string{"Informe de rendimentos", "Ano-calendário 2024", "Ana Proprietária",
		"CPF 529.982.247-25", "Administradora (emitente) Horizonte CNPJ 11.444.777/0001-61",
		"Fonte pagadora Padaria Pão de Açúcar Ltda (CNPJ 11.222.333/0001-81), que reteve R$ 72,00 de IR no ano",
		"Fevereiro R$ 1.232,34 R$ 120,00 R$ 24,00 R$ 1.088,34", "Março R$ 0,00 R$ 0,00 R$ 0,00 R$ 0,00",
		"Total do ano R$ 3.632,34 R$ 360,00 R$ 72,00 R$ 3.200,34"}, contract...), totals...), source...) {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "Company A") {
		t.Errorf("the page names the company:\n%s", page)
	}
	for _, pdf := range []string{url + "/pdf", url + "?format=pdf"} {
		status, ctype, body := fetchPublic(t, pdf)
		if status != http.StatusOK || ctype != "application/pdf" {
			t.Fatalf("%s: %d %s", pdf, status, ctype)
		}
		doc, err := pdftext.Parse(body)
		if err != nil {
			t.Fatalf("%s: reading the PDF: %v", pdf, err)
		}
		pages, err := doc.PageTexts()
		if err != nil {
			t.Fatalf("%s: the PDF's pages: %v", pdf, err)
		}
		all := strings.Join(pages, " ")
		for _, want := range append(append([]string{"Ana Proprietária", "CPF 529.982.247-25",
			"Administradora (emitente) Horizonte (CNPJ 11.444.777/0001-61)", "Fevereiro R$ 1.232,34 R$ 120,00 R$ 24,00 R$ 1.088,34"},
			contract...), append(totals, source...)...) {
			if !strings.Contains(all, want) {
				t.Errorf("the PDF lacks %q:\n%s", want, all)
			}
		}
		if strings.Contains(all, "Company A") {
			t.Errorf("the PDF names the company:\n%s", all)
		}
		for _, want := range totals {
			if !strings.Contains(pages[len(pages)-1], want) {
				t.Errorf("the PDF's last page lacks %q", want)
			}
		}
	}

	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=2025", f.ana), f.keyA, nil); r.status != http.StatusUnprocessableEntity ||
		fmt.Sprint(r.problemFields(t)) != "[filter[year]]" || !strings.Contains(r.raw, "given once 2026-01 is closed") {
		t.Errorf("the link of a year whose next January is not closed: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=2023", f.ana), f.keyA, nil); r.status != http.StatusUnprocessableEntity ||
		fmt.Sprint(r.problemFields(t)) != "[filter[year]]" || !strings.Contains(r.raw, "start at 2024-01") {
		t.Errorf("the link of a year before the company's first close: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=2024", f.ana), f.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("company B's link of A's owner: %d %s", r.status, r.raw)
	}
	token := url[strings.LastIndexByte(url, '/')+1:]
	tampered := token[:len(token)-2] + map[bool]string{true: "AA", false: "AB"}[!strings.HasSuffix(token, "AA")]
	statementToken := f.srv.statements.signer.SignStatement(f.compA, 1, time.Now().Add(time.Hour))
	for _, bad := range []string{tampered, statementToken, tampered + "/pdf"} {
		if status, _, _ := fetchPublic(t, f.url+"/incomeReports/"+bad); status != http.StatusNotFound {
			t.Errorf("/incomeReports/%s: %d", bad, status)
		}
	}
	if status, _, _ := fetchPublic(t, f.url+"/receipts/"+token); status != http.StatusNotFound {
		t.Errorf("the report's token on the receipt path: %d", status)
	}
	if status, _, _ := fetchPublic(t, url+"?format=doc"); status != http.StatusBadRequest {
		t.Errorf("an unknown format: %d", status)
	}
}

// TestIncomeReportLinksOff: without a secret the link is a 503 and the
// page a 404.
func TestIncomeReportLinksOff(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.create(t, "/persons", map[string]any{"name": "Ana"})
	e.scalar(t, `WITH b AS (INSERT INTO buildings (company_id, title) VALUES ($1, 'Casa') RETURNING id)
		INSERT INTO building_owners (company_id, building_id, person_id, percentage) SELECT $1, b.id, $2, 100 FROM b RETURNING id`,
		e.compA, owner)
	if r := e.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=2024", owner), e.keyA, nil); r.status != http.StatusServiceUnavailable {
		t.Errorf("link: %d %s", r.status, r.raw)
	}
	if status, _, _ := fetchPublic(t, e.url+"/incomeReports/"+strings.Repeat("A", 80)); status != http.StatusNotFound {
		t.Errorf("page: %d", status)
	}
}

// TestOpenAPIDescribesIncomeReports: the document has the report, its
// link and the page and PDF, with the required filters.
func TestOpenAPIDescribesIncomeReports(t *testing.T) {
	t.Parallel()
	e := setup(t)
	doc, raw := fetchDocument(t, e)
	for _, path := range []string{"/financial/incomeReports", "/financial/incomeReports/link", "/incomeReports/{token}",
		"/incomeReports/{token}/pdf"} {
		if _, ok := doc.Paths[path]; !ok {
			t.Errorf("no path %s", path)
		}
	}
	for _, want := range []string{`filter[owner_id]`, `filter[year]`, `gross_rent`, `tax_withheld`, `application/pdf`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the document does not name %s", want)
		}
	}
}

// TestIncomeReportLinkReasons: the link's 422 says why the year has no
// report yet, and only what is true of it: a year whose January is before
// the company's first closed month never has one (not "once December is
// closed"); a year that may have one waits for its December; with nothing
// closed, the months from January through December are needed.
func TestIncomeReportLinkReasons(t *testing.T) {
	t.Parallel()
	f := incomeEnv(t, withReceipts())
	link := func(year int) string {
		t.Helper()
		r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/incomeReports/link?filter[owner_id]=%d&filter[year]=%d", f.ana, year), f.keyA, nil)
		if r.status != http.StatusUnprocessableEntity || fmt.Sprint(r.problemFields(t)) != "[filter[year]]" {
			t.Fatalf("link of %d: %d %s", year, r.status, r.raw)
		}
		return r.raw
	}
	check := func(year int, want, not []string) {
		t.Helper()
		raw := link(year)
		for _, w := range want {
			if !strings.Contains(raw, w) {
				t.Errorf("link of %d: %s, without %q", year, raw, w)
			}
		}
		for _, n := range not {
			if strings.Contains(raw, n) {
				t.Errorf("link of %d: %s, with %q", year, raw, n)
			}
		}
	}
	check(2024, []string{"closed none of its months", "from 2024-01 (or earlier) through 2025-01"}, nil)
	f.pay(t, f.rentInvoice(t, "2024-03", false), "2024-03-08", "2024-03-11")
	f.run(t, "owners:statements", `{"month":"2024-03"}`)
	check(2024, []string{"start at 2024-03", "the informe of 2024 (its document and its link) can never be issued"}, []string{"given once", "2024-12", "has no report"})
	check(2023, []string{"start at 2024-03", "the informe of 2023 (its document and its link) can never be issued"}, []string{"given once", "has no report"})
	check(2025, []string{"closed its months through 2024-03", "given once 2026-01 is closed"}, []string{"never"})
}
