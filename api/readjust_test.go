package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestIndicesListAndUpsert(t *testing.T) {
	t.Parallel()
	e := setup(t, withAdminToken(testAdminToken))
	r := e.get(t, "/financial/indices?filter[indicator]=IGP-M&filter[month]=2024-01", http.StatusOK)
	rows := r.data(t)
	if len(rows) != 1 || toJSON(t, rows[0]["rate"]) != "0.0700" || rows[0]["month"] != "2024-01" || rows[0]["source"] != "shipped" {
		t.Fatalf("IGP-M 2024-01: %s", r.raw)
	}
	r = e.get(t, "/financial/indices?filter[indicator]=IPCA&filter[month|b]=2024-01|2024-12&perPage=100", http.StatusOK)
	if n := len(r.data(t)); n != 12 {
		t.Errorf("IPCA 2024: %d months", n)
	}

	// Bad rows are named and nothing is stored.
	bad := map[string]any{"data": []any{
		map[string]any{"indicator": "IVAR", "month": "2026-01", "rate": 0.5},
		map[string]any{"indicator": "IVAR", "month": "2026-13", "rate": 0.5},
		map[string]any{"indicator": "IVAR", "month": "2026-02", "rate": "abc"},
		map[string]any{"indicator": "IGPX", "month": "2026-03"},
	}}
	r = e.do(t, http.MethodPut, "/financial/indices", testAdminToken, bad)
	want := []string{"data[1].month", "data[2].rate", "data[3].rate"}
	if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("bad rows: %d %v, want 422 %v", r.status, got, want)
	}
	// a month given twice is named with the bad rows, in one 422
	twice := map[string]any{"data": []any{
		map[string]any{"indicator": "IVAR", "month": "2026-01", "rate": 0.5},
		map[string]any{"indicator": "IVAR", "month": "2026-13", "rate": 0.5},
		map[string]any{"indicator": "IVAR", "month": "2026-01", "rate": 0.6},
	}}
	r = e.do(t, http.MethodPut, "/financial/indices", testAdminToken, twice)
	if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || !slices.Equal(got, []string{"data[1].month", "data[2]"}) ||
		!strings.Contains(r.raw, "is given twice (data[0])") {
		t.Errorf("a bad row and a month twice: %d %s, want 422 data[1].month, data[2]", r.status, r.raw)
	}
	if n := len(e.get(t, "/financial/indices?filter[indicator]=IVAR", http.StatusOK).data(t)); n != 0 {
		t.Errorf("%d IVAR months stored from a refused body", n)
	}

	good := map[string]any{"data": []any{
		map[string]any{"indicator": "IVAR", "month": "2026-01", "rate": 0.5},
		map[string]any{"indicator": "IVAR", "month": "2026-02", "rate": "-0.25"},
		map[string]any{"indicator": "IGP-M", "month": "2024-01", "rate": "0.07"},
	}}
	// the indices are every company's: a company's API key does not write them
	if r := e.do(t, http.MethodPut, "/financial/indices", e.keyA, good); r.status != http.StatusUnauthorized && r.status != http.StatusForbidden {
		t.Errorf("PUT with a company's key: %d %s, want the operator credential asked for", r.status, r.raw)
	}
	r = e.do(t, http.MethodPut, "/financial/indices", testAdminToken, good)
	if d := toJSON(t, r.record(t)); r.status != http.StatusOK || d != `{"inserted":2,"unchanged":1,"updated":0}` {
		t.Fatalf("upsert: %d %s", r.status, r.raw)
	}
	// shared: company B reads what A stored
	rows = e.do(t, http.MethodGet, "/financial/indices?filter[indicator]=IVAR&sort=month", e.keyB, nil).data(t)
	if len(rows) != 2 || toJSON(t, rows[1]["rate"]) != "-0.2500" || rows[1]["source"] != "api" {
		t.Errorf("IVAR: %v", rows)
	}
	if r := e.do(t, http.MethodPost, "/financial/indices", e.keyA, good["data"].([]any)[0]); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /financial/indices: %d, want the read-only 405", r.status)
	}
}

