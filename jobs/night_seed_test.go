package jobs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// The night benchmark's data: one template company seeded through SQL and
// the ledger's posting, then copied to every other company of the night
// with COPY, table by table, the company id rewritten (every company-owned
// table keys on (company_id, id), so the copies keep the template's ids
// and every reference holds within its company).

// nightDates are the dates the night's data is seeded around: the night's
// date and those its rows are due, paid and readjusted on.
type nightDates struct {
	Night    finance.Date // the scheduler fires every schedule for it
	Paid     finance.Date // the paid invoice's payment: in the month before the night's
	Overdue  finance.Date // the open invoice's due date, before the night
	Start    finance.Date // the monthly contracts' start
	Due      finance.Date // their first due date, within the lead time
	Readjust finance.Date // the readjusted contract's date
}

// nightDatesOf are the dates of a night on date.
func nightDatesOf(date finance.Date) nightDates {
	first := finance.MustDate(fmt.Sprintf("%04d-%02d-01", date.Year(), int(date.Month())))
	return nightDates{Night: date, Paid: first.AddDays(-2), Overdue: date.AddDays(-10),
		Start: date, Due: date.AddDays(5), Readjust: date}
}

// seedNightTemplate seeds one company with what every nightly kind has
// work for on d.Night: two monthly contracts whose invoices are due within
// the lead time (invoices:generate), a contract readjusted on the night
// with an open invoice of its new period (contracts:readjust), a contract
// transferring on receipt of a building owned 60/40, with an invoice paid
// in the month before (contracts:transfer, owners:statements) and one
// overdue (finance:overdue). It returns the company.
func seedNightTemplate(tb testing.TB, pool *pgxpool.Pool, d nightDates) int64 {
	tb.Helper()
	ctx := context.Background()
	company, _, err := storage.EnsureCompany(ctx, pool, "Night 0")
	if err != nil {
		tb.Fatal(err)
	}
	billing := storagetest.NewBilling(tb, pool, company)
	billing.MonthlyContracts(tb, pool, 2, d.Start.String(), d.Due.String())
	id := func(sql string, args ...any) int64 {
		tb.Helper()
		var v int64
		if err := pool.QueryRow(ctx, sql, append([]any{company}, args...)...).Scan(&v); err != nil {
			tb.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	// the readjustment: a year of rent on IPCA, due on the night
	readjusted := id(`INSERT INTO contracts (company_id, type, start_at, amount, readjust_active, readjust_indicator,
			readjust_with, readjust_at, tenant_id, building_id)
		VALUES ($1, 'rent', $2::date - interval '12 months', 2000.00, true, 'IPCA', 12, $2, $3, $4) RETURNING id`,
		d.Readjust.Time(), billing.Tenant, billing.Building)
	open := id(`INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
			description, total, date, due_date, period_initial, period_final)
		VALUES ($1, 'contract', $2, $3, $4, $5, 'ticket', 'Aluguel', 2350.00, $6, $7, $6, $6::date + interval '1 month' - interval '1 day')
		RETURNING id`, billing.Tenant, readjusted, billing.Business, billing.Account, d.Readjust.Time(), d.Due.Time())
	id(`INSERT INTO invoice_items (company_id, invoice_id, item_id, amount) VALUES ($1, $2, $3, 2000.00), ($1, $2, $4, 350.00)
		RETURNING 0`, open, billing.RentItem, billing.CondoItem)
	// the transfer: two owners, a payment of the month before, one invoice overdue
	person := `INSERT INTO persons (company_id, name) VALUES ($1, $2) RETURNING id`
	a, b := id(person, "Carla Proprietária"), id(person, "Davi Proprietário")
	building := id(`INSERT INTO buildings (company_id, title) VALUES ($1, 'Casa 2') RETURNING id`)
	owner := `INSERT INTO building_owners (company_id, building_id, person_id, percentage) VALUES ($1, $2, $3, $4) RETURNING id`
	id(owner, building, a, "60")
	id(owner, building, b, "40")
	transferring := id(`INSERT INTO contracts (company_id, type, building_id, tenant_id, transfer_mode)
		VALUES ($1, 'rent', $2, $3, 'after_receive') RETURNING id`, building, billing.Tenant)
	paid := id(`INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
			status, paid, paid_at, credit_at, description, total, date, due_date)
		VALUES ($1, 'contract', $2, $3, $4, $5, 'pix', 'paid', true, $6, $6, 'Aluguel', 2000.00, $7, $8) RETURNING id`,
		billing.Tenant, transferring, billing.Business, billing.Account, d.Paid.Time(), d.Paid.AddDays(-20).Time(), d.Paid.AddDays(-10).Time())
	id(`INSERT INTO invoice_items (company_id, invoice_id, item_id, amount) VALUES ($1, $2, $3, 2000.00), ($1, $2, $4, 200.00)
		RETURNING 0`, paid, billing.RentItem, billing.AdminItem)
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return storage.PostInvoicePayment(ctx, tx, company, paid) }); err != nil {
		tb.Fatal(err)
	}
	overdue := id(`INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
			description, total, date, due_date)
		VALUES ($1, 'contract', $2, $3, $4, $5, 'ticket', 'Aluguel', 2000.00, $6, $7) RETURNING id`,
		billing.Tenant, transferring, billing.Business, billing.Account, d.Overdue.AddDays(-10).Time(), d.Overdue.Time())
	id(`INSERT INTO invoice_items (company_id, invoice_id, item_id, amount) VALUES ($1, $2, $3, 2000.00) RETURNING 0`,
		overdue, billing.RentItem)
	return company
}

