package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/propfin/propfin/jobs"
)

// TestVoidTransferByHandAPI: a company paying its transfers by batch; the
// night writes Ana's 1,290.00 and Bruno's 860.00 unpaid. Ana's in a
// payment batch cannot be voided (409: remove it first); removed, POST
// /transactions/{id}/void voids it: 200 with the transfer, status void,
// the message naming its reversal (a credit of 1,290.00, chargeback,
// dated today, unpaid), Ana owed her 1,290.00 again (her entries of the
// invoice add up to it, and so do those her statements state). The
// same Idempotency-Key answers the first void again; without it, a second
// void is a 409 (void already), and so is the void of a transfer paid by
// hand or of the payment's entry; another company's transfer is a 404.
// The next night pays Ana's released entries out again (1,290.00).
func TestVoidTransferByHandAPI(t *testing.T) {
	t.Parallel()
	f := transferBatchEnvOf(t, jobs.KindsConfig{})
	if r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"transfer_payment": "batch"}); r.status != http.StatusOK {
		t.Fatalf("settings: %d %s", r.status, r.raw)
	}
	inv := f.paidRent(t)
	f.run(t, "contracts:transfer", `{"date":"2024-03-11"}`)
	_, first := f.transfersOf(t, inv)
	ana, bruno := first[f.owner60], first[f.owner40]
	void := func(id int64, key, header string) response {
		t.Helper()
		var h map[string]string
		if header != "" {
			h = map[string]string{"Idempotency-Key": header}
		}
		return f.send(t, http.MethodPost, fmt.Sprintf("/transactions/%d/void", id), key, "", h)
	}

	batch := f.create(t, "/financial/paymentBatch", map[string]any{"description": "Repasses", "account_id": f.account})
	if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ana), "added"); len(refused) != 0 {
		t.Fatalf("adding Ana's transfer: %v", refused)
	}
	if r := void(ana, f.keyA, ""); r.status != http.StatusConflict || !strings.Contains(r.raw, fmt.Sprintf(
		"is in payment batch %d: remove it from the batch first (POST /financial/paymentBatch/%d/removeTransactions); then void it",
		batch, batch)) {
		t.Errorf("the void of a transfer in a batch: %d %s", r.status, r.raw)
	}
	if removed, _ := answer(t, f.payments(t, f.keyA, batch, "removeTransactions", ana), "removed"); len(removed) != 1 {
		t.Fatalf("removing Ana's transfer: %v", removed)
	}

	r := void(ana, f.keyA, "void-ana")
	rec := r.record(t)
	voids := f.voidsOf(t, ana)
	if r.status != http.StatusOK || num(t, rec["id"]) != ana || rec["status"] != "void" || rec["paid"] != false ||
		voids[ana] != "credit chargeback false "+today(0)+" 1290.00" {
		t.Fatalf("the void: %d %s; its reversal %v", r.status, r.raw, voids)
	}
	reversal := num(t, f.get(t, fmt.Sprintf("/transactions?filter[reverses_id]=%d", ana), http.StatusOK).data(t)[0]["id"])
	if r.body["message"] != fmt.Sprintf("Transfer voided: entry %d reverses it.", reversal) {
		t.Errorf("the void's message: %v", r.body["message"])
	}
	if l := f.ownerLedger(t, inv, f.owner60); l != "ledger 1290.00, stated 1290.00" {
		t.Errorf("Ana after the void: %s", l)
	}
	if again := void(ana, f.keyA, "void-ana"); again.status != http.StatusOK || again.raw != r.raw {
		t.Errorf("the void again with its Idempotency-Key: %d %s, want the first answer", again.status, again.raw)
	}
	if again := void(ana, f.keyA, ""); again.status != http.StatusConflict || !strings.Contains(again.raw,
		fmt.Sprintf("Transfer %d is void already: entry %d reverses it.", ana, reversal)) {
		t.Errorf("a second void: %d %s", again.status, again.raw)
	}
	if other := void(bruno, f.keyB, ""); other.status != http.StatusNotFound {
		t.Errorf("another company's transfer: %d %s", other.status, other.raw)
	}
	if r := f.do(t, http.MethodPut, fmt.Sprintf("/transactions/%d", bruno), f.keyA, map[string]any{"paid": true, "date": "2024-03-29"}); r.status != http.StatusOK {
		t.Fatalf("Bruno's transfer paid by hand: %d %s", r.status, r.raw)
	}
	if paid := void(bruno, f.keyA, ""); paid.status != http.StatusConflict || !strings.Contains(paid.raw, "is paid: the money left the account") {
		t.Errorf("the void of a paid transfer: %d %s", paid.status, paid.raw)
	}
	payment := num(t, f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&filter[mode]=invoice&sort=id&perPage=1", inv),
		http.StatusOK).data(t)[0]["id"])
	if entry := void(payment, f.keyA, ""); entry.status != http.StatusConflict || !strings.Contains(entry.raw, "is not an owner's transfer") {
		t.Errorf("the void of a payment's entry: %d %s", entry.status, entry.raw)
	}

	res := f.run(t, "contracts:transfer", `{"date":"2024-03-12"}`)
	if num(t, res["transfers"]) != 1 || res["amount"] != json.Number("1290.00") {
		t.Errorf("the night after the void: %v, want Ana's 1290.00 again", res)
	}
}
