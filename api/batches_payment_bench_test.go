package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/pagamento"
	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// The payment batch benchmark's batch: entries of one company, eight in
// ten TEDs to Banco do Brasil, one a credit in account at Bradesco, one a
// boleto of Itaú.
const benchPayments = 100_000

// BenchmarkPaymentBatch measures a payment batch of 100,000 payable
// entries through the API and a worker: addTransactions of all of them in
// one call; the batch:file job (worker time, from its start to its
// recorded end), beside the bare cnab/pagamento writer writing the same
// payments from memory (and the two files compared record by record, the
// header's time aside) and beside the read of the same rows into memory
// (storage.EachPaymentMember, as the job reads them); the download of the stored file over loopback
// HTTP; and a return file of 100,000 paid payments made from the file,
// uploaded and settled by batch:return (worker time), beside the bare
// cnab/retorno reader reading the same bytes and beside the bare
// set-based writes of the same rows (bareSettleWrites), its statements
// timed from Go and listed in the log. Every entry must be paid at the
// end. Each run seeds anew:
//
//	go test -run '^$' -bench PaymentBatch -benchtime 1x -count 3 ./api
func BenchmarkPaymentBatch(b *testing.B) {
	if b.N != 1 {
		b.Fatal("run with -benchtime 1x: each run needs the seeded state")
	}
	e := paymentBenchEnv(b)
	ids := seedPaymentBench(b, e)
	batch := benchJSON(b, e, http.MethodPost, "/financial/paymentBatch", map[string]any{"account_id": e.account}, http.StatusCreated)
	batchID := int64(batch["data"].(map[string]any)["id"].(float64))

	began := time.Now()
	added := benchJSON(b, e, http.MethodPost, fmt.Sprintf("/financial/paymentBatch/%d/addTransactions", batchID),
		map[string]any{"transactions": ids}, http.StatusOK)
	add := time.Since(began)
	if refused := added["data"].(map[string]any)["refused"].([]any); len(refused) > 0 {
		b.Fatalf("%d of %d refused, the first: %v", len(refused), benchPayments, refused[0])
	}

	bareDB, bare, bareFile := barePaymentFile(b, e, batchID)
	path := fmt.Sprintf("/financial/paymentBatch/%d/downloadBatchFile", batchID)
	job := benchJSON(b, e, http.MethodGet, path, nil, http.StatusAccepted)
	fileJob := benchJobTime(b, e, int64(job["data"].(map[string]any)["id"].(float64)))
	began = time.Now()
	status, file := benchRaw(b, e, http.MethodGet, path, "", nil)
	download := time.Since(began)
	if status != http.StatusOK {
		b.Fatalf("download: %d", status)
	}
	sameRecords(b, file, bareFile)

	ret := paymentReturnOf(b, file, func(string) paidLine { return paidLine{codes: "00", date: time.Now()} })
	bareRead := bareReturnRead(b, ret)
	e.times.Reset()
	began = time.Now()
	status, body := benchRaw(b, e, http.MethodPost, "/financial/paymentBatch/returnFile", "application/octet-stream", ret)
	upload := time.Since(began)
	if status != http.StatusAccepted {
		b.Fatalf("return upload: %d %s", status, body)
	}
	var accepted map[string]any
	if err := json.Unmarshal(body, &accepted); err != nil {
		b.Fatal(err)
	}
	returnJob := benchJobTime(b, e, int64(accepted["data"].(map[string]any)["id"].(float64)))
	b.Logf("the upload's and the return job's statements, timed from Go:\n%s", e.times.Report())
	var paid int64
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM transactions WHERE company_id = $1 AND paid`,
		e.company).Scan(&paid); err != nil || paid != benchPayments {
		b.Fatalf("entries paid: %d (%v)", paid, err)
	}
	bareSettle := bareSettleWrites(b, e)
	b.Logf("file %d bytes; add %s; file job %s, the rows read %s, bare writer %s; download %s; return upload %s, job %s, "+
		"bare reader %s, bare writes %s", len(file), add.Round(time.Millisecond), fileJob.Round(time.Millisecond),
		bareDB.Round(time.Millisecond), bare.Round(time.Millisecond), download.Round(time.Millisecond),
		upload.Round(time.Millisecond), returnJob.Round(time.Millisecond), bareRead.Round(time.Millisecond),
		bareSettle.Round(time.Millisecond))
	b.ReportMetric(add.Seconds(), "add-s")
	b.ReportMetric(benchPayments/fileJob.Seconds(), "file-payments/s")
	b.ReportMetric(benchPayments/bare.Seconds(), "bare-write-payments/s")
	b.ReportMetric(bareDB.Seconds(), "rows-read-s")
	b.ReportMetric(download.Seconds(), "download-s")
	b.ReportMetric(returnJob.Seconds(), "return-s")
	b.ReportMetric(bareRead.Seconds(), "bare-read-s")
	b.ReportMetric(bareSettle.Seconds(), "bare-writes-s")
	b.ReportMetric(0, "ns/op")
}

// paymentBench is the running API and worker of the benchmark, with its
// company, key and account.
type paymentBench struct {
	*testEnv
	company, account int64
	key              string
	times            *storagetest.StatementTimes // the pool's statements, timed
}

// paymentBenchEnv starts the API and a worker over a database of the
// benchmark's own.
func paymentBenchEnv(b *testing.B) *paymentBench {
	times := &storagetest.StatementTimes{}
	pool := storagetest.TimedDB(b, times)
	mr := miniredis.RunT(b)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	b.Cleanup(func() { rdb.Close() })
	srv := New(Config{Store: storage.NewStore(pool, storage.DefaultRegistry()), Redis: rdb, RateLimit: 1 << 30,
		RequestTimeout: 5 * time.Minute, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	ctx := context.Background()
	company, user, err := storage.EnsureCompany(ctx, pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	key, err := storage.CreateAPIKey(ctx, pool, company, user, "bench")
	if err != nil {
		b.Fatal(err)
	}
	e := &paymentBench{testEnv: &testEnv{url: ts.URL, pool: pool, redis: mr}, company: company, key: key.Key, times: times}
	withWorkers(b, e.testEnv)
	return e
}

// seedPaymentBench seeds the company's business, its Bradesco CNAB 240
// account, six payees and the entries, set-based, and returns the
// entries' ids.
func seedPaymentBench(b *testing.B, e *paymentBench) []int64 {
	ctx := context.Background()
	barcode := boletoBarcode(b, "150.00", 5)
	began := time.Now()
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		for _, s := range []string{
			`INSERT INTO businesses (company_id, name, tax_id) VALUES ($1, 'Imobiliária', '11222333000181')`,
			`INSERT INTO accounts (company_id, business_id, bank, layout, agency, agency_digit, account, account_digit,
			     payment_covenant) SELECT $1, id, '237', 'cnab240', '1234', '5', '12345', '6', '123456' FROM businesses WHERE company_id = $1`,
			`INSERT INTO persons (company_id, name, tax_id, bank, agency, agency_digit, account, account_digit, account_type)
			 SELECT $1, 'Fornecedor ' || g, (ARRAY['60746948000112', '11144477735', '39053344705', '52998224725',
			        '12345678909', '33000167000101'])[g], CASE WHEN g = 2 THEN '237' ELSE '001' END, '3456', '7', '123456', '8', 'checking'
			 FROM generate_series(1, 6) g`,
		} {
			if _, err := tx.Exec(ctx, s, e.company); err != nil {
				return fmt.Errorf("%.50s: %w", s, err)
			}
		}
		return tx.QueryRow(ctx, `SELECT id FROM accounts WHERE company_id = $1`, e.company).Scan(&e.account)
	})
	if err != nil {
		b.Fatal(err)
	}
	rows, err := e.pool.Query(ctx, `
		INSERT INTO transactions (company_id, type, mode, description, amount, date, due_date, person_id, billing_method,
		    ticket_barcode)
		SELECT $1, 'debit', 'transaction', 'Conta ' || g, CASE WHEN g % 10 = 9 THEN 150 ELSE 100 + (g % 5000) / 100.0 END,
		       $4::date, $5::date, p.ids[CASE WHEN g % 10 = 8 THEN 2 WHEN g % 10 = 9 THEN 6 ELSE 1 + g % 5 END],
		       CASE WHEN g % 10 = 9 THEN 'ticket' WHEN g % 10 = 8 THEN 'deposit' ELSE 'ted' END,
		       CASE WHEN g % 10 = 9 THEN $2 END
		FROM generate_series(1, $3::int) g,
		     (SELECT array_agg(id ORDER BY id) AS ids FROM persons WHERE company_id = $1) p
		ORDER BY g
		RETURNING id`, e.company, barcode, benchPayments, today(0), today(5))
	if err != nil {
		b.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `VACUUM (ANALYZE) transactions, persons`); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d entries in %s", len(ids), time.Since(began).Round(10*time.Millisecond))
	return ids
}

// barePaymentFile writes the batch's payments, read from the database
// before its file job in the order the job reads them, with the bare
// cnab/pagamento writer into memory. It times the read (the rows into
// memory) and the writer apart.
func barePaymentFile(b *testing.B, e *paymentBench, batchID int64) (read, write time.Duration, file []byte) {
	ctx := context.Background()
	var payments []pagamento.Payment
	var today finance.Date
	began := time.Now()
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		var err error
		if today, err = storage.CompanyToday(ctx, tx, e.company); err != nil {
			return err
		}
		bt, err := storage.GetBatch(ctx, tx, storage.PaymentBatch, e.company, batchID)
		if err != nil {
			return err
		}
		return storage.EachPaymentMember(ctx, tx, bt, func(m *storage.PaymentMember) error {
			payments = append(payments, benchPayment(m))
			return nil
		})
	})
	if err != nil {
		b.Fatal(err)
	}
	read = time.Since(began)
	rem := pagamento.Remittance{Bank: "237", Sequence: 1, Created: today.Time(), Payer: pagamento.Payer{
		Name: "Imobiliária", Document: "11222333000181", Agency: "1234", AgencyDigit: "5", Account: "12345",
		AccountDigit: "6", Covenant: "123456"}}
	var out bytes.Buffer
	out.Grow(benchPayments * 2 * 242)
	began = time.Now()
	sum, err := pagamento.WriteAll(&out, rem, func(yield func(pagamento.Payment) bool) {
		for _, p := range payments {
			if !yield(p) {
				return
			}
		}
	})
	write = time.Since(began)
	if err != nil || sum.Payments != benchPayments {
		b.Fatalf("bare writer: %d payments, %v %v", sum.Payments, err, sum.Problems)
	}
	return read, write, out.Bytes()
}

// benchPayment is a member of the benchmark's batch (a TED, a credit in
// account or a boleto, due in five days) as cnab/pagamento takes it.
func benchPayment(m *storage.PaymentMember) pagamento.Payment {
	y, mo, d := m.Due.Date()
	due := cnab.Date{Year: y, Month: mo, Day: d}
	p := pagamento.Payment{Kind: pagamento.KindTransfer, Reference: m.Reference, Amount: m.Amount, Date: due,
		Beneficiary: pagamento.Beneficiary{Name: m.PayeeName, Document: m.PayeeDocument},
		Account: pagamento.Account{Bank: m.Bank, Agency: m.Agency, AgencyDigit: m.AgencyDigit, Account: m.Account,
			AccountDigit: m.AccountDigit, Type: pagamento.AccountType(m.AccountType)}}
	if m.Method == storage.MethodBoleto {
		p.Kind, p.Account, p.Barcode, p.Due, p.Nominal = pagamento.KindBoleto, pagamento.Account{}, m.Barcode, due, m.Nominal
	}
	return p
}

// sameRecords requires two remittances to hold the same records, the
// file header's date and time (144-157) aside.
func sameRecords(b *testing.B, got, want []byte) {
	g, w := bytes.Split(got, []byte("\r\n")), bytes.Split(want, []byte("\r\n"))
	if len(g) != len(w) {
		b.Fatalf("the job's file has %d records, the bare writer's %d", len(g), len(w))
	}
	for i := range g {
		gi, wi := g[i], w[i]
		if i == 0 && len(gi) == 240 && len(wi) == 240 {
			gi, wi = append(gi[:143:143], gi[157:]...), append(wi[:143:143], wi[157:]...)
		}
		if !bytes.Equal(gi, wi) {
			b.Fatalf("record %d differs:\n%s\n%s", i+1, g[i], w[i])
		}
	}
}

// bareReturnRead reads a return file with the bare cnab/retorno reader,
// counting its events, and times it.
func bareReturnRead(b *testing.B, ret []byte) time.Duration {
	began := time.Now()
	rd, err := retorno.NewReader(bytes.NewReader(ret), retorno.Options{})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, err := range rd.All() {
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
	took := time.Since(began)
	if n != benchPayments {
		b.Fatalf("bare reader: %d events", n)
	}
	return took
}

// bareSettleWrites times the row writes a settlement cannot do without,
// set-based, in one transaction, on the rows the return job settled: the
// 100,000 entries' paid, date and amounts, and the 100,000 payments'
// state and paid amounts (each to a new value, so that every row is
// written as the job writes it, with new entries in every index).
func bareSettleWrites(b *testing.B, e *paymentBench) time.Duration {
	ctx := context.Background()
	began := time.Now()
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE transactions SET paid = true, date = date + 1, amount_primary = amount,
			amount = amount + 0.01, updated_at = now() WHERE company_id = $1`, e.company); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE payment_batch_transactions SET state = 'failed', paid_at = paid_at + 1,
			paid_amount = paid_amount + 0.01, updated_at = now() WHERE company_id = $1`, e.company)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(began)
}

// benchJobTime waits for a job of the company and returns its worker
// time, from its start to its end as recorded.
func benchJobTime(b *testing.B, e *paymentBench, id int64) time.Duration {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		job, err := storage.GetJob(context.Background(), e.pool, e.company, id)
		if err != nil {
			b.Fatal(err)
		}
		if job.Finished() {
			if job.State != storage.JobSucceeded {
				b.Fatalf("job %d (%s): %s %s", id, job.Kind, job.State, job.Error)
			}
			return job.FinishedAt.Sub(*job.StartedAt)
		}
		if time.Now().After(deadline) {
			b.Fatalf("job %d still %s", id, job.State)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// benchRaw is a request of the benchmark's company; its status and body.
func benchRaw(b *testing.B, e *paymentBench, method, path, contentType string, body []byte) (int, []byte) {
	req, err := http.NewRequest(method, e.url+path, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		b.Fatal(err)
	}
	return res.StatusCode, out
}

// benchJSON is a JSON request expecting status; the decoded answer.
func benchJSON(b *testing.B, e *paymentBench, method, path string, body any, status int) map[string]any {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			b.Fatal(err)
		}
	}
	got, out := benchRaw(b, e, method, path, "application/json", raw)
	if got != status {
		b.Fatalf("%s %s: %d, want %d: %.500s", method, path, got, status, out)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		b.Fatal(err)
	}
	return v
}
