package benchdata

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
)

// The data set's companies, the large one first. Each small one has a
// fiftieth of the large one's contracts (at least one).
var companyNames = []string{"Bench Horizonte Imóveis", "Bench Aurora Imóveis", "Bench Litoral Imóveis", "Bench Serra Imóveis"}

const smallCompanyShare = 50

// Limits of Options: a year of invoices at most, since the contracts
// begin with it and would otherwise have been readjusted; with Closing,
// contract numbers the DIMOB can hold (six characters).
const (
	MaxContracts        = 10_000_000
	MaxMonths           = 12
	MaxClosingContracts = 999_999
)

// Options size the data set.
type Options struct {
	// Contracts is the large company's number of contracts, 1 to
	// MaxContracts.
	Contracts int
	// Owners is the large company's number of owners, 1 to Contracts; 0
	// for three fifths of its contracts (an owner owns about 1.7
	// buildings). Each small company has a fiftieth (at least one).
	Owners int
	// Months of invoices, 1 to MaxMonths: the contracts begin that many
	// months back (the data set's month counts), and are billed up to the
	// lead time.
	Months int
	// Day is the data set's day: the payments are those made by then, the
	// statuses those the nightly runs of that day store. Zero: today, in
	// the companies' time zone.
	Day finance.Date
	// Closing writes what closing the month and the year reads (the owners'
	// statements, the DIMOB): every rent invoice has the contract's
	// administration fee as a line (debit owner, credit business: on the
	// invoice, not charged to the tenant); a tenant in twenty is a company,
	// which withholds the income tax on each owner's share of the rent (a
	// line of an item of type duty per owner, debit owner, credit
	// customer: the tenant pays the rest); contracts and the items that
	// DIMOB declares (rent, late fee and interest, discount, administration
	// fee, the tax) have dimob; contract references are six digits, as the
	// DIMOB's contract number holds them. Without it, the data set of the
	// API load, as docs/performance.md describes it.
	Closing bool
	// Seed draws everything; the same seed gives the same data set.
	Seed uint64
	// CheckReferences keeps the foreign-key checks while copying. They are
	// otherwise turned off for the copy when the role may do so (every
	// reference is built from the rows written with it): several times
	// faster, and what a restore does.
	CheckReferences bool
	// Logger gets a line per table written; nil: none.
	Logger *slog.Logger
}

func (o Options) check() error {
	var errs []error
	if o.Contracts < 1 || o.Contracts > MaxContracts {
		errs = append(errs, fmt.Errorf("contracts: want 1 to %d, got %d", MaxContracts, o.Contracts))
	}
	if o.Owners < 0 || o.Owners > o.Contracts {
		errs = append(errs, fmt.Errorf("owners: want 1 to the contracts (%d), or 0 for three fifths of them, got %d", o.Contracts, o.Owners))
	}
	if o.Months < 1 || o.Months > MaxMonths {
		errs = append(errs, fmt.Errorf("months: want 1 to %d, got %d", MaxMonths, o.Months))
	}
	if o.Closing && o.Contracts > MaxClosingContracts {
		errs = append(errs, fmt.Errorf("contracts: at most %d with closing (the DIMOB's contract number has six characters), got %d",
			MaxClosingContracts, o.Contracts))
	}
	return errors.Join(errs...)
}

// Company is a company of the data set.
type Company struct {
	ID, UserID int64
	Name       string
	Contracts  int
}

// Result is what Generate wrote.
type Result struct {
	Companies []Company // the large one first
	Today     finance.Date
	Tables    []TableRows // in the order written
	Copy      time.Duration
	Vacuum    time.Duration
}

// TableRows is one table's COPY: the rows written and how long it took.
type TableRows struct {
	Table string
	Rows  int64
	Took  time.Duration
}

// Rows is how many rows the result wrote to table.
func (r Result) Rows(table string) int64 {
	for _, t := range r.Tables {
		if t.Table == table {
			return t.Rows
		}
	}
	return 0
}

// ErrNotEmpty is returned by Generate for a database that holds a
// company already: the data set is only written into an empty one.
var ErrNotEmpty = errors.New("the database already holds companies")

// ErrNoDataSet is returned by Find when the database holds no data set
// of this package.
var ErrNoDataSet = errors.New("the database holds no data set of propfin bench")

