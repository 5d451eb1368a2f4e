package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/jobs"
)

// transferBatchFixture is the worked month's fixture with what a payment
// batch needs: the business with its CNPJ, the invoices' account at
// Bradesco in CNAB 240 with its payment agreement, and a building owned
// 60/40 by Ana (an account at Banco do Brasil) and Bruno (an account at
// Bradesco), both with their CPF, let by a contract that pays its owners
// by TED on the day the rent is credited.
type transferBatchFixture struct {
	*statementFixture
	owner60, owner40 int64
}

func transferBatchEnv(t *testing.T) *transferBatchFixture {
	t.Helper()
	return transferBatchEnvOf(t, jobs.KindsConfig{})
}

// transferBatchEnvOf is transferBatchEnv with workers of the kinds of cfg
// and the server's options opts.
func transferBatchEnvOf(t *testing.T, cfg jobs.KindsConfig, opts ...envOption) *transferBatchFixture {
	t.Helper()
	f := &transferBatchFixture{statementFixture: statementEnvOf(t, cfg, opts...)}
	f.business = f.create(t, "/financial/businesses", map[string]any{"name": "Imobiliária Conceição & Filhos Ltda",
		"tax_id": "11222333000181", "street": "Rua da Consolação", "number": "1500", "city": "São Paulo",
		"state": "SP", "zip_code": "01301100"})
	f.account = f.create(t, "/financial/accounts", bradescoPaymentAccount(f.business))
	f.owner60 = f.create(t, "/persons", map[string]any{"name": "Ana Proprietária", "tax_id": "52998224725",
		"bank": "001", "agency": "3456", "agency_digit": "7", "account": "123456", "account_digit": "8", "account_type": "checking"})
	f.owner40 = f.create(t, "/persons", map[string]any{"name": "Bruno Proprietário", "tax_id": "11144477735",
		"bank": "237", "agency": "4321", "account": "765432", "account_digit": "1", "account_type": "checking"})
	f.building = f.create(t, "/buildings", map[string]any{"title": "Edifício Boa Vista", "street": "Rua dos Ipês",
		"number": "20", "city": "São Paulo", "state": "SP", "zip_code": "01310100"})
	f.create(t, fmt.Sprintf("/buildings/%d/owners", f.building), map[string]any{"person_id": f.owner60, "percentage": "60"})
	f.create(t, fmt.Sprintf("/buildings/%d/owners", f.building), map[string]any{"person_id": f.owner40, "percentage": "40"})
	f.contract = f.scalar(t, `INSERT INTO contracts (company_id, type, building_id, tenant_id, billing_method, transfer_mode,
		    transfer_after_days, start_at)
		VALUES ($1, 'rent', $2, $3, 'ted', 'after_receive', 0, '2024-01-01') RETURNING id`, f.compA, f.building, f.tenant)
	return f
}

// paidRent writes the March rent invoice (rent 2,000.00, condomínio
// 350.00, the administration fee 200.00) paid on the 8th, credited on the
// 11th.
func (f *transferBatchFixture) paidRent(t *testing.T) int64 {
	t.Helper()
	inv := f.create(t, "/invoices", map[string]any{"type": "contract", "contract_id": f.contract, "payer_id": f.tenant,
		"business_id": f.business, "account_id": f.account, "description": "Aluguel 03/2024", "total": "2350.00",
		"date": "2024-03-01", "due_date": "2024-03-10", "billing_method": "ticket",
		"items": lines(f.rent, "2000.00", f.condo, "350.00", f.adminFee, "200.00")})
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", inv), f.keyA, map[string]any{"paid": true,
		"paid_at": "2024-03-08", "credit_at": "2024-03-11", "billing_method": "ticket"}); r.status != http.StatusOK {
		t.Fatalf("pay: %d %s", r.status, r.raw)
	}
	return inv
}

