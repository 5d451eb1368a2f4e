package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestTicketReturnReadAgainBooksOnce: the Bradesco CNAB 240 file of
// docs/cnab-retorno.md with its title paid short (1,000.00 of 1,500.00,
// tariff 2.50), uploaded as a raw body without account_id and then naming
// the account (a second stored copy, a second job, as docs/api.md invites
// to settle ambiguous lines), books its part once: the second job's line
// is a duplicate naming the first job, and the invoice keeps one part of
// 1,000.00, the payer's entries -1,000.00 and one tariff of 2.50. Uploaded
// naming the account first and then as a multipart form without it, the
// second upload answers the first job.
func TestTicketReturnReadAgainBooksOnce(t *testing.T) {
	t.Parallel()
	file := paidReturn240(t, "000000000100000", "000000000099750")
	booked := func(t *testing.T, f *batchFixture, inv int64) {
		t.Helper()
		rec := f.get(t, fmt.Sprintf("/invoices/%d", inv), http.StatusOK).record(t)
		parts := f.get(t, fmt.Sprintf("/invoices/%d/payments", inv), http.StatusOK).data(t)
		got := fmt.Sprint(rec["status"], " ", rec["paid_amount"], " ", rec["balance"], " ", len(parts))
		if len(parts) > 0 {
			got += " " + fmt.Sprint(parts[0]["amount"])
		}
		if want := "partially_paid 1000.00 500.00 1 1000.00"; got != want {
			t.Errorf("the invoice: status, paid_amount, balance, parts: %s, want %s", got, want)
		}
		if n := f.scalar(t, `SELECT sum(CASE type WHEN 'credit' THEN amount ELSE -amount END * 100)::bigint FROM transactions
			WHERE company_id = $1 AND invoice_id = $2 AND extract = 'customer'`, f.compA, inv); n != -100000 {
			t.Errorf("the payer's entries add up to %d cents, want -1000.00", n)
		}
		if n := f.scalar(t, `SELECT coalesce(sum(t.amount * 100), 0)::bigint FROM transactions t JOIN transaction_items i
			ON i.company_id = t.company_id AND i.id = t.item_id WHERE t.company_id = $1 AND i.type = 'tariff'`, f.compA); n != 250 {
			t.Errorf("the tariffs add up to %d cents, want 2.50", n)
		}
	}
	jobOf := func(t *testing.T, status int, body string) int64 {
		t.Helper()
		if status != http.StatusAccepted {
			t.Fatalf("upload: %d %s", status, body)
		}
		var id int64
		if _, err := fmt.Sscanf(body[strings.Index(body, `"id":`):], `"id":%d`, &id); err != nil {
			t.Fatalf("the job's id in %s: %v", body, err)
		}
		return id
	}
	t.Run("raw without account_id, then with it", func(t *testing.T) {
		t.Parallel()
		f, acc, inv := pageCollection240(t)
		r := f.do(t, http.MethodPost, "/financial/ticketBatch/returnFile", f.keyA, file)
		first := jobOf(t, r.status, r.raw)
		if done := f.waitJob(t, f.keyA, first); done["state"] != "succeeded" {
			t.Fatalf("the first job: %v", done)
		}
		done := f.returnJob(t, "/financial/ticketBatch", acc, file)
		if num(t, done["id"]) == first {
			t.Fatalf("the upload naming the account answered the first job")
		}
		line := done["result"].(map[string]any)["report"].([]any)[0].(map[string]any)
		if want := fmt.Sprintf("booked by job %d's reading of this file: nothing was done (06 ", first); line["outcome"] != "duplicate" ||
			!strings.HasPrefix(fmt.Sprint(line["message"]), want) {
			t.Errorf("the line read again: %v, want a duplicate saying %q", line, want)
		}
		booked(t, f, inv)
	})
	t.Run("with account_id, then multipart without", func(t *testing.T) {
		t.Parallel()
		f, acc, inv := pageCollection240(t)
		done := f.returnJob(t, "/financial/ticketBatch", acc, file)
		ct, form := returnForm(t, []byte(file))
		status, _, body := f.raw(t, http.MethodPost, "/financial/ticketBatch/returnFile", f.keyA, ct, form)
		if again := jobOf(t, status, string(body)); again != num(t, done["id"]) {
			t.Errorf("uploaded again without account_id: job %d, want the first, %v", again, done["id"])
		}
		booked(t, f, inv)
	})
}
