package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// benchTitles is the size of the collection batch the benchmark measures.
const benchTitles = 100_000

// BenchmarkTicketBatch measures a collection batch of 100,000 invoices of
// one Bradesco CNAB 400 account (one rent line each, one owner), in a
// fresh database each iteration:
//
//   - add: one addInvoices of the 100,000 ids (checks, nosso números,
//     slips, histories);
//   - file: the batch:file handler as a worker runs it (the account's
//     NSA, the titles streamed from the database through the cnab writer,
//     the file stored, the batch closed), in titles per second, beside
//     the bare cnab writer on the same titles held in memory;
//   - return: the batch:return handler over a 100,000-line return of that
//     file (every title paid, one in ten with interest), which settles the
//     invoices and posts their payments, beside the bare retorno reader
//     on the same bytes and beside the bare writes of the rows it wrote
//     (benchBareWrites). The return's statements are timed from Go
//     (storagetest.StatementTimes) and listed in the log, the longest
//     first.
//
// Run it once a count:
//
//	go test -run '^$' -bench TicketBatch -benchtime 1x -count 3 -timeout 60m ./jobs
func BenchmarkTicketBatch(b *testing.B) {
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		times := &storagetest.StatementTimes{}
		pool := storagetest.TimedDB(b, times)
		company, _, err := storage.EnsureCompany(ctx, pool, "Bench")
		if err != nil {
			b.Fatal(err)
		}
		s := newTicketSetup(b, pool, company)
		ids := benchTicketInvoices(b, s, benchTitles)
		var batch int64
		if err := pool.QueryRow(ctx, `INSERT INTO ticket_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`,
			company, s.account).Scan(&batch); err != nil {
			b.Fatal(err)
		}

		start := time.Now()
		ans, err := ChangeBatchMembers(ctx, pool, TicketBatchKind, storage.Company(company), batch, storage.OpAdd, ids)
		if err != nil || len(ans.Done) != benchTitles {
			b.Fatalf("add: %v, %d added, refused %v", err, len(ans.Done), ans.Refused[:min(3, len(ans.Refused))])
		}
		b.ReportMetric(time.Since(start).Seconds(), "add-s")

		titles, rem := benchTitlesOf(b, pool, company, batch, s.account)
		var bare bytes.Buffer
		bare.Grow(benchTitles*402 + 1000) // allocated before: the writer alone is timed
		start = time.Now()
		benchBareWrite(b, &bare, rem, titles)
		bareWrite := time.Since(start)

		r := benchStarted(b, pool, company, KindBatchFile, BatchFilePayload{Batch: "ticket", ID: batch})
		start = time.Now()
		out, err := runBatchFile(ctx, r, BatchFilePayload{Batch: "ticket", ID: batch})
		file := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		var fr BatchFileResult
		if err := json.Unmarshal(out.(json.RawMessage), &fr); err != nil || fr.Titles != benchTitles {
			b.Fatalf("file: %v %+v", err, fr)
		}
		b.ReportMetric(float64(benchTitles)/file.Seconds(), "file-titles/s")
		b.ReportMetric(float64(benchTitles)/bareWrite.Seconds(), "bare-writer-titles/s")
		b.ReportMetric(bareWrite.Seconds()/file.Seconds(), "file-bare/job")

		stored, err := storage.ReadBatchFile(ctx, pool, company, fr.FileID, true)
		if err != nil {
			b.Fatal(err)
		}
		content, err := stored.Content()
		if err != nil {
			b.Fatal(err)
		}
		ret := benchReturnOf(b, content)
		start = time.Now()
		events := benchBareRead(b, ret)
		bareRead := time.Since(start)
		if events != benchTitles {
			b.Fatalf("the bare reader read %d events", events)
		}
		f, _, err := storage.SaveReturnFile(ctx, pool, storage.TicketBatch, company, "bench.ret", 0, ret)
		if err != nil {
			b.Fatal(err)
		}
		r = benchStarted(b, pool, company, KindBatchReturn, BatchReturnPayload{Batch: "ticket", FileID: f.ID})
		times.Reset()
		start = time.Now()
		res, err := runBatchReturn(ctx, r, BatchReturnPayload{Batch: "ticket", FileID: f.ID})
		settle := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		var rr BatchReturnResult
		raw := res.(json.RawMessage)
		if err := json.Unmarshal(raw, &rr); err != nil || rr.Outcomes["settled"] != benchTitles {
			b.Fatalf("return: %v %v", err, rr.Outcomes)
		}
		b.Logf("the return's statements, timed from Go (%s in all):\n%s", settle.Round(time.Millisecond), times.Report())
		ledger, writes := benchBareWrites(b, pool, company)
		ledger2, writes2 := benchBareWritesAtOnce(b, pool, company, returnWorkers)
		b.ReportMetric(settle.Seconds(), "return-s")
		b.ReportMetric(ledger.Seconds(), "bare-ledger-s")
		b.ReportMetric(writes.Seconds(), "bare-writes-s")
		b.ReportMetric(ledger2.Seconds(), "bare-ledger-2conn-s")
		b.ReportMetric(writes2.Seconds(), "bare-writes-2conn-s")
		b.ReportMetric(bareRead.Seconds(), "bare-reader-s")
		b.ReportMetric(float64(len(raw))/1e6, "report-MB")
		b.ReportMetric(float64(len(content))/1e6, "file-MB")
	}
}

