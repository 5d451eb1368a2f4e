package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// benchContracts is the size of the nightly run the benchmark measures.
const benchContracts = 100_000

// BenchmarkNightlyGeneration measures the nightly invoice generation of
// 100,000 contracts (one invoice each, two lines: the rent and one
// contract item), the job's handler run as a worker runs it (chunks of
// 1,000 contracts, each read, scheduled and written in its transaction
// with its record), beside the bare insert of the same rows (COPY of the
// invoices and their lines into the same tables), each in a fresh
// database. It reports the seconds of each; run it once a count:
//
//	go test -run '^$' -bench NightlyGeneration -benchtime 1x -count 3 ./jobs
func BenchmarkNightlyGeneration(b *testing.B) {
	b.Run("generate", func(b *testing.B) {
		times := &storagetest.StatementTimes{}
		pool, company := benchGenerationDB(b, times)
		for range b.N {
			times.Reset()
			cpu := benchCPUStart(pool)
			cold := benchGenerate(b, pool, company)
			cpu.report(b, "cold")
			b.Logf("cold run's statements, timed from Go (%s in all):\n%s", cold.Round(time.Millisecond), times.Report())
			b.ReportMetric(cold.Seconds(), "cold-s/run")
			// the same run again once its invoices are deleted: the
			// database's cached plans were made with invoices full
			if _, err := pool.Exec(context.Background(), `DELETE FROM invoices`); err != nil {
				b.Fatal(err)
			}
			times.Reset()
			cpu = benchCPUStart(pool)
			warm := benchGenerate(b, pool, company)
			cpu.report(b, "warm")
			b.Logf("warm run's statements, timed from Go (%s in all):\n%s", warm.Round(time.Millisecond), times.Report())
			b.ReportMetric(warm.Seconds(), "warm-s/run")
		}
	})
	// the same run with an endpoint subscribed to invoice.created: the
	// cost of the 100,000 events, deliveries and delivery jobs written
	// with the invoices
	b.Run("generate-subscribed", func(b *testing.B) {
		pool, company := benchGenerationDB(b, nil)
		if _, err := pool.Exec(context.Background(), `INSERT INTO webhook_endpoints (company_id, url, events, secret)
			VALUES ($1, 'https://93.184.216.34/hooks', '{invoice.created}', 'whsec_x')`, company); err != nil {
			b.Fatal(err)
		}
		for range b.N {
			b.ReportMetric(benchGenerate(b, pool, company).Seconds(), "cold-s/run")
		}
		var events int
		if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_events`).Scan(&events); err != nil || events != benchContracts*b.N {
			b.Fatalf("%d events (%v), want %d", events, err, benchContracts*b.N)
		}
	})
	// the same run of contracts readjusted twice each (readjustments
	// stored after the period billed: every rent line is read from the
	// history): the cost of the rent history's read and rule
	b.Run("generate-readjusted", func(b *testing.B) {
		pool, company := benchGenerationDB(b, nil)
		if _, err := pool.Exec(context.Background(), `INSERT INTO contract_readjustments (company_id, contract_id,
				readjust_at, outcome, indicator, index_used, months, factor, variation, old_amount, new_amount,
				next_readjust_at, actor)
			SELECT company_id, id, r.at, 'readjusted', 'IPCA', 'IPCA', '{}', 1.025, 2.5, r.old, r.old * 1.025,
				r.at + interval '12 months', 'job'
			FROM contracts, (VALUES ('2027-12-01'::date, 1950.00), ('2028-12-01'::date, 1998.75)) AS r (at, old)
			WHERE company_id = $1`, company); err != nil {
			b.Fatal(err)
		}
		for range b.N {
			cpu := benchCPUStart(pool)
			b.ReportMetric(benchGenerate(b, pool, company).Seconds(), "cold-s/run")
			cpu.report(b, "cold")
		}
		var rent string
		if err := pool.QueryRow(context.Background(), `SELECT min(amount)::text || '-' || max(amount)::text FROM invoice_items
			WHERE company_id = $1 AND description = 'Aluguel'`, company).Scan(&rent); err != nil || rent != "1950.00-1950.00" {
			b.Fatalf("rent lines %s (%v), want 1950.00 each", rent, err)
		}
	})
	b.Run("bare-copy", func(b *testing.B) {
		pool, company := benchGenerationDB(b, nil)
		invoices := benchInvoices(b, pool, company)
		for range b.N {
			b.ResetTimer()
			cpu := benchCPUStart(pool)
			rows, history := benchCopy(b, pool, company, invoices)
			cpu.report(b, "bare")
			b.StopTimer()
			b.ReportMetric(rows.Seconds(), "s/run")
			b.ReportMetric((rows + history).Seconds(), "with-history-s/run")
		}
	})
}

// benchCPU is the CPU time used so far by the benchmark's process (Go)
// and by its database's backends: what a run costs, which the machine's
// other loads move less than its wall time.
type benchCPU struct {
	pool   *pgxpool.Pool
	goCPU  time.Duration
	dbCPU  time.Duration
	readDB bool
}

func benchCPUStart(pool *pgxpool.Pool) benchCPU {
	db, ok := databaseCPU(context.Background(), pool)
	return benchCPU{pool: pool, goCPU: processSelfCPU(), dbCPU: db, readDB: ok}
}

// report reports the CPU used since c was read, as name-go-cpu-s and
// name-db-cpu-s.
func (c benchCPU) report(b *testing.B, name string) {
	b.Helper()
	b.ReportMetric((processSelfCPU() - c.goCPU).Seconds(), name+"-go-cpu-s")
	if db, ok := databaseCPU(context.Background(), c.pool); ok && c.readDB {
		b.ReportMetric((db - c.dbCPU).Seconds(), name+"-db-cpu-s")
	}
}

// processSelfCPU is the CPU time (user and system) this process has used.
func processSelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchGenerate times one nightly run of the job's handler.
func benchGenerate(b *testing.B, pool *pgxpool.Pool, company int64) time.Duration {
	b.Helper()
	r := benchRun(b, pool, company)
	start := time.Now()
	res, err := runGenerate(context.Background(), r, GeneratePayload{Date: "2026-11-20"})
	elapsed := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if n := res.(NightlyGeneration).Created; n != benchContracts {
		b.Fatalf("created %d invoices, want %d", n, benchContracts)
	}
	return elapsed
}

// benchGenerationDB is a fresh database with a company of 100,000 monthly
// contracts, each with its first invoice due within the run's lead time;
// its statements are timed in times unless times is nil.
func benchGenerationDB(b *testing.B, times *storagetest.StatementTimes) (*pgxpool.Pool, int64) {
	b.Helper()
	var pool *pgxpool.Pool
	if times != nil {
		pool = storagetest.TimedDB(b, times)
	} else {
		pool = storagetest.NewDB(b)
	}
	company, _, err := storage.EnsureCompany(context.Background(), pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	billing := storagetest.NewBilling(b, pool, company)
	billing.MonthlyContracts(b, pool, benchContracts, "2026-12-01", "2026-12-05")
	return pool, company
}

// benchRun is a started invoices:generate job, as a worker hands it to
// its handler.
func benchRun(b *testing.B, pool *pgxpool.Pool, company int64) *Run {
	b.Helper()
	ctx := context.Background()
	job, _, err := storage.SubmitJob(ctx, pool, company, storage.NewJob{Kind: KindInvoicesGenerate, Queue: QueueCritical,
		Payload: json.RawMessage(`{"date":"2026-11-20"}`), SubmittedBy: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	started, ok, err := storage.StartJob(ctx, pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: company, ID: job.ID}})
	if err != nil || !ok {
		b.Fatalf("start: %v %t", err, ok)
	}
	return &Run{Job: started, pool: pool}
}

// benchInvoices is what the run would insert (its preview), computed
// before the clock starts.
func benchInvoices(b *testing.B, pool *pgxpool.Pool, company int64) []storage.GeneratedInvoice {
	b.Helper()
	ids, err := storage.BillableContractIDs(context.Background(), pool, company, 0)
	if err != nil {
		b.Fatal(err)
	}
	gen, err := storage.GenerateInvoices(context.Background(), pool, company, ids, finance.MustDate("2026-12-20"),
		storage.GenerateOptions{Preview: true})
	if err != nil || len(gen.Invoices) != benchContracts {
		b.Fatalf("%d invoices (%v)", len(gen.Invoices), err)
	}
	return gen.Invoices
}

// benchCopy inserts the invoices and their lines with COPY, ids given,
// in one transaction: the floor of any writer of these rows (rows); then,
// in the same transaction, the history row the job writes with each
// invoice, by COPY too (history).
func benchCopy(b *testing.B, pool *pgxpool.Pool, company int64, invoices []storage.GeneratedInvoice) (rows, history time.Duration) {
	b.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		start := time.Now()
		invRows := make([][]any, len(invoices))
		var lineRows [][]any
		for i, g := range invoices {
			inv := g.Invoice
			id := int64(i + 1)
			invRows[i] = []any{company, id, "contract", inv.ContractID, inv.PayerID, g.BuildingID, inv.BusinessID,
				inv.AccountID, inv.BillingID, inv.BillingMethod, inv.Description, inv.Total.String(),
				inv.Date.Time(), inv.DueDate.Time(), inv.PeriodInitial.Time(), inv.PeriodFinal.Time(),
				inv.TicketLateFee, inv.TicketLateFeePercentage.String(), inv.TicketLateFeeInterest.String()}
			for _, l := range inv.Items {
				lineRows = append(lineRows, []any{company, id, l.ItemID, l.Amount.String(), l.Description})
			}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"invoices"}, []string{"company_id", "id", "type", "contract_id",
			"payer_id", "building_id", "business_id", "account_id", "billing_id", "billing_method", "description", "total",
			"date", "due_date", "period_initial", "period_final", "ticket_late_fee", "ticket_late_fee_percentage",
			"ticket_late_fee_interest"}, pgx.CopyFromRows(invRows)); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"invoice_items"}, []string{"company_id", "invoice_id", "item_id", "amount",
			"description"}, pgx.CopyFromRows(lineRows)); err != nil {
			return err
		}
		rows = time.Since(start)
		start = time.Now()
		histRows := make([][]any, len(invoices))
		for i, g := range invoices {
			histRows[i] = []any{company, int64(i + 1), "job", int64(1), "create", fmt.Sprintf("generated from contract %d", g.ContractID)}
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"invoice_history"}, []string{"company_id", "invoice_id", "actor", "actor_id",
			"origin", "note"}, pgx.CopyFromRows(histRows))
		history = time.Since(start)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return rows, history
}
