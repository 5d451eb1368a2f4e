package storage_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// readjustFixture is a company with what a rent contract and its invoices
// point at: a business, an account, a tenant, a building, and the items
// rent and condominium.
type readjustFixture struct {
	pool                                         *pgxpool.Pool
	company, business, account, tenant, building int64
	rent, condo                                  int64
}

func newReadjustFixture(t *testing.T) *readjustFixture {
	t.Helper()
	f := &readjustFixture{pool: storagetest.NewDB(t)}
	f.company = f.setUpCompany(t, "Imobiliária Reajuste")
	return f
}

// setUpCompany creates a company and its records; the fixture keeps the
// last one's ids.
func (f *readjustFixture) setUpCompany(t *testing.T, name string) int64 {
	t.Helper()
	company, _, err := storage.EnsureCompany(context.Background(), f.pool, name)
	if err != nil {
		t.Fatal(err)
	}
	f.company = company
	f.business = f.id(t, `INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte') RETURNING id`)
	f.account = f.id(t, `INSERT INTO accounts (company_id, business_id) VALUES ($1, $2) RETURNING id`, f.business)
	f.tenant = f.id(t, `INSERT INTO persons (company_id, name) VALUES ($1, 'Ana Inquilina') RETURNING id`)
	f.building = f.id(t, `INSERT INTO buildings (company_id, title) VALUES ($1, 'Apto 101') RETURNING id`)
	item := `INSERT INTO transaction_items (company_id, description, debit, credit, type) VALUES ($1, $2, 'customer', 'owner', $3) RETURNING id`
	f.rent = f.id(t, item, "Aluguel", "rent")
	f.condo = f.id(t, item, "Condomínio", "default")
	return company
}

