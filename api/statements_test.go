package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/propfin/propfin/jobs"
)

// statementFixture is the worked month of docs/ledger.md, "Owner
// statements": a building owned 60/40 by Ana and Bruno, its contract
// guaranteed (5 release days) and transferring 2 days after the credit.
type statementFixture struct {
	*testEnv
	business, account, tenant, ana, bruno int64
	building, contract                    int64
	rent, condo, adminFee, fee            int64
	repair, tariff, iptu                  int64
}

func statementEnv(t *testing.T, opts ...envOption) *statementFixture {
	t.Helper()
	return statementEnvOf(t, jobs.KindsConfig{}, opts...)
}

// statementEnvOf is statementEnv with workers of the kinds of cfg.
func statementEnvOf(t *testing.T, cfg jobs.KindsConfig, opts ...envOption) *statementFixture {
	t.Helper()
	f := &statementFixture{testEnv: setup(t, opts...)}
	withWorkersOf(t, f.testEnv, cfg)
	f.business = f.create(t, "/financial/businesses", map[string]any{"name": "Horizonte"})
	f.account = f.create(t, "/financial/accounts", map[string]any{"business_id": f.business, "bank": "341"})
	f.tenant = f.create(t, "/persons", map[string]any{"name": "Tiago Inquilino"})
	f.ana = f.create(t, "/persons", map[string]any{"name": "Ana Proprietária", "bank": "341", "agency": "1234",
		"account": "56789", "account_digit": "0", "pix_key": "ana@example.com"})
	f.bruno = f.create(t, "/persons", map[string]any{"name": "Bruno Proprietário", "bank": "001", "agency": "4321",
		"account": "98765", "account_digit": "1"})
	f.building = f.create(t, "/buildings", map[string]any{"title": "Edifício Aurora", "street": "Rua das Flores",
		"number": "10", "complement": "ap. 31", "district": "Centro", "city": "São Paulo", "state": "SP", "zip_code": "01310100"})
	f.create(t, fmt.Sprintf("/buildings/%d/owners", f.building), map[string]any{"person_id": f.ana, "percentage": "60"})
	f.create(t, fmt.Sprintf("/buildings/%d/owners", f.building), map[string]any{"person_id": f.bruno, "percentage": "40"})
	f.contract = f.scalar(t, `INSERT INTO contracts (company_id, type, building_id, tenant_id, billing_method, transfer_mode,
		    transfer_after_days, guaranteed_transfer, guaranteed_transfer_release_after_days, start_at, guaranteed_transfer_months)
		VALUES ($1, 'rent', $2, $3, 'pix', 'after_receive', 2, true, 5, '2024-01-01', 12) RETURNING id`,
		f.compA, f.building, f.tenant)
	item := func(description, debit, credit, typ string, report bool) int64 {
		return f.create(t, "/financial/transactionItems", map[string]any{"description": description, "debit": debit,
			"credit": credit, "type": typ, "owner_report": report})
	}
	f.rent = item("Aluguel", "customer", "owner", "rent", true)
	f.condo = item("Condomínio", "customer", "owner", "default", true)
	f.adminFee = item("Taxa de administração", "owner", "business", "commission", true)
	f.fee = item("Multa e juros", "customer", "owner", "fee", true)
	f.repair = item("Reparos", "owner", "business", "default", true)
	f.tariff = item("Tarifa de TED", "owner", "business", "tariff", false)
	f.iptu = item("IPTU", "owner", "business", "iptu", true)
	return f
}

// ownerEntry writes an entry of an owner's statement through the API.
func (f *statementFixture) ownerEntry(t *testing.T, owner, item int64, date, amount, description string) int64 {
	t.Helper()
	return f.create(t, "/transactions", map[string]any{"type": "debit", "extract": "owner", "owner_id": owner, "person_id": owner,
		"item_id": item, "amount": amount, "date": date, "description": description, "business_id": f.business,
		"building_id": f.building, "contract_id": f.contract})
}