// transfersOf lists the transfer entries of an invoice, by owner: "paid
// date amount".
func (f *transferBatchFixture) transfersOf(t *testing.T, inv int64) (map[int64]string, map[int64]int64) {
	t.Helper()
	data := f.get(t, fmt.Sprintf("/transactions?filter[mode]=transfer&filter[invoice_id]=%d&sort=id", inv), http.StatusOK).data(t)
	out, ids := map[int64]string{}, map[int64]int64{}
	for _, e := range data {
		owner := num(t, e["owner_id"])
		if _, twice := out[owner]; twice {
			t.Errorf("two transfers of invoice %d to owner %d: %v", inv, owner, data)
		}
		out[owner] = fmt.Sprintf("%v %v %v", e["paid"], e["date"], e["amount"])
		ids[owner] = num(t, e["id"])
	}
	return out, ids
}

// rerun runs the night of day again (a new job of the payload, "rerun":
// true) and answers its result.
func (f *transferBatchFixture) rerun(t *testing.T, day string) map[string]any {
	t.Helper()
	r := f.send(t, http.MethodPost, "/jobs", f.keyA, `{"kind":"contracts:transfer","payload":{"date":"`+day+`"},"rerun":true}`, nil)
	if r.status != http.StatusAccepted {
		t.Fatalf("contracts:transfer %s again: %d %s", day, r.status, r.raw)
	}
	job := f.waitJob(t, f.keyA, num(t, r.body["data"].(map[string]any)["id"]))
	if job["state"] != "succeeded" {
		t.Fatalf("contracts:transfer %s again: %v", day, job)
	}
	return job["result"].(map[string]any)
}

