package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/propfin/propfin/cnab/boleto"
)

// TestTicketBatchIsolation: another company's key gets 404 on every route
// of a batch, cannot add the batch's company's invoices to a batch of its
// own, nor create a batch on its account; its return file touches none of
// the other company's titles.
func TestTicketBatchIsolation(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	inv := f.ticketInvoice(t, nil)
	batch := f.newBatch(t)
	if r := f.members(t, batch, "addInvoices", inv); r.status != http.StatusOK {
		t.Fatalf("addInvoices: %d %s", r.status, r.raw)
	}
	base := fmt.Sprintf("/financial/ticketBatch/%d", batch)
	body := map[string]any{"invoices": []int64{inv}}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, base, nil},
		{http.MethodPut, base, map[string]any{"description": "x"}},
		{http.MethodDelete, base, nil},
		{http.MethodPost, base + "/addInvoices", body},
		{http.MethodPost, base + "/removeInvoices", body},
		{http.MethodPost, base + "/revertInvoices", body},
		{http.MethodGet, base + "/downloadBatchFile", nil},
		{http.MethodGet, base + "/invoices", nil},
	} {
		if r := f.do(t, c.method, c.path, f.keyB, c.body); r.status != http.StatusNotFound {
			t.Errorf("%s %s with company B's key: %d %s", c.method, c.path, r.status, r.raw)
		}
	}
	if ids := f.get(t, "/financial/ticketBatch", http.StatusOK).ids(t); len(ids) != 1 {
		t.Errorf("company A's batches: %v", ids)
	}
	if r := f.do(t, http.MethodGet, "/financial/ticketBatch", f.keyB, nil); len(r.data(t)) != 0 {
		t.Errorf("company B lists %s", r.raw)
	}

	// company B's own batch, on its own account: A's invoice is not found,
	// A's account cannot be used
	bizB := f.createAs(t, f.keyB, "/financial/businesses", map[string]any{"name": "B", "tax_id": "11444777000161"})
	accB := f.createAs(t, f.keyB, "/financial/accounts", bradescoAccount(bizB))
	if r := f.do(t, http.MethodPost, "/financial/ticketBatch", f.keyB, map[string]any{"account_id": f.bradesco}); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.raw, `"field":"account_id"`) {
		t.Errorf("company B's batch on A's account: %d %s", r.status, r.raw)
	}
	batchB := f.createAs(t, f.keyB, "/financial/ticketBatch", map[string]any{"account_id": accB})
	r := f.do(t, http.MethodPost, fmt.Sprintf("/financial/ticketBatch/%d/addInvoices", batchB), f.keyB, body)
	if r.status != http.StatusOK || !strings.Contains(r.raw, `"refused":[{"id":`+fmt.Sprint(inv)+`,"reason":"not found"}]`) {
		t.Errorf("company B adds A's invoice: %d %s", r.status, r.raw)
	}

	// A's file, uploaded by B as a return: B has no such titles
	file, _, _ := f.batchFile(t, batch)
	recs := records(t, file, 400)
	d := recs[1]
	ret := bradescoReturn(f.now(t), retTitle{nosso: field(d, 71, 81), digit: field(d, 82, 82), code: "02", date: f.now(t)})
	up := f.do(t, http.MethodPost, "/financial/ticketBatch/returnFile", f.keyB, string(ret))
	if up.status != http.StatusAccepted {
		t.Fatalf("B's upload: %d %s", up.status, up.raw)
	}
	job := f.waitJob(t, f.keyB, num(t, up.record(t)["id"]))
	if out := job["result"].(map[string]any)["outcomes"].(map[string]any); out["unmatched"] != json.Number("1") {
		t.Errorf("B's return: %v", job["result"])
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t); rec["ticket_registered"] != false {
		t.Errorf("A's invoice registered by B's file: %v", rec["ticket_registered"])
	}
	// and A cannot read B's job
	f.get(t, fmt.Sprintf("/jobs/%d", num(t, up.record(t)["id"])), http.StatusNotFound)
}

