package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestTransactionItems: the item catalogue round trip (company B can do
// nothing to A's item), its enums and filters, and a delete refused while
// invoice lines or ledger entries use the item.
func TestTransactionItems(t *testing.T) {
	t.Parallel()
	e := setup(t)
	plan := e.create(t, "/financial/plans", map[string]any{"name": "Receitas"})
	roundTrip(t, e, crudCase{
		path: "/financial/transactionItems",
		create: map[string]any{
			"description": "Aluguel", "debit": "customer", "credit": "owner", "type": "rent", "purpose": "rent",
			"active": true, "guaranteed_transfer": true, "owner_report": true, "readjust": true, "fiscal_note": false,
			"dimob": true, "blocked": false, "debit_plan_id": plan, "credit_plan_id": plan, "_code": "ALG",
		},
		update:  map[string]any{"description": "Aluguel residencial", "purpose": "subscription"},
		filter:  "filter[involvedIn][]=owner&filter[onlyRent]=true&filter[description]=alug%25",
		include: "debitPlan",
	})

	seedLedger(t, e)
	cases := []struct {
		query string
		want  []int64
	}{
		{"filter[typeIn][]=rent&filter[typeIn][]=iptu", []int64{itemRent, itemIPTU}},
		{"filter[debitIn][]=owner", []int64{itemCommission}},
		{"filter[creditIn][]=business&filter[creditIn][]=broker", []int64{itemCommission, itemIPTU}},
		{"filter[withReadjust]=true", []int64{itemIPTU}},
		{"filter[generatesFiscalNote]=true", []int64{itemIPTU}},
		{"filter[generatesFiscalNote]=false", []int64{itemRent, itemCommission}},
		{"filter[onlyRent]=true", []int64{itemRent}},
		{"filter[onlySale]=true", []int64{itemCommission}},
		{"filter[purposeIn][]=sale&filter[purposeIn][]=subscription", []int64{itemCommission}},
		{"filter[involvedIn][]=broker", []int64{itemCommission}},
		{"filter[involvedIn][]=owner", []int64{itemRent, itemCommission}},
		{"filter[involvedIn][]=business", []int64{itemIPTU}},
		{"filter[active]=false", []int64{itemIPTU}},
		{"filter[owner_report]=true", []int64{itemRent}},
		{fmt.Sprintf("filter[debit_plan_id]=%d", planRoot), []int64{itemRent}},
	}
	for _, c := range cases {
		if got := e.get(t, "/financial/transactionItems?sort=id&"+c.query, http.StatusOK).ids(t); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	rec := e.get(t, fmt.Sprintf("/financial/transactionItems/%d?include[debitPlan]=name&include[creditPlan]=name&include[transactions]=id", itemRent), http.StatusOK).record(t)
	if got := fmt.Sprint(rec["debitPlan"], rec["creditPlan"], rec["transactions"]); got != "map[name:root] map[name:child] [map[id:9001] map[id:9006] map[id:9007]]" {
		t.Errorf("includes: %s", got)
	}

	refused := []struct {
		method, path string
		body         map[string]any
		field, msg   string
	}{
		{"POST", "/financial/transactionItems", map[string]any{"debit": "owner"}, "description", "required"},
		{"POST", "/financial/transactionItems", map[string]any{"description": " "}, "description", "blank"},
		{"POST", "/financial/transactionItems", map[string]any{"description": "x", "debit": "tenant"}, "debit", "must be one of: business, owner, customer, broker"},
		{"POST", "/financial/transactionItems", map[string]any{"description": "x", "credit": "x"}, "credit", "must be one of"},
		{"POST", "/financial/transactionItems", map[string]any{"description": "x", "type": "fine"}, "type", "must be one of: default, commission"},
		{"POST", "/financial/transactionItems", map[string]any{"description": "x", "purpose": "lease"}, "purpose", "must be one of: rent, sale, subscription"},
		{"POST", "/financial/transactionItems", map[string]any{"description": "x", "debit_plan_id": planB}, "debit_plan_id", "no plans with id"},
		{"PUT", fmt.Sprintf("/financial/transactionItems/%d", itemRent), map[string]any{"credit_plan_id": planB}, "credit_plan_id", "no plans with id"},
	}
	for _, c := range refused {
		r := e.do(t, c.method, c.path, e.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) || !strings.Contains(r.raw, c.msg) {
			t.Errorf("%s %v: %d %s", c.method, c.body, r.status, r.raw)
		}
	}
	for _, q := range []string{"filter[typeIn][]=fine", "filter[debitIn][]=tenant", "filter[creditIn][]=x", "filter[purposeIn][]=x", "filter[involvedIn][]=x", "filter[type]=x", "filter[onlyRent]=x"} {
		r := e.get(t, "/financial/transactionItems?"+q, http.StatusUnprocessableEntity)
		name, _, _ := strings.Cut(q, "=")
		if !slices.Equal(r.problemFields(t), []string{name}) {
			t.Errorf("%s: %s", q, r.raw)
		}
	}

	// deleting an item in use: 409 saying what uses it; B's look-alike item is untouched
	e.seedRow(t, "invoice_items", map[string]any{"company_id": e.compA, "invoice_id": invoice1, "item_id": itemRent, "amount": "100.00"})
	for _, c := range []struct {
		item int64
		msg  string
	}{
		{itemRent, "used by 1 invoice line and 3 ledger entries"},
		{itemCommission, "used by 1 ledger entry"},
	} {
		r := e.do(t, http.MethodDelete, fmt.Sprintf("/financial/transactionItems/%d", c.item), e.keyA, nil)
		if r.status != http.StatusConflict || !strings.Contains(fmt.Sprint(r.body["message"]), c.msg) || strings.Contains(r.raw, "fk") {
			t.Errorf("delete item %d in use: %d %s", c.item, r.status, r.raw)
		}
	}
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/financial/transactionItems/%d", itemIPTU), e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete unused item: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/financial/transactionItems/%d", itemB), e.keyA, nil); r.status != http.StatusNotFound {
		t.Errorf("delete B's item: %d %s", r.status, r.raw)
	}
}