// TestTransfersPaidByBatch: a company paying its owners' transfers by
// batch (transfer_payment batch). The night of the credit writes each
// owner's transfer due and unpaid (a rerun and the next night write
// nothing more); Ana's joins a payment batch, whose CNAB 240 file pays her
// 1,290.00 by TED; the bank's return pays it on 2024-03-28, the date the
// transfer then carries. March's close states Ana's transfer on that day
// (closing 0.00) and holds Bruno's 860.00, unpaid; Bruno's is then marked
// paid by hand on 2024-03-29 (nothing else of it can change, nor can it be
// unpaid again), and April's close states it as an adjustment of March:
// Bruno's closing 0.00.
func TestTransfersPaidByBatch(t *testing.T) {
	t.Parallel()
	f := transferBatchEnv(t)
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"transfer_payment": "batch"}); r.status != http.StatusOK ||
		r.record(t)["transfer_payment"] != "batch" {
		t.Fatalf("settings: %d %s", r.status, r.raw)
	}
	inv := f.paidRent(t)

	// the night: due, not paid
	res := f.run(t, "contracts:transfer", `{"date":"2024-03-11"}`)
	if num(t, res["transfers"]) != 2 || res["amount"] != json.Number("2150.00") {
		t.Fatalf("the night's transfers: %v", res)
	}
	got, ids := f.transfersOf(t, inv)
	want := map[int64]string{f.owner60: "false 2024-03-11 1290.00", f.owner40: "false 2024-03-11 860.00"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("transfers after the night: %v, want %v", got, want)
	}
	for _, day := range []string{"2024-03-11", "2024-03-12"} {
		if res := f.rerun(t, day); num(t, res["transfers"]) != 0 {
			t.Errorf("the run of %s again: %v", day, res)
		}
	}
	if again, _ := f.transfersOf(t, inv); fmt.Sprint(again) != fmt.Sprint(want) {
		t.Errorf("transfers after the reruns: %v", again)
	}

	// Ana's transfer in a payment batch, its file, the bank's return
	batch := f.create(t, "/financial/paymentBatch", map[string]any{"description": "Repasses de março", "account_id": f.account})
	added, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ids[f.owner60]), "added")
	if len(refused) != 0 || added[ids[f.owner60]]["method"] != "transfer" || added[ids[f.owner60]]["amount"] != json.Number("1290.00") {
		t.Fatalf("adding Ana's transfer: %v, refused %v", added, refused)
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/transactions/%d", ids[f.owner60]), f.keyA,
		map[string]any{"paid": true, "date": "2024-03-20"}); r.status != http.StatusConflict || !strings.Contains(r.raw, "payment batch") {
		t.Errorf("marking paid by hand a transfer in a batch: %d %s", r.status, r.raw)
	}
	file, _, _ := f.paymentFile(t, batch)
	checkPaymentFile(t, records(t, file, 240), map[int64]sentPayment{ids[f.owner60]: {kind: "A", amount: 129000, bank: "001"}})
	paidAt := time.Date(2024, 3, 28, 0, 0, 0, 0, saoPaulo(t))
	ret := paymentReturn(t, file, map[string]paidLine{ref(ids[f.owner60]): {codes: "00", date: paidAt, amount: 129000}})
	r := f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, string(ret))
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	if done := f.waitJob(t, f.keyA, num(t, r.record(t)["id"])); done["state"] != "succeeded" ||
		fmt.Sprint(done["result"].(map[string]any)["outcomes"]) != "map[paid:1]" {
		t.Fatalf("batch:return job: %v", done)
	}
	want[f.owner60] = "true 2024-03-28 1290.00"
	if got, _ := f.transfersOf(t, inv); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("transfers after the return: %v, want %v", got, want)
	}

	// March: Ana's transfer on the day the bank paid it, Bruno's held
	f.run(t, "owners:statements", `{"month":"2024-03"}`)
	_, ana := f.statementOf(t, f.keyA, f.owner60, "2024-03")
	wantAna := `Ana Proprietária 2024-03: 0.00 -> 0.00; income 1410.00, deductions -120.00, guarantee 0.00, transfers -1290.00, adjustments 0.00; 4 shown, 0 hidden (0.00)
income 2024-03-11 Aluguel — fatura 1, 03/2024 1200.00
income 2024-03-11 Condomínio — fatura 1, 03/2024 210.00
deductions 2024-03-11 Taxa de administração — fatura 1, 03/2024 -120.00
transfers 2024-03-28 Repasse: Aluguel 03/2024 -1290.00 to Banco 001, agência 3456-7, conta 123456-8
`
	if ana != wantAna {
		t.Errorf("Ana's March:\n%s\nwant\n%s", ana, wantAna)
	}
	_, bruno := f.statementOf(t, f.keyA, f.owner40, "2024-03")
	wantBruno := `Bruno Proprietário 2024-03: 0.00 -> 860.00; income 940.00, deductions -80.00, guarantee 0.00, transfers 0.00, adjustments 0.00; 3 shown, 0 hidden (0.00)
income 2024-03-11 Aluguel — fatura 1, 03/2024 800.00
income 2024-03-11 Condomínio — fatura 1, 03/2024 140.00
deductions 2024-03-11 Taxa de administração — fatura 1, 03/2024 -80.00
`
	if bruno != wantBruno {
		t.Errorf("Bruno's March:\n%s\nwant\n%s", bruno, wantBruno)
	}

	// Bruno's paid outside propfin, marked by hand
	path := fmt.Sprintf("/transactions/%d", ids[f.owner40])
	for _, c := range []struct {
		body   map[string]any
		status int
	}{
		{map[string]any{"amount": "800.00"}, http.StatusConflict},
		{map[string]any{"paid": true, "date": "2024-03-29", "amount": "800.00"}, http.StatusConflict},
		{map[string]any{"date": "2024-03-29"}, http.StatusConflict},
		{map[string]any{"paid": true}, http.StatusUnprocessableEntity},
	} {
		if r := f.do(t, http.MethodPut, path, f.keyA, c.body); r.status != c.status {
			t.Errorf("PUT %v: %d %s, want %d", c.body, r.status, r.raw, c.status)
		}
	}
	if r := f.do(t, http.MethodPut, path, f.keyA, map[string]any{"paid": true, "date": "2024-03-29"}); r.status != http.StatusOK {
		t.Fatalf("marking Bruno's transfer paid: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPut, path, f.keyA, map[string]any{"paid": false}); r.status != http.StatusConflict {
		t.Errorf("unpaying a paid transfer: %d %s", r.status, r.raw)
	}
	want[f.owner40] = "true 2024-03-29 860.00"
	if got, _ := f.transfersOf(t, inv); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("transfers after the payment by hand: %v, want %v", got, want)
	}
	if _, again := f.statementOf(t, f.keyA, f.owner40, "2024-03"); again != wantBruno {
		t.Errorf("Bruno's March changed:\n%s", again)
	}
	f.run(t, "owners:statements", `{"month":"2024-04"}`)
	_, bruno = f.statementOf(t, f.keyA, f.owner40, "2024-04")
	wantBruno = `Bruno Proprietário 2024-04: 860.00 -> 0.00; income 0.00, deductions 0.00, guarantee 0.00, transfers 0.00, adjustments -860.00; 1 shown, 0 hidden (0.00)
adjustments 2024-03-29 Repasse: Aluguel 03/2024 -860.00 corrects 2024-03 (transfers) to Banco 237, agência 4321, conta 765432-1
`
	if bruno != wantBruno {
		t.Errorf("Bruno's April:\n%s\nwant\n%s", bruno, wantBruno)
	}
	// the owners' ledgers: every entry of each owner adds up to zero
	for _, owner := range []int64{f.owner60, f.owner40} {
		var balance string
		if err := f.pool.QueryRow(t.Context(), `SELECT sum(CASE type WHEN 'credit' THEN amount ELSE -amount END)::text
			FROM transactions WHERE company_id = $1 AND extract = 'owner' AND owner_id = $2`, f.compA, owner).Scan(&balance); err != nil {
			t.Fatal(err)
		}
		if balance != "0.00" {
			t.Errorf("owner %d's ledger: %s", owner, balance)
		}
	}
	// the night once more writes nothing
	if res := f.rerun(t, "2024-03-11"); num(t, res["transfers"]) != 0 {
		t.Errorf("the run again after the payments: %v", res)
	}
}

