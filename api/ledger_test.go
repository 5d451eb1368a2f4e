package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestTransactionFilters: every special filter of /transactions keeps the
// entries of the seeded ledger it must and drops the others (each case has
// a match and a miss); company B's look-alike entry never matches, not
// even through B's contracts, invoices, plans or items.
func TestTransactionFilters(t *testing.T) {
	t.Parallel()
	e := setup(t)
	userA, _ := seedLedger(t, e)
	all := []int64{9001, 9002, 9003, 9004, 9005, 9006, 9007, 9008, 9009}
	cases := []struct {
		query string
		want  []int64
	}{
		// booleans
		{"filter[onlyVisible]=true", []int64{9001, 9002, 9003, 9004, 9005, 9008, 9009}},
		{"filter[onlyVisible]=false", []int64{9006, 9007}},
		{"filter[transfer]=true", []int64{9003}},
		{"filter[brokerTransfer]=true", []int64{9004}},
		{"filter[autoTransfer]=true", []int64{9003}},
		{"filter[manualTransfer]=true", []int64{9004}},
		{"filter[bill]=true", []int64{9002, 9009}},
		{"filter[billPayment]=true", []int64{9002}},
		{"filter[unpaid]=true", []int64{9001, 9004, 9005, 9008, 9009}},
		{"filter[unpaid]=false", []int64{9002, 9003, 9006, 9007}},
		{"filter[paidOrGuaranteed]=true", []int64{9001, 9002, 9003, 9006, 9007}},
		{"filter[paidGuaranteedOrTransfer]=true", []int64{9001, 9002, 9003, 9004, 9006, 9007}},
		{"filter[isNotInvoice]=true", []int64{9002, 9003, 9004, 9008}},
		{"filter[onlyInvoice]=true", []int64{9001, 9005, 9006, 9007, 9009}},
		{"filter[onlyAllowed]=true", []int64{9001, 9002, 9003, 9004, 9006, 9007, 9008, 9009}},
		{"filter[overdue]=true", []int64{9001, 9008}},
		{"filter[early]=true", []int64{9004, 9005, 9009}},
		{"filter[brokerCommission]=true", []int64{9004, 9005}},
		{"filter[forBusiness]=true", []int64{9002}},
		{"filter[forOwner]=true", []int64{9001, 9003}},
		{"filter[forBroker]=true", []int64{9004, 9005}},
		{"filter[forTenant]=true", []int64{9006, 9007, 9008}},
		{"filter[forPayer]=true", []int64{9006, 9007, 9009}},
		{"filter[ownerPlan]=true", []int64{9001, 9005}},
		{"filter[brokerPlan]=true", []int64{9002}},
		{"filter[tenantPlan]=true", []int64{9007}},
		{"filter[invoiceTypeIn]=true", []int64{9001, 9009}},
		{"filter[itemListOwnerReport]=true", []int64{9001, 9006, 9007}},
		// integer arrays
		{"filter[guaranteedTransferIn][]=1", []int64{9001}},
		{"filter[haveTransfer][]=9003", []int64{9001}},
		{fmt.Sprintf("filter[personIn][]=%d", supplierP), []int64{9002, 9009}},
		{fmt.Sprintf("filter[tenantIn][]=%d", tenantP), []int64{9001, 9006, 9007, 9008}},
		{fmt.Sprintf("filter[ownerIn][]=%d", ownerP), []int64{9001, 9003}},
		{fmt.Sprintf("filter[brokerIn][]=%d", brokerP), []int64{9004, 9005}},
		{fmt.Sprintf("filter[buildingIn][]=%d", building1), []int64{9001, 9003}},
		{fmt.Sprintf("filter[accountIn][]=%d", account2), []int64{9002}},
		{fmt.Sprintf("filter[businessIn][]=%d", business2), []int64{9002}},
		{fmt.Sprintf("filter[businessAllowedIn][]=%d", business2), []int64{9002, 9004}}, // 9004 has no business
		{fmt.Sprintf("filter[itemIn][]=%d", itemCommission), []int64{9005}},
		{fmt.Sprintf("filter[planIn][]=%d", planChild), []int64{9001}},
		{fmt.Sprintf("filter[planAllIn][]=%d", planRoot), []int64{9001, 9005, 9007}},
		{fmt.Sprintf("filter[planAllIn][]=%d", planChild), []int64{9001, 9005}},
		{fmt.Sprintf("filter[planAllIn][]=%d", planB), nil},
		{fmt.Sprintf("filter[contractIn][]=%d", contract1), []int64{9001, 9005}},
		{"filter[contractIdIn][]=77", []int64{9001, 9005}}, // B's contract 77 is not A's
		{"filter[contractIdIn][]=78", []int64{9002}},
		{"filter[contractActiveIn][]=finished", []int64{9002}},
		{"filter[contractActiveIn][]=active&filter[contractActiveIn][]=reserved", []int64{9001, 9005}},
		{fmt.Sprintf("filter[invoiceIn][]=%d", invoice2), []int64{9005, 9006, 9007}},
		{"filter[invoiceIdIn][]=5001", []int64{9001}},
		{"filter[invoiceIdIn][]=5002&filter[invoiceIdIn][]=9999", []int64{9005, 9006, 9007}},
		{fmt.Sprintf("filter[tagIn][]=%d", tag2), []int64{9002, 9005}},
		{fmt.Sprintf("filter[tagIn][]=%d", tagB), nil},
		{"filter[billIdIn][]=9002&filter[billIdIn][]=9010", []int64{9002}},
		{"filter[typeIn][]=transfer", []int64{9003, 9004}},
		// string arrays
		{"filter[typeInvoiceIn][]=credit", []int64{9001, 9007}},
		{"filter[modeIn][]=commission&filter[modeIn][]=chargeback", []int64{9005, 9006}},
		{"filter[itemType][]=rent", []int64{9001, 9006, 9007}},
		{"filter[contractTypeIn][]=sale", []int64{9002}},
		{"filter[billingMethodIn][]=pix", []int64{9002}},
		{"filter[extractIn][]=broker", []int64{9004, 9005}},
		// strings
		{"filter[status]=paid", []int64{9002, 9003, 9006, 9007}},
		{"filter[status]=unpaid", []int64{9001, 9004, 9005, 9008, 9009}},
		{"filter[invoiceStatus]=overdue", []int64{9001}}, // stored unpaid, due ten days ago
		{"filter[invoiceStatus]=unpaid", []int64{9009}},
		{"filter[invoiceStatus]=paid", []int64{9005, 9006, 9007}},
		{"filter[invoiceStatus]=canceled", nil},
		{"filter[ticketRegister]=registered", []int64{9001}},
		{"filter[ticketRegister]=unregistered", []int64{9005, 9006, 9007, 9009}},
		{"filter[invoicePaidIn]=paid", []int64{9005, 9006, 9007}},
		{"filter[invoicePaidIn]=unpaid", []int64{9001, 9009}},
		// integers
		{"filter[positionMin]=50", []int64{9006, 9007, 9008, 9009}},
		{"filter[positionMax]=10", []int64{9001, 9002}},
		{"filter[positionMin]=10&filter[positionMax]=20", []int64{9002, 9003}},
		// plain column filters
		{fmt.Sprintf("filter[company_id]=%d", e.compA), all},
		{fmt.Sprintf("filter[company_id]=%d", e.compB), nil},
		{"filter[extract]=owner", []int64{9001, 9003}},
		{"filter[mode]=transfer", []int64{9003}},
		{"filter[transfer_id]=9003", []int64{9001}},
		{fmt.Sprintf("filter[user_id]=%d", userA), []int64{9002, 9004, 9008, 9009}},
		{"filter[date|l]=" + today(-10), []int64{9001, 9008}},
		{"filter[due_date|empty]=", []int64{9006, 9007, 9008}},
		{"filter[tag][]=901", []int64{9001, 9005}},
		{"filter[reverses_id]=9007", []int64{9006}},
		// combined
		{"filter[forOwner]=true&filter[unpaid]=true", []int64{9001}},
	}
	for _, c := range cases {
		got := e.get(t, "/transactions?perPage=100&sort=id&"+c.query, http.StatusOK).ids(t)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	// company B sees its own entry only, whatever the filter
	if r := e.do(t, http.MethodGet, "/transactions?filter[contractIdIn][]=77&filter[invoiceIdIn][]=5001", e.keyB, nil); !slices.Equal(r.ids(t), []int64{9010}) {
		t.Errorf("B: %s", r.raw)
	}

	refused := []struct{ query, field, message string }{
		{"filter[typeIn][]=expense", "filter[typeIn][]", "must be one of: debit, credit, transfer"},
		{"filter[modeIn][]=x", "filter[modeIn][]", "must be one of: transaction, invoice"},
		{"filter[extractIn][]=tenant", "filter[extractIn][]", "must be one of: business, owner, customer, broker"},
		{"filter[itemType][]=x", "filter[itemType][]", "must be one of: default"},
		{"filter[contractActiveIn][]=1", "filter[contractActiveIn][]", "must be one of: active"},
		{"filter[contractTypeIn][]=x", "filter[contractTypeIn][]", "must be one of: rent"},
		{"filter[billingMethodIn][]=boleto", "filter[billingMethodIn][]", "must be one of: ticket"},
		{"filter[typeInvoiceIn][]=x", "filter[typeInvoiceIn][]", "must be one of: debit"},
		{"filter[invoiceStatus]=late", "filter[invoiceStatus]", "must be one of: paid, unpaid, overdue, in_protest"},
		{"filter[ticketRegister]=yes", "filter[ticketRegister]", "must be one of: registered, unregistered"},
		{"filter[invoicePaidIn]=x", "filter[invoicePaidIn]", "must be one of: paid, unpaid"},
		{"filter[status]=open", "filter[status]", "must be one of: paid, unpaid"},
		{"filter[contractIdIn][]=x", "filter[contractIdIn][]", "must be an integer"},
		{"filter[positionMin]=x", "filter[positionMin]", "must be an integer"},
		{"filter[overdue]=maybe", "filter[overdue]", "must be true or false"},
		{"filter[mode]=bogus", "filter[mode]", "must be one of"},
		{"filter[extract]=tenant", "filter[extract]", "must be one of"},
	}
	for _, c := range refused {
		r := e.get(t, "/transactions?"+c.query, http.StatusUnprocessableEntity)
		if fields := r.problemFields(t); !slices.Equal(fields, []string{c.field}) || !strings.Contains(r.raw, c.message) {
			t.Errorf("%s: %v %s", c.query, fields, r.raw)
		}
	}
}

// TestTransactionIncludes: every include of /transactions, tags through
// the integer array among them, and the transfer relations both ways.
func TestTransactionIncludes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seedLedger(t, e)
	e.seedRow(t, "transaction_files", map[string]any{"company_id": e.compA, "transaction_id": 9001, "name": "recibo.pdf", "url": "https://files.example/1"})
	e.exec(t, `UPDATE transactions SET transfer_id = 9003, commission_item_id = $2 WHERE company_id = $1 AND id = 9005`, e.compA, itemCommission)

	r := e.get(t, "/transactions/9001?include[item]=description&include[contract]&include[owner]=name&include[person]"+
		"&include[tenant]&include[building]&include[account]&include[plan]&include[invoice]=id2&include[files]"+
		"&include[tags]=name&include[transferredItems]=id&include[commissionItem]", http.StatusOK)
	rec := r.record(t)
	checks := []struct {
		include, want string
	}{
		{"item", "map[description:Aluguel]"},
		{"owner", "map[name:owner]"},
		{"invoice", "map[id2:5001]"},
		{"tags", "[map[name:condomínio]]"},
		{"transferredItems", "[map[id:9001] map[id:9005]]"},
		{"commissionItem", "<nil>"},
	}
	for _, c := range checks {
		if got := fmt.Sprint(rec[c.include]); got != c.want {
			t.Errorf("include[%s]: %s, want %s", c.include, got, c.want)
		}
	}
	for _, rel := range []string{"contract", "person", "tenant", "building", "account", "plan"} {
		if m, ok := rec[rel].(map[string]any); !ok || m["id"] == nil {
			t.Errorf("include[%s]: %v", rel, rec[rel])
		}
	}
	if files, ok := rec["files"].([]any); !ok || len(files) != 1 {
		t.Errorf("include[files]: %v", rec["files"])
	}

	transfer := e.get(t, "/transactions/9003?include[transferredBy]=id,amount&include[tags]", http.StatusOK).record(t)
	if got := fmt.Sprint(transfer["transferredBy"]); got != "[map[amount:100.00 id:9001] map[amount:100.00 id:9005]]" {
		t.Errorf("include[transferredBy]: %s", got)
	}
	if got := fmt.Sprint(transfer["tags"]); got != "[]" {
		t.Errorf("include[tags] of an entry without tags: %s", got)
	}
	list := e.get(t, "/transactions?sort=id&filter[id]=9005&include[tags]=id&include[commissionItem]=type&include[transferredItems]=id", http.StatusOK).data(t)
	if got := fmt.Sprint(list[0]["tags"], list[0]["commissionItem"], list[0]["transferredItems"]); got != "[map[id:901] map[id:902]] map[type:commission] [map[id:9001] map[id:9005]]" {
		t.Errorf("includes of 9005: %s", got)
	}
	// B's tags never show, even in an array that lists them
	if r := e.do(t, http.MethodGet, "/transactions/9010?include[tags]=id", e.keyB, nil); fmt.Sprint(r.record(t)["tags"]) != "[map[id:909]]" {
		t.Errorf("B's include[tags]: %s", r.raw)
	}
	if got := fmt.Sprint(e.get(t, "/transactions/9008?include[transferredItems]&include[transferredBy]", http.StatusOK).record(t)["transferredItems"]); got != "[]" {
		t.Errorf("transferredItems of an entry never transferred: %s", got)
	}
}
