package storage

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// Readjustment of contracts (docs/finance.md, "Readjustment"): the
// nightly job and the contract operation both call ReadjustContracts, the
// operation's preview in a transaction it rolls back.

// ContractReadjustments is the resource of
// GET /financial/contracts/{contract}/readjustments.
const ContractReadjustments = "contract_readjustments"

// OriginReadjust is the history origin of an invoice whose rent line a
// readjustment changed.
const OriginReadjust = "readjust"

func contractReadjustmentsResource() *Resource {
	return &Resource{
		Name: ContractReadjustments, Table: "contract_readjustments", ReadOnly: true,
		Parent: &Parent{Resource: Contracts, Key: "contract_id"},
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "contract_id", Type: Int, Filterable: true},
			{Name: "readjust_at", Type: Date, Filterable: true},
			{Name: "outcome", Type: String, Filterable: true, Enum: []string{string(finance.ReadjustApplied), string(finance.ReadjustKept)}},
			{Name: "indicator", Type: String, Filterable: true},
			{Name: "index_used", Type: String, Filterable: true},
			{Name: "months", Type: JSON, Expr: `to_jsonb("months")`},
			{Name: "factor", Type: Decimal, Filterable: true, Precision: 1000, Scale: 990, Expr: `trim_scale("factor")`},
			{Name: "variation", Type: Decimal, Filterable: true, Precision: 12, Scale: 4},
			{Name: "old_amount", Type: Decimal, Filterable: true, Precision: 14, Scale: 2},
			{Name: "new_amount", Type: Decimal, Filterable: true, Precision: 14, Scale: 2},
			{Name: "next_readjust_at", Type: Date, Filterable: true},
			{Name: "invoices_updated", Type: Int, Filterable: true},
			{Name: "actor", Type: String, Filterable: true, Enum: []string{ActorUser, ActorJob, ActorSystem}},
			{Name: "actor_id", Type: Int, Filterable: true},
			{Name: "created_at", Type: DateTime, Filterable: true},
		},
	}
}

// ReadjustSelection says which contracts of a company ReadjustContracts
// takes: one contract by id (whatever its state: the rule says whether it
// is due), or the contracts due on Date with an id above After and up to
// Through, the first Limit of them (the nightly run's chunks).
type ReadjustSelection struct {
	CompanyID  int64
	Date       finance.Date
	ContractID int64 // one contract; 0: the due ones in (After, Through]
	After      int64
	Through    int64 // 0: no bound
	Limit      int   // 0: no limit
	Actor      Actor
	Options    finance.ReadjustOptions
}

// ContractReadjustment is what happened to one contract: the rule's
// answer, and the invoices whose rent line moved (readjusted only).
type ContractReadjustment struct {
	ContractID int64 `json:"contract_id"`
	// ContractIndicator is the contract's readjust_indicator (Indicator,
	// the index used: for highest_index and lowest_index, the one chosen).
	ContractIndicator finance.Indicator `json:"contract_indicator"`
	finance.Readjustment
	InvoicesUpdated []int64 `json:"invoices_updated"`
}

// readjustColumns are what the rule reads of a contract.
const readjustColumns = `id, status, active, start_at, coalesce(amount, 0)::text, current_amount::text, readjust_active,
	coalesce(readjust_indicator, ''), coalesce(readjust_with, 0), readjust_at, readjusted_at`

// dueReadjustment is the condition of the contracts of company $1 a run on
// $2 may readjust: active, in progress or awaiting readjustment,
// readjust_active, and due by their readjust_at (or, when it is not set,
// readjusted_at or start_at plus readjust_with months, as the rule derives
// it).
const dueReadjustment = `company_id = $1 AND readjust_active AND active = 'active' AND status IN ('progress', 'readjust')
	AND coalesce(readjust_at, ` + readjustAtDerived + `) <= $2`

// readjustAtDerived is the readjustment date of a contract without
// readjust_at, as the rule derives it: readjusted_at, else start_at, plus
// readjust_with months (12 when not set), the month's end kept as
// finance.Date.AddMonths keeps it.
const readjustAtDerived = `(coalesce("readjusted_at", "start_at") + make_interval(months => coalesce("readjust_with", 12)))::date`

