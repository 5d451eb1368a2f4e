package api

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab/boleto"
)

// paymentFixture is invoiceEnv's company A with what a payment batch
// needs: a business with its CNPJ and address, a Bradesco account in CNAB
// 240 with its Multipag agreement, and payees: one with an account at
// Banco do Brasil, one at Bradesco, one with a PIX key, one with an
// account and its institution's ISPB, one without bank data, and the
// beneficiary of a boleto.
type paymentFixture struct {
	*invoiceFixture
	biz, bradesco                        int64
	atBB, atBradesco, pixKey, pixAccount int64
	noBank, utility                      int64
}

func paymentEnv(t *testing.T, opts ...envOption) *paymentFixture {
	t.Helper()
	f := &paymentFixture{invoiceFixture: invoiceEnv(t, opts...)}
	f.biz = f.create(t, "/financial/businesses", map[string]any{"name": "Imobiliária Conceição & Filhos Ltda",
		"tax_id": "11222333000181", "street": "Rua da Consolação", "number": "1500", "city": "São Paulo",
		"state": "SP", "zip_code": "01301100"})
	f.bradesco = f.create(t, "/financial/accounts", bradescoPaymentAccount(f.biz))
	f.atBB = f.create(t, "/persons", map[string]any{"name": "Construtora Horizonte Ltda", "tax_id": "60746948000112",
		"bank": "001", "agency": "3456", "agency_digit": "7", "account": "123456", "account_digit": "8", "account_type": "checking"})
	f.atBradesco = f.create(t, "/persons", map[string]any{"name": "Jardinagem Verde", "tax_id": "11144477735",
		"bank": "237", "agency": "4321", "account": "765432", "account_digit": "1", "account_type": "checking"})
	f.pixKey = f.create(t, "/persons", map[string]any{"name": "Elétrica Força", "tax_id": "39053344705",
		"pix_key": "fornecedor@example.com"})
	f.pixAccount = f.create(t, "/persons", map[string]any{"name": "Segurança Total", "tax_id": "52998224725",
		"bank": "260", "ispb": "18236120", "agency": "0001", "account": "12345678", "account_digit": "9", "account_type": "payment"})
	f.noBank = f.create(t, "/persons", map[string]any{"name": "Sem Banco", "tax_id": "12345678909"})
	f.utility = f.create(t, "/persons", map[string]any{"name": "Companhia de Água", "tax_id": "33000167000101"})
	return f
}

// bradescoPaymentAccount is the body of a Bradesco CNAB 240 account of
// business, with its payment agreement.
func bradescoPaymentAccount(business int64) map[string]any {
	return map[string]any{"business_id": business, "bank": "237", "layout": "cnab240", "agency": "1234",
		"agency_digit": "5", "account": "12345", "account_digit": "6", "payment_covenant": "123456"}
}

// bill creates a payable entry of company A: a debit of mode transaction,
// due in five days, paid to person by method, with the overrides applied
// (a nil value removes the key).
func (f *paymentFixture) bill(t *testing.T, person int64, method, amount string, overrides map[string]any) int64 {
	t.Helper()
	b := map[string]any{"type": "debit", "description": "Conta a pagar", "amount": amount, "date": today(0),
		"due_date": today(5), "person_id": person, "billing_method": method, "business_id": f.biz}
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return f.create(t, "/transactions", b)
}

// boletoBarcode is an Itaú boleto of amount due in days, as its barcode.
func boletoBarcode(t testing.TB, amount string, days int) string {
	t.Helper()
	slip := boleto.Beneficiary{Bank: "341", Agency: "0057", Account: "12345", AccountDigit: "7", Wallet: "109"}
	nn, err := boleto.NewNossoNumero(slip, 4321)
	if err != nil {
		t.Fatal(err)
	}
	cents, err := boleto.Cents(decimal.RequireFromString(amount))
	if err != nil {
		t.Fatal(err)
	}
	due, err := time.Parse(time.DateOnly, today(days))
	if err != nil {
		t.Fatal(err)
	}
	bc, err := boleto.New(slip, nn, cents, due)
	if err != nil {
		t.Fatal(err)
	}
	return bc.String()
}

// newPaymentBatch creates a payment batch of the Bradesco account.
func (f *paymentFixture) newPaymentBatch(t *testing.T) int64 {
	t.Helper()
	return f.create(t, "/financial/paymentBatch", map[string]any{"description": "Fornecedores", "account_id": f.bradesco})
}

// payments posts {"transactions": ids} to a payment batch operation
// (addTransactions, removeTransactions, revertTransactions) with key.
func (f *testEnv) payments(t *testing.T, key string, batch int64, op string, ids ...int64) response {
	t.Helper()
	return f.do(t, http.MethodPost, fmt.Sprintf("/financial/paymentBatch/%d/%s", batch, op), key, map[string]any{"transactions": ids})
}

