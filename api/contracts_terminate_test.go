package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// termFixture is company A's worked lease of docs/finance.md,
// "Termination", through the API: 2,000.00 a month from 2024-01-01 to
// 2026-06-30 (30 months, 912 days), billed in arrears by calendar month,
// due on the 5th, a condominium of 350.00, a fine of 3 rents, a deposit of
// 2,000.00, on a building owned 60% by ana and 40% by bruno; the
// company's fine and deposit items (both debit customer, credit owner)
// set in /financial/settings.
type termFixture struct {
	*contractFixture
	building, ana, bruno int64
	fineItem, deposit    int64
}

func termEnv(t *testing.T) *termFixture {
	t.Helper()
	f := &termFixture{contractFixture: contractEnv(t)}
	f.ana = f.create(t, "/persons", map[string]any{"name": "Ana Proprietária"})
	f.bruno = f.create(t, "/persons", map[string]any{"name": "Bruno Proprietário"})
	f.building = f.create(t, "/buildings", map[string]any{"title": "Cedro", "reference": "CE-3"})
	f.create(t, fmt.Sprintf("/buildings/%d/owners", f.building), map[string]any{"person_id": f.ana, "percentage": "60"})
	f.create(t, fmt.Sprintf("/buildings/%d/owners", f.building), map[string]any{"person_id": f.bruno, "percentage": "40"})
	f.fineItem = f.item(t, "Multa rescisória", "customer", "owner", "default")
	f.deposit = f.item(t, "Caução", "customer", "owner", "default")
	r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{
		"termination_fee_item_id": f.fineItem, "termination_deposit_item_id": f.deposit})
	if r.status != http.StatusOK || num(t, r.record(t)["termination_fee_item_id"]) != f.fineItem {
		t.Fatalf("settings: %d %s", r.status, r.raw)
	}
	return f
}