// TestTransfersPaidFromTheCollectionAccount: the worked case of a company
// that collects its rents by boleto in CNAB 400 and pays its owners by
// TED in CNAB 240 from the same Bradesco account (cobrança 400 and
// Multipag 240). The contract's billing_method is ted (how its owners are
// paid) and its billing profile's ticket (how the tenant is billed): the
// generated invoice is billed by ticket to the CNAB 400 account and joins
// a collection batch of it, whose file carries 2,350.00; paid, the night
// writes the owners' transfers unpaid by ted from that account (Ana
// 1,290.00, Bruno 860.00: rent 2,000.00 and condomínio 350.00 less the
// 10% fee, 60/40); a payment batch of the same account takes them, its
// CNAB 240 file pays 129000 and 86000 cents by TED under the account's
// payment agreement, and the bank's return pays them. A transfer in the
// batch can no longer change how it is paid.
func TestTransfersPaidFromTheCollectionAccount(t *testing.T) {
	t.Parallel()
	f := transferBatchEnv(t)
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"transfer_payment": "batch"}); r.status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.status, r.raw)
	}
	collection := bradescoAccount(f.business)
	collection["payment_covenant"] = "123456" // the Multipag agreement, not the collection covenant
	account := f.create(t, "/financial/accounts", collection)
	byTicket := f.create(t, "/financial/billings", map[string]any{"name": "Boleto Bradesco", "billing_method": "ticket",
		"account_id": account})
	tenant := f.create(t, "/persons", map[string]any{"name": "João da Silva Araújo", "tax_id": "12345678909",
		"street": "Rua das Acácias", "number": "123", "district": "Jardim Botânico", "city": "Porto Alegre", "state": "RS",
		"zip_code": "90000123"})
	contract := f.create(t, "/financial/contracts", map[string]any{"type": "rent", "building_id": f.building,
		"tenant_id": tenant, "billing_id": byTicket, "business_id": f.business, "account_id": account,
		"billing_method": "ted", "start_at": today(0), "recurrency": "monthly", "modality": "start", "amount": "2000.00",
		"due_date": today(5), "billing_timing": "pre", "transfer_mode": "after_receive", "transfer_after_days": 0})
	items := contractPath(contract, "items")
	f.create(t, items, map[string]any{"item_id": f.condo, "description": "Condomínio", "calculate_mode": "fixed", "amount": "350.00"})
	f.create(t, items, map[string]any{"mode": "commission", "item_id": f.adminFee, "description": "Taxa de administração",
		"calculate_mode": "percentage", "percentage": 10, "percentage_mode": "rental_value"})

	// the invoice: billed by the profile's ticket to the CNAB 400 account
	run := f.send(t, http.MethodPost, contractPath(contract, "invoicesCreate"), f.keyA, `{"until":"`+today(10)+`"}`, nil)
	if run.status != http.StatusAccepted {
		t.Fatalf("invoicesCreate: %d %s", run.status, run.raw)
	}
	job := f.waitJob(t, f.keyA, num(t, run.body["data"].(map[string]any)["id"]))
	created, _ := job["result"].(map[string]any)["invoice_ids"].([]any)
	if job["state"] != "succeeded" || len(created) != 1 {
		t.Fatalf("invoicesCreate job: %v", job)
	}
	inv := num(t, created[0])
	got := f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t)
	if got["billing_method"] != "ticket" || num(t, got["account_id"]) != account || got["total"] != json.Number("2350.00") {
		t.Fatalf("the generated invoice: %v", got)
	}
	if c := f.get(t, contractPath(contract), http.StatusOK).record(t); c["billing_method"] != "ted" {
		t.Errorf("the contract's billing_method: %v", c["billing_method"])
	}

	// collected by a CNAB 400 collection batch of the account
	tickets := f.create(t, "/financial/ticketBatch", map[string]any{"description": "Aluguéis", "account_id": account})
	r := f.do(t, http.MethodPost, fmt.Sprintf("/financial/ticketBatch/%d/addInvoices", tickets), f.keyA, map[string]any{"invoices": []int64{inv}})
	if added, refused := answer(t, r, "added"); len(added) != 1 || len(refused) != 0 {
		t.Fatalf("the invoice in a collection batch: %s", r.raw)
	}
	collected := f.download(t, fmt.Sprintf("/financial/ticketBatch/%d/downloadBatchFile", tickets))
	recs := records(t, collected, 400)
	if len(recs) != 3 || field(recs[0], 1, 19) != "01REMESSA01COBRANCA" || field(recs[1], 127, 139) != fmt.Sprintf("%013d", 235000) {
		t.Fatalf("the collection file:\n%s", strings.Join(recs, "\n"))
	}

	// paid, and the night's transfers: unpaid, by ted, from the account
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", inv), f.keyA, map[string]any{"paid": true,
		"paid_at": today(0), "credit_at": today(0), "billing_method": "ticket"}); r.status != http.StatusOK {
		t.Fatalf("paying: %d %s", r.status, r.raw)
	}
	res := f.run(t, "contracts:transfer", `{"date":"`+today(0)+`"}`)
	if num(t, res["transfers"]) != 2 || res["amount"] != json.Number("2150.00") {
		t.Fatalf("the night's transfers: %v", res)
	}
	transfers := map[int64]string{}
	ids := map[int64]int64{}
	for _, e := range f.get(t, fmt.Sprintf("/transactions?filter[mode]=transfer&filter[invoice_id]=%d&sort=id", inv), http.StatusOK).data(t) {
		owner := num(t, e["owner_id"])
		transfers[owner] = fmt.Sprintf("%v %v %v %v", e["paid"], e["billing_method"], num(t, e["account_id"]) == account, e["amount"])
		ids[owner] = num(t, e["id"])
	}
	want := map[int64]string{f.owner60: "false ted true 1290.00", f.owner40: "false ted true 860.00"}
	if fmt.Sprint(transfers) != fmt.Sprint(want) {
		t.Fatalf("transfers: %v, want %v", transfers, want)
	}

	// paid by a CNAB 240 payment batch of the same account
	batch := f.create(t, "/financial/paymentBatch", map[string]any{"description": "Repasses", "account_id": account})
	added, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ids[f.owner60], ids[f.owner40]), "added")
	if len(refused) != 0 || added[ids[f.owner60]]["method"] != "transfer" || added[ids[f.owner60]]["amount"] != json.Number("1290.00") ||
		added[ids[f.owner40]]["method"] != "transfer" || added[ids[f.owner40]]["amount"] != json.Number("860.00") {
		t.Fatalf("adding the transfers: %v, refused %v", added, refused)
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/transactions/%d", ids[f.owner40]), f.keyA,
		map[string]any{"billing_method": "pix"}); r.status != http.StatusConflict || !strings.Contains(r.raw, "payment batch") {
		t.Errorf("changing how a transfer in a batch is paid: %d %s", r.status, r.raw)
	}
	file, _, _ := f.paymentFile(t, batch)
	pay := records(t, file, 240)
	checkPaymentFile(t, pay, map[int64]sentPayment{
		ids[f.owner60]: {kind: "A", amount: 129000, bank: "001"},
		ids[f.owner40]: {kind: "A", amount: 86000, bank: "237"},
	})
	// the header: the account's agency and account under its payment agreement
	if h := pay[0]; field(h, 33, 52) != fmt.Sprintf("%-20s", "123456") || field(h, 53, 57) != "01234" ||
		field(h, 59, 70) != "000000012345" || field(h, 71, 71) != "6" {
		t.Errorf("payment file header: %q", h)
	}
	// Bruno's a credit in account at Bradesco, Ana's a TED to Banco do Brasil: a batch each
	var total int64
	for _, rec := range pay {
		if rec[7] == '5' {
			var cents int64
			fmt.Sscanf(field(rec, 24, 41), "%d", &cents)
			total += cents
		}
	}
	if got := formas(pay); !slices.Equal(got, []string{"01", "41"}) || total != 215000 {
		t.Errorf("the file's batches: formas %v, total %d cents, want 01 and 41, 215000", got, total)
	}

	// the bank pays them
	paidAt := time.Now().In(saoPaulo(t))
	ret := paymentReturn(t, file, map[string]paidLine{
		ref(ids[f.owner60]): {codes: "00", date: paidAt, amount: 129000},
		ref(ids[f.owner40]): {codes: "00", date: paidAt, amount: 86000},
	})
	r = f.do(t, http.MethodPost, fmt.Sprintf("/financial/paymentBatch/returnFile?account_id=%d", account), f.keyA, string(ret))
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	if done := f.waitJob(t, f.keyA, num(t, r.record(t)["id"])); done["state"] != "succeeded" ||
		fmt.Sprint(done["result"].(map[string]any)["outcomes"]) != "map[paid:2]" {
		t.Fatalf("batch:return job: %v", done)
	}
	for owner, amount := range map[int64]string{f.owner60: "1290.00", f.owner40: "860.00"} {
		e := f.get(t, fmt.Sprintf("/transactions/%d", ids[owner]), http.StatusOK).record(t)
		if e["paid"] != true || e["date"] != today(0) || e["amount"] != json.Number(amount) {
			t.Errorf("owner %d's transfer after the return: %v", owner, e)
		}
	}
}

// download is a remittance of company A at path: the first call starts
// the batch:file job, which must succeed, the next serves the file.
func (f *testEnv) download(t *testing.T, path string) []byte {
	t.Helper()
	r := f.do(t, http.MethodGet, path, f.keyA, nil)
	if r.status != http.StatusAccepted {
		t.Fatalf("first download: %d %s", r.status, r.raw)
	}
	if job := f.waitJob(t, f.keyA, num(t, r.record(t)["id"])); job["state"] != "succeeded" {
		t.Fatalf("batch:file job: %v", job)
	}
	status, _, body := f.raw(t, http.MethodGet, path, f.keyA, "", nil)
	if status != http.StatusOK {
		t.Fatalf("second download: %d %s", status, body)
	}
	return body
}
