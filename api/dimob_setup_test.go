package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/propfin/propfin/finance/dimob"
)

// dimobFixture is company A's DIMOB of 2024 through the API (docs/dimob.md,
// "Worked example"): a declarant with its responsible person's CPF; a
// contract with dimob (L-0123) whose property is owned 60% by ownerA and
// 40% by ownerB, rented by a company (tenant) that withholds income tax;
// its invoices (rent, condominium, administration fee, IRRF) paid through
// PUT /invoices in different months and one undone; a contract without
// dimob paid in 2024; and a brokered sale (V-0042) with its commission.
type dimobFixture struct {
	*testEnv
	business, account                 int64
	ownerA, ownerB, tenant            int64
	seller, buyer                     int64
	building, saleBuilding            int64
	lease, leaseOff, sale             int64
	rent, condo, adminFee, irrf, comm int64
	invoices                          map[string]int64 // by what they bill: "2024-03", "off", "sale"
}

// The amounts of one month's invoice of L-0123; the condominium's item has
// dimob false, so only rent, fee and IRRF are declared.
const (
	leaseRent, leaseCondo, leaseFee, leaseIRRF = "10000.00", "500.00", "1000.00", "150.00"
	leaseTotal                                 = "10350.00" // rent + condominium - IRRF (credited to the tenant)
)

