package api

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// seedRow inserts one fixture row, its id given (OVERRIDING SYSTEM VALUE
// when the row names one). Dates are given as YYYY-MM-DD text.
func (e *testEnv) seedRow(t *testing.T, table string, row map[string]any) {
	t.Helper()
	cols := make([]string, 0, len(row))
	for c := range row {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	args := make([]any, len(cols))
	places := make([]string, len(cols))
	for i, c := range cols {
		args[i] = row[c]
		places[i] = "$" + strconv.Itoa(i+1)
	}
	overriding := ""
	if _, ok := row["id"]; ok {
		overriding = " OVERRIDING SYSTEM VALUE"
	}
	sql := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ")" + overriding + " VALUES (" + strings.Join(places, ", ") + ")"
	if _, err := e.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("seed %s %v: %v", table, row, err)
	}
}

// ledgerIDs are the fixed ids of the seeded ledger (seedLedger).
const (
	ownerP, tenantP, brokerP, supplierP, personB = 101, 102, 103, 104, 109
	building1                                    = 201
	planRoot, planChild, planGrandchild, plan4   = 301, 302, 303, 304
	planB                                        = 309
	itemRent, itemCommission, itemIPTU, itemB    = 401, 402, 403, 409
	contract1, contract2, contractB              = 501, 502, 509
	invoice1, invoice2, invoice3, invoiceB       = 601, 602, 603, 609
	business1, business2, businessB              = 701, 702, 709
	account1, account2, accountB                 = 801, 802, 809
	tag1, tag2, tagB                             = 901, 902, 909
)

