package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// findProblem returns the blocking problem of record and declaration
// field, failing the test without one.
func findProblem(t *testing.T, check map[string]any, record, field string) map[string]any {
	t.Helper()
	if check["blocks"] != true {
		t.Fatalf("the check does not block: %v", check)
	}
	for _, p := range dimobProblems(t, check, "problems") {
		if p["record"] == record && p["declaration_field"] == field && p["severity"] == "blocking" {
			return p
		}
	}
	t.Fatalf("no blocking problem of %s %s in %v", record, field, check["problems"])
	return nil
}

// TestDimobProblems: each blocking problem of the check is reached through
// the API and named by the record to fix (its resource, id, field and
// path): an owner without a valid CPF/CNPJ (none, or check digits stored
// wrong before the API checked them), a tenant without one, an incomplete
// property address, a city without its municipality code, a declarant
// without its responsible person's CPF, a negative amount (an
// administration fee refunded beyond what the month charged). Undone, the
// check is clean again. A job run while a problem blocks ends its run
// blocked, with the preview's problems and no file (409). Company B sees
// none of A's runs and cannot ask for A's business.
func TestDimobProblems(t *testing.T) {
	t.Parallel()
	f := dimobEnv(t)
	f.setPaid(t, f.leaseInvoice(t, f.lease, "2024-01", nil), "2024-01-10", "2024-01-10")
	put := func(path string, body map[string]any) {
		t.Helper()
		if r := f.do(t, http.MethodPut, path, f.keyA, body); r.status != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", path, r.status, r.raw)
		}
	}
	person := func(id int64) string { return fmt.Sprintf("/persons/%d", id) }
	building := fmt.Sprintf("/buildings/%d", f.building)
	business := fmt.Sprintf("/financial/businesses/%d", f.business)
	var refund int64 // July's invoice refunding the administration fee

	for _, c := range []struct {
		name                string
		do, undo            func()
		record, field       string
		resource, fix, path string
		id                  int64
		message             string
	}{
		{"an owner without a CPF or CNPJ",
			func() { put(person(f.ownerB), map[string]any{"tax_id": nil}) },
			func() { put(person(f.ownerB), map[string]any{"tax_id": "11144477735"}) },
			"rentals[1]", "owner.tax_id", "persons", "tax_id", person(f.ownerB), f.ownerB, "required"},
		{"an owner's CPF with wrong check digits, stored before they were checked",
			func() { f.exec(t, `UPDATE persons SET tax_id = '52998224726' WHERE id = $1`, f.ownerA) },
			func() { f.exec(t, `UPDATE persons SET tax_id = '52998224725' WHERE id = $1`, f.ownerA) },
			"rentals[0]", "owner.tax_id", "persons", "tax_id", person(f.ownerA), f.ownerA, "is not a valid CPF or CNPJ"},
		{"a tenant without a CPF or CNPJ",
			func() { put(person(f.tenant), map[string]any{"tax_id": nil}) },
			func() { put(person(f.tenant), map[string]any{"tax_id": "11222333000181"}) },
			"rentals[0]", "tenant.tax_id", "persons", "tax_id", person(f.tenant), f.tenant, "required"},
		{"a property without its street",
			func() { put(building, map[string]any{"street": nil}) },
			func() { put(building, map[string]any{"street": "Rua Augusta"}) },
			"rentals[0]", "property.address", "buildings", "street", building, f.building, "required"},
		{"a property without its CEP",
			func() { put(building, map[string]any{"zip_code": nil}) },
			func() { put(building, map[string]any{"zip_code": "01305000"}) },
			"rentals[1]", "property.cep", "buildings", "zip_code", building, f.building, "is not a CEP"},
		{"a city without its municipality code",
			func() { put(building, map[string]any{"city": "Sao Paolo"}) },
			func() { put(building, map[string]any{"city": "São Paulo"}) },
			"rentals[0]", "property.municipality", "buildings", "city", building, f.building, "municipality not found"},
		{"a declarant without its responsible person's CPF",
			func() { put(business, map[string]any{"responsible_cpf": nil}) },
			func() { put(business, map[string]any{"responsible_cpf": "12345678909"}) },
			"declarant", "responsible_cpf", "businesses", "responsible_cpf", business, f.business, "required"},
		{"a negative amount: July's administration fee refunded",
			func() {
				refund = f.leaseInvoice(t, f.lease, "2024-07", []any{
					map[string]any{"item_id": f.rent, "amount": leaseRent},
					map[string]any{"item_id": f.adminFee, "amount": "-1500.00"}})
				f.setPaid(t, refund, "2024-07-10", "2024-07-10")
			},
			func() { f.setPaid(t, refund, "", "") },
			"rentals[0]", "months[6].commission", "transactions", "amount",
			fmt.Sprintf("/transactions?filter[contract_id]=%d&filter[owner_id]=%d&filter[extract]=owner", f.lease, f.ownerA), 0,
			"is negative"},
	} {
		c.do()
		p := findProblem(t, f.preview(t, 2024), c.record, c.field)
		if p["resource"] != c.resource || p["field"] != c.fix || p["path"] != c.path ||
			(c.id != 0 && num(t, p["id"]) != c.id) || (c.id == 0 && p["id"] != nil) ||
			!strings.Contains(p["message"].(string), c.message) {
			t.Errorf("%s: %v", c.name, p)
		}
		if c.resource != "transactions" {
			r := f.do(t, http.MethodGet, c.path, f.keyA, nil)
			if _, has := r.body["data"].(map[string]any)[c.fix]; r.status != http.StatusOK || !has {
				t.Errorf("%s: the path %s does not read the record: %d", c.name, c.path, r.status)
			}
		}
		if c.record == "declarant" {
			// a run while it blocks: no file, the preview's problems
			_, run := f.run(t, 2024)
			if run["status"] != "blocked" || run["file_name"] != nil {
				t.Errorf("%s: run %v", c.name, run)
			}
			findProblem(t, map[string]any{"blocks": true, "problems": run["problems"]}, c.record, c.field)
			r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/dimob/%v/file", run["id"]), f.keyA, nil)
			if r.status != http.StatusConflict || !strings.Contains(r.raw, "blocking problems") {
				t.Errorf("%s: the file of a blocked run: %d %s", c.name, r.status, r.raw)
			}
		}
		c.undo()
	}
	if check := f.preview(t, 2024); check["blocks"] != false {
		t.Fatalf("every problem undone, the check still blocks: %v", check["problems"])
	}

	// company B: none of A's runs, and not A's business
	_, run := f.run(t, 2024)
	if run["status"] != "written" {
		t.Fatalf("run %v", run)
	}
	runPath := fmt.Sprintf("/financial/dimob/%v", run["id"])
	for _, path := range []string{runPath, runPath + "/file"} {
		if r := f.do(t, http.MethodGet, path, f.keyB, nil); r.status != http.StatusNotFound {
			t.Errorf("B: GET %s: %d %s", path, r.status, r.raw)
		}
	}
	if r := f.do(t, http.MethodGet, "/financial/dimob", f.keyB, nil); r.status != http.StatusOK || len(r.data(t)) != 0 {
		t.Errorf("B's runs: %d %s", r.status, r.raw)
	}
	for _, preview := range []bool{true, false} {
		r := f.do(t, http.MethodPost, "/financial/dimob", f.keyB, f.dimobBody(2024, map[string]any{"preview": preview}))
		if r.status != http.StatusUnprocessableEntity || r.problemFields(t)[0] != "business_id" {
			t.Errorf("B asks for A's business (preview %v): %d %s", preview, r.status, r.raw)
		}
	}
	if got := f.get(t, fmt.Sprintf("/financial/dimob?filter[business_id]=%d&filter[year]=2024&filter[status]=written", f.business),
		http.StatusOK).ids(t); len(got) != 1 || got[0] != num(t, run["id"]) {
		t.Errorf("A's written runs of 2024: %v", got)
	}
}

