package storage_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// statementLedger is a company's generated owner ledger: its owners,
// businesses and items (the first two shown on the owners' report, the
// third not).
type statementLedger struct {
	company    int64
	owners     []int64
	businesses []any // an id, or nil: entries without books
	items      []int64
	entries    []int64 // every entry written, in order
}

func newStatementLedger(t *testing.T, pool *pgxpool.Pool, name string) *statementLedger {
	t.Helper()
	ctx := context.Background()
	company, _, err := storage.EnsureCompany(ctx, pool, name)
	if err != nil {
		t.Fatal(err)
	}
	l := &statementLedger{company: company, businesses: []any{nil}}
	id := func(sql string, args ...any) int64 {
		var v int64
		if err := pool.QueryRow(ctx, sql, append([]any{company}, args...)...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	for i := range 4 {
		l.owners = append(l.owners, id(`INSERT INTO persons (company_id, name) VALUES ($1, $2) RETURNING id`, fmt.Sprint("owner ", i)))
	}
	for range 2 {
		l.businesses = append(l.businesses, id(`INSERT INTO businesses (company_id, name) VALUES ($1, 'B') RETURNING id`))
	}
	for i, shown := range []bool{true, true, false} {
		l.items = append(l.items, id(`INSERT INTO transaction_items (company_id, description, debit, credit, owner_report)
			VALUES ($1, $2, 'owner', 'business', $3) RETURNING id`, fmt.Sprint("item ", i), shown))
	}
	return l
}

// write inserts n random owner entries dated in month m (some in earlier
// months: written late), and reversals dated in m of earlier entries.
func (l *statementLedger) write(t *testing.T, pool *pgxpool.Pool, r *rand.Rand, m finance.Month, first finance.Month, n int) {
	t.Helper()
	ctx := context.Background()
	types := []string{"credit", "debit", "transfer"}
	modes := []string{"invoice", "transaction", "guaranteed_rent"}
	for range n {
		if len(l.entries) > 0 && r.Intn(5) == 0 {
			var rev int64
			err := pool.QueryRow(ctx, `INSERT INTO transactions (company_id, mode, type, extract, owner_id, person_id, business_id,
				    item_id, amount, date, description, reverses_id)
				SELECT company_id, 'chargeback', CASE type WHEN 'credit' THEN 'debit' ELSE 'credit' END, extract, owner_id, person_id,
				       business_id, item_id, amount, greatest(date, $3::date), description, id
				FROM transactions t WHERE company_id = $1 AND id = $2 AND type <> 'transfer' AND mode <> 'chargeback'
				  AND NOT EXISTS (SELECT 1 FROM transactions x WHERE x.company_id = t.company_id AND x.reverses_id = t.id)
				RETURNING id`, l.company, l.entries[r.Intn(len(l.entries))], m.First().AddDays(r.Intn(m.Days())).String()).Scan(&rev)
			if err == nil {
				l.entries = append(l.entries, rev)
				continue
			} else if err != pgx.ErrNoRows {
				t.Fatal(err)
			}
		}
		dated := m
		if m > first && r.Intn(5) == 0 {
			dated = first.Add(r.Intn(int(m - first)))
		}
		typ := types[r.Intn(3)]
		mode := modes[r.Intn(3)]
		if typ == "transfer" {
			mode = "transfer"
		}
		var item any = l.items[r.Intn(3)]
		if r.Intn(4) == 0 {
			item = nil
		}
		owner := l.owners[r.Intn(len(l.owners))]
		var id int64
		err := pool.QueryRow(ctx, `INSERT INTO transactions (company_id, mode, type, extract, owner_id, person_id, business_id,
			    item_id, amount, date, description)
			VALUES ($1, $2, $3, 'owner', $4, $4, $5, $6, $7::numeric / 100, $8, 'x') RETURNING id`,
			l.company, mode, typ, owner, l.businesses[r.Intn(len(l.businesses))], item, 1+r.Intn(900000),
			dated.First().AddDays(r.Intn(dated.Days())).String()).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		l.entries = append(l.entries, id)
	}
}

// TestOwnerStatementsProperty writes a seeded random owner ledger for two
// companies, month by month with late entries (dated in a closed month)
// and reversals (of entries of any earlier month) written between the
// closes, and closes each month. For every owner, business and month: the
// closing is the opening plus every line and plus the totals; the opening
// is the last closing of the same books; the lines dated in the month are
// the books' ledger entries of the month, those dated before it the late
// ones, each an adjustment; the hidden lines are the entries of items left
// out of the report. After the last close: every entry is stated once,
// but those in the first openings (a history written long before the first
// close; the part of it written in the day before is stated as late by the
// next close); a first statement (of the company's first month, or of
// books whose first entry is dated in a closed month) opens with what its
// books hold before it and no line states; each books' closing is its
// ledger balance. The other company's
// statements are its own.
func TestOwnerStatementsProperty(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	ctx := context.Background()
	r := rand.New(rand.NewSource(26))
	first := finance.NewMonth(2024, 1)
	ledgers := []*statementLedger{newStatementLedger(t, pool, "A"), newStatementLedger(t, pool, "B")}
	for _, l := range ledgers { // a history before the first close: in the first openings
		l.write(t, pool, r, first.Add(-1), first.Add(-1), 10)
		// half of it written long before the first close; the other half in the
		// day before it, for the next close to state as late
		if _, err := pool.Exec(ctx, `UPDATE transactions SET created_at = created_at - interval '30 days'
			WHERE company_id = $1 AND id % 2 = 0`, l.company); err != nil {
			t.Fatal(err)
		}
	}
	for m := first; m < first.Add(5); m = m.Add(1) {
		for _, l := range ledgers {
			if m == first.Add(2) { // an owner whose first entry is dated in a closed month
				newcomer := l.owners[0]
				if err := pool.QueryRow(ctx, `INSERT INTO persons (company_id, name) VALUES ($1, 'newcomer') RETURNING id`,
					l.company).Scan(&newcomer); err != nil {
					t.Fatal(err)
				}
				var id int64
				if err := pool.QueryRow(ctx, `INSERT INTO transactions (company_id, type, extract, owner_id, person_id, amount, date)
					VALUES ($1, 'credit', 'owner', $2, $2, 123.45, $3) RETURNING id`, l.company, newcomer, first.First().String()).Scan(&id); err != nil {
					t.Fatal(err)
				}
				l.entries = append(l.entries, id)
			}
			l.write(t, pool, r, m, first, 40)
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				_, err := storage.CloseOwnerStatements(ctx, tx, l.company, 0, m)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			checkOwnerStatements(t, pool, l.company, m)
		}
	}
	for _, l := range ledgers {
		var stated, entries, wrong int
		err := pool.QueryRow(ctx, `SELECT
			    (SELECT count(*) FROM owner_statement_lines WHERE company_id = $1),
			    (SELECT count(*) FROM transactions WHERE company_id = $1),
			    (SELECT count(*) FROM (
			        SELECT t.owner_id, t.business_id, sum(CASE WHEN t.type = 'credit' THEN t.amount ELSE -t.amount END) AS balance
			        FROM transactions t WHERE t.company_id = $1 GROUP BY 1, 2) b
			     WHERE b.balance <> (SELECT s.closing FROM owner_statements s WHERE s.company_id = $1 AND s.owner_id = b.owner_id
			                         AND s.business_id IS NOT DISTINCT FROM b.business_id ORDER BY s.month DESC LIMIT 1))`,
			l.company).Scan(&stated, &entries, &wrong)
		var inOpenings, firsts int
		err = pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE created_at < now() - interval '20 days'), count(*) FILTER (WHERE
			    to_char(date, 'YYYY-MM') >= '2024-01' AND created_at < now() - interval '20 days')
			FROM transactions WHERE company_id = $1`, l.company).Scan(&inOpenings, &firsts)
		if err != nil || stated != entries-inOpenings || firsts != 0 || wrong != 0 || entries != len(l.entries) {
			t.Errorf("company %d: %d lines for %d entries (%d written, %d in the first openings), %d books whose last closing "+
				"is not their balance (%v)", l.company, stated, entries, len(l.entries), inOpenings, wrong, err)
		}
		// a first statement opens with what its books hold before it and
		// no statement states
		rows, err := pool.Query(ctx, `SELECT s.id FROM owner_statements s
			WHERE s.company_id = $1 AND NOT EXISTS (SELECT 1 FROM owner_statements p WHERE p.company_id = s.company_id
			      AND p.owner_id = s.owner_id AND p.business_id IS NOT DISTINCT FROM s.business_id AND p.month < s.month)
			  AND s.opening <> (SELECT coalesce(sum(CASE WHEN t.type = 'credit' THEN t.amount ELSE -t.amount END), 0)
			      FROM transactions t WHERE t.company_id = s.company_id AND t.owner_id = s.owner_id
			        AND t.business_id IS NOT DISTINCT FROM s.business_id AND to_char(t.date, 'YYYY-MM') < s.month
			        AND NOT EXISTS (SELECT 1 FROM owner_statement_lines l WHERE l.company_id = t.company_id AND l.transaction_id = t.id))`,
			l.company)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil || len(ids) != 0 {
			t.Errorf("company %d: first statements %v open with another balance than their books' before them (%v)", l.company, ids, err)
		}
	}
}

// checkOwnerStatements holds the statements of month m of a company to the
// ledger; each failure names the statement.
func checkOwnerStatements(t *testing.T, pool *pgxpool.Pool, company int64, m finance.Month) {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT s.id, s.owner_id, coalesce(s.business_id, 0), problem FROM owner_statements s
		CROSS JOIN LATERAL (VALUES
		    (CASE WHEN s.closing <> s.opening + (SELECT coalesce(sum(amount), 0) FROM owner_statement_lines l
		                                         WHERE l.company_id = s.company_id AND l.statement_id = s.id)
		          THEN 'closing is not opening + lines' END),
		    (CASE WHEN s.closing <> s.opening + s.income + s.deductions + s.guarantee + s.transfers + s.adjustments + s.hidden_amount
		          THEN 'closing is not opening + totals' END),
		    (CASE WHEN s.opening <> (SELECT p.closing FROM owner_statements p WHERE p.company_id = s.company_id
		              AND p.owner_id = s.owner_id AND p.business_id IS NOT DISTINCT FROM s.business_id AND p.month < s.month
		              ORDER BY p.month DESC LIMIT 1)
		          THEN 'opening is not the last closing' END),
		    (CASE WHEN EXISTS (
		              (SELECT t.id FROM transactions t WHERE t.company_id = s.company_id AND t.owner_id = s.owner_id
		                 AND t.business_id IS NOT DISTINCT FROM s.business_id AND to_char(t.date, 'YYYY-MM') = s.month
		               EXCEPT SELECT l.transaction_id FROM owner_statement_lines l WHERE l.company_id = s.company_id AND l.statement_id = s.id)
		              UNION ALL
		              (SELECT l.transaction_id FROM owner_statement_lines l WHERE l.company_id = s.company_id AND l.statement_id = s.id
		                 AND to_char(l.date, 'YYYY-MM') = s.month
		               EXCEPT SELECT t.id FROM transactions t WHERE t.company_id = s.company_id AND t.owner_id = s.owner_id
		                 AND t.business_id IS NOT DISTINCT FROM s.business_id AND to_char(t.date, 'YYYY-MM') = s.month))
		          THEN 'the lines of the month are not the ledger''s entries of the month' END),
		    (CASE WHEN EXISTS (SELECT 1 FROM owner_statement_lines l
		              JOIN transactions t ON t.company_id = l.company_id AND t.id = l.transaction_id
		              LEFT JOIN transactions rv ON rv.company_id = t.company_id AND rv.id = t.reverses_id
		              LEFT JOIN transaction_items i ON i.company_id = t.company_id AND i.id = t.item_id
		              WHERE l.company_id = s.company_id AND l.statement_id = s.id AND (
		                  l.hidden <> coalesce(NOT i.owner_report, false)
		                  OR l.amount <> CASE WHEN t.type = 'credit' THEN t.amount ELSE -t.amount END
		                  OR t.owner_id <> s.owner_id OR t.company_id <> s.company_id
		                  OR (l.section = 'adjustments') <> (to_char(t.date, 'YYYY-MM') < s.month OR to_char(rv.date, 'YYYY-MM') < s.month)
		                  OR l.corrects_month >= s.month))
		          THEN 'a line is not its entry' END),
		    (CASE WHEN s.hidden_lines <> (SELECT count(*) FROM owner_statement_lines l
		              WHERE l.company_id = s.company_id AND l.statement_id = s.id AND l.hidden)
		            OR s.shown_lines <> (SELECT count(*) FROM owner_statement_lines l
		              WHERE l.company_id = s.company_id AND l.statement_id = s.id AND NOT l.hidden)
		          THEN 'the counts are not the lines''' END)
		) AS c (problem)
		WHERE s.company_id = $1 AND s.month = $2 AND problem IS NOT NULL`, company, m.String())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, owner, business int64
		var problem string
		if err := rows.Scan(&id, &owner, &business, &problem); err != nil {
			t.Fatal(err)
		}
		t.Errorf("company %d %s: statement %d (owner %d, business %d): %s", company, m, id, owner, business, problem)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var statements int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM owner_statements WHERE company_id = $1 AND month = $2`,
		company, m.String()).Scan(&statements); err != nil || statements == 0 {
		t.Errorf("company %d %s: %d statements (%v)", company, m, statements, err)
	}
	// the month's row counts its statements and their lines
	var counted, lines, wantLines int
	if err := pool.QueryRow(context.Background(), `SELECT m.statements, m.lines,
			(SELECT count(*) FROM owner_statement_lines l JOIN owner_statements s ON s.company_id = l.company_id AND s.id = l.statement_id
			 WHERE s.company_id = $1 AND s.month = $2)
		FROM owner_statement_months m WHERE m.company_id = $1 AND m.month = $2`,
		company, m.String()).Scan(&counted, &lines, &wantLines); err != nil || counted != statements || lines != wantLines || lines == 0 {
		t.Errorf("company %d %s: the month counts %d statements and %d lines, want %d and %d (%v)",
			company, m, counted, lines, statements, wantLines, err)
	}
}

// TestClosedMonthEntries: an owner's entry of a closed month is not
// changed or deleted (409), nor is an entry made one by an update, nor is
// an entry of an open month moved into a closed one; an entry of an open
// month is changed as before, and one of another party whatever its month.
// While a close holds the company's lock, an owner's entry is not changed
// (409 at once, without waiting).
func TestClosedMonthEntries(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	ctx := context.Background()
	l := newStatementLedger(t, pool, "A")
	store := storage.NewStore(pool, storage.DefaultRegistry())
	res := store.Registry().MustResource(storage.Transactions)
	sc := storage.Scope{CompanyID: l.company}
	entry := func(extract string, owner any, date string) int64 {
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO transactions (company_id, type, extract, owner_id, person_id, amount, date)
			VALUES ($1, 'debit', $2, $3, $3, 10, $4) RETURNING id`, l.company, extract, owner, date).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	closedEntry := entry("owner", l.owners[0], "2024-03-10")
	business := entry("business", nil, "2024-03-11")
	open := entry("owner", l.owners[0], "2024-04-05")
	another := entry("owner", l.owners[1], "2024-04-06")
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := storage.CloseOwnerStatements(ctx, tx, l.company, 0, finance.NewMonth(2024, 3))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	update := func(id int64, values map[string]any) error {
		_, err := store.Update(ctx, res, sc, id, storage.Write{Values: values})
		return err
	}
	cases := []struct {
		name     string
		do       func() error
		conflict bool
	}{
		{"change a closed month's entry", func() error { return update(closedEntry, map[string]any{"notes": "x"}) }, true},
		{"delete it", func() error { return store.Delete(ctx, res, sc, closedEntry) }, true},
		{"make a closed month's business entry an owner's", func() error {
			return update(business, map[string]any{"extract": "owner", "owner_id": l.owners[2]})
		}, true},
		{"move an open month's entry into the closed one", func() error {
			return update(another, map[string]any{"date": time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC)})
		}, true},
		{"change an open month's entry", func() error { return update(open, map[string]any{"notes": "x"}) }, false},
		{"change a closed month's business entry", func() error { return update(business, map[string]any{"notes": "x"}) }, false},
	}
	for _, c := range cases {
		err := c.do()
		if got := finance.ErrorCode(err) == finance.Conflict; got != c.conflict || (!c.conflict && err != nil) {
			t.Errorf("%s: %v, want a conflict %v", c.name, err, c.conflict)
		}
	}

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // rolled back at the end
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('propfin:owner_statements', $1))`, l.company); err != nil {
		t.Fatal(err)
	}
	if err := update(open, map[string]any{"notes": "y"}); finance.ErrorCode(err) != finance.Conflict || !strings.Contains(err.Error(), "being closed") {
		t.Errorf("a change while a close runs: %v", err)
	}
}

// TestStatementLineKeys holds a statement's line to a statement and an
// entry of its own company, and so to an existing company, with the key to
// companies of its own dropped (migration 0032): a line naming another
// company, or none, than its statement's is refused by the key to the
// statement.
func TestStatementLineKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	l := newStatementLedger(t, pool, "Keys")
	other, _, err := storage.EnsureCompany(ctx, pool, "Other")
	if err != nil {
		t.Fatal(err)
	}
	var statement, entry int64
	err = pool.QueryRow(ctx, `
		WITH m AS (INSERT INTO owner_statement_months (company_id, month, statements, lines) VALUES ($1, '2024-01', 1, 0)),
		     s AS (INSERT INTO owner_statements (company_id, owner_id, month, opening, closing, income, deductions, guarantee,
		               transfers, adjustments, shown_lines, hidden_lines, hidden_amount)
		           VALUES ($1, $2, '2024-01', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) RETURNING id),
		     e AS (INSERT INTO transactions (company_id, mode, type, extract, owner_id, amount, date, description)
		           VALUES ($1, 'transaction', 'credit', 'owner', $2, 1, '2024-01-10', 'e') RETURNING id)
		SELECT s.id, e.id FROM s, e`, l.company, l.owners[0]).Scan(&statement, &entry)
	if err != nil {
		t.Fatal(err)
	}
	insert := func(company int64) error {
		_, err := pool.Exec(ctx, `INSERT INTO owner_statement_lines (company_id, statement_id, position, transaction_id, section, kind,
			    date, description, amount, hidden) VALUES ($1, $2, 1, $3, 'income', 'income', '2024-01-10', 'e', 1, false)`,
			company, statement, entry)
		return err
	}
	for _, c := range []struct {
		name    string
		company int64
		key     string
	}{
		{"another company", other, "owner_statement_lines_statement_fk"},
		{"no company", other + 1000, "owner_statement_lines_statement_fk"},
	} {
		if err := insert(c.company); err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("a line of %s: %v, want a violation of %s", c.name, err, c.key)
		}
	}
	if err := insert(l.company); err != nil {
		t.Errorf("a line of its statement's company: %v", err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM companies WHERE id = $1`, l.company); err == nil {
		t.Error("the company of a statement line was deleted")
	}
}
