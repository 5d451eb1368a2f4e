package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/jobs"
)

// voidsOf lists the voids of the transfers ids (the entries whose
// reverses_id is one), by transfer: "type mode paid date amount".
func (f *transferBatchFixture) voidsOf(t *testing.T, ids ...int64) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	for _, id := range ids {
		data := f.get(t, fmt.Sprintf("/transactions?filter[reverses_id]=%d", id), http.StatusOK).data(t)
		for _, e := range data {
			if num(t, e["transfer_id"]) != id {
				t.Errorf("the void of transfer %d is not paid out by it: %v", id, e)
			}
			out[id] += fmt.Sprintf("%v %v %v %v %v", e["type"], e["mode"], e["paid"], e["date"], e["amount"])
		}
	}
	return out
}

// ownerLedger sums an owner's entries of an invoice read through
// /transactions: all of them (credits less debits and transfers), and
// those the owner's statements state (among transfers and chargebacks,
// the paid ones: an unpaid transfer, its void and the void's reversal are
// on none; a payment's reversals are paid).
func (f *transferBatchFixture) ownerLedger(t *testing.T, inv, owner int64) string {
	t.Helper()
	data := f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&filter[extract]=owner&filter[owner_id]=%d&perPage=100",
		inv, owner), http.StatusOK).data(t)
	var all, stated decimal.Decimal
	for _, e := range data {
		a := decimal.RequireFromString(fmt.Sprint(e["amount"]))
		if e["type"] != "credit" {
			a = a.Neg()
		}
		all = all.Add(a)
		run := e["mode"] == "transfer" || e["mode"] == "chargeback"
		if !run || e["paid"] == true {
			stated = stated.Add(a)
		}
	}
	return fmt.Sprintf("ledger %s, stated %s", all.StringFixed(2), stated.StringFixed(2))
}

