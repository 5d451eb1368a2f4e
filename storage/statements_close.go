package storage

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/finance/statement"
)

// Closing a month of the owners' statements, the work of the
// owners:statements job: docs/ledger.md, "Owner statements". The rule is
// finance/statement's (Build); this file reads a company's month of owner
// entries set-based (one query for the month's entries and the late ones,
// one for the openings, one for the payees), and writes the statements in
// one INSERT and their lines in one COPY.

// statementsLock is the advisory lock of a company's ($1) owner
// statements: a close holds it alone, a change of an owner's entry shares
// it (refuseClosedMonthEntry).
const statementsLock = `hashtextextended('propfin:owner_statements', $1)`

// lateMargin is how long before the previous close an entry may have been
// written and still be looked for as written after it: a transaction open
// across the close (its entries stamped with its start) commits after the
// close's snapshot. No transaction of propfin lasts this long.
const lateMargin = 24 * time.Hour

// StatementSummary is what closing a month wrote.
type StatementSummary struct {
	Month      string `json:"month"`
	Statements int64  `json:"statements"` // statements written
	Owners     int64  `json:"owners"`     // owners with a statement written
	Lines      int64  `json:"lines"`      // lines written, hidden ones included
	Skipped    int64  `json:"skipped"`    // statements of the month closed before: left as they were
}

// Add sums two summaries (the months of one run); Month is the later's.
func (s StatementSummary) Add(o StatementSummary) StatementSummary {
	s.Month = o.Month
	s.Statements += o.Statements
	s.Owners += o.Owners
	s.Lines += o.Lines
	s.Skipped += o.Skipped
	return s
}

// StatementMonths says what closing month m of the company takes: the
// months to close first, in order, ending with m (the months after the
// company's last closed month), or none when m is closed already. A month
// not over in the company's time zone, or before the company's first
// closed month (whose entries are in its statements' first openings), is
// refused.
func StatementMonths(ctx context.Context, q DBTX, companyID int64, m finance.Month) ([]finance.Month, error) {
	today, err := CompanyToday(ctx, q, companyID)
	if err != nil {
		return nil, err
	}
	if !m.Last().Before(today) {
		return nil, finance.Errorf(finance.Invalid, "The month %s is not over yet in the company's time zone: it is closed from its next day on.", m)
	}
	var first, last *string
	if err := q.QueryRow(ctx, `SELECT min(month), max(month) FROM owner_statement_months WHERE company_id = $1`,
		companyID).Scan(&first, &last); err != nil {
		return nil, translate(err, "owner statement months")
	}
	if last == nil {
		return []finance.Month{m}, nil
	}
	from, err := finance.ParseMonth(*first)
	if err != nil {
		return nil, fmt.Errorf("owner statement months: %w", err)
	}
	through, err := finance.ParseMonth(*last)
	if err != nil {
		return nil, fmt.Errorf("owner statement months: %w", err)
	}
	switch {
	case m < from:
		return nil, finance.Errorf(finance.Invalid, "The company's owner statements start at %s: the entries of %s are in their first opening balances.", from, m)
	case m <= through:
		return nil, nil
	}
	var months []finance.Month
	for next := through.Add(1); next <= m; next = next.Add(1) {
		months = append(months, next)
	}
	return months, nil
}

