package api

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// The setup of the tests that post the return files docs/cnab-retorno.md
// shows how to write by hand ("Writing a return file by hand"): the page's
// files, the accounts, titles and payments they answer, and their upload.

// pageReturnFile is the file docs/cnab-retorno.md shows between the markers
// of name.
func pageReturnFile(t *testing.T, name string) string {
	t.Helper()
	page, err := os.ReadFile("../docs/cnab-retorno.md")
	if err != nil {
		t.Fatal(err)
	}
	return pageBlock(t, string(page), name)
}

// pageBlock is the code block of a page between its markers of name
// (`<!-- name: begin -->`, `<!-- name: end -->`).
func pageBlock(t *testing.T, page, name string) string {
	t.Helper()
	_, rest, _ := strings.Cut(page, "<!-- "+name+": begin -->")
	block, _, found := strings.Cut(rest, "<!-- "+name+": end -->")
	if !found {
		t.Fatalf("the page has no %s between its markers", name)
	}
	return strings.TrimLeft(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(block), "```")), "```"), "\n")
}

// pageCollection240 is the collection of the page's Bradesco CNAB 240
// file, with workers and the item the bank's tariffs are booked with: the
// account (agency 1234-5, account 98765-4, wallet 09, covenant 4567890)
// and its title the file pays (the account's first nosso número,
// 00000000001-1, due 2026-11-10 for 1,500.00), in a batch whose file is
// written; opts set the environment up (the operator's tokens, ...).
func pageCollection240(t *testing.T, opts ...envOption) (f *batchFixture, account, invoice int64) {
	t.Helper()
	f = batchEnv(t, opts...)
	withWorkers(t, f.testEnv)
	f.tariffItem(t)
	account = f.create(t, "/financial/accounts", map[string]any{"business_id": f.biz, "bank": "237", "layout": "cnab240",
		"agency": "1234", "agency_digit": "5", "account": "98765", "account_digit": "4", "wallet": "09", "covenant": "4567890"})
	return f, account, f.pageTitle(t, account, "1500.00", "2026-11-10", "00000000001", "1")
}

// pagePayments is the payment batch the page's payment return answers,
// with workers: a Bradesco CNAB 240 account (agency 1234-5, account
// 98765-4), two TEDs, entries 1 and 2 of the ledger (PAG-1-1, 1,290.00 to
// an account at Banco do Brasil; PAG-2-1, 860.00 to one at Itaú), the
// batch's file written.
type pagePayments struct {
	*paymentFixture
	account, batch, first, second int64
}

func pagePaymentBatch(t *testing.T) *pagePayments {
	t.Helper()
	f := &pagePayments{paymentFixture: paymentEnv(t)}
	withWorkers(t, f.testEnv)
	f.account = f.create(t, "/financial/accounts", map[string]any{"business_id": f.biz, "bank": "237", "layout": "cnab240",
		"agency": "1234", "agency_digit": "5", "account": "98765", "account_digit": "4", "payment_covenant": "123456"})
	atItau := f.create(t, "/persons", map[string]any{"name": "Jardinagem Verde Ltda", "tax_id": "11444777000161",
		"bank": "341", "agency": "0057", "account": "12345", "account_digit": "7", "account_type": "checking"})
	f.first = f.bill(t, f.atBB, "ted", "1290.00", nil)
	f.second = f.bill(t, atItau, "ted", "860.00", nil)
	f.batch = f.create(t, "/financial/paymentBatch", map[string]any{"description": "Fornecedores", "account_id": f.account})
	added, notAdded := answer(t, f.payments(t, f.keyA, f.batch, "addTransactions", f.first, f.second), "added")
	if len(notAdded) > 0 {
		t.Fatalf("refused: %v", notAdded)
	}
	if a, b := added[f.first]["reference"], added[f.second]["reference"]; a != "PAG-1-1" || b != "PAG-2-1" {
		t.Fatalf("the payments are %v and %v; the page's file answers PAG-1-1 and PAG-2-1", a, b)
	}
	f.paymentFile(t, f.batch)
	return f
}

// returnJob uploads a return file for the account to path's returnFile
// (/financial/ticketBatch, /financial/paymentBatch) and waits for its
// batch:return job, which must succeed: the job.
func (e *testEnv) returnJob(t *testing.T, path string, account int64, file string) map[string]any {
	t.Helper()
	r := e.do(t, http.MethodPost, fmt.Sprintf("%s/returnFile?account_id=%d", path, account), e.keyA, file)
	if r.status != http.StatusAccepted {
		t.Fatalf("returnFile: %d %s", r.status, r.raw)
	}
	done := e.waitJob(t, e.keyA, num(t, r.record(t)["id"]))
	if done["state"] != "succeeded" {
		t.Fatalf("batch:return job: %v", done)
	}
	return done
}
