package storage_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// ticketBatch makes a collection batch of the fixture's account.
func (f *overdueFixture) ticketBatch(t *testing.T) *storage.Batch {
	t.Helper()
	id := f.id(t, `INSERT INTO ticket_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`, f.account)
	b, err := storage.GetBatch(context.Background(), f.pool, storage.TicketBatch, f.company, id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// remittanceLike is n records of 400 bytes ending in CR LF, mostly
// blanks and zeros with some varied text, as a remittance is, and a few
// bytes of every value.
func remittanceLike(n int) []byte {
	rnd := rand.New(rand.NewPCG(1, 2))
	var out bytes.Buffer
	for i := range n {
		line := bytes.Repeat([]byte{' '}, 400)
		copy(line[20:], fmt.Sprintf("%013d%s", rnd.Int64N(1e12), "JOÃO DA SILVA"))
		copy(line[390:], fmt.Sprintf("%06d", i+1))
		line[200+i%100] = byte(i)
		out.Write(line)
		out.WriteString("\r\n")
	}
	return out.Bytes()
}

// TestBatchFileReadsBackWhole: a remittance written in parts to a
// FileContent is stored compressed, and reads back byte for byte (line
// endings included) through Content and WriteTo, with its length; the
// batch is closed with it. A file stored before migration 0023 (as it is,
// content_encoding identity) reads back as it is; a stored file that does
// not decompress whole is an error, never other bytes.
func TestBatchFileReadsBackWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Arquivos")
	want := remittanceLike(20_000)

	b := f.ticketBatch(t)
	content := storage.NewFileContent()
	for rest := want; len(rest) > 0; { // in the writer's pieces, of every size
		n := min(len(rest), 1+len(rest)%65536)
		if _, err := content.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	file := &storage.BatchFile{Sequence: 7, Titles: 20_000, Total: decimal.RequireFromString("1234.56")}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		locked, err := storage.LockBatch(ctx, tx, storage.TicketBatch, f.company, b.ID)
		if err != nil {
			return err
		}
		return storage.SaveBatchFile(ctx, tx, locked, 0, "237", file, content)
	})
	if err != nil {
		t.Fatal(err)
	}
	if file.Size != int64(len(want)) || file.Name != fmt.Sprintf("cobranca-237-%d-000007.REM", f.account) {
		t.Errorf("saved: size %d (want %d), name %q", file.Size, len(want), file.Name)
	}
	var stored, size int64
	var encoding, status string
	var fileID int64
	if err := pool.QueryRow(ctx, `SELECT octet_length(f.content), f.size, f.content_encoding, b.status, b.file_id
		FROM batch_files f JOIN ticket_batches b ON b.company_id = f.company_id AND b.id = f.batch_id
		WHERE f.company_id = $1 AND f.id = $2`, f.company, file.ID).Scan(&stored, &size, &encoding, &status, &fileID); err != nil {
		t.Fatal(err)
	}
	if encoding != "gzip" || size != int64(len(want)) || stored*4 > size || status != "closed" || fileID != file.ID {
		t.Errorf("stored %d bytes of %d as %s; batch %s with file %d", stored, size, encoding, status, fileID)
	}
	readBack(t, pool, f.company, file.ID, want)

	// a file as stored before migration 0023
	plain := remittanceLike(50)
	old := f.ticketBatch(t)
	oldID := f.id(t, `INSERT INTO batch_files (company_id, batch_type, batch_id, account_id, sequence, name, content, size,
		titles, total) VALUES ($1, 'ticket', $2, $3, 1, 'cobranca-237-1-000001.REM', $4, $5, 50, 0) RETURNING id`,
		old.ID, f.account, plain, len(plain))
	readBack(t, pool, f.company, oldID, plain)

	// a gzip stream cut short is an error
	if _, err := pool.Exec(ctx, `UPDATE batch_files SET content = substring(content FROM 1 FOR octet_length(content) - 9)
		WHERE company_id = $1 AND id = $2`, f.company, file.ID); err != nil {
		t.Fatal(err)
	}
	cut, err := storage.ReadBatchFile(ctx, pool, f.company, file.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cut.Content(); err == nil {
		t.Errorf("a file cut short read back %d bytes and no error", len(got))
	}
	// another company's file is not found
	other := newOverdueFixture(t, pool, "Outra")
	if _, err := storage.ReadBatchFile(ctx, pool, other.company, file.ID, true); finance.ErrorCode(err) != finance.NotFound {
		t.Errorf("another company's file: %v", err)
	}
}

// readBack requires the stored file id to read back as want.
func readBack(t *testing.T, pool *pgxpool.Pool, company, id int64, want []byte) {
	t.Helper()
	f, err := storage.ReadBatchFile(context.Background(), pool, company, id, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Content()
	if err != nil || !bytes.Equal(got, want) || f.Size != int64(len(want)) {
		t.Fatalf("file %d: %d bytes (size %d), want %d: %v", id, len(got), f.Size, len(want), err)
	}
	var out bytes.Buffer
	if n, err := f.WriteTo(&out); err != nil || n != int64(len(want)) || !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("file %d written out: %d bytes, %v", id, n, err)
	}
}

// TestEachTicketTitleReadsEveryColumn: the titles of a batch's file read
// back with every column as stored (cents, dates, a discount's last day or
// none, texts with accents), in nosso número order, only those added, and
// the same through a connection that reads in text (the simple protocol,
// as behind a pooler in transaction mode).
func TestEachTicketTitleReadsEveryColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Títulos")
	b := f.ticketBatch(t)
	invoice := func() int64 {
		return f.id(t, `INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, description,
			total, date, due_date) VALUES ($1, 'single', $2, $3, $4, 'ticket', 'Aluguel', 10, current_date, current_date)
			RETURNING id`,
			f.payer, f.business, f.account)
	}
	want := []storage.TicketTitle{
		{InvoiceID: invoice(), DocumentNumber: "A-1", OurNumber: 3, Amount: decimal.RequireFromString("1234.56"),
			Due: finance.NewDate(2026, 12, 10), FinePercent: decimal.RequireFromString("2.5"),
			InterestPerDay: decimal.RequireFromString("0.41"), Discount: decimal.RequireFromString("50"),
			DiscountUntil: finance.NewDate(2026, 12, 5),
			Payer: storage.TitlePayer{Name: "Conceição Araújo", Document: "12345678909", Address: "Rua Ângelo 7",
				District: "Centro", City: "São Paulo", State: "SP", ZIP: "01001000"}},
		{InvoiceID: invoice(), DocumentNumber: "2", OurNumber: 11, Amount: decimal.RequireFromString("0.01"),
			Due: finance.NewDate(2000, 1, 1), InterestMonthlyPercent: decimal.RequireFromString("1"),
			Payer: storage.TitlePayer{Name: "B", Document: "11222333000181", Address: "R", District: "", City: "C",
				State: "RS", ZIP: "90000000"}},
	}
	reverted := invoice()
	insert := func(m storage.TicketTitle, state string) {
		var until *finance.Date
		if !m.DiscountUntil.IsZero() {
			until = &m.DiscountUntil
		}
		p := m.Payer
		f.id(t, `INSERT INTO ticket_batch_invoices (company_id, batch_id, invoice_id, account_id, state, our_number,
			nosso_numero, amount, due_date, fine_percent, interest_per_day, interest_monthly_percent, discount,
			discount_until, document_number, payer_name, payer_document, payer_address, payer_district, payer_city,
			payer_state, payer_zip) VALUES ($1, $2, $3, $4, $5, $6::bigint, $6::bigint::text, $7::numeric, $8, $9::numeric, $10::numeric,
			$11::numeric, $12::numeric, $13, $14, $15, $16, $17, $18, $19, $20, $21) RETURNING id`,
			b.ID, m.InvoiceID, f.account, state, m.OurNumber, m.Amount.String(), m.Due, m.FinePercent.String(),
			m.InterestPerDay.String(), m.InterestMonthlyPercent.String(), m.Discount.String(), until, m.DocumentNumber,
			p.Name, p.Document, p.Address, p.District, p.City, p.State, p.ZIP)
	}
	insert(want[1], "added")
	insert(storage.TicketTitle{InvoiceID: reverted, DocumentNumber: "R", OurNumber: 5, Amount: decimal.New(1, 0),
		Due: finance.NewDate(2026, 1, 1), Payer: want[1].Payer}, "reverted")
	insert(want[0], "added")

	simple := simpleProtocolPool(t)
	for name, p := range map[string]*pgxpool.Pool{"binary": pool, "text": simple} {
		var got []storage.TicketTitle
		err := pgx.BeginFunc(ctx, p, func(tx pgx.Tx) error {
			return storage.EachTicketTitle(ctx, tx, b, func(t *storage.TicketTitle) error {
				got = append(got, *t)
				return nil
			})
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d titles, want %d", name, len(got), len(want))
		}
		for i := range want {
			if !sameTitle(got[i], want[i]) {
				t.Errorf("%s: title %d\n got %+v\nwant %+v", name, i, got[i], want[i])
			}
		}
	}
}

// sameTitle compares titles, their amounts by value.
func sameTitle(a, b storage.TicketTitle) bool {
	for _, d := range [][2]decimal.Decimal{{a.Amount, b.Amount}, {a.FinePercent, b.FinePercent},
		{a.InterestPerDay, b.InterestPerDay}, {a.InterestMonthlyPercent, b.InterestMonthlyPercent}, {a.Discount, b.Discount}} {
		if !d[0].Equal(d[1]) {
			return false
		}
	}
	return a.InvoiceID == b.InvoiceID && a.DocumentNumber == b.DocumentNumber && a.OurNumber == b.OurNumber &&
		a.Due == b.Due && a.DiscountUntil == b.DiscountUntil && a.Payer == b.Payer
}

// simpleProtocolPool is a second pool on the test's database whose
// queries go by the simple protocol, which answers every column in text.
func simpleProtocolPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	u, err := url.Parse(storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("default_query_exec_mode", "simple_protocol")
	u.RawQuery = q.Encode()
	p, err := storage.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}