// TestTransactionWrites: a ledger entry's round trip with every body field
// (company B can do nothing to it), what a create fills in, references to
// another company's records, tags, and the files sub-resource.
func TestTransactionWrites(t *testing.T) {
	t.Parallel()
	e := setup(t)
	userA, _ := seedLedger(t, e)
	body := map[string]any{
		"description": "Conserto do telhado", "amount": "350.75", "amount_primary": "300.00", "date": today(0),
		"type": "debit", "mode": "transaction", "plan_id": plan4, "business_id": business1, "account_id": account1,
		"person_id": supplierP, "building_id": building1, "contract_id": contract1, "owner_id": ownerP,
		"tenant_id": tenantP, "broker_id": brokerP, "item_id": itemRent, "invoice_id": invoice3, "tag": []int64{tag1, tag2},
		"notes": "pago em dinheiro", "paid": false, "due_date": today(5), "billing_method": "check", "interest": "1.50",
		"discount": "0.50", "check_agency": "0001", "check_account": "12345-6", "check_id": "000123",
		"recurrency_periodicity": "monthly", "recurrency_total": 1, "recurrency_installment": 1, "commission": true,
		"commission_mode": "percentage", "commission_fixed": "10.00", "commission_percentage": "6.5000",
		"commission_item_id": itemCommission, "commission_id": 5, "metadata": `{"origin":"app"}`, "_ref": "R1",
	}
	roundTrip(t, e, crudCase{
		path:    "/transactions",
		create:  body,
		update:  map[string]any{"notes": "pago em cheque", "paid": true, "amount": "351.00", "tag": []int64{tag1}},
		filter:  fmt.Sprintf("filter[ownerIn][]=%d&filter[bill]=true&filter[tagIn][]=%d", ownerP, tag2),
		include: "tags",
	})

	r := e.do(t, http.MethodPost, "/transactions", e.keyA, body)
	rec := r.record(t)
	// the acting user and the statement are filled in; split and the others stay empty
	if num(t, rec["user_id"]) != userA || rec["extract"] != "owner" || rec["split"] != nil || rec["mode"] != "transaction" {
		t.Errorf("create fills in: %s", r.raw)
	}
	id := num(t, rec["id"])
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"type": "credit", "amount": "1", "date": today(0)}, "business"},
		{map[string]any{"type": "credit", "amount": "1", "date": today(0), "tenant_id": tenantP}, "customer"},
		{map[string]any{"type": "credit", "amount": "1", "date": today(0), "broker_id": brokerP, "tenant_id": tenantP}, "broker"},
		{map[string]any{"type": "credit", "amount": "1", "date": today(0), "owner_id": ownerP, "extract": "business"}, "business"},
	} {
		if r := e.do(t, http.MethodPost, "/transactions", e.keyA, c.body); r.status != http.StatusCreated || r.record(t)["extract"] != c.want {
			t.Errorf("extract of %v: %d %s", c.body, r.status, r.raw)
		}
	}

	refused := []struct {
		method, path string
		body         map[string]any
		fields       []string
		msg          string
	}{
		{"POST", "/transactions", map[string]any{"description": "x"}, []string{"amount", "date", "type"}, "is required"},
		{"POST", "/transactions", map[string]any{"type": "expense", "amount": "1", "date": today(0)}, []string{"type"}, "must be one of: debit, credit, transfer"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": "1.001", "date": today(0)}, []string{"amount"}, "decimal places"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": "-1.00", "date": today(0)}, []string{"amount"}, "more than zero"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": 0, "date": today(0)}, []string{"amount"}, "more than zero"},
		{"PUT", fmt.Sprintf("/transactions/%d", id), map[string]any{"amount": "-5"}, []string{"amount"}, "more than zero"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": "1", "date": today(0), "mode": "rent"}, []string{"mode"}, "must be one of"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": "1", "date": today(0), "metadata": "{x"}, []string{"metadata"}, "valid JSON"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": "1", "date": today(0), "split": "x"}, []string{"split"}, "cannot be written"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": "1", "date": today(0), "user_id": userA}, []string{"user_id"}, "cannot be written"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": "1", "date": today(0), "plan_id": planB, "person_id": personB, "invoice_id": invoiceB, "contract_id": contractB},
			[]string{"contract_id", "invoice_id", "person_id", "plan_id"}, "no plans with id"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": "1", "date": today(0), "tag": []int64{tag1, tagB, 999999}}, []string{"tag"}, fmt.Sprintf("no tags with id %d, 999999", tagB)},
		{"PUT", fmt.Sprintf("/transactions/%d", id), map[string]any{"owner_id": personB}, []string{"owner_id"}, "no persons with id"},
		{"PUT", fmt.Sprintf("/transactions/%d", id), map[string]any{"item_id": itemB, "commission_item_id": itemB}, []string{"commission_item_id", "item_id"}, "no transaction_items with id"},
		// the modes of a payment's posting are the posting's to write
		{"POST", "/transactions", map[string]any{"type": "credit", "amount": "1", "date": today(0), "mode": "invoice", "invoice_id": invoice1}, []string{"mode"}, "payment posting of an invoice only"},
		{"POST", "/transactions", map[string]any{"type": "credit", "amount": "1", "date": today(0), "mode": "invoice"}, []string{"mode"}, "payment posting of an invoice only"},
		{"POST", "/transactions", map[string]any{"type": "debit", "amount": "1", "date": today(0), "mode": "chargeback", "invoice_id": invoice1}, []string{"mode"}, "payment posting of an invoice only"},
		{"PUT", fmt.Sprintf("/transactions/%d", id), map[string]any{"mode": "chargeback"}, []string{"mode"}, "payment posting of an invoice only"},
	}
	for _, c := range refused {
		r := e.do(t, c.method, c.path, e.keyA, c.body)
		got := r.problemFields(t)
		slices.Sort(got)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(got, c.fields) || !strings.Contains(r.raw, c.msg) {
			t.Errorf("%s %v: %d %s", c.method, c.body, r.status, r.raw)
		}
	}

	// files: a sub-resource of the entry
	files := fmt.Sprintf("/transactions/%d/files", id)
	one := fmt.Sprintf("%s/%d", files, e.create(t, files, map[string]any{"name": "nota.pdf", "url": "https://files.example/nota.pdf", "content_type": "application/pdf"}))
	if got := e.get(t, files+"?filter[content_type]=application/pdf&include[transaction]=id", http.StatusOK).data(t); len(got) != 1 || fmt.Sprint(got[0]["transaction"]) != fmt.Sprintf("map[id:%d]", id) {
		t.Errorf("list files: %v", got)
	}
	if r := e.do(t, http.MethodPut, one, e.keyA, map[string]any{"name": "nota-fiscal.pdf"}); r.status != http.StatusOK || r.record(t)["name"] != "nota-fiscal.pdf" {
		t.Errorf("update file: %d %s", r.status, r.raw)
	}
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		if r := e.do(t, m, one, e.keyB, map[string]any{"name": "x"}); r.status != http.StatusNotFound {
			t.Errorf("B %s %s: %d %s", m, one, r.status, r.raw)
		}
	}
	if r := e.do(t, http.MethodDelete, one, e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete file: %d %s", r.status, r.raw)
	}
	e.get(t, one, http.StatusNotFound)
	file := e.create(t, files, map[string]any{"name": "a.pdf", "url": "https://files.example/a.pdf"})
	if got := e.get(t, fmt.Sprintf("/transactions/%d?include[files]=name", id), http.StatusOK).record(t)["files"]; fmt.Sprint(got) != "[map[name:a.pdf]]" {
		t.Errorf("include[files]: %v", got)
	}
	for _, c := range []struct {
		method, path string
		key          string
		body         any
	}{
		{http.MethodGet, "/transactions/9001/files/" + fmt.Sprint(file), e.keyA, nil}, // another entry's file
		{http.MethodDelete, "/transactions/9001/files/" + fmt.Sprint(file), e.keyA, nil},
		{http.MethodGet, files, e.keyB, nil},
		{http.MethodPost, files, e.keyB, map[string]any{"name": "x", "url": "y"}},
		{http.MethodGet, "/transactions/9010/files", e.keyA, nil}, // B's entry
		{http.MethodPost, "/transactions/9010/files", e.keyA, map[string]any{"name": "x", "url": "y"}},
	} {
		if r := e.do(t, c.method, c.path, c.key, c.body); r.status != http.StatusNotFound {
			t.Errorf("%s %s: %d %s", c.method, c.path, r.status, r.raw)
		}
	}
	// B's entry and item by id: 404
	for _, path := range []string{"/transactions/9010", fmt.Sprintf("/financial/transactionItems/%d", itemB)} {
		for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
			var b any
			if m == http.MethodPut {
				b = map[string]any{"description": "x"}
			}
			if r := e.do(t, m, path, e.keyA, b); r.status != http.StatusNotFound {
				t.Errorf("A %s %s: %d %s", m, path, r.status, r.raw)
			}
		}
	}
	// deleting the entry deletes its files
	if r := e.do(t, http.MethodDelete, fmt.Sprintf("/transactions/%d", id), e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete entry with a file: %d %s", r.status, r.raw)
	}
}