// run starts a job through POST /jobs and waits for the worker to finish it.
func (f *statementFixture) run(t *testing.T, kind, payload string) map[string]any {
	t.Helper()
	r := f.send(t, http.MethodPost, "/jobs", f.keyA, `{"kind":"`+kind+`","payload":`+payload+`}`, nil)
	if r.status != http.StatusAccepted {
		t.Fatalf("%s %s: %d %s", kind, payload, r.status, r.raw)
	}
	job := f.waitJob(t, f.keyA, num(t, r.body["data"].(map[string]any)["id"]))
	if job["state"] != "succeeded" {
		t.Fatalf("%s %s: %v", kind, payload, job)
	}
	return job["result"].(map[string]any)
}

// statementOf reads an owner's statement of a month with its lines, as
// "owner month: opening → closing; totals" and a line per line.
func (f *statementFixture) statementOf(t *testing.T, key string, owner int64, month string) (int64, string) {
	t.Helper()
	r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/ownerStatements?filter[owner_id]=%d&filter[month]=%s&filter[business_id]=%d"+
		"&include[lines]&include[owner]=name", owner, month, f.business), key, nil)
	if r.status != http.StatusOK {
		t.Fatalf("statement of %d in %s: %d %s", owner, month, r.status, r.raw)
	}
	data := r.data(t)
	if len(data) != 1 {
		t.Fatalf("statement of %d in %s: %d statements\n%s", owner, month, len(data), r.raw)
	}
	s := data[0]
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %v -> %v; income %v, deductions %v, guarantee %v, transfers %v, adjustments %v; %v shown, %v hidden (%v)\n",
		s["owner"].(map[string]any)["name"], s["month"], s["opening"], s["closing"], s["income"], s["deductions"], s["guarantee"],
		s["transfers"], s["adjustments"], s["shown_lines"], s["hidden_lines"], s["hidden_amount"])
	for _, l := range s["lines"].([]any) {
		l := l.(map[string]any)
		fmt.Fprintf(&b, "%v %v %v %v", l["section"], l["date"], l["description"], l["amount"])
		if l["corrects_month"] != nil {
			fmt.Fprintf(&b, " corrects %v (%v)", l["corrects_month"], l["kind"])
		}
		if l["destination"] != nil {
			fmt.Fprintf(&b, " to %v", l["destination"])
		}
		b.WriteString("\n")
	}
	return num(t, s["id"]), b.String()
}