// readjustBody is a rent contract of 2,000.00 readjusted every 12 months
// by indicator from readjustAt.
func (f *contractFixture) readjustContract(t *testing.T, indicator, readjustAt string) int64 {
	t.Helper()
	return f.newContract(t, map[string]any{"amount": "2000.00", "start_at": "2024-01-15", "due_date": "2024-02-05",
		"readjust_active": true, "readjust_indicator": indicator, "readjust_with": 12, "readjust_at": readjustAt})
}

func (f *contractFixture) readjust(t *testing.T, id int64, key string, body map[string]any) response {
	t.Helper()
	return f.do(t, http.MethodPost, contractPath(id, "readjust"), key, body)
}

func TestReadjustContractPreviewAndRun(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	id := f.readjustContract(t, "highest_index", "2025-01-15")
	body := map[string]any{"preview": true, "date": "2025-01-15"}
	preview := f.readjust(t, id, f.keyA, body)
	if preview.status != http.StatusOK {
		t.Fatalf("preview: %d %s", preview.status, preview.raw)
	}
	checkMoney(t, "the preview", preview.record(t), "readjustments.0.old_amount", "readjustments.0.new_amount")
	p := preview.record(t)["readjustments"].([]any)[0].(map[string]any)
	if p["outcome"] != "readjusted" || p["indicator"] != "highest_index" || p["index_used"] != "IGP-M" ||
		toJSON(t, p["old_amount"]) != "2000.00" || toJSON(t, p["new_amount"]) != "2130.72" || toJSON(t, p["variation"]) != "6.5362" ||
		len(p["months"].([]any)) != 12 || p["next_readjust_at"] != "2026-01-15" {
		t.Errorf("preview: %s", preview.raw)
	}
	c := f.get(t, contractPath(id), http.StatusOK).record(t)
	if c["current_amount"] != nil || c["readjust_at"] != "2025-01-15" {
		t.Errorf("the preview stored: %v %v", c["current_amount"], c["readjust_at"])
	}
	if n := len(f.get(t, contractPath(id, "readjustments"), http.StatusOK).data(t)); n != 0 {
		t.Errorf("the preview recorded %d readjustments", n)
	}

	run := f.readjust(t, id, f.keyA, map[string]any{"date": "2025-01-15"})
	if run.status != http.StatusOK {
		t.Fatalf("run: %d %s", run.status, run.raw)
	}
	got := run.record(t)["readjustments"].([]any)[0].(map[string]any)
	for _, k := range []string{"outcome", "indicator", "index_used", "factor", "variation", "old_amount", "new_amount", "next_readjust_at", "months"} {
		if a, b := toJSON(t, p[k]), toJSON(t, got[k]); a != b {
			t.Errorf("%s: preview %s, run %s", k, a, b)
		}
	}
	c = f.get(t, contractPath(id), http.StatusOK).record(t)
	if c["readjust_at"] != "2026-01-15" || c["readjusted_at"] != "2025-01-15" {
		t.Errorf("after the run: %v", c)
	}
	recs := f.get(t, contractPath(id, "readjustments"), http.StatusOK).data(t)
	if len(recs) != 1 || toJSON(t, recs[0]["new_amount"]) != "2130.72" || toJSON(t, recs[0]["factor"]) != toJSON(t, got["factor"]) || recs[0]["index_used"] != "IGP-M" ||
		recs[0]["indicator"] != "highest_index" || recs[0]["actor"] != "user" || recs[0]["outcome"] != "readjusted" {
		t.Errorf("readjustments: %v", recs)
	}
	// a second run on the same date finds nothing due
	again := f.readjust(t, id, f.keyA, map[string]any{"date": "2025-01-15"})
	if o := again.record(t)["readjustments"].([]any)[0].(map[string]any)["outcome"]; o != "not_due" ||
		again.body["message"] != "Not readjusted: not due (readjust_at 2026-01-15, or the contract is not active)." {
		t.Errorf("again: %s", again.raw)
	}
	if run.body["message"] != "Contract readjusted." {
		t.Errorf("the run's message: %v", run.body["message"])
	}
	if r := f.readjust(t, id, f.keyA, map[string]any{"date": "2999-01-01"}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a run in the future: %d", r.status)
	}
	if r := f.readjust(t, id, f.keyA, map[string]any{"preview": "yes", "when": 1}); !slices.Equal(r.problemFields(t), []string{"preview", "when"}) {
		t.Errorf("bad body: %s", r.raw)
	}
	// the body's problems and the run's own in one 422
	if r := f.readjust(t, id, f.keyA, map[string]any{"date": "2999-01-01", "when": 1}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"when", "date"}) || !strings.Contains(r.raw, "must not be after today") {
		t.Errorf("a bad body of a run in the future: %d %s, want when and date", r.status, r.raw)
	}
	if c := f.get(t, contractPath(id), http.StatusOK).record(t); c["readjust_at"] != "2026-01-15" {
		t.Errorf("the refused body changed the contract: %v", c["readjust_at"])
	}
}