// CloseOwnerStatements closes month m of the company in tx, for job jobID:
// one statement per owner and business with a line that month, of its
// entries dated in m and those dated before m written after their month
// was closed and stated nowhere. The month must be the one after the
// company's last closed month (StatementMonths), or its first; a month
// closed already writes nothing and reports its statements as skipped.
// The company's closes are serialised, and the changes of owners' entries
// kept out while one runs, by a transaction-scoped advisory lock.
func CloseOwnerStatements(ctx context.Context, tx pgx.Tx, companyID, jobID int64, m finance.Month) (StatementSummary, error) {
	sum := StatementSummary{Month: m.String()}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+statementsLock+`)`, companyID); err != nil {
		return sum, translate(err, "owner statements lock")
	}
	restore, err := withoutJIT(ctx, tx)
	if err != nil {
		return sum, err
	}
	defer restore()
	closed, previous, err := monthState(ctx, tx, companyID, m)
	if err != nil {
		return sum, err
	}
	if closed {
		err := tx.QueryRow(ctx, `SELECT count(*) FROM owner_statements WHERE company_id = $1 AND month = $2`,
			companyID, m.String()).Scan(&sum.Skipped)
		return sum, translate(err, "owner statements")
	}
	var closedAt time.Time
	if err := tx.QueryRow(ctx, `INSERT INTO owner_statement_months (company_id, month, job_id, statements, lines)
		VALUES ($1, $2, $3, 0, 0) RETURNING closed_at`, companyID, m.String(), nullID(jobID)).Scan(&closedAt); err != nil {
		return sum, translate(err, "owner statement month")
	}
	owners, err := readStatementEntries(ctx, tx, companyID, m, previous)
	if err != nil || len(owners) == 0 {
		return sum, err
	}
	if err := readOpenings(ctx, tx, companyID, m, previous, closedAt, owners); err != nil {
		return sum, err
	}
	if err := readPayees(ctx, tx, companyID, owners); err != nil {
		return sum, err
	}
	return writeStatements(ctx, tx, companyID, jobID, m, owners)
}

// withoutJIT turns the server's JIT compilation off in tx until the
// returned function puts the setting back: the close's queries each read
// a month of the ledger once, and compiling their expressions cost more
// than it saved (docs/performance.md, "Owner statements").
func withoutJIT(ctx context.Context, tx pgx.Tx) (restore func(), err error) {
	var was string
	if err := tx.QueryRow(ctx, `SELECT current_setting('jit'), set_config('jit', 'off', true)`).Scan(&was, new(string)); err != nil {
		return nil, translate(err, "owner statements settings")
	}
	return func() {
		// a failed transaction is rolled back, the setting with it
		_, _ = tx.Exec(ctx, `SELECT set_config('jit', $1, true)`, was)
	}, nil
}

// monthState says whether month m of the company is closed and, when it
// is not, when the month before it was (nil for the company's first
// close). A month that does not follow the last closed one is refused.
func monthState(ctx context.Context, tx pgx.Tx, companyID int64, m finance.Month) (closed bool, previous *time.Time, err error) {
	var last *string
	var lastAt *time.Time
	err = tx.QueryRow(ctx, `SELECT month, closed_at FROM owner_statement_months WHERE company_id = $1
		ORDER BY month DESC LIMIT 1`, companyID).Scan(&last, &lastAt)
	switch {
	case err == pgx.ErrNoRows:
		return false, nil, nil
	case err != nil:
		return false, nil, translate(err, "owner statement months")
	}
	through, perr := finance.ParseMonth(*last)
	if perr != nil {
		return false, nil, fmt.Errorf("owner statement months: %w", perr)
	}
	switch {
	case m <= through:
		return true, nil, nil
	case m != through.Add(1):
		return false, nil, finance.Errorf(finance.Invalid, "The month %s cannot be closed before %s.", m, through.Add(1))
	}
	return false, lastAt, nil
}

// ownerKey is an owner's books: the owner and the business (0: none).
type ownerKey struct{ owner, business int64 }

// ownerMonth is what one statement is built from.
type ownerMonth struct {
	key      ownerKey
	in       statement.Input
	previous bool // the owner's books have a statement before
}

