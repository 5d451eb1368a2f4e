package api

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// itauAccount is the body of an Itaú CNAB 400 account of business (the
// values of cnab/testdata/341_400.json).
func itauAccount(business int64, account, digit string) map[string]any {
	return map[string]any{"business_id": business, "bank": "341", "layout": "cnab400", "agency": "1234",
		"account": account, "account_digit": digit, "wallet": "109"}
}

// itauTitle is one detail of an Itaú CNAB 400 return file written by
// itauReturn, at the positions of Itaú's "Cobrança Bancária – Intercâmbio
// Eletrônico de Arquivos, 400 posições" (Julho/2021), arquivo retorno,
// registro detalhe tipo 1.
type itauTitle struct {
	nosso, digit     string // 86-93, 94
	code             string // 109-110
	date, credit     time.Time
	due              time.Time
	amount           int64  // 153-165 valor do título
	tariff           int64  // 176-188 tarifa de cobrança
	credited         int64  // 254-266 valor principal (lançado em conta)
	interest         int64  // 267-279 juros de mora/multa
	channel          string // 393-394 código de liquidação
	agency, account  string // 18-21, 24-28
	accountDigit     string // 29
	control          string // 38-62
	documentAndOther string // 117-126
}

// itauReturn writes an Itaú CNAB 400 return file: the header (type 0,
// "02RETORNO01COBRANCA", agency 27-30, account 33-37 and its DAC 38, bank
// 341 in 77-79, the date in 95-100), the details and the trailer, each
// numbered in 395-400, CR LF after every record.
func itauReturn(created time.Time, agency, account, digit string, titles ...itauTitle) []byte {
	var b bytes.Buffer
	record := cnab400Records(&b)
	record(func(put func(int, string)) {
		put(1, "02RETORNO01COBRANCA")
		put(27, agency)
		put(31, "00")
		put(33, account)
		put(38, digit)
		put(47, "IMOBILIARIA CONCEICAO & FILHOS")
		put(77, "341BANCO ITAU SA")
		put(95, ddmmyy(created))
	})
	for _, tt := range titles {
		record(func(put func(int, string)) {
			put(1, "102")
			put(4, "11222333000181")
			put(18, agency)
			put(22, "00")
			put(24, account)
			put(29, digit)
			put(38, tt.control)
			put(83, "109")
			put(86, tt.nosso)
			put(94, tt.digit)
			put(108, "I")
			put(109, tt.code)
			put(111, ddmmyy(tt.date))
			put(117, tt.documentAndOther)
			put(147, ddmmyy(tt.due))
			put(153, fmt.Sprintf("%013d", tt.amount))
			put(166, "34112340")
			put(174, "01")
			put(176, fmt.Sprintf("%013d", tt.tariff))
			put(215, strings.Repeat("0", 13*3))
			put(254, fmt.Sprintf("%013d", tt.credited))
			put(267, fmt.Sprintf("%013d", tt.interest))
			put(280, strings.Repeat("0", 13))
			put(296, ddmmyy(tt.credit))
			put(393, tt.channel)
		})
	}
	record(func(put func(int, string)) { put(1, "9201341") })
	return b.Bytes()
}

// itauBatchTitle creates an Itaú account's invoice of 1000.00, puts it in
// a batch whose file is written, and returns the invoice and the title's
// line of an Itaú return paid in full yesterday with a 2.10 tariff.
func itauBatchTitle(t *testing.T, f *batchFixture, account int64) (int64, itauTitle) {
	t.Helper()
	inv := f.ticketInvoice(t, map[string]any{"account_id": account})
	batch := f.create(t, "/financial/ticketBatch", map[string]any{"description": "Aluguéis", "account_id": account})
	r := f.members(t, batch, "addInvoices", inv)
	if r.status != http.StatusOK {
		t.Fatalf("addInvoices: %d %s", r.status, r.raw)
	}
	added := r.body["data"].(map[string]any)["added"].([]any)[0].(map[string]any)
	f.batchFile(t, batch)
	paidAt := f.now(t).AddDate(0, 0, -1)
	nosso := fmt.Sprint(added["nosso_numero"])
	return inv, itauTitle{nosso: nosso[len(nosso)-8:], digit: fmt.Sprint(added["nosso_numero_digit"]), code: "06",
		date: paidAt, credit: paidAt.AddDate(0, 0, 1), due: f.now(t).AddDate(0, 0, 10),
		amount: 100000, tariff: 210, credited: 99790, channel: "B1"}
}

