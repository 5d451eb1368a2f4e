package jobs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestExpiredDiscountOutOfTheFile: an invoice whose punctuality discount
// ends 3 days before its due date, added to a batch on the due date, goes
// to the bank without the discount (no date, no value: it can no longer
// be earned, and a discount date before the issue date is refused), and
// the file job's warnings name its invoice; a title whose discount is
// still open keeps it.
func TestExpiredDiscountOutOfTheFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company := newCompany(t, pool, "Desconto vencido")
	s := newTicketSetup(t, pool, company)
	today, err := storage.CompanyToday(ctx, pool, company)
	if err != nil {
		t.Fatal(err)
	}
	expired, open := s.invoiceOf(t, "1500.00"), s.invoiceOf(t, "1600.00")
	for inv, due := range map[int64]string{expired: today.String(), open: today.AddDays(10).String()} {
		if _, err := pool.Exec(ctx, `UPDATE invoices SET due_date = $3, ticket_discount = true, ticket_discount_mode = 'fixed',
			ticket_discount_fixed = 75, ticket_discount_days = 3, ticket_discount_action = 'owner'
			WHERE company_id = $1 AND id = $2`, company, inv, due); err != nil {
			t.Fatal(err)
		}
	}
	var batch int64
	if err := pool.QueryRow(ctx, `INSERT INTO ticket_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`,
		company, s.account).Scan(&batch); err != nil {
		t.Fatal(err)
	}
	if ans, err := ChangeBatchMembers(ctx, pool, TicketBatchKind, storage.Company(company), batch, storage.OpAdd,
		[]int64{expired, open}); err != nil || len(ans.Done) != 2 {
		t.Fatalf("add: %v %+v", err, ans)
	}
	payload := BatchFilePayload{Batch: "ticket", ID: batch}
	out, err := runBatchFile(ctx, benchStarted(t, pool, company, KindBatchFile, payload), payload)
	if err != nil {
		t.Fatal(err)
	}
	var fr BatchFileResult
	if err := json.Unmarshal(out.(json.RawMessage), &fr); err != nil {
		t.Fatal(err)
	}
	last := today.AddDays(-3)
	want := FileWarning{ID: expired, Field: "discount_until", Message: "the discount's last day " + last.String() +
		" is before the issue date " + today.String() + ": the discount has expired and the title goes without it"}
	if len(fr.Warnings) != 1 || fr.Warnings[0] != want {
		t.Errorf("warnings %+v, want %+v", fr.Warnings, want)
	}
	stored, err := storage.ReadBatchFile(ctx, pool, company, fr.FileID, true)
	if err != nil {
		t.Fatal(err)
	}
	content, err := stored.Content()
	if err != nil {
		t.Fatal(err)
	}
	// Bradesco 400: 174-179 the discount's last day, 180-192 its value
	recs := strings.Split(string(content), "\r\n")
	discounts := map[string]string{}
	for _, r := range recs[1 : len(recs)-2] {
		if r[0] == '1' {
			discounts[strings.TrimSpace(r[120:126])] = r[173:192]
		}
	}
	d := func(days int) string {
		y, m, dd := today.AddDays(days).Date()
		return strings.Join([]string{two(dd), two(int(m)), two(y % 100)}, "")
	}
	wantDiscounts := map[string]string{d(0): "0000000000000000000", d(10): d(7) + "0000000007500"}
	if len(discounts) != 2 || discounts[d(0)] != wantDiscounts[d(0)] || discounts[d(10)] != wantDiscounts[d(10)] {
		t.Errorf("titles' discounts by due date %v, want %v", discounts, wantDiscounts)
	}
}

func two(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }
