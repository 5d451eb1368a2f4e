package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// agreementFixture is docs/finance.md's worked agreement through the API:
// invoiceEnv's company A with three overdue invoices of its payer on the
// building owned by owner (2% late fee, 1% a month interest), due 92, 61
// and 31 days ago, as finance's TestPlanAgreementWorkedExample has them.
type agreementFixture struct {
	*invoiceFixture
	originals []int64 // oldest due first: the worked example's 101, 102, 103
}

func agreementEnv(t *testing.T) *agreementFixture {
	t.Helper()
	f := &agreementFixture{invoiceFixture: invoiceEnv(t)}
	rentOnly := func(days int) int64 {
		return f.invoice(t, map[string]any{"building_id": f.building, "total": "1500.00", "date": today(-days - 10),
			"due_date": today(-days), "ticket_late_fee": true, "ticket_late_fee_percentage": "2", "ticket_late_fee_interest": "1",
			"items": []any{
				map[string]any{"item_id": f.rent, "amount": "1500.00", "description": "Aluguel"},
				map[string]any{"item_id": f.adminFee, "amount": "150.00", "description": "Taxa de administração"},
			}})
	}
	a, b := rentOnly(92), rentOnly(61)
	c := f.invoice(t, map[string]any{"building_id": f.building, "total": "1650.00", "date": today(-41), "due_date": today(-31),
		"ticket_late_fee": true, "ticket_late_fee_percentage": "2", "ticket_late_fee_interest": "1",
		"items": []any{
			map[string]any{"item_id": f.rent, "amount": "1500.00", "description": "Aluguel"},
			map[string]any{"item_id": f.condo, "amount": "150.00", "description": "Condomínio"},
			map[string]any{"item_id": f.adminFee, "amount": "150.00", "description": "Taxa de administração"},
		}})
	f.originals = []int64{a, b, c}
	return f
}

// body is the worked example's request: the invoices newest first, four
// monthly installments from ten days ahead, half the late fee and 30% of
// the interest waived, 61.97 off; overrides applied (nil removes a key).
func (f *agreementFixture) body(overrides map[string]any) map[string]any {
	b := map[string]any{"invoices": []int64{f.originals[2], f.originals[0], f.originals[1]}, "installments": 4,
		"first_due_date": today(10), "interval_months": 1, "late_fee_waiver": 50, "interest_waiver": "30", "discount": "61.97"}
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

// agree posts body with company A's key and expects status.
func (f *agreementFixture) agree(t *testing.T, body map[string]any, status int) response {
	t.Helper()
	r := f.do(t, http.MethodPost, "/financial/agreements", f.keyA, body)
	if r.status != status {
		t.Fatalf("POST /financial/agreements: %d, want %d\n%s", r.status, status, r.raw)
	}
	return r
}

// end posts /financial/agreements/{id}/{op} with company A's key.
func (f *agreementFixture) end(t *testing.T, id int64, op string) response {
	t.Helper()
	return f.do(t, http.MethodPost, fmt.Sprintf("/financial/agreements/%d/%s", id, op), f.keyA, nil)
}

// invoiceRecord reads invoice id with its client lines.
func (f *agreementFixture) invoiceRecord(t *testing.T, id int64) map[string]any {
	t.Helper()
	return f.get(t, fmt.Sprintf("/invoices/%d?include[items]", id), http.StatusOK).record(t)
}

// agreementRecord reads agreement id.
func (f *agreementFixture) agreementRecord(t *testing.T, id int64) map[string]any {
	t.Helper()
	return f.get(t, fmt.Sprintf("/financial/agreements/%d", id), http.StatusOK).record(t)
}

// installmentIDs are the ids of an agreement's installments, first to last.
func installmentIDs(t *testing.T, rec map[string]any) []int64 {
	t.Helper()
	var ids []int64
	for _, v := range rec["installment_ids"].([]any) {
		ids = append(ids, num(t, v))
	}
	return ids
}

// ledger reads every entry of company A and checks that the book is
// balanced: its debits (with the transfers) equal its credits, and every
// statement's sum (credits less debits and transfers) adds up to zero
// with the others. It answers each statement's sum, by "extract id"
// (business: the business's id; any other: the person's).
func (e *testEnv) ledger(t *testing.T) map[string]string {
	t.Helper()
	rows, err := e.pool.Query(t.Context(), `SELECT type, extract, coalesce(CASE WHEN extract = 'business' THEN business_id ELSE person_id END, 0),
			amount::text FROM transactions WHERE company_id = $1`, e.compA)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	sums := map[string]decimal.Decimal{}
	var debits, credits, all decimal.Decimal
	for rows.Next() {
		var typ, extract, amount string
		var holder int64
		if err := rows.Scan(&typ, &extract, &holder, &amount); err != nil {
			t.Fatal(err)
		}
		a := decimal.RequireFromString(amount)
		switch typ {
		case "credit":
			credits = credits.Add(a)
		case "transfer":
			debits, credits = debits.Add(a), credits.Add(a)
			a = a.Neg()
		default:
			debits = debits.Add(a)
			a = a.Neg()
		}
		k := fmt.Sprintf("%s %d", extract, holder)
		sums[k] = sums[k].Add(a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range sums {
		out[k] = v.StringFixed(2)
		all = all.Add(v)
	}
	if !debits.Equal(credits) {
		t.Errorf("the ledger is not balanced: debits %s, credits %s", debits, credits)
	}
	if !all.IsZero() { // no transfer is made here: one would leave the book for the bank account
		t.Errorf("the statements add up to %s, not zero: %v", all, out)
	}
	return out
}

// counts reads how many rows company A has in each table that an
// agreement writes.
func (e *testEnv) counts(t *testing.T) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range []string{"agreements", "invoices", "invoice_items", "invoice_history", "transactions"} {
		out[table] = e.scalar(t, `SELECT count(*) FROM `+table+` WHERE company_id = $1`, e.compA)
	}
	var changed int64
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM invoices WHERE company_id = $1 AND status = 'renegotiated'`,
		e.compA).Scan(&changed); err != nil {
		t.Fatal(err)
	}
	out["renegotiated"] = changed
	return out
}

// without returns rec without the keys.
func without(rec map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range rec {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// TestInstallmentPaidWholeSaysHow: a part of an agreement's installment
// is refused (409) naming the write that pays it whole, billing_method
// included (an invoice's update needs it); that write pays it.
func TestInstallmentPaidWholeSaysHow(t *testing.T) {
	t.Parallel()
	f := agreementEnv(t)
	installment := installmentIDs(t, f.agree(t, f.body(nil), http.StatusCreated).record(t))[0]
	r := f.payPart(t, installment, map[string]any{"amount": "100.00", "paid_at": today(0)})
	want := fmt.Sprintf("(PUT /invoices/%d with paid: true, paid_at and its billing_method)", installment)
	if r.status != http.StatusConflict || !strings.Contains(r.raw, want) {
		t.Fatalf("a part of an installment: %d %s, want 409 saying %q", r.status, r.raw, want)
	}
	f.pay(t, installment, today(0))
}