// TestItauReturnTariffBooked: an Itaú CNAB 400 return of a title paid in
// full, with a 2.10 tariff kept by the bank (valor principal 997.90),
// leaves the invoice paid in full (1000.00, no difference) and the tariff
// on the business's statement, booked with the company's tariff item.
func TestItauReturnTariffBooked(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	tariffItem := f.scalar(t, `INSERT INTO transaction_items (company_id, description, debit, type)
		VALUES ($1, 'Tarifa de cobrança Itaú', 'business', 'tariff') RETURNING id`, f.compA)
	itau := f.create(t, "/financial/accounts", itauAccount(f.biz, "12345", "1"))
	inv, title := itauBatchTitle(t, f, itau)
	ret := itauReturn(title.date, "1234", "12345", "1", title)

	r := f.do(t, http.MethodPost, fmt.Sprintf("/financial/ticketBatch/returnFile?account_id=%d", itau), f.keyA, string(ret))
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	done := f.waitJob(t, f.keyA, num(t, r.record(t)["id"]))
	if done["state"] != "succeeded" {
		t.Fatalf("batch:return job: %v", done)
	}
	line := done["result"].(map[string]any)["report"].([]any)[0].(map[string]any)
	if line["outcome"] != "settled" || fmt.Sprint(line["paid"]) != "1000.00" || fmt.Sprint(line["difference"]) != "0.00" ||
		fmt.Sprint(line["tariff"]) != "2.10" || !strings.Contains(fmt.Sprint(line["message"]), "tariff 2.10 booked") {
		t.Errorf("the paid line: %v", line)
	}
	rec := f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t)
	if rec["paid"] != true || fmt.Sprint(rec["paid_amount"]) != "1000.00" {
		t.Errorf("the invoice: paid %v paid_amount %v", rec["paid"], rec["paid_amount"])
	}
	tariffs := f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&filter[item_id]=%d", inv, tariffItem), http.StatusOK).data(t)
	if len(tariffs) != 1 {
		t.Fatalf("tariff entries: %v", tariffs)
	}
	e := tariffs[0]
	if e["type"] != "debit" || e["extract"] != "business" || fmt.Sprint(e["amount"]) != "2.10" ||
		num(t, e["business_id"]) != f.biz || num(t, e["account_id"]) != itau ||
		e["date"] != title.credit.Format(time.DateOnly) || e["paid"] != true {
		t.Errorf("the tariff entry: %v", e)
	}
	// the account receives what the bank credited: the payer's 1000.00 less
	// the 2.10 tariff
	entries := f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&perPage=100", inv), http.StatusOK).data(t)
	var business int64
	for _, e := range entries {
		if e["extract"] != "business" {
			continue
		}
		cents := centsOf(t, e["amount"])
		if e["type"] == "debit" {
			cents = -cents
		}
		business += cents
	}
	if business != -210 {
		t.Errorf("the business's entries of the invoice add up to %d cents, want -210 (the tariff): %v", business, entries)
	}
}

// TestItauReturnTariffWithoutItem: with no active item of type tariff the
// payment is settled all the same, and the line says the tariff is not
// booked.
func TestItauReturnTariffWithoutItem(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	itau := f.create(t, "/financial/accounts", itauAccount(f.biz, "12345", "1"))
	inv, title := itauBatchTitle(t, f, itau)
	ret := itauReturn(title.date, "1234", "12345", "1", title)
	r := f.do(t, http.MethodPost, "/financial/ticketBatch/returnFile", f.keyA, string(ret))
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	done := f.waitJob(t, f.keyA, num(t, r.record(t)["id"]))
	line := done["result"].(map[string]any)["report"].([]any)[0].(map[string]any)
	if line["outcome"] != "settled" || fmt.Sprint(line["paid"]) != "1000.00" ||
		!strings.Contains(fmt.Sprint(line["message"]), "tariff 2.10 is not booked: the company keeps no active transaction item of type tariff") {
		t.Errorf("the paid line: %v", line)
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t); fmt.Sprint(rec["paid_amount"]) != "1000.00" {
		t.Errorf("paid_amount %v", rec["paid_amount"])
	}
}

// TestReturnFileOfAnotherAccount: a file whose header names another
// agency or account than the account_id named is a 422 on account_id
// naming both, and nothing is stored.
func TestReturnFileOfAnotherAccount(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	itau := f.create(t, "/financial/accounts", itauAccount(f.biz, "12345", "1"))
	paidAt := f.now(t)
	cases := []struct {
		name, agency, account, digit, want string
	}{
		{"another account", "1234", "54321", "9", fmt.Sprintf("account %d is account 12345-1; the file is of account 54321-9", itau)},
		{"another agency", "4321", "12345", "1", fmt.Sprintf("account %d is at agency 1234; the file is of agency 4321", itau)},
	}
	for _, c := range cases {
		ret := itauReturn(paidAt, c.agency, c.account, c.digit)
		r := f.do(t, http.MethodPost, fmt.Sprintf("/financial/ticketBatch/returnFile?account_id=%d", itau), f.keyA, string(ret))
		if r.status != http.StatusUnprocessableEntity || !hasProblem(r, "account_id") || !strings.Contains(string(r.raw), c.want) {
			t.Errorf("%s: %d %s, want 422 on account_id saying %q", c.name, r.status, r.raw, c.want)
		}
	}
	if n := f.scalar(t, `SELECT count(*) FROM batch_return_files WHERE company_id = $1`, f.compA); n != 0 {
		t.Errorf("%d return files stored", n)
	}
	// the same account's file, with its number zero-padded, is taken
	ret := itauReturn(paidAt, "1234", "12345", "1")
	if r := f.do(t, http.MethodPost, fmt.Sprintf("/financial/ticketBatch/returnFile?account_id=%d", itau), f.keyA, string(ret)); r.status != http.StatusAccepted {
		t.Errorf("the account's own file: %d %s", r.status, r.raw)
	}
}