// TestUndoVoidsUnpaidTransfersAPI: a company paying its transfers by
// batch. The night writes Ana's 1,290.00 and Bruno's 860.00 unpaid; the
// payment undone then (PUT paid false) voids both: each stays, unpaid,
// with its reversal (a credit of its amount, chargeback, dated the undo's
// day, unpaid), the invoice's auto_transfer_status is null, each owner
// nets 0.00 for the invoice, and March's statements (the undo dated in
// March) close at 0.00 with no transfer. A void transfer cannot be paid by
// hand nor join a batch. Paid again, the night writes new transfers of
// 1,290.00 and 860.00. While Ana's new one is in a payment batch the undo
// is refused (409, naming the batch: remove it first; once the file is
// written: revert it first); reverted, the undo voids both again. The
// bank's return then pays Ana's reverted payment all the same: it is
// recorded (paid on 2024-04-09, the void reversed), Ana owes 1,290.00 (her
// April statement closes at -1,290.00, the transfer its one line of
// transfers), the invoice is a chargeback, and an operator alert names the
// transfer, open.
func TestUndoVoidsUnpaidTransfersAPI(t *testing.T) {
	t.Parallel()
	f := transferBatchEnvOf(t, jobs.KindsConfig{}, withLabelledTokens())
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"transfer_payment": "batch"}); r.status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.status, r.raw)
	}
	inv := f.paidRent(t)
	path := fmt.Sprintf("/invoices/%d", inv)
	f.run(t, "contracts:transfer", `{"date":"2024-03-11"}`)
	got, first := f.transfersOf(t, inv)
	want := map[int64]string{f.owner60: "false 2024-03-11 1290.00", f.owner40: "false 2024-03-11 860.00"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the night's transfers: %v, want %v", got, want)
	}

	r := f.do(t, http.MethodPut, path, f.keyA, map[string]any{"paid": false, "billing_method": "ticket"})
	if r.status != http.StatusOK || r.record(t)["auto_transfer_status"] != nil || r.record(t)["status"] != "overdue" {
		t.Fatalf("undo: %d %s", r.status, r.raw)
	}
	if got, _ := f.transfersOf(t, inv); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the transfers after the undo: %v, want them kept, unpaid", got)
	}
	wantVoids := map[int64]string{
		first[f.owner60]: "credit chargeback false " + today(0) + " 1290.00",
		first[f.owner40]: "credit chargeback false " + today(0) + " 860.00",
	}
	if v := f.voidsOf(t, first[f.owner60], first[f.owner40]); fmt.Sprint(v) != fmt.Sprint(wantVoids) {
		t.Errorf("voids: %v, want %v", v, wantVoids)
	}
	for _, owner := range []int64{f.owner60, f.owner40} {
		if l := f.ownerLedger(t, inv, owner); l != "ledger 0.00, stated 0.00" {
			t.Errorf("owner %d after the undo: %s", owner, l)
		}
	}
	history := f.get(t, path+"/history?sort=-id&perPage=1", http.StatusOK).data(t)
	if len(history) != 1 || history[0]["origin"] != "payment_undone" ||
		!strings.Contains(toJSON(t, history[0]["changes"]), `{"field":"auto_transfer_status","from":"transferred","to":null}`) {
		t.Errorf("the undo's history row: %v", history)
	}

	// the undo dated in March: March's statements close at 0.00
	f.exec(t, `UPDATE transactions SET date = '2024-03-20' WHERE company_id = $1 AND mode = 'chargeback'`, f.compA)
	f.run(t, "owners:statements", `{"month":"2024-03"}`)
	_, ana := f.statementOf(t, f.keyA, f.owner60, "2024-03")
	wantAna := `Ana Proprietária 2024-03: 0.00 -> 0.00; income 0.00, deductions 0.00, guarantee 0.00, transfers 0.00, adjustments 0.00; 6 shown, 0 hidden (0.00)
income 2024-03-11 Aluguel — fatura 1, 03/2024 1200.00
income 2024-03-11 Condomínio — fatura 1, 03/2024 210.00
income 2024-03-20 Estorno: Aluguel — fatura 1, 03/2024 -1200.00
income 2024-03-20 Estorno: Condomínio — fatura 1, 03/2024 -210.00
deductions 2024-03-11 Taxa de administração — fatura 1, 03/2024 -120.00
deductions 2024-03-20 Estorno: Taxa de administração — fatura 1, 03/2024 120.00
`
	if ana != wantAna {
		t.Errorf("Ana's March:\n%s\nwant\n%s", ana, wantAna)
	}
	_, bruno := f.statementOf(t, f.keyA, f.owner40, "2024-03")
	if !strings.HasPrefix(bruno, "Bruno Proprietário 2024-03: 0.00 -> 0.00; income 0.00, deductions 0.00, guarantee 0.00, transfers 0.00") ||
		strings.Contains(bruno, "Repasse") {
		t.Errorf("Bruno's March:\n%s", bruno)
	}

	// a void transfer is not to be paid
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/transactions/%d", first[f.owner40]), f.keyA,
		map[string]any{"paid": true, "date": "2024-03-29"}); r.status != http.StatusConflict || !strings.Contains(r.raw, "void") {
		t.Errorf("a void transfer paid by hand: %d %s", r.status, r.raw)
	}
	batch := f.create(t, "/financial/paymentBatch", map[string]any{"description": "Repasses", "account_id": f.account})
	if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", first[f.owner60]), "added"); !strings.HasPrefix(
		refused[first[f.owner60]], "is void: the payment it paid out was undone") {
		t.Errorf("a void transfer added to a batch: %v", refused)
	}

	// paid again: new transfers of the same amounts
	if r := f.do(t, http.MethodPut, path, f.keyA, map[string]any{"paid": true, "paid_at": "2024-04-05", "billing_method": "ticket",
		"credit_at": "2024-04-08"}); r.status != http.StatusOK || r.record(t)["auto_transfer_status"] != "waiting" {
		t.Fatalf("paid again: %d %s", r.status, r.raw)
	}
	res := f.run(t, "contracts:transfer", `{"date":"2024-04-08"}`)
	if num(t, res["transfers"]) != 2 || res["amount"] != json.Number("2150.00") {
		t.Fatalf("the night after the new payment: %v", res)
	}
	data := f.get(t, fmt.Sprintf("/transactions?filter[mode]=transfer&filter[invoice_id]=%d&filter[date]=2024-04-08&sort=id", inv),
		http.StatusOK).data(t)
	second := map[int64]int64{}
	for _, e := range data {
		second[num(t, e["owner_id"])] = num(t, e["id"])
		if owner, amount := num(t, e["owner_id"]), fmt.Sprint(e["amount"]); e["paid"] != false ||
			(owner == f.owner60) != (amount == "1290.00") || (owner == f.owner40) != (amount == "860.00") {
			t.Errorf("a new transfer: %v", e)
		}
	}
	if len(second) != 2 {
		t.Fatalf("the new transfers: %v", data)
	}
	for _, owner := range []int64{f.owner60, f.owner40} {
		if l := f.ownerLedger(t, inv, owner); l != map[int64]string{f.owner60: "ledger 0.00, stated 1290.00",
			f.owner40: "ledger 0.00, stated 860.00"}[owner] {
			t.Errorf("owner %d after the new transfers: %s", owner, l)
		}
	}

	// Ana's new transfer in the batch: the undo is refused
	if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", second[f.owner60]), "added"); len(refused) != 0 {
		t.Fatalf("adding Ana's new transfer: %v", refused)
	}
	r = f.do(t, http.MethodPut, path, f.keyA, map[string]any{"paid": false, "billing_method": "ticket"})
	if says := fmt.Sprintf("transfer %d (owner %d, 1290.00) is in payment batch %d: remove it from the batch first "+
		"(POST /financial/paymentBatch/%d/removeTransactions)", second[f.owner60], f.owner60, batch, batch); r.status != http.StatusConflict ||
		!strings.Contains(r.raw, says) {
		t.Errorf("undo while the transfer is in an open batch: %d %s\nwant it to say %s", r.status, r.raw, says)
	}
	file, _, _ := f.paymentFile(t, batch)
	r = f.do(t, http.MethodPut, path, f.keyA, map[string]any{"paid": false, "billing_method": "ticket"})
	if says := fmt.Sprintf("is in payment batch %d, whose file is written: revert it there first (POST /financial/paymentBatch/%d/revertTransactions",
		batch, batch); r.status != http.StatusConflict || !strings.Contains(r.raw, says) {
		t.Errorf("undo while the transfer is sent: %d %s\nwant it to say %s", r.status, r.raw, says)
	}
	if got := f.get(t, path, http.StatusOK).record(t); got["paid"] != true || got["auto_transfer_status"] != "transferred" {
		t.Errorf("the invoice after the refusals: %v", got)
	}
	if reverted, refused := answer(t, f.payments(t, f.keyA, batch, "revertTransactions", second[f.owner60]), "reverted"); len(reverted) != 1 ||
		len(refused) != 0 {
		t.Fatalf("reverting Ana's transfer: %v %v", reverted, refused)
	}
	if r := f.do(t, http.MethodPut, path, f.keyA, map[string]any{"paid": false, "billing_method": "ticket"}); r.status != http.StatusOK {
		t.Fatalf("undo once reverted: %d %s", r.status, r.raw)
	}
	if v := f.voidsOf(t, second[f.owner60], second[f.owner40]); len(v) != 2 {
		t.Errorf("the new transfers' voids: %v", v)
	}
	for _, owner := range []int64{f.owner60, f.owner40} {
		if l := f.ownerLedger(t, inv, owner); l != "ledger 0.00, stated 0.00" {
			t.Errorf("owner %d after the second undo: %s", owner, l)
		}
	}

	// the second undo dated in April, after the bank paid
	f.exec(t, `UPDATE transactions SET date = '2024-04-20' WHERE company_id = $1 AND mode = 'chargeback' AND date <> '2024-03-20'`,
		f.compA)

	// the bank pays Ana's reverted payment all the same: recorded, Ana owes it
	paidAt := time.Date(2024, 4, 9, 0, 0, 0, 0, saoPaulo(t))
	ret := paymentReturn(t, file, map[string]paidLine{ref(second[f.owner60]): {codes: "00", date: paidAt, amount: 129000}})
	r = f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, string(ret))
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	done := f.waitJob(t, f.keyA, num(t, r.record(t)["id"]))
	if done["state"] != "succeeded" || fmt.Sprint(done["result"].(map[string]any)["outcomes"]) != "map[paid:1]" ||
		!strings.Contains(toJSON(t, done["result"]), fmt.Sprintf("The bank paid transfer %d (owner %d, 1290.00) on 2024-04-09, "+
			"though it was void", second[f.owner60], f.owner60)) ||
		!strings.Contains(toJSON(t, done["result"]), "The owner owes 1290.00 on the invoice") {
		t.Errorf("batch:return job: %v", done)
	}
	got = map[int64]string{}
	for _, e := range f.get(t, fmt.Sprintf("/transactions?filter[mode]=transfer&filter[invoice_id]=%d&sort=id", inv), http.StatusOK).data(t) {
		got[num(t, e["id"])] = fmt.Sprintf("%v %v %v", e["paid"], e["date"], e["amount"])
	}
	if got[second[f.owner60]] != "true 2024-04-09 1290.00" {
		t.Errorf("Ana's transfer after the return: %v", got)
	}
	reversal := f.get(t, fmt.Sprintf("/transactions?filter[reverses_id]=%d", num(t, f.get(t, fmt.Sprintf(
		"/transactions?filter[reverses_id]=%d", second[f.owner60]), http.StatusOK).data(t)[0]["id"])), http.StatusOK).data(t)
	if len(reversal) != 1 || fmt.Sprintf("%v %v %v %v %v", reversal[0]["type"], reversal[0]["mode"], reversal[0]["paid"],
		reversal[0]["date"], reversal[0]["amount"]) != "debit chargeback false 2024-04-09 1290.00" || reversal[0]["transfer_id"] != nil ||
		reversal[0]["status"] != "void" {
		t.Errorf("the reversal of Ana's void: %v", reversal)
	}
	// nothing of the invoice is due: the transfers the bank did not pay, their voids and the reversal are void
	if due := f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&filter[unpaid]=true", inv), http.StatusOK).ids(t); len(due) != 0 {
		t.Errorf("due after the return: %v", due)
	}
	if l := f.ownerLedger(t, inv, f.owner60); l != "ledger -1290.00, stated -1290.00" {
		t.Errorf("Ana after the return: %s", l)
	}
	if l := f.ownerLedger(t, inv, f.owner40); l != "ledger 0.00, stated 0.00" {
		t.Errorf("Bruno after the return: %s", l)
	}
	// visible: the transfer the bank paid, and nothing of the undone payments or of the voids
	visible := f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&filter[owner_id]=%d&filter[onlyVisible]=true",
		inv, f.owner60), http.StatusOK).ids(t)
	if fmt.Sprint(visible) != fmt.Sprint([]int64{second[f.owner60]}) {
		t.Errorf("Ana's visible entries: %v, want the transfer the bank paid (%d) alone", visible, second[f.owner60])
	}
	if got := f.get(t, path, http.StatusOK).record(t); got["auto_transfer_status"] != "chargeback" {
		t.Errorf("the invoice after the return: %v", got)
	}
	alerts := f.operatorDo(t, http.MethodGet, "/operator/alerts", bearer(anaToken), nil).body["data"].([]any)
	if len(alerts) != 1 || alerts[0].(map[string]any)["kind"] != "void_transfer_paid" || alerts[0].(map[string]any)["open"] != true ||
		num(t, alerts[0].(map[string]any)["transaction_id"]) != second[f.owner60] ||
		!strings.Contains(alerts[0].(map[string]any)["message"].(string), "The owner owes 1290.00 on the invoice") {
		t.Errorf("operator alerts: %v", alerts)
	}
	f.run(t, "owners:statements", `{"month":"2024-04"}`)
	_, ana = f.statementOf(t, f.keyA, f.owner60, "2024-04")
	wantAna = `Ana Proprietária 2024-04: 0.00 -> -1290.00; income 0.00, deductions 0.00, guarantee 0.00, transfers -1290.00, adjustments 0.00; 7 shown, 0 hidden (0.00)
income 2024-04-08 Aluguel — fatura 1, 03/2024 1200.00
income 2024-04-08 Condomínio — fatura 1, 03/2024 210.00
income 2024-04-20 Estorno: Aluguel — fatura 1, 03/2024 -1200.00
income 2024-04-20 Estorno: Condomínio — fatura 1, 03/2024 -210.00
deductions 2024-04-08 Taxa de administração — fatura 1, 03/2024 -120.00
deductions 2024-04-20 Estorno: Taxa de administração — fatura 1, 03/2024 120.00
transfers 2024-04-09 Repasse: Aluguel 03/2024 -1290.00 to Banco 001, agência 3456-7, conta 123456-8
`
	if ana != wantAna {
		t.Errorf("Ana's April:\n%s\nwant\n%s", ana, wantAna)
	}
}

