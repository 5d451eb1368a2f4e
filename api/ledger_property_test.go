package api

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/shopspring/decimal"
)

// The ledger's property over the operations on invoices (docs/ledger.md,
// "The ledger's property"): random sequences of payments, undone
// payments, partial and whole refunds, write-offs and their undoing,
// agreements made, canceled and broken (their installments paid and
// undone as any invoice), and a lease's termination (its final invoice
// then paid or not as any invoice), through the API on PostgreSQL. After
// each step every split balances, the statements add up to zero, each
// payer's statement is the model's, every invoice's amounts are its
// entries' and its status the model's, and every agreement holds to its
// invoices.
//
// An operation says, from the model, whether it applies (ok): then its
// request must succeed and the model follows (apply); when it does not,
// the request must be refused (409 or 422) and nothing may change.

// invoiceModel is what the property expects of one invoice.
type invoiceModel struct {
	id         int64
	payer      int64
	due        string // the due date: an open invoice is overdue before today
	plain      bool   // one of refundBody's invoices (an agreement's originals)
	paid       bool
	paidCents  int64  // what its standing payments (parts) paid
	parts      int    // its standing payments (a part, or the payment that settles it)
	refunded   int64  // what its refunds gave back, while paid
	writtenOff bool   // uncollectible
	lossCents  int64  // the total written off, while written off
	payments   int    // payments posted so far (the splits' count)
	paidOn     string // the payment's day
	// renegotiated: an original of an active or fulfilled agreement;
	// canceled: an installment of an agreement ended, or an invoice the
	// termination canceled.
	renegotiated, canceled bool
	agreement              *agreementModel // the agreement it is an installment of
}

// agreementModel is what the property expects of one agreement.
type agreementModel struct {
	id           int64
	status       string
	originals    []*invoiceModel
	installments []*invoiceModel
}

// ledgerRun is the state of one run of the property.
type ledgerRun struct {
	f          *termFixture
	r          *rand.Rand
	invoices   []*invoiceModel
	agreements []*agreementModel
	lossItem   bool  // the company books the loss of a write-off
	lease      int64 // the contract the run terminates once
	terminated bool
}

// ledgerOp is an operation on one invoice.
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

// partly says whether inv is partially paid: parts stand, not settled.
func (inv *invoiceModel) partly() bool { return inv.parts > 0 && !inv.paid }

// refundable says whether inv holds a payment a refund may take from.
func (inv *invoiceModel) refundable() bool {
	return (inv.paid || inv.partly()) && !inv.writtenOff && inv.agreement == nil
}

// open says whether inv is owed and nothing else holds it.
func (inv *invoiceModel) open() bool {
	return !inv.paid && !inv.writtenOff && !inv.renegotiated && !inv.canceled
}

// status is the status the model expects inv to show.
func (inv *invoiceModel) status() string {
	switch {
	case inv.canceled:
		return "canceled"
	case inv.renegotiated:
		return "renegotiated"
	case inv.writtenOff:
		return "uncollectible"
	case inv.paid && inv.refunded == inv.paidCents:
		return "refunded"
	case inv.paid:
		return "paid"
	case inv.partly():
		return "partially_paid"
	case inv.due < today(0):
		return "overdue"
	}
	return "unpaid"
}

// centsText is an amount of cents as the API reads it.
func centsText(c int64) string { return decimal.New(c, -2).StringFixed(2) }