// TestPostedEntriesAreTheBook: an entry an invoice payment posted (mode
// invoice or chargeback, its invoice set) is neither changed nor deleted;
// the same modes without an invoice, and other modes with one, are.
func TestPostedEntriesAreTheBook(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seedLedger(t, e)
	for _, id := range []int64{9001, 9006, 9007} {
		for _, m := range []struct {
			method string
			body   any
		}{{http.MethodPut, map[string]any{"notes": "x"}}, {http.MethodDelete, nil}} {
			r := e.do(t, m.method, fmt.Sprintf("/transactions/%d", id), e.keyA, m.body)
			if r.status != http.StatusConflict || !strings.Contains(fmt.Sprint(r.body["message"]), "undo the invoice payment instead") {
				t.Errorf("%s posted %d: %d %s", m.method, id, r.status, r.raw)
			}
		}
	}
	if got := e.get(t, "/transactions/9001", http.StatusOK).record(t)["notes"]; got != nil {
		t.Errorf("posted entry changed: %v", got)
	}
	// files of a posted entry may still be attached
	e.create(t, "/transactions/9001/files", map[string]any{"name": "comprovante.pdf", "url": "https://files.example/c.pdf"})

	e.exec(t, `UPDATE transactions SET invoice_id = NULL WHERE company_id = $1 AND id = 9006`, e.compA)
	for _, c := range []struct {
		id     int64
		method string
		body   any
	}{
		{9009, http.MethodPut, map[string]any{"notes": "x"}}, // mode transaction with an invoice
		{9005, http.MethodPut, map[string]any{"notes": "x"}}, // mode commission with an invoice
	} {
		if r := e.do(t, c.method, fmt.Sprintf("/transactions/%d", c.id), e.keyA, c.body); r.status != http.StatusOK {
			t.Errorf("%s %d: %d %s", c.method, c.id, r.status, r.raw)
		}
	}
	// a reversal whose invoice was deleted (invoice_id null) is still the book
	if r := e.do(t, http.MethodPut, "/transactions/9006", e.keyA, map[string]any{"notes": "x"}); r.status != http.StatusConflict {
		t.Errorf("PUT an unlinked chargeback: %d %s, want 409", r.status, r.raw)
	}
	// company B's posted entry is a 404 to A, not a 409
	if r := e.do(t, http.MethodDelete, "/transactions/9010", e.keyA, nil); r.status != http.StatusNotFound {
		t.Errorf("A deletes B's entry: %d %s", r.status, r.raw)
	}
}

