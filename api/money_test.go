package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Money in responses (docs/api.md, "Money"): every amount is a JSON number
// written with two decimal places, never a string.

// moneyFields are the names of the fields that hold money in the API's
// answers: records (numeric(14,2) and numeric(16,2) columns), job results
// and batch answers.
var moneyFields = map[string]bool{
	"amount": true, "amount_primary": true, "total": true, "interest": true, "discount": true,
	"paid": true, "expected": true, "difference": true, "guaranteed": true,
	"nominal": true, "surcharge": true, "interest_per_day": true,
	"paid_amount": true, "paid_late_fee": true, "paid_interest": true, "paid_discount": true,
	"ticket_fee": true, "ticket_discount_fixed": true, "commission_fixed": true,
	"old_amount": true, "new_amount": true, "current_amount": true,
	// a termination's answer
	"base": true, "held": true, "deducted": true, "returned": true, "refund_due": true,
}

// percentFields hold the percentages of numeric(5,2) columns: not money,
// numbers with two places too.
var percentFields = map[string]bool{
	"ticket_late_fee_percentage": true, "ticket_late_fee_interest": true, "ticket_discount_percentage": true,
	"fine_percent": true, "interest_monthly_percent": true,
}

// countFields hold counts by name, whatever the names (a return file's
// outcomes: "paid": 2).
var countFields = map[string]bool{"outcomes": true, "progress": true}

var (
	twoPlaces     = regexp.MustCompile(`^-?[0-9]+\.[0-9]{2}$`)
	decimalString = regexp.MustCompile(`^-?[0-9]+\.[0-9]+$`)
)

// moneyWalk walks a decoded answer (json.Number for numbers) and lists the
// paths of the money values it holds and its problems: a money or percent
// field that is not a number with two decimal places (null aside), and
// any string holding a decimal ("250.00") wherever it is, which is money
// (or a rate) written as text. A paid flag (a boolean named paid) is not
// money, nor are the counts of countFields.
type moneyWalk struct {
	found    []string
	problems []string
}

func (w *moneyWalk) walk(path string, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			w.field(join(path, k), k, x[k])
		}
	case []any:
		for i, e := range x {
			w.walk(join(path, strconv.Itoa(i)), e)
		}
	case string:
		if decimalString.MatchString(x) {
			w.problems = append(w.problems, fmt.Sprintf("%s: %q is a decimal written as a string", path, x))
		}
	}
}

func (w *moneyWalk) field(path, key string, v any) {
	if countFields[key] {
		return
	}
	if _, flag := v.(bool); flag || v == nil || !(moneyFields[key] || percentFields[key]) {
		w.walk(path, v)
		return
	}
	n, ok := v.(json.Number)
	switch {
	case !ok:
		w.problems = append(w.problems, fmt.Sprintf("%s: %#v is not a JSON number", path, v))
	case !twoPlaces.MatchString(n.String()):
		w.problems = append(w.problems, fmt.Sprintf("%s: %s is not written with two decimal places", path, n))
	case moneyFields[key]:
		w.found = append(w.found, path)
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// checkMoney fails the test for every problem of an answer's money, and
// unless it holds money at each of the paths want.
func checkMoney(t *testing.T, what string, v any, want ...string) {
	t.Helper()
	var w moneyWalk
	w.walk("", v)
	for _, p := range w.problems {
		t.Errorf("%s: %s", what, p)
	}
	for _, p := range want {
		if !slices.Contains(w.found, p) {
			t.Errorf("%s: no money at %s (money found at %v)", what, p, w.found)
		}
	}
}

// TestMoneyWalkFindsStrings: the walk of TestMoneyInResponses tells the
// representations apart.
func TestMoneyWalkFindsStrings(t *testing.T) {
	t.Parallel()
	decode := func(s string) any {
		var v any
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		json     string
		problems int
	}{
		{`{"total":1000.00,"items":[{"amount":0.50}],"paid":true,"ticket_late_fee_percentage":2.50}`, 0},
		{`{"total":"250.00"}`, 1},
		{`{"total":2350}`, 1},
		{`{"amount":1000.0}`, 1},
		{`{"report":[{"paid":"152.00","expected":150.00}]}`, 1},
		{`{"changes":[{"field":"total","from":"1.00","to":2.00}]}`, 1},
		{`{"amount":null,"message":"paid 1536.00 on 2026-11-23","nosso_numero":"00000000041"}`, 0},
	} {
		var w moneyWalk
		w.walk("", decode(c.json))
		if len(w.problems) != c.problems {
			t.Errorf("%s: problems %q, want %d", c.json, w.problems, c.problems)
		}
	}
}

// TestMoneyInResponses walks representative answers and fails on any
// money that is a string or lacks its two decimal places: records (an
// invoice with its lines, its history, a ledger entry), a batch answer
// (addTransactions: the batch and each payment added), the job results of
// a batch file, of a bank's return file and of an owners' transfer run.
func TestMoneyInResponses(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)

	// records: a contract's invoice with its lines, paid (its owners are
	// paid out two days after), and its history
	f.exec(t, `UPDATE contracts SET transfer_mode = 'after_receive', transfer_after_days = 2 WHERE id = $1`, f.contract)
	inv := f.invoice(t, map[string]any{"type": "contract", "contract_id": f.contract, "date": today(-10), "due_date": today(-5),
		"total": "1000", "items": []any{map[string]any{"item_id": f.rent, "amount": "1000"}}})
	f.pay(t, inv, today(-2))
	rec := f.get(t, fmt.Sprintf("/invoices/%d?include[items]", inv), http.StatusOK).record(t)
	checkMoney(t, "an invoice", rec, "total", "paid_amount", "paid_late_fee", "items.0.amount")
	checkMoney(t, "an invoice's history", f.get(t, fmt.Sprintf("/invoices/%d/history", inv), http.StatusOK).body["data"])

	// a batch answer and a ledger entry
	barcode := boletoBarcode(t, "150.00", 5)
	ted := f.bill(t, f.atBB, "ted", "2500", nil)
	slip := f.bill(t, f.utility, "ticket", "150.00", map[string]any{"ticket_barcode": barcode})
	batch := f.newPaymentBatch(t)
	added := f.payments(t, f.keyA, batch, "addTransactions", ted, slip)
	if added.status != http.StatusOK {
		t.Fatalf("addTransactions: %d %s", added.status, added.raw)
	}
	checkMoney(t, "addTransactions", added.body["data"], "batch.total", "added.0.amount", "added.1.amount")
	checkMoney(t, "a ledger entry", f.get(t, fmt.Sprintf("/transactions/%d", ted), http.StatusOK).record(t), "amount")

	// job results: the file, the bank's return, a transfer run
	file, _, job := f.paymentFile(t, batch)
	checkMoney(t, "batch:file", job["result"], "total")
	paidAt := time.Now().In(saoPaulo(t))
	ret := paymentReturn(t, file, map[string]paidLine{
		ref(ted):  {codes: "00", date: paidAt, amount: 250000},
		ref(slip): {codes: "00", date: paidAt, amount: 15200, interest: 200},
	})
	r := f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, string(ret))
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	done := f.waitJob(t, f.keyA, num(t, r.record(t)["id"]))
	checkMoney(t, "batch:return", done["result"], "report.0.paid", "report.0.expected", "report.0.difference",
		"report.1.paid", "report.1.difference")
	r = f.send(t, http.MethodPost, "/jobs", f.keyA, `{"kind":"contracts:transfer","payload":{"date":"`+today(0)+`"}}`, nil)
	if r.status != http.StatusAccepted {
		t.Fatalf("contracts:transfer: %d %s", r.status, r.raw)
	}
	done = f.waitJob(t, f.keyA, num(t, r.body["data"].(map[string]any)["id"]))
	if res := done["result"].(map[string]any); num(t, res["transfers"]) == 0 {
		t.Errorf("contracts:transfer paid nothing out: %v", done)
	}
	checkMoney(t, "contracts:transfer", done["result"], "guaranteed", "amount")
}

