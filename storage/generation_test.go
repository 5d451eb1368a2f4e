package storage_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// genFixture is a company ready to bill, with rent items for every
// contract purpose.
type genFixture struct {
	pool    *pgxpool.Pool
	b       storagetest.Billing
	company int64
}

func newGenFixture(t *testing.T) *genFixture {
	t.Helper()
	ctx := context.Background()
	f := &genFixture{pool: storagetest.NewDB(t)}
	var err error
	if f.company, _, err = storage.EnsureCompany(ctx, f.pool, "Imobiliária Geradora"); err != nil {
		t.Fatal(err)
	}
	f.b = storagetest.NewBilling(t, f.pool, f.company)
	f.exec(t, `INSERT INTO transaction_items (company_id, description, debit, credit, type, purpose) VALUES
		($1, 'Parcela', 'customer', 'owner', 'rent', 'sale'), ($1, 'Assinatura', 'customer', 'business', 'rent', 'subscription')`)
	return f
}

func (f *genFixture) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := f.pool.Exec(context.Background(), sql, append([]any{f.company}, args...)...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// contract inserts a contract of f's parties with the columns given
// (column = value, SQL) and returns its id.
func (f *genFixture) contract(t *testing.T, set string) int64 {
	t.Helper()
	var id int64
	err := f.pool.QueryRow(context.Background(), `INSERT INTO contracts (company_id, type, building_id, tenant_id, billing_id,
			business_id, account_id, billing_method, start_at, recurrency, modality, amount, due_date)
		VALUES ($1, 'rent', $2, $3, $4, $5, $6, 'ticket', '2026-01-01', 'monthly', 'monthly', 1500.00, '2026-01-10')
		RETURNING id`, f.company, f.b.Building, f.b.Tenant, f.b.Billing, f.b.Business, f.b.Account).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	if set != "" {
		f.exec(t, `UPDATE contracts SET `+set+` WHERE company_id = $1 AND id = $2`, id)
	}
	return id
}

// randomContract inserts a contract with random billing settings and up
// to three items.
func (f *genFixture) randomContract(t *testing.T, rng *rand.Rand) int64 {
	t.Helper()
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	start := time.Date(2025, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, time.UTC)
	due := start.AddDate(0, 0, rng.IntN(40))
	typ := pick("'rent'", "'rent'", "'season'", "'subscription'", "'sale'")
	recurrency := pick("'monthly'", "'monthly'", "'monthly'", "'daily'")
	amount := fmt.Sprintf("%d.%02d", 500+rng.IntN(5000), rng.IntN(100))
	set := []string{
		"type = " + typ, "recurrency = " + recurrency, "active = " + pick("'active'", "'active'", "'active'", "'active'", "'canceled'"),
		// modality is never null: its default, start, is stored (migration 0028)
		"modality = " + pick("'start'", "'due_date'", "'monthly'", "'start'"),
		"billing_timing = " + pick("'pre'", "'post'", "NULL"),
		"proportional = " + pick("true", "false"), "unify_first_invoice = " + pick("true", "false"),
		"start_at = '" + start.Format(time.DateOnly) + "'", "due_date = '" + due.Format(time.DateOnly) + "'",
		"amount = " + amount,
		"current_amount = " + pick("NULL", "NULL", amount+" * 1.05"),
		"due_day = " + pick("NULL", "NULL", fmt.Sprint(1+rng.IntN(31))),
		"ticket_late_fee = " + pick("true", "false"), "ticket_late_fee_percentage = " + pick("NULL", "2"),
		"ticket_late_fee_interest = " + pick("NULL", "1"),
		"ticket_discount = " + pick("true", "false"), "ticket_discount_mode = " + pick("NULL", "'fixed'", "'percentage'"),
		"ticket_discount_fixed = " + pick("NULL", "50"), "ticket_discount_percentage = " + pick("NULL", "5"),
		"ticket_discount_days = " + pick("NULL", "5"), "ticket_discount_action = " + pick("NULL", "'owner'", "'business'"),
		"billing_id = " + pick("NULL", fmt.Sprint(f.b.Billing)),
		"building_id = " + pick("NULL", fmt.Sprint(f.b.Building)),
	}
	switch {
	case typ == "'sale'":
		set = append(set, fmt.Sprintf("recurrency_amount = %d, signal_amount = %s * 0.1", 2+rng.IntN(24), amount))
	case rng.IntN(3) == 0:
		set = append(set, fmt.Sprintf("recurrency_amount = %d", 1+rng.IntN(24)))
	}
	if rng.IntN(3) == 0 && recurrency == "'monthly'" {
		set = append(set, "end_at = '"+start.AddDate(0, 3+rng.IntN(12), rng.IntN(20)).Format(time.DateOnly)+"'")
	}
	id := f.contract(t, strings.Join(set, ", "))
	for range rng.IntN(4) {
		f.exec(t, `INSERT INTO contract_items (company_id, contract_id, mode, item_id, description, calculate_mode,
				amount, percentage, percentage_mode, start_at, end_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, id,
			pick("item", "item", "service", "commission"), f.b.CondoItem, pick("Condomínio", "IPTU", ""),
			pick("fixed", "percentage"), fmt.Sprintf("%d.%02d", rng.IntN(600), rng.IntN(100)),
			fmt.Sprintf("%d.%d", rng.IntN(20), rng.IntN(10)), []any{"rental_value", "rental_value", "recurring_commission"}[rng.IntN(3)],
			[]any{nil, start.AddDate(0, rng.IntN(6), 0)}[rng.IntN(2)], []any{nil, start.AddDate(0, 6+rng.IntN(6), 0)}[rng.IntN(2)])
	}
	return id
}

// describeInvoice writes every field of a generated invoice, its lines
// included, amounts to the cent and a setting left unset as null: two
// invoices are the same when their descriptions are.
func describeInvoice(g storage.GeneratedInvoice) string {
	inv := g.Invoice
	orNull := func(unset bool, v string) string {
		if unset {
			return "null"
		}
		return v
	}
	u := g.Unset
	var b strings.Builder
	fmt.Fprintf(&b, "type=%s contract=%d payer=%d building=%d business=%d account=%d billing=%d method=%s desc=%q total=%s "+
		"date=%s due=%s period=%s..%s late_fee=%t/%d/%s/%s discount=%t/%s/%s/%s/%s action=%s items:",
		inv.Type, inv.ContractID, inv.PayerID, g.BuildingID, inv.BusinessID, inv.AccountID, inv.BillingID, inv.BillingMethod,
		inv.Description, inv.Total.StringFixed(2), inv.Date, inv.DueDate, inv.PeriodInitial, inv.PeriodFinal,
		inv.TicketLateFee, inv.TicketLateFeeItemID, orNull(u.LateFeePercentage, inv.TicketLateFeePercentage.StringFixed(2)),
		orNull(u.LateFeeInterest, inv.TicketLateFeeInterest.StringFixed(2)), inv.TicketDiscount, inv.TicketDiscountMode,
		orNull(u.DiscountFixed, inv.TicketDiscountFixed.StringFixed(2)), orNull(u.DiscountPercentage, inv.TicketDiscountPercentage.StringFixed(2)),
		orNull(u.DiscountDays, fmt.Sprint(inv.TicketDiscountDays)), inv.TicketDiscountAction)
	for _, l := range inv.Items {
		fmt.Fprintf(&b, " [%d %s %q]", l.ItemID, l.Amount.StringFixed(2), l.Description)
	}
	return b.String()
}

// storedInvoices reads the company's contract invoices back, in the
// order generation lists them (contract, due date), as described.
func storedInvoices(t *testing.T, pool *pgxpool.Pool, company int64, ids []int64) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT i.type, i.contract_id, i.payer_id, coalesce(i.building_id, 0),
			i.business_id, i.account_id, coalesce(i.billing_id, 0), i.billing_method, i.description, i.total::text,
			i.date::text, i.due_date::text, i.period_initial::text, i.period_final::text,
			i.ticket_late_fee, coalesce(i.ticket_late_fee_item_id, 0), coalesce(i.ticket_late_fee_percentage::text, 'null'),
			coalesce(i.ticket_late_fee_interest::text, 'null'), i.ticket_discount, coalesce(i.ticket_discount_mode, ''),
			coalesce(i.ticket_discount_fixed::text, 'null'), coalesce(i.ticket_discount_percentage::text, 'null'),
			coalesce(i.ticket_discount_days::text, 'null'), coalesce(i.ticket_discount_action, ''),
			(SELECT string_agg(format(' [%s %s %s]', l.item_id, l.amount, to_json(coalesce(l.description, ''))), '' ORDER BY l.id)
			 FROM invoice_items l WHERE l.company_id = i.company_id AND l.invoice_id = i.id)
		FROM invoices i WHERE i.company_id = $1 AND i.id = any($2) ORDER BY i.contract_id, i.due_date, i.id`, company, ids)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var (
			typ, method, desc, total, date, due, pi, pf, lfPct, lfInt, mode, fixed, pct, days, action string
			items                                                                                     *string
			contract, payer, building, business, account, billing, lfItem                             int64
			lateFee, discount                                                                         bool
		)
		if err := rows.Scan(&typ, &contract, &payer, &building, &business, &account, &billing, &method, &desc, &total,
			&date, &due, &pi, &pf, &lateFee, &lfItem, &lfPct, &lfInt, &discount, &mode, &fixed, &pct, &days, &action, &items); err != nil {
			t.Fatal(err)
		}
		s := fmt.Sprintf("type=%s contract=%d payer=%d building=%d business=%d account=%d billing=%d method=%s desc=%q total=%s "+
			"date=%s due=%s period=%s..%s late_fee=%t/%d/%s/%s discount=%t/%s/%s/%s/%s action=%s items:",
			typ, contract, payer, building, business, account, billing, method, desc, total, date, due, pi, pf,
			lateFee, lfItem, lfPct, lfInt, discount, mode, fixed, pct, days, action)
		if items != nil {
			s += *items
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func generate(t *testing.T, pool *pgxpool.Pool, company int64, ids []int64, until string, preview bool) storage.Generation {
	t.Helper()
	var gen storage.Generation
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		var err error
		gen, err = storage.GenerateInvoices(context.Background(), tx, company, ids, finance.MustDate(until),
			storage.GenerateOptions{Preview: preview, Actor: storage.Actor{Kind: storage.ActorJob, ID: 7}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return gen
}

// TestPreviewIsWhatTheRunInserts generates the invoices of random
// contracts, some billed up to an earlier date first: the preview lists,
// field by field and line by line, what the run then inserts; a second
// run inserts nothing.
func TestPreviewIsWhatTheRunInserts(t *testing.T) {
	t.Parallel()
	f := newGenFixture(t)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 42))
	t.Logf("seed %d", seed)
	ids := make([]int64, 120)
	for i := range ids {
		ids[i] = f.randomContract(t, rng)
	}
	generate(t, f.pool, f.company, ids[:40], "2025-09-30", false) // earlier invoices: slots taken
	until := "2026-" + fmt.Sprintf("%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28))
	preview := generate(t, f.pool, f.company, ids, until, true)
	run := generate(t, f.pool, f.company, ids, until, false)
	if len(preview.Invoices) == 0 {
		t.Fatal("the random contracts scheduled no invoice; the test checks nothing")
	}
	want := make([]string, len(preview.Invoices))
	for i, inv := range preview.Invoices {
		want[i] = describeInvoice(inv)
	}
	got := storedInvoices(t, f.pool, f.company, run.Created)
	if len(run.Created) != len(preview.Invoices) || !slices.Equal(got, want) {
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) || got[i] != want[i] {
				t.Errorf("invoice %d:\n got %s\nwant %s", i, at(got, i), at(want, i))
				break
			}
		}
		t.Fatalf("the run inserted %d invoices, the preview showed %d", len(run.Created), len(preview.Invoices))
	}
	if again := generate(t, f.pool, f.company, ids, until, false); len(again.Created) != 0 {
		t.Errorf("a second run inserted %d invoices", len(again.Created))
	}
	var history int
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM invoice_history
		WHERE company_id = $1 AND invoice_id = any($2) AND origin = 'create' AND actor = 'job' AND actor_id = 7`,
		f.company, run.Created).Scan(&history); err != nil || history != len(run.Created) {
		t.Errorf("%d history rows for %d invoices (%v)", history, len(run.Created), err)
	}
	t.Logf("%d contracts: %d invoices, %d skipped, %d refused", len(ids), len(run.Created), len(run.Skipped), len(run.Refused))
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// TestContractsThatCannotBeBilled: each contract that cannot be billed is
// named with why, and nothing is written for it.
func TestContractsThatCannotBeBilled(t *testing.T) {
	t.Parallel()
	f := newGenFixture(t)
	other, _, err := storage.EnsureCompany(context.Background(), f.pool, "Outra")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, set, field, message string
		setup                     func(t *testing.T, id int64)
	}{
		{name: "canceled", set: "active = 'canceled'", field: "contract", message: "canceled"},
		{name: "finished", set: "status = 'terminated'", field: "contract", message: "finished"},
		{name: "suspended", set: "status = 'suspended'", field: "contract", message: "suspended"},
		{name: "not active", set: "active = 'reserved'", field: "contract", message: "not active"},
		{name: "no due date", set: "due_date = NULL", field: "due_date", message: "required"},
		{name: "no recurrency", set: "recurrency = NULL", field: "recurrency", message: "daily or monthly"},
		{name: "no business", set: "business_id = NULL", field: "business_id", message: "required to bill"},
		{name: "no amount", set: "amount = NULL", field: "amount", message: "required to bill"},
		// the fixture's billing profile names no billing_method
		{name: "no billing method", set: "billing_method = NULL", field: "billing_id", message: "a billing profile with a billing_method"},
		{name: "no billing profile nor method", set: "billing_method = NULL, billing_id = NULL", field: "billing_id",
			message: "the contract has no billing_method to fall back on"},
		{name: "no rent item", set: "type = 'subscription'", field: "rent_item", message: "no active transaction item of type rent",
			setup: func(t *testing.T, _ int64) {
				f.exec(t, `UPDATE transaction_items SET active = false WHERE company_id = $1 AND purpose = 'subscription'`)
			}},
		{name: "item without a credit party", field: "items[0].item_id", message: "needs both a debit and a credit party",
			setup: func(t *testing.T, id int64) {
				f.exec(t, `WITH ti AS (INSERT INTO transaction_items (company_id, description, debit) VALUES ($1, 'Meio', 'customer') RETURNING id)
					INSERT INTO contract_items (company_id, contract_id, item_id, amount) SELECT $1, $2, id, 10 FROM ti`, id)
			}},
		{name: "item that charges no one", field: "items[0].item_id", message: "debits business and credits owner: a line of the contract's invoices must charge the payer",
			setup: func(t *testing.T, id int64) {
				f.exec(t, `WITH ti AS (INSERT INTO transaction_items (company_id, description, debit, credit)
						VALUES ($1, 'Reembolso', 'business', 'owner') RETURNING id)
					INSERT INTO contract_items (company_id, contract_id, item_id, amount) SELECT $1, $2, id, 10 FROM ti`, id)
			}},
		// the rent item credits the owner: its lines, which name no owner,
		// are the building's owners' to share
		{name: "no building to share the rent", set: "building_id = NULL", field: "building_id",
			message: "the contract has no building whose owners would share them: set its building_id"},
		{name: "a building without owners", field: "building_id", message: "has no owners to share them: add the building's owners",
			setup: func(t *testing.T, id int64) {
				f.exec(t, `WITH b AS (INSERT INTO buildings (company_id, title) VALUES ($1, 'Sem donos') RETURNING id)
					UPDATE contracts SET building_id = (SELECT id FROM b) WHERE company_id = $1 AND id = $2`, id)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := f.contract(t, tc.set)
			if tc.setup != nil {
				tc.setup(t, id)
			}
			for _, preview := range []bool{true, false} {
				gen := generate(t, f.pool, f.company, []int64{id}, "2026-06-30", preview)
				err := gen.ContractError(id)
				var coded *finance.Error
				if !asCoded(err, &coded) || coded.Code != finance.Invalid {
					t.Fatalf("preview %t: error %v, want Invalid", preview, err)
				}
				if !hasProblem(coded.Problems, tc.field, tc.message) {
					t.Errorf("preview %t: problems %+v, want %s: …%s…", preview, coded.Problems, tc.field, tc.message)
				}
				if len(gen.Created) != 0 || len(gen.Invoices) != 0 {
					t.Errorf("preview %t: %d invoices scheduled, %d created", preview, len(gen.Invoices), len(gen.Created))
				}
			}
		})
	}
	t.Run("a contract item's problem names the item", func(t *testing.T) {
		id := f.contract(t, "")
		f.exec(t, `WITH ti AS (INSERT INTO transaction_items (company_id, description, debit, credit)
				VALUES ($1, 'Condomínio', 'customer', 'owner') RETURNING id)
			INSERT INTO contract_items (company_id, contract_id, item_id, amount, description) SELECT $1, $2, id, 350, 'Condomínio' FROM ti`, id)
		var second int64
		if err := f.pool.QueryRow(context.Background(), `WITH ti AS (INSERT INTO transaction_items (company_id, description, debit, credit)
				VALUES ($1, 'Reembolso', 'business', 'owner') RETURNING id)
			INSERT INTO contract_items (company_id, contract_id, item_id, amount, description) SELECT $1, $2, id, 10, 'Reembolso' FROM ti
			RETURNING id`, f.company, id).Scan(&second); err != nil {
			t.Fatal(err)
		}
		gen := generate(t, f.pool, f.company, []int64{id}, "2026-06-30", true)
		err := gen.ContractError(id)
		var coded *finance.Error
		if !asCoded(err, &coded) {
			t.Fatalf("error %v, want Invalid", err)
		}
		want := fmt.Sprintf("contract item %d (Reembolso): transaction item", second)
		if !hasProblem(coded.Problems, "items[1].item_id", want) || !strings.HasPrefix(coded.Problems[0].Message, want) {
			t.Errorf("problems %+v, want items[1].item_id starting %q", coded.Problems, want)
		}
		if msg := fmt.Sprintf("Contract %d cannot be billed", id); !strings.Contains(coded.Message, msg) {
			t.Errorf("message %q, want it to name the contract (%q)", coded.Message, msg)
		}
	})
	t.Run("another company's contract", func(t *testing.T) {
		id := f.contract(t, "")
		gen := generate(t, f.pool, other, []int64{id}, "2026-06-30", false)
		if code := finance.ErrorCode(gen.ContractError(id)); code != finance.NotFound {
			t.Errorf("code %s, want not_found", code)
		}
	})
	t.Run("a billable contract", func(t *testing.T) {
		id := f.contract(t, "billing_timing = 'pre'")
		gen := generate(t, f.pool, f.company, []int64{id}, "2026-03-31", false)
		if err := gen.ContractError(id); err != nil || len(gen.Created) != 3 {
			t.Errorf("error %v, %d invoices created, want 3 (January to March)", err, len(gen.Created))
		}
	})
}

// TestGeneratedInvoicesBillByTheProfile: a contract's invoices are billed
// by its billing profile's billing_method (how the tenant pays), in the
// preview and in the run alike, whatever the contract's own billing_method
// (how its owners are paid) says; the contract's is used only when the
// profile names none, or the contract has no profile.
func TestGeneratedInvoicesBillByTheProfile(t *testing.T) {
	t.Parallel()
	f := newGenFixture(t)
	var byTicket int64
	if err := f.pool.QueryRow(context.Background(), `INSERT INTO billings (company_id, name, billing_method)
		VALUES ($1, 'Boleto', 'ticket') RETURNING id`, f.company).Scan(&byTicket); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, set, want string
	}{
		{"the profile's method", fmt.Sprintf("billing_method = 'ted', billing_id = %d", byTicket), "ticket"},
		{"a profile without a method", "billing_method = 'pix'", "pix"},
		{"no profile", "billing_method = 'deposit', billing_id = NULL", "deposit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := f.contract(t, tc.set)
			for _, preview := range []bool{true, false} {
				gen := generate(t, f.pool, f.company, []int64{id}, "2026-03-31", preview)
				if err := gen.ContractError(id); err != nil || len(gen.Invoices) != 2 {
					t.Fatalf("preview %t: %v, %d invoices", preview, err, len(gen.Invoices))
				}
				for _, inv := range gen.Invoices {
					if inv.Invoice.BillingMethod != tc.want {
						t.Errorf("preview %t: an invoice billed by %q, want %q", preview, inv.Invoice.BillingMethod, tc.want)
					}
				}
			}
			var methods, own string
			if err := f.pool.QueryRow(context.Background(), `SELECT string_agg(billing_method, ' ' ORDER BY id),
				(SELECT billing_method FROM contracts WHERE company_id = $1 AND id = $2)
				FROM invoices WHERE company_id = $1 AND contract_id = $2`, f.company, id).Scan(&methods, &own); err != nil {
				t.Fatal(err)
			}
			if methods != tc.want+" "+tc.want {
				t.Errorf("stored invoices billed by %q, want %s twice", methods, tc.want)
			}
			if !strings.Contains(tc.set, "'"+own+"'") {
				t.Errorf("the contract's billing_method became %q", own)
			}
		})
	}
}

func asCoded(err error, target **finance.Error) bool {
	e, ok := err.(*finance.Error)
	*target = e
	return ok
}

func hasProblem(ps []finance.Problem, field, message string) bool {
	for _, p := range ps {
		if p.Field == field && strings.Contains(p.Message, message) {
			return true
		}
	}
	return false
}

// TestRefreshInvoiceStats: on a table the planner believes empty, the
// refresh analyzes it inside the transaction, counting the rows that
// transaction inserted; on a table it already knows large it does nothing.
func TestRefreshInvoiceStats(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	estimate := func() float64 {
		var n float64
		if err := pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'invoices'::regclass`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := estimate(); n > 0 {
		t.Fatalf("a new database's invoices estimate %v rows", n)
	}
	company, _, err := storage.EnsureCompany(ctx, pool, "Estatísticas")
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			WITH p AS (INSERT INTO persons (company_id, name) VALUES ($1, 'P') RETURNING id),
			     b AS (INSERT INTO businesses (company_id, name) VALUES ($1, 'B') RETURNING id),
			     a AS (INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM b RETURNING id, business_id)
			INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, description, total, date, due_date)
			SELECT $1, 'single', p.id, a.business_id, a.id, 'pix', 'x', 1, current_date, current_date
			FROM p, a, generate_series(1, 2000)`, company); err != nil {
			return err
		}
		return storage.RefreshInvoiceStats(ctx, tx, 2000)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := estimate(); n < 1000 {
		t.Errorf("after the refresh invoices estimate %v rows, want the 2,000 inserted", n)
	}
	// a small company's run: its few invoices leave the statistics alone;
	// a run inserting half the table again refreshes them
	for _, c := range []struct {
		inserted int
		want     float64
	}{{3, 2000}, {1500, 3500}} {
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method,
					description, total, date, due_date)
				SELECT company_id, type, payer_id, business_id, account_id, billing_method, description, total, date, due_date
				FROM invoices WHERE company_id = $1 LIMIT $2`, company, c.inserted); err != nil {
				return err
			}
			if err := storage.RefreshInvoiceStats(ctx, tx, c.inserted); err != nil {
				return err
			}
			var n float64
			if err := tx.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'invoices'::regclass`).Scan(&n); err != nil {
				return err
			}
			if n != c.want {
				t.Errorf("%d invoices inserted: the estimate is %v rows, want %v", c.inserted, n, c.want)
			}
			return pgx.ErrTxClosed // rolled back: each case starts from 2,000
		})
		if err != nil && err != pgx.ErrTxClosed {
			t.Fatal(err)
		}
	}
}
