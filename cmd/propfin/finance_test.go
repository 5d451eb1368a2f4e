package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateFinance = flag.Bool("update-finance", false, "rewrite the finance CLI golden files")

const financeContract = "../../finance/testdata/cli/contract.json"

func runFinanceCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"finance"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestFinanceScheduleGolden(t *testing.T) {
	t.Parallel()
	code, out, errOut := runFinanceCLI(t, "", "schedule", financeContract, "--until", "2024-04-30")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden := filepath.Join("..", "..", "finance", "testdata", "cli", "schedule.golden.json")
	if *updateFinance {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("output differs from %s:\n%s", golden, out)
	}
	var invoices []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &invoices); err != nil {
		t.Fatal(err)
	}
	// January exists already; February to April are new. Money is written
	// as the API writes it: a number with two decimal places, and a
	// setting the contract does not give (its fixed discount) null.
	if len(invoices) != 3 || string(invoices[0]["period_initial"]) != `"2024-02-01"` || string(invoices[0]["total"]) != "1925.00" ||
		string(invoices[0]["ticket_discount_fixed"]) != "null" || string(invoices[0]["ticket_discount_percentage"]) != "5.00" {
		t.Errorf("got %d invoices, first %s", len(invoices), out)
	}
}

func TestFinanceScheduleIsIdempotent(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(financeContract)
	if err != nil {
		t.Fatal(err)
	}
	_, first, _ := runFinanceCLI(t, string(data), "schedule", "--until", "2024-12-31", "-")
	var contract map[string]any
	if err := json.Unmarshal(data, &contract); err != nil {
		t.Fatal(err)
	}
	var generated []any
	if err := json.Unmarshal([]byte(first), &generated); err != nil || len(generated) != 11 {
		t.Fatalf("first run: %d invoices, %v:\n%s", len(generated), err, first)
	}
	contract["invoices"] = append(contract["invoices"].([]any), generated...)
	again, _ := json.Marshal(contract)
	code, out, errOut := runFinanceCLI(t, string(again), "schedule", "-", "--until", "2024-12-31")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("second run: exit %d, %s %s", code, out, errOut)
	}
}

func TestFinanceScheduleNamesEveryProblem(t *testing.T) {
	t.Parallel()
	in := `{"type":"lease","active":"active","amount":"x","start_at":"2024-02-30","due_day":"5","recurrency":"monthly",
		"items":[{"amount":true,"calculate_mode":"ratio","item_id":2}],"invoices":[{"total":"abc"}]}`
	code, out, errOut := runFinanceCLI(t, in, "schedule", "-", "--until", "2024-13-01")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, field := range []string{"type:", "amount:", "start_at:", "due_day:", "due_date:", "items[0].amount:", "items[0].calculate_mode:", "invoices[0].total:", "--until:"} {
		if !strings.Contains(errOut, "\n"+field) && !strings.HasPrefix(errOut, field) {
			t.Errorf("no line for %s in:\n%s", field, errOut)
		}
	}
	if strings.Contains(errOut, "start_at: required") {
		t.Errorf("a malformed field is also reported missing:\n%s", errOut)
	}
}

func TestFinanceScheduleUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", nil, "missing subcommand"},
		{"unknown subcommand", []string{"forecast"}, "unknown subcommand"},
		{"no file", []string{"schedule", "--until", "2024-01-01"}, "want one contract file"},
		{"missing file", []string{"schedule", "nope.json", "--until", "2024-01-01"}, "read contract"},
		{"not JSON", []string{"schedule", "-", "--until", "2024-01-01"}, "contract: not a JSON object"},
		{"no until", []string{"schedule", financeContract}, "--until: required"},
		{"unknown flag", []string{"schedule", financeContract, "--since", "2024-01-01"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		code, _, errOut := runFinanceCLI(t, "[1,2]", tt.args...)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", tt.name, code, errOut, tt.want)
		}
	}
}

func TestFinanceHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"schedule", "-h"}} {
		code, out, errOut := runFinanceCLI(t, "", args...)
		if code != 0 || !strings.Contains(out+errOut, "schedule CONTRACT.json --until YYYY-MM-DD") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
		}
	}
}

func TestFinanceScheduleSuspendedContract(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(financeContract)
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Replace(string(data), `"active": "active"`, `"active": "suspended"`, 1)
	code, out, errOut := runFinanceCLI(t, in, "schedule", "-", "--until", "2024-12-31")
	if code != 0 || strings.TrimSpace(out) != "[]" || !strings.Contains(errOut, "contract not billed: suspended") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func FuzzFinanceSchedule(f *testing.F) {
	data, err := os.ReadFile(financeContract)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data), "2024-12-31")
	f.Add(`{"type":"sale","active":"active","start_at":"2024-01-31","due_date":"2024-01-31","recurrency":"daily","amount":"1e3","recurrency_amount":3}`, "2024-02-29")
	f.Add(`{"items":[{"start_at":null}],"invoices":[{"period_initial":"2024-01-01"}]}`, "x")
	f.Fuzz(func(t *testing.T, contract, until string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"finance", "schedule", "-", "--until", until}, strings.NewReader(contract), &out, &errOut)
		switch code {
		case 0:
			var invoices []map[string]any
			if err := json.Unmarshal(out.Bytes(), &invoices); err != nil {
				t.Fatalf("exit 0 with output that is not a JSON array: %v\n%s", err, out.String())
			}
		case 1:
			if errOut.Len() == 0 {
				t.Fatal("exit 1 with nothing on stderr")
			}
		default:
			t.Fatalf("exit %d", code)
		}
	})
}

// TestFinanceScheduleAdministrationFee: a contract item whose `item` (as
// include[item] gives it) debits owner and credits business is billed,
// whatever its mode, and left out of the total; without its `item` the
// CLI cannot tell, and a commission is not billed.
func TestFinanceScheduleAdministrationFee(t *testing.T) {
	t.Parallel()
	contract := `{"id": 7, "type": "rent", "active": "active", "status": "progress", "tenant_id": 40, "business_id": 1,
		"account_id": 2, "billing_method": "ticket", "start_at": "2024-03-01", "recurrency": "monthly", "modality": "monthly",
		"amount": 2000, "due_date": "2024-03-10", "billing_timing": "pre",
		"items": [{"item_id": 2, "description": "Condomínio", "amount": "350.00"},
			{"mode": "commission", "item_id": 4, "description": "Taxa de administração", "calculate_mode": "percentage",
			 "percentage": 10, "item": {"id": 4, "debit": "owner", "credit": "business", "type": "commission"}}]}`
	for _, c := range []struct {
		name, in, total string
		lines           int
	}{
		{"with its item", contract, "2350.00", 3},
		{"without it", strings.Replace(contract, `, "item": {"id": 4, "debit": "owner", "credit": "business", "type": "commission"}`, "", 1),
			"2350.00", 2},
	} {
		code, out, errOut := runFinanceCLI(t, c.in, "schedule", "-", "--until", "2024-03-10")
		var invoices []struct {
			Total json.Number       `json:"total"`
			Items []json.RawMessage `json:"items"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &invoices) != nil || len(invoices) != 1 ||
			invoices[0].Total.String() != c.total || len(invoices[0].Items) != c.lines {
			t.Errorf("%s: exit %d, %s %s; want one invoice of total %s with %d lines", c.name, code, out, errOut, c.total, c.lines)
		}
	}
}

// TestFinanceScheduleBillingProfile: the invoices are billed by the
// billing profile's method when the contract comes with it (its
// include[billing]), as the server bills them, and by the contract's own
// billing_method (how its owners are paid) without one.
func TestFinanceScheduleBillingProfile(t *testing.T) {
	t.Parallel()
	contract := `{"id": 7, "type": "rent", "active": "active", "status": "progress", "tenant_id": 40, "business_id": 1,
		"account_id": 2, "billing_method": "ted", "start_at": "2024-03-01", "recurrency": "monthly", "modality": "monthly",
		"amount": 2000, "due_date": "2024-03-10", "billing_timing": "pre"BILLING}`
	for _, c := range []struct{ name, billing, want string }{
		{"the profile's", `, "billing": {"id": 3, "name": "Boleto", "billing_method": "ticket"}`, "ticket"},
		{"a profile without a method", `, "billing": {"id": 3, "name": "Sem método", "billing_method": null}`, "ted"},
		{"no profile", `, "billing": null`, "ted"},
		{"none given", ``, "ted"},
	} {
		in := strings.Replace(contract, "BILLING", c.billing, 1)
		code, out, errOut := runFinanceCLI(t, in, "schedule", "-", "--until", "2024-03-10")
		var invoices []struct {
			BillingMethod string `json:"billing_method"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &invoices) != nil || len(invoices) != 1 || invoices[0].BillingMethod != c.want {
			t.Errorf("%s: exit %d, %s %s; want one invoice billed by %s", c.name, code, out, errOut, c.want)
		}
	}
	if code, _, errOut := runFinanceCLI(t, strings.Replace(contract, "BILLING", `, "billing": 3`, 1), "schedule", "-",
		"--until", "2024-03-10"); code != 1 || !strings.Contains(errOut, "billing: want the billing profile") {
		t.Errorf("a billing that is no object: exit %d, %s", code, errOut)
	}
}

