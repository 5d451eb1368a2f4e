package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TestReturnOfSharedAgreement: a collection return file uploaded without
// account_id, of a bank account two accounts are one agreement of (one
// per layout, sharing their titles' numbers), is refused: a 422 on
// account_id naming both and asking for account_id; uploaded with it,
// it is read.
func TestReturnOfSharedAgreement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rs := newReturnSetup(t, 2, 0, nil)
	var first, second int64
	if err := rs.pool.QueryRow(ctx, `SELECT id FROM accounts WHERE company_id = $1`, rs.company).Scan(&first); err != nil {
		t.Fatal(err)
	}
	if err := rs.pool.QueryRow(ctx, `INSERT INTO accounts (company_id, business_id, bank, layout, agency, agency_digit, account,
		account_digit, wallet, covenant) SELECT company_id, business_id, bank, 'cnab240', agency, agency_digit, account,
		account_digit, '9', covenant FROM accounts WHERE company_id = $1 AND id = $2 RETURNING id`, rs.company, first).Scan(&second); err != nil {
		t.Fatal(err)
	}
	payload := BatchReturnPayload{Batch: "ticket", FileID: rs.file.ID}
	_, err := runBatchReturn(ctx, benchStarted(t, rs.pool, rs.company, KindBatchReturn, payload), payload)
	var coded *finance.Error
	if !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) != 1 || coded.Problems[0].Field != "account_id" {
		t.Fatalf("a file of two accounts of one agreement, without account_id: %v", err)
	}
	msg := coded.Problems[0].Message
	for _, want := range []string{fmt.Sprintf("accounts %d, %d", first, second), "upload it with account_id"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal %q does not say %q", msg, want)
		}
	}
	named, _, err := storage.SaveReturnFile(ctx, rs.pool, storage.TicketBatch, rs.company, "retorno.ret", first, rs.file.Content)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, _ := runReturnFile(t, rs, named)
	if outcomes["settled"] != 2 {
		t.Errorf("with account_id: %v, want 2 settled", outcomes)
	}
}
