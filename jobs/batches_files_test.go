package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestBatchFileRefusedTitleStoresNothing: a file whose titles the layout
// refuses in the middle of the stream (a payer's document spoiled in its
// member row after it was added) fails at once, naming the title's
// invoice, and leaves nothing: no file stored, the batch open, the
// account's NSA not taken; once the row is mended, the file is written
// whole with the number.
func TestBatchFileRefusedTitleStoresNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Lotes")
	if err != nil {
		t.Fatal(err)
	}
	s := newTicketSetup(t, pool, company)
	batch := s.batch(t, 1500) // past a pipe's run: the refused title is read while others are written
	var spoiled int64
	if err := pool.QueryRow(ctx, `UPDATE ticket_batch_invoices SET payer_document = '123' WHERE company_id = $1
		AND batch_id = $2 AND our_number = (SELECT min(our_number) + 1000 FROM ticket_batch_invoices WHERE company_id = $1
		AND batch_id = $2) RETURNING invoice_id`, company, batch).Scan(&spoiled); err != nil {
		t.Fatal(err)
	}
	payload := BatchFilePayload{Batch: "ticket", ID: batch}
	_, err = runBatchFile(ctx, benchStarted(t, pool, company, KindBatchFile, payload), payload)
	var coded *storage.Error
	if !errors.As(err, &coded) || coded.Code != storage.Invalid || len(coded.Problems) != 1 ||
		coded.Problems[0].Field != fmt.Sprintf("invoices.%d", spoiled) || !strings.Contains(coded.Problems[0].Message, "CPF or CNPJ") {
		t.Fatalf("a file with a refused title: %v", err)
	}
	var files, next int64
	var status string
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM batch_files WHERE company_id = $1),
		(SELECT next_file_sequence FROM accounts WHERE company_id = $1 AND id = $2),
		(SELECT status FROM ticket_batches WHERE company_id = $1 AND id = $3)`, company, s.account, batch).Scan(&files, &next, &status); err != nil {
		t.Fatal(err)
	}
	if files != 0 || next != 1 || status != "open" {
		t.Errorf("after the failure: %d files, next NSA %d, batch %s", files, next, status)
	}

	if _, err := pool.Exec(ctx, `UPDATE ticket_batch_invoices SET payer_document = '12345678909' WHERE company_id = $1
		AND invoice_id = $2`, company, spoiled); err != nil {
		t.Fatal(err)
	}
	out, err := runBatchFile(ctx, benchStarted(t, pool, company, KindBatchFile, payload), payload)
	if err != nil {
		t.Fatal(err)
	}
	var res BatchFileResult
	if err := json.Unmarshal(out.(json.RawMessage), &res); err != nil {
		t.Fatal(err)
	}
	stored, err := storage.ReadBatchFile(ctx, pool, company, res.FileID, true)
	if err != nil {
		t.Fatal(err)
	}
	content, err := stored.Content()
	if err != nil {
		t.Fatal(err)
	}
	recs := strings.Split(strings.TrimSuffix(string(content), "\r\n"), "\r\n")
	if res.Sequence != 1 || res.Titles != 1500 || res.Bytes != len(content) || len(recs) != 1502 {
		t.Errorf("the file mended: %+v, %d bytes, %d records", res, len(content), len(recs))
	}
	for i, r := range recs {
		if len(r) != 400 || r[394:] != fmt.Sprintf("%06d", i+1) {
			t.Fatalf("record %d: %q", i+1, r)
		}
	}
}