// ledgerOps are the operations on one invoice.
var ledgerOps = []ledgerOp{
	{name: "pay",
		skip: func(inv *invoiceModel) bool { return inv.paid || inv.canceled },
		ok:   func(_ *ledgerRun, inv *invoiceModel) bool { return inv.open() },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			inv.paidOn = today(0) // an installment, a final invoice or the rest of a part is paid today
			if inv.plain && inv.parts == 0 {
				inv.paidOn = today(-5 - run.r.IntN(10)) // late or on time: they are due 10 days ago
			}
			return run.f.put(t, inv.id, map[string]any{"paid": true, "paid_at": inv.paidOn})
		},
		apply: func(t *testing.T, _ *ledgerRun, inv *invoiceModel, r response) {
			inv.paid, inv.paidCents = true, cents(t, dec(r.record(t)["paid_amount"]))
			inv.payments++
			inv.parts++
			inv.agreement.follow()
		}},
	{name: "pay a part",
		skip: func(inv *invoiceModel) bool { return !inv.plain || inv.paid },
		ok:   func(_ *ledgerRun, inv *invoiceModel) bool { return inv.open() },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			// at most the balance: late, what is due is more, so a part never settles it
			balance := cents(t, dec(run.f.get(t, fmt.Sprintf("/invoices/%d", inv.id), http.StatusOK).record(t)["balance"]))
			amount := 1 + run.r.Int64N(max(balance, 1))
			inv.paidOn = today(0)
			return run.f.payPart(t, inv.id, map[string]any{"amount": centsText(amount), "paid_at": inv.paidOn})
		},
		apply: func(t *testing.T, _ *ledgerRun, inv *invoiceModel, r response) {
			inv.paidCents = cents(t, dec(r.record(t)["invoice"].(map[string]any)["paid_amount"]))
			inv.payments++
			inv.parts++
		}},
	{name: "undo the latest part",
		skip: func(inv *invoiceModel) bool { return inv.parts == 0 },
		ok: func(_ *ledgerRun, inv *invoiceModel) bool {
			return inv.parts > 0 && !inv.writtenOff && inv.agreement == nil
		},
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			var latest any
			for _, p := range run.f.get(t, fmt.Sprintf("/invoices/%d/payments?sort=-n", inv.id), http.StatusOK).data(t) {
				if p["undone_at"] == nil {
					latest = p["id"]
					break
				}
			}
			return run.f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d/payments/%v", inv.id, latest), run.f.keyA, nil)
		},
		apply: func(t *testing.T, _ *ledgerRun, inv *invoiceModel, r response) {
			inv.paid, inv.refunded = false, 0 // the refunds are undone with it
			inv.paidCents = cents(t, dec(r.record(t)["invoice"].(map[string]any)["paid_amount"]))
			inv.parts--
		}},
	{name: "undo the payment",
		skip: func(inv *invoiceModel) bool { return !inv.paid },
		ok: func(_ *ledgerRun, inv *invoiceModel) bool {
			return inv.paid && (inv.agreement == nil || inv.agreement.status != "broken")
		},
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			return run.f.put(t, inv.id, map[string]any{"paid": false})
		},
		apply: func(_ *testing.T, _ *ledgerRun, inv *invoiceModel, _ response) {
			inv.paid, inv.paidCents, inv.refunded, inv.parts = false, 0, 0, 0
			inv.agreement.follow()
		}},
	{name: "refund part",
		ok: func(_ *ledgerRun, inv *invoiceModel) bool { return inv.refundable() && inv.left() > 1 },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			amount := int64(1)
			if inv.left() > 2 {
				amount = 1 + run.r.Int64N(inv.left()-1)
			}
			return run.f.operate(t, inv.id, "refund", map[string]any{"amount": centsText(amount), "reason": "parte",
				"date": today(0)})
		},
		apply: refunded},
	{name: "refund the rest",
		ok: func(_ *ledgerRun, inv *invoiceModel) bool { return inv.refundable() && inv.left() > 0 },
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
		ok: func(_ *ledgerRun, inv *invoiceModel) bool { return inv.open() && inv.agreement == nil },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			return run.f.operate(t, inv.id, "writeOff", map[string]any{"reason": "incobrável"})
		},
		apply: func(t *testing.T, _ *ledgerRun, inv *invoiceModel, r response) {
			inv.writtenOff = true
			inv.lossCents = cents(t, dec(r.record(t)["amount"])) // the total, or the rest of one partly paid
		}},
	{name: "undo the write-off",
		skip: func(inv *invoiceModel) bool { return !inv.writtenOff },
		ok:   func(_ *ledgerRun, inv *invoiceModel) bool { return inv.writtenOff },
		do: func(t *testing.T, run *ledgerRun, inv *invoiceModel) response {
			return run.f.put(t, inv.id, map[string]any{"status": "unpaid"})
		},
		apply: func(_ *testing.T, _ *ledgerRun, inv *invoiceModel, _ response) {
			inv.writtenOff, inv.lossCents = false, 0
		}},
}

