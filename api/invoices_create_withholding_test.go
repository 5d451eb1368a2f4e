package api

import (
	"fmt"
	"net/http"
	"testing"
)

// TestInvoicesCreateWithholding: a company tenant's IRRF as a contract
// item through the API (POST /financial/contracts/{id}/items of a duty
// item, debit owner, credit customer): the preview and the run bill a rent
// of 8,000.00 net of the 474.46 withheld, 7,525.54 an invoice, instead of
// refusing the item.
func TestInvoicesCreateWithholding(t *testing.T) {
	t.Parallel()
	f := statementEnv(t)
	irrf := f.create(t, "/financial/transactionItems", map[string]any{"description": "IRRF retido", "debit": "owner",
		"credit": "customer", "type": "duty"})
	billing := f.create(t, "/financial/billings", map[string]any{"name": "Boleto", "account_id": f.account})
	id := f.create(t, "/financial/contracts", map[string]any{"type": "rent", "building_id": f.building, "tenant_id": f.tenant,
		"billing_id": billing, "business_id": f.business, "account_id": f.account, "billing_method": "pix", "start_at": "2025-01-01",
		"recurrency": "monthly", "modality": "monthly", "amount": "8000.00", "due_date": "2025-01-10", "due_day": 10,
		"billing_timing": "pre", "transfer_mode": "after_receive", "transfer_after_days": 1})
	f.create(t, contractPath(id, "items"), map[string]any{"item_id": irrf, "description": "IRRF retido", "amount": "474.46"})

	path := contractPath(id, "invoicesCreate")
	prev := f.send(t, http.MethodPost, path, f.keyA, `{"preview":true,"until":"2025-02-10"}`, nil)
	if prev.status != http.StatusOK {
		t.Fatalf("preview: %d %s", prev.status, prev.raw)
	}
	want := fmt.Sprintf("total 7525.54 [%d 8000.00 Aluguel] [%d 474.46 IRRF retido]", f.rent, irrf)
	invoices := prev.body["data"].(map[string]any)["invoices"].([]any)
	if len(invoices) != 2 {
		t.Fatalf("preview: %s", prev.raw)
	}
	for i, inv := range invoices {
		if got := previewLines(inv.(map[string]any)); got != want {
			t.Errorf("preview's invoice %d\n got %s\nwant %s", i, got, want)
		}
	}
	run := f.send(t, http.MethodPost, path, f.keyA, `{"until":"2025-02-10"}`, nil)
	if run.status != http.StatusAccepted {
		t.Fatalf("run: %d %s", run.status, run.raw)
	}
	job := f.waitJob(t, f.keyA, num(t, run.body["data"].(map[string]any)["id"]))
	created, _ := job["result"].(map[string]any)["invoice_ids"].([]any)
	if job["state"] != "succeeded" || len(created) != 2 {
		t.Fatalf("job: %v", job)
	}
	for _, inv := range created {
		stored := f.get(t, fmt.Sprintf("/invoices/%d?include[items]", num(t, inv)), http.StatusOK).record(t)
		if got := previewLines(stored); got != want {
			t.Errorf("stored invoice\n got %s\nwant %s", got, want)
		}
	}
}