// seedLedger writes, for company A, the parties, plans, items, contracts,
// invoices and nine ledger entries (9001-9009) every special filter of
// /transactions is tested on, and for company B one look-alike of each
// (entry 9010), which no filter of A may ever return. It returns A's
// user of the API key and another user of A.
func seedLedger(t *testing.T, e *testEnv) (userA, userA2 int64) {
	t.Helper()
	a, b := e.compA, e.compB
	ctx := context.Background()
	if err := e.pool.QueryRow(ctx, `SELECT user_id FROM api_keys WHERE company_id = $1`, a).Scan(&userA); err != nil {
		t.Fatal(err)
	}
	if err := e.pool.QueryRow(ctx, `INSERT INTO users (company_id, name) VALUES ($1, 'other') RETURNING id`, a).Scan(&userA2); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		company, id int64
		name        string
	}{{a, ownerP, "owner"}, {a, tenantP, "tenant"}, {a, brokerP, "broker"}, {a, supplierP, "supplier"}, {b, personB, "B's"}} {
		e.seedRow(t, "persons", map[string]any{"company_id": p.company, "id": p.id, "name": p.name})
	}
	e.seedRow(t, "buildings", map[string]any{"company_id": a, "id": building1, "title": "Ed. Aurora"})
	e.seedRow(t, "plans", map[string]any{"company_id": a, "id": planRoot, "name": "root"})
	e.seedRow(t, "plans", map[string]any{"company_id": a, "id": planChild, "name": "child", "parent_id": planRoot})
	e.seedRow(t, "plans", map[string]any{"company_id": a, "id": planGrandchild, "name": "grandchild", "parent_id": planChild})
	e.seedRow(t, "plans", map[string]any{"company_id": a, "id": plan4, "name": "other"})
	e.seedRow(t, "plans", map[string]any{"company_id": b, "id": planB, "name": "B's"})
	items := []map[string]any{
		{"company_id": a, "id": itemRent, "description": "Aluguel", "debit": "customer", "credit": "owner", "type": "rent",
			"purpose": "rent", "owner_report": true, "debit_plan_id": planRoot, "credit_plan_id": planChild},
		{"company_id": a, "id": itemCommission, "description": "Comissão", "debit": "owner", "credit": "broker",
			"type": "commission", "purpose": "sale", "debit_plan_id": planGrandchild, "credit_plan_id": plan4},
		{"company_id": a, "id": itemIPTU, "description": "IPTU", "debit": "customer", "credit": "business", "type": "iptu",
			"readjust": true, "fiscal_note": true, "active": false},
		{"company_id": b, "id": itemB, "description": "B's", "debit": "owner", "credit": "owner", "type": "rent",
			"purpose": "rent", "readjust": true, "fiscal_note": true, "owner_report": true, "credit_plan_id": planB},
	}
	for _, it := range items {
		e.seedRow(t, "transaction_items", it)
	}
	e.seedRow(t, "contracts", map[string]any{"company_id": a, "id": contract1, "id2": 77, "type": "rent", "active": "active"})
	e.seedRow(t, "contracts", map[string]any{"company_id": a, "id": contract2, "id2": 78, "type": "sale", "active": "finished"})
	e.seedRow(t, "contracts", map[string]any{"company_id": b, "id": contractB, "id2": 77, "type": "sale", "active": "finished"})
	e.seedRow(t, "businesses", map[string]any{"company_id": a, "id": business1, "name": "Matriz"})
	e.seedRow(t, "businesses", map[string]any{"company_id": a, "id": business2, "name": "Filial"})
	e.seedRow(t, "businesses", map[string]any{"company_id": b, "id": businessB, "name": "B's"})
	e.seedRow(t, "accounts", map[string]any{"company_id": a, "id": account1, "business_id": business1})
	e.seedRow(t, "accounts", map[string]any{"company_id": a, "id": account2, "business_id": business2})
	e.seedRow(t, "accounts", map[string]any{"company_id": b, "id": accountB, "business_id": businessB})
	e.seedRow(t, "tags", map[string]any{"company_id": a, "id": tag1, "name": "condomínio"})
	e.seedRow(t, "tags", map[string]any{"company_id": a, "id": tag2, "name": "reforma"})
	e.seedRow(t, "tags", map[string]any{"company_id": b, "id": tagB, "name": "B's"})
	invoice := func(company, id int64, id2, typ, status string, paid bool, due int, registered bool, payer, business, account int64) {
		row := map[string]any{"company_id": company, "id": id, "id2": id2, "type": typ, "status": status, "paid": paid,
			"due_date": today(due), "date": today(due - 30), "ticket_registered": registered, "payer_id": payer,
			"business_id": business, "account_id": account, "billing_method": "ticket", "description": "fatura", "total": "100.00"}
		if paid {
			row["paid_at"] = today(-2)
		}
		e.seedRow(t, "invoices", row)
	}
	invoice(a, invoice1, "5001", "single", "unpaid", false, -10, true, tenantP, business1, account1) // overdue by date
	invoice(a, invoice2, "5002", "contract", "paid", true, 5, false, tenantP, business1, account1)
	invoice(a, invoice3, "5003", "single", "unpaid", false, 5, false, supplierP, business1, account1)
	invoice(b, invoiceB, "5001", "single", "unpaid", false, -10, true, personB, businessB, accountB)

	entry := func(id int64, row map[string]any) {
		base := map[string]any{"company_id": a, "id": id, "amount": "100.00", "date": today(0)}
		for k, v := range row {
			base[k] = v
		}
		e.seedRow(t, "transactions", base)
	}
	// the transfer first: 9001 points at it
	entry(9003, map[string]any{"mode": "transfer", "type": "transfer", "extract": "owner", "owner_id": ownerP,
		"building_id": building1, "account_id": account1, "business_id": business1, "paid": true, "due_date": today(0),
		"position": 20, "billing_method": "ted"})
	entry(9001, map[string]any{"mode": "invoice", "type": "credit", "extract": "owner", "invoice_id": invoice1,
		"transfer_id": 9003, "guaranteed_transfer_id": 1, "plan_id": planChild, "item_id": itemRent, "owner_id": ownerP,
		"tenant_id": tenantP, "person_id": tenantP, "building_id": building1, "contract_id": contract1,
		"account_id": account1, "business_id": business1, "paid": false, "date": today(-15), "due_date": today(-10),
		"position": 5, "tag": []int64{tag1}, "billing_method": "ticket"})
	entry(9002, map[string]any{"mode": "transaction", "type": "debit", "extract": "business", "plan_id": plan4,
		"person_id": supplierP, "contract_id": contract2, "account_id": account2, "business_id": business2, "user_id": userA,
		"paid": true, "date": today(-3), "due_date": today(-3), "position": 10, "tag": []int64{tag2}, "billing_method": "pix"})
	entry(9004, map[string]any{"mode": "transfer_commission", "type": "transfer", "extract": "broker", "broker_id": brokerP,
		"account_id": account1, "user_id": userA, "paid": false, "due_date": today(10), "position": 30})
	entry(9005, map[string]any{"mode": "commission", "type": "debit", "extract": "broker", "broker_id": brokerP,
		"commission": true, "item_id": itemCommission, "plan_id": planGrandchild, "invoice_id": invoice2,
		"contract_id": contract1, "business_id": business1, "user_id": userA2, "paid": false, "due_date": today(20),
		"position": 40, "tag": []int64{tag1, tag2}})
	entry(9007, map[string]any{"mode": "invoice", "type": "credit", "extract": "customer", "invoice_id": invoice2,
		"plan_id": planRoot, "item_id": itemRent, "tenant_id": tenantP, "person_id": tenantP, "business_id": business1,
		"paid": true, "date": today(-2), "position": 60})
	entry(9006, map[string]any{"mode": "chargeback", "type": "debit", "extract": "customer", "invoice_id": invoice2,
		"item_id": itemRent, "tenant_id": tenantP, "person_id": tenantP, "business_id": business1, "paid": true,
		"date": today(-1), "position": 50, "reverses_id": 9007})
	entry(9008, map[string]any{"mode": "transaction", "type": "credit", "extract": "customer", "tenant_id": tenantP,
		"business_id": business1, "user_id": userA, "paid": false, "date": today(-40), "position": 70})
	entry(9009, map[string]any{"mode": "transaction", "type": "debit", "extract": "customer", "person_id": supplierP,
		"invoice_id": invoice3, "business_id": business1, "user_id": userA, "paid": false, "date": today(1),
		"due_date": today(1), "position": 80})
	// company B's look-alike of everything above
	entry(9010, map[string]any{"company_id": b, "mode": "transfer_commission", "type": "credit", "extract": "owner",
		"invoice_id": invoiceB, "transfer_id": nil, "guaranteed_transfer_id": 1, "plan_id": planB, "item_id": itemB,
		"owner_id": personB, "tenant_id": personB, "person_id": personB, "broker_id": personB, "contract_id": contractB,
		"account_id": accountB, "business_id": businessB, "paid": false, "date": today(-15), "due_date": today(-10),
		"position": 50, "tag": []int64{tag1, tag2, tagB}, "billing_method": "pix", "commission": true})
	return userA, userA2
}