// HasData reports whether the database holds any company.
func HasData(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var found bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM companies)`).Scan(&found); err != nil {
		return false, fmt.Errorf("look for companies: %w", err)
	}
	return found, nil
}

// Find returns the companies of a data set written earlier, the large one
// first, with their contracts counted as they are now.
func Find(ctx context.Context, pool *pgxpool.Pool) ([]Company, error) {
	var out []Company
	for _, name := range companyNames {
		c := Company{Name: name}
		err := pool.QueryRow(ctx, `SELECT c.id, (SELECT min(u.id) FROM users u WHERE u.company_id = c.id),
				(SELECT count(*) FROM contracts k WHERE k.company_id = c.id)
			FROM companies c WHERE c.name = $1`, name).Scan(&c.ID, &c.UserID, &c.Contracts)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			continue
		case err != nil:
			return nil, fmt.Errorf("find %s: %w", name, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 || out[0].Name != companyNames[0] {
		return nil, ErrNoDataSet
	}
	return out, nil
}

// Generate writes the data set into pool's database, which must hold no
// company yet (ErrNotEmpty), in one transaction (each table's indexes
// dropped for its COPY and created again after it, as a restore does),
// then vacuums and analyzes the tables it wrote.
func Generate(ctx context.Context, pool *pgxpool.Pool, opts Options) (Result, error) {
	if err := opts.check(); err != nil {
		return Result{}, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if full, err := HasData(ctx, pool); err != nil || full {
		return Result{}, firstError(err, ErrNotEmpty)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("connect: %w", err)
	}
	defer conn.Release()
	triggersOn := opts.CheckReferences
	if !opts.CheckReferences {
		if _, err := conn.Exec(ctx, `SET session_replication_role = replica`); err != nil {
			log.Warn("foreign keys are checked while copying (the role may not turn them off): slower", "err", err)
			triggersOn = true
		}
		defer conn.Exec(context.WithoutCancel(ctx), `RESET session_replication_role`) //nolint:errcheck // the connection goes back to the pool either way
	}
	var res Result
	began := time.Now()
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		plans, err := planCompanies(ctx, tx, opts)
		if err != nil {
			return err
		}
		res.Today = plans[0].today
		for _, cp := range plans {
			res.Companies = append(res.Companies, Company{ID: cp.id, UserID: cp.userID, Name: cp.name, Contracts: cp.contracts})
		}
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '256MB'`); err != nil {
			return err
		}
		for _, t := range tables {
			start := time.Now()
			var n int64
			err := withoutIndexes(ctx, tx, t.name, func() (err error) {
				n, err = copyTable(ctx, tx, plans, t)
				return err
			})
			if err != nil {
				return fmt.Errorf("copy %s: %w", t.name, err)
			}
			res.Tables = append(res.Tables, TableRows{Table: t.name, Rows: n, Took: time.Since(start)})
			log.Info("copied", "table", t.name, "rows", n, "took", time.Since(start).Round(time.Millisecond))
		}
		if triggersOn {
			return restorePaymentStatuses(ctx, tx, plans)
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	res.Copy = time.Since(began)
	began = time.Now()
	for _, t := range tables {
		if _, err := conn.Exec(ctx, `VACUUM (ANALYZE) `+pgx.Identifier{t.name}.Sanitize()); err != nil {
			return Result{}, fmt.Errorf("vacuum %s: %w", t.name, err)
		}
	}
	res.Vacuum = time.Since(began)
	log.Info("vacuumed and analyzed", "took", res.Vacuum.Round(time.Millisecond))
	return res, nil
}

// planCompanies inserts the companies and their catalogues, and reserves
// the ids of the rows that others point at.
func planCompanies(ctx context.Context, tx pgx.Tx, opts Options) ([]*companyPlan, error) {
	var plans []*companyPlan
	for i, name := range companyNames {
		contracts, owners := opts.Contracts, opts.Owners
		if i > 0 {
			contracts, owners = max(1, contracts/smallCompanyShare), max(1, owners/smallCompanyShare)
		}
		if opts.Owners == 0 {
			owners = max(1, contracts*3/5)
		}
		var id int64
		var today time.Time
		if err := tx.QueryRow(ctx, `INSERT INTO companies (name) VALUES ($1)
			RETURNING id, (now() AT TIME ZONE time_zone)::date`, name).Scan(&id, &today); err != nil {
			return nil, fmt.Errorf("company %s: %w", name, err)
		}
		day := finance.DateOf(today)
		if !opts.Day.IsZero() {
			day = opts.Day
		}
		cp := newCompanyPlan(name, opts.Seed*uint64(len(companyNames))+uint64(i), contracts, day, opts.Months)
		cp.id, cp.owners, cp.closing = id, owners, opts.Closing
		cat, err := insertCatalogue(ctx, tx, id, i, opts.Closing)
		if err != nil {
			return nil, fmt.Errorf("company %s: %w", name, err)
		}
		cp.catalogue = cat
		if err := reserveIDs(ctx, tx, cp); err != nil {
			return nil, fmt.Errorf("company %s: %w", name, err)
		}
		plans = append(plans, cp)
	}
	return plans, nil
}

