package api

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// TestInvoiceFilters: each special filter keeps an invoice that must
// match and drops one that must not; dates are relative to today in the
// company's time zone.
func TestInvoiceFilters(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	business2 := f.create(t, "/financial/businesses", map[string]any{"name": "Filial"})
	account2 := f.create(t, "/financial/accounts", map[string]any{"business_id": business2})
	// i1: a contract's invoice, overdue, registered, with a protest
	i1 := f.invoice(t, map[string]any{"type": "contract", "contract_id": f.contract, "due_date": today(-5), "date": today(-10),
		"ticket_key": "K1", "id2": "42", "protest": `{"id":"P1","status":"open"}`, "tag": []int64{f.tag1},
		"ticket_registered": true, "period_initial": "2024-03-01", "period_final": "2024-03-31"})
	// i2: a single invoice of building 2, not yet due, with a PIX code
	i2 := f.invoice(t, map[string]any{"building_id": f.building2, "payer_id": f.broker, "due_date": today(5),
		"business_id": business2, "account_id": account2, "billing_method": "pix", "tag": []int64{f.tag2}})
	f.exec(t, `UPDATE invoices SET pix_code = 'PIX', auto_transfer_status = 'waiting' WHERE id = $1`, i2)
	// i3: due today, canceled; a period from April 2024 on, open-ended
	i3 := f.invoice(t, map[string]any{"due_date": today(0), "date": today(-10), "period_initial": "2024-04-01"})
	if r := f.put(t, i3, map[string]any{"status": "canceled"}); r.status != http.StatusOK {
		t.Fatalf("cancel: %s", r.raw)
	}
	// i4: was overdue, paid; no building, its line names the owner credited
	i4 := f.invoice(t, map[string]any{"due_date": today(-5), "date": today(-10),
		"items": []any{map[string]any{"item_id": f.rent, "amount": "1000.00", "owner_id": f.owner}}})
	if r := f.put(t, i4, map[string]any{"paid": true, "paid_at": today(0)}); r.status != http.StatusOK {
		t.Fatalf("pay: %s", r.raw)
	}
	all := []int64{i1, i2, i3, i4}
	cases := []struct {
		query string
		want  []int64
	}{
		{"filter[ticketIdIn][]=K1", []int64{i1}},
		{"filter[ticketIdIn][]=K2", nil},
		{"filter[idOldIn][]=42", []int64{i1}},
		{"filter[idOldIn][]=7", nil},
		{"filter[referenceId]=CT-501", []int64{i1}},
		{"filter[referenceId]=CT-502", nil},
		{"filter[emptyProtest]=true", []int64{i2, i3, i4}},
		{"filter[emptyProtest]=false", []int64{i1}},
		{"filter[protestIdIn][]=P1", []int64{i1}},
		{"filter[protestIdIn][]=P2", nil},
		{"filter[unpaid]=true", []int64{i1, i2}},
		{"filter[unpaid]=false", []int64{i3, i4}},
		{"filter[overdue]=true", []int64{i1}},
		{"filter[overdue]=false", []int64{i2, i3, i4}},
		{"filter[early]=true", []int64{i2}},
		{"filter[early]=false", []int64{i1, i3, i4}},
		{fmt.Sprintf("filter[contractIn][]=%d", f.contract), []int64{i1}},
		{"filter[contractIdIn][]=501", []int64{i1}},
		{"filter[contractIdIn][]=502", nil},
		{fmt.Sprintf("filter[buildingIn][]=%d", f.building), []int64{i1}}, // through its contract
		{fmt.Sprintf("filter[buildingIn][]=%d", f.building2), []int64{i2}},
		{"filter[buildingId2In][]=AU-1", []int64{i1}},
		{"filter[buildingId2In][]=BR-2&filter[buildingId2In][]=XX", []int64{i2}},
		{"filter[dateMin]=" + today(-1), []int64{i2}},
		{"filter[dateMax]=" + today(-1), []int64{i1, i3, i4}},
		{"filter[dueDateMin]=" + today(1), []int64{i2}},
		{fmt.Sprintf("filter[businessIn][]=%d", business2), []int64{i2}},
		{fmt.Sprintf("filter[accountIn][]=%d", f.account), []int64{i1, i3, i4}},
		{fmt.Sprintf("filter[payerIn][]=%d", f.broker), []int64{i2}},
		{fmt.Sprintf("filter[ownerIn][]=%d", f.owner), []int64{i1}},
		{fmt.Sprintf("filter[ownerIn][]=%d", f.tenant), nil},
		{fmt.Sprintf("filter[tenantIn][]=%d", f.tenant), []int64{i1}},    // the contract's tenant
		{fmt.Sprintf("filter[tenantIn][]=%d", f.payer), []int64{i3, i4}}, // payers of invoices without a contract
		{fmt.Sprintf("filter[tenantIn][]=%d", f.broker), []int64{i2}},
		{"filter[registered]=true", []int64{i1}},
		{"filter[registered]=false", []int64{i2, i3, i4}},
		{"filter[registeredOrPix]=true", []int64{i1, i2}},
		{"filter[billingMethodIn][]=pix", []int64{i2}},
		{fmt.Sprintf("filter[tagIn][]=%d", f.tag2), []int64{i2}},
		{"filter[autoTransferStatus][]=waiting", []int64{i2}},
		{"filter[autoTransferStatus][]=transferred&filter[autoTransferStatus][]=chargeback", nil},
		{"filter[periodContains]=2024-03-15", []int64{i1}}, // an invoice without a period holds no date
		{"filter[periodContains]=2024-05-01", []int64{i3}}, // an open end holds every date on its side
		{"filter[periodContains]=2024-03-31", []int64{i1}},
		{"filter[payerTaxIdIn][]=52998224725", []int64{i1, i3, i4}},
		{"filter[payerTaxIdIn][]=11144477735", nil},
		// plain filters, status as read today
		{"filter[status]=overdue", []int64{i1}},
		{"filter[status]=unpaid", []int64{i2}},
		{"filter[status]=canceled", []int64{i3}},
		{"filter[status]=paid", []int64{i4}},
		{"filter[id2]=42", []int64{i1}},
		{"filter[paid]=true", []int64{i4}},
		{"filter[pix_code|not_empty]", []int64{i2}},
		{"filter[due_date|l]=" + today(0), []int64{i1, i4}},
		{fmt.Sprintf("filter[tag][]=%d", f.tag1), []int64{i1}},
		{"filter[total]=1000", all},
	}
	for _, c := range cases {
		got := f.get(t, "/invoices?sort=id&perPage=100&"+c.query, http.StatusOK).ids(t)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	for _, q := range []string{"filter[billingMethodIn][]=boleto", "filter[status]=late", "filter[idOldIn][]=x", "filter[overdue]=maybe",
		"filter[items]=1", "filter[referenceId][]=a", "filter[periodContains]=2024-13-01",
		"filter[autoTransferStatus][]=done", "filter[auto_transfer_status]=done"} {
		f.get(t, "/invoices?"+q, http.StatusUnprocessableEntity)
	}
	// company B sees none of them, through any filter
	if r := f.do(t, http.MethodGet, "/invoices?filter[contractIdIn][]=501", f.keyB, nil); r.status != http.StatusOK || len(r.ids(t)) != 0 {
		t.Errorf("B: %s", r.raw)
	}
}

// TestEarlyAndOverdue: early means not yet due, due today or later, for
// invoices as for ledger entries, so that early and overdue split what is
// owed: an invoice or an entry due today is early, never neither.
func TestEarlyAndOverdue(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	yesterday := f.invoice(t, map[string]any{"date": today(-10), "due_date": today(-1)})
	dueToday := f.invoice(t, map[string]any{"date": today(-10), "due_date": today(0)})
	tomorrow := f.invoice(t, map[string]any{"due_date": today(1)})
	paid := f.invoice(t, map[string]any{"due_date": today(0)})
	f.pay(t, paid, today(0))
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{"filter[early]=true", []int64{dueToday, tomorrow}},
		{"filter[overdue]=true", []int64{yesterday}},
		{"filter[early]=false", []int64{yesterday, paid}},
		{"filter[early]=true&filter[overdue]=true", nil},
		{"filter[status]=unpaid", []int64{dueToday, tomorrow}}, // early is what the status reads unpaid
	} {
		if got := f.get(t, "/invoices?sort=id&"+c.query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			t.Errorf("invoices %s: %v, want %v", c.query, got, c.want)
		}
	}
	entry := func(due string) int64 {
		return f.create(t, "/transactions", map[string]any{"type": "debit", "description": "Conta", "amount": "10.00",
			"date": today(-10), "due_date": due, "business_id": f.business})
	}
	before, onTheDay, after := entry(today(-1)), entry(today(0)), entry(today(1))
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{"filter[early]=true", []int64{onTheDay, after}},
		{"filter[overdue]=true", []int64{before}},
	} {
		got := f.get(t, "/transactions?sort=id&filter[isNotInvoice]=true&"+c.query, http.StatusOK).ids(t)
		if !slices.Equal(got, c.want) {
			t.Errorf("entries %s: %v, want %v", c.query, got, c.want)
		}
	}
}