// benchBareWrites times the writes the return job cannot do without, on
// the rows it wrote, set-based, in one transaction rolled back: its ledger
// entries inserted again by one INSERT ... SELECT (ledger), then, with
// them, the paid invoices' settlement columns rewritten, their settlement
// lines, history rows and the file's line records inserted again
// (writes, the ledger included).
func benchBareWrites(b *testing.B, pool *pgxpool.Pool, company int64) (ledger, writes time.Duration) {
	b.Helper()
	var err error
	ledger, writes, err = benchBareWritesPart(pool, company, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	return ledger, writes
}

// benchBareWritesAtOnce is benchBareWrites on parts connections at once,
// as the job's chunks in flight write: connection k the rows of the
// invoices whose id is k modulo parts, each in its transaction rolled
// back. It returns the times from the start to the last connection's end
// of its ledger and of all its writes.
func benchBareWritesAtOnce(b *testing.B, pool *pgxpool.Pool, company int64, parts int) (ledger, writes time.Duration) {
	b.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := make([]error, parts)
	start := time.Now()
	for k := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, _, err := benchBareWritesPart(pool, company, k, parts)
			mu.Lock()
			defer mu.Unlock()
			ledger, writes, errs[k] = max(ledger, l), max(writes, time.Since(start)), err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	return ledger, writes
}

// benchBareWritesPart does benchBareWrites' writes for the invoices whose
// id is part modulo parts, in a transaction rolled back.
func benchBareWritesPart(pool *pgxpool.Pool, company int64, part, parts int) (ledger, writes time.Duration, err error) {
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback(ctx)
	start := time.Now()
	exec := func(sql string) {
		if err != nil {
			return
		}
		if _, e := tx.Exec(ctx, sql, company, part, parts); e != nil {
			err = fmt.Errorf("%.60s: %w", sql, e)
		}
	}
	exec(`INSERT INTO transactions (company_id, split, invoice_id, morph_key, mode, type, account_id, business_id,
		    plan_id, item_id, person_id, building_id, contract_id, broker_id, owner_id, tenant_id, extract,
		    date, position, amount, percentage, competence, description, paid, due_date, billing_method,
		    guaranteed_transfer_id)
		SELECT company_id, split, invoice_id, morph_key, mode, type, account_id, business_id,
		    plan_id, item_id, person_id, building_id, contract_id, broker_id, owner_id, tenant_id, extract,
		    date, position, amount, percentage, competence, description, paid, due_date, billing_method,
		    guaranteed_transfer_id
		FROM transactions WHERE company_id = $1 AND mode = 'invoice' AND invoice_id % $3 = $2 ORDER BY id`)
	ledger = time.Since(start)
	exec(`UPDATE invoices SET paid_at = paid_at + 1, credit_at = credit_at + 1, status = 'paid',
		    paid_amount = paid_amount + 0.01, paid_late_fee = paid_late_fee + 0.01, paid_interest = paid_interest + 0.01,
		    paid_discount = paid_discount + 0.01, updated_at = now()
		WHERE company_id = $1 AND paid AND id % $3 = $2`)
	exec(`INSERT INTO invoice_items (company_id, invoice_id, kind, item_id, amount, description)
		SELECT company_id, invoice_id, kind, item_id, amount, description FROM invoice_items
		WHERE company_id = $1 AND kind <> 'line' AND invoice_id % $3 = $2 ORDER BY id`)
	exec(`INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes, note)
		SELECT company_id, invoice_id, actor, actor_id, origin, changes, note FROM invoice_history
		WHERE company_id = $1 AND origin = 'payment' AND invoice_id % $3 = $2 ORDER BY id`)
	exec(`INSERT INTO batch_return_lines (company_id, file_id, line, batch_type, code, occurrence, our_number, member_id,
		    outcome, message, paid, expected, difference, job_id)
		SELECT company_id, file_id, line + 1000000, batch_type, code, occurrence, our_number, member_id,
		    outcome, message, paid, expected, difference, job_id FROM batch_return_lines
		WHERE company_id = $1 AND line % $3 = $2 ORDER BY file_id, line`)
	return ledger, time.Since(start), err
}

// benchTicketInvoices writes n invoices billed by ticket to the setup's
// account, of its payer, on a building owned by one owner, each with one
// rent line (customer to owner), and the company's fee item.
func benchTicketInvoices(b testing.TB, s *ticketSetup, n int) []int64 {
	b.Helper()
	ctx := context.Background()
	var ids []int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			WITH owner AS (INSERT INTO persons (company_id, name) VALUES ($1, 'Olga Proprietária') RETURNING id),
			     building AS (INSERT INTO buildings (company_id, title) VALUES ($1, 'Aurora') RETURNING id),
			     share AS (INSERT INTO building_owners (company_id, building_id, person_id, percentage)
			               SELECT $1, building.id, owner.id, 100 FROM building, owner),
			     rent AS (INSERT INTO transaction_items (company_id, description, debit, credit, type)
			              VALUES ($1, 'Aluguel', 'customer', 'owner', 'rent') RETURNING id),
			     fee AS (INSERT INTO transaction_items (company_id, description, debit, credit, type)
			             VALUES ($1, 'Multa e juros', 'customer', 'owner', 'fee')),
			     inv AS (INSERT INTO invoices (company_id, type, payer_id, building_id, business_id, account_id,
			                 billing_method, description, total, date, due_date)
			             SELECT $1, 'single', $2, building.id, a.business_id, $3, 'ticket', 'Aluguel ' || g,
			                 1000 + g % 500, current_date, current_date + 10
			             FROM generate_series(1, $4::int) g, building, accounts a WHERE a.company_id = $1 AND a.id = $3
			             RETURNING id, total)
			INSERT INTO invoice_items (company_id, invoice_id, item_id, amount)
			SELECT $1, inv.id, rent.id, inv.total FROM inv, rent`, s.company, s.payer, s.account, n)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id FROM invoices WHERE company_id = $1 ORDER BY id`, s.company)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil || len(ids) != n {
		b.Fatalf("%d invoices: %v", len(ids), err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return ids
}

// benchTitlesOf reads a batch's titles and its remittance header, as the
// file job writes them, into memory: the bare writer's input.
func benchTitlesOf(b *testing.B, pool *pgxpool.Pool, company, batch, account int64) ([]cnab.Title, cnab.Remittance) {
	b.Helper()
	ctx := context.Background()
	var titles []cnab.Title
	var rem cnab.Remittance
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		acc, err := storage.ReadBankAccount(ctx, tx, company, account)
		if err != nil {
			return err
		}
		today, err := storage.CompanyToday(ctx, tx, company)
		if err != nil {
			return err
		}
		s, err := newSlipIssuer(acc, today, 1)
		if err != nil {
			return err
		}
		rem = s.rem
		bt, err := storage.GetBatch(ctx, tx, storage.TicketBatch, company, batch)
		if err != nil {
			return err
		}
		return storage.EachTicketTitle(ctx, tx, bt, func(t *storage.TicketTitle) error {
			titles = append(titles, s.titleOf(t))
			return nil
		})
	})
	if err != nil || len(titles) != benchTitles {
		b.Fatalf("%d titles: %v", len(titles), err)
	}
	return titles, rem
}

