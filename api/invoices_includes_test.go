package api

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// relatedIDs reads the ids of a list relation of a record.
func relatedIDs(t *testing.T, rec map[string]any, name string) []int64 {
	t.Helper()
	list, ok := rec[name].([]any)
	if !ok {
		t.Fatalf("%s is not a list: %v", name, rec[name])
	}
	ids := []int64{}
	for _, it := range list {
		ids = append(ids, num(t, it.(map[string]any)["id"]))
	}
	return ids
}

// relatedID reads the id of a belongs-to relation of a record (0: null).
func relatedID(t *testing.T, rec map[string]any, name string) int64 {
	t.Helper()
	m, ok := rec[name].(map[string]any)
	if !ok {
		return 0
	}
	return num(t, m["id"])
}

// TestInvoiceIncludes: every include of an invoice, the line relations
// (a declared Where, a declared order), the tags (an integer array) and
// the building's owners (matched on building_id, not id).
func TestInvoiceIncludes(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	id := f.invoice(t, map[string]any{
		"type": "contract", "contract_id": f.contract, "building_id": f.building, "billing_id": f.billing,
		"ticket_late_fee_item_id": f.rent, "tag": []int64{f.tag2, f.tag1}, "total": "1050.00",
		"items": []any{
			map[string]any{"item_id": f.rent, "amount": "1000.00"},
			map[string]any{"item_id": f.adminFee, "amount": "100.00", "owner_id": f.owner},
			map[string]any{"item_id": f.condo, "amount": "50.00", "owner_id": f.owner},
		},
	})
	other := f.invoice(t, map[string]any{"tag": []int64{f.tag1}})
	lineIDs := relatedIDs(t, f.get(t, fmt.Sprintf("/invoices/%d?include[items]=id", id), http.StatusOK).record(t), "items")
	rent, fee, condo := lineIDs[0], lineIDs[1], lineIDs[2]
	interest := f.scalar(t, `INSERT INTO invoice_items (company_id, invoice_id, kind, item_id, amount)
		VALUES ($1, $2, 'interest', $3, 5) RETURNING id`, f.compA, id, f.fee)
	file := f.create(t, fmt.Sprintf("/invoices/%d/files", id), map[string]any{"name": "boleto.pdf", "url": "https://files.example.com/b.pdf"})
	message := f.create(t, fmt.Sprintf("/invoices/%d/messages", id), map[string]any{"channel": "email", "body": "Seu boleto"})
	var tx []int64
	for _, mode := range []string{"invoice", "chargeback", "transaction"} {
		tx = append(tx, f.scalar(t, `INSERT INTO transactions (company_id, invoice_id, mode, type, date, amount)
			VALUES ($1, $2, $3, 'credit', current_date, 10) RETURNING id`, f.compA, id, mode))
	}

	rec := f.get(t, fmt.Sprintf("/invoices/%d?include[items]&include[itemsPayer]&include[itemsAll]&include[itemsAllGroupTransfer]"+
		"&include[autoTransactions]&include[building]&include[billing]&include[payer]&include[account]&include[contract]"+
		"&include[business]&include[lateFeeItem]&include[files]&include[tags]&include[messages]&include[owners]", id), http.StatusOK).record(t)
	lists := []struct {
		name string
		want []int64
	}{
		{"items", []int64{rent, fee, condo}},                           // client lines only
		{"itemsPayer", []int64{rent, condo}},                           // not the fee debited to the owner
		{"itemsAll", []int64{rent, fee, condo, interest}},              // settlement lines too
		{"itemsAllGroupTransfer", []int64{fee, condo, rent, interest}}, // the owner's lines together, then the rest
		{"autoTransactions", []int64{tx[0], tx[1]}},                    // invoice and chargeback entries
		{"files", []int64{file}},
		{"messages", []int64{message}},
		{"tags", []int64{f.tag2, f.tag1}}, // in the order of the tag array
	}
	for _, c := range lists {
		if got := relatedIDs(t, rec, c.name); !slices.Equal(got, c.want) {
			t.Errorf("include[%s]: %v, want %v", c.name, got, c.want)
		}
	}
	ones := []struct {
		name string
		want int64
	}{
		{"building", f.building}, {"billing", f.billing}, {"payer", f.payer}, {"account", f.account},
		{"contract", f.contract}, {"business", f.business}, {"lateFeeItem", f.rent},
	}
	for _, c := range ones {
		if got := relatedID(t, rec, c.name); got != c.want {
			t.Errorf("include[%s]: %d, want %d", c.name, got, c.want)
		}
	}
	owners, _ := rec["owners"].([]any)
	if len(owners) != 1 || num(t, owners[0].(map[string]any)["person_id"]) != f.owner {
		t.Errorf("include[owners]: %v", rec["owners"])
	}

	// in a list: each invoice gets its own tags, lines and owners
	data := f.get(t, fmt.Sprintf("/invoices?sort=id&filter[id|b]=%d|%d&include[tags]=name&include[items]=amount&include[owners]&include[contract]=reference", id, other), http.StatusOK).data(t)
	if len(data) != 2 {
		t.Fatalf("list: %v", data)
	}
	if got, _ := data[1]["tags"].([]any); len(got) != 1 || got[0].(map[string]any)["name"] != "VIP" {
		t.Errorf("tags of the other invoice: %v", got)
	}
	if got, _ := data[1]["items"].([]any); len(got) != 1 || got[0].(map[string]any)["amount"] == nil {
		t.Errorf("items of the other invoice: %v", got)
	}
	if owners, _ := data[1]["owners"].([]any); len(owners) != 0 || data[1]["contract"] != nil {
		t.Errorf("the other invoice has no building nor contract: %v", data[1])
	}
	if c, _ := data[0]["contract"].(map[string]any); c == nil || c["reference"] != "CT-501" {
		t.Errorf("contract of the first: %v", data[0]["contract"])
	}
	// an invoice without tags has an empty list
	f.exec(t, `UPDATE invoices SET tag = '{}' WHERE id = $1`, other)
	if got := relatedIDs(t, f.get(t, fmt.Sprintf("/invoices/%d?include[tags]", other), http.StatusOK).record(t), "tags"); len(got) != 0 {
		t.Errorf("tags of an untagged invoice: %v", got)
	}
}
