package api

import (
	"fmt"
	"maps"
	"net/http"
	"testing"
)

// contractFixture is company A's data a contract points at, on top of the
// invoice fixture (whose contract, inserted by SQL, is removed).
type contractFixture struct {
	*invoiceFixture
	user, team, deal int64
}

// contractEnv is a test environment with company A's fixture for
// contracts: its user, a team and a deal beside the invoice fixture's
// business, account, billing, persons, buildings (the first owned by
// owner), items and tags.
func contractEnv(t *testing.T, opts ...envOption) *contractFixture {
	t.Helper()
	f := &contractFixture{invoiceFixture: invoiceEnv(t, opts...)}
	f.exec(t, `DELETE FROM contracts WHERE id = $1`, f.contract)
	f.contract = 0
	f.user = f.scalar(t, `SELECT min(id) FROM users WHERE company_id = $1`, f.compA)
	f.team = f.scalar(t, `INSERT INTO teams (company_id, name) VALUES ($1, 'Locação') RETURNING id`, f.compA)
	f.deal = f.scalar(t, `INSERT INTO deals (company_id, title) VALUES ($1, 'Negócio') RETURNING id`, f.compA)
	return f
}

// contractBody is a valid rent contract with the spec's required fields,
// with the overrides applied (a nil value removes the key).
func (f *contractFixture) contractBody(overrides map[string]any) map[string]any {
	b := map[string]any{
		"type": "rent", "building_id": f.building, "tenant_id": f.tenant, "billing_id": f.billing,
		"start_at": "2024-07-01", "recurrency": "monthly", "amount": "2500.00", "business_id": f.business,
		"account_id": f.account, "billing_method": "ticket", "due_date": "2024-08-05",
	}
	maps.Copy(b, overrides)
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
		}
	}
	return b
}

// newContract creates a contract of company A from contractBody; its id.
func (f *contractFixture) newContract(t *testing.T, overrides map[string]any) int64 {
	t.Helper()
	return f.create(t, "/financial/contracts", f.contractBody(overrides))
}

// contractPath is the path of contract id, with more segments joined.
func contractPath(id int64, more ...any) string {
	p := fmt.Sprintf("/financial/contracts/%d", id)
	for _, m := range more {
		p += fmt.Sprintf("/%v", m)
	}
	return p
}

// putContract updates contract id with company A's key.
func (f *contractFixture) putContract(t *testing.T, id int64, body map[string]any) response {
	t.Helper()
	return f.do(t, http.MethodPut, contractPath(id), f.keyA, body)
}
