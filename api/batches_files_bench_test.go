package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// BenchmarkBatchFileDownload measures GET downloadBatchFile of a stored
// remittance of 100,000 titles (Bradesco CNAB 400, 40 MB) over loopback
// HTTP through the whole API (auth, rate limit, the batch and file read,
// the bytes decompressed and written), each request reading the whole
// body: the file as batch:file stores it (gzip), and as files were stored
// before migration 0023 (as they are, compressed by TOAST); beside them,
// in the same run, the bare read of the stored bytes through pgx, and the
// same read with the decompression.
//
//	go test -run '^$' -bench BatchFileDownload -benchtime 10x -count 3 ./api
func BenchmarkBatchFileDownload(b *testing.B) {
	ctx := context.Background()
	pool := storagetest.NewDB(b)
	companyID, userID, err := storage.EnsureCompany(ctx, pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	content := benchRemittance(b, 100_000)
	var account, gzipped, plain int64
	err = pool.QueryRow(ctx, `
		WITH biz AS (INSERT INTO businesses (company_id, name, tax_id) VALUES ($1, 'Bench', '11222333000181') RETURNING id)
		INSERT INTO accounts (company_id, business_id, bank, layout) SELECT $1, id, '237', 'cnab400' FROM biz RETURNING id`,
		companyID).Scan(&account)
	if err != nil {
		b.Fatal(err)
	}
	newBatch := func() int64 {
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO ticket_batches (company_id, account_id, titles) VALUES ($1, $2, 100000)
			RETURNING id`, companyID, account).Scan(&id); err != nil {
			b.Fatal(err)
		}
		return id
	}
	gzipped = newBatch()
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		bt, err := storage.LockBatch(ctx, tx, storage.TicketBatch, companyID, gzipped)
		if err != nil {
			return err
		}
		c := storage.NewFileContent()
		c.Write(content) //nolint:errcheck // into memory
		return storage.SaveBatchFile(ctx, tx, bt, 0, "237", &storage.BatchFile{Sequence: 1, Titles: 100_000}, c)
	})
	if err != nil {
		b.Fatal(err)
	}
	plain = newBatch()
	var plainFile, gzipFile int64
	if err := pool.QueryRow(ctx, `INSERT INTO batch_files (company_id, batch_type, batch_id, account_id, sequence, name,
		content, size, titles, total) VALUES ($1, 'ticket', $2, $3, 2, 'cobranca-237-1-000002.REM', $4, $5, 100000, 0)
		RETURNING id`, companyID, plain, account, content, len(content)).Scan(&plainFile); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE ticket_batches SET status = 'closed', file_id = $3 WHERE company_id = $1 AND id = $2`,
		companyID, plain, plainFile); err != nil {
		b.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT file_id FROM ticket_batches WHERE company_id = $1 AND id = $2`, companyID,
		gzipped).Scan(&gzipFile); err != nil {
		b.Fatal(err)
	}
	rdb := redis.NewClient(storagetest.NewRedis(b).Options())
	defer rdb.Close()
	srv := New(Config{Store: storage.NewStore(pool, storage.DefaultRegistry()), Redis: rdb, RateLimit: 1 << 30,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	key, err := storage.CreateAPIKey(ctx, pool, companyID, userID, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		batch int64
	}{{"api-gzip", gzipped}, {"api-identity", plain}} {
		url := fmt.Sprintf("%s/financial/ticketBatch/%d/downloadBatchFile", ts.URL, c.batch)
		b.Run(c.name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer "+key.Key)
				start := time.Now()
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				got := &sameBytes{want: content}
				_, err = io.Copy(got, res.Body)
				res.Body.Close()
				total += time.Since(start)
				if err != nil || res.StatusCode != http.StatusOK || got.differ || got.n != len(content) {
					b.Fatalf("download: %d, %d bytes (differ: %t), %v", res.StatusCode, got.n, got.differ, err)
				}
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "s/download")
			b.ReportMetric(float64(len(content))/1e6, "MB")
		})
	}
	b.Run("bare-select", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			start := time.Now()
			var got []byte
			if err := pool.QueryRow(ctx, `SELECT content FROM batch_files WHERE company_id = $1 AND id = $2`,
				companyID, gzipFile).Scan(&got); err != nil || len(got) == 0 {
				b.Fatalf("select: %d bytes, %v", len(got), err)
			}
			total += time.Since(start)
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/download")
	})
	b.Run("bare-select-gunzip", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			start := time.Now()
			f, err := storage.ReadBatchFile(ctx, pool, companyID, gzipFile, true)
			if err != nil {
				b.Fatal(err)
			}
			got, err := f.Content()
			total += time.Since(start)
			if err != nil || !bytes.Equal(got, content) {
				b.Fatalf("read back: %d bytes, %v", len(got), err)
			}
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/download")
	})
}

// sameBytes takes what is written and compares it with want as it comes.
type sameBytes struct {
	want   []byte
	n      int
	differ bool
}

func (s *sameBytes) Write(p []byte) (int, error) {
	if s.n+len(p) > len(s.want) || !bytes.Equal(p, s.want[s.n:s.n+len(p)]) {
		s.differ = true
	}
	s.n += len(p)
	return len(p), nil
}

// benchRemittance is a Bradesco CNAB 400 remittance of n titles.
func benchRemittance(b *testing.B, n int) []byte {
	b.Helper()
	var buf bytes.Buffer
	w, err := cnab.NewWriter(&buf, cnab.Remittance{Bank: "237", Layout: cnab.CNAB400, Sequence: 1, Created: time.Now(),
		Beneficiary: cnab.Beneficiary{Name: "Bench Imóveis", Document: "11222333000181", Agency: "1234", AgencyDigit: "5",
			Account: "0012345", AccountDigit: "6", Wallet: "09", Covenant: "00000000000004567890"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	due := cnab.DateOf(time.Now().AddDate(0, 0, 10))
	for i := range n {
		err := w.Write(cnab.Title{OurNumber: int64(i + 1), DocumentNumber: fmt.Sprint(i + 1), Control: fmt.Sprint(i + 1),
			Amount: decimal.New(int64(100000+i%50000), -2), Issued: cnab.DateOf(time.Now()), Due: due,
			Payer: cnab.Payer{Name: "João da Silva", Document: "12345678909", Address: "Rua das Acácias 123",
				District: "Centro", City: "Porto Alegre", State: "RS", ZIP: "90000123"}})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
