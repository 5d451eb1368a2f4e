package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/api/loadgen"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/benchdata"
)

// benchRateLimit is the per-key limit of the in-process API: the limiter
// runs on every request, as in production, but never refuses one.
const benchRateLimit = 1 << 30

// benchFlags are the arguments of `propfin bench`.
type benchFlags struct {
	contracts, months, owners int
	reuse                     bool
	clients                   []int
	duration, warmup          time.Duration
	url                       string
	seed                      uint64
	// the year's closing instead of the load (bench_closing.go)
	closing      bool
	year, rounds int
	yearGiven    bool // -year was given (with -reuse, it must be the data set's)
}

func parseBenchFlags(args []string, stderr io.Writer) (benchFlags, error) {
	var f benchFlags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&f.contracts, "contracts", 100_000, "contracts of the large company (each of three small ones has a fiftieth)")
	fs.IntVar(&f.months, "months", 12, fmt.Sprintf("months of invoices, 1 to %d (with -closing, the year's 12)", benchdata.MaxMonths))
	fs.IntVar(&f.owners, "owners", 0, "owners of the large company, at most its contracts (0: three fifths of them)")
	fs.BoolVar(&f.reuse, "reuse", false, "run the load on the data set an earlier propfin bench wrote into the database")
	clients := fs.String("clients", "2,32", "concurrent clients of each load level, comma-separated")
	fs.DurationVar(&f.duration, "duration", 30*time.Second, "how long each level is measured")
	fs.DurationVar(&f.warmup, "warmup", 5*time.Second, "load sent before each level is measured, not counted")
	fs.StringVar(&f.url, "url", "", "send the load to this running `propfin serve` (on the same database) instead of an API started in process")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the data set and of the load's choices")
	fs.BoolVar(&f.closing, "closing", false, "write the closing data set (a calendar year, administration fees, "+
		"tax withheld, dimob) and measure the year's closing beside bare reads of its entries, instead of the load")
	fs.IntVar(&f.year, "year", time.Now().Year()-1, "with -closing: the calendar year of the data set (its last day the data set's)")
	fs.IntVar(&f.rounds, "rounds", 5, "with -closing: rounds of measurement, the order of the measures turned each round")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	var errs []error
	if f.closing {
		errs = append(errs, f.checkClosing(fs)...)
	}
	for _, s := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 1024 {
			errs = append(errs, fmt.Errorf("-clients: %q is not a number of clients from 1 to 1024", s))
			continue
		}
		f.clients = append(f.clients, n)
	}
	if f.duration <= 0 || f.warmup < 0 {
		errs = append(errs, errors.New("-duration must be positive and -warmup not negative"))
	}
	if f.url != "" {
		if u, err := url.Parse(f.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("-url %q: want the http(s) address of a running propfin serve", f.url))
		}
	}
	return f, errors.Join(errs...)
}

// runBench is `propfin bench`: it writes the data set into the empty
// database DATABASE_URL names (or takes the one written before, -reuse),
// then sends the mixed load of benchRoutes at each number of clients and
// prints what each route answered. Any 5xx fails the command.
func runBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (err error) {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	f, err := parseBenchFlags(args, stderr)
	if err != nil {
		return err
	}
	if cfg.DatabaseURL == "" {
		return errors.New("set DATABASE_URL to an empty database to fill (or one filled by an earlier run, with -reuse)")
	}
	log := newLogger("text", stderr)
	pool, err := storage.OpenSized(ctx, cfg.DatabaseURL, slices.Max(f.clients)+workerConns(cfg)+4)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := storage.Migrate(ctx, pool); err != nil {
		return err
	}
	companies, err := benchDataSet(ctx, pool, f, stdout, log)
	if err != nil {
		return err
	}
	if f.closing {
		return runBenchClosing(ctx, cfg, pool, companies[0], f, stdout, log)
	}
	load, err := loadgen.New(ctx, pool, companies[0], slices.Max(f.clients), f.seed)
	if err != nil {
		return err
	}
	base := f.url
	if base == "" {
		var stop func() error
		if base, stop, err = startBenchServer(ctx, cfg, pool, stdout, stderr); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stop()) }()
	}
	fmt.Fprintf(stdout, "\nload on %s, the mix of %d routes (docs/performance.md), each client with a key of its own\n", base, len(loadgen.RouteNames()))
	failed := 0
	for _, clients := range f.clients {
		res := load.Run(ctx, base, clients, f.warmup, f.duration)
		failed += res.Print(stdout)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d requests failed with a 5xx or no answer: see above", failed)
	}
	return nil
}