// lease creates the worked lease with the overrides, its condominium, and
// its invoices due up to until; its id.
func (f *termFixture) lease(t *testing.T, until string, overrides map[string]any) int64 {
	t.Helper()
	body := map[string]any{"building_id": f.building, "amount": "2000.00", "start_at": "2024-01-01", "end_at": "2026-06-30",
		"modality": "monthly", "billing_timing": "post", "due_date": "2024-02-05", "due_day": 5,
		"termination_fee_months": 3, "signal_amount": "2000.00", "reference": "L-30"}
	for k, v := range overrides {
		body[k] = v
	}
	id := f.newContract(t, body)
	f.create(t, contractPath(id, "items"), map[string]any{"mode": "item", "item_id": f.condo, "description": "Condomínio",
		"calculate_mode": "fixed", "amount": "350.00"})
	if until != "" {
		_, err := storage.GenerateInvoices(t.Context(), f.pool, f.compA, []int64{id}, finance.MustDate(until),
			storage.GenerateOptions{Actor: storage.Actor{Kind: storage.ActorSystem}})
		if err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func (f *termFixture) terminate(t *testing.T, id int64, key string, body map[string]any) response {
	t.Helper()
	return f.do(t, http.MethodPost, contractPath(id, "terminate"), key, body)
}

// TestTerminateContractWorked: the worked lease terminated by its tenant
// at the end of month 12 (2024-12-31), its invoices generated up to
// 2025-02-10. The fine is 3 × 2,000.00 × 546/912 = 3,592.11 (calendar
// days: 912 in the term, 546 after 2024-12-31), Ana's share 2,155.27 and
// Bruno's 1,436.84; December's invoice is kept (its period ends on the
// date), January 2025's canceled; the final invoice is the fine less the
// deposit, 1,592.11. The preview is the run's answer field by field and
// stores nothing. Once paid, the ledger balances and each owner holds the
// fine's share less the deposit's.
func TestTerminateContractWorked(t *testing.T) {
	t.Parallel()
	f := termEnv(t)
	withWorkers(t, f.testEnv)
	id := f.lease(t, "2025-02-10", map[string]any{"transfer_mode": "after_receive", "transfer_after_days": 0})
	invoices := f.get(t, fmt.Sprintf("/invoices?filter[contract_id]=%d&sort=due_date&perPage=100", id), http.StatusOK).data(t)
	if len(invoices) != 13 {
		t.Fatalf("%d invoices generated, want 13", len(invoices))
	}
	december, january := num(t, invoices[11]["id"]), num(t, invoices[12]["id"])
	body := map[string]any{"termination_at": "2024-12-31", "requester": "tenant", "motive": "transferência", "preview": true}
	before := f.count(t, "invoices")
	prev := f.terminate(t, id, f.keyA, body)
	if prev.status != http.StatusOK {
		t.Fatalf("preview: %d %s", prev.status, prev.raw)
	}
	p := prev.record(t)
	checkMoney(t, "the preview", p, "fine.base", "fine.amount", "fine.owners.0.amount", "deposit.held", "deposit.deducted",
		"deposit.returned", "refund_due", "invoice.total", "invoice.items.0.amount")
	fine := p["fine"].(map[string]any)
	owners := fine["owners"].([]any)
	inv := p["invoice"].(map[string]any)
	if fine["reason"] != "early_return" || toJSON(t, fine["amount"]) != "3592.11" || toJSON(t, fine["base"]) != "6000.00" ||
		toJSON(t, fine["term_days"]) != "912" || toJSON(t, fine["remaining_days"]) != "546" || num(t, fine["item_id"]) != f.fineItem ||
		len(owners) != 2 || toJSON(t, owners[0]) != fmt.Sprintf(`{"amount":2155.27,"owner_id":%d,"percentage":60.00}`, f.ana) ||
		toJSON(t, owners[1]) != fmt.Sprintf(`{"amount":1436.84,"owner_id":%d,"percentage":40.00}`, f.bruno) {
		t.Errorf("fine: %s", toJSON(t, fine))
	}
	if toJSON(t, inv["total"]) != "1592.11" || inv["id"] != nil || inv["type"] != "single" || num(t, inv["contract_id"]) != id ||
		len(inv["items"].([]any)) != 2 || inv["description"] != "Rescisão do contrato L-30 em 31/12/2024" {
		t.Errorf("final invoice: %s", toJSON(t, inv))
	}
	if toJSON(t, p["canceled_invoices"]) != fmt.Sprintf("[%d]", january) || !slices.Contains(p["open_invoices"].([]any), any(jsonID(december))) ||
		p["status"] != "terminated" || toJSON(t, p["deposit"]) != `{"deducted":2000.00,"held":2000.00,"returned":0.00}` {
		t.Errorf("preview: %s", prev.raw)
	}
	if c := f.get(t, contractPath(id), http.StatusOK).record(t); c["status"] != "progress" || c["termination_at"] != nil ||
		f.count(t, "invoices") != before || f.get(t, fmt.Sprintf("/invoices/%d", january), http.StatusOK).record(t)["status"] == "canceled" {
		t.Fatalf("the preview stored: %v", c)
	}

	delete(body, "preview")
	run := f.terminate(t, id, f.keyA, body)
	if run.status != http.StatusOK {
		t.Fatalf("run: %d %s", run.status, run.raw)
	}
	r := run.record(t)
	final := num(t, r["invoice"].(map[string]any)["id"])
	r["invoice"].(map[string]any)["id"], r["preview"] = nil, true
	if a, b := toJSON(t, p), toJSON(t, r); a != b {
		t.Errorf("the run differs from the preview:\npreview %s\nrun     %s", a, b)
	}
	// the final invoice as stored has the late-fee and discount settings
	// the preview showed (no punctuality discount: no days, null)
	stored := f.get(t, fmt.Sprintf("/invoices/%d", final), http.StatusOK).record(t)
	shown := p["invoice"].(map[string]any)
	for _, field := range ticketFields {
		if toJSON(t, stored[field]) != toJSON(t, shown[field]) {
			t.Errorf("the final invoice's %s: stored %s, previewed %s", field, toJSON(t, stored[field]), toJSON(t, shown[field]))
		}
	}
	c := f.get(t, contractPath(id), http.StatusOK).record(t)
	if c["status"] != "terminated" || c["termination_at"] != "2024-12-31" || toJSON(t, c["termination_fee_amount"]) != "3592.11" ||
		c["termination_fee_requester"] != "tenant" || c["termination_fee_motive"] != "transferência" || toJSON(t, c["refund_amount"]) != "0.00" {
		t.Errorf("contract: %v", c)
	}
	if s := f.get(t, fmt.Sprintf("/invoices/%d", january), http.StatusOK).record(t)["status"]; s != "canceled" {
		t.Errorf("January: %v", s)
	}
	if s := f.get(t, fmt.Sprintf("/invoices/%d", december), http.StatusOK).record(t)["status"]; s == "canceled" {
		t.Errorf("December: %v", s)
	}
	history := f.get(t, fmt.Sprintf("/invoices/%d/history", january), http.StatusOK).data(t)
	if last := history[len(history)-1]; last["origin"] != "termination" || last["actor"] != "user" {
		t.Errorf("January's history: %v", history)
	}

	// the final invoice paid: the ledger balances, each owner holds its
	// share of the fine less its share of the deposit the owners held; the
	// transfer run pays it out as it pays a rent
	day := today(0)
	f.pay(t, final, day)
	f.checkLedger(t, "paid", "-1592.11", "955.27", "636.84")
	job := f.send(t, http.MethodPost, "/jobs", f.keyA, `{"kind":"contracts:transfer","payload":{"date":"`+day+`"}}`, nil)
	if job.status != http.StatusAccepted {
		t.Fatalf("transfer job: %d %s", job.status, job.raw)
	}
	if done := f.waitJob(t, f.keyA, num(t, job.body["data"].(map[string]any)["id"])); done["state"] != "succeeded" ||
		toJSON(t, done["result"].(map[string]any)["amount"]) != "1592.11" {
		t.Fatalf("transfer job: %v", done)
	}
	f.checkLedger(t, "transferred", "-1592.11", "0.00", "0.00")
}

// checkLedger holds company A's ledger balanced (the debits equal the
// credits; a transfer is both) and the customer's, Ana's and Bruno's
// balances to those given (credits less debits and transfers).
func (f *termFixture) checkLedger(t *testing.T, when, customer, ana, bruno string) {
	t.Helper()
	var debits, credits, c, a, b string
	err := f.pool.QueryRow(t.Context(), `SELECT
			coalesce(sum(amount) FILTER (WHERE type IN ('debit', 'transfer')), 0)::text,
			coalesce(sum(amount) FILTER (WHERE type IN ('credit', 'transfer')), 0)::text,
			coalesce(sum(CASE type WHEN 'credit' THEN amount ELSE -amount END) FILTER (WHERE extract = 'customer'), 0)::text,
			coalesce(sum(CASE type WHEN 'credit' THEN amount ELSE -amount END) FILTER (WHERE owner_id = $2), 0)::text,
			coalesce(sum(CASE type WHEN 'credit' THEN amount ELSE -amount END) FILTER (WHERE owner_id = $3), 0)::text
		FROM transactions WHERE company_id = $1`, f.compA, f.ana, f.bruno).Scan(&debits, &credits, &c, &a, &b)
	if err != nil || debits != credits || c != customer || a != ana || b != bruno {
		t.Errorf("%s: debits %s credits %s, customer %s, Ana %s, Bruno %s; want balanced, %s, %s, %s (%v)",
			when, debits, credits, c, a, b, customer, ana, bruno, err)
	}
}

// jsonID is an id as a decoded answer holds it.
func jsonID(id int64) json.Number { return json.Number(fmt.Sprint(id)) }

// TestTerminationTicketSettings: the final invoice carries its contract's
// late-fee settings as the generated invoices do, null where the contract
// has none, and no punctuality discount (null amounts and days, not 0.00),
// even when the contract grants one; the preview shows what the run
// stores.
func TestTerminationTicketSettings(t *testing.T) {
	t.Parallel()
	f := termEnv(t)
	for _, c := range []struct {
		name      string
		overrides map[string]any
		want      string
	}{
		{"no late fee nor discount", nil,
			"ticket_late_fee=false ticket_late_fee_item_id=<nil> ticket_late_fee_percentage=<nil> ticket_late_fee_interest=<nil> " +
				"ticket_discount=false ticket_discount_mode=<nil> ticket_discount_fixed=<nil> ticket_discount_percentage=<nil> " +
				"ticket_discount_days=<nil> ticket_discount_action=<nil>"},
		{"a late fee and a discount", map[string]any{"ticket_late_fee": true, "ticket_late_fee_percentage": "2",
			"ticket_late_fee_interest": "1", "ticket_discount": true, "ticket_discount_mode": "fixed", "ticket_discount_fixed": "50.00",
			"ticket_discount_days": 5, "ticket_discount_action": "business"},
			"ticket_late_fee=true ticket_late_fee_item_id=<nil> ticket_late_fee_percentage=2.00 ticket_late_fee_interest=1.00 " +
				"ticket_discount=false ticket_discount_mode=<nil> ticket_discount_fixed=<nil> ticket_discount_percentage=<nil> " +
				"ticket_discount_days=<nil> ticket_discount_action=<nil>"},
	} {
		id := f.lease(t, "", c.overrides)
		body := map[string]any{"termination_at": "2024-03-15", "requester": "tenant", "preview": true}
		prev := f.terminate(t, id, f.keyA, body)
		delete(body, "preview")
		run := f.terminate(t, id, f.keyA, body)
		if prev.status != http.StatusOK || run.status != http.StatusOK {
			t.Fatalf("%s: preview %d %s, run %d %s", c.name, prev.status, prev.raw, run.status, run.raw)
		}
		final := num(t, run.record(t)["invoice"].(map[string]any)["id"])
		stored := f.get(t, fmt.Sprintf("/invoices/%d", final), http.StatusOK).record(t)
		for what, inv := range map[string]map[string]any{"previewed": prev.record(t)["invoice"].(map[string]any), "stored": stored} {
			var parts []string
			for _, field := range ticketFields {
				parts = append(parts, fmt.Sprintf("%s=%v", field, inv[field]))
			}
			if got := strings.Join(parts, " "); got != c.want {
				t.Errorf("%s, the final invoice %s:\n got %s\nwant %s", c.name, what, got, c.want)
			}
		}
	}
}

// TestTerminateContractRequesters: the same lease previewed on 2025-01-15
// by each requester: the tenant pays 3 × 2,000.00 × 531/912 = 3,493.42
// with January's rent pro rata (2,000.00 × 15/31 = 967.74) and the
// condominium; exempt, asked by the owner or by both, no fine (the
// deposit then covers 1,317.74 and 682.26 is returned); on the term's last
// day no fine and June billed whole.
func TestTerminateContractRequesters(t *testing.T) {
	t.Parallel()
	f := termEnv(t)
	id := f.lease(t, "2025-02-10", nil)
	for _, c := range []struct {
		body                        map[string]any
		reason, fine, total, refund string
	}{
		{map[string]any{"requester": "tenant"}, "early_return", "3493.42", "2811.16", "0.00"},
		{map[string]any{"requester": "tenant", "exemption": true}, "exempt", "0.00", "0.00", "682.26"},
		{map[string]any{"requester": "owner", "motive": "retomada para uso próprio"}, "owner_requested", "0.00", "0.00", "682.26"},
		{map[string]any{"requester": "mutual"}, "mutual", "0.00", "0.00", "682.26"},
		{map[string]any{"requester": "tenant", "termination_at": "2026-06-30"}, "after_term", "0.00", "350.00", "0.00"},
	} {
		body := map[string]any{"termination_at": "2025-01-15", "preview": true}
		for k, v := range c.body {
			body[k] = v
		}
		r := f.terminate(t, id, f.keyA, body)
		if r.status != http.StatusOK {
			t.Errorf("%v: %d %s", c.body, r.status, r.raw)
			continue
		}
		d := r.record(t)
		fine := d["fine"].(map[string]any)
		total := toJSON(t, d["invoice"].(map[string]any)["total"])
		if fine["reason"] != c.reason || toJSON(t, fine["amount"]) != c.fine || total != c.total || toJSON(t, d["refund_due"]) != c.refund {
			t.Errorf("%v: reason %v fine %s total %s refund %s, want %s %s %s %s", c.body, fine["reason"], toJSON(t, fine["amount"]),
				total, toJSON(t, d["refund_due"]), c.reason, c.fine, c.total, c.refund)
		}
	}
	if c := f.get(t, contractPath(id), http.StatusOK).record(t); c["status"] != "progress" {
		t.Errorf("previews stored: %v", c["status"])
	}
}

// TestTerminateContractRefusals: 422 naming the field (a date before the
// start, an unknown requester, missing or malformed fields, a contract
// already terminated, one not active, a sale), 404 for another company's
// contract; nothing is stored.
func TestTerminateContractRefusals(t *testing.T) {
	t.Parallel()
	f := termEnv(t)
	id := f.lease(t, "", nil)
	for _, c := range []struct {
		body   map[string]any
		fields []string
	}{
		{map[string]any{"termination_at": "2023-12-31", "requester": "tenant"}, []string{"termination_at"}},
		{map[string]any{"termination_at": "2025-01-15", "requester": "landlord"}, []string{"requester"}},
		{map[string]any{}, []string{"termination_at", "requester"}},
		{map[string]any{"termination_at": "15/01/2025", "requester": "tenant", "exemption": "yes", "color": 1},
			[]string{"color", "exemption", "termination_at"}},
		// an unknown field is named with the checks of the rest
		{map[string]any{"termination_at": "2023-12-31", "requester": "tenant", "color": 1}, []string{"color", "termination_at"}},
	} {
		r := f.terminate(t, id, f.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), c.fields) {
			t.Errorf("%v: %d %s, want 422 naming %v", c.body, r.status, r.raw, c.fields)
		}
	}
	ok := map[string]any{"termination_at": "2025-01-15", "requester": "tenant"}
	if r := f.terminate(t, id, f.keyB, ok); r.status != http.StatusNotFound {
		t.Errorf("another company's contract: %d %s", r.status, r.raw)
	}
	for name, c := range map[string]struct {
		set, field string
	}{
		"terminated": {"status = 'terminated', termination_at = '2024-06-30'", "status"},
		"finished":   {"status = 'finished'", "status"},
		"not active": {"active = 'reserved'", "active"},
		"a sale":     {"type = 'sale', recurrency_amount = 30", "type"},
	} {
		other := f.lease(t, "", nil)
		f.exec(t, `UPDATE contracts SET `+c.set+` WHERE id = $1`, other)
		r := f.terminate(t, other, f.keyA, ok)
		if r.status != http.StatusUnprocessableEntity || !slices.Contains(r.problemFields(t), c.field) {
			t.Errorf("%s: %d %s, want 422 naming %s", name, r.status, r.raw, c.field)
		}
	}
	if n := f.count(t, "invoices"); n != 0 {
		t.Errorf("%d invoices stored by refused terminations", n)
	}
}

// TestTerminationMovesAtNight: a contract terminating today is
// terminating; the nightly overdue run of tomorrow makes it terminated.
func TestTerminationMovesAtNight(t *testing.T) {
	t.Parallel()
	f := termEnv(t)
	withWorkers(t, f.testEnv)
	var day, tomorrow string
	if err := f.pool.QueryRow(t.Context(), `SELECT d::text, (d + 1)::text FROM (SELECT (now() AT TIME ZONE time_zone)::date AS d
		FROM companies WHERE id = $1) t`, f.compA).Scan(&day, &tomorrow); err != nil {
		t.Fatal(err)
	}
	id := f.lease(t, "", map[string]any{"start_at": "2026-01-01", "end_at": "2027-12-31", "due_date": "2026-02-05"})
	r := f.terminate(t, id, f.keyA, map[string]any{"termination_at": day, "requester": "tenant"})
	if r.status != http.StatusOK || r.record(t)["status"] != "terminating" {
		t.Fatalf("terminate: %d %s", r.status, r.raw)
	}
	job := f.send(t, http.MethodPost, "/jobs", f.keyA, `{"kind":"finance:overdue","payload":{"date":"`+tomorrow+`"}}`, nil)
	if job.status != http.StatusAccepted {
		t.Fatalf("overdue job: %d %s", job.status, job.raw)
	}
	done := f.waitJob(t, f.keyA, num(t, job.body["data"].(map[string]any)["id"]))
	if done["state"] != "succeeded" || toJSON(t, done["result"].(map[string]any)["terminated"]) != "1" {
		t.Fatalf("job: %v", done)
	}
	if c := f.get(t, contractPath(id), http.StatusOK).record(t); c["status"] != "terminated" || c["status_date"] != tomorrow {
		t.Errorf("contract after the night: %v %v", c["status"], c["status_date"])
	}
}