// TestTransactionRecurrence: a create with recurrency_total N makes N
// installments in one transaction: the fields of the first, date, due
// date and competence advanced by the period from the first's (month ends
// clamped), numbered 1..N, one split; the response is the first.
func TestTransactionRecurrence(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seedLedger(t, e)
	type installment struct{ date, due, competence string }
	cases := []struct {
		name  string
		body  map[string]any
		dates []installment
	}{
		{"monthly from a month end", map[string]any{"date": "2025-01-31", "due_date": "2025-01-31", "competence": "2024-12-31",
			"recurrency_periodicity": "monthly", "recurrency_total": 4}, []installment{
			{"2025-01-31", "2025-01-31", "2024-12-31"}, {"2025-02-28", "2025-02-28", "2025-01-31"},
			{"2025-03-31", "2025-03-31", "2025-02-28"}, {"2025-04-30", "2025-04-30", "2025-03-31"}}},
		{"weekly without a due date", map[string]any{"date": "2024-02-26", "recurrency_periodicity": "weekly", "recurrency_total": 3},
			[]installment{{"2024-02-26", "", ""}, {"2024-03-04", "", ""}, {"2024-03-11", "", ""}}},
		{"quarterly", map[string]any{"date": "2024-11-30", "due_date": "2024-12-10", "recurrency_periodicity": "quarterly", "recurrency_total": 2},
			[]installment{{"2024-11-30", "2024-12-10", ""}, {"2025-02-28", "2025-03-10", ""}}},
		{"yearly from a leap day", map[string]any{"date": "2024-02-29", "recurrency_periodicity": "yearly", "recurrency_total": 2},
			[]installment{{"2024-02-29", "", ""}, {"2025-02-28", "", ""}}},
		{"one installment is no recurrence", map[string]any{"date": "2024-05-05", "recurrency_periodicity": "monthly", "recurrency_total": 1},
			[]installment{{"2024-05-05", "", ""}}},
	}
	for _, c := range cases {
		body := map[string]any{"description": "Condomínio", "type": "debit", "amount": "480.00", "owner_id": ownerP,
			"plan_id": plan4, "tag": []int64{tag1}, "notes": c.name, "_origin": "app"}
		for k, v := range c.body {
			body[k] = v
		}
		r := e.do(t, http.MethodPost, "/transactions", e.keyA, body)
		if r.status != http.StatusCreated {
			t.Fatalf("%s: %d %s", c.name, r.status, r.raw)
		}
		first := r.record(t)
		n := len(c.dates)
		split, _ := first["split"].(string)
		if n > 1 && (len(split) != 36 || fmt.Sprint(first["recurrency_installment"]) != "1") {
			t.Errorf("%s: first installment %s", c.name, r.raw)
		}
		query := "/transactions?perPage=100&sort=id&customFields=true&filter[notes]=" + strings.ReplaceAll(c.name, " ", "%20")
		if n > 1 {
			query = "/transactions?perPage=100&sort=recurrency_installment&customFields=true&filter[split]=" + split
		}
		rows := e.get(t, query, http.StatusOK).data(t)
		if len(rows) != n || num(t, rows[0]["id"]) != num(t, first["id"]) {
			t.Fatalf("%s: %d installments, want %d (first %v)", c.name, len(rows), n, first["id"])
		}
		for i, row := range rows {
			want := c.dates[i]
			got := installment{str(row["date"]), str(row["due_date"]), str(row["competence"])}
			if got != want {
				t.Errorf("%s: installment %d dates %v, want %v", c.name, i+1, got, want)
			}
			if n > 1 && (fmt.Sprint(row["recurrency_installment"]) != fmt.Sprint(i+1) || row["split"] != split) {
				t.Errorf("%s: installment %d numbered %v split %v", c.name, i+1, row["recurrency_installment"], row["split"])
			}
			for _, k := range []string{"amount", "description", "tag", "extract", "_origin", "user_id", "plan_id", "owner_id", "recurrency_total", "recurrency_periodicity"} {
				if fmt.Sprint(row[k]) != fmt.Sprint(first[k]) {
					t.Errorf("%s: installment %d: %s = %v, the first's is %v", c.name, i+1, k, row[k], first[k])
				}
			}
		}
	}

	refused := []struct {
		body   map[string]any
		fields []string
		msg    string
	}{
		{map[string]any{"recurrency_total": 3}, []string{"recurrency_periodicity"}, "is required when recurrency_total is more than 1"},
		{map[string]any{"recurrency_total": 3, "recurrency_periodicity": "daily"}, []string{"recurrency_periodicity"}, "must be one of: weekly, biweekly, monthly"},
		{map[string]any{"recurrency_total": 3, "recurrency_periodicity": "monthly", "recurrency_installment": 2}, []string{"recurrency_installment"}, "numbered by the recurrence"},
		{map[string]any{"recurrency_total": 361, "recurrency_periodicity": "monthly"}, []string{"recurrency_total"}, "not allowed"},
		{map[string]any{"recurrency_total": 0}, []string{"recurrency_total"}, "not allowed"},
	}
	var before int64
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM transactions`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	for _, c := range refused {
		body := map[string]any{"type": "debit", "amount": "1.00", "date": today(0)}
		for k, v := range c.body {
			body[k] = v
		}
		r := e.do(t, http.MethodPost, "/transactions", e.keyA, body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), c.fields) || !strings.Contains(r.raw, c.msg) {
			t.Errorf("%v: %d %s", c.body, r.status, r.raw)
		}
	}
	var after int64
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM transactions`).Scan(&after); err != nil || after != before {
		t.Errorf("refused recurrences wrote %d rows (%v)", after-before, err)
	}
	// an installment whose reference fails rolls back all of them: none is written
	r := e.do(t, http.MethodPost, "/transactions", e.keyA, map[string]any{"type": "debit", "amount": "1.00", "date": today(0),
		"recurrency_total": 12, "recurrency_periodicity": "monthly", "plan_id": planB})
	if r.status != http.StatusUnprocessableEntity {
		t.Errorf("recurrence with B's plan: %d %s", r.status, r.raw)
	}
	// an installment past year 9999 could not be written back: refused
	r = e.do(t, http.MethodPost, "/transactions", e.keyA, map[string]any{"type": "debit", "amount": "1.00",
		"date": "9999-11-30", "recurrency_total": 3, "recurrency_periodicity": "monthly"})
	if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"recurrency_total"}) {
		t.Errorf("recurrence past year 9999: %d %s", r.status, r.raw)
	}
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// TestTransferRunEntriesAreKept: a paid transfer the owners' transfer run
// wrote (transfer_key set) is neither changed nor deleted (409, saying it
// is paid); the same modes made through the API are. (An unpaid one takes
// a few changes: TestUnpaidTransferChanges.)
func TestTransferRunEntriesAreKept(t *testing.T) {
	t.Parallel()
	e := setup(t)
	body := map[string]any{"type": "transfer", "mode": "transfer", "amount": "10.00", "date": today(0)}
	byRun, byHand := e.create(t, "/transactions", body), e.create(t, "/transactions", body)
	e.exec(t, `UPDATE transactions SET transfer_key = 'invoice-1-owner-2-transfer-1', paid = true WHERE company_id = $1 AND id = $2`,
		e.compA, byRun)
	for _, m := range []string{http.MethodPut, http.MethodDelete} {
		r := e.do(t, m, fmt.Sprintf("/transactions/%d", byRun), e.keyA, map[string]any{"notes": "x"})
		if msg := fmt.Sprint(r.body["message"]); r.status != http.StatusConflict || !strings.Contains(msg, "transfer run and is paid") {
			t.Errorf("%s a run's transfer: %d %s, want 409", m, r.status, r.raw)
		}
	}
	if r := e.do(t, http.MethodPut, fmt.Sprintf("/transactions/%d", byHand), e.keyA, map[string]any{"notes": "x"}); r.status != http.StatusOK {
		t.Errorf("PUT a transfer made by hand: %d %s", r.status, r.raw)
	}
}
