package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
)

// contractFilterSet is two contracts that each special filter tells
// apart, with the records the filters look at.
type contractFilterSet struct {
	*contractFixture
	c1, c2                                   int64
	business2, account2, billing2            int64
	formerOwner, buyer, resident, guarantorP int64
	c1Item, condominium                      int64
}

// seedContractFilters makes c1, a rent contract of the owned building in
// São Paulo (SP, Centro), prorogued (its term ended ten days ago, still
// active), with a guarantor, a buyer occupant, a fire insurance covering
// today, an item of rent paid out to a former owner, a private document
// of template 7, an invoice paid three days ago and one open, ten days
// overdue; and c2, a finished sale of building 2 (of a condominium, RJ),
// signed 2024-03-15, renewing c1, run 2024-01-10 to 2024-12-31, with a
// resident occupant, an expired fire insurance, a public document of
// template 8 and an open invoice two days overdue.
func seedContractFilters(t *testing.T) *contractFilterSet {
	t.Helper()
	s := &contractFilterSet{contractFixture: contractEnv(t)}
	s.business2 = s.create(t, "/financial/businesses", map[string]any{"name": "Filial"})
	s.account2 = s.create(t, "/financial/accounts", map[string]any{"business_id": s.business2})
	s.billing2 = s.create(t, "/financial/billings", map[string]any{"name": "PIX", "account_id": s.account2})
	s.formerOwner = s.create(t, "/persons", map[string]any{"name": "Fernanda Antiga"})
	s.buyer = s.create(t, "/persons", map[string]any{"name": "Bruno Comprador"})
	s.resident = s.create(t, "/persons", map[string]any{"name": "Rita Moradora"})
	s.guarantorP = s.create(t, "/persons", map[string]any{"name": "Gustavo Fiador"})
	s.do(t, http.MethodPut, fmt.Sprintf("/buildings/%d", s.building), s.keyA, map[string]any{"city": "São Paulo", "state": "SP", "district": "Centro"})
	s.do(t, http.MethodPut, fmt.Sprintf("/buildings/%d", s.building2), s.keyA, map[string]any{"city": "Rio de Janeiro", "state": "RJ", "district": "Lapa"})
	s.condominium = newCondominium(t, s.testEnv, nil)
	s.do(t, http.MethodPut, fmt.Sprintf("/buildings/%d", s.building2), s.keyA, map[string]any{"condominium_id": s.condominium})

	s.c1 = s.newContract(t, map[string]any{"end_at": today(-10), "user_id": s.user, "team_id": s.team, "deal_id": s.deal,
		"guarantor_1": s.guarantorP, "guarantee": "fiador", "readjust_at": "2025-07-01", "receipt_document_id": 5,
		"tag": []int64{s.tag1}, "documentables": []any{map[string]any{"template_id": 7, "privacy": "private"}}})
	s.create(t, contractPath(s.c1, "occupants"), map[string]any{"type": "buyer", "person_id": s.buyer})
	s.create(t, contractPath(s.c1, "insurances"), map[string]any{"kind": "fire", "start_at": today(-100), "end_at": today(100)})
	s.c1Item = s.create(t, contractPath(s.c1, "items"), map[string]any{"item_id": s.rent, "transfer_owner_id": s.formerOwner, "amount": "2500.00"})
	paid := s.invoice(t, map[string]any{"type": "contract", "contract_id": s.c1, "due_date": today(-4)})
	s.exec(t, `UPDATE invoices SET paid = true, paid_at = $2, status = 'paid' WHERE id = $1`, paid, today(-3))
	s.invoice(t, map[string]any{"type": "contract", "contract_id": s.c1, "due_date": today(-10), "date": today(-20)})

	s.c2 = s.newContract(t, map[string]any{"type": "sale", "building_id": s.building2, "tenant_id": s.payer,
		"billing_id": s.billing2, "business_id": s.business2, "account_id": s.account2, "start_at": "2024-01-10",
		"end_at": "2024-12-31", "signed_at": "2024-03-15", "renewed_id": s.c1, "status": "closing", "active": "finished",
		"documentables": []any{map[string]any{"template_id": 8, "privacy": "public"}}})
	s.create(t, contractPath(s.c2, "occupants"), map[string]any{"type": "resident", "person_id": s.resident})
	s.create(t, contractPath(s.c2, "insurances"), map[string]any{"kind": "fire", "start_at": today(-300), "end_at": today(-1)})
	s.invoice(t, map[string]any{"type": "contract", "contract_id": s.c2, "due_date": today(-2), "date": today(-20),
		"business_id": s.business2, "account_id": s.account2})
	return s
}