// TestOwnerStatementsWorkedMonth: the worked month of docs/ledger.md
// through the API and a real worker. March 2024: the rent invoice due on
// the 10th is guaranteed on the 15th (the transfer run advances and pays
// out each owner's share), Ana is debited a repair on the 20th, the tenant
// pays late on the 25th (credited the 26th, the guarantee settled), the
// run of the 28th pays out the owners' part of the late fee and interest,
// and Bruno is debited a TED tariff whose item the owners' report leaves
// out. The close of March gives each owner's statement line by line, to
// the cent. Then the payment is undone (on 2024-04-02) and an IPTU debit
// dated 2024-03-31 is written: March's statements are unchanged, the
// entries of March can no longer be changed, and April's statements carry
// both as adjustments naming 2024-03. Each statement's page and PDF,
// fetched through its link, show the same totals and closing. Company B
// sees nothing of it.
func TestOwnerStatementsWorkedMonth(t *testing.T) {
	t.Parallel()
	f := statementEnv(t, withReceipts())
	inv := f.create(t, "/invoices", map[string]any{"type": "contract", "contract_id": f.contract, "payer_id": f.tenant,
		"business_id": f.business, "account_id": f.account, "description": "Aluguel 03/2024", "total": "2350.00",
		"date": "2024-03-01", "due_date": "2024-03-10", "billing_method": "ticket", "ticket_late_fee": true,
		"ticket_late_fee_percentage": "2", "ticket_late_fee_interest": "1",
		"items": lines(f.rent, "2000.00", f.condo, "350.00", f.adminFee, "200.00")})
	f.run(t, "contracts:transfer", `{"date":"2024-03-15"}`)
	repair := f.ownerEntry(t, f.ana, f.repair, "2024-03-20", "150.00", "Reparo hidráulico")
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", inv), f.keyA, map[string]any{"paid": true,
		"paid_at": "2024-03-25", "credit_at": "2024-03-26", "billing_method": "ticket"}); r.status != http.StatusOK {
		t.Fatalf("pay: %d %s", r.status, r.raw)
	}
	f.run(t, "contracts:transfer", `{"date":"2024-03-28"}`)
	f.ownerEntry(t, f.bruno, f.tariff, "2024-03-28", "3.50", "Tarifa de TED do repasse")

	res := f.run(t, "owners:statements", `{"month":"2024-03"}`)
	if fmt.Sprint(res) != "map[lines:20 month:2024-03 months:[2024-03] owners:2 skipped:0 statements:2]" {
		t.Errorf("close of March: %v", res)
	}
	anaMarch, ana := f.statementOf(t, f.keyA, f.ana, "2024-03")
	want := `Ana Proprietária 2024-03: 0.00 -> -150.00; income 1445.25, deductions -270.00, guarantee 0.00, transfers -1325.25, adjustments 0.00; 10 shown, 0 hidden (0.00)
income 2024-03-26 Aluguel — fatura 1, 03/2024 1200.00
income 2024-03-26 Condomínio — fatura 1, 03/2024 210.00
income 2024-03-26 Multa por atraso — fatura 1, 03/2024 28.20
income 2024-03-26 Juros de mora (15 dias) — fatura 1, 03/2024 7.05
deductions 2024-03-20 Reparo hidráulico -150.00
deductions 2024-03-26 Taxa de administração — fatura 1, 03/2024 -120.00
guarantee 2024-03-15 Repasse garantido: Aluguel 03/2024 1290.00
guarantee 2024-03-26 Compensação de repasse garantido — fatura 1, 03/2024 -1290.00
transfers 2024-03-15 Repasse: Aluguel 03/2024 -1290.00 to PIX ana@example.com
transfers 2024-03-28 Repasse: Aluguel 03/2024 -35.25 to PIX ana@example.com
`
	if ana != want {
		t.Errorf("Ana's March:\n%s\nwant\n%s", ana, want)
	}
	brunoMarch, bruno := f.statementOf(t, f.keyA, f.bruno, "2024-03")
	want = `Bruno Proprietário 2024-03: 0.00 -> -3.50; income 963.50, deductions -80.00, guarantee 0.00, transfers -883.50, adjustments 0.00; 9 shown, 1 hidden (-3.50)
income 2024-03-26 Aluguel — fatura 1, 03/2024 800.00
income 2024-03-26 Condomínio — fatura 1, 03/2024 140.00
income 2024-03-26 Multa por atraso — fatura 1, 03/2024 18.80
income 2024-03-26 Juros de mora (15 dias) — fatura 1, 03/2024 4.70
deductions 2024-03-26 Taxa de administração — fatura 1, 03/2024 -80.00
guarantee 2024-03-15 Repasse garantido: Aluguel 03/2024 860.00
guarantee 2024-03-26 Compensação de repasse garantido — fatura 1, 03/2024 -860.00
transfers 2024-03-15 Repasse: Aluguel 03/2024 -860.00 to Banco 001, agência 4321, conta 98765-1
transfers 2024-03-28 Repasse: Aluguel 03/2024 -23.50 to Banco 001, agência 4321, conta 98765-1
`
	if bruno != want {
		t.Errorf("Bruno's March:\n%s\nwant\n%s", bruno, want)
	}
	hidden := f.get(t, fmt.Sprintf("/financial/ownerStatements?filter[owner_id]=%d&include[hiddenLines]=description,amount", f.bruno),
		http.StatusOK).data(t)
	if got := fmt.Sprint(hidden[0]["hiddenLines"]); got != "[map[amount:-3.50 description:Tarifa de TED do repasse]]" {
		t.Errorf("Bruno's hidden lines: %s", got)
	}

	f.checkMarchDocuments(t, anaMarch, brunoMarch)

	// a closed month's owner entries are not changed: a new entry corrects them
	for _, r := range []response{
		f.do(t, http.MethodPut, fmt.Sprintf("/transactions/%d", repair), f.keyA, map[string]any{"amount": "160.00"}),
		f.do(t, http.MethodDelete, fmt.Sprintf("/transactions/%d", repair), f.keyA, nil),
	} {
		if r.status != http.StatusConflict || !strings.Contains(r.raw, "2024-03") {
			t.Errorf("changing a closed month's entry: %d %s", r.status, r.raw)
		}
	}
	// the payment undone on 2024-04-02 (its reversals are dated the day it is undone)
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", inv), f.keyA, map[string]any{"paid": false,
		"billing_method": "ticket"}); r.status != http.StatusOK {
		t.Fatalf("undo: %d %s", r.status, r.raw)
	}
	f.exec(t, `UPDATE transactions SET date = '2024-04-02' WHERE company_id = $1 AND mode = 'chargeback'`, f.compA)
	f.ownerEntry(t, f.ana, f.iptu, "2024-03-31", "80.00", "IPTU 2024, parcela 3")

	if _, again := f.statementOf(t, f.keyA, f.ana, "2024-03"); again != ana {
		t.Errorf("Ana's March after the reversal:\n%s\nwant it unchanged:\n%s", again, ana)
	}
	res = f.run(t, "owners:statements", `{"month":"2024-04"}`)
	if fmt.Sprint(res) != "map[lines:13 month:2024-04 months:[2024-04] owners:2 skipped:0 statements:2]" {
		t.Errorf("close of April: %v", res)
	}
	anaApril, ana := f.statementOf(t, f.keyA, f.ana, "2024-04")
	want = `Ana Proprietária 2024-04: -150.00 -> -265.25; income 0.00, deductions 0.00, guarantee 0.00, transfers 0.00, adjustments -115.25; 7 shown, 0 hidden (0.00)
adjustments 2024-03-31 IPTU 2024, parcela 3 -80.00 corrects 2024-03 (deductions)
adjustments 2024-04-02 Estorno: Aluguel — fatura 1, 03/2024 -1200.00 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Condomínio — fatura 1, 03/2024 -210.00 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Taxa de administração — fatura 1, 03/2024 120.00 corrects 2024-03 (deductions)
adjustments 2024-04-02 Estorno: Multa por atraso — fatura 1, 03/2024 -28.20 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Juros de mora (15 dias) — fatura 1, 03/2024 -7.05 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Compensação de repasse garantido — fatura 1, 03/2024 1290.00 corrects 2024-03 (guarantee)
`
	if ana != want {
		t.Errorf("Ana's April:\n%s\nwant\n%s", ana, want)
	}
	page, pdf := documents(t, f.statementLinkOf(t, anaApril), "2024-04")
	checkDocuments(t, "Ana's April", page, pdf, []string{"Ana Proprietária", "abril de 2024", "Ajustes de meses anteriores",
		"31/03/2024 IPTU 2024, parcela 3 (corrige março de 2024) -R$ 80,00",
		"02/04/2024 Estorno: Compensação de repasse garantido — fatura 1, 03/2024 (corrige março de 2024) R$ 1.290,00",
		"Saldo anterior -R$ 150,00", "Total recebido R$ 0,00", "Total de ajustes -R$ 115,25",
		"Saldo final em 30/04/2024 -R$ 265,25"}, nil)
	_, bruno = f.statementOf(t, f.keyA, f.bruno, "2024-04")
	want = `Bruno Proprietário 2024-04: -3.50 -> -27.00; income 0.00, deductions 0.00, guarantee 0.00, transfers 0.00, adjustments -23.50; 6 shown, 0 hidden (0.00)
adjustments 2024-04-02 Estorno: Aluguel — fatura 1, 03/2024 -800.00 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Condomínio — fatura 1, 03/2024 -140.00 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Taxa de administração — fatura 1, 03/2024 80.00 corrects 2024-03 (deductions)
adjustments 2024-04-02 Estorno: Multa por atraso — fatura 1, 03/2024 -18.80 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Juros de mora (15 dias) — fatura 1, 03/2024 -4.70 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Compensação de repasse garantido — fatura 1, 03/2024 860.00 corrects 2024-03 (guarantee)
`
	if bruno != want {
		t.Errorf("Bruno's April:\n%s\nwant\n%s", bruno, want)
	}
	// the ledger agrees: each owner's closing is the balance of its entries
	for owner, closing := range map[int64]string{f.ana: "-265.25", f.bruno: "-27.00"} {
		var balance string
		err := f.pool.QueryRow(t.Context(), `SELECT sum(CASE WHEN type = 'credit' THEN amount ELSE -amount END)::text
			FROM transactions WHERE company_id = $1 AND extract = 'owner' AND owner_id = $2`, f.compA, owner).Scan(&balance)
		if err != nil || balance != closing {
			t.Errorf("owner %d: ledger balance %s (%v), closing %s", owner, balance, err, closing)
		}
	}

	// company isolation: B's key sees none of A's statements
	if r := f.do(t, http.MethodGet, "/financial/ownerStatements", f.keyB, nil); r.status != http.StatusOK || len(r.data(t)) != 0 {
		t.Errorf("company B's list: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/ownerStatements/%d", anaMarch), f.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("company B's get of A's statement: %d %s", r.status, r.raw)
	}
	// read-only
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/financial/ownerStatements/%d", anaMarch), f.keyA, nil); r.status != http.StatusMethodNotAllowed {
		t.Errorf("delete: %d %s, want the read-only 405", r.status, r.raw)
	}
}