// TestSispagReturnOfAnotherAccount: an Itaú SISPAG payment return (the
// public file 341_240_pagamento_keeper-cnab240.ret) names its debited
// account in its header at SISPAG's positions (agency 53-57, account
// 59-70, DAC 72): uploaded for that account it is taken; the same file
// naming an account whose digits differ only where Itaú's collection
// header has none (59-65) is a 422 on account_id naming the file's
// account, and is not stored.
func TestSispagReturnOfAnotherAccount(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	data, err := os.ReadFile(filepath.Join("..", "cnab", "retorno", "testdata", "real", "341_240_pagamento_keeper-cnab240.ret"))
	if err != nil {
		t.Fatal(err)
	}
	acc := f.create(t, "/financial/accounts", map[string]any{"business_id": f.biz, "bank": "341", "layout": "cnab240",
		"agency": "0772", "account": "69637", "account_digit": "3"})
	other := slices.Clone(data)
	copy(other[58:70], "000012369637")
	path := fmt.Sprintf("/financial/paymentBatch/returnFile?account_id=%d", acc)
	want := fmt.Sprintf("account %d is account 69637-3; the file is of account 000012369637-3", acc)
	if r := f.do(t, http.MethodPost, path, f.keyA, string(other)); r.status != http.StatusUnprocessableEntity ||
		!hasProblem(r, "account_id") || !strings.Contains(string(r.raw), want) {
		t.Errorf("another account's file: %d %s, want 422 on account_id saying %q", r.status, r.raw, want)
	}
	if n := f.scalar(t, `SELECT count(*) FROM batch_return_files WHERE company_id = $1`, f.compA); n != 0 {
		t.Errorf("%d return files stored", n)
	}
	if r := f.do(t, http.MethodPost, path, f.keyA, string(data)); r.status != http.StatusAccepted {
		t.Errorf("the account's own file: %d %s", r.status, r.raw)
	}
}

// centsOf reads a money value of a response (a JSON number or decimal
// text) as cents, exactly.
func centsOf(t *testing.T, v any) int64 {
	t.Helper()
	d, err := decimal.NewFromString(fmt.Sprint(v))
	if err != nil {
		t.Fatalf("amount %v: %v", v, err)
	}
	return d.Shift(2).IntPart()
}

// TestReturnFileStrippedBlanks: a CNAB 240 return whose lines lost their
// trailing blanks on the way is read as if padded back, and the job's
// result warns of it once for the whole file.
func TestReturnFileStrippedBlanks(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	byKey := f.bill(t, f.pixKey, "pix", "320.00", nil)
	batch := f.newPaymentBatch(t)
	if added, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", byKey), "added"); len(added) != 1 {
		t.Fatalf("added %v, refused %v", added, refused)
	}
	file, _, _ := f.paymentFile(t, batch)
	ret := paymentReturn(t, file, map[string]paidLine{ref(byKey): {codes: "00", date: time.Now().In(saoPaulo(t)), amount: 32000}})
	lines := strings.Split(strings.TrimSuffix(string(ret), "\r\n"), "\r\n")
	stripped := 0
	for i, l := range lines {
		if s := strings.TrimRight(l, " "); len(s) < len(l) {
			lines[i], stripped = s, stripped+1
		}
	}
	if stripped == 0 {
		t.Fatal("the return has no line ending in blanks")
	}
	r := f.do(t, http.MethodPost, "/financial/paymentBatch/returnFile", f.keyA, strings.Join(lines, "\r\n")+"\r\n")
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	done := f.waitJob(t, f.keyA, num(t, r.record(t)["id"]))
	if done["state"] != "succeeded" {
		t.Fatalf("batch:return job: %v", done)
	}
	warnings, _ := done["result"].(map[string]any)["warnings"].([]any)
	lost := "lines had lost their trailing blanks"
	if stripped == 1 {
		lost = "line had lost its trailing blanks"
	}
	if len(warnings) != 1 || !strings.HasPrefix(fmt.Sprint(warnings[0]), fmt.Sprintf("%d %s", stripped, lost)) {
		t.Errorf("warnings: %v (%d lines stripped)", warnings, stripped)
	}
	if states := f.paymentStates(t, batch); !sameStates(states, map[int64]string{byKey: "paid"}) {
		t.Errorf("payments: %v", states)
	}
}