func TestReadjustContractWaitsForTheMonth(t *testing.T) {
	t.Parallel()
	f := contractEnv(t, withAdminToken(testAdminToken))
	id := f.readjustContract(t, "IPCA", "2026-02-01")
	r := f.readjust(t, id, f.keyA, map[string]any{"date": "2026-02-03"})
	a := r.record(t)["readjustments"].([]any)[0].(map[string]any)
	if a["outcome"] != "waiting" || toJSON(t, a["missing"]) != `[{"indicator":"IPCA","month":"2026-01"}]` ||
		!strings.HasPrefix(fmt.Sprint(r.body["message"]), "Not readjusted: the index of a month it needs is not published yet") {
		t.Fatalf("waiting: %s", r.raw)
	}
	if s := f.get(t, contractPath(id), http.StatusOK).record(t)["status"]; s != "readjust" {
		t.Errorf("status %v", s)
	}
	f.do(t, http.MethodPut, "/financial/indices", testAdminToken, map[string]any{"data": []any{
		map[string]any{"indicator": "IPCA", "month": "2026-01", "rate": "0.33"}}})
	r = f.readjust(t, id, f.keyA, map[string]any{"date": "2026-02-04"})
	a = r.record(t)["readjustments"].([]any)[0].(map[string]any)
	if a["outcome"] != "readjusted" || a["contract_status"] != "progress" {
		t.Errorf("after the month came: %s", r.raw)
	}
	if s := f.get(t, contractPath(id), http.StatusOK).record(t)["status"]; s != "progress" {
		t.Errorf("status %v", s)
	}
}