// seedNightIndices publishes IPCA for every month up to the night's that
// the shipped series lacks, so that the readjustment of the night applies,
// and gives the series a new version, as storage.UpsertIndices does.
func seedNightIndices(tb testing.TB, pool *pgxpool.Pool, d nightDates) {
	tb.Helper()
	exec(tb, pool, `WITH up AS (
			INSERT INTO price_indices (indicator, month, rate, source)
			SELECT 'IPCA', m, 0.40, 'import' FROM generate_series($1::date - interval '24 months', $1::date, interval '1 month') AS m
			ON CONFLICT (indicator, month) DO NOTHING RETURNING 1)
		UPDATE price_indices_version SET version = gen_random_uuid(), updated_at = now() WHERE EXISTS (SELECT FROM up)`,
		time.Date(d.Night.Year(), d.Night.Month(), 1, 0, 0, 0, 0, time.UTC))
}

// cloneCompanies copies company to n-1 new companies (names "Night 1"
// and on): the companies row, then every company-owned table's rows of the
// template, one COPY each, with the triggers and foreign-key checks off
// for the session (the rows are the template's, already checked). The job
// tables are left out. It returns every company of the night, the
// template first.
func cloneCompanies(tb testing.TB, pool *pgxpool.Pool, company int64, n int) []int64 {
	tb.Helper()
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET session_replication_role = replica`); err != nil {
		tb.Fatal(err)
	}
	defer conn.Exec(ctx, `RESET session_replication_role`) //nolint:errcheck // the connection goes back to the pool either way
	var first int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(id), 0) + 1 FROM companies`).Scan(&first); err != nil {
		tb.Fatal(err)
	}
	companies := []int64{company}
	for i := range n - 1 {
		companies = append(companies, first+int64(i))
	}
	cols, err := copyColumns(ctx, conn.Conn(), "companies")
	if err != nil {
		tb.Fatal(err)
	}
	if err := copyRows(ctx, conn.Conn(), "companies", cols, fmt.Sprintf("id = %d", company), len(companies)-1, func(w io.Writer, k int, rest []byte) {
		// id, name, the rest
		_, after, _ := bytes.Cut(rest, []byte("\t"))
		fmt.Fprintf(w, "%d\tNight %d\t%s\n", companies[k+1], k+1, after)
	}); err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT setval(pg_get_serial_sequence('companies', 'id'), (SELECT max(id) FROM companies))`); err != nil {
		tb.Fatal(err)
	}
	tables, err := companyTables(ctx, conn.Conn())
	if err != nil {
		tb.Fatal(err)
	}
	for _, table := range tables {
		cols, err := copyColumns(ctx, conn.Conn(), table)
		if err != nil {
			tb.Fatal(err)
		}
		err = copyRows(ctx, conn.Conn(), table, cols, fmt.Sprintf("company_id = %d", company), len(companies)-1, func(w io.Writer, k int, rest []byte) {
			fmt.Fprintf(w, "%d\t%s\n", companies[k+1], rest)
		})
		if err != nil {
			tb.Fatalf("copy %s: %v", table, err)
		}
	}
	return companies
}

// nightSkipped are the company-owned tables the clone leaves empty: the
// job platform's.
var nightSkipped = map[string]bool{"jobs": true, "job_chunks": true, "job_runs": true}

// companyTables lists the tables with a company_id column, but the job
// platform's.
func companyTables(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'company_id' AND NOT a.attisdropped
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	all, err := pgx.CollectRows(rows, pgx.RowTo[string])
	var out []string
	for _, t := range all {
		if !nightSkipped[t] && !strings.HasPrefix(t, "job") {
			out = append(out, t)
		}
	}
	return out, err
}

// copyColumns lists a table's columns that COPY can write (not
// generated), the company's first (company_id, or a company's id).
func copyColumns(ctx context.Context, conn *pgx.Conn, table string) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT attname FROM pg_attribute
		WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
		ORDER BY attname IN ('company_id') DESC, attname = 'id' DESC, attname = 'name' DESC, attnum`, table)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// copyRows reads the rows of table matching where as COPY text, and
// writes each of them copies times through line (k from 0, the row without
// its first field) into one COPY of the table.
func copyRows(ctx context.Context, conn *pgx.Conn, table string, cols []string, where string, copies int, line func(w io.Writer, k int, rest []byte)) error {
	list := pgx.Identifier{cols[0]}.Sanitize()
	for _, c := range cols[1:] {
		list += ", " + pgx.Identifier{c}.Sanitize()
	}
	var src bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &src, "COPY (SELECT "+list+" FROM "+pgx.Identifier{table}.Sanitize()+" WHERE "+where+") TO STDOUT"); err != nil {
		return err
	}
	if src.Len() == 0 {
		return nil
	}
	var lines [][]byte
	for _, l := range bytes.Split(bytes.TrimSuffix(src.Bytes(), []byte("\n")), []byte("\n")) {
		_, rest, _ := bytes.Cut(l, []byte("\t"))
		lines = append(lines, rest)
	}
	r, w := io.Pipe()
	go func() {
		bw := &bytes.Buffer{}
		for k := range copies {
			for _, l := range lines {
				line(bw, k, l)
			}
			if bw.Len() > 1<<20 {
				if _, err := w.Write(bw.Bytes()); err != nil {
					return
				}
				bw.Reset()
			}
		}
		if _, err := w.Write(bw.Bytes()); err != nil {
			return
		}
		w.Close()
	}()
	_, err := conn.PgConn().CopyFrom(ctx, r, "COPY "+pgx.Identifier{table}.Sanitize()+" ("+list+") FROM STDIN")
	r.Close()
	return err
}

// nightCount is a count of rows, for the benchmark's log.
func nightCount(tb testing.TB, pool *pgxpool.Pool, sql string, args ...any) int64 {
	tb.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
	return n
}

// itoa is strconv.Itoa for the benchmark's names.
func itoa(n int) string { return strconv.Itoa(n) }