func (f *readjustFixture) id(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := f.pool.QueryRow(context.Background(), sql, append([]any{f.company}, args...)...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// contract inserts an active rent contract in progress of 2,000.00
// readjusted every 12 months by indicator from readjustAt.
func (f *readjustFixture) contract(t *testing.T, indicator, readjustAt string) int64 {
	t.Helper()
	return f.id(t, `INSERT INTO contracts (company_id, type, building_id, tenant_id, start_at, amount, readjust_active,
		readjust_indicator, readjust_with, readjust_at) VALUES ($1, 'rent', $2, $3, '2024-01-15', 2000.00, true, $4, 12, $5)
		RETURNING id`, f.building, f.tenant, indicator, readjustAt)
}

// invoice inserts a contract invoice for the period starting on period
// with a rent line of rent and a condominium line of 350.00.
func (f *readjustFixture) invoice(t *testing.T, contract int64, period, rent string, paid bool) int64 {
	t.Helper()
	inv := f.id(t, `INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
		description, total, date, due_date, period_initial, period_final, paid, paid_at, status)
		VALUES ($1, 'contract', $2, $3, $4, $5, 'ticket', 'Aluguel', $6::numeric + 350, $7::date, $7::date + 5, $7::date,
		        ($7::date + interval '1 month' - interval '1 day')::date, $8, CASE WHEN $8 THEN $7::date END,
		        CASE WHEN $8 THEN 'paid' ELSE 'unpaid' END)
		RETURNING id`, f.tenant, contract, f.business, f.account, rent, period, paid)
	f.id(t, `INSERT INTO invoice_items (company_id, invoice_id, item_id, amount) VALUES ($1, $2, $3, $4), ($1, $2, $5, 350.00)
		RETURNING 0`, inv, f.rent, rent, f.condo)
	return inv
}

// run readjusts the company's due contracts on date, as one chunk of the
// nightly job does, and commits.
func (f *readjustFixture) run(t *testing.T, date string) []storage.ContractReadjustment {
	t.Helper()
	return f.readjust(t, storage.ReadjustSelection{Date: finance.MustDate(date), Limit: 1000}, true)
}

func (f *readjustFixture) readjust(t *testing.T, sel storage.ReadjustSelection, commit bool) []storage.ContractReadjustment {
	t.Helper()
	ctx := context.Background()
	sel.CompanyID, sel.Actor = f.company, storage.Actor{Kind: storage.ActorJob, ID: 1}
	idx, err := storage.LoadIndices(ctx, f.pool)
	if err != nil {
		t.Fatal(err)
	}
	var out []storage.ContractReadjustment
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // rolled back unless committed
	if out, err = storage.ReadjustContracts(ctx, tx, idx, sel); err != nil {
		t.Fatal(err)
	}
	if commit {
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func (f *readjustFixture) text(t *testing.T, sql string, args ...any) string {
	t.Helper()
	var v string
	if err := f.pool.QueryRow(context.Background(), sql, append([]any{f.company}, args...)...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func TestReadjustEachIndicator(t *testing.T) {
	t.Parallel()
	f := newReadjustFixture(t)
	tests := []struct {
		indicator, at, used, outcome, amount, status string
	}{
		{"IPCA", "2025-01-15", "IPCA", "readjusted", "2096.63", "progress"},
		{"IGP-M", "2025-01-15", "IGP-M", "readjusted", "2130.72", "progress"},
		{"INPC", "2025-01-15", "INPC", "readjusted", "2095.36", "progress"},
		{"IPC-BR", "2025-01-15", "IPC-BR", "readjusted", "2079.74", "progress"},
		{"IPC-FIPE", "2025-01-15", "IPC-FIPE", "readjusted", "2093.64", "progress"},
		{"highest_index", "2025-01-15", "IGP-M", "readjusted", "2130.72", "progress"},
		{"lowest_index", "2025-01-15", "INPC", "readjusted", "2095.36", "progress"},
		// INCC-M is not shipped: waiting
		{"INCC-M", "2025-01-15", "", "waiting", "", "readjust"},
	}
	ids := make([]int64, len(tests))
	for i, tt := range tests {
		ids[i] = f.contract(t, tt.indicator, tt.at)
	}
	notDue := f.contract(t, "IPCA", "2025-01-16")
	got := f.run(t, "2025-01-15")
	if len(got) != len(tests) {
		t.Fatalf("%d contracts readjusted, want %d (not the one due tomorrow)", len(got), len(tests))
	}
	for i, tt := range tests {
		r := got[i]
		if r.ContractID != ids[i] || string(r.Outcome) != tt.outcome {
			t.Errorf("%s %s: contract %d outcome %s, want %d %s", tt.indicator, tt.at, r.ContractID, r.Outcome, ids[i], tt.outcome)
			continue
		}
		status := f.text(t, `SELECT status FROM contracts WHERE company_id = $1 AND id = $2`, ids[i])
		if status != tt.status {
			t.Errorf("%s %s: status %s, want %s", tt.indicator, tt.at, status, tt.status)
		}
		if tt.outcome == "waiting" {
			continue
		}
		row := f.text(t, `SELECT concat_ws(' ', c.current_amount, c.readjusted_at, c.readjust_at, r.index_used, r.outcome,
				r.old_amount, r.new_amount, array_length(r.months, 1), r.months[1], r.actor)
			FROM contracts c JOIN contract_readjustments r ON r.company_id = c.company_id AND r.contract_id = c.id
			WHERE c.company_id = $1 AND c.id = $2`, ids[i])
		want := tt.amount + " " + tt.at + " " + next(tt.at) + " " + tt.used + " " + tt.outcome + " 2000.00 " + tt.amount + " 12 2024-01 job"
		if row != want {
			t.Errorf("%s %s:\n got %s\nwant %s", tt.indicator, tt.at, row, want)
		}
	}
	if s := f.text(t, `SELECT readjust_at::text FROM contracts WHERE company_id = $1 AND id = $2`, notDue); s != "2025-01-16" {
		t.Errorf("the contract not due moved: %s", s)
	}
	// A re-run on the same date readjusts nothing twice: only the waiting
	// contract is due still.
	again := f.run(t, "2025-01-15")
	if len(again) != 1 || again[0].Outcome != finance.ReadjustWaiting {
		t.Errorf("re-run: %+v", again)
	}
	if n := f.text(t, `SELECT count(*)::text FROM contract_readjustments WHERE company_id = $1`); n != "7" {
		t.Errorf("%s readjustment records, want 7", n)
	}
}

// A negative accumulated index keeps the rent and moves the date on; a
// contract a period behind is taken through each period in one run.
func TestReadjustNegativeIndexAndCatchUp(t *testing.T) {
	t.Parallel()
	f := newReadjustFixture(t)
	igpm := f.contract(t, "IGP-M", "2024-01-10")
	lowest := f.contract(t, "lowest_index", "2024-01-10")
	got := f.run(t, "2024-06-30")
	if len(got) != 2 || got[0].Outcome != finance.ReadjustKept || got[1].Outcome != finance.ReadjustKept ||
		got[0].Variation.StringFixed(4) != "-3.1783" || got[1].Indicator != finance.IGPM {
		t.Fatalf("over 2023: %+v", got)
	}
	records := `SELECT string_agg(concat_ws(' ', readjust_at, outcome, index_used, old_amount, new_amount, variation, next_readjust_at), '; '
		ORDER BY readjust_at) FROM contract_readjustments WHERE company_id = $1 AND contract_id = $2`
	if s := f.text(t, records, igpm); s != "2024-01-10 kept IGP-M 2000.00 2000.00 -3.1783 2025-01-10" {
		t.Errorf("IGP-M records: %s", s)
	}
	// Run a year later, a contract still at its 2024 date: both periods.
	behind := f.contract(t, "IGP-M", "2024-01-10")
	got = f.run(t, "2025-01-15")
	if len(got) != 4 {
		t.Fatalf("a year later: %+v", got)
	}
	if s := f.text(t, records, behind); s != "2024-01-10 kept IGP-M 2000.00 2000.00 -3.1783 2025-01-10; "+
		"2025-01-10 readjusted IGP-M 2000.00 2130.72 6.5362 2026-01-10" {
		t.Errorf("the contract behind: %s", s)
	}
	if s := f.text(t, `SELECT current_amount || ' ' || readjust_at FROM contracts WHERE company_id = $1 AND id = $2`, lowest); s != "2095.36 2026-01-10" {
		t.Errorf("lowest_index a year later: %s", s)
	}
	if again := f.run(t, "2025-01-15"); len(again) != 0 {
		t.Errorf("re-run: %+v", again)
	}
}

func next(at string) string {
	return finance.MustDate(at).AddMonths(12).String()
}

func TestReadjustUpdatesUnpaidInvoices(t *testing.T) {
	t.Parallel()
	f := newReadjustFixture(t)
	c := f.contract(t, "IPCA", "2025-01-15")
	before := f.invoice(t, c, "2024-12-15", "2000.00", false)   // a period before the date
	due := f.invoice(t, c, "2025-01-15", "2000.00", false)      // the first readjusted period
	later := f.invoice(t, c, "2025-02-15", "2000.00", false)    // generated ahead
	paid := f.invoice(t, c, "2025-03-15", "2000.00", true)      // paid already
	prorated := f.invoice(t, c, "2025-04-15", "1000.00", false) // a line that is not the full rent
	registered := f.invoice(t, c, "2025-05-15", "2000.00", false)
	f.id(t, `UPDATE invoices SET ticket_registered = true WHERE company_id = $1 AND id = $2 RETURNING 0`, registered)

	got := f.run(t, "2025-01-20")
	if len(got) != 1 || len(got[0].InvoicesUpdated) != 2 || got[0].InvoicesUpdated[0] != due || got[0].InvoicesUpdated[1] != later {
		t.Fatalf("invoices updated: %+v, want %d and %d", got, due, later)
	}
	want := map[int64]string{before: "2350.00 2000.00", due: "2446.63 2096.63", later: "2446.63 2096.63",
		paid: "2350.00 2000.00", prorated: "1350.00 1000.00", registered: "2350.00 2000.00"}
	for inv, w := range want {
		got := f.text(t, `SELECT i.total || ' ' || ii.amount FROM invoices i JOIN invoice_items ii ON ii.company_id = i.company_id
			AND ii.invoice_id = i.id AND ii.item_id = $3 WHERE i.company_id = $1 AND i.id = $2`, inv, f.rent)
		if got != w {
			t.Errorf("invoice %d: total and rent %s, want %s", inv, got, w)
		}
	}
	hist := f.text(t, `SELECT actor || ' ' || actor_id || ' ' || origin || ' ' || changes::text FROM invoice_history
		WHERE company_id = $1 AND invoice_id = $2`, due)
	wantHist := `job 1 readjust [{"to": 2446.63, "from": 2350.00, "field": "total"}, {"to": 2096.63, "from": 2000.00, "field": "items[`
	if len(hist) < len(wantHist) || hist[:len(wantHist)] != wantHist {
		t.Errorf("history %s", hist)
	}
	if n := f.text(t, `SELECT invoices_updated::text FROM contract_readjustments WHERE company_id = $1 AND contract_id = $2`, c); n != "2" {
		t.Errorf("record says %s invoices updated", n)
	}
}

func TestReadjustMissingMonthWaitsThenCompletes(t *testing.T) {
	t.Parallel()
	f := newReadjustFixture(t)
	c := f.contract(t, "IPCA", "2026-02-01")
	got := f.run(t, "2026-02-03")
	if len(got) != 1 || got[0].Outcome != finance.ReadjustWaiting ||
		len(got[0].Missing) != 1 || got[0].Missing[0].Month != finance.NewMonth(2026, 1) {
		t.Fatalf("before 2026-01 is published: %+v", got)
	}
	status := `SELECT status || ' ' || coalesce(current_amount::text, '-') || ' ' || readjust_at FROM contracts WHERE company_id = $1 AND id = $2`
	if s := f.text(t, status, c); s != "readjust - 2026-02-01" {
		t.Errorf("waiting contract: %s", s)
	}
	if again := f.run(t, "2026-02-04"); len(again) != 1 || again[0].Outcome != finance.ReadjustWaiting {
		t.Errorf("the next night, still unpublished: %+v", again)
	}
	row, problems := storage.ParseIndexRow("IPCA", "2026-01", "0.50")
	if problems != nil {
		t.Fatal(problems)
	}
	if _, err := storage.UpsertIndices(context.Background(), f.pool, []storage.IndexRow{row}, storage.IndexImport, storage.Scope{}); err != nil {
		t.Fatal(err)
	}
	got = f.run(t, "2026-02-05")
	if len(got) != 1 || got[0].Outcome != finance.ReadjustApplied || got[0].ContractStatus != finance.StatusProgress {
		t.Fatalf("after the month came: %+v", got)
	}
	if s := f.text(t, status, c); s != "progress "+got[0].NewAmount.StringFixed(2)+" 2027-02-01" {
		t.Errorf("readjusted contract: %s", s)
	}
	// the factor covers 2025-02 … 2026-01, the imported month last
	if last := got[0].Months[len(got[0].Months)-1]; last != finance.NewMonth(2026, 1) {
		t.Errorf("last month %s", last)
	}
}

func TestReadjustPreviewIsTheRun(t *testing.T) {
	t.Parallel()
	f := newReadjustFixture(t)
	c := f.contract(t, "highest_index", "2025-01-15")
	f.invoice(t, c, "2025-01-15", "2000.00", false)
	sel := storage.ReadjustSelection{Date: finance.MustDate("2025-01-15"), ContractID: c}
	preview := f.readjust(t, sel, false)
	if s := f.text(t, `SELECT coalesce(current_amount::text, '-') FROM contracts WHERE company_id = $1 AND id = $2`, c); s != "-" {
		t.Fatalf("the preview stored %s", s)
	}
	run := f.readjust(t, sel, true)
	if len(preview) != 1 || len(run) != 1 || preview[0].NewAmount.String() != run[0].NewAmount.String() ||
		!preview[0].Factor.Equal(run[0].Factor) || preview[0].Indicator != run[0].Indicator ||
		len(preview[0].InvoicesUpdated) != 1 || preview[0].InvoicesUpdated[0] != run[0].InvoicesUpdated[0] {
		t.Errorf("preview %+v\nrun %+v", preview, run)
	}
	if !run[0].NewAmount.Equal(decimal.RequireFromString("2130.72")) {
		t.Errorf("new amount %s", run[0].NewAmount)
	}
}

func TestReadjustOneContractIsTheCompanys(t *testing.T) {
	t.Parallel()
	f := newReadjustFixture(t)
	c := f.contract(t, "IPCA", "2025-01-15")
	f.setUpCompany(t, "Outra Imobiliária")
	ctx := context.Background()
	idx, err := storage.LoadIndices(ctx, f.pool)
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		_, err := storage.ReadjustContracts(ctx, tx, idx, storage.ReadjustSelection{CompanyID: f.company,
			Date: finance.MustDate("2025-01-15"), ContractID: c, Actor: storage.Actor{Kind: storage.ActorUser, ID: 1}})
		return err
	})
	if finance.ErrorCode(err) != finance.NotFound {
		t.Errorf("another company's contract: %v", err)
	}
}

// TestReadjustFollowsCompanySettings: the contract operation and its
// preview readjust with the company's settings, each company its own: one
// applies reductions and compares five indices for lowest_index, the other
// keeps the defaults (reductions kept; IGP-M, IPCA and INPC).
func TestReadjustFollowsCompanySettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReadjustFixture(t)
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	type company struct {
		id, falling, lowest, highest int64
	}
	setUp := func(name string) company {
		c := company{id: f.setUpCompany(t, name)}
		c.falling = f.contract(t, "IGP-M", "2024-01-10")
		f.invoice(t, c.falling, "2024-01-10", "2000.00", false)
		c.lowest = f.contract(t, "lowest_index", "2025-01-15")
		c.highest = f.contract(t, "highest_index", "2025-01-15")
		return c
	}
	keeper, reducer := setUp("Imobiliária Mantém"), setUp("Imobiliária Reduz")
	allow := true
	settings, err := store.UpdateReadjustSettings(ctx, storage.Company(reducer.id), storage.ReadjustSettingsChange{
		AllowReduction: &allow, Candidates: []string{"IPCA", "INPC", "IPC-BR", "IPC-FIPE"}})
	if err != nil || !settings.AllowReduction || len(settings.Candidates) != 4 {
		t.Fatalf("update: %+v %v", settings, err)
	}
	type answer struct {
		outcome finance.ReadjustOutcome
		used    finance.Indicator
		amount  string
		updated int
	}
	for _, c := range []struct {
		name     string
		company  company
		contract func(company) int64
		date     string
		want     answer
	}{
		// IGP-M accumulated −3.1783% in 2023
		{"keeper, falling index", keeper, func(c company) int64 { return c.falling }, "2024-01-10", answer{finance.ReadjustKept, "IGP-M", "2000.00", 0}},
		{"reducer, falling index", reducer, func(c company) int64 { return c.falling }, "2024-01-10", answer{finance.ReadjustApplied, "IGP-M", "1936.43", 1}},
		// 2024: IGP-M +6.5362%, IPCA +4.8313%, INPC +4.7679%, IPC-BR +3.9869%
		{"keeper, lowest of three", keeper, func(c company) int64 { return c.lowest }, "2025-01-15", answer{finance.ReadjustApplied, "INPC", "2095.36", 0}},
		{"reducer, lowest of four", reducer, func(c company) int64 { return c.lowest }, "2025-01-15", answer{finance.ReadjustApplied, "IPC-BR", "2079.74", 0}},
		{"keeper, highest of three", keeper, func(c company) int64 { return c.highest }, "2025-01-15", answer{finance.ReadjustApplied, "IGP-M", "2130.72", 0}},
		{"reducer, highest without IGP-M", reducer, func(c company) int64 { return c.highest }, "2025-01-15", answer{finance.ReadjustApplied, "IPCA", "2096.63", 0}},
	} {
		id, sc := c.contract(c.company), storage.Company(c.company.id)
		preview, _, err := store.ReadjustContract(ctx, sc, id, finance.MustDate(c.date), true)
		if err != nil {
			t.Fatalf("%s: preview: %v", c.name, err)
		}
		run, _, err := store.ReadjustContract(ctx, sc, id, finance.MustDate(c.date), false)
		if err != nil {
			t.Fatalf("%s: run: %v", c.name, err)
		}
		for what, rs := range map[string][]storage.ContractReadjustment{"preview": preview, "run": run} {
			if len(rs) != 1 {
				t.Fatalf("%s: %s: %d answers", c.name, what, len(rs))
			}
			got := answer{rs[0].Outcome, rs[0].Indicator, rs[0].NewAmount.StringFixed(2), len(rs[0].InvoicesUpdated)}
			if got != c.want {
				t.Errorf("%s: %s %+v, want %+v", c.name, what, got, c.want)
			}
		}
		f.company = c.company.id
		stored := f.text(t, `SELECT current_amount::text || ' ' || r.outcome || ' ' || r.index_used FROM contracts c
			JOIN contract_readjustments r ON r.company_id = c.company_id AND r.contract_id = c.id
			WHERE c.company_id = $1 AND c.id = $2`, id)
		if want := c.want.amount + " " + string(c.want.outcome) + " " + string(c.want.used); stored != want {
			t.Errorf("%s: stored %s, want %s", c.name, stored, want)
		}
	}
	f.company = reducer.id
	if total := f.text(t, `SELECT total::text FROM invoices WHERE company_id = $1 AND contract_id = $2`, reducer.falling); total != "2286.43" {
		t.Errorf("the reducer's invoice total %s, want 2286.43", total)
	}
}

func TestUpdateReadjustSettingsRefusesBadCandidates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReadjustFixture(t)
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	allow := true
	for _, bad := range [][]string{{}, {"IPCA", "IGPX"}, {"IPCA", "IPCA"}, {"lowest_index"}, {""}} {
		_, err := store.UpdateReadjustSettings(ctx, storage.Company(f.company), storage.ReadjustSettingsChange{AllowReduction: &allow, Candidates: bad})
		var coded *finance.Error
		if !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) != 1 || coded.Problems[0].Field != "readjust_candidates" {
			t.Errorf("%q: %v, want a 422 naming readjust_candidates", bad, err)
		}
	}
	got, err := storage.ReadjustSettingsOf(ctx, f.pool, f.company)
	if err != nil || got.AllowReduction || strings.Join(got.Candidates, ",") != "IGP-M,IPCA,INPC" {
		t.Errorf("after refused changes: %+v %v, want the defaults", got, err)
	}
	// every index the table holds may be compared, and only those: the
	// schema's check and CheckReadjustCandidates agree
	if _, err := store.UpdateReadjustSettings(ctx, storage.Company(f.company), storage.ReadjustSettingsChange{Candidates: storage.IndexIndicators}); err != nil {
		t.Errorf("all indices: %v", err)
	}
	if _, err := f.pool.Exec(ctx, `UPDATE companies SET readjust_candidates = '{IPCA,IGPX}' WHERE id = $1`, f.company); err == nil {
		t.Error("the schema stored an unknown index")
	}
}

// TestPlanReadjustChunks: the due contracts cut into chunks by their last
// ids, and a chunk reads exactly its range.
func TestPlanReadjustChunks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReadjustFixture(t)
	var due []int64
	for i := range 5 {
		due = append(due, f.contract(t, "IPCA", "2025-01-15"))
		if i == 2 {
			f.contract(t, "IPCA", "2025-02-01") // not due yet
		}
	}
	company := f.company
	f.setUpCompany(t, "Outra Imobiliária")
	f.contract(t, "IPCA", "2025-01-15")
	lasts, n, err := storage.PlanReadjustChunks(ctx, f.pool, company, finance.MustDate("2025-01-15"), 2)
	if err != nil || n != 5 || !slices.Equal(lasts, []int64{due[1], due[3], due[4]}) {
		t.Fatalf("plan %v of %d (%v), want %v of 5", lasts, n, err, []int64{due[1], due[3], due[4]})
	}
	f.company = company
	got := f.readjust(t, storage.ReadjustSelection{Date: finance.MustDate("2025-01-15"), After: lasts[0], Through: lasts[1]}, false)
	var ids []int64
	for _, r := range got {
		ids = append(ids, r.ContractID)
	}
	if !slices.Equal(ids, due[2:4]) {
		t.Errorf("chunk (%d, %d] read %v, want %v", lasts[0], lasts[1], ids, due[2:4])
	}
	if lasts, n, err := storage.PlanReadjustChunks(ctx, f.pool, company, finance.MustDate("2025-01-14"), 2); err != nil || n != 0 || lasts != nil {
		t.Errorf("nothing due: %v of %d (%v)", lasts, n, err)
	}
	// the plan of a run reads the company's settings with it, contracts
	// due or not
	if _, err := f.pool.Exec(ctx, `UPDATE companies SET readjust_allow_reduction = true, readjust_candidates = '{IPCA,IGP-M}'
		WHERE id = $1`, company); err != nil {
		t.Fatal(err)
	}
	want, err := storage.ReadjustSettingsOf(ctx, f.pool, company)
	if err != nil || !want.AllowReduction {
		t.Fatalf("settings %+v (%v)", want, err)
	}
	for _, date := range []string{"2025-01-15", "2025-01-14"} {
		lasts, n, settings, err := storage.PlanReadjustRun(ctx, f.pool, company, finance.MustDate(date), 2)
		wantLasts, wantN, _ := storage.PlanReadjustChunks(ctx, f.pool, company, finance.MustDate(date), 2)
		if err != nil || n != wantN || !slices.Equal(lasts, wantLasts) || !reflect.DeepEqual(settings, want) {
			t.Errorf("run on %s: %v of %d, %+v (%v); want %v of %d, %+v", date, lasts, n, settings, err, wantLasts, wantN, want)
		}
	}
	if _, _, _, err := storage.PlanReadjustRun(ctx, f.pool, company+1000, finance.MustDate("2025-01-15"), 2); err == nil {
		t.Error("the plan of a company that does not exist: no error")
	}
}
