package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestInvoicesCreateAdministrationFee: docs/ledger.md's worked example
// through the API alone. A contract of rent 2,000.00 with a condominium of
// 350.00 and an administration fee of 10% of the rent (a contract item of
// an owner → business item of type commission), its building owned 60/40:
// the preview shows the fee line, the generated invoice's total is
// 2,350.00 with the fee line of 200.00; paid on its due date it posts the
// example's entries (owner A debited 120.00, owner B 80.00, the business
// credited 200.00), and contracts:transfer pays the owners rent and
// condominium less the fee.
func TestInvoicesCreateAdministrationFee(t *testing.T) {
	t.Parallel()
	f := statementEnv(t)
	billing := f.create(t, "/financial/billings", map[string]any{"name": "PIX", "account_id": f.account})
	id := f.create(t, "/financial/contracts", map[string]any{"type": "rent", "building_id": f.building, "tenant_id": f.tenant,
		"billing_id":  billing,
		"business_id": f.business, "account_id": f.account, "billing_method": "pix", "start_at": "2024-03-01",
		"recurrency": "monthly", "modality": "monthly", "amount": "2000.00", "due_date": "2024-03-10", "due_day": 10,
		"billing_timing": "pre", "proportional": true, "transfer_mode": "after_receive", "transfer_after_days": 0})
	items := contractPath(id, "items")
	f.create(t, items, map[string]any{"item_id": f.condo, "description": "Condomínio", "calculate_mode": "fixed", "amount": "350.00"})
	f.create(t, items, map[string]any{"mode": "commission", "item_id": f.adminFee, "description": "Taxa de administração",
		"calculate_mode": "percentage", "percentage": 10, "percentage_mode": "rental_value"})

	path := contractPath(id, "invoicesCreate")
	prev := f.send(t, http.MethodPost, path, f.keyA, `{"preview":true,"until":"2024-03-31"}`, nil)
	if prev.status != http.StatusOK {
		t.Fatalf("preview: %d %s", prev.status, prev.raw)
	}
	invoices := prev.body["data"].(map[string]any)["invoices"].([]any)
	if len(invoices) != 1 {
		t.Fatalf("preview: %s", prev.raw)
	}
	want := fmt.Sprintf("total 2350.00 [%d 2000.00 Aluguel] [%d 350.00 Condomínio] [%d 200.00 Taxa de administração]",
		f.rent, f.condo, f.adminFee)
	if got := previewLines(invoices[0].(map[string]any)); got != want {
		t.Errorf("preview\n got %s\nwant %s", got, want)
	}
	run := f.send(t, http.MethodPost, path, f.keyA, `{"until":"2024-03-31"}`, nil)
	if run.status != http.StatusAccepted {
		t.Fatalf("run: %d %s", run.status, run.raw)
	}
	job := f.waitJob(t, f.keyA, num(t, run.body["data"].(map[string]any)["id"]))
	created, _ := job["result"].(map[string]any)["invoice_ids"].([]any)
	if job["state"] != "succeeded" || len(created) != 1 {
		t.Fatalf("job: %v", job)
	}
	inv := num(t, created[0])
	stored := f.get(t, fmt.Sprintf("/invoices/%d?include[items]", inv), http.StatusOK).record(t)
	if got := previewLines(stored); got != want {
		t.Errorf("stored invoice\n got %s\nwant %s", got, want)
	}

	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", inv), f.keyA, map[string]any{"paid": true, "paid_at": "2024-03-10",
		"credit_at": "2024-03-10", "billing_method": "pix"}); r.status != http.StatusOK {
		t.Fatalf("paying: %d %s", r.status, r.raw)
	}
	owner := map[string]string{fmt.Sprint(f.ana): "A", fmt.Sprint(f.bruno): "B"}
	entry := func(e map[string]any) string {
		who := fmt.Sprint(e["extract"])
		if who == "owner" {
			who += " " + owner[fmt.Sprint(e["owner_id"])]
		}
		return fmt.Sprintf("%v %s %v", e["type"], who, e["amount"])
	}
	var entries []string
	for _, e := range f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&sort=id&perPage=50", inv), http.StatusOK).data(t) {
		entries = append(entries, entry(e))
	}
	wantEntries := []string{
		"debit customer 2000.00", "credit owner A 1200.00", "credit owner B 800.00",
		"debit customer 350.00", "credit owner A 210.00", "credit owner B 140.00",
		"debit owner A 120.00", "debit owner B 80.00", "credit business 200.00",
	}
	if !slices.Equal(entries, wantEntries) {
		t.Errorf("entries\n got %q\nwant %q", entries, wantEntries)
	}

	res := f.run(t, "contracts:transfer", `{"date":"2024-03-10"}`)
	if fmt.Sprint(res["amount"]) != "2150.00" {
		t.Errorf("contracts:transfer: %v, want 2,150.00 paid out (2,350.00 less the fee)", res)
	}
	var transfers []string
	for _, e := range f.get(t, fmt.Sprintf("/transactions?filter[mode]=transfer&filter[contract_id]=%d&sort=id", id), http.StatusOK).data(t) {
		transfers = append(transfers, entry(e))
	}
	if want := []string{"transfer owner A 1290.00", "transfer owner B 860.00"}; !slices.Equal(transfers, want) {
		t.Errorf("transfers %q, want %q", transfers, want)
	}
}

// previewLines writes an invoice of the API as "total T [item amount
// description]...".
func previewLines(inv map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "total %v", inv["total"])
	lines, _ := inv["items"].([]any)
	for _, l := range lines {
		l := l.(map[string]any)
		fmt.Fprintf(&b, " [%v %v %v]", l["item_id"], l["amount"], l["description"])
	}
	return b.String()
}