// readStatementEntries reads, in one statement, the company's owner
// entries of month m and, after the company's first close (previous set),
// those dated before m written since the previous close (less the margin)
// and stated nowhere; grouped by owner and business, in that order. The
// rows come unsorted (Build orders each statement's lines) and are grouped
// here.
func readStatementEntries(ctx context.Context, tx pgx.Tx, companyID int64, m finance.Month, previous *time.Time) ([]*ownerMonth, error) {
	var since *time.Time
	if previous != nil {
		s := previous.Add(-lateMargin)
		since = &s
	}
	byKey := map[ownerKey]*ownerMonth{}
	var out []*ownerMonth
	var cur *ownerMonth
	var labels invoiceLabels
	err := eachRawRow(ctx, tx, "owner statement entries", statementEntriesSQL,
		[]any{companyID, m.First(), m.Last(), since}, func(r *rawRows) error {
			key := ownerKey{r.Int64(1), r.Int64(2)}
			if cur == nil || cur.key != key {
				if cur = byKey[key]; cur == nil {
					cur = &ownerMonth{key: key, in: statement.Input{Month: m}}
					byKey[key] = cur
					out = append(out, cur)
				}
			}
			e := statement.Entry{ID: r.Int64(0), Date: r.Date(3), Type: finance.EntryType(r.Text(4)),
				Mode: finance.EntryMode(r.Text(5)), Cents: r.Cents(6), ItemID: r.Int64(7), ItemType: r.Text(8),
				Hidden: r.Int64(9) == 1, Description: r.Text(10), ContractID: r.Int64(11), BuildingID: r.Int64(12),
				InvoiceID: r.Int64(13), Guaranteed: r.Int64(14) == 1, ReversesID: r.Int64(15), ReversedDate: r.Date(16),
				BillingMethod: r.Text(17)}
			ref := entryRef{month: cur, late: r.Int64(18) == 1}
			if ref.late {
				ref.i, cur.in.Late = len(cur.in.Late), append(cur.in.Late, e)
			} else {
				ref.i, cur.in.Entries = len(cur.in.Entries), append(cur.in.Entries, e)
			}
			labels.add(ref, e, r.Text(19))
			return r.Err()
		})
	if err != nil {
		return nil, err
	}
	if err := labels.write(ctx, tx, companyID); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *ownerMonth) int {
		return cmp.Or(cmp.Compare(a.key.owner, b.key.owner), cmp.Compare(a.key.business, b.key.business))
	})
	return out, nil
}

// onStatement is the condition on an owner's entry t of being stated: a
// transfer the run wrote unpaid (the company pays its transfers by batch)
// is on no statement until it is paid, and then in the month of the day it
// was paid (its date), as written when it was marked paid
// (paid_recorded_at). The void of an unpaid transfer (its reversal, keyed
// and unpaid as the transfer is: transfers_void.go) is on none either:
// neither is ever paid, no money moved.
const onStatement = `NOT (t.transfer_key IS NOT NULL AND NOT t.paid AND t.mode IN ('transfer', 'chargeback'))`

// statementEntriesSQL selects the entries of a close ($1 company, $2 and
// $3 the month's first and last days, $4 the earliest write looked at for
// late entries, null for none): the month's from the ledger's date index,
// the late ones from its block range index of write times (and, for a
// transfer paid after it was written, the index of the moments entries
// were marked paid). The entry a
// reversal reverses is looked up for the reversals alone (a join would
// hash the whole ledger for the few there are); the rows are not sorted.
const statementEntriesSQL = `
WITH e AS (
    SELECT t.*, 0 AS late FROM transactions t
    WHERE t.company_id = $1 AND t.date BETWEEN $2 AND $3 AND t.extract = 'owner' AND t.owner_id IS NOT NULL
      AND ` + onStatement + `
    UNION ALL
    SELECT t.*, 1 FROM transactions t
    WHERE $4::timestamptz IS NOT NULL AND t.company_id = $1 AND (t.created_at >= $4 OR t.paid_recorded_at >= $4)
      AND t.date < $2 AND t.extract = 'owner' AND t.owner_id IS NOT NULL AND ` + onStatement + `
      AND NOT EXISTS (SELECT 1 FROM owner_statement_lines l WHERE l.company_id = t.company_id AND l.transaction_id = t.id)
)
SELECT e.id, e.owner_id, coalesce(e.business_id, 0), e.date, e.type, e.mode, e.amount,
       coalesce(e.item_id, 0), coalesce(ti.type, ''), (ti.owner_report IS FALSE)::int,
       coalesce(nullif(e.description, ''), ti.description, ''), coalesce(e.contract_id, 0), coalesce(e.building_id, 0),
       coalesce(e.invoice_id, 0),
       (e.guaranteed_transfer_id IS NOT NULL OR (e.reverses_id IS NOT NULL AND coalesce((SELECT r.guaranteed_transfer_id IS NOT NULL
           FROM transactions r WHERE r.company_id = e.company_id AND r.id = e.reverses_id), false)))::int,
       coalesce(e.reverses_id, 0),
       CASE WHEN e.reverses_id IS NOT NULL THEN
           (SELECT r.date FROM transactions r WHERE r.company_id = e.company_id AND r.id = e.reverses_id) END,
       coalesce(e.billing_method, ''), e.late, coalesce(e.split, '')
FROM e
LEFT JOIN transaction_items ti ON ti.company_id = e.company_id AND ti.id = e.item_id`