func refunded(t *testing.T, _ *ledgerRun, inv *invoiceModel, r response) {
	inv.refunded = cents(t, dec(r.record(t)["refunded_amount"]))
}

// follow brings an agreement (nil: none) to what its installments say
// once one is paid or its payment undone.
func (a *agreementModel) follow() {
	if a == nil || (a.status != "active" && a.status != "fulfilled") {
		return
	}
	a.status = "fulfilled"
	for _, in := range a.installments {
		if !in.paid {
			a.status = "active"
		}
	}
}

// runOp is an operation of the run as a whole: what it did, whether the
// model let it apply, its answer, and apply (nil when refused).
type runOp func(t *testing.T, run *ledgerRun) (what string, ok bool, r response, apply func())

// agree renegotiates some of the plain invoices, now and then one the
// model refuses (paid, written off or renegotiated), or an installment
// count of zero.
func agree(t *testing.T, run *ledgerRun) (string, bool, response, func()) {
	var chosen []*invoiceModel
	ok := true
	for _, inv := range run.invoices {
		if inv.plain && run.r.IntN(3) == 0 {
			chosen = append(chosen, inv)
			ok = ok && inv.open() && inv.parts == 0 // a partially paid invoice is not renegotiated
		}
	}
	installments := 1 + run.r.IntN(4)
	if run.r.IntN(8) == 0 {
		installments, ok = 0, false
	}
	ids := make([]int64, len(chosen))
	for i, inv := range chosen {
		ids[i] = inv.id
	}
	ok = ok && len(chosen) > 0
	r := run.f.do(t, http.MethodPost, "/financial/agreements", run.f.keyA, map[string]any{"invoices": ids,
		"installments": installments, "first_due_date": today(run.r.IntN(20)), "late_fee_waiver": run.r.IntN(101),
		"interest_waiver": run.r.IntN(101), "discount": fmt.Sprint(run.r.IntN(50))})
	return fmt.Sprintf("agree %v in %d", ids, installments), ok, r, func() {
		rec := r.record(t)
		a := &agreementModel{id: num(t, rec["id"]), status: "active", originals: chosen}
		for i, id := range installmentIDs(t, rec) {
			in := list(t, rec, "installments")[i]
			a.installments = append(a.installments, &invoiceModel{id: id, payer: num(t, in["payer_id"]),
				due: fmt.Sprint(in["due_date"]), agreement: a})
		}
		for _, inv := range chosen {
			inv.renegotiated = true
		}
		run.invoices = append(run.invoices, a.installments...)
		run.agreements = append(run.agreements, a)
	}
}

// endAgreement breaks or cancels an agreement: a cancel applies to an
// active one none of whose installments is paid, a break to any active
// one.
func endAgreement(t *testing.T, run *ledgerRun) (string, bool, response, func()) {
	if len(run.agreements) == 0 {
		return agree(t, run)
	}
	a := run.agreements[run.r.IntN(len(run.agreements))]
	op := []string{"break", "cancel"}[run.r.IntN(2)]
	ok := a.status == "active"
	for _, in := range a.installments {
		ok = ok && (op == "break" || !in.paid)
	}
	r := run.f.do(t, http.MethodPost, fmt.Sprintf("/financial/agreements/%d/%s", a.id, op), run.f.keyA, nil)
	return fmt.Sprintf("%s agreement %d", op, a.id), ok, r, func() {
		a.status = map[string]string{"break": "broken", "cancel": "canceled"}[op]
		for _, in := range a.installments {
			in.canceled = !in.paid
		}
		for _, inv := range a.originals {
			inv.renegotiated = false
		}
	}
}