// benchBareWrite writes the titles with package cnab's writer alone.
func benchBareWrite(b *testing.B, w io.Writer, rem cnab.Remittance, titles []cnab.Title) {
	b.Helper()
	wr, err := cnab.NewWriter(w, rem, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range titles {
		if err := wr.Write(t); err != nil {
			b.Fatal(err)
		}
	}
	if err := wr.Close(); err != nil {
		b.Fatal(err)
	}
}

// benchBareRead reads a return file with package cnab/retorno alone,
// counting its events.
func benchBareRead(b *testing.B, file []byte) int {
	b.Helper()
	rd, err := retorno.NewReader(bytes.NewReader(file), retorno.Options{})
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
	return n
}

// benchReturnOf writes the Bradesco CNAB 400 return of a remittance:
// every title paid yesterday and credited today, one in ten with 5.00 of
// interest, at the positions of the bank's Arquivo-Retorno.
func benchReturnOf(b testing.TB, remittance []byte) []byte {
	b.Helper()
	return bradescoReturnOf(b, remittance, 0)
}

// bradescoReturnOf is benchReturnOf with apart lines between two titles'
// lines, each paying a title no batch has (nosso número 9 followed by its
// count).
func bradescoReturnOf(b testing.TB, remittance []byte, apart int) []byte {
	b.Helper()
	recs := strings.Split(strings.TrimSuffix(string(remittance), "\r\n"), "\r\n")
	now := time.Now()
	paid, credit := now.AddDate(0, 0, -1).Format("020106"), now.Format("020106")
	var out bytes.Buffer
	n := 0
	write := func(fill func(line []byte)) {
		line := bytes.Repeat([]byte{' '}, 400)
		fill(line)
		n++
		copy(line[394:], fmt.Sprintf("%06d", n))
		out.Write(line)
		out.WriteString("\r\n")
	}
	write(func(l []byte) {
		copy(l, "02RETORNO01COBRANCA")
		copy(l[76:], "237BRADESCO")
		copy(l[94:], credit)
	})
	unknown := 0
	for i, d := range recs[1 : len(recs)-1] {
		var amount int64
		fmt.Sscanf(d[126:139], "%d", &amount)
		interest := int64(0)
		if i%10 == 0 {
			interest = 500
		}
		for range apart * min(i, 1) {
			unknown++
			write(func(l []byte) {
				l[0] = '1'
				copy(l[70:], fmt.Sprintf("9%010d0", unknown))
				copy(l[107:], "906")
				copy(l[110:], paid)
				copy(l[152:], fmt.Sprintf("%013d", 5000))
				copy(l[175:], strings.Repeat("0", 13*9))
				copy(l[253:], fmt.Sprintf("%013d%013d%013d", 5000, 0, 0))
				copy(l[295:], credit)
			})
		}
		write(func(l []byte) {
			l[0] = '1'
			copy(l[37:], d[37:62])
			copy(l[70:], d[70:82])
			copy(l[107:], "906")
			copy(l[110:], paid)
			copy(l[146:], d[120:126])
			copy(l[152:], fmt.Sprintf("%013d", amount))
			copy(l[175:], strings.Repeat("0", 13*9))
			copy(l[253:], fmt.Sprintf("%013d%013d%013d", amount+interest, interest, 0))
			copy(l[295:], credit)
		})
	}
	write(func(l []byte) { copy(l, "9201237") })
	return out.Bytes()
}

// benchStarted is a started job of kind with payload, as a worker hands
// it to its handler.
func benchStarted(b testing.TB, pool *pgxpool.Pool, company int64, kind string, payload any) *Run {
	b.Helper()
	ctx := context.Background()
	job, _, err := storage.SubmitJob(ctx, pool, company, storage.NewJob{Kind: kind, Queue: QueueCritical,
		Payload: mustJSON(payload), SubmittedBy: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	started, ok, err := storage.StartJob(ctx, pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: company, ID: job.ID}})
	if err != nil || !ok {
		b.Fatalf("start: %v %t", err, ok)
	}
	return &Run{Job: started, pool: pool}
}

// BenchmarkTicketBatchFile measures the batch:file job alone, several
// times on one batch of 100,000 titles: the members' rows are seeded
// set-based (as addInvoices leaves them: one payer, one rent line), and
// each iteration runs the job as a worker does, then reopens the batch
// (its file deleted, the account's NSA given back). Beside each run, in
// the same iteration: the bare cnab writer on the same titles held in
// memory, and the rows alone read through storage.EachTicketTitle.
//
//	go test -run '^$' -bench TicketBatchFile -benchtime 5x ./jobs
func BenchmarkTicketBatchFile(b *testing.B) {
	ctx := context.Background()
	pool := storagetest.NewDB(b)
	company, _, err := storage.EnsureCompany(ctx, pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	s := newTicketSetup(b, pool, company)
	benchTicketInvoices(b, s, benchTitles)
	batch := benchSeedMembers(b, s)
	titles, rem := benchTitlesOf(b, pool, company, batch, s.account)
	payload := BatchFilePayload{Batch: "ticket", ID: batch}
	var job, bare, read time.Duration
	var size int
	var out bytes.Buffer
	out.Grow(benchTitles*402 + 1000) // the bare writer's output, allocated once: the writer alone is timed
	for range b.N {
		out.Reset()
		start := time.Now()
		benchBareWrite(b, &out, rem, titles)
		bareRun := time.Since(start)
		readRun := benchReadTitles(b, pool, company, batch)
		r := benchStarted(b, pool, company, KindBatchFile, payload)
		start = time.Now()
		res, err := runBatchFile(ctx, r, payload)
		jobRun := time.Since(start)
		b.Logf("job %s (%.0f titles/s), bare writer %s (%.0f titles/s), rows read %s, job/bare %.2f",
			jobRun.Round(time.Millisecond), benchTitles/jobRun.Seconds(), bareRun.Round(time.Millisecond),
			benchTitles/bareRun.Seconds(), readRun.Round(time.Millisecond), bareRun.Seconds()/jobRun.Seconds())
		job, bare, read = job+jobRun, bare+bareRun, read+readRun
		var fr BatchFileResult
		if err == nil {
			err = json.Unmarshal(res.(json.RawMessage), &fr)
		}
		if err != nil || fr.Titles != benchTitles || fr.Bytes != out.Len() {
			b.Fatalf("file: %v %d titles, %d bytes, bare %d", err, fr.Titles, fr.Bytes, out.Len())
		}
		size = fr.Bytes
		benchReopen(b, pool, company, batch, s.account)
	}
	n := float64(b.N * benchTitles)
	b.ReportMetric(n/job.Seconds(), "file-titles/s")
	b.ReportMetric(n/bare.Seconds(), "bare-writer-titles/s")
	b.ReportMetric(n/read.Seconds(), "rows-read-titles/s")
	b.ReportMetric(bare.Seconds()/job.Seconds(), "file-bare/job")
	b.ReportMetric(float64(size)/1e6, "file-MB")
	b.ReportMetric(0, "ns/op")
}

// benchSeedMembers adds the company's invoices to a new batch of the
// setup's account set-based, as addInvoices leaves them (nosso números
// from 1 in invoice order, the payer's data copied, the batch's count and
// total), and returns the batch.
func benchSeedMembers(b *testing.B, s *ticketSetup) int64 {
	b.Helper()
	ctx := context.Background()
	var batch int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO ticket_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`,
			s.company, s.account).Scan(&batch)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO ticket_batch_invoices (company_id, batch_id, invoice_id, account_id, our_number, nosso_numero,
			    amount, due_date, document_number, payer_name, payer_document, payer_address, payer_district,
			    payer_city, payer_state, payer_zip)
			SELECT i.company_id, $2, i.id, i.account_id, row_number() OVER (ORDER BY i.id),
			       lpad((row_number() OVER (ORDER BY i.id))::text, 11, '0'), i.total, i.due_date, i.id::text,
			       p.name, p.tax_id, p.street || ' ' || p.number, p.district, p.city, p.state, p.zip_code
			FROM invoices i JOIN persons p ON p.company_id = i.company_id AND p.id = i.payer_id
			WHERE i.company_id = $1 AND i.account_id = $3`, s.company, batch, s.account)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE ticket_batches b SET titles = m.n, total = m.total
			FROM (SELECT count(*) AS n, sum(amount) AS total FROM ticket_batch_invoices WHERE company_id = $1 AND batch_id = $2) m
			WHERE b.company_id = $1 AND b.id = $2`, s.company, batch)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `VACUUM (ANALYZE) ticket_batch_invoices`); err != nil {
		b.Fatal(err)
	}
	return batch
}

// benchReadTitles reads a batch's titles as the file job does, doing
// nothing with them, and times it.
func benchReadTitles(b *testing.B, pool *pgxpool.Pool, company, batch int64) time.Duration {
	b.Helper()
	ctx := context.Background()
	n := 0
	start := time.Now()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		bt, err := storage.GetBatch(ctx, tx, storage.TicketBatch, company, batch)
		if err != nil {
			return err
		}
		return storage.EachTicketTitle(ctx, tx, bt, func(*storage.TicketTitle) error {
			n++
			return nil
		})
	})
	if err != nil || n != benchTitles {
		b.Fatalf("%d titles read: %v", n, err)
	}
	return time.Since(start)
}

// benchReopen undoes a batch's file: the file deleted, the batch open
// again, the account's next NSA back to 1.
func benchReopen(b *testing.B, pool *pgxpool.Pool, company, batch, account int64) {
	b.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE ticket_batches SET status = 'open', file_id = NULL, file_sequence = NULL,
			file_name = NULL, closed_at = NULL WHERE company_id = $1 AND id = $2`, company, batch); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM batch_files WHERE company_id = $1 AND batch_id = $2`, company, batch); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE accounts SET next_file_sequence = 1 WHERE company_id = $1 AND id = $2`, company, account)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}