// benchDataSet writes the data set, or finds the one written before.
func benchDataSet(ctx context.Context, pool *pgxpool.Pool, f benchFlags, stdout io.Writer, log *slog.Logger) ([]benchdata.Company, error) {
	if f.reuse {
		companies, err := benchdata.Find(ctx, pool)
		if errors.Is(err, benchdata.ErrNoDataSet) {
			return nil, errors.New("-reuse: the database holds no data set of propfin bench; run without -reuse on an empty database")
		}
		if err == nil {
			fmt.Fprintf(stdout, "data set found: %s with %d contracts, and %d smaller companies\n",
				companies[0].Name, companies[0].Contracts, len(companies)-1)
		}
		return companies, err
	}
	opts := benchdata.Options{Contracts: f.contracts, Owners: f.owners, Months: f.months, Seed: f.seed, Logger: log}
	what := fmt.Sprintf("%d months of invoices", f.months)
	if f.closing {
		opts.Closing, opts.Day = true, finance.NewDate(f.year, time.December, 31)
		what = fmt.Sprintf("the closing of %d (its 12 months, up to %s)", f.year, opts.Day)
	}
	fmt.Fprintf(stdout, "writing the data set: %d contracts in the large company, %s\n", f.contracts, what)
	res, err := benchdata.Generate(ctx, pool, opts)
	if errors.Is(err, benchdata.ErrNotEmpty) {
		return nil, errors.New("the database already holds companies: point DATABASE_URL at an empty database, " +
			"or pass -reuse to run the load on the data set of an earlier propfin bench")
	}
	if err != nil {
		return nil, err
	}
	day := "today in the companies' time zone"
	if f.closing {
		day = "the last day of the year"
	}
	fmt.Fprintf(stdout, "data set of %s (%s), copied in %s, vacuumed and analyzed in %s:\n", res.Today, day, res.Copy.Round(100*time.Millisecond), res.Vacuum.Round(100*time.Millisecond))
	for _, t := range res.Tables {
		fmt.Fprintf(stdout, "  %-16s %11d rows %9s\n", t.Table, t.Rows, t.Took.Round(100*time.Millisecond))
	}
	return res.Companies, nil
}

// startBenchServer serves the API on a loopback port, with a worker and
// the relay beside it (the submitted jobs run), as `propfin dev` does
// without its scheduler (whose nightly runs would take the machine in the
// middle of a level). Redis is REDIS_URL, or in process.
func startBenchServer(ctx context.Context, cfg config, pool *pgxpool.Pool, stdout, stderr io.Writer) (string, func() error, error) {
	// only warnings and errors: a request log line each would be the
	// terminal's load, not the API's
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rdb, stopRedis, err := devRedis(ctx, cfg, log)
	if err != nil {
		return "", nil, err
	}
	kinds, err := cfg.kinds(nil)
	if err != nil {
		stopRedis()
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		stopRedis()
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	redisName := "in process (miniredis: its rate limiter costs far more than a real Redis's; set REDIS_URL for figures)"
	if cfg.RedisURL != "" {
		redisName = "REDIS_URL"
	}
	fmt.Fprintf(stdout, "API in process on %s, GOMAXPROCS %d, Redis %s\n", ln.Addr(), runtime.GOMAXPROCS(0), redisName)
	cfg.RateLimit, cfg.AdminToken = benchRateLimit, ""
	ops := newOperations(cfg, pool, rdb, log)
	ctx, cancel := context.WithCancel(ctx)
	served, worked := make(chan error, 1), make(chan error, 1)
	go func() { served <- serveAPI(ctx, ln, apiHandler(ctx, pool, nil, rdb.client, cfg, ops, log), log) }()
	go func() {
		worked <- runWorkers(ctx, workerDeps{pool: pool, redis: rdb.target.Asynq(), kinds: kinds, cfg: cfg, log: log})
	}()
	return "http://" + ln.Addr().String(), func() error {
		cancel()
		err := errors.Join(<-served, <-worked)
		ops.close()
		stopRedis()
		return err
	}, nil
}