// reserveIDs takes from the identity sequences the ids the company's
// persons, buildings, contracts and invoices are written with.
func reserveIDs(ctx context.Context, tx pgx.Tx, cp *companyPlan) error {
	n, err := cp.countInvoices()
	if err != nil {
		return err
	}
	cp.invoiceCount = n
	for _, r := range []struct {
		table string
		n     int
		first *int64
	}{
		{"persons", cp.persons(), &cp.firstPerson},
		{"buildings", cp.contracts, &cp.firstBuilding},
		{"contracts", cp.contracts, &cp.firstContract},
		{"invoices", cp.invoiceCount, &cp.firstInvoice},
	} {
		if err := tx.QueryRow(ctx, `WITH s AS (SELECT pg_get_serial_sequence($1, 'id')::regclass AS seq)
			SELECT setval(seq, nextval(seq) + $2 - 1) - $2 + 1 FROM s`, r.table, max(r.n, 1)).Scan(r.first); err != nil {
			return fmt.Errorf("reserve %d ids of %s: %w", r.n, r.table, err)
		}
	}
	return nil
}

// withoutIndexes runs f with the table's indexes dropped, then creates
// them again from their definitions in the catalogue, as a restore does:
// building an index once over the rows costs less than keeping it row by
// row. The indexes of constraints (primary key, unique) stay. All in the
// caller's transaction, so that no one else ever sees them missing.
func withoutIndexes(ctx context.Context, tx pgx.Tx, table string, f func() error) error {
	rows, err := tx.Query(ctx, `SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
		WHERE i.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
		ORDER BY 1`, table)
	if err != nil {
		return fmt.Errorf("indexes of %s: %w", table, err)
	}
	type index struct{ Name, Def string }
	indexes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[index])
	if err != nil {
		return fmt.Errorf("indexes of %s: %w", table, err)
	}
	for _, ix := range indexes {
		if _, err := tx.Exec(ctx, `DROP INDEX `+ix.Name); err != nil {
			return fmt.Errorf("drop index %s: %w", ix.Name, err)
		}
	}
	if err := f(); err != nil {
		return err
	}
	for _, ix := range indexes {
		if _, err := tx.Exec(ctx, ix.Def); err != nil {
			return fmt.Errorf("create index %s: %w", ix.Name, err)
		}
	}
	return nil
}

// copyTable writes t's rows of every company in one COPY.
func copyTable(ctx context.Context, tx pgx.Tx, plans []*companyPlan, t table) (int64, error) {
	var rowsErr error
	next, stop := iter.Pull(func(yield func([]any) bool) {
		refused := false
		once := func(row []any) bool {
			refused = refused || !yield(row)
			return !refused
		}
		for _, cp := range plans {
			if rowsErr = t.rows(cp, once); rowsErr != nil || refused {
				return
			}
		}
	})
	defer stop()
	return tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.columns, pgx.CopyFromFunc(func() ([]any, error) {
		row, ok := next()
		if !ok {
			return nil, rowsErr
		}
		return row, nil
	}))
}

// restorePaymentStatuses writes the contracts' payment status of the data
// set's day again: with the triggers on, the invoices' inserts brought
// their contracts to their status on the real today (migration 0066),
// which is not the data set's when its Day is another.
func restorePaymentStatuses(ctx context.Context, tx pgx.Tx, plans []*companyPlan) error {
	for _, cp := range plans {
		var ids []int64
		var statuses []string
		err := cp.walk(func(p *contractPlan, _ []invoicePlan) bool {
			ids, statuses = append(ids, p.c.ID), append(statuses, string(p.c.PaymentStatus))
			return true
		})
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE contracts c SET payment_status = v.status, payment_status_date = $2
			FROM unnest($3::bigint[], $4::text[]) AS v (id, status)
			WHERE c.company_id = $1 AND c.id = v.id
				AND (c.payment_status, c.payment_status_date) IS DISTINCT FROM (v.status, $2::date)`,
			cp.id, cp.today, ids, statuses); err != nil {
			return fmt.Errorf("restore the payment statuses of %s: %w", cp.name, err)
		}
	}
	return nil
}