// answer splits a member operation's answer: what it did by id, and the
// reasons of the ids refused.
func answer(t *testing.T, r response, done string) (map[int64]map[string]any, map[int64]string) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("member operation: %d %s", r.status, r.raw)
	}
	data := r.body["data"].(map[string]any)
	out := map[int64]map[string]any{}
	for _, a := range data[done].([]any) {
		m := a.(map[string]any)
		out[num(t, m["id"])] = m
	}
	refused := map[int64]string{}
	for _, x := range data["refused"].([]any) {
		m := x.(map[string]any)
		refused[num(t, m["id"])] = m["reason"].(string)
	}
	return out, refused
}

// paymentFile downloads a payment batch's remittance of company A as
// batchFile does.
func (f *testEnv) paymentFile(t *testing.T, batch int64) ([]byte, http.Header, map[string]any) {
	t.Helper()
	path := fmt.Sprintf("/financial/paymentBatch/%d/downloadBatchFile", batch)
	r := f.do(t, http.MethodGet, path, f.keyA, nil)
	if r.status != http.StatusAccepted {
		t.Fatalf("first download: %d %s", r.status, r.raw)
	}
	job := f.waitJob(t, f.keyA, num(t, r.record(t)["id"]))
	if job["state"] != "succeeded" {
		t.Fatalf("batch:file job: %v", job)
	}
	status, header, body := f.raw(t, http.MethodGet, path, f.keyA, "", nil)
	if status != http.StatusOK {
		t.Fatalf("second download: %d %s", status, body)
	}
	wholeFile(t, header, body, job)
	return body, header, job
}

// segment is a detail record of a CNAB 240 payment file: its letter (A, B,
// J, or "J52") and its index among the file's records.
type segment struct {
	kind  string
	index int
}

// segments lists the detail records of a CNAB 240 file.
func segments(recs []string) []segment {
	var out []segment
	for i, r := range recs {
		if r[7] != '3' {
			continue
		}
		kind := r[13:14]
		if kind == "J" && r[17:19] == "52" {
			kind = "J52"
		}
		out = append(out, segment{kind, i})
	}
	return out
}

// paidLine is what a bank's return says of one payment, written over its
// segment A or J of the remittance.
type paidLine struct {
	codes    string // 231-240: "00" paid, "BD" scheduled, an error code
	date     time.Time
	amount   int64  // cents paid, 0: as sent
	interest int64  // a boleto's mora + multa (J 130-144)
	ref      string // a reference to write instead of the one sent
}

// paymentReturn makes a bank's return of a payment remittance: the same
// records (so every count and total still holds), the header's 143 "2"
// (retorno), and over each payment's segment A or J (by reference) what
// the bank says: the codes in 231-240, the real date and amount (A 155-162
// and 163-177; J 145-152 and 153-167, with J 130-144 the interest).
func paymentReturn(t testing.TB, rem []byte, lines map[string]paidLine) []byte {
	t.Helper()
	return paymentReturnOf(t, rem, func(ref string) paidLine {
		l, ok := lines[ref]
		if !ok {
			t.Fatalf("the return names no line for reference %q", ref)
		}
		return l
	})
}

// paymentReturnOf is paymentReturn with the line of each reference given
// by a function.
func paymentReturnOf(t testing.TB, rem []byte, line func(ref string) paidLine) []byte {
	t.Helper()
	recs := strings.Split(strings.TrimSuffix(string(rem), "\r\n"), "\r\n")
	out := make([][]byte, len(recs))
	for i, r := range recs {
		if len(r) != 240 {
			t.Fatalf("record %d is %d characters", i+1, len(r))
		}
		out[i] = []byte(r)
	}
	put := func(rec []byte, from int, s string) { copy(rec[from-1:], s) }
	put(out[0], 143, "2")
	for _, s := range segments(recs) {
		rec := out[s.index]
		var refAt, dateAt, amountAt int
		switch s.kind {
		case "A":
			refAt, dateAt, amountAt = 74, 155, 163
		case "J":
			refAt, dateAt, amountAt = 183, 145, 153
		default:
			continue
		}
		l := line(strings.TrimSpace(string(rec[refAt-1 : refAt+19])))
		put(rec, 231, fmt.Sprintf("%-10s", l.codes))
		if l.ref != "" {
			put(rec, refAt, fmt.Sprintf("%-20s", l.ref))
		}
		if l.date.IsZero() {
			continue
		}
		put(rec, dateAt, l.date.Format("02012006"))
		if l.amount != 0 {
			put(rec, amountAt, fmt.Sprintf("%015d", l.amount))
		}
		if s.kind == "J" {
			put(rec, 130, fmt.Sprintf("%015d", l.interest))
		}
	}
	return append(bytes.Join(out, []byte("\r\n")), "\r\n"...)
}