// TestContractFilters: each special filter keeps a contract that must
// match and drops one that must not; dates relative to today are the
// company's (America/Sao_Paulo).
func TestContractFilters(t *testing.T) {
	t.Parallel()
	s := seedContractFilters(t)
	c1, c2 := []int64{s.c1}, []int64{s.c2}
	both := []int64{s.c1, s.c2}
	in := func(name string, v any) string {
		return fmt.Sprintf("filter[%s][]=%s", name, url.QueryEscape(fmt.Sprint(v)))
	}
	cases := []struct {
		query string
		want  []int64
	}{
		{in("statusIn", "progress"), c1},
		{in("statusIn", "renew"), nil},
		{in("statusNotIn", "progress"), c2},
		{in("statusNotIn", "progress") + "&" + in("statusNotIn", "closing"), nil},
		// c1's oldest open invoice is 10 days late, c2's 2 (the invoices'
		// writes set the status, migration 0066)
		{in("paymentStatusIn", "30_days"), c1},
		{in("paymentStatusIn", "5_days"), c2},
		{in("paymentStatusIn", "month"), nil},
		{in("activeIn", "finished"), c2},
		{in("activeIn", "canceled"), nil},
		{in("typeIn", "sale"), c2},
		{in("typeIn", "season"), nil},
		{in("accountIn", s.account2), c2},
		{in("businessIn", s.business), c1},
		{in("tenantIn", s.tenant), c1},
		{in("tenantIn", s.owner), nil},
		{in("buildingIn", s.building2), c2},
		{in("buildingId2In", "AU-1"), c1},
		{in("buildingId2In", "XX-9"), nil},
		{in("condominiumIn", s.condominium), c2},
		{in("condominiumIn", s.condominium+1000), nil},
		{in("dealIn", s.deal), c1},
		{in("dealIn", s.deal+1000), nil},
		{in("ownerIn", s.owner), c1},
		{in("ownerIn", s.formerOwner), nil},
		{in("ownerAllIn", s.formerOwner), c1}, // paid out through c1's item
		{in("ownerAllIn", s.owner), c1},
		{in("ownerAllIn", s.tenant), nil},
		{in("ownerOrTenantIn", s.payer), c2}, // c2's tenant
		{in("ownerOrTenantIn", s.owner), c1},
		{in("ownerOrTenantIn", s.buyer), nil},
		{in("ownerOrTenantOrBuyerIn", s.buyer), c1},
		{in("ownerOrTenantOrBuyerIn", s.resident), nil},
		{in("billingIn", s.billing2), c2},
		{in("ownerNotIn", s.owner), c2},
		{in("ownerNotIn", s.formerOwner), both},
		{in("occupantIn", s.resident), c2},
		{in("occupantIn", s.guarantorP), nil},
		{in("buyerIn", s.buyer), c1},
		{in("buyerIn", s.resident), nil},
		{in("renewedFrom", s.c1), c2},
		{in("renewedFrom", s.c2), nil},
		{"filter[renewedBetween][]=2024-02-01&filter[renewedBetween][]=2024-01-01", c2},
		{"filter[renewedBetween][]=2023-01-01&filter[renewedBetween][]=2023-12-31", nil},
		{in("responsibleIn", s.user), c1},
		{in("responsibleIn", s.user+1000), nil},
		{in("contractItems", s.rent), c1},
		{in("contractItems", s.condo), nil},
		{in("guaranteeTypeIn", "undefined"), c2},
		{in("guaranteeTypeIn", "fiador"), c1},
		{in("guaranteeTypeIn", "caução"), nil},
		{in("cityIn", "São Paulo"), c1},
		{in("cityIn", "Campinas"), nil},
		{in("stateIn", "RJ"), c2},
		{in("stateIn", "MG"), nil},
		{in("districtIn", "Centro"), c1},
		{in("districtIn", "Sé"), nil},
		{"filter[paidPeriod][]=" + today(-5) + "&filter[paidPeriod][]=" + today(0), c1},
		{"filter[paidPeriod][]=" + today(-2) + "&filter[paidPeriod][]=" + today(0), nil},
		{"filter[atMonth]=2024-03", c2},
		{"filter[atMonth]=2025-02", c1},
		{"filter[atMonth]=2024-08", both},
		{"filter[atMonth]=2023-12", nil},
		{"filter[atYear]=2025", c1},
		{"filter[atYear]=2024", both},
		{"filter[atYear]=2023", nil},
		{"filter[soldMonth]=2024-03", c2},
		{"filter[soldMonth]=2024-04", nil},
		{"filter[soldYear]=2024", c2},
		{"filter[soldYear]=2023", nil},
		{"filter[readjustMonth]=2025-07", c1},
		{"filter[readjustMonth]=2025-08", nil},
		{"filter[endMonth]=2024-12", c2},
		{"filter[endMonth]=2024-11", nil},
		{fmt.Sprintf("filter[team]=%d", s.team), c1},
		{fmt.Sprintf("filter[team]=%d", s.team+1000), nil},
		{"filter[extended]=true", c1},
		{"filter[extended]=false", c2},
		{"filter[hasGuarantor]=true", c1},
		{"filter[hasGuarantor]=false", c2},
		{"filter[hasFireInsurance]=true", c1},
		{"filter[hasFireInsurance]=false", c2},
		{"filter[overduePaymentDays]=5", c1},
		{"filter[overduePaymentDays]=2", both},
		{"filter[overduePaymentDays]=11", nil},
		{"filter[dueDateInvoices]=" + today(-2), c2},
		{"filter[dueDateInvoices]=" + today(-3), nil},
		{in("documentTemplateIn", 7), c1},
		{in("documentTemplateIn", 9), nil},
		{"filter[documentPrivacy]=public", c2},
		{"filter[documentPrivacy]=private", c1},
		// plain filters
		{"filter[receipt_document_id]=5", c1},
		{"filter[guarantee]=undefined", c2},
		{"filter[status]=closing", c2},
		{"filter[payment_status]=30_days", c1},
		{fmt.Sprintf("filter[tag][]=%d", s.tag1), c1},
		{fmt.Sprintf("filter[renewed_id]=%d", s.c1), c2},
		{"filter[amount]=2500", both},
		{"filter[end_at|l]=2025-01-01", c2},
	}
	for _, c := range cases {
		got := s.get(t, "/financial/contracts?sort=id&perPage=100&"+c.query, http.StatusOK).ids(t)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	// a guarantor occupant counts as a guarantor
	s.create(t, contractPath(s.c2, "occupants"), map[string]any{"type": "guarantor", "person_id": s.guarantorP})
	if got := s.get(t, "/financial/contracts?sort=id&filter[hasGuarantor]=true", http.StatusOK).ids(t); !slices.Equal(got, both) {
		t.Errorf("hasGuarantor with a guarantor occupant: %v", got)
	}
	for _, q := range []string{
		"filter[renewedBetween][]=2024-01-01", "filter[renewedBetween][]=2024-01-01&filter[renewedBetween][]=2024-02-01&filter[renewedBetween][]=2024-03-01",
		"filter[paidPeriod][]=2024-01-01", "filter[paidPeriod][]=x&filter[paidPeriod][]=2024-01-01",
		"filter[atMonth]=2024-13", "filter[atMonth]=2024-03-01", "filter[readjustMonth][]=2024-03", "filter[atYear]=MMXXIV",
		"filter[statusIn][]=open", "filter[paymentStatusIn][]=late", "filter[stateIn][]=XX", "filter[documentPrivacy]=secret",
		"filter[overduePaymentDays]=x", "filter[hasGuarantor]=maybe", "filter[documentables]=1",
	} {
		s.get(t, "/financial/contracts?"+q, http.StatusUnprocessableEntity)
	}
	// company B sees none of them, through any filter
	if r := s.do(t, http.MethodGet, fmt.Sprintf("/financial/contracts?filter[ownerIn][]=%d", s.owner), s.keyB, nil); r.status != http.StatusOK || len(r.ids(t)) != 0 {
		t.Errorf("B: %s", r.raw)
	}
}