// createAs creates a record with key; its id.
func (e *testEnv) createAs(t *testing.T, key, path string, body map[string]any) int64 {
	t.Helper()
	r := e.do(t, http.MethodPost, path, key, body)
	if r.status != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, r.status, r.raw)
	}
	return num(t, r.record(t)["id"])
}

// TestTicketBatchBadBodies: malformed bodies are a 422 in the envelope
// naming the field, and add nothing; a batch needs an account that can
// send collection remittances.
func TestTicketBatchBadBodies(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	inv := f.ticketInvoice(t, nil)
	batch := f.newBatch(t)
	path := fmt.Sprintf("/financial/ticketBatch/%d/addInvoices", batch)
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{}`, "invoices"},
		{`{"invoices": "12"}`, "invoices"},
		{`{"invoices": []}`, "invoices"},
		{`{"invoices": [` + fmt.Sprint(inv) + `, "x"]}`, "invoices.1"},
		{`{"invoices": [` + fmt.Sprint(inv) + `, 1.5]}`, "invoices.1"},
		{`{"invoices": [0]}`, "invoices.0"},
		{`{"invoices": [` + fmt.Sprint(inv) + `, ` + fmt.Sprint(inv) + `]}`, "invoices.1"},
		{`{"invoices": [` + fmt.Sprint(inv) + `], "transactions": [1]}`, "transactions"},
		{`[1]`, "body"},
	} {
		r := f.do(t, http.MethodPost, path, f.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || r.body["return"] != false || !hasProblem(r, c.field) {
			t.Errorf("%s: %d %s, want 422 naming %s", c.body, r.status, r.raw, c.field)
		}
	}
	if titles := num(t, f.get(t, "/financial/ticketBatch/"+fmt.Sprint(batch), http.StatusOK).record(t)["titles"]); titles != 0 {
		t.Errorf("a refused body added %d invoices", titles)
	}
	noLayout := f.create(t, "/financial/accounts", map[string]any{"business_id": f.biz, "bank": "237"})
	// accounts the account rules refuse, as stored before they did: a
	// batch of one is still refused
	badBank := f.storedAccount(t, map[string]any{"bank": "999", "layout": "cnab400"})
	caixa400 := f.storedAccount(t, map[string]any{"bank": "104", "layout": "cnab400"})
	bare240 := f.storedAccount(t, map[string]any{"bank": "237", "layout": "cnab240"})
	for name, body := range map[string]map[string]any{
		"no account":      {"description": "x"},
		"another's":       {"account_id": 999999},
		"no layout":       {"account_id": noLayout},
		"unknown bank":    {"account_id": badBank},
		"Caixa in 400":    {"account_id": caixa400},
		"no agreement":    {"account_id": bare240},
		"account changed": {"account_id": f.bradesco, "status": "closed"},
	} {
		field := "account_id"
		if name == "account changed" {
			field = "status"
		}
		r := f.do(t, http.MethodPost, "/financial/ticketBatch", f.keyA, body)
		if r.status != http.StatusUnprocessableEntity || !hasProblem(r, field) {
			t.Errorf("%s: %d %s, want 422 naming %s", name, r.status, r.raw, field)
		}
	}
	if r := f.do(t, http.MethodPut, "/financial/ticketBatch/"+fmt.Sprint(batch), f.keyA, map[string]any{"account_id": f.account}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("changing a batch's account: %d %s", r.status, r.raw)
	}
	// an account whose agreement became incomplete (behind the API's
	// back) refuses the invoices, naming the account
	partial := f.create(t, "/financial/accounts", bradescoAccount(f.biz))
	b2 := f.create(t, "/financial/ticketBatch", map[string]any{"account_id": partial})
	inv2 := f.ticketInvoice(t, map[string]any{"account_id": partial})
	f.exec(t, `UPDATE accounts SET agency = NULL WHERE id = $1`, partial)
	if r := f.members(t, b2, "addInvoices", inv2); r.status != http.StatusUnprocessableEntity || !hasProblem(r, "account_id") {
		t.Errorf("an account without agency: %d %s", r.status, r.raw)
	}
	// a payer without an address: refused by the bank's layout, with its words
	bare := f.ticketInvoice(t, map[string]any{"payer_id": f.payer})
	r := f.members(t, batch, "addInvoices", bare)
	if r.status != http.StatusOK || !strings.Contains(r.raw, "payer.address: required") {
		t.Errorf("a payer without address: %d %s", r.status, r.raw)
	}
}

// TestTicketBatchRefusesWhatCannotBePaid: addInvoices refuses, with its
// reason, an invoice already due (a bank refuses a title already due; it
// is added once its due date is moved) and one that could never be paid
// (an owner line nobody can be booked to: its building's owners went
// after it was written); an invoice due today is added.
func TestTicketBatchRefusesWhatCannotBePaid(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	overdue := f.ticketInvoice(t, map[string]any{"date": today(-20), "due_date": today(-1)})
	dueToday := f.ticketInvoice(t, map[string]any{"date": today(-5), "due_date": today(0)})
	sold := f.create(t, "/buildings", map[string]any{"title": "Vendido"})
	share := f.create(t, fmt.Sprintf("/buildings/%d/owners", sold), map[string]any{"person_id": f.owner, "percentage": "100"})
	ownerless := f.ticketInvoice(t, map[string]any{"building_id": sold, "items": lines(f.rent, "1000.00")})
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/buildings/%d/owners/%d", sold, share), f.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete the building's owner: %d %s", r.status, r.raw)
	}
	batch := f.newBatch(t)
	added, refused := answer(t, f.members(t, batch, "addInvoices", overdue, dueToday, ownerless), "added")
	if len(added) != 1 || added[dueToday] == nil {
		t.Errorf("added %v, want the invoice due today", added)
	}
	for id, words := range map[int64][]string{
		overdue:   {"is overdue (due " + today(-1) + ")", "a bank refuses a title already due", "move its due_date"},
		ownerless: {"could never be paid", "items.0.owner_id", fmt.Sprintf("building %d has no owners", sold)},
	} {
		for _, w := range words {
			if !strings.Contains(refused[id], w) {
				t.Errorf("refusal of %d: %q, want …%s…", id, refused[id], w)
			}
		}
	}
	if r := f.put(t, overdue, map[string]any{"due_date": today(7)}); r.status != http.StatusOK {
		t.Fatalf("move the due date: %d %s", r.status, r.raw)
	}
	if added, _ := answer(t, f.members(t, batch, "addInvoices", overdue), "added"); added[overdue] == nil {
		t.Errorf("the invoice due again: not added")
	}
}

// TestAccountRemittanceChecks: a bank account is checked when it is
// written, as its batches would check it later: its bank is a bank's code
// (the Banco Central's list), and an account with a layout can send the
// remittances of a collection batch (a pair written here, with what the
// layout requires) or of a payment batch; otherwise the write is a 422
// naming what to fix.
func TestAccountRemittanceChecks(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	with := func(over map[string]any) map[string]any {
		b := bradescoAccount(f.biz)
		for k, v := range over {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	refused := []struct {
		name   string
		body   map[string]any
		fields []string
		words  string
	}{
		{"a bank that is none", map[string]any{"business_id": f.biz, "bank": "999"}, []string{"bank"}, "999 is not the code of a bank"},
		{"a bank that is none, with a layout", with(map[string]any{"bank": "999"}), []string{"bank"}, "999 is not the code of a bank"},
		{"Caixa in cnab400", map[string]any{"business_id": f.biz, "bank": "104", "layout": "cnab400", "agency": "1234",
			"agency_digit": "5", "covenant": "123456"}, []string{"layout"}, "bank 104 takes collection remittances in cnab240, not cnab400"},
		{"a bank without remittances here", with(map[string]any{"bank": "260", "layout": "cnab240"}), []string{"bank"},
			"bank 260 has no collection remittance layout here"},
		{"a layout without a bank", with(map[string]any{"bank": nil}), []string{"bank"}, "needs its bank"},
		{"Bradesco 400 without its agreement", map[string]any{"business_id": f.biz, "bank": "237", "layout": "cnab400"},
			[]string{"agency", "account", "account_digit", "wallet", "covenant"}, "bank 237's collection remittances in cnab400"},
		{"Bradesco 400 without a wallet", with(map[string]any{"wallet": " "}), []string{"wallet"}, "required"},
	}
	for _, c := range refused {
		r := f.do(t, http.MethodPost, "/financial/accounts", f.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || r.body["return"] != false ||
			!slices.Equal(r.problemFields(t), c.fields) || !strings.Contains(r.raw, c.words) {
			t.Errorf("%s: %d %s, want 422 naming %v", c.name, r.status, r.raw, c.fields)
		}
	}
	for name, body := range map[string]map[string]any{
		"a bank alone":         {"business_id": f.biz, "bank": "260"},
		"no bank":              {"business_id": f.biz},
		"a collection account": bradescoAccount(f.biz),
		"a payment account":    bradescoPaymentAccount(f.biz),
	} {
		if r := f.do(t, http.MethodPost, "/financial/accounts", f.keyA, body); r.status != http.StatusCreated {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
	if r := f.do(t, http.MethodPost, "/persons", f.keyA, map[string]any{"name": "X", "bank": "999"}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"bank"}) {
		t.Errorf("a person at bank 999: %d %s", r.status, r.raw)
	}

	// updates are checked against the account as the write leaves it
	path := fmt.Sprintf("/financial/accounts/%d", f.bradesco)
	for _, c := range []struct {
		body   map[string]any
		status int
		fields []string
	}{
		{map[string]any{"covenant": nil}, http.StatusUnprocessableEntity, []string{"covenant"}},
		{map[string]any{"bank": "104"}, http.StatusUnprocessableEntity, []string{"layout"}},
		{map[string]any{"bank": "998"}, http.StatusUnprocessableEntity, []string{"bank"}},
		{map[string]any{"layout": "cnab240"}, http.StatusOK, nil}, // Bradesco 240 needs what the account has
		{map[string]any{"description": "cobrança"}, http.StatusOK, nil},
	} {
		r := f.do(t, http.MethodPut, path, f.keyA, c.body)
		if r.status != c.status || (c.fields != nil && !slices.Equal(r.problemFields(t), c.fields)) {
			t.Errorf("PUT %v: %d %s, want %d naming %v", c.body, r.status, r.raw, c.status, c.fields)
		}
	}
	// an account stored before the rules may still be renamed, not left as it is when its terms change
	legacy := fmt.Sprintf("/financial/accounts/%d", f.storedAccount(t, map[string]any{"bank": "104", "layout": "cnab400"}))
	if r := f.do(t, http.MethodPut, legacy, f.keyA, map[string]any{"description": "antiga"}); r.status != http.StatusOK {
		t.Errorf("renaming a stored account: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPut, legacy, f.keyA, map[string]any{"agency": "1234"}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"layout"}) {
		t.Errorf("changing a stored account's terms: %d %s", r.status, r.raw)
	}
}

// storedAccount inserts an account of company A's business with the
// columns given, as the database takes it (the API's rules aside).
func (f *batchFixture) storedAccount(t *testing.T, cols map[string]any) int64 {
	t.Helper()
	return f.scalar(t, `INSERT INTO accounts (company_id, business_id, bank, layout) VALUES ($1, $2, $3, $4) RETURNING id`,
		f.compA, f.biz, cols["bank"], cols["layout"])
}

// hasProblem reports whether a 422 names field.
func hasProblem(r response, field string) bool {
	errs, _ := r.body["errors"].([]any)
	for _, e := range errs {
		if m, ok := e.(map[string]any); ok && m["field"] == field {
			return true
		}
	}
	return false
}

// TestTicketBatchRemoveRevertDelete: invoices removed before the file get
// their slips cleared and new numbers when added again; after the file
// they are reverted (back to unsent, free for another batch, whose file
// asks the bank to drop the title sent first); each operation is
// refused in the wrong state; an invoice in a batch keeps its amount and
// due date; an open batch is deleted with its invoices freed, a closed one
// is kept.
func TestTicketBatchRemoveRevertDelete(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	a, b, c := f.ticketInvoice(t, nil), f.ticketInvoice(t, nil), f.ticketInvoice(t, nil)
	batch := f.newBatch(t)
	first := addedNumbers(t, f.members(t, batch, "addInvoices", a, b, c))
	if r := f.put(t, a, map[string]any{"total": "900.00"}); r.status != http.StatusConflict ||
		!strings.Contains(r.raw, "removeInvoices") {
		t.Errorf("changing the total of an invoice in a batch: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/invoices/%d", a), f.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("deleting an invoice in a batch: %d %s", r.status, r.raw)
	}
	if r := f.members(t, batch, "revertInvoices", a); r.status != http.StatusConflict {
		t.Errorf("revert before the file: %d %s", r.status, r.raw)
	}
	r := f.members(t, batch, "removeInvoices", a, 999999)
	if r.status != http.StatusOK || r.body["message"] != "1 of 2 invoices removed." ||
		!strings.Contains(r.raw, `{"id":999999,"reason":"is not in this batch"}`) {
		t.Fatalf("removeInvoices: %d %s", r.status, r.raw)
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", a), http.StatusOK).record(t); rec["ticket_barcode"] != nil || rec["ticket_digitable"] != nil {
		t.Errorf("a removed invoice keeps its slip: %v", rec["ticket_barcode"])
	}
	again := addedNumbers(t, f.members(t, batch, "addInvoices", a))
	if again[a] == first[a] || again[a] <= first[c] {
		t.Errorf("nosso número given again: first %v, again %v", first, again)
	}

	f.batchFile(t, batch)
	if r := f.members(t, batch, "removeInvoices", b); r.status != http.StatusConflict {
		t.Errorf("remove after the file: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/financial/ticketBatch/%d", batch), f.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("deleting a closed batch: %d %s", r.status, r.raw)
	}
	r = f.members(t, batch, "revertInvoices", b)
	if r.status != http.StatusOK || r.body["message"] != "1 of 1 invoices reverted." {
		t.Fatalf("revertInvoices: %d %s", r.status, r.raw)
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", b), http.StatusOK).record(t); rec["ticket_barcode"] != nil || rec["ticket_registered"] != false {
		t.Errorf("a reverted invoice: %v %v", rec["ticket_barcode"], rec["ticket_registered"])
	}
	if r := f.members(t, batch, "revertInvoices", b); !strings.Contains(r.raw, "is reverted in this batch, not sent") {
		t.Errorf("reverting twice: %d %s", r.status, r.raw)
	}
	states := map[int64]any{}
	items := f.get(t, fmt.Sprintf("/financial/ticketBatch/%d?include[items]=invoice_id,state", batch), http.StatusOK).record(t)["items"]
	for _, it := range items.([]any) {
		m := it.(map[string]any)
		states[num(t, m["invoice_id"])] = m["state"]
	}
	if states[a] != "sent" || states[b] != "reverted" || states[c] != "sent" || len(states) != 3 {
		t.Errorf("the batch's items: %v", states)
	}
	// the reverted invoice goes in a new batch; that file asks the bank to
	// drop the title it held
	next := f.newBatch(t)
	if n := addedNumbers(t, f.members(t, next, "addInvoices", b)); len(n) != 1 {
		t.Fatalf("the reverted invoice in a new batch: %v", n)
	}
	_, _, job := f.batchFile(t, next)
	res := job["result"].(map[string]any)
	details, _ := res["details"].(map[string]any)
	if num(t, res["sequence"]) != 2 || details == nil || num(t, details["drops"]) != 1 ||
		!strings.Contains(fmt.Sprint(details["drop_titles"]), fmt.Sprint(b)) {
		t.Errorf("the next file's report: %v", res)
	}

	// an open batch deleted: its invoice is free again
	open := f.newBatch(t)
	d := f.ticketInvoice(t, nil)
	addedNumbers(t, f.members(t, open, "addInvoices", d))
	if r := f.do(t, http.MethodDelete, fmt.Sprintf("/financial/ticketBatch/%d", open), f.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("deleting an open batch: %d %s", r.status, r.raw)
	}
	if n := addedNumbers(t, f.members(t, next+0, "addInvoices", d)); len(n) != 0 {
		t.Errorf("a closed batch took an invoice: %v", n)
	}
	if n := addedNumbers(t, f.members(t, f.newBatch(t), "addInvoices", d)); len(n) != 1 {
		t.Errorf("the deleted batch's invoice is not free: %v", n)
	}
}

// addedNumbers is the our_number of each invoice an addInvoices answer
// added (none when it failed).
func addedNumbers(t *testing.T, r response) map[int64]int64 {
	t.Helper()
	out := map[int64]int64{}
	if r.status != http.StatusOK {
		return out
	}
	for _, a := range r.body["data"].(map[string]any)["added"].([]any) {
		m := a.(map[string]any)
		out[num(t, m["id"])] = num(t, m["our_number"])
	}
	return out
}

// TestTicketBatchSlipOnReceipt: the receipt page of an invoice added to a
// batch shows its boleto's digitable line.
func TestTicketBatchSlipOnReceipt(t *testing.T) {
	t.Parallel()
	f := &batchFixture{invoiceFixture: invoiceEnv(t, withReceipts())}
	f.biz = f.create(t, "/financial/businesses", map[string]any{"name": "Imobiliária Conceição", "tax_id": "11222333000181"})
	f.bradesco = f.create(t, "/financial/accounts", bradescoAccount(f.biz))
	f.payerFull = f.create(t, "/persons", map[string]any{"name": "João da Silva Araújo", "tax_id": "12345678909",
		"street": "Rua das Acácias", "number": "123", "district": "Centro", "city": "Porto Alegre", "state": "RS", "zip_code": "90000123"})
	inv := f.ticketInvoice(t, nil)
	batch := f.newBatch(t)
	r := f.members(t, batch, "addInvoices", inv)
	if r.status != http.StatusOK {
		t.Fatalf("addInvoices: %d %s", r.status, r.raw)
	}
	added := r.body["data"].(map[string]any)["added"].([]any)[0].(map[string]any)
	bc, err := boleto.ParseLine(added["ticket_digitable"].(string))
	if err != nil {
		t.Fatal(err)
	}
	status, html := page(t, receiptLinkOf(t, f.testEnv, fmt.Sprintf("/invoices/%d/receiptLink", inv), f.keyA))
	if status != http.StatusOK || !strings.Contains(html, bc.FormattedLine()) {
		t.Errorf("the receipt page (%d) does not show %s", status, bc.FormattedLine())
	}
}

// TestTicketReturnMatching: two accounts of the bank (two agreements of
// one bank account) with the same nosso número make a line ambiguous, and nothing is done; the same file
// uploaded naming one of them settles that account's title only, and
// again with the same account is the same job. An unreadable line and an
// occurrence that changes nothing are reported as such.
func TestTicketReturnMatching(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	// another agreement (covenant) of the same bank account: its own
	// counter, so its first title is 1 too, with the same check digit
	other := bradescoAccount(f.biz)
	other["covenant"] = "00000000000004567891"
	second := f.create(t, "/financial/accounts", other)
	x := f.ticketInvoice(t, nil)
	y := f.ticketInvoice(t, map[string]any{"account_id": second})
	b1 := f.newBatch(t)
	b2 := f.create(t, "/financial/ticketBatch", map[string]any{"account_id": second})
	n1, n2 := addedNumbers(t, f.members(t, b1, "addInvoices", x)), addedNumbers(t, f.members(t, b2, "addInvoices", y))
	if n1[x] != 1 || n2[y] != 1 {
		t.Fatalf("each account's first nosso número: %v %v", n1, n2)
	}
	f1, _, _ := f.batchFile(t, b1)
	f.batchFile(t, b2)
	d := records(t, f1, 400)[1]
	now := f.now(t)
	paid := retTitle{nosso: field(d, 71, 81), digit: field(d, 82, 82), code: "06", date: now, credit: now, amount: 100000,
		paid: 100000, due: now.AddDate(0, 0, 10)}
	fee := paid
	fee.code, fee.paid, fee.fee = "28", 0, 250
	ret := bradescoReturn(now, paid, fee, paid)
	// the third title's amount is not a number: that line cannot be read
	recs := strings.Split(string(ret), "\r\n")
	recs[3] = recs[3][:152] + "00000000ABC00" + recs[3][165:]
	ret = []byte(strings.Join(recs, "\r\n"))

	outcomes := func(path string) (int64, map[string]any) {
		t.Helper()
		r := f.do(t, http.MethodPost, path, f.keyA, string(ret))
		if r.status != http.StatusAccepted {
			t.Fatalf("POST %s: %d %s", path, r.status, r.raw)
		}
		id := num(t, r.record(t)["id"])
		job := f.waitJob(t, f.keyA, id)
		if job["state"] != "succeeded" {
			t.Fatalf("job %d: %v", id, job)
		}
		return id, job["result"].(map[string]any)["outcomes"].(map[string]any)
	}
	_, got := outcomes("/financial/ticketBatch/returnFile")
	if got["ambiguous"] != json.Number("1") || got["recorded"] != json.Number("1") || got["unreadable"] != json.Number("1") || len(got) != 3 {
		t.Errorf("without an account: %v", got)
	}
	for _, inv := range []int64{x, y} {
		if rec := f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t); rec["paid"] != false {
			t.Errorf("invoice %d paid by an ambiguous line", inv)
		}
	}
	withAccount := fmt.Sprintf("/financial/ticketBatch/returnFile?account_id=%d", second)
	job, got := outcomes(withAccount)
	if got["settled"] != json.Number("1") || got["recorded"] != json.Number("1") || got["unreadable"] != json.Number("1") {
		t.Errorf("with account %d: %v", second, got)
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", y), http.StatusOK).record(t); rec["paid"] != true {
		t.Errorf("the second account's invoice is not paid")
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", x), http.StatusOK).record(t); rec["paid"] != false {
		t.Errorf("the first account's invoice was paid by the second's line")
	}
	if again, _ := outcomes(withAccount); again != job {
		t.Errorf("the same file with the same account: job %d, want %d", again, job)
	}
	// an account at another bank: refused at the upload, nothing stored
	itau := bradescoAccount(f.biz)
	itau["bank"] = "341"
	atItau := f.create(t, "/financial/accounts", itau)
	countFiles := func() int {
		t.Helper()
		var n int
		if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM batch_return_files`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	stored := countFiles()
	if r := f.do(t, http.MethodPost, fmt.Sprintf("/financial/ticketBatch/returnFile?account_id=%d", atItau), f.keyA, string(ret)); r.status != http.StatusUnprocessableEntity ||
		!hasProblem(r, "account_id") || !strings.Contains(r.raw, "bank 237") {
		t.Errorf("a Bradesco file for an Itaú account: %d %s", r.status, r.raw)
	}
	if n := countFiles(); n != stored {
		t.Errorf("return files stored: %d, then %d after the refused upload", stored, n)
	}
	if r := f.do(t, http.MethodPost, "/financial/ticketBatch/returnFile?account_id=x", f.keyA, string(ret)); !hasProblem(r, "account_id") {
		t.Errorf("account_id x: %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodPost, "/financial/ticketBatch/returnFile", f.keyA, string(f1)); r.status != http.StatusUnprocessableEntity ||
		!hasProblem(r, "file") || !strings.Contains(r.raw, "remittance") {
		t.Errorf("a remittance uploaded as a return: %d %s", r.status, r.raw)
	}
}
