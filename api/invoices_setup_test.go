package api

import (
	"fmt"
	"maps"
	"net/http"
	"testing"
)

// invoiceFixture is company A's data an invoice points at.
type invoiceFixture struct {
	*testEnv
	business, account, billing   int64
	payer, tenant, owner, broker int64
	building, building2          int64
	contract                     int64
	rent, condo, adminFee        int64 // transaction items a line charges with (see invoiceEnv)
	fee, discount                int64 // the items the posting books a settlement with
	partyless                    int64 // an item without parties: no line may use it
	tag1, tag2                   int64
}

// invoiceEnv is a test environment with company A's fixture: a building
// owned by owner (100%), a contract of that building whose tenant is
// tenant, and the transaction items a payment is booked with: rent and
// condo (debit customer, credit owner), the administration fee (debit
// owner, credit business: not charged to the payer), the company's fee
// item (debit customer, credit owner: late fee and interest) and discount
// item (debit owner, credit customer), and one item without parties.
func invoiceEnv(t *testing.T, opts ...envOption) *invoiceFixture {
	t.Helper()
	f := &invoiceFixture{testEnv: setup(t, opts...)}
	f.business = f.create(t, "/financial/businesses", map[string]any{"name": "Horizonte"})
	f.account = f.create(t, "/financial/accounts", map[string]any{"business_id": f.business, "bank": "341"})
	f.billing = f.create(t, "/financial/billings", map[string]any{"name": "Boleto", "account_id": f.account})
	f.payer = f.create(t, "/persons", map[string]any{"name": "Paula Pagadora", "tax_id": "52998224725"})
	f.tenant = f.create(t, "/persons", map[string]any{"name": "Tiago Inquilino"})
	f.owner = f.create(t, "/persons", map[string]any{"name": "Olga Proprietária"})
	f.broker = f.create(t, "/persons", map[string]any{"name": "Beto Corretor"})
	f.building = f.create(t, "/buildings", map[string]any{"title": "Aurora", "reference": "AU-1"})
	f.building2 = f.create(t, "/buildings", map[string]any{"title": "Brisa", "reference": "BR-2"})
	f.create(t, fmt.Sprintf("/buildings/%d/owners", f.building), map[string]any{"person_id": f.owner, "percentage": "100"})
	f.tag1 = f.create(t, "/tags", map[string]any{"name": "VIP"})
	f.tag2 = f.create(t, "/tags", map[string]any{"name": "Atraso"})
	f.contract = f.scalar(t, `INSERT INTO contracts (company_id, id2, reference, type, building_id, tenant_id)
		VALUES ($1, 501, 'CT-501', 'rent', $2, $3) RETURNING id`, f.compA, f.building, f.tenant)
	f.rent = f.item(t, "Aluguel", "customer", "owner", "rent")
	f.condo = f.item(t, "Condomínio", "customer", "owner", "default")
	f.adminFee = f.item(t, "Taxa de administração", "owner", "business", "default")
	f.fee = f.item(t, "Multa e juros", "customer", "owner", "fee")
	f.discount = f.item(t, "Desconto", "owner", "customer", "discount")
	f.partyless = f.scalar(t, `INSERT INTO transaction_items (company_id, description) VALUES ($1, 'Diversos') RETURNING id`, f.compA)
	return f
}

// item seeds a transaction item of company A; its id.
func (f *invoiceFixture) item(t *testing.T, description, debit, credit, typ string) int64 {
	t.Helper()
	return f.scalar(t, `INSERT INTO transaction_items (company_id, description, debit, credit, type)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, f.compA, description, debit, credit, typ)
}

// scalar runs a fixture statement returning one integer.
func (e *testEnv) scalar(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := e.pool.QueryRow(t.Context(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("fixture %q: %v", sql, err)
	}
	return n
}

// body is a valid single invoice of total 1000.00 (one rent line, naming
// the owner it credits: the invoice has no building whose owners would
// share it), with the overrides applied (a nil value removes the key).
func (f *invoiceFixture) body(overrides map[string]any) map[string]any {
	b := map[string]any{
		"type": "single", "payer_id": f.payer, "business_id": f.business, "account_id": f.account,
		"description": "Aluguel de março", "total": "1000.00", "date": today(0), "due_date": today(10),
		"billing_method": "ticket", "items": []any{map[string]any{"item_id": f.rent, "amount": "1000.00", "owner_id": f.owner}},
	}
	maps.Copy(b, overrides)
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
		}
	}
	return b
}

// invoice creates an invoice of company A from body(overrides); its id.
func (f *invoiceFixture) invoice(t *testing.T, overrides map[string]any) int64 {
	t.Helper()
	return f.create(t, "/invoices", f.body(overrides))
}

// pay marks invoice id paid on paidAt (credited the same day) and fails
// the test unless the payment is posted; the record written.
func (f *invoiceFixture) pay(t *testing.T, id int64, paidAt string) map[string]any {
	t.Helper()
	r := f.put(t, id, map[string]any{"paid": true, "paid_at": paidAt})
	if r.status != http.StatusOK {
		t.Fatalf("pay invoice %d: %d %s", id, r.status, r.raw)
	}
	return r.record(t)
}

// put updates invoice id with company A's key; billing_method is added
// unless given.
func (f *invoiceFixture) put(t *testing.T, id int64, body map[string]any) response {
	t.Helper()
	b := map[string]any{"billing_method": "ticket"}
	maps.Copy(b, body)
	return f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", id), f.keyA, b)
}

// lines is a list of line bodies (item, amount) pairs.
func lines(pairs ...any) []any {
	var out []any
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, map[string]any{"item_id": pairs[i], "amount": pairs[i+1]})
	}
	return out
}