// TestDimobRequests: what POST /financial/dimob refuses (422 naming the
// field, nothing recorded), a run recorded with its job while no worker
// runs (pending: its file is a 409), the same Idempotency-Key answering
// the same job and run, and the runs listed by business and year.
func TestDimobRequests(t *testing.T) {
	t.Parallel()
	f := &dimobFixture{testEnv: setup(t)}
	f.business = f.create(t, "/financial/businesses", map[string]any{"name": "Matriz", "tax_id": "11444777000161"})
	other := f.createAs(t, f.keyB, "/financial/businesses", map[string]any{"name": "B's"})
	for cpf, message := range map[string]string{"123.456.789-00": "has wrong check digits", "11444777000161": "must be a CPF"} {
		r := f.do(t, http.MethodPost, "/financial/businesses", f.keyA, map[string]any{"name": "Filial", "responsible_cpf": cpf})
		if r.status != http.StatusUnprocessableEntity || r.problemFields(t)[0] != "responsible_cpf" || !strings.Contains(r.raw, message) {
			t.Errorf("responsible_cpf %s: %d %s", cpf, r.status, r.raw)
		}
	}
	next := time.Now().Year() + 1
	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"a year before 2000":             {f.dimobBody(1999, nil), "year"},
		"a year to come":                 {f.dimobBody(next, nil), "year"},
		"a year as text":                 {map[string]any{"business_id": f.business, "year": "2024"}, "year"},
		"no year":                        {map[string]any{"business_id": f.business}, "year"},
		"no business":                    {map[string]any{"year": 2024}, "business_id"},
		"business 0":                     {map[string]any{"business_id": 0, "year": 2024}, "business_id"},
		"another company's business":     {map[string]any{"business_id": other, "year": 2024}, "business_id"},
		"a business that is none":        {map[string]any{"business_id": other + 1000, "year": 2024}, "business_id"},
		"amended without receipt_number": {f.dimobBody(2024, map[string]any{"amended": true}), "receipt_number"},
		"a receipt of letters":           {f.dimobBody(2024, map[string]any{"amended": true, "receipt_number": "12AB"}), "receipt_number"},
		"a receipt of 11 digits":         {f.dimobBody(2024, map[string]any{"amended": true, "receipt_number": "12345678901"}), "receipt_number"},
		"a receipt of a number":          {f.dimobBody(2024, map[string]any{"amended": true, "receipt_number": 123}), "receipt_number"},
		"a receipt on an original":       {f.dimobBody(2024, map[string]any{"receipt_number": "1234567890"}), "receipt_number"},
		"amended not a boolean":          {f.dimobBody(2024, map[string]any{"amended": "yes", "receipt_number": "1"}), "amended"},
		"preview not a boolean":          {f.dimobBody(2024, map[string]any{"preview": 1}), "preview"},
		"an unknown field":               {f.dimobBody(2024, map[string]any{"special": 1}), "special"},
	} {
		for _, preview := range []bool{false, true} {
			body := map[string]any{}
			for k, v := range c.body {
				body[k] = v
			}
			if _, given := body["preview"]; !given && preview {
				body["preview"] = true
			}
			r := f.do(t, http.MethodPost, "/financial/dimob", f.keyA, body)
			if r.status != http.StatusUnprocessableEntity || !contains(r.problemFields(t), c.field) {
				t.Errorf("%s (preview %v): %d %s", name, preview, r.status, r.raw)
			}
		}
	}
	if n, m := f.count(t, "dimob_runs"), f.count(t, "jobs"); n != 0 || m != 0 {
		t.Fatalf("refused requests recorded %d runs and %d jobs", n, m)
	}

	// no worker: the run waits, pending, with its job
	body := `{"business_id":` + fmt.Sprint(f.business) + `,"year":2024,"amended":true,"receipt_number":"0123456789"}`
	first := f.send(t, http.MethodPost, "/financial/dimob", f.keyA, body, map[string]string{"Idempotency-Key": "dimob-2024"})
	again := f.send(t, http.MethodPost, "/financial/dimob", f.keyA, body, map[string]string{"Idempotency-Key": "dimob-2024"})
	if first.status != http.StatusAccepted || again.status != http.StatusAccepted ||
		num(t, first.record(t)["id"]) != num(t, again.record(t)["id"]) || first.record(t)["state"] != "pending" {
		t.Fatalf("the same Idempotency-Key: %d %s / %d %s", first.status, first.raw, again.status, again.raw)
	}
	changed := f.send(t, http.MethodPost, "/financial/dimob", f.keyA, strings.Replace(body, "2024", "2023", 1),
		map[string]string{"Idempotency-Key": "dimob-2024"})
	if changed.status != http.StatusUnprocessableEntity || changed.problemFields(t)[0] != "Idempotency-Key" {
		t.Errorf("the key with another body: %d %s", changed.status, changed.raw)
	}
	runs := f.get(t, fmt.Sprintf("/financial/dimob?filter[business_id]=%d&filter[year]=2024&include[job]", f.business), http.StatusOK).data(t)
	if len(runs) != 1 || runs[0]["status"] != "pending" || runs[0]["amended"] != true || runs[0]["receipt_number"] != "0123456789" ||
		num(t, runs[0]["job_id"]) != num(t, first.record(t)["id"]) || runs[0]["job"].(map[string]any)["kind"] != "dimob:file" {
		t.Fatalf("runs: %v", runs)
	}
	if got := f.get(t, "/financial/dimob?filter[year]=2023", http.StatusOK).data(t); len(got) != 0 {
		t.Errorf("runs of 2023: %v", got)
	}
	r := f.do(t, http.MethodGet, fmt.Sprintf("/financial/dimob/%v/file", runs[0]["id"]), f.keyA, nil)
	if r.status != http.StatusConflict || !strings.Contains(r.raw, "has not finished") {
		t.Errorf("the file of a pending run: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodGet, "/financial/dimob/999999/file", f.keyA, nil); r.status != http.StatusNotFound {
		t.Errorf("the file of no run: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/financial/businesses/%d", f.business), f.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("deleting a business with DIMOB runs: %d %s", r.status, r.raw)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
