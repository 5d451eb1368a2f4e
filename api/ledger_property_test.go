package api

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/shopspring/decimal"
)

// The ledger's property over the operations on invoices (docs/ledger.md,
// "The ledger's property"): random sequences of
// payments, undone payments, partial and whole refunds, write-offs and
// their undoing, through the API on PostgreSQL, after each step of which
// every statement balances and every invoice's amounts are its entries'.
//
// An operation is a row of ledgerOps: when the model says it applies
// (ok), its request must succeed and the model follows (apply); when it
// does not, the request must be refused and nothing may change. A new
// operation on invoices (a termination's final invoice, an agreement's
// installments) joins the property as a row of its own, with the state it
// reads added to invoiceModel.

// invoiceModel is what the property expects of one invoice.
type invoiceModel struct {
	id         int64
	paid       bool
	paidCents  int64  // the payment's settled total, while paid
	refunded   int64  // what its refunds gave back, while paid
	writtenOff bool   // uncollectible
	payments   int    // payments posted so far (the splits' count)
	paidOn     string // the payment's day
}

// ledgerRun is the state of one run of the property.
type ledgerRun struct {
	f        *invoiceFixture
	r        *rand.Rand
	invoices []*invoiceModel
	lossItem bool // the company books the loss of a write-off
}

// ledgerOp is an operation of the property.
type ledgerOp struct {
	name string
	// skip leaves the operation out of a step on inv when trying it would
	// say nothing (paying a paid invoice again is an update of nothing).
	skip func(inv *invoiceModel) bool
	// ok says whether the model lets the operation apply to inv now.
	ok func(run *ledgerRun, inv *invoiceModel) bool
	// do makes the request; apply brings the model to what a success
	// makes it.
	do    func(t *testing.T, run *ledgerRun, inv *invoiceModel) response
	apply func(t *testing.T, run *ledgerRun, inv *invoiceModel, r response)
}

// left is what inv's payment has left to refund, in cents.
func (inv *invoiceModel) left() int64 { return inv.paidCents - inv.refunded }

// centsText is an amount of cents as the API reads it.
func centsText(c int64) string { return decimal.New(c, -2).StringFixed(2) }

// ledgerOps are the operations of the property.
var ledgerOps = []ledgerOp{
	{name: "pay",
		skip: func(inv *invoiceModel) bool { return inv.paid },
		ok:   func(_ *ledgerRun, inv *invoiceModel) bool { return !inv.paid && !inv.writtenOff },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			inv.paidOn = today(-5 - run.r.IntN(10)) // late or on time: the invoices are due 10 days ago
			return run.f.put(t, inv.id, map[string]any{"paid": true, "paid_at": inv.paidOn})
		},
		apply: func(t *testing.T, _ *ledgerRun, inv *invoiceModel, r response) {
			inv.paid, inv.paidCents, inv.refunded = true, cents(t, decimal.RequireFromString(fmt.Sprint(r.record(t)["paid_amount"]))), 0
			inv.payments++
		}},
	{name: "undo the payment",
		skip: func(inv *invoiceModel) bool { return !inv.paid },
		ok:   func(_ *ledgerRun, inv *invoiceModel) bool { return inv.paid },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			return run.f.put(t, inv.id, map[string]any{"paid": false})
		},
		apply: func(_ *testing.T, _ *ledgerRun, inv *invoiceModel, _ response) {
			inv.paid, inv.paidCents, inv.refunded = false, 0, 0
		}},
	{name: "refund part",
		ok: func(_ *ledgerRun, inv *invoiceModel) bool { return inv.paid && inv.left() > 1 },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			amount := int64(1)
			if inv.left() > 2 {
				amount = 1 + run.r.Int64N(inv.left()-1)
			}
			return run.f.operate(t, inv.id, "refund", map[string]any{"amount": centsText(amount), "reason": "parte",
				"date": inv.paidOn})
		},
		apply: refunded},
	{name: "refund the rest",
		ok: func(_ *ledgerRun, inv *invoiceModel) bool { return inv.paid && inv.left() > 0 },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			return run.f.operate(t, inv.id, "refund", map[string]any{"amount": centsText(max(inv.left(), 1)), "reason": "resto"})
		},
		apply: refunded},
	{name: "refund more than is left",
		ok: func(*ledgerRun, *invoiceModel) bool { return false },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			return run.f.operate(t, inv.id, "refund", map[string]any{"amount": centsText(inv.left() + 1), "reason": "demais"})
		}},
	{name: "write off",
		ok: func(_ *ledgerRun, inv *invoiceModel) bool { return !inv.paid && !inv.writtenOff },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			return run.f.operate(t, inv.id, "writeOff", map[string]any{"reason": "incobrável"})
		},
		apply: func(_ *testing.T, _ *ledgerRun, inv *invoiceModel, _ response) { inv.writtenOff = true }},
	{name: "undo the write-off",
		skip: func(inv *invoiceModel) bool { return !inv.writtenOff },
		ok:   func(_ *ledgerRun, inv *invoiceModel) bool { return inv.writtenOff },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			return run.f.put(t, inv.id, map[string]any{"status": "unpaid"})
		},
		apply: func(_ *testing.T, _ *ledgerRun, inv *invoiceModel, _ response) { inv.writtenOff = false }},
}

func refunded(t *testing.T, _ *ledgerRun, inv *invoiceModel, r response) {
	inv.refunded = cents(t, decimal.RequireFromString(fmt.Sprint(r.record(t)["refunded_amount"])))
}