// openingsSQL reads the closing of the last statement before month $4 of
// each of the books $2, $3 (owner, business; 0: none) of company $1. The
// books' unnest ends with a limit of their number, which changes no row
// but the plan kept for the statement: without it the generic plan counts
// ten books (the planner's guess at an array parameter's length), dearer
// than a plan for the one or two books of a small company's close, so
// every run was planned on its own (1,009 plans of 1,000 closes in the
// night of 1,000 companies: docs/performance.md, "The kinds' own cost");
// with a limit that is not a constant the generic plan counts one book and
// is kept (TestOpeningsKeepTheirGenericPlan). Each book is one index probe
// of owner_statements, however many.
const openingsSQL = `
		SELECT k.owner_id, k.business_id, (s.closing * 100)::bigint
		FROM (SELECT * FROM unnest($2::bigint[], $3::bigint[]) AS u (owner_id, business_id)
		      LIMIT cardinality($2::bigint[])) k
		CROSS JOIN LATERAL (
		    SELECT closing FROM owner_statements s
		    WHERE s.company_id = $1 AND s.owner_id = k.owner_id AND s.month < $4
		      AND (s.business_id = k.business_id OR (k.business_id = 0 AND s.business_id IS NULL))
		    ORDER BY s.month DESC LIMIT 1) s`

// readOpenings sets each owner's opening: the closing of the last
// statement of its books, else (its first statement) the balance of its
// entries dated before m written before the late search's window: those
// written since are stated as late, by this close or, after the company's
// first close, by the next.
func readOpenings(ctx context.Context, tx pgx.Tx, companyID int64, m finance.Month, previous *time.Time, closedAt time.Time,
	owners []*ownerMonth) error {
	byKey := make(map[ownerKey]*ownerMonth, len(owners))
	ownerIDs, businessIDs := make([]int64, len(owners)), make([]int64, len(owners))
	for i, o := range owners {
		byKey[o.key] = o
		ownerIDs[i], businessIDs[i] = o.key.owner, o.key.business
	}
	rows, err := tx.Query(ctx, openingsSQL, companyID, ownerIDs, businessIDs, m.String())
	if err != nil {
		return translate(err, "owner statement openings")
	}
	if err := scanOpenings(rows, byKey, true); err != nil {
		return err
	}
	var first []int64
	for _, o := range owners {
		if !o.previous {
			first = append(first, o.key.owner)
		}
	}
	if len(first) == 0 {
		return nil
	}
	// what the late search of this close states (written since the
	// previous close less the margin), or of the next one (written since
	// this close less the margin, for the company's first close) is left to
	// it, and out of the opening
	before := closedAt.Add(-lateMargin)
	if previous != nil {
		before = previous.Add(-lateMargin)
	}
	rows, err = tx.Query(ctx, `
		SELECT t.owner_id, coalesce(t.business_id, 0),
		       (sum(CASE WHEN t.type = 'credit' THEN t.amount ELSE -t.amount END) * 100)::bigint
		FROM transactions t
		WHERE t.company_id = $1 AND t.extract = 'owner' AND t.owner_id = any($2) AND t.date < $3
		  AND coalesce(t.paid_recorded_at, t.created_at) < $4 AND `+onStatement+`
		GROUP BY 1, 2`, companyID, first, m.First(), before)
	if err != nil {
		return translate(err, "owner statement openings")
	}
	return scanOpenings(rows, byKey, false)
}