// dueContractsSQL reads and locks the due contracts with an id in
// ($3, $4], at most $5 (none: all), in id order.
const dueContractsSQL = `SELECT ` + readjustColumns + ` FROM contracts
	WHERE ` + dueReadjustment + ` AND id > $3 AND id <= $4
	ORDER BY id LIMIT $5 FOR NO KEY UPDATE`

const oneContractSQL = `SELECT ` + readjustColumns + ` FROM contracts
	WHERE company_id = $1 AND id = $2 FOR NO KEY UPDATE`

// PlanReadjustChunks cuts the contracts due on date into chunks of size
// contracts in id order: it returns the last id of each chunk (a chunk
// runs from the id after the previous chunk's last, or the first, to its
// own last) and how many contracts are due.
func PlanReadjustChunks(ctx context.Context, db DBTX, companyID int64, date finance.Date, size int) (lasts []int64, due int64, err error) {
	lasts, due, _, err = PlanReadjustRun(ctx, db, companyID, date, size)
	return lasts, due, err
}

// PlanReadjustRun is PlanReadjustChunks and the company's readjustment
// settings (ReadjustSettingsOf) in one statement: the company's row
// joined to its chunks' last ids, one row when none is due.
func PlanReadjustRun(ctx context.Context, db DBTX, companyID int64, date finance.Date, size int) (lasts []int64, due int64,
	settings ReadjustSettings, err error) {
	rows, err := db.Query(ctx, `SELECT co.readjust_allow_reduction, co.readjust_candidates, d.id, d.total
		FROM companies co LEFT JOIN (
			SELECT id, total FROM (
				SELECT id, row_number() OVER (ORDER BY id) AS n, count(*) OVER () AS total
				FROM contracts WHERE `+dueReadjustment+`) d
			WHERE n % $3 = 0 OR n = total) d ON true
		WHERE co.id = $1 ORDER BY d.id`, companyID, date, size)
	if err != nil {
		return nil, 0, settings, translate(err, "plan readjustment chunks")
	}
	defer rows.Close()
	found := false
	for rows.Next() {
		var id, total *int64
		if err := rows.Scan(&settings.AllowReduction, &settings.Candidates, &id, &total); err != nil {
			return nil, 0, settings, translate(err, "plan readjustment chunks")
		}
		found = true
		if id != nil {
			lasts, due = append(lasts, *id), *total
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, settings, translate(err, "plan readjustment chunks")
	}
	if !found {
		return nil, 0, settings, translate(pgx.ErrNoRows, "company")
	}
	return lasts, due, settings, nil
}

// maxReadjustSteps bounds the periods one call catches up for a contract
// (ten years of monthly readjustments).
const maxReadjustSteps = 120

// ReadjustContracts readjusts the selected contracts on sel.Date in tx:
// each gets the rule's answer (finance.Readjust over idx); a readjusted or
// kept one its new current_amount, readjusted_at, next readjust_at, status
// and readjustment record, and its unpaid invoices of periods from the
// readjustment date on their rent line at the new amount (with history);
// a waiting one the status readjust. A contract several periods behind
// is taken through each period in turn, so that nothing is left due on
// sel.Date that can be done. Each step is written with a few set-based
// statements for the whole selection. It returns the answers in step
// order, then id order (one per contract and period; the not-due and
// waiting ones once). A contract of another company is a 404
// (sel.ContractID).
func ReadjustContracts(ctx context.Context, tx pgx.Tx, idx finance.Indices, sel ReadjustSelection) ([]ContractReadjustment, error) {
	contracts, err := readjustContractsOf(ctx, tx, sel)
	if err != nil {
		return nil, err
	}
	if sel.ContractID != 0 {
		if err := checkReadjustable(&contracts[0]); err != nil {
			return nil, err
		}
	}
	var out []ContractReadjustment
	for step := 0; len(contracts) > 0 && step < maxReadjustSteps; step++ {
		answers, err := readjustStep(ctx, tx, idx, sel, contracts)
		if err != nil {
			return nil, err
		}
		out = append(out, answers...)
		contracts = stillDue(contracts, answers, sel.Date)
	}
	return out, nil
}

// readjustStep applies the rule once to each contract and writes the
// answers.
func readjustStep(ctx context.Context, tx pgx.Tx, idx finance.Indices, sel ReadjustSelection, contracts []finance.Contract) ([]ContractReadjustment, error) {
	out := make([]ContractReadjustment, 0, len(contracts))
	for i := range contracts {
		r, err := finance.Readjust(contracts[i], idx, sel.Date, sel.Options)
		if err != nil {
			return nil, fmt.Errorf("readjust contract %d: %w", contracts[i].ID, asInvalid(err))
		}
		out = append(out, ContractReadjustment{ContractID: contracts[i].ID, ContractIndicator: contracts[i].ReadjustIndicator, Readjustment: r})
	}
	if err := updateReadjustedInvoices(ctx, tx, sel, out); err != nil {
		return nil, err
	}
	if err := writeReadjustments(ctx, tx, sel, out); err != nil {
		return nil, err
	}
	if err := emitReadjusted(ctx, tx, sel.CompanyID, out); err != nil {
		return nil, err
	}
	return out, nil
}

// emitReadjusted emits contract.readjusted for the contracts whose rent
// the step readjusted (the contract as it is now) and invoice.updated for
// the invoices whose rent line it moved.
func emitReadjusted(ctx context.Context, tx pgx.Tx, companyID int64, rs []ContractReadjustment) error {
	var contracts, invoices []int64
	for _, r := range rs {
		if r.Outcome == finance.ReadjustApplied {
			contracts = append(contracts, r.ContractID)
			invoices = append(invoices, r.InvoicesUpdated...)
		}
	}
	if _, err := EmitRecordEvents(ctx, tx, companyID, EventContractReadjusted, Contracts, contracts, ""); err != nil {
		return err
	}
	_, err := EmitRecordEvents(ctx, tx, companyID, EventInvoiceUpdated, Invoices, invoices, "")
	return err
}

// stillDue is the contracts moved on by answers as they now are, those
// whose next readjustment is due on date too.
func stillDue(contracts []finance.Contract, answers []ContractReadjustment, date finance.Date) []finance.Contract {
	var due []finance.Contract
	for i, r := range answers {
		if r.Outcome != finance.ReadjustApplied && r.Outcome != finance.ReadjustKept || date.Before(r.NextReadjustAt) {
			continue
		}
		c := contracts[i]
		c.CurrentAmount = decimal.NewNullDecimal(r.NewAmount)
		c.ReadjustedAt, c.ReadjustAt, c.Status = r.ReadjustAt, r.NextReadjustAt, r.ContractStatus
		due = append(due, c)
	}
	return due
}

// checkReadjustable refuses a contract the nightly run would not take:
// one not active, or neither in progress nor awaiting its readjustment.
func checkReadjustable(c *finance.Contract) error {
	if c.Active != finance.ActiveActive || (c.Status != finance.StatusProgress && c.Status != finance.StatusReadjust) {
		return finance.Errorf(finance.Conflict, "Contract %d is not readjusted: it is %s with status %s (only an active contract in progress or awaiting readjustment is).",
			c.ID, c.Active, c.Status)
	}
	return nil
}

// asInvalid turns the rule's Problems into a 422.
func asInvalid(err error) error {
	if e, ok := finance.AsInvalid(err, nil); ok {
		return e
	}
	return err
}

// readjustContractsOf reads and locks the selected contracts.
func readjustContractsOf(ctx context.Context, tx pgx.Tx, sel ReadjustSelection) ([]finance.Contract, error) {
	var rows pgx.Rows
	var err error
	if sel.ContractID != 0 {
		rows, err = tx.Query(ctx, oneContractSQL, sel.CompanyID, sel.ContractID)
	} else {
		through, limit := sel.Through, &sel.Limit
		if through == 0 {
			through = math.MaxInt64
		}
		if sel.Limit == 0 {
			limit = nil
		}
		rows, err = tx.Query(ctx, dueContractsSQL, sel.CompanyID, sel.Date, sel.After, through, limit)
	}
	if err != nil {
		return nil, translate(err, "read contracts to readjust")
	}
	contracts, err := pgx.CollectRows(rows, scanReadjustContract)
	if err != nil {
		return nil, translate(err, "read contracts to readjust")
	}
	if sel.ContractID != 0 && len(contracts) == 0 {
		return nil, recordNotFound(sel.ContractID)
	}
	return contracts, nil
}

func scanReadjustContract(row pgx.CollectableRow) (finance.Contract, error) {
	var c finance.Contract
	var status, active, indicator, amount string
	var current *string
	err := row.Scan(&c.ID, &status, &active, &c.StartAt, &amount, &current, &c.ReadjustActive,
		&indicator, &c.ReadjustWith, &c.ReadjustAt, &c.ReadjustedAt)
	if err != nil {
		return c, err
	}
	c.Status, c.Active, c.ReadjustIndicator = finance.ContractStatus(status), finance.ContractActive(active), finance.Indicator(indicator)
	if c.Amount, err = decimal.NewFromString(amount); err != nil {
		return c, err
	}
	if current != nil {
		d, err := decimal.NewFromString(*current)
		if err != nil {
			return c, err
		}
		c.CurrentAmount.Decimal, c.CurrentAmount.Valid = d, true
	}
	return c, nil
}

// writeReadjustments records the readjustments and moves the contracts
// forward, each set in one statement. The records go first: their
// foreign-key checks then find the contract rows already locked by this
// transaction (FOR NO KEY UPDATE, a stronger lock) instead of locking the
// new row versions the update writes (a little less work: about 0.1 s of
// the records' 1.7 s of CPU per 100,000).
func writeReadjustments(ctx context.Context, tx pgx.Tx, sel ReadjustSelection, rs []ContractReadjustment) error {
	var b readjustBatch
	for _, r := range rs {
		b.add(r)
	}
	if len(b.ids) > 0 {
		if err := recordReadjustments(ctx, tx, sel, &b); err != nil {
			return err
		}
		if err := moveContracts(ctx, tx, sel, &b); err != nil {
			return err
		}
	}
	if len(b.waiting) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE contracts SET status = 'readjust', updated_at = now()
			WHERE company_id = $1 AND id = any($2) AND status <> 'readjust'`, sel.CompanyID, b.waiting); err != nil {
			return translate(err, "mark contracts awaiting readjustment")
		}
	}
	return nil
}

// recordReadjustments inserts the batch's rows of contract_readjustments.
func recordReadjustments(ctx context.Context, tx pgx.Tx, sel ReadjustSelection, b *readjustBatch) error {
	_, err := tx.Exec(ctx, `INSERT INTO contract_readjustments (company_id, contract_id, readjust_at, outcome,
			indicator, index_used, months, factor, variation, old_amount, new_amount, next_readjust_at,
			invoices_updated, actor, actor_id)
		SELECT $1, u.id, u.at::date, u.outcome, u.indicator, u.used, string_to_array(u.months, ','),
			u.factor::numeric, round(u.variation::numeric, 4), u.old::numeric, u.amount::numeric, u.next::date,
			u.invoices, $14, $15
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::text[], $10::text[], $11::int[], $12::text[], $13::text[])
			AS u(id, at, outcome, used, months, factor, variation, old, amount, invoices, next, indicator)
		ON CONFLICT (company_id, contract_id, readjust_at) DO NOTHING`,
		sel.CompanyID, b.ids, b.ats, b.outcomes, b.used, b.months, b.factors, b.variations,
		b.oldAmounts, b.newAmounts, b.invoices, b.nexts, b.indicators, sel.Actor.Kind, actorID(sel.Actor))
	return translate(err, "record readjustments")
}

// moveContracts writes the batch's new current_amount, readjusted_at,
// readjust_at and status. The id range keeps the plan on the primary key
// (the batch is a run of ids) instead of a hash of every contract of the
// company, whatever the planner guesses of unnest.
func moveContracts(ctx context.Context, tx pgx.Tx, sel ReadjustSelection, b *readjustBatch) error {
	_, err := tx.Exec(ctx, `UPDATE contracts c SET current_amount = u.amount::numeric, readjusted_at = u.at::date,
			readjust_at = u.next::date, status = u.status, updated_at = now()
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(id, amount, at, next, status)
		WHERE c.company_id = $1 AND c.id = u.id AND c.id BETWEEN $7 AND $8`,
		sel.CompanyID, b.ids, b.newAmounts, b.ats, b.nexts, b.statuses, b.low, b.high)
	return translate(err, "write readjusted contracts")
}

func actorID(a Actor) *int64 {
	if a.ID == 0 {
		return nil
	}
	return &a.ID
}

// readjustBatch holds the columns of the readjusted and kept contracts,
// as arrays for unnest, and the ids of those waiting.
type readjustBatch struct {
	ids                                                 []int64
	low, high                                           int64 // the least and greatest of ids
	ats, nexts, statuses, outcomes, indicators, used    []string
	months, factors, variations, oldAmounts, newAmounts []string
	invoices                                            []int32
	waiting                                             []int64
}

func (b *readjustBatch) add(r ContractReadjustment) {
	switch r.Outcome {
	case finance.ReadjustWaiting:
		b.waiting = append(b.waiting, r.ContractID)
		return
	case finance.ReadjustApplied, finance.ReadjustKept:
	default:
		return
	}
	months := make([]byte, 0, 8*len(r.Months))
	for i, m := range r.Months {
		if i > 0 {
			months = append(months, ',')
		}
		months = append(months, m.String()...)
	}
	if len(b.ids) == 0 || r.ContractID < b.low {
		b.low = r.ContractID
	}
	b.high = max(b.high, r.ContractID)
	b.ids = append(b.ids, r.ContractID)
	b.indicators = append(b.indicators, string(r.ContractIndicator))
	b.ats = append(b.ats, r.ReadjustAt.String())
	b.nexts = append(b.nexts, r.NextReadjustAt.String())
	b.statuses = append(b.statuses, string(r.ContractStatus))
	b.outcomes = append(b.outcomes, string(r.Outcome))
	b.used = append(b.used, string(r.Indicator))
	b.months = append(b.months, string(months))
	b.factors = append(b.factors, r.Factor.String())
	b.variations = append(b.variations, r.Variation.String())
	b.oldAmounts = append(b.oldAmounts, r.OldAmount.StringFixed(2))
	b.newAmounts = append(b.newAmounts, r.NewAmount.StringFixed(2))
	b.invoices = append(b.invoices, int32(len(r.InvoicesUpdated)))
}

// updateReadjustedInvoices moves the rent line of the contracts' unpaid
// invoices of periods from the readjustment date on to the new amount,
// and their total by the difference, with a history row each: one
// statement for every contract of the batch. The rule (docs/finance.md):
// invoices of type contract, status unpaid or overdue, not paid, boleto
// not registered, period_initial >= the readjustment date; lines of kind
// line whose transaction item is of type rent and whose amount is the old
// rent (a full period's line; a prorated or hand-edited line is left). The
// range of the batch's contract ids keeps the plan on invoices_contract:
// without it PostgreSQL hashed every invoice of the company for each
// chunk, so that a run's cost grew with the square of its size.
func updateReadjustedInvoices(ctx context.Context, tx pgx.Tx, sel ReadjustSelection, rs []ContractReadjustment) error {
	var ids []int64
	var ats, olds, news []string
	pos := map[int64]int{}
	for i, r := range rs {
		if r.Outcome != finance.ReadjustApplied || r.NewAmount.Equal(r.OldAmount) {
			continue
		}
		pos[r.ContractID] = i
		ids = append(ids, r.ContractID)
		ats = append(ats, r.ReadjustAt.String())
		olds = append(olds, r.OldAmount.StringFixed(2))
		news = append(news, r.NewAmount.StringFixed(2))
	}
	if len(ids) == 0 {
		return nil
	}
	note := fmt.Sprintf("rent readjusted on %s", sel.Date)
	rows, err := tx.Query(ctx, `WITH r AS (
			SELECT * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS r(contract_id, at, old, new)
		), lines AS (
			UPDATE invoice_items ii SET amount = r.new::numeric, updated_at = now()
			FROM invoices i, r, transaction_items t
			WHERE i.company_id = $1 AND i.contract_id = r.contract_id AND i.contract_id BETWEEN $10 AND $11 AND i.type = 'contract'
			  AND i.status IN ('unpaid', 'overdue') AND NOT i.paid AND NOT i.ticket_registered
			  AND i.period_initial >= r.at::date
			  AND ii.company_id = $1 AND ii.invoice_id = i.id AND ii.kind = 'line' AND ii.amount = r.old::numeric
			  AND t.company_id = $1 AND t.id = ii.item_id AND t.type = 'rent'
			RETURNING ii.invoice_id, i.contract_id, ii.id AS line_id, r.old::numeric AS old, r.new::numeric AS new
		), totals AS (
			UPDATE invoices i SET total = i.total + d.delta, updated_at = now()
			FROM (SELECT invoice_id, min(contract_id) AS contract_id, sum(new - old) AS delta,
			             jsonb_agg(jsonb_build_object('field', 'items[' || line_id || '].amount', 'from', old, 'to', new) ORDER BY line_id) AS lines
			      FROM lines GROUP BY invoice_id) d
			WHERE i.company_id = $1 AND i.id = d.invoice_id
			RETURNING i.id, d.contract_id, i.total - d.delta AS old_total, i.total AS new_total, d.lines
		), history AS (
			INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes, note)
			SELECT $1, id, $6, $7, $8,
			       jsonb_build_array(jsonb_build_object('field', 'total', 'from', old_total, 'to', new_total)) || lines, $9
			FROM totals
		)
		SELECT contract_id, id FROM totals ORDER BY contract_id, id`,
		sel.CompanyID, ids, ats, olds, news, sel.Actor.Kind, actorID(sel.Actor), OriginReadjust, note, slices.Min(ids), slices.Max(ids))
	if err != nil {
		return translate(err, "update readjusted invoices")
	}
	defer rows.Close()
	for rows.Next() {
		var contract, invoice int64
		if err := rows.Scan(&contract, &invoice); err != nil {
			return translate(err, "update readjusted invoices")
		}
		r := &rs[pos[contract]]
		r.InvoicesUpdated = append(r.InvoicesUpdated, invoice)
	}
	return translate(rows.Err(), "update readjusted invoices")
}

// ReadjustContract is the contract operation: contract id of the scope's
// company readjusted on date (zero: today in the company's time zone) by
// the user of the scope, with the company's settings. A preview runs the very same writes in a
// transaction it rolls back, so that it shows what a run would do and
// stores nothing. A run's date may not be after today. It returns the
// answers and the date used.
func (s *Store) ReadjustContract(ctx context.Context, sc Scope, id int64, date finance.Date, preview bool) ([]ContractReadjustment, finance.Date, error) {
	return ReadjustContractIn(ctx, s.pool, sc, id, date, preview)
}

// ReadjustContractIn is Store.ReadjustContract in a transaction of db (a
// pool, or a transaction: a savepoint of it, as a check rolled back runs
// it).
func ReadjustContractIn(ctx context.Context, db Beginner, sc Scope, id int64, date finance.Date, preview bool) ([]ContractReadjustment, finance.Date, error) {
	var out []ContractReadjustment
	err := runOrPreview(ctx, db, preview, func(tx pgx.Tx) error {
		today, err := companyToday(ctx, tx, sc.CompanyID)
		if err != nil {
			return err
		}
		t := finance.NewDate(today.Year(), today.Month(), today.Day())
		switch {
		case date.IsZero():
			date = t
		case !preview && t.Before(date):
			return finance.InvalidInput([]finance.Problem{{Field: "date", Message: "must not be after today (" + t.String() + ") unless preview"}})
		}
		idx, err := LoadIndices(ctx, tx)
		if err != nil {
			return err
		}
		settings, err := ReadjustSettingsOf(ctx, tx, sc.CompanyID)
		if err != nil {
			return err
		}
		out, err = ReadjustContracts(ctx, tx, idx, ReadjustSelection{CompanyID: sc.CompanyID, Date: date, ContractID: id,
			Actor: ActorOf(sc), Options: settings.Options()})
		return err
	})
	return out, date, err
}