func TestReadjustIsolation(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	id := f.readjustContract(t, "IPCA", "2025-01-15")
	if r := f.readjust(t, id, f.keyA, map[string]any{"date": "2025-01-15"}); r.status != http.StatusOK {
		t.Fatalf("run: %d %s", r.status, r.raw)
	}
	for _, req := range []struct {
		method, path string
		body         map[string]any
	}{
		{http.MethodPost, contractPath(id, "readjust"), map[string]any{"preview": true}},
		{http.MethodPost, contractPath(id, "readjust"), nil},
		{http.MethodGet, contractPath(id, "readjustments"), nil},
	} {
		var body any
		if req.body != nil {
			body = req.body
		}
		if r := f.do(t, req.method, req.path, f.keyB, body); r.status != http.StatusNotFound {
			t.Errorf("company B %s %s: %d %s", req.method, req.path, r.status, r.raw)
		}
	}
	recs := f.get(t, contractPath(id, "readjustments"), http.StatusOK).data(t)
	if len(recs) != 1 {
		t.Fatalf("records: %v", recs)
	}
	if r := f.do(t, http.MethodGet, contractPath(id, "readjustments", num(t, recs[0]["id"])), f.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("company B reads a record: %d", r.status)
	}
	if r := f.do(t, http.MethodDelete, contractPath(id, "readjustments", num(t, recs[0]["id"])), f.keyA, nil); r.status != http.StatusMethodNotAllowed {
		t.Errorf("delete a record: %d, want the read-only 405", r.status)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFinanceSettings(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	defaults := `{"agreement_break_days":30,"readjust_allow_reduction":false,"readjust_candidates":["IGP-M","IPCA","INPC"],"reminders_days":[-5,0,3,10],"reminders_enabled":false,"reminders_reply_to":null,"reminders_sender_name":null,"termination_deposit_item_id":null,"termination_fee_item_id":null,"transfer_payment":"at_once","write_off_item_id":null}`
	if r := f.get(t, "/financial/settings", http.StatusOK); toJSON(t, r.record(t)) != defaults {
		t.Fatalf("defaults: %s", r.raw)
	}
	for _, c := range []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"unknown index, not a boolean, unknown field",
			map[string]any{"readjust_candidates": []any{"IPCA", "IGPX"}, "readjust_allow_reduction": "yes", "color": 1},
			[]string{"color", "readjust_allow_reduction", "readjust_candidates"}},
		{"no index", map[string]any{"readjust_candidates": []any{}}, []string{"readjust_candidates"}},
		{"an index twice", map[string]any{"readjust_candidates": []any{"IPCA", "INPC", "IPCA"}}, []string{"readjust_candidates"}},
		{"a rule, not an index", map[string]any{"readjust_candidates": []any{"highest_index"}}, []string{"readjust_candidates"}},
		{"null", map[string]any{"readjust_candidates": nil, "readjust_allow_reduction": nil}, []string{"readjust_allow_reduction", "readjust_candidates"}},
		{"not an array", map[string]any{"readjust_candidates": "IPCA"}, []string{"readjust_candidates"}},
		{"break days out of range", map[string]any{"agreement_break_days": 0}, []string{"agreement_break_days"}},
		{"break days not an integer", map[string]any{"agreement_break_days": "ten", "readjust_allow_reduction": true},
			[]string{"agreement_break_days"}},
		{"transfer payment unknown", map[string]any{"transfer_payment": "monthly"}, []string{"transfer_payment"}},
		{"transfer payment null", map[string]any{"transfer_payment": nil}, []string{"transfer_payment"}},
	} {
		r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), c.fields) {
			t.Errorf("%s: %d %s, want 422 naming %v", c.name, r.status, r.raw, c.fields)
		}
	}
	if r := f.get(t, "/financial/settings", http.StatusOK); toJSON(t, r.record(t)) != defaults {
		t.Fatalf("refused bodies stored something: %s", r.raw)
	}

	// The preview follows the settings: IGP-M accumulated −3.1783% in 2023,
	// and IPC-BR was the lowest of the five shipped indices in 2024.
	falling := f.readjustContract(t, "IGP-M", "2024-01-10")
	lowest := f.readjustContract(t, "lowest_index", "2025-01-15")
	preview := func(id int64, date string) (string, string, string) {
		t.Helper()
		r := f.readjust(t, id, f.keyA, map[string]any{"preview": true, "date": date})
		a := r.record(t)["readjustments"].([]any)[0].(map[string]any)
		used, _ := a["index_used"].(string)
		return a["outcome"].(string), used, toJSON(t, a["new_amount"])
	}
	if o, used, amount := preview(falling, "2024-01-10"); o != "kept" || used != "IGP-M" || amount != "2000.00" {
		t.Errorf("falling index by default: %s %s %s, want kept", o, used, amount)
	}
	if o, used, amount := preview(lowest, "2025-01-15"); o != "readjusted" || used != "INPC" || amount != "2095.36" {
		t.Errorf("lowest_index by default: %s %s %s, want INPC 2095.36", o, used, amount)
	}
	r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"readjust_allow_reduction": true,
		"readjust_candidates": []any{"IGP-M", "IPCA", "INPC", "IPC-BR", "IPC-FIPE"}})
	want := `{"agreement_break_days":30,"readjust_allow_reduction":true,"readjust_candidates":["IGP-M","IPCA","INPC","IPC-BR","IPC-FIPE"],"reminders_days":[-5,0,3,10],"reminders_enabled":false,"reminders_reply_to":null,"reminders_sender_name":null,"termination_deposit_item_id":null,"termination_fee_item_id":null,"transfer_payment":"at_once","write_off_item_id":null}`
	if r.status != http.StatusOK || toJSON(t, r.record(t)) != want {
		t.Fatalf("put: %d %s", r.status, r.raw)
	}
	if o, used, amount := preview(falling, "2024-01-10"); o != "readjusted" || used != "IGP-M" || amount != "1936.43" {
		t.Errorf("falling index with reductions: %s %s %s, want readjusted 1936.43", o, used, amount)
	}
	if o, used, amount := preview(lowest, "2025-01-15"); o != "readjusted" || used != "IPC-BR" || amount != "2079.74" {
		t.Errorf("lowest_index of five: %s %s %s, want IPC-BR 2079.74", o, used, amount)
	}
	// A body changes what it gives and keeps the rest; company B keeps its own.
	r = f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"readjust_allow_reduction": false})
	if want := `{"agreement_break_days":30,"readjust_allow_reduction":false,"readjust_candidates":["IGP-M","IPCA","INPC","IPC-BR","IPC-FIPE"],"reminders_days":[-5,0,3,10],"reminders_enabled":false,"reminders_reply_to":null,"reminders_sender_name":null,"termination_deposit_item_id":null,"termination_fee_item_id":null,"transfer_payment":"at_once","write_off_item_id":null}`; toJSON(t, r.record(t)) != want {
		t.Errorf("partial put: %s", r.raw)
	}
	if r := f.do(t, http.MethodGet, "/financial/settings", f.keyB, nil); toJSON(t, r.record(t)) != defaults {
		t.Errorf("company B: %s", r.raw)
	}
	r = f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"agreement_break_days": 45})
	if want := `{"agreement_break_days":45,"readjust_allow_reduction":false,"readjust_candidates":["IGP-M","IPCA","INPC","IPC-BR","IPC-FIPE"],"reminders_days":[-5,0,3,10],"reminders_enabled":false,"reminders_reply_to":null,"reminders_sender_name":null,"termination_deposit_item_id":null,"termination_fee_item_id":null,"transfer_payment":"at_once","write_off_item_id":null}`; toJSON(t, r.record(t)) != want {
		t.Errorf("break days: %s", r.raw)
	}
	r = f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"transfer_payment": "batch"})
	if r.status != http.StatusOK || r.record(t)["transfer_payment"] != "batch" || r.record(t)["agreement_break_days"] != json.Number("45") {
		t.Errorf("transfer payment: %s", r.raw)
	}
	if r := f.do(t, http.MethodGet, "/financial/settings", f.keyB, nil); toJSON(t, r.record(t)) != defaults {
		t.Errorf("company B after A's transfer payment: %s", r.raw)
	}
}