// terminate terminates the lease once, on one of two days (the end of a
// month, or the middle of one: its rent pro rata); again, it is refused.
// The lease's invoices join the run with the termination: those it
// cancels canceled, the others and its final invoice open.
func terminate(t *testing.T, run *ledgerRun) (string, bool, response, func()) {
	at := []string{"2024-12-31", "2025-01-15"}[run.r.IntN(2)]
	r := run.f.terminate(t, run.lease, run.f.keyA, map[string]any{"termination_at": at, "requester": "tenant"})
	return "terminate on " + at, !run.terminated, r, func() {
		run.terminated = true
		rows := run.f.get(t, fmt.Sprintf("/invoices?filter[contract_id]=%d&sort=id&perPage=100", run.lease), http.StatusOK).data(t)
		for _, rec := range rows {
			run.invoices = append(run.invoices, &invoiceModel{id: num(t, rec["id"]), payer: num(t, rec["payer_id"]),
				due: fmt.Sprint(rec["due_date"]), canceled: rec["status"] == "canceled"})
		}
	}
}

// TestLedgerProperty runs seeded random sequences of the operations over
// three plain invoices (a rent credited to the owner with its
// administration fee, late fee and interest when paid late), the
// agreements made of them and the termination of termEnv's worked lease
// (its invoices generated into 2025), a company booking the loss of its
// write-offs and one that does not. After every step: each split
// balances and the statements add up to zero; each payer's statement is
// what the payments standing brought less their refunds, plus the loss
// booked for a write-off; for each invoice the step touched (and every
// invoice every tenth step and at the end): its payer's entries are the
// model's and its statements add up to zero, a plain invoice's owner and
// business keep what the refunds left, its paid_amount and
// refunded_amount are its entries' and its status the model's; every
// agreement's status is the model's and holds to its invoices; a refused
// operation changed nothing.
func TestLedgerProperty(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			f := termEnv(t)
			run := &ledgerRun{f: f, r: rand.New(rand.NewPCG(seed, 27)), lossItem: seed%2 == 1}
			run.lease = f.lease(t, "2025-02-10", nil)
			if run.lossItem {
				loss := f.item(t, "Perda com inadimplência", "business", "customer", "default")
				if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"write_off_item_id": loss}); r.status != 200 {
					t.Fatalf("setting: %d %s", r.status, r.raw)
				}
			}
			for range 3 {
				run.invoices = append(run.invoices, &invoiceModel{id: f.create(t, "/invoices", f.refundBody(-10)), payer: f.payer,
					due: today(-10), plain: true})
			}
			done := map[string]int{}
			for step := range 100 {
				before := run.digest(t)
				s := run.step(t)
				if s.what == "" {
					continue
				}
				what := fmt.Sprintf("step %d, %s", step, s.what)
				switch r := s.r; {
				case s.ok && (r.status < 200 || r.status > 299):
					t.Fatalf("%s: %d %s", what, r.status, r.raw)
				case s.ok:
					s.apply()
					done[s.kind]++
				case r.status != http.StatusUnprocessableEntity && r.status != http.StatusConflict:
					t.Fatalf("%s: %d %s, want 409 or 422", what, r.status, r.raw)
				case run.digest(t) != before:
					t.Fatalf("%s: refused, and it changed what was stored", what)
				default:
					done["refused"]++
				}
				touched := s.touched
				if touched == nil || step%10 == 9 {
					touched = run.invoices
				}
				run.check(t, what, touched)
				done["steps"]++
			}
			run.check(t, "the end", run.invoices)
			t.Logf("operations applied, by kind, and refused: %v", done)
		})
	}
}

// ledgerStep is one step tried: what it was (""; none), its kind, the
// invoices it may touch (nil: any), whether the model lets it apply, its answer and
// how the model follows a success.
type ledgerStep struct {
	what, kind string
	touched    []*invoiceModel
	ok         bool
	r          response
	apply      func()
}

