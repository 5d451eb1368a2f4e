package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// docsPaymentReturn is the hand-written Bradesco payment return of
// docs/cnab-retorno.md, of agency 1234-5, account 98765-4.
func docsPaymentReturn(t *testing.T) []byte {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("..", "docs", "cnab-retorno.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(page), "<!-- hand-written payment return: begin -->")
	block, _, found := strings.Cut(rest, "<!-- hand-written payment return: end -->")
	if !found {
		t.Fatal("the page has no hand-written payment return")
	}
	block = strings.TrimSpace(strings.Trim(strings.TrimSpace(block), "`"))
	return []byte(strings.ReplaceAll(block, "\n", "\r\n") + "\r\n")
}

// TestPaymentReturnOfAnotherAccount: a payment return naming an account
// the company does not have at the file's bank (agency 1234-5, account
// 98765-4, where the company has 1234-5 / 0012345-6) is refused without
// account_id at the upload's check (a 422 naming file, the file's account
// and the company's accounts at the bank) and by its job if it was stored
// all the same, permanently, before any line is read; once the company
// has that account, the upload is of it (CheckReturnUpload answers its
// id) and the job reads the file for it alone.
func TestPaymentReturnOfAnotherAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rs := newReturnSetup(t, 1, 0, nil)
	var account int64
	if err := rs.pool.QueryRow(ctx, `SELECT id FROM accounts WHERE company_id = $1`, rs.company).Scan(&account); err != nil {
		t.Fatal(err)
	}
	ret := docsPaymentReturn(t)
	want := fmt.Sprintf("the file is of agency 01234-5, account 000000098765-4 at bank 237 (Bradesco), and no account of the company is "+
		"(its accounts at bank 237: %d (agency 1234-5, account 0012345-6))", account)
	fileOf := func(err error) string {
		var e *finance.Error
		if errors.As(err, &e) && e.Code == finance.Invalid && len(e.Problems) == 1 && e.Problems[0].Field == "file" {
			return e.Problems[0].Message
		}
		return fmt.Sprintf("not a 422 naming file: %v", err)
	}
	if got := fileOf(CheckReturnFile(ctx, rs.pool, rs.company, PaymentBatchKind, ret, nil)); !strings.HasPrefix(got, want) {
		t.Errorf("the upload: %s\nwant %s", got, want)
	}
	f, _, err := storage.SaveReturnFile(ctx, rs.pool, storage.PaymentBatch, rs.company, "r.ret", 0, ret)
	if err != nil {
		t.Fatal(err)
	}
	payload := BatchReturnPayload{Batch: "payment", FileID: f.ID}
	_, err = runBatchReturn(ctx, benchStarted(t, rs.pool, rs.company, KindBatchReturn, payload), payload)
	if got := fileOf(err); !strings.HasPrefix(got, want) || !errors.Is(err, asynq.SkipRetry) {
		t.Errorf("the job: %s (permanent: %v)\nwant %s", got, errors.Is(err, asynq.SkipRetry), want)
	}

	var own int64
	if err := rs.pool.QueryRow(ctx, `INSERT INTO accounts (company_id, business_id, bank, layout, agency, agency_digit, account,
		account_digit) SELECT company_id, business_id, '237', 'cnab240', '1234', '5', '98765', '4' FROM accounts WHERE id = $1
		RETURNING id`, account).Scan(&own); err != nil {
		t.Fatal(err)
	}
	got, err := CheckReturnUpload(ctx, rs.pool, rs.company, PaymentBatchKind, ret, nil)
	if err != nil || got != own {
		t.Errorf("the upload once the company has the account: %d, %v; want account %d", got, err, own)
	}
	payload = BatchReturnPayload{Batch: "payment", FileID: f.ID}
	r := benchStarted(t, rs.pool, rs.company, KindBatchReturn, payload)
	rf, items, err := readReturnFile(ctx, r, PaymentBatchKind, f.ID)
	if err != nil || len(items) == 0 || fmt.Sprint(rf.Accounts) != fmt.Sprint([]int64{own}) {
		t.Errorf("the job's accounts: %v (%v), want [%d]", rf, err, own)
	}
}
