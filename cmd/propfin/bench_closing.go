package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/benchdata"
)

// `propfin bench -closing` measures the year's closing of the large
// company of the closing data set (benchdata.Options.Closing), in
// process, beside a bare read of the entries it declares, all in the same
// run: each business's DIMOB (the read, the read and the check, and the
// dimob:file job that also writes and stores the file). Each measure runs
// once a round, the order turned by one each round, so that no measure
// always runs on a cache the one before it warmed. The owners' statements
// of a month are measured the same way, beside the bare read of that
// month's entries, by adding their measures to closingMeasures.

// checkClosing are the problems of flags given with -closing.
func (f *benchFlags) checkClosing(fs *flag.FlagSet) []error {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	var errs []error
	if set["months"] && f.months != 12 {
		errs = append(errs, errors.New("-months: with -closing the data set is a calendar year, its 12 months"))
	}
	f.months, f.yearGiven = 12, set["year"]
	for _, name := range []string{"url", "clients", "duration", "warmup"} {
		if set[name] {
			errs = append(errs, fmt.Errorf("-%s is the load's: -closing measures in process, in -rounds", name))
		}
	}
	if last := time.Now().Year() - 1; f.year < jobs.FirstDimobYear || f.year > last {
		errs = append(errs, fmt.Errorf("-year: a calendar year that has ended, %d to %d", jobs.FirstDimobYear, last))
	}
	if f.rounds < 1 || f.rounds > 1000 {
		errs = append(errs, errors.New("-rounds: 1 to 1000"))
	}
	return errs
}

// closingBench is what the measures of one run share.
type closingBench struct {
	pool    *pgxpool.Pool
	kinds   *jobs.Registry
	company int64
	year    int
	items   []int64 // the company's transaction items the DIMOB declares (finance.DeclaredAs)
}

// closingMeasure is one thing timed, for one business: run does it and
// says what it found (the rows, the file), the same every round.
type closingMeasure struct {
	name string
	run  func(ctx context.Context, b *closingBench, business int64) (closingFound, error)
}

// closingFound is what a measure found, and for a job the time its worker
// recorded (zero: the call's time is the measure's).
type closingFound struct {
	what   string
	worker time.Duration
}

// closingMeasures are measured in this order in the first round; the
// first is the bare read the others are divided by.
var closingMeasures = []closingMeasure{
	{"bare read of the entries", bareOwnerEntries},
	{"DIMOB: the read (storage.ReadDimobYear)", readDimob},
	{"DIMOB: the read and the check (the preview)", previewDimob},
	{"DIMOB: the dimob:file job (read, check, file written and stored)", dimobJob},
}

// closingSample is one measure of one round.
type closingSample struct {
	took time.Duration
	heap uint64 // the peak of the heap's objects while it ran, in bytes
}

// runBenchClosing is propfin bench -closing on the data set of company.
func runBenchClosing(ctx context.Context, cfg config, pool *pgxpool.Pool, company benchdata.Company, f benchFlags,
	stdout io.Writer, log *slog.Logger) error {
	b := &closingBench{pool: pool, company: company.ID}
	businesses, err := b.find(ctx)
	if err != nil {
		return err
	}
	if f.reuse && f.yearGiven && b.year != f.year {
		return fmt.Errorf("-year %d: the data set found is the closing of %d", f.year, b.year)
	}
	if b.kinds, err = cfg.kinds(nil); err != nil {
		return err
	}
	stop, err := startClosingWorker(ctx, cfg, pool, b.kinds, log)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(stdout, "\nthe closing of %d of %s: %d businesses, %d rounds, GOMAXPROCS %d\n",
		b.year, company.Name, len(businesses), f.rounds, runtime.GOMAXPROCS(0))
	samples, found, err := b.rounds(ctx, businesses, f.rounds, stdout)
	if err != nil {
		return err
	}
	for _, business := range businesses {
		var name, cnpj string
		if err := pool.QueryRow(ctx, `SELECT name, coalesce(tax_id, '') FROM businesses WHERE company_id = $1 AND id = $2`,
			b.company, business).Scan(&name, &cnpj); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nbusiness %d, %s (CNPJ %s):\n", business, name, cnpj)
		for i, m := range closingMeasures {
			fmt.Fprintf(stdout, "  %s: %s\n", m.name, found[business][i])
		}
		printClosing(stdout, samples[business])
	}
	if len(businesses) > 1 {
		fmt.Fprintf(stdout, "\nthe company (its %d businesses, summed round by round):\n", len(businesses))
		printClosing(stdout, sumClosing(samples, businesses))
	}
	return nil
}

