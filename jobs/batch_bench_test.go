package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
		ret := benchReturnOf(b, stored.Content)
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
		b.ReportMetric(settle.Seconds(), "return-s")
		b.ReportMetric(ledger.Seconds(), "bare-ledger-s")
		b.ReportMetric(writes.Seconds(), "bare-writes-s")
		b.ReportMetric(bareRead.Seconds(), "bare-reader-s")
		b.ReportMetric(float64(len(raw))/1e6, "report-MB")
		b.ReportMetric(float64(len(stored.Content))/1e6, "file-MB")
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
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback(ctx)
	start := time.Now()
	exec := func(sql string) {
		b.Helper()
		if _, err := tx.Exec(ctx, sql, company); err != nil {
			b.Fatalf("%.60s: %v", sql, err)
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
		FROM transactions WHERE company_id = $1 AND mode = 'invoice' ORDER BY id`)
	ledger = time.Since(start)
	exec(`UPDATE invoices SET paid_at = paid_at + 1, credit_at = credit_at + 1, status = 'paid',
		    paid_amount = paid_amount + 0.01, paid_late_fee = paid_late_fee + 0.01, paid_interest = paid_interest + 0.01,
		    paid_discount = paid_discount + 0.01, updated_at = now()
		WHERE company_id = $1 AND paid`)
	exec(`INSERT INTO invoice_items (company_id, invoice_id, kind, item_id, amount, description)
		SELECT company_id, invoice_id, kind, item_id, amount, description FROM invoice_items
		WHERE company_id = $1 AND kind <> 'line' ORDER BY id`)
	exec(`INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes, note)
		SELECT company_id, invoice_id, actor, actor_id, origin, changes, note FROM invoice_history
		WHERE company_id = $1 AND origin = 'payment' ORDER BY id`)
	exec(`INSERT INTO batch_return_lines (company_id, file_id, line, batch_type, code, occurrence, our_number, member_id,
		    outcome, message, paid, expected, difference, job_id)
		SELECT company_id, file_id, line + 1000000, batch_type, code, occurrence, our_number, member_id,
		    outcome, message, paid, expected, difference, job_id FROM batch_return_lines
		WHERE company_id = $1 ORDER BY file_id, line`)
	return ledger, time.Since(start)
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
			terms := ticketTerms{fine: t.FinePercent, perDay: t.InterestPerDay, monthly: t.InterestMonthlyPercent,
				discount: t.Discount, until: t.DiscountUntil}
			titles = append(titles, s.title(t.InvoiceID, t.DocumentNumber, t.OurNumber, t.Amount, t.Due, terms, &t.Payer))
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