// TestOpenAPIDescribesOwnerStatements: the document has the resource's
// read routes, its link and public page and PDF, its includes, and the
// owners:statements payload among POST /jobs's.
func TestOpenAPIDescribesOwnerStatements(t *testing.T) {
	t.Parallel()
	e := setup(t)
	doc, raw := fetchDocument(t, e)
	for _, path := range []string{"/financial/ownerStatements", "/financial/ownerStatements/{id}",
		"/financial/ownerStatements/{id}/link", "/statements/{token}", "/statements/{token}/pdf"} {
		if _, ok := doc.Paths[path]; !ok {
			t.Errorf("no path %s", path)
		}
	}
	for _, want := range []string{`include[lines]`, `include[hiddenLines]`, `include[owner]`, `owners:statements`, `corrects_month`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the document does not name %s", want)
		}
	}
}

// TestOwnerStatementLinesNameTheInvoiceAndPart: a line the payment of an
// invoice posted names the invoice and the month it bills, and, when the
// invoice was paid in two parts that stood together, which part; a
// transfer's line names the invoice's description, as before.
func TestOwnerStatementLinesNameTheInvoiceAndPart(t *testing.T) {
	t.Parallel()
	f := statementEnv(t)
	inv := f.create(t, "/invoices", map[string]any{"type": "contract", "contract_id": f.contract, "payer_id": f.tenant,
		"business_id": f.business, "account_id": f.account, "description": "Aluguel 03/2024", "total": "2350.00",
		"date": "2024-03-01", "due_date": "2024-03-10", "period_initial": "2024-03-01", "period_final": "2024-03-31",
		"billing_method": "ticket", "items": lines(f.rent, "2000.00", f.condo, "350.00", f.adminFee, "200.00")})
	for _, p := range []map[string]any{{"amount": "1175.00", "paid_at": "2024-03-05"}, {"amount": "1175.00", "paid_at": "2024-03-08"}} {
		if r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/payments", inv), f.keyA, p); r.status != http.StatusCreated {
			t.Fatalf("part %v: %d %s", p, r.status, r.raw)
		}
	}
	f.run(t, "owners:statements", `{"month":"2024-03"}`)
	_, ana := f.statementOf(t, f.keyA, f.ana, "2024-03")
	for _, want := range []string{
		"income 2024-03-05 Aluguel — fatura 1, 03/2024, parte 1 600.00\n",
		"income 2024-03-08 Aluguel — fatura 1, 03/2024, parte 2 600.00\n",
		"deductions 2024-03-05 Taxa de administração — fatura 1, 03/2024, parte 1 -60.00\n",
		"income 2024-03-08 Condomínio — fatura 1, 03/2024, parte 2 105.00\n",
	} {
		if !strings.Contains(ana, want) {
			t.Errorf("Ana's March lacks %q:\n%s", want, ana)
		}
	}
}