// scanOpenings sets the openings of the books rows name: those of a
// previous statement (fromStatements), or the first balances of books
// without one.
func scanOpenings(rows pgx.Rows, byKey map[ownerKey]*ownerMonth, fromStatements bool) error {
	defer rows.Close()
	for rows.Next() {
		var k ownerKey
		var opening int64
		if err := rows.Scan(&k.owner, &k.business, &opening); err != nil {
			return translate(err, "owner statement openings")
		}
		o, ok := byKey[k]
		if !ok || (!fromStatements && o.previous) {
			continue
		}
		o.in.Opening, o.previous = opening, o.previous || fromStatements
	}
	return translate(rows.Err(), "owner statement openings")
}

// readPayees sets each owner's bank account and PIX key, as they are at
// the close (the statement shows where the transfers went).
func readPayees(ctx context.Context, tx pgx.Tx, companyID int64, owners []*ownerMonth) error {
	ids := make([]int64, 0, len(owners))
	for _, o := range owners {
		ids = append(ids, o.key.owner)
	}
	rows, err := tx.Query(ctx, `SELECT id, coalesce(bank, ''), coalesce(agency, ''), coalesce(agency_digit, ''),
		       coalesce(account, ''), coalesce(account_digit, ''), coalesce(pix_key, '')
		FROM persons WHERE company_id = $1 AND id = any($2)`, companyID, ids)
	if err != nil {
		return translate(err, "owner statement payees")
	}
	payees := map[int64]statement.Payee{}
	for rows.Next() {
		var id int64
		var p statement.Payee
		if err := rows.Scan(&id, &p.Bank, &p.Agency, &p.AgencyDigit, &p.Account, &p.AccountDigit, &p.PixKey); err != nil {
			rows.Close()
			return translate(err, "owner statement payees")
		}
		payees[id] = p
	}
	if err := translate(rows.Err(), "owner statement payees"); err != nil {
		return err
	}
	for _, o := range owners {
		o.in.Payee = payees[o.key.owner]
	}
	return nil
}

// writeStatements builds each owner's statement and writes them with
// their lines, and the month's counts (in the statements' statement).
func writeStatements(ctx context.Context, tx pgx.Tx, companyID, jobID int64, m finance.Month, owners []*ownerMonth) (StatementSummary, error) {
	sum := StatementSummary{Month: m.String()}
	built := make([]statement.Statement, len(owners))
	var cols statementColumns
	for i, o := range owners {
		built[i] = statement.Build(o.in)
		cols.add(o.key, built[i])
	}
	var lines int64
	for _, b := range built {
		lines += int64(len(b.Lines))
	}
	// the month's counts are written by the statements' statement: the
	// lines' COPY below writes every line or fails
	rows, err := tx.Query(ctx, `
		WITH written AS (
		INSERT INTO owner_statements (company_id, owner_id, business_id, month, opening, closing, income, deductions,
		    guarantee, transfers, adjustments, shown_lines, hidden_lines, hidden_amount, job_id)
		SELECT $1, o, nullif(b, 0), $2, opening / 100.0, closing / 100.0, income / 100.0, deductions / 100.0,
		       guarantee / 100.0, transfers / 100.0, adjustments / 100.0, shown, hidden, hidden_amount / 100.0, $3
		FROM unnest($4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[],
		            $11::bigint[], $12::bigint[], $13::int[], $14::int[], $15::bigint[])
		     AS k (o, b, opening, closing, income, deductions, guarantee, transfers, adjustments, shown, hidden, hidden_amount)
		RETURNING id, owner_id, coalesce(business_id, 0) AS business_id),
		counted AS (
		UPDATE owner_statement_months SET statements = $16, lines = $17 WHERE company_id = $1 AND month = $2)
		SELECT id, owner_id, business_id FROM written`,
		companyID, m.String(), nullID(jobID), cols.owners, cols.businesses, cols.opening, cols.closing, cols.income,
		cols.deductions, cols.guarantee, cols.transfers, cols.adjustments, cols.shown, cols.hidden, cols.hiddenAmount,
		len(owners), lines)
	if err != nil {
		return sum, translate(err, "owner statements")
	}
	ids := map[ownerKey]int64{}
	for rows.Next() {
		var id int64
		var k ownerKey
		if err := rows.Scan(&id, &k.owner, &k.business); err != nil {
			rows.Close()
			return sum, translate(err, "owner statements")
		}
		ids[k] = id
	}
	if err := translate(rows.Err(), "owner statements"); err != nil {
		return sum, err
	}
	copied, err := copyStatementLines(ctx, tx, companyID, owners, built, ids)
	if err != nil {
		return sum, err
	}
	if copied != lines {
		return sum, fmt.Errorf("owner statement lines: %d copied of %d", copied, lines)
	}
	sum.Statements, sum.Lines = int64(len(owners)), lines
	seen := map[int64]bool{}
	for _, o := range owners {
		seen[o.key.owner] = true
	}
	sum.Owners = int64(len(seen))
	return sum, nil
}

