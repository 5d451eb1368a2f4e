package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage/storagetest"
)

// TestInvoicesCreate: a preview shows the invoices (lines, totals) and
// stores nothing; a run is a job whose result lists what it created,
// which are the previewed invoices; a contract that cannot be billed is a
// 422 saying why, preview or run; another company's is a 404.
func TestInvoicesCreate(t *testing.T) {
	t.Parallel()
	env := setup(t)
	withWorkers(t, env)
	b := storagetest.NewBilling(t, env.pool, env.compA)
	id := b.MonthlyContracts(t, env.pool, 1, "2026-01-01", "2026-01-10")[0]
	path := fmt.Sprintf("/financial/contracts/%d/invoicesCreate", id)

	prev := env.send(t, http.MethodPost, path, env.keyA, `{"preview":true,"until":"2026-03-31"}`, nil)
	if prev.status != http.StatusOK {
		t.Fatalf("preview: %d %s", prev.status, prev.raw)
	}
	data := prev.body["data"].(map[string]any)
	invoices := data["invoices"].([]any)
	if len(invoices) != 3 || fmt.Sprint(data["total"]) != "7050.00" || data["until"] != "2026-03-31" {
		t.Fatalf("preview: %s", prev.raw)
	}
	first := invoices[0].(map[string]any)
	if fmt.Sprint(first["total"]) != "2350.00" || first["due_date"] != "2026-01-10" || len(first["items"].([]any)) != 2 ||
		first["description"] != "Aluguel 1 - 01/01/2026 a 31/01/2026" {
		t.Errorf("first invoice: %v", first)
	}
	checkMoney(t, "the preview", data, "total", "invoices.0.total", "invoices.0.items.0.amount")
	if n := env.count(t, "invoices"); n != 0 {
		t.Fatalf("a preview stored %d invoices", n)
	}

	run := env.send(t, http.MethodPost, path, env.keyA, `{"until":"2026-03-31"}`, nil)
	if run.status != http.StatusAccepted || !strings.HasPrefix(run.header.Get("Location"), "/jobs/") {
		t.Fatalf("run: %d %s", run.status, run.raw)
	}
	job := env.waitJob(t, env.keyA, num(t, run.body["data"].(map[string]any)["id"]))
	result, _ := job["result"].(map[string]any)
	if job["state"] != "succeeded" || len(result["invoice_ids"].([]any)) != 3 {
		t.Fatalf("job: %v", job)
	}
	if n := env.count(t, "invoice_items"); n != 6 {
		t.Errorf("%d invoice lines, want 6", n)
	}
	again := env.send(t, http.MethodPost, path, env.keyA, `{"preview":true,"until":"2026-03-31"}`, nil)
	if again.status != http.StatusOK || fmt.Sprint(again.body["data"].(map[string]any)["count"]) != "0" {
		t.Errorf("preview after the run: %s", again.raw)
	}
	if def := env.send(t, http.MethodPost, path, env.keyA, ``, nil); def.status != http.StatusAccepted {
		t.Errorf("empty body (until defaults to today plus the lead time): %d %s", def.status, def.raw)
	}

	env.exec(t, `INSERT INTO buildings (company_id, title) VALUES ($1, 'Sem donos')`, env.compA)
	for name, c := range map[string]struct {
		set, body, field string
		status           int
	}{
		"canceled":     {"active = 'canceled'", `{"preview":true}`, "contract", 422},
		"canceled run": {"active = 'canceled'", `{}`, "contract", 422},
		"suspended":    {"status = 'suspended'", `{}`, "contract", 422},
		"no due date":  {"due_date = NULL", `{"preview":true}`, "due_date", 422},
		// the rent credits the owner: invoices nobody could be paid for
		"a building without owners": {"building_id = (SELECT id FROM buildings WHERE company_id = contracts.company_id " +
			"AND id NOT IN (SELECT building_id FROM building_owners) LIMIT 1)", `{"preview":true}`, "building_id", 422},
		"no building run": {"building_id = NULL", `{}`, "building_id", 422},
		"bad until":       {"", `{"until":"31/03/2026"}`, "until", 422},
		"unknown":         {"", `{"previw":true}`, "previw", 422},
	} {
		cid := b.MonthlyContracts(t, env.pool, 1, "2026-01-01", "2026-01-10")[0]
		if c.set != "" {
			env.exec(t, `UPDATE contracts SET `+c.set+` WHERE id = $1`, cid)
		}
		r := env.send(t, http.MethodPost, fmt.Sprintf("/financial/contracts/%d/invoicesCreate", cid), env.keyA, c.body, nil)
		if r.status != c.status || r.problemFields(t)[0] != c.field {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
	if r := env.send(t, http.MethodPost, path, env.keyB, `{"preview":true}`, nil); r.status != http.StatusNotFound {
		t.Errorf("another company's contract: %d %s", r.status, r.raw)
	}
}

// ticketFields are an invoice's late-fee and discount settings, copied
// from its contract.
var ticketFields = []string{"ticket_late_fee", "ticket_late_fee_item_id", "ticket_late_fee_percentage", "ticket_late_fee_interest",
	"ticket_discount", "ticket_discount_mode", "ticket_discount_fixed", "ticket_discount_percentage", "ticket_discount_days",
	"ticket_discount_action"}

// TestGeneratedTicketSettings: the invoices generated from a contract
// carry its late-fee and discount settings as the contract has them,
// null where it has none (no punctuality discount: null, not 0.00), and
// the preview shows each invoice exactly as the run writes it.
func TestGeneratedTicketSettings(t *testing.T) {
	t.Parallel()
	env := setup(t)
	withWorkers(t, env)
	b := storagetest.NewBilling(t, env.pool, env.compA)
	ids := b.MonthlyContracts(t, env.pool, 2, "2026-01-01", "2026-01-10")
	plain, discounted := ids[0], ids[1]
	env.exec(t, `UPDATE contracts SET ticket_discount = true, ticket_discount_mode = 'fixed', ticket_discount_fixed = 50,
		ticket_discount_days = 5, ticket_discount_action = 'business' WHERE id = $1`, discounted)
	settings := func(inv map[string]any) string {
		var parts []string
		for _, f := range ticketFields {
			parts = append(parts, fmt.Sprintf("%s=%v", f, inv[f]))
		}
		return strings.Join(parts, " ")
	}
	want := map[int64]string{
		plain: "ticket_late_fee=true ticket_late_fee_item_id=<nil> ticket_late_fee_percentage=2.00 ticket_late_fee_interest=1.00 " +
			"ticket_discount=false ticket_discount_mode=<nil> ticket_discount_fixed=<nil> ticket_discount_percentage=<nil> " +
			"ticket_discount_days=<nil> ticket_discount_action=<nil>",
		discounted: "ticket_late_fee=true ticket_late_fee_item_id=<nil> ticket_late_fee_percentage=2.00 ticket_late_fee_interest=1.00 " +
			"ticket_discount=true ticket_discount_mode=fixed ticket_discount_fixed=50.00 ticket_discount_percentage=<nil> " +
			"ticket_discount_days=5 ticket_discount_action=business",
	}
	for _, id := range ids {
		path := fmt.Sprintf("/financial/contracts/%d/invoicesCreate", id)
		prev := env.send(t, http.MethodPost, path, env.keyA, `{"preview":true,"until":"2026-02-28"}`, nil)
		if prev.status != http.StatusOK {
			t.Fatalf("preview: %d %s", prev.status, prev.raw)
		}
		previewed := prev.body["data"].(map[string]any)["invoices"].([]any)
		run := env.send(t, http.MethodPost, path, env.keyA, `{"until":"2026-02-28"}`, nil)
		if run.status != http.StatusAccepted {
			t.Fatalf("run: %d %s", run.status, run.raw)
		}
		if job := env.waitJob(t, env.keyA, num(t, run.body["data"].(map[string]any)["id"])); job["state"] != "succeeded" {
			t.Fatalf("job: %v", job)
		}
		written := env.get(t, fmt.Sprintf("/invoices?filter[contract_id]=%d&sort=period_initial", id), http.StatusOK).data(t)
		if len(previewed) != 2 || len(written) != 2 {
			t.Fatalf("contract %d: %d previewed, %d written, want 2", id, len(previewed), len(written))
		}
		for i, w := range written {
			p := previewed[i].(map[string]any)
			if got := settings(p); got != want[id] {
				t.Errorf("contract %d, preview %d:\n got %s\nwant %s", id, i, got, want[id])
			}
			if got := settings(w); got != want[id] {
				t.Errorf("contract %d, invoice %v as written:\n got %s\nwant %s", id, w["id"], got, want[id])
			}
		}
	}
}

// TestNightlyGenerationStartsDirectly: POST /jobs starts the nightly run
// of a date, once per date.
func TestNightlyGenerationStartsDirectly(t *testing.T) {
	t.Parallel()
	env := setup(t)
	withWorkers(t, env)
	b := storagetest.NewBilling(t, env.pool, env.compA)
	b.MonthlyContracts(t, env.pool, 25, "2026-11-01", "2026-12-05")
	body := `{"kind":"invoices:generate","payload":{"date":"2026-11-20"}}`
	r := env.send(t, http.MethodPost, "/jobs", env.keyA, body, nil)
	if r.status != http.StatusAccepted {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	job := env.waitJob(t, env.keyA, num(t, r.body["data"].(map[string]any)["id"]))
	result, _ := job["result"].(map[string]any)
	// until 2026-12-20: each contract's first invoice (due 12-05)
	if job["state"] != "succeeded" || fmt.Sprint(result["created"]) != "25" || result["until"] != "2026-12-20" {
		t.Fatalf("job: %v", job)
	}
	for name, payload := range map[string]string{
		"future":   `{"date":"2999-01-01"}`,
		"both":     `{"date":"2026-11-20","contract_id":1,"until":"2026-12-01"}`,
		"no until": `{"contract_id":1,"until":"x"}`,
	} {
		r := env.send(t, http.MethodPost, "/jobs", env.keyA, `{"kind":"invoices:generate","payload":`+payload+`}`, nil)
		if r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
}