// TestFinanceScheduleUnsetSettings: a late-fee or discount setting the
// contract gives null, or does not give, is null on its invoices, as the
// API writes them, not 0.00; one it gives is its own, 0 included; who
// bears the discount is copied, and one that is neither business nor
// owner is a problem named.
func TestFinanceScheduleUnsetSettings(t *testing.T) {
	t.Parallel()
	contract := `{"id": 7, "type": "rent", "active": "active", "status": "progress", "tenant_id": 40, "business_id": 1,
		"account_id": 2, "billing_method": "ticket", "start_at": "2024-03-01", "recurrency": "monthly", "modality": "monthly",
		"amount": 2000, "due_date": "2024-03-10", "billing_timing": "pre", "ticket_late_fee": true,
		"ticket_late_fee_percentage": 2, "ticket_late_fee_interest": null, "ticket_discount": true,
		"ticket_discount_mode": "fixed", "ticket_discount_fixed": "50.00", "ticket_discount_days": 0ACTION}`
	code, out, errOut := runFinanceCLI(t, strings.Replace(contract, "ACTION", `, "ticket_discount_action": "owner"`, 1),
		"schedule", "-", "--until", "2024-03-10")
	var invoices []map[string]json.RawMessage
	if code != 0 || json.Unmarshal([]byte(out), &invoices) != nil || len(invoices) != 1 {
		t.Fatalf("exit %d, %s %s", code, out, errOut)
	}
	for field, want := range map[string]string{"ticket_late_fee_percentage": "2.00", "ticket_late_fee_interest": "null",
		"ticket_discount_fixed": "50.00", "ticket_discount_percentage": "null", "ticket_discount_days": "0",
		"ticket_discount_action": `"owner"`, "ticket_discount_mode": `"fixed"`} {
		if got := string(invoices[0][field]); got != want {
			t.Errorf("%s: %s, want %s", field, got, want)
		}
	}
	code, _, errOut = runFinanceCLI(t, strings.Replace(contract, "ACTION", `, "ticket_discount_action": "tenant"`, 1),
		"schedule", "-", "--until", "2024-03-10")
	if code != 1 || !strings.Contains(errOut, `ticket_discount_action: must be business or owner; got "tenant"`) {
		t.Errorf("a discount borne by the tenant: exit %d, %s", code, errOut)
	}
}