// statementColumns are the statements of a close as arrays, one element
// per statement, amounts in cents.
type statementColumns struct {
	owners, businesses                                                      []int64
	opening, closing, income, deductions, guarantee, transfers, adjustments []int64
	hiddenAmount                                                            []int64
	shown, hidden                                                           []int32
}

func (c *statementColumns) add(k ownerKey, s statement.Statement) {
	t := s.Totals
	c.owners, c.businesses = append(c.owners, k.owner), append(c.businesses, k.business)
	c.opening, c.closing = append(c.opening, s.Opening), append(c.closing, s.Closing)
	c.income, c.deductions = append(c.income, t.Income), append(c.deductions, t.Deductions)
	c.guarantee, c.transfers = append(c.guarantee, t.Guarantee), append(c.transfers, t.Transfers)
	c.adjustments, c.hiddenAmount = append(c.adjustments, t.Adjustments), append(c.hiddenAmount, t.HiddenCents)
	c.shown, c.hidden = append(c.shown, int32(t.Shown)), append(c.hidden, int32(t.HiddenCount))
}

// statementLineColumns are the columns of owner_statement_lines a close
// copies.
var statementLineColumns = []string{"company_id", "statement_id", "position", "transaction_id", "section", "kind", "date",
	"description", "amount", "contract_id", "building_id", "invoice_id", "item_id", "item_type", "corrects_month",
	"hidden", "destination", "billing_method"}

// copyStatementLines writes every line of the built statements in one
// COPY; the number written.
func copyStatementLines(ctx context.Context, tx pgx.Tx, companyID int64, owners []*ownerMonth, built []statement.Statement,
	ids map[ownerKey]int64) (int64, error) {
	var rows [][]any
	for i, o := range owners {
		id, ok := ids[o.key]
		if !ok {
			return 0, fmt.Errorf("owner statements: no statement returned for owner %d, business %d", o.key.owner, o.key.business)
		}
		for pos, l := range built[i].Lines {
			var corrects *string
			if l.IsAdjustment() {
				s := l.CorrectsMonth.String()
				corrects = &s
			}
			rows = append(rows, []any{companyID, id, int32(pos + 1), l.TransactionID, string(l.Section), string(l.Kind), l.Date.Time(),
				l.Description, numeric(cents(l.Cents)), nullID(l.ContractID), nullID(l.BuildingID), nullID(l.InvoiceID),
				nullID(l.ItemID), nullText(l.ItemType), corrects, l.Hidden, nullText(l.Destination), nullText(l.BillingMethod)})
		}
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"owner_statement_lines"}, statementLineColumns, pgx.CopyFromRows(rows))
	if err != nil {
		return 0, translate(err, "owner statement lines")
	}
	return n, nil
}