// step tries one random operation.
func (run *ledgerRun) step(t *testing.T) ledgerStep {
	var op runOp
	kind := ""
	switch n := run.r.IntN(20); {
	case n < 2:
		op, kind = agree, "agree"
	case n < 4:
		op, kind = endAgreement, "end an agreement"
	case n < 5 && (!run.terminated || run.r.IntN(4) == 0):
		op, kind = terminate, "terminate"
	}
	if op != nil {
		what, ok, r, apply := op(t, run)
		return ledgerStep{what: what, kind: kind, ok: ok, r: r, apply: apply} // it may touch any invoice
	}
	o := ledgerOps[run.r.IntN(len(ledgerOps))]
	inv := run.pick(o)
	if o.skip != nil && o.skip(inv) {
		return ledgerStep{}
	}
	ok := o.ok(run, inv)
	r := o.do(t, run, inv)
	return ledgerStep{what: fmt.Sprintf("%s of invoice %d", o.name, inv.id), kind: o.name, touched: []*invoiceModel{inv},
		ok: ok, r: r, apply: func() { o.apply(t, run, inv, r) }}
}

// pick picks an invoice for o: three times in four one it applies to
// (when there is one), else one not canceled, but for one step in ten.
func (run *ledgerRun) pick(o ledgerOp) *invoiceModel {
	var applies, live []*invoiceModel
	for _, inv := range run.invoices {
		if o.ok(run, inv) && (o.skip == nil || !o.skip(inv)) {
			applies = append(applies, inv)
		}
		if !inv.canceled {
			live = append(live, inv)
		}
	}
	switch {
	case len(applies) > 0 && run.r.IntN(4) > 0:
		live = applies
	case len(live) == 0 || run.r.IntN(10) == 0:
		live = run.invoices
	}
	return live[run.r.IntN(len(live))]
}