// rounds measures every measure for every business once a round, the
// order of the measures turned by one each round: the samples by
// business, measure and round, and what each measure found.
func (b *closingBench) rounds(ctx context.Context, businesses []int64, rounds int, stdout io.Writer) (
	map[int64][][]closingSample, map[int64][]string, error) {
	samples := make(map[int64][][]closingSample, len(businesses))
	found := make(map[int64][]string, len(businesses))
	for _, business := range businesses {
		samples[business] = make([][]closingSample, len(closingMeasures))
		found[business] = make([]string, len(closingMeasures))
	}
	for round := range rounds {
		for _, business := range businesses {
			for k := range closingMeasures {
				i := (k + round) % len(closingMeasures)
				s, what, err := b.measure(ctx, closingMeasures[i], business)
				if err != nil {
					return nil, nil, fmt.Errorf("business %d, %s: %w", business, closingMeasures[i].name, err)
				}
				samples[business][i] = append(samples[business][i], s)
				found[business][i] = what
			}
		}
		fmt.Fprintf(stdout, "round %d of %d done\n", round+1, rounds)
	}
	return samples, found, nil
}

// find reads the data set's year and the businesses of its contracts with
// dimob, and the company's items the DIMOB declares: an error for a data
// set written without -closing.
func (b *closingBench) find(ctx context.Context) ([]int64, error) {
	var declared int
	var year *int32
	err := b.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE dimob), min(extract(year FROM start_at))::int
		FROM contracts WHERE company_id = $1`, b.company).Scan(&declared, &year)
	if err != nil {
		return nil, fmt.Errorf("the data set's year: %w", err)
	}
	if declared == 0 || year == nil {
		return nil, errors.New("the data set was written without -closing (no contract has dimob): " +
			"write one with -closing into an empty database")
	}
	b.year = int(*year)
	rows, err := b.pool.Query(ctx, `SELECT DISTINCT business_id FROM contracts WHERE company_id = $1 AND dimob ORDER BY 1`, b.company)
	if err != nil {
		return nil, err
	}
	businesses, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	rows, err = b.pool.Query(ctx, `SELECT id, coalesce(debit, ''), coalesce(credit, ''), type, dimob
		FROM transaction_items WHERE company_id = $1 ORDER BY id`, b.company)
	if err != nil {
		return nil, err
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.TransactionItem, error) {
		var it finance.TransactionItem
		err := row.Scan(&it.ID, &it.Debit, &it.Credit, &it.Type, &it.Dimob)
		return it, err
	})
	for _, it := range items {
		if finance.DeclaredAs(it) != finance.Undeclared {
			b.items = append(b.items, it.ID)
		}
	}
	return businesses, err
}

// startClosingWorker runs a worker and the relay in process (on
// REDIS_URL, or Redis in process) until the returned stop.
func startClosingWorker(ctx context.Context, cfg config, pool *pgxpool.Pool, kinds *jobs.Registry, log *slog.Logger) (func(), error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rdb, stopRedis, err := devRedis(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var done sync.WaitGroup
	done.Add(1)
	go func() {
		defer done.Done()
		if err := runWorkers(ctx, workerDeps{pool: pool, redis: rdb.target.Asynq(), kinds: kinds, cfg: cfg, log: quiet}); err != nil {
			log.Error("worker", "err", err)
		}
	}()
	return func() { cancel(); done.Wait(); stopRedis() }, nil
}

// measure runs m once for business, after a garbage collection, timing it
// and sampling the heap while it runs.
func (b *closingBench) measure(ctx context.Context, m closingMeasure, business int64) (closingSample, string, error) {
	runtime.GC()
	peak := sampleHeap()
	start := time.Now()
	found, err := m.run(ctx, b, business)
	s := closingSample{took: time.Since(start), heap: peak()}
	if found.worker > 0 {
		s.took = found.worker
	}
	return s, found.what, err
}

// sampleHeap samples the heap's objects (live, and dead not yet swept)
// every 5 ms until the returned function is called, which returns the
// largest sample.
func sampleHeap() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return max(peak, read())
	}
}

// bareOwnerEntries streams with pgx the owners' entries of the business
// in the year that DIMOB declares (payments and their reversals, of the
// items it declares; every contract of the data set has dimob), in one
// plain SELECT of the columns the DIMOB groups them by, and sums them up.
func bareOwnerEntries(ctx context.Context, b *closingBench, business int64) (closingFound, error) {
	rows, err := b.pool.Query(ctx, `SELECT contract_id, owner_id, date, type = 'credit', (amount * 100)::bigint
		FROM transactions
		WHERE company_id = $1 AND business_id = $2 AND extract = 'owner' AND owner_id IS NOT NULL
		  AND mode IN ('invoice', 'chargeback') AND guaranteed_transfer_id IS NULL AND item_id = any($3)
		  AND date >= make_date($4, 1, 1) AND date < make_date($4 + 1, 1, 1)`, b.company, business, b.items, b.year)
	if err != nil {
		return closingFound{}, err
	}
	defer rows.Close()
	var n, net, contract, owner, cents int64
	var day time.Time
	var credit bool
	for rows.Next() {
		if err := rows.Scan(&contract, &owner, &day, &credit, &cents); err != nil {
			return closingFound{}, err
		}
		if !credit {
			cents = -cents
		}
		n, net = n+1, net+cents
	}
	if err := rows.Err(); err != nil {
		return closingFound{}, err
	}
	return closingFound{what: fmt.Sprintf("%d entries dated in the year, the owners' net %s", n, decimal.New(net, -2).StringFixed(2))}, nil
}

// readDimob is storage.ReadDimobYear of the business and year: the
// declarant, the rentals, the sales.
func readDimob(ctx context.Context, b *closingBench, business int64) (closingFound, error) {
	var y *storage.DimobYear
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		y, err = storage.ReadDimobYear(ctx, tx, b.company, business, b.year)
		return err
	})
	if err != nil {
		return closingFound{}, err
	}
	var rent, commission, tax decimal.Decimal
	for _, r := range y.Rentals {
		for _, m := range r.Months {
			rent, commission, tax = rent.Add(m.Rent), commission.Add(m.Commission), tax.Add(m.TaxWithheld)
		}
	}
	return closingFound{what: fmt.Sprintf("%d rentals, %d sales; rent %s less commission %s and tax withheld %s: the owners' net %s",
		len(y.Rentals), len(y.Sales), rent.StringFixed(2), commission.StringFixed(2), tax.StringFixed(2),
		rent.Sub(commission).Sub(tax).StringFixed(2))}, nil
}

// previewDimob is jobs.CheckDimob, what POST /financial/dimob with
// preview answers: the read and the check; an error when a problem
// blocks (the data set is meant to be declared).
func previewDimob(ctx context.Context, b *closingBench, business int64) (closingFound, error) {
	c, err := jobs.CheckDimob(ctx, b.pool, b.company, jobs.DimobPayload{BusinessID: business, Year: b.year})
	if err != nil {
		return closingFound{}, err
	}
	if c.Blocks {
		return closingFound{}, fmt.Errorf("%d blocking problems, the first: %+v", len(c.Problems), c.Problems[0])
	}
	return closingFound{what: fmt.Sprintf("%d rentals, %d sales, no blocking problem, %d warnings", c.Rentals, c.Sales, len(c.Warnings))}, nil
}

// dimobJob submits a dimob:file job with its run as POST
// /financial/dimob does, waits for the worker to finish it, and answers
// with the worker's time; the run and the job are deleted after it.
func dimobJob(ctx context.Context, b *closingBench, business int64) (closingFound, error) {
	var job storage.Job
	var run int64
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		sub := jobs.NewDimobFile(jobs.DimobPayload{BusinessID: business, Year: b.year})
		sub.SubmittedBy = "bench"
		var err error
		if job, _, err = b.kinds.Submit(ctx, tx, b.company, sub); err != nil {
			return err
		}
		run, err = storage.InsertDimobRun(ctx, tx, b.company, storage.NewDimobRun{BusinessID: business, Year: b.year, JobID: job.ID})
		return err
	})
	if err != nil {
		return closingFound{}, err
	}
	for !job.Finished() {
		time.Sleep(10 * time.Millisecond)
		if job, err = storage.GetJob(ctx, b.pool, b.company, job.ID); err != nil {
			return closingFound{}, err
		}
	}
	defer b.pool.Exec(context.WithoutCancel(ctx), `WITH run AS (DELETE FROM dimob_runs WHERE company_id = $1 AND id = $2)
		DELETE FROM jobs WHERE company_id = $1 AND id = $3`, b.company, run, job.ID) //nolint:errcheck // the bench's own rows
	if job.State != storage.JobSucceeded {
		return closingFound{}, fmt.Errorf("the job %s: %s", job.State, job.Error)
	}
	var res jobs.DimobResult
	if err := json.Unmarshal(job.Result, &res); err != nil {
		return closingFound{}, err
	}
	if res.Status != storage.DimobWritten {
		return closingFound{}, fmt.Errorf("the run is %s (%d blocking problems)", res.Status, res.Blocking)
	}
	return closingFound{worker: job.FinishedAt.Sub(*job.StartedAt), what: fmt.Sprintf("%d rentals, %d sales, %s: %d bytes (%.1f MB)",
		res.Rentals, res.Sales, res.FileName, res.Bytes, float64(res.Bytes)/1e6)}, nil
}

// printClosing writes, per measure, the best and median time over the
// rounds, each divided by the bare read's (the best by the best, and the
// median of the rounds' own ratios), and the peak heap.
func printClosing(w io.Writer, samples [][]closingSample) {
	fmt.Fprintf(w, "  %-68s %9s %9s %9s %9s %10s\n", "measure", "best s", "median s", "÷ bare", "÷ bare", "peak heap")
	fmt.Fprintf(w, "  %-68s %9s %9s %9s %9s %10s\n", "", "", "", "(best)", "(median)", "MB")
	bare := samples[0]
	for i, m := range closingMeasures {
		s := samples[i]
		ratios := make([]float64, len(s))
		for r := range s {
			ratios[r] = s[r].took.Seconds() / bare[r].took.Seconds()
		}
		fmt.Fprintf(w, "  %-68s %9.3f %9.3f %9.2f %9.2f %10.1f\n", m.name, best(s).Seconds(), median(s).Seconds(),
			best(s).Seconds()/best(bare).Seconds(), medianOf(ratios), float64(peakHeap(s))/1e6)
	}
}

// sumClosing adds up the businesses' samples of each measure and round.
func sumClosing(samples map[int64][][]closingSample, businesses []int64) [][]closingSample {
	out := make([][]closingSample, len(closingMeasures))
	for i := range out {
		out[i] = make([]closingSample, len(samples[businesses[0]][i]))
		for _, business := range businesses {
			for r, s := range samples[business][i] {
				out[i][r].took += s.took
				out[i][r].heap = max(out[i][r].heap, s.heap)
			}
		}
	}
	return out
}

func best(s []closingSample) time.Duration {
	return slices.MinFunc(s, func(a, b closingSample) int { return int(a.took - b.took) }).took
}

func median(s []closingSample) time.Duration {
	d := make([]float64, len(s))
	for i := range s {
		d[i] = float64(s[i].took)
	}
	return time.Duration(medianOf(d))
}

func medianOf(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

func peakHeap(s []closingSample) uint64 {
	var p uint64
	for _, x := range s {
		p = max(p, x.heap)
	}
	return p
}
