package api

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// TestGenerationAfterAReadjustment is the defect as found through the
// API: a contract started 2025-11-01 at 1,800.00, readjusted on
// 2026-11-01 (POST /readjust, 1,800.00 → 1,859.13), its invoices then
// generated from its start (invoicesCreate). The preview and the job bill
// the twelve periods before the readjustment 1,800.00 and 2026-11
// 1,859.13: 23,459.13 in all.
func TestGenerationAfterAReadjustment(t *testing.T) {
	t.Parallel()
	f := contractEnv(t, withAdminToken(testAdminToken))
	withWorkers(t, f.testEnv)
	// IVAR (not shipped) from 2025-11 to 2026-10: +3.285 % in 2026-01, 0 otherwise
	var months []any
	for m := 0; m < 12; m++ {
		rate := "0"
		if m == 2 {
			rate = "3.285"
		}
		months = append(months, map[string]any{"indicator": "IVAR", "month": fmt.Sprintf("%d-%02d", 2025+(10+m)/12, (10+m)%12+1), "rate": rate})
	}
	if r := f.do(t, http.MethodPut, "/financial/indices", testAdminToken, map[string]any{"data": months}); r.status != http.StatusOK {
		t.Fatalf("indices: %d %s", r.status, r.raw)
	}
	id := f.newContract(t, map[string]any{"amount": "1800.00", "start_at": "2025-11-01", "due_date": "2025-11-05",
		"due_day": 5, "modality": "monthly", "billing_timing": "pre",
		"readjust_active": true, "readjust_indicator": "IVAR", "readjust_with": 12})
	r := f.readjust(t, id, f.keyA, map[string]any{"date": "2026-11-01"})
	if r.status != http.StatusOK {
		t.Fatalf("readjust: %d %s", r.status, r.raw)
	}
	if a := r.record(t)["readjustments"].([]any)[0].(map[string]any); a["outcome"] != "readjusted" || toJSON(t, a["new_amount"]) != "1859.13" {
		t.Fatalf("readjust: %s", r.raw)
	}

	path := contractPath(id, "invoicesCreate")
	prev := f.do(t, http.MethodPost, path, f.keyA, `{"preview":true,"until":"2026-11-30"}`)
	if prev.status != http.StatusOK {
		t.Fatalf("preview: %d %s", prev.status, prev.raw)
	}
	data := prev.body["data"].(map[string]any)
	var lines []string
	for _, inv := range data["invoices"].([]any) {
		inv := inv.(map[string]any)
		lines = append(lines, fmt.Sprint(inv["period_initial"], " ", toJSON(t, inv["total"])))
	}
	var want []string
	for m := 0; m < 13; m++ {
		amount := "1800.00"
		if m == 12 {
			amount = "1859.13"
		}
		want = append(want, fmt.Sprintf("%d-%02d-01 %s", 2025+(10+m)/12, (10+m)%12+1, amount))
	}
	if !slices.Equal(lines, want) || toJSON(t, data["total"]) != "23459.13" {
		t.Errorf("preview: total %s, invoices\n%v\nwant\n%v", toJSON(t, data["total"]), lines, want)
	}

	run := f.send(t, http.MethodPost, path, f.keyA, `{"until":"2026-11-30"}`, nil)
	if run.status != http.StatusAccepted {
		t.Fatalf("run: %d %s", run.status, run.raw)
	}
	if job := f.waitJob(t, f.keyA, num(t, run.body["data"].(map[string]any)["id"])); job["state"] != "succeeded" {
		t.Fatalf("job: %v", job)
	}
	var stored string
	if err := f.pool.QueryRow(t.Context(), `SELECT count(*) || ' ' || sum(total) FROM invoices
		WHERE company_id = $1 AND contract_id = $2`, f.compA, id).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != "13 23459.13" {
		t.Errorf("stored invoices: %s, want 13 totalling 23459.13", stored)
	}
}