// TestLedgerPropertyInvoiceOperations runs seeded random sequences of
// ledgerOps over three invoices (a rent credited to the owner with its
// administration fee, late fee and interest when paid late), a company
// booking the loss of its write-offs and one that does not. After every
// step: each set of entries written together (a split) balances, so the
// statements add up to zero; the payer's statement is what the payments
// standing brought less their refunds, plus the loss booked for a
// write-off; the owner's and the business's hold the rest; each invoice's
// paid_amount and refunded_amount are its entries' and its status the
// model's; a refused operation wrote nothing.
func TestLedgerPropertyInvoiceOperations(t *testing.T) {
	t.Parallel()
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			run := &ledgerRun{f: invoiceEnv(t), r: rand.New(rand.NewPCG(seed, 27)), lossItem: seed%2 == 1}
			if run.lossItem {
				loss := run.f.item(t, "Perda com inadimplência", "business", "customer", "default")
				if r := run.f.do(t, http.MethodPut, "/financial/settings", run.f.keyA, map[string]any{"write_off_item_id": loss}); r.status != 200 {
					t.Fatalf("setting: %d %s", r.status, r.raw)
				}
			}
			for range 3 {
				run.invoices = append(run.invoices, &invoiceModel{id: run.f.create(t, "/invoices", run.f.refundBody(-10))})
			}
			done := map[string]int{}
			for step := range 100 {
				inv := run.invoices[run.r.IntN(len(run.invoices))]
				op := ledgerOps[run.r.IntN(len(ledgerOps))]
				if op.skip != nil && op.skip(inv) {
					continue
				}
				before := run.f.entryCount(t)
				r := op.do(t, run, inv)
				what := fmt.Sprintf("step %d, %s of invoice %d", step, op.name, inv.id)
				switch ok := op.ok(run, inv); {
				case ok && r.status != http.StatusOK:
					t.Fatalf("%s: %d %s", what, r.status, r.raw)
				case ok:
					op.apply(t, run, inv, r)
					done[op.name]++
				case r.status != http.StatusUnprocessableEntity:
					t.Fatalf("%s: %d %s, want 422", what, r.status, r.raw)
				case run.f.entryCount(t) != before:
					t.Fatalf("%s: refused, and entries were written", what)
				}
				run.check(t, what)
				done["steps"]++
			}
			t.Logf("operations that applied: %v", done)
		})
	}
}

// entryCount counts company A's entries.
func (f *invoiceFixture) entryCount(t *testing.T) int64 {
	t.Helper()
	return f.scalar(t, `SELECT count(*) FROM transactions WHERE company_id = $1`, f.compA)
}

// check holds the ledger and the invoices to the model.
func (run *ledgerRun) check(t *testing.T, what string) {
	t.Helper()
	f := run.f
	var unbalanced int64
	unbalanced = f.scalar(t, `SELECT count(*) FROM (SELECT split FROM transactions WHERE company_id = $1 GROUP BY split
		HAVING sum(CASE type WHEN 'credit' THEN amount ELSE -amount END) <> 0) s`, f.compA)
	if unbalanced != 0 {
		t.Fatalf("%s: %d splits do not balance", what, unbalanced)
	}
	for _, inv := range run.invoices {
		b := f.balances(t, inv.id)
		payer := -(inv.paidCents - inv.refunded)
		if inv.writtenOff && run.lossItem {
			payer += 100000 // the loss: a debit of the total on the business, a credit on the payer
		}
		if b["customer"] != payer || b["customer"]+b["owner"]+b["business"] != 0 {
			t.Fatalf("%s: invoice %d's statements %v, want the payer at %d and a sum of zero", what, inv.id, b, payer)
		}
		if inv.paid && (b["owner"] < 0 || b["business"] < 0) {
			t.Fatalf("%s: invoice %d's statements %v: a refund took more than an entry had", what, inv.id, b)
		}
		rec := f.get(t, fmt.Sprintf("/invoices/%d", inv.id), http.StatusOK).record(t)
		standing := f.scalar(t, `SELECT coalesce(sum(CASE type WHEN 'debit' THEN amount ELSE -amount END * 100), 0)::bigint
			FROM transactions t WHERE company_id = $1 AND invoice_id = $2 AND extract = 'customer' AND mode = 'invoice'
			AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)`, f.compA, inv.id)
		refunds := f.scalar(t, `SELECT coalesce(sum(CASE type WHEN 'credit' THEN amount ELSE -amount END * 100), 0)::bigint
			FROM transactions t WHERE company_id = $1 AND invoice_id = $2 AND extract = 'customer' AND refunds_id IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)`, f.compA, inv.id)
		status := map[bool]string{true: "paid", false: "overdue"}[inv.paid]
		switch {
		case inv.writtenOff:
			status = "uncollectible"
		case inv.paid && inv.refunded == inv.paidCents:
			status = "refunded"
		}
		if cents(t, dec(rec["paid_amount"])) != standing || cents(t, dec(rec["refunded_amount"])) != refunds ||
			standing != inv.paidCents || refunds != inv.refunded || rec["status"] != status {
			t.Fatalf("%s: invoice %d: status %v, paid_amount %v, refunded_amount %v; entries %d and %d; want %s, %d and %d",
				what, inv.id, rec["status"], rec["paid_amount"], rec["refunded_amount"], standing, refunds, status,
				inv.paidCents, inv.refunded)
		}
		splits := f.scalar(t, `SELECT count(DISTINCT split) FROM transactions WHERE company_id = $1 AND invoice_id = $2
			AND mode = 'invoice'`, f.compA, inv.id)
		if splits != int64(inv.payments) {
			t.Fatalf("%s: invoice %d has %d payments posted, want %d", what, inv.id, splits, inv.payments)
		}
	}
}

// dec reads a JSON amount (null: zero).
func dec(v any) decimal.Decimal {
	if v == nil {
		return decimal.Zero
	}
	return decimal.RequireFromString(fmt.Sprint(v))
}