// TestFinanceSettingsQuery: GET /financial/settings takes no query
// parameters: any but the cache buster `_` is a 422 naming it, as on every
// route that takes some.
func TestFinanceSettingsQuery(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.get(t, "/financial/settings?_=1733130000", http.StatusOK)
	r := e.get(t, "/financial/settings?readjust_candidates=IPCA&fields=x&_=1", http.StatusUnprocessableEntity)
	if got := r.problemFields(t); !slices.Equal(got, []string{"readjust_candidates", "fields"}) {
		t.Errorf("problem fields %v, want the two parameters", got)
	}
}

// TestMonthFilterValuesChecked: a year-month column's filter value in no
// month's form is a 422 naming the filter, not an empty page; a LIKE
// pattern and the month forms are read.
func TestMonthFilterValuesChecked(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, tc := range []struct {
		query  string
		status int
	}{
		{"filter[month]=2024-01", http.StatusOK},
		{"filter[month]=2024-%25", http.StatusOK},
		{"filter[month|ge]=2024-11", http.StatusOK},
		{"filter[month]=2024-1", http.StatusUnprocessableEntity},
		{"filter[month]=2024-13", http.StatusUnprocessableEntity},
		{"filter[month]=2024/01", http.StatusUnprocessableEntity},
		{"filter[month]=2024-01-01", http.StatusUnprocessableEntity},
		{"filter[month|b]=2024-01|2024", http.StatusUnprocessableEntity},
		{"filter[month|ge]=jan", http.StatusUnprocessableEntity},
	} {
		r := e.get(t, "/financial/indices?filter[indicator]=IPCA&"+tc.query, tc.status)
		if tc.status == http.StatusOK {
			if len(r.data(t)) == 0 {
				t.Errorf("%s: no rows", tc.query)
			}
			continue
		}
		key := tc.query[:strings.Index(tc.query, "=")]
		if got := r.problemFields(t); len(got) != 1 || got[0] != key || !strings.Contains(r.raw, "must be a month, YYYY-MM") {
			t.Errorf("%s: %v %s", tc.query, got, r.raw)
		}
	}
}