// TestOpenAPIDescribesMoney: the document describes money as it is
// written, a number with two decimal places, in the records' schemas and
// in the answers read from Go types (the generation preview, the
// readjustment).
func TestOpenAPIDescribesMoney(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, raw := fetchDocument(t, e)
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	at := func(path ...string) map[string]any {
		t.Helper()
		node := doc
		for _, step := range path {
			m, _ := node.(map[string]any)
			if step == "[]" {
				node = m["items"]
				continue
			}
			node = m[step]
		}
		m, ok := node.(map[string]any)
		if !ok {
			t.Fatalf("nothing at %v", path)
		}
		return m
	}
	answer := func(path, method string) []string {
		return []string{"paths", path, method, "responses", "200", "content", "application/json", "schema", "properties", "data", "properties"}
	}
	preview := answer("/financial/contracts/{id}/invoicesCreate", "post")
	readjust := answer("/financial/contracts/{id}/readjust", "post")
	for _, c := range []struct {
		name string
		path []string
		want string // in the description
	}{
		{"an invoice's total", []string{"components", "schemas", "invoices", "properties", "total"}, "its 2 decimal places"},
		{"a line's amount", []string{"components", "schemas", "invoice_items", "properties", "amount"}, "its 2 decimal places"},
		{"the preview's total", append(preview, "total"), "Money: a JSON number written with two decimal places"},
		{"a previewed invoice's total", append(preview, "invoices", "[]", "properties", "total"), "Money:"},
		{"a previewed line's amount", append(preview, "invoices", "[]", "properties", "items", "[]", "properties", "amount"), "Money:"},
		{"a previewed discount", append(preview, "invoices", "[]", "properties", "ticket_discount_fixed"), "Money:"},
		{"a previewed rate", append(preview, "invoices", "[]", "properties", "ticket_late_fee_percentage"), "two decimal places"},
		{"a readjusted rent", append(readjust, "readjustments", "[]", "properties", "new_amount"), "Money:"},
	} {
		s := at(c.path...)
		if alts, ok := s["anyOf"].([]any); ok && len(alts) == 2 { // nullable
			s, _ = alts[0].(map[string]any)
		}
		desc, _ := s["description"].(string)
		if s["$ref"] != "#/components/schemas/Decimal2" || s["multipleOf"] != nil || !strings.Contains(desc, c.want) {
			t.Errorf("%s: %v, want Decimal2 without multipleOf, described with %q", c.name, s, c.want)
		}
	}
	decimal := at("components", "schemas", "Decimal2")
	if !slices.Contains(types(decimal["type"]), "number") || decimal["multipleOf"] != nil ||
		!strings.Contains(fmt.Sprint(decimal["description"]), "two decimal places") {
		t.Errorf("Decimal2: %v, want a number of two decimal places without multipleOf", decimal)
	}
}

// types lists a schema's type, one or several.
func types(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = fmt.Sprint(s)
		}
		return out
	}
	return nil
}
