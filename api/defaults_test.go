package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// want is a record's expected fields, compared as the JSON reads (nil: null).
type want map[string]any

func checkFields(t *testing.T, what string, rec map[string]any, w want) {
	t.Helper()
	for k, v := range w {
		got, ok := rec[k]
		if !ok {
			t.Errorf("%s: no field %s in %v", what, k, rec)
			continue
		}
		if (v == nil) != (got == nil) || v != nil && fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("%s: %s reads %v, want %v", what, k, got, v)
		}
	}
}

// TestContractDefaultsRead: a contract that leaves out a field whose null
// the billing, readjustment and transfer rules read as a default reads
// that default: the fixed ones stored (modality start, readjust_with 12,
// transfer_mode manually), the ones that depend on other fields in a
// read-only _effective field beside it that follows them (billing_timing
// by type, due_day by due_date, current_amount by amount, readjust_at and
// transfer_after_days by what the run derives them from).
func TestContractDefaultsRead(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	rent := f.newContract(t, nil) // start 2024-07-01, due 2024-08-05, 2500.00
	checkFields(t, "rent contract", f.get(t, contractPath(rent), http.StatusOK).record(t), want{
		"modality": "start", "readjust_with": 12, "transfer_mode": "manually",
		"billing_timing": nil, "billing_timing_effective": "post",
		"due_day": nil, "due_day_effective": 5,
		"current_amount": nil, "current_amount_effective": "2500.00",
		"readjust_at": nil, "readjust_at_effective": nil,
		"transfer_after_days": nil, "transfer_after_days_effective": nil,
	})
	season := f.newContract(t, map[string]any{"type": "season", "due_day": 10})
	checkFields(t, "season contract", f.get(t, contractPath(season), http.StatusOK).record(t), want{
		"billing_timing_effective": "pre", "due_day_effective": 10,
	})
	if ids := f.get(t, "/financial/contracts?filter[billing_timing_effective]=post", http.StatusOK).ids(t); !slices.Equal(ids, []int64{rent}) {
		t.Errorf("filter[billing_timing_effective]=post: %v, want [%d]", ids, rent)
	}

	steps := []struct {
		update map[string]any
		want   want
	}{
		{map[string]any{"type": "subscription"}, want{"billing_timing": nil, "billing_timing_effective": "pre"}},
		{map[string]any{"type": "rent", "billing_timing": "pre"}, want{"billing_timing": "pre", "billing_timing_effective": "pre"}},
		{map[string]any{"due_date": "2024-08-20", "amount": "2600.00"}, want{"due_day_effective": 20, "current_amount_effective": "2600.00"}},
		{map[string]any{"current_amount": "2700.00"}, want{"current_amount_effective": "2700.00"}},
		{map[string]any{"readjust_active": true, "readjust_indicator": "IPCA"}, want{"readjust_at_effective": "2025-07-01"}},
		{map[string]any{"readjust_with": 6}, want{"readjust_at_effective": "2025-01-01"}},
		{map[string]any{"readjusted_at": "2025-01-01"}, want{"readjust_at_effective": "2025-07-01"}},
		{map[string]any{"readjust_at": "2025-03-01"}, want{"readjust_at_effective": "2025-03-01"}},
		{map[string]any{"transfer_mode": "after_receive"}, want{"transfer_after_days_effective": 0}},
		{map[string]any{"transfer_after_days": 3}, want{"transfer_after_days_effective": 3}},
		{map[string]any{"transfer_mode": "fixed_day", "transfer_after_days": nil}, want{"transfer_after_days_effective": nil}},
	}
	for _, s := range steps {
		r := f.putContract(t, rent, s.update)
		if r.status != http.StatusOK {
			t.Fatalf("PUT %v: %d %s", s.update, r.status, r.raw)
		}
		checkFields(t, fmt.Sprintf("after PUT %v", s.update), r.record(t), s.want)
	}

	// a stored default is not set to null: the rules would read it so anyway
	for _, field := range []string{"modality", "readjust_with", "transfer_mode"} {
		r := f.putContract(t, rent, map[string]any{field: nil})
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{field}) {
			t.Errorf("PUT %s null: %d %s, want 422 naming it", field, r.status, r.raw)
		}
	}
	for _, field := range []string{"billing_timing_effective", "due_day_effective"} {
		r := f.putContract(t, rent, map[string]any{field: nil})
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{field}) {
			t.Errorf("PUT %s: %d %s, want 422 (read-only)", field, r.status, r.raw)
		}
	}

	// a contract item: fixed, and a percentage of the rent, unless told
	item := f.create(t, contractPath(rent, "items"), map[string]any{"item_id": f.condo, "amount": "350.00"})
	checkFields(t, "contract item", f.get(t, contractPath(rent, "items", item), http.StatusOK).record(t), want{
		"calculate_mode": "fixed", "percentage_mode": "rental_value",
	})
}

// TestInvoiceAndEntryDefaultsRead: an invoice without building_id is for
// its contract's building (the posting pays that building's owners), and
// an entry without due_date is due on its date: both read so beside the
// stored null.
func TestInvoiceAndEntryDefaultsRead(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t) // f.contract is of f.building, which f.owner owns
	invoice := f.create(t, "/invoices", f.body(map[string]any{"contract_id": f.contract}))
	rec := f.get(t, fmt.Sprintf("/invoices/%d?include[owners]", invoice), http.StatusOK).record(t)
	checkFields(t, "invoice of a contract", rec, want{"building_id": nil, "building_id_effective": f.building})
	if owners, _ := rec["owners"].([]any); len(owners) != 1 || num(t, owners[0].(map[string]any)["person_id"]) != f.owner {
		t.Errorf("include[owners] of the contract's building: %v", rec["owners"])
	}
	own := f.create(t, "/invoices", f.body(map[string]any{"contract_id": f.contract, "building_id": f.building2}))
	checkFields(t, "invoice of its own building", f.get(t, fmt.Sprintf("/invoices/%d", own), http.StatusOK).record(t),
		want{"building_id_effective": f.building2})
	if ids := f.get(t, fmt.Sprintf("/invoices?filter[building_id_effective]=%d", f.building), http.StatusOK).ids(t); !slices.Equal(ids, []int64{invoice}) {
		t.Errorf("filter[building_id_effective]: %v, want [%d]", ids, invoice)
	}
	if history := f.get(t, fmt.Sprintf("/invoices/%d/history", invoice), http.StatusOK).raw; strings.Contains(history, "_effective") {
		t.Errorf("the history lists a derived field: %s", history)
	}

	entry := f.create(t, "/transactions", map[string]any{"type": "debit", "amount": "80.00", "date": "2024-03-01"})
	checkFields(t, "entry", f.get(t, fmt.Sprintf("/transactions/%d", entry), http.StatusOK).record(t),
		want{"due_date": nil, "due_date_effective": "2024-03-01"})
	due := f.create(t, "/transactions", map[string]any{"type": "debit", "amount": "80.00", "date": "2024-03-01", "due_date": "2024-03-10"})
	checkFields(t, "entry with a due date", f.get(t, fmt.Sprintf("/transactions/%d", due), http.StatusOK).record(t),
		want{"due_date_effective": "2024-03-10"})
}