// digest sums up what a refused operation must leave as it was: the
// entries and history rows written, every invoice's status, payment and
// total, every agreement's status.
func (run *ledgerRun) digest(t *testing.T) string {
	t.Helper()
	var d string
	err := run.f.pool.QueryRow(t.Context(), `SELECT
		(SELECT count(*) FROM transactions WHERE company_id = $1) || ' ' ||
		(SELECT count(*) FROM invoice_history WHERE company_id = $1) || ' ' ||
		(SELECT count(*) FROM invoice_payments WHERE company_id = $1 AND undone_at IS NULL) || ' ' ||
		(SELECT md5(string_agg(id || status || paid || total || coalesce(refunded_amount, 0), ',' ORDER BY id)) FROM invoices WHERE company_id = $1) || ' ' ||
		(SELECT coalesce(string_agg(id || status, ',' ORDER BY id), '') FROM agreements WHERE company_id = $1)`,
		run.f.compA).Scan(&d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// check holds the ledger, the touched invoices and the agreements to the
// model.
func (run *ledgerRun) check(t *testing.T, what string, touched []*invoiceModel) {
	t.Helper()
	f := run.f
	unbalanced := f.scalar(t, `SELECT count(*) FROM (SELECT split FROM transactions WHERE company_id = $1 GROUP BY split
		HAVING sum(CASE type WHEN 'credit' THEN amount ELSE -amount END) <> 0) s`, f.compA)
	if unbalanced != 0 {
		t.Fatalf("%s: %d splits do not balance", what, unbalanced)
	}
	f.ledger(t)
	run.checkPayers(t, what)
	for _, inv := range touched {
		run.checkInvoice(t, what, inv)
	}
	af := &agreementFixture{invoiceFixture: f.invoiceFixture}
	ids := make([]int64, len(run.agreements))
	for i, a := range run.agreements {
		ids[i] = a.id
		if got := af.agreementRecord(t, a.id)["status"]; got != a.status {
			t.Fatalf("%s: agreement %d is %v, want %s", what, a.id, got, a.status)
		}
	}
	af.checkAgreements(t, ids, what)
}

// payerModel is what the model says a payer's statement holds of
// invoices, in cents: less what the payments standing brought, plus what
// their refunds gave back and the losses booked.
func (inv *invoiceModel) payerModel(lossItem bool) int64 {
	c := -(inv.paidCents - inv.refunded)
	if inv.writtenOff && lossItem {
		c += inv.lossCents // the loss: a debit of the total on the business, a credit on the payer
	}
	return c
}

// checkPayers holds each payer's statement of invoice entries to the
// model.
func (run *ledgerRun) checkPayers(t *testing.T, what string) {
	t.Helper()
	want := map[int64]int64{}
	for _, inv := range run.invoices {
		want[inv.payer] += inv.payerModel(run.lossItem)
	}
	rows, err := run.f.pool.Query(t.Context(), `SELECT i.payer_id, sum(CASE t.type WHEN 'credit' THEN t.amount ELSE -t.amount END * 100)::bigint
		FROM transactions t JOIN invoices i ON i.company_id = t.company_id AND i.id = t.invoice_id
		WHERE t.company_id = $1 AND t.extract = 'customer' GROUP BY i.payer_id`, run.f.compA)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[int64]int64{}
	for rows.Next() {
		var payer, c int64
		if err := rows.Scan(&payer, &c); err != nil {
			t.Fatal(err)
		}
		if c != 0 {
			got[payer] = c
		}
	}
	for payer, c := range want {
		if c == 0 {
			delete(want, payer)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: the payers' statements %v, want %v", what, got, want)
	}
}

// checkInvoice holds one invoice's entries, amounts and status to the
// model.
func (run *ledgerRun) checkInvoice(t *testing.T, what string, inv *invoiceModel) {
	t.Helper()
	f := run.f
	b := f.balances(t, inv.id)
	if payer := inv.payerModel(run.lossItem); b["customer"] != payer || b["customer"]+b["owner"]+b["business"] != 0 {
		t.Fatalf("%s: invoice %d's statements %v, want the payer at %d and a sum of zero", what, inv.id, b, payer)
	}
	if inv.plain && inv.paid && (b["owner"] < 0 || b["business"] < 0) {
		t.Fatalf("%s: invoice %d's statements %v: a refund took more than an entry had", what, inv.id, b)
	}
	rec := f.get(t, fmt.Sprintf("/invoices/%d", inv.id), http.StatusOK).record(t)
	standing := f.scalar(t, `SELECT coalesce(sum(CASE type WHEN 'debit' THEN amount ELSE -amount END * 100), 0)::bigint
		FROM transactions t WHERE company_id = $1 AND invoice_id = $2 AND extract = 'customer' AND mode = 'invoice'
		AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)`, f.compA, inv.id)
	refunds := f.scalar(t, `SELECT coalesce(sum(CASE type WHEN 'credit' THEN amount ELSE -amount END * 100), 0)::bigint
		FROM transactions t WHERE company_id = $1 AND invoice_id = $2 AND extract = 'customer' AND refunds_id IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)`, f.compA, inv.id)
	if cents(t, dec(rec["paid_amount"])) != standing || cents(t, dec(rec["refunded_amount"])) != refunds ||
		standing != inv.paidCents || refunds != inv.refunded || rec["status"] != inv.status() {
		t.Fatalf("%s: invoice %d: status %v, paid_amount %v, refunded_amount %v; entries %d and %d; want %s, %d and %d",
			what, inv.id, rec["status"], rec["paid_amount"], rec["refunded_amount"], standing, refunds, inv.status(),
			inv.paidCents, inv.refunded)
	}
	splits := f.scalar(t, `SELECT count(DISTINCT split) FROM transactions WHERE company_id = $1 AND invoice_id = $2
		AND mode = 'invoice'`, f.compA, inv.id)
	if splits != int64(inv.payments) {
		t.Fatalf("%s: invoice %d has %d payments posted, want %d", what, inv.id, splits, inv.payments)
	}
}

// dec reads a JSON amount (null: zero).
func dec(v any) decimal.Decimal {
	if v == nil {
		return decimal.Zero
	}
	return decimal.RequireFromString(fmt.Sprint(v))
}