func dimobEnv(t *testing.T) *dimobFixture {
	t.Helper()
	f := &dimobFixture{testEnv: setup(t), invoices: map[string]int64{}}
	withWorkers(t, f.testEnv)
	f.business = f.create(t, "/financial/businesses", map[string]any{
		"name": "Imobiliária Conceição Ltda", "tax_id": "11.444.777/0001-61", "responsible_cpf": "123.456.789-09",
		"zip_code": "01302-000", "street": "Rua da Consolação", "number": "1000", "complement": "sala 12",
		"district": "Consolação", "city": "São Paulo", "state": "SP"})
	f.account = f.create(t, "/financial/accounts", map[string]any{"business_id": f.business, "bank": "341"})
	f.ownerA = f.create(t, "/persons", map[string]any{"name": "José Araújo", "tax_id": "52998224725"})
	f.ownerB = f.create(t, "/persons", map[string]any{"name": "Maria da Conceição Ferreira", "tax_id": "11144477735"})
	f.tenant = f.create(t, "/persons", map[string]any{"name": "Padaria Pão de Açúcar Ltda", "tax_id": "11222333000181"})
	f.seller = f.create(t, "/persons", map[string]any{"name": "Pedro Henrique Müller", "tax_id": "71460238001"})
	f.buyer = f.create(t, "/persons", map[string]any{"name": "Ana Luíza Gonçalves", "tax_id": "39053344705"})
	f.building = f.create(t, "/buildings", map[string]any{"title": "Loja Augusta", "street": "Rua Augusta", "number": "500",
		"complement": "loja 2", "district": "Consolação", "city": "São Paulo", "state": "SP", "zip_code": "01305000"})
	for person, share := range map[int64]string{f.ownerA: "60", f.ownerB: "40"} {
		f.create(t, fmt.Sprintf("/buildings/%d/owners", f.building), map[string]any{"person_id": person, "percentage": share})
	}
	f.saleBuilding = f.create(t, "/buildings", map[string]any{"title": "Apto 81", "street": "Avenida Norte-Sul",
		"number": "1234", "complement": "apto 81", "city": "Campinas", "state": "SP", "zip_code": "13025-320"})
	f.create(t, fmt.Sprintf("/buildings/%d/owners", f.saleBuilding), map[string]any{"person_id": f.seller, "percentage": "100"})

	item := func(description, debit, credit, typ string, dimob bool) int64 {
		return f.scalar(t, `INSERT INTO transaction_items (company_id, description, debit, credit, type, dimob)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, f.compA, description, debit, credit, typ, dimob)
	}
	f.rent = item("Aluguel", "customer", "owner", "rent", true)
	f.condo = item("Condomínio", "customer", "owner", "default", false)
	f.adminFee = item("Taxa de administração", "owner", "business", "default", true)
	f.irrf = item("IRRF retido pelo locatário", "owner", "customer", "duty", true)
	f.comm = item("Comissão de venda", "customer", "business", "commission", true)

	contract := func(reference, typ string, building, tenant int64, dimob bool, signed, amount string) int64 {
		return f.scalar(t, `INSERT INTO contracts (company_id, reference, type, building_id, tenant_id, business_id,
			account_id, dimob, signed_at, start_at, amount) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10) RETURNING id`,
			f.compA, reference, typ, building, tenant, f.business, f.account, dimob, signed, amount)
	}
	f.lease = contract("L-0123", "rent", f.building, f.tenant, true, "2023-03-15", "10000.00")
	f.leaseOff = contract("L-0999", "rent", f.building, f.tenant, false, "2023-06-01", "10000.00")
	f.sale = contract("V-0042", "sale", f.saleBuilding, f.buyer, true, "2024-08-20", "850000.00")
	f.create(t, fmt.Sprintf("/financial/contracts/%d/occupants", f.sale), map[string]any{
		"type": "buyer", "person_id": f.buyer, "principal": true})
	return f
}

// leaseInvoice creates L-0123's invoice of a month (YYYY-MM) on contract c,
// due on the 10th; its id.
func (f *dimobFixture) leaseInvoice(t *testing.T, c int64, month string, lines []any) int64 {
	t.Helper()
	total := leaseTotal
	if lines == nil {
		lines = []any{
			map[string]any{"item_id": f.rent, "amount": leaseRent, "description": "Aluguel " + month},
			map[string]any{"item_id": f.condo, "amount": leaseCondo},
			map[string]any{"item_id": f.adminFee, "amount": leaseFee},
			map[string]any{"item_id": f.irrf, "amount": leaseIRRF},
		}
	} else {
		total = leaseRent // the lines of a test of its own: rent and what is not charged
	}
	return f.create(t, "/invoices", map[string]any{
		"type": "contract", "contract_id": c, "building_id": f.building, "payer_id": f.tenant,
		"business_id": f.business, "account_id": f.account, "description": "Aluguel " + month, "total": total,
		"date": month + "-01", "due_date": month + "-10", "billing_method": "ticket", "items": lines})
}

// setPaid marks an invoice paid on paidAt, credited on creditAt, or
// unpaid (paidAt ""): the payment posted, or undone.
func (f *dimobFixture) setPaid(t *testing.T, id int64, paidAt, creditAt string) {
	t.Helper()
	body := map[string]any{"paid": false, "paid_at": nil, "billing_method": "ticket"}
	if paidAt != "" {
		body = map[string]any{"paid": true, "paid_at": paidAt, "credit_at": creditAt, "billing_method": "ticket"}
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", id), f.keyA, body); r.status != http.StatusOK {
		t.Fatalf("invoice %d paid at %q: %d %s", id, paidAt, r.status, r.raw)
	}
}

// dimobBody is the body of POST /financial/dimob for the fixture's business.
func (f *dimobFixture) dimobBody(year int, more map[string]any) map[string]any {
	b := map[string]any{"business_id": f.business, "year": year}
	for k, v := range more {
		b[k] = v
	}
	return b
}

// preview is POST /financial/dimob with preview: the check's data.
func (f *dimobFixture) preview(t *testing.T, year int) map[string]any {
	t.Helper()
	r := f.do(t, http.MethodPost, "/financial/dimob", f.keyA, f.dimobBody(year, map[string]any{"preview": true}))
	if r.status != http.StatusOK {
		t.Fatalf("preview: %d %s", r.status, r.raw)
	}
	return r.body["data"].(map[string]any)
}

// run starts the job of year's DIMOB, waits for it, and returns the job
// and the run as GET /financial/dimob/{id} reads it.
func (f *dimobFixture) run(t *testing.T, year int) (job, run map[string]any) {
	t.Helper()
	r := f.do(t, http.MethodPost, "/financial/dimob", f.keyA, f.dimobBody(year, nil))
	if r.status != http.StatusAccepted || r.header.Get("Location") == "" {
		t.Fatalf("POST /financial/dimob: %d %s", r.status, r.raw)
	}
	job = f.waitJob(t, f.keyA, num(t, r.body["data"].(map[string]any)["id"]))
	if job["state"] != "succeeded" {
		t.Fatalf("job: %v", job)
	}
	runs := f.get(t, fmt.Sprintf("/financial/dimob?filter[job_id]=%v", job["id"]), http.StatusOK).data(t)
	if len(runs) != 1 {
		t.Fatalf("runs of job %v: %v", job["id"], runs)
	}
	return job, runs[0]
}

// file downloads a run's file and reads it with finance/dimob's reader.
func (f *dimobFixture) file(t *testing.T, runID int64) ([]byte, http.Header, dimob.Declaration) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/financial/dimob/%d/file", f.url, runID), nil)
	req.Header.Set("Authorization", "Bearer "+f.keyA)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET file: %d %s", res.StatusCode, data)
	}
	d, err := dimob.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the file does not read back: %v\n%s", err, data)
	}
	return data, res.Header, d
}

// dimobProblems returns the problems (or warnings) of a check or a run.
func dimobProblems(t *testing.T, data map[string]any, key string) []map[string]any {
	t.Helper()
	raw, ok := data[key].([]any)
	if !ok {
		t.Fatalf("no %s in %v", key, data)
	}
	out := make([]map[string]any, len(raw))
	for i, p := range raw {
		out[i] = p.(map[string]any)
	}
	return out
}