// TestVoidTransfersAreNotDue: the night's unpaid transfers of Ana (1,290.00)
// and Bruno (860.00), voided with the undone payment, and their voids are
// neither paid nor to be paid: their status is void, and the lists of
// what is due (filter[unpaid], filter[overdue], filter[early],
// filter[status]=unpaid) leave them out, while they still list a bill of
// 80.00 due on 2024-03-10; filter[status]=void lists the four, and
// filter[unpaid]=false keeps them with what is paid.
func TestVoidTransfersAreNotDue(t *testing.T) {
	t.Parallel()
	f := transferBatchEnv(t)
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"transfer_payment": "batch"}); r.status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.status, r.raw)
	}
	inv := f.paidRent(t)
	f.run(t, "contracts:transfer", `{"date":"2024-03-11"}`)
	_, first := f.transfersOf(t, inv)
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/invoices/%d", inv), f.keyA, map[string]any{"paid": false, "billing_method": "ticket"}); r.status != http.StatusOK {
		t.Fatalf("undo: %d %s", r.status, r.raw)
	}
	voids := f.voidsOf(t, first[f.owner60], first[f.owner40])
	if len(voids) != 2 {
		t.Fatalf("voids: %v", voids)
	}
	void := []int64{first[f.owner60], first[f.owner40]}
	for _, id := range void[:2] {
		void = append(void, num(t, f.get(t, fmt.Sprintf("/transactions?filter[reverses_id]=%d", id), http.StatusOK).data(t)[0]["id"]))
	}
	slices.Sort(void)
	bill := f.create(t, "/transactions", map[string]any{"type": "debit", "amount": "80.00", "date": "2024-03-01", "due_date": "2024-03-10"})

	all := f.get(t, "/transactions?perPage=100&sort=id", http.StatusOK).data(t)
	status := map[string][]int64{}
	var paid []int64
	for _, e := range all {
		id := num(t, e["id"])
		status[fmt.Sprint(e["status"])] = append(status[fmt.Sprint(e["status"])], id)
		if e["paid"] == true {
			paid = append(paid, id)
		}
	}
	if fmt.Sprint(status["void"]) != fmt.Sprint(void) || fmt.Sprint(status["unpaid"]) != fmt.Sprint([]int64{bill}) ||
		fmt.Sprint(status["paid"]) != fmt.Sprint(paid) || len(status) != 3 {
		t.Errorf("the entries' status: %v; want void %v, unpaid [%d], paid %v", status, void, bill, paid)
	}
	notDue := slices.Sorted(slices.Values(append(slices.Clone(paid), void...)))
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{"filter[unpaid]=true", []int64{bill}},
		{"filter[overdue]=true", []int64{bill}},
		{"filter[early]=true", nil},
		{"filter[status]=unpaid", []int64{bill}},
		{"filter[status]=void", void},
		{"filter[status]=paid", paid},
		{"filter[unpaid]=false", notDue},
		{fmt.Sprintf("filter[invoice_id]=%d&filter[unpaid]=true", inv), nil},
		{fmt.Sprintf("filter[invoice_id]=%d&filter[paid]=false", inv), void}, // the column itself says what is stored
	} {
		if got := f.get(t, "/transactions?perPage=100&sort=id&"+c.query, http.StatusOK).ids(t); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
	if r := f.do(t, http.MethodGet, "/transactions?filter[status]=cancelled", f.keyA, nil); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.raw, "void") {
		t.Errorf("an unknown status: %d %s", r.status, r.raw)
	}
}
