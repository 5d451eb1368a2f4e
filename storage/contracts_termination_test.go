package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// termFixture is a company ready to bill with the worked contract of
// docs/finance.md, "Termination": a 30-month lease of 2,000.00 from
// 2024-01-01 to 2026-06-30 billed in arrears (calendar months, due on the
// 5th) with a condominium of 350.00, a fine of 3 rents and a deposit of
// 2,000.00; its fine and deposit items set in the company's settings.
type termFixture struct {
	*genFixture
	store               *storage.Store
	sc                  storage.Scope
	lease               int64
	fineItem, deposItem int64
}

func newTermFixture(t *testing.T) *termFixture {
	t.Helper()
	f := &termFixture{genFixture: newGenFixture(t)}
	f.store = storage.NewStore(f.pool, storage.DefaultRegistry())
	f.sc = storage.Scope{CompanyID: f.company}
	f.fineItem = f.id(t, `INSERT INTO transaction_items (company_id, description, debit, credit) VALUES ($1, 'Multa rescisória', 'customer', 'owner') RETURNING id`)
	f.deposItem = f.id(t, `INSERT INTO transaction_items (company_id, description, debit, credit) VALUES ($1, 'Caução', 'customer', 'owner') RETURNING id`)
	f.exec(t, `UPDATE companies SET termination_fee_item_id = $2, termination_deposit_item_id = $3 WHERE id = $1`, f.fineItem, f.deposItem)
	f.lease = f.leaseContract(t)
	return f
}

func (f *termFixture) id(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var id int64
	if err := f.pool.QueryRow(context.Background(), sql, append([]any{f.company}, args...)...).Scan(&id); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return id
}

// leaseContract inserts the worked contract, with its condominium.
func (f *termFixture) leaseContract(t *testing.T) int64 {
	t.Helper()
	id := f.contract(t, `start_at = '2024-01-01', end_at = '2026-06-30', amount = 2000.00, due_date = '2024-02-05',
		due_day = 5, billing_timing = 'post', termination_fee_months = 3, signal_amount = 2000.00, reference = 'L-30'`)
	f.exec(t, `INSERT INTO contract_items (company_id, contract_id, mode, item_id, description, calculate_mode, amount)
		VALUES ($1, $2, 'item', $3, 'Condomínio', 'fixed', 350.00)`, id, f.b.CondoItem)
	return id
}

// generate bills the contract's invoices due up to until.
func (f *termFixture) generate(t *testing.T, id int64, until string) storage.Generation {
	t.Helper()
	gen, err := storage.GenerateInvoices(context.Background(), f.pool, f.company, []int64{id}, finance.MustDate(until),
		storage.GenerateOptions{Actor: storage.Actor{Kind: storage.ActorSystem}})
	if err != nil {
		t.Fatal(err)
	}
	return gen
}

// snapshot is every row a termination could write, as text.
func (f *termFixture) snapshot(t *testing.T) string {
	t.Helper()
	var s string
	err := f.pool.QueryRow(context.Background(), `SELECT concat_ws(' | ',
		(SELECT json_agg(c ORDER BY c.id)::text FROM contracts c WHERE c.company_id = $1),
		(SELECT json_agg(i ORDER BY i.id)::text FROM invoices i WHERE i.company_id = $1),
		(SELECT json_agg(l ORDER BY l.id)::text FROM invoice_items l WHERE l.company_id = $1),
		(SELECT json_agg(h ORDER BY h.id)::text FROM invoice_history h WHERE h.company_id = $1),
		(SELECT count(*)::text FROM transactions WHERE company_id = $1))`, f.company).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTerminationBillsByTheProfile: the final invoice is billed to the
// tenant as the generated ones are, by the contract's billing profile's
// billing_method, not by the contract's own (how its owners are paid).
func TestTerminationBillsByTheProfile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newTermFixture(t)
	profile := f.id(t, `INSERT INTO billings (company_id, name, billing_method) VALUES ($1, 'Boleto', 'ticket') RETURNING id`)
	f.exec(t, `UPDATE contracts SET billing_method = 'ted', billing_id = $3 WHERE company_id = $1 AND id = $2`, f.lease, profile)
	f.generate(t, f.lease, "2025-02-10")
	run, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, storage.TerminationRequest{
		At: finance.MustDate("2025-01-15"), Requester: finance.RequesterTenant})
	if err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := f.pool.QueryRow(ctx, `SELECT billing_method FROM invoices WHERE company_id = $1 AND id = $2`,
		f.company, run.FinalID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if run.Final.BillingMethod != "ticket" || stored != "ticket" {
		t.Errorf("the final invoice is billed by %q (stored %q), want ticket", run.Final.BillingMethod, stored)
	}
}

// TestTerminationFinalInvoiceTicketSettings: the final invoice keeps its
// contract's late-fee settings as the generated invoices do, null where
// the contract has none (not 0), and grants no punctuality discount, even
// when the contract has one: ticket_discount false, its mode, amounts,
// days and who bears it null. The preview says what the run stores.
func TestTerminationFinalInvoiceTicketSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name, set, want string
	}{
		{"a contract of no late fee nor discount", "",
			"late_fee=false/0/null/null discount=false//null/null/null action="},
		{"a contract with both", `ticket_late_fee = true, ticket_late_fee_percentage = 2, ticket_late_fee_interest = 1,
			ticket_discount = true, ticket_discount_mode = 'percentage', ticket_discount_percentage = 5, ticket_discount_fixed = 50,
			ticket_discount_days = 5, ticket_discount_action = 'owner'`,
			"late_fee=true/0/2.00/1.00 discount=false//null/null/null action="},
		{"a contract with a late fee and no interest", "ticket_late_fee = true, ticket_late_fee_percentage = 10",
			"late_fee=true/0/10.00/null discount=false//null/null/null action="},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newTermFixture(t)
			if c.set != "" {
				f.exec(t, `UPDATE contracts SET `+c.set+` WHERE company_id = $1 AND id = $2`, f.lease)
			}
			req := storage.TerminationRequest{At: finance.MustDate("2025-01-15"), Requester: finance.RequesterTenant, Preview: true}
			preview, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, req)
			if err != nil {
				t.Fatal(err)
			}
			req.Preview = false
			run, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, req)
			if err != nil {
				t.Fatal(err)
			}
			shown := describeInvoice(storage.GeneratedInvoice{Invoice: *preview.Final, BuildingID: f.b.Building, Unset: preview.FinalUnset})
			stored := storedInvoices(t, f.pool, f.company, []int64{run.FinalID})
			if len(stored) != 1 || !strings.Contains(stored[0], c.want) || !strings.Contains(shown, c.want) {
				t.Errorf("the final invoice's settings:\nstored  %v\npreview %s\nwant    %s", stored, shown, c.want)
			}
		})
	}
}

// TestTerminateContractPreviewIsTheRun: the worked example terminated on
// 2025-01-15 (its invoices generated up to 2025-02-10: 2024's and
// January 2025's, due 2025-02-05). The preview writes nothing; the run
// answers what the preview answered, field by field, and stores it: the
// January invoice canceled with its history, the final invoice (January
// 1 to 15 pro rata 967.74, the condominium 350.00, the fine 3,493.42, the
// deposit −2,000.00: 2,811.16) with its history, the contract terminated
// (the date is past) with the fine's amount, requester and motive.
func TestTerminateContractPreviewIsTheRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newTermFixture(t)
	gen := f.generate(t, f.lease, "2025-02-10")
	if len(gen.Created) != 13 {
		t.Fatalf("%d invoices generated, want 13", len(gen.Created))
	}
	january := gen.Created[12]
	req := storage.TerminationRequest{At: finance.MustDate("2025-01-15"), Requester: finance.RequesterTenant,
		Motive: "mudança de cidade", Preview: true}
	before := f.snapshot(t)
	preview, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, req)
	if err != nil {
		t.Fatal(err)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("the preview wrote:\nbefore %s\nafter  %s", before, after)
	}
	req.Preview = false
	run, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, req)
	if err != nil {
		t.Fatal(err)
	}
	if run.FinalID == 0 || preview.FinalID != 0 || run.Final.ID != run.FinalID {
		t.Fatalf("final invoice ids: preview %d, run %d (%d)", preview.FinalID, run.FinalID, run.Final.ID)
	}
	// field by field: the run's answer is the preview's but for the ids it wrote
	p, r := preview, run
	p.Request.Preview, p.FinalID, r.FinalID = false, 0, 0
	pf, rf := *p.Final, *r.Final
	p.Final, r.Final = nil, nil
	pf.ID, rf.ID = 0, 0
	if !reflect.DeepEqual(p, r) || !reflect.DeepEqual(pf, rf) {
		t.Errorf("preview\n%+v\n%+v\nrun\n%+v\n%+v", p, pf, r, rf)
	}
	stored := storedInvoices(t, f.pool, f.company, []int64{run.FinalID})
	if want := describeInvoice(storage.GeneratedInvoice{Invoice: pf, BuildingID: f.b.Building, Unset: run.FinalUnset}); len(stored) != 1 || stored[0] != want {
		t.Errorf("stored final invoice\n%v\nwant\n%s", stored, want)
	}

	if got := brief(*run.Final); got != "2025-01-01..2025-01-15 due 2026-12-05 total 2811.16 "+
		"[967.74 Aluguel] [350.00 Condomínio] [3493.42 Multa rescisória (531 de 912 dias por cumprir)] [-2000.00 Caução: abatimento na rescisão]" &&
		got != "2025-01-01..2025-01-15 due "+run.Final.DueDate.String()+" total 2811.16 "+
			"[967.74 Aluguel] [350.00 Condomínio] [3493.42 Multa rescisória (531 de 912 dias por cumprir)] [-2000.00 Caução: abatimento na rescisão]" {
		t.Errorf("final invoice: %s", got)
	}
	if run.Final.Type != finance.InvoiceSingle || run.Final.Description != "Rescisão do contrato L-30 em 15/01/2025" ||
		run.Final.DueDate.Day() != 5 || run.Final.DueDate.Before(run.At) {
		t.Errorf("final invoice: %+v", run.Final)
	}
	if run.Status != finance.StatusTerminated || run.Fine.Amount.StringFixed(2) != "3493.42" ||
		!slices.Equal(run.Canceled, []int64{january}) || len(run.Open) != 12 || run.RefundDue.StringFixed(2) != "0.00" {
		t.Errorf("termination: %+v", run.Termination)
	}
	var status, requester, motive, at, fee, refund string
	err = f.pool.QueryRow(ctx, `SELECT status, termination_fee_requester, termination_fee_motive, termination_at::text,
			termination_fee_amount::text, refund_amount::text FROM contracts WHERE id = $1`, f.lease).
		Scan(&status, &requester, &motive, &at, &fee, &refund)
	if err != nil || status != "terminated" || requester != "tenant" || motive != "mudança de cidade" || at != "2025-01-15" ||
		fee != "3493.42" || refund != "0.00" {
		t.Errorf("contract: %s %s %s %s %s %s %v", status, requester, motive, at, fee, refund, err)
	}
	var canceled, origin, changes string
	err = f.pool.QueryRow(ctx, `SELECT i.status, h.origin, h.changes::text FROM invoices i
		JOIN invoice_history h ON h.company_id = i.company_id AND h.invoice_id = i.id AND h.origin <> 'create'
		WHERE i.id = $1`, january).Scan(&canceled, &origin, &changes)
	if err != nil || canceled != "canceled" || origin != storage.OriginTermination ||
		changes != `[{"to": "canceled", "from": "unpaid", "field": "status"}]` {
		t.Errorf("canceled invoice: %s %s %s %v", canceled, origin, changes, err)
	}
	var notes int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM invoice_history WHERE invoice_id = $1 AND origin = 'create'
		AND note LIKE 'final invoice of the termination of contract %'`, run.FinalID).Scan(&notes); err != nil || notes != 1 {
		t.Errorf("final invoice history: %d %v", notes, err)
	}

	// once: the contract is terminated now
	_, err = storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, req)
	if fields := problemFields(err); !slices.Equal(fields, []string{"status"}) {
		t.Errorf("a second termination: %v", err)
	}
	// another company's contract is not found
	other, _, err := storage.EnsureCompany(ctx, f.pool, "Outra")
	if err != nil {
		t.Fatal(err)
	}
	_, err = storage.TerminateContract(ctx, f.store.Pool(), storage.Scope{CompanyID: other}, f.lease, req)
	if finance.ErrorCode(err) != finance.NotFound {
		t.Errorf("another company's contract: %v", err)
	}
}

func problemFields(err error) []string {
	var e *finance.Error
	if !errors.As(err, &e) {
		return nil
	}
	var out []string
	for _, p := range e.Problems {
		out = append(out, p.Field)
	}
	return out
}

// brief writes an invoice as "period due D total T [amount description]...".
func brief(inv finance.Invoice) string {
	s := inv.PeriodInitial.String() + ".." + inv.PeriodFinal.String() + " due " + inv.DueDate.String() + " total " + inv.Total.StringFixed(2)
	for _, l := range inv.Items {
		s += " [" + l.Amount.StringFixed(2) + " " + l.Description + "]"
	}
	return s
}

// TestTerminateContractRollsBack: a termination that fails after it wrote
// part of its work (here the contract's update, refused by a trigger,
// after the invoices were canceled and the final invoice inserted) leaves
// nothing written; the same termination then succeeds.
func TestTerminateContractRollsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newTermFixture(t)
	f.generate(t, f.lease, "2025-02-10")
	_, err := f.pool.Exec(ctx, `CREATE FUNCTION refuse_termination() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'refused for the test'; END $$;
		CREATE TRIGGER refuse_termination BEFORE UPDATE OF status ON contracts FOR EACH ROW
		WHEN (NEW.status IN ('terminating', 'terminated')) EXECUTE FUNCTION refuse_termination()`)
	if err != nil {
		t.Fatal(err)
	}
	before := f.snapshot(t)
	req := storage.TerminationRequest{At: finance.MustDate("2025-01-15"), Requester: finance.RequesterTenant}
	if _, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, req); err == nil {
		t.Fatal("the termination succeeded through the trigger")
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("a failed termination wrote:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := f.pool.Exec(ctx, `DROP TRIGGER refuse_termination ON contracts`); err != nil {
		t.Fatal(err)
	}
	run, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, req)
	if err != nil || len(run.Canceled) != 1 || run.FinalID == 0 {
		t.Fatalf("after the trigger is gone: %+v %v", run, err)
	}
}

// TestGenerationStopsAtTermination: a contract terminating on a future
// date is billed, by the generation, up to the period before the one
// holding the date (the final invoice's), and never after; the nightly
// step moves it to terminated the day after the date, once; generation
// then adds nothing.
func TestGenerationStopsAtTermination(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newTermFixture(t)
	id := f.contract(t, `start_at = '2026-06-01', end_at = '2027-05-31', amount = 2000.00, due_date = '2026-07-05',
		due_day = 5, billing_timing = 'post', termination_fee_months = 3`)
	req := storage.TerminationRequest{At: finance.MustDate("2027-01-20"), Requester: finance.RequesterTenant}
	run, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, id, req)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != finance.StatusTerminating || run.Final == nil || run.Final.PeriodInitial != finance.MustDate("2027-01-01") ||
		run.Final.Items[0].Amount.StringFixed(2) != "1290.32" { // 2,000.00 × 20/31
		t.Fatalf("termination: %+v %+v", run.Termination, run.Final)
	}
	gen := f.generate(t, id, "2027-12-31")
	var periods []string
	for _, g := range gen.Invoices {
		periods = append(periods, g.PeriodInitial.String())
	}
	want := []string{"2026-06-01", "2026-07-01", "2026-08-01", "2026-09-01", "2026-10-01", "2026-11-01", "2026-12-01"}
	if !slices.Equal(periods, want) || len(gen.Created) != len(want) {
		t.Errorf("generated %v (%d created), want %v", periods, len(gen.Created), want)
	}
	var after int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM invoices WHERE contract_id = $1 AND type = 'contract'
		AND period_final >= '2027-01-20'`, id).Scan(&after); err != nil || after != 0 {
		t.Errorf("%d invoices of the contract reach the termination date (%v)", after, err)
	}

	for _, c := range []struct {
		date  string
		moved int64
	}{{"2027-01-20", 0}, {"2027-01-21", 1}, {"2027-01-22", 0}} {
		n, err := storage.EndTerminations(ctx, f.pool, f.company, 1, 1<<62, finance.MustDate(c.date))
		if err != nil || n != c.moved {
			t.Errorf("EndTerminations on %s: %d %v, want %d", c.date, n, err, c.moved)
		}
	}
	var status, since string
	if err := f.pool.QueryRow(ctx, `SELECT status, status_date::text FROM contracts WHERE id = $1`, id).Scan(&status, &since); err != nil ||
		status != "terminated" || since != "2027-01-21" {
		t.Errorf("contract: %s since %s (%v)", status, since, err)
	}
	if gen := f.generate(t, id, "2027-12-31"); len(gen.Invoices) != 0 || len(gen.Skipped) != 0 {
		t.Errorf("terminated, generation scheduled %d invoices (skipped %v)", len(gen.Invoices), gen.Skipped)
	}
}

// TestGenerationWaitsForTermination: a generation that read a contract
// before a termination committed (the termination holds the contract's
// row) inserts its invoices only once that termination is committed, and
// then leaves out the period the termination's final invoice bills.
// Without the wait, January 2027 would be billed twice.
func TestGenerationWaitsForTermination(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newTermFixture(t)
	id := f.contract(t, `start_at = '2026-06-01', amount = 2000.00, due_date = '2026-07-05', due_day = 5, billing_timing = 'post'`)
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// the termination, holding the contract's row, not committed yet
	if _, err := tx.Exec(ctx, `SELECT id FROM contracts WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE contracts SET status = 'terminating', termination_at = '2027-01-20' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	done := make(chan storage.Generation, 1)
	failed := make(chan error, 1)
	go func() {
		gen, err := storage.GenerateInvoices(ctx, f.pool, f.company, []int64{id}, finance.MustDate("2027-02-10"),
			storage.GenerateOptions{Actor: storage.Actor{Kind: storage.ActorSystem}})
		if err != nil {
			failed <- err
			return
		}
		done <- gen
	}()
	// the generation read the contract in progress and waits on its row
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting bool
		err := f.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE '%WITH contract AS MATERIALIZED%')`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		select {
		case gen := <-done:
			t.Fatalf("the generation did not wait for the termination: %d invoices created", len(gen.Created))
		case err := <-failed:
			t.Fatal(err)
		default:
		}
		if time.Now().After(deadline) {
			var activity string
			_ = f.pool.QueryRow(ctx, `SELECT json_agg(json_build_object('state', state, 'wait', wait_event_type, 'event', wait_event,
				'query', left(query, 80)))::text FROM pg_stat_activity WHERE datname = current_database()`).Scan(&activity)
			t.Fatalf("the generation never waited for the contract's row: %s", activity)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var gen storage.Generation
	select {
	case gen = <-done:
	case err := <-failed:
		t.Fatal(err)
	}
	// scheduled from what it read (January included), inserted up to December
	var periods []string
	if err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT period_initial::text FROM invoices WHERE contract_id = $1 ORDER BY period_initial`, id)
		if err != nil {
			return err
		}
		periods, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"2026-06-01", "2026-07-01", "2026-08-01", "2026-09-01", "2026-10-01", "2026-11-01", "2026-12-01"}
	if len(gen.Invoices) != 8 || !slices.Equal(periods, want) || len(gen.Created) != 7 {
		b, _ := json.Marshal(periods)
		t.Errorf("scheduled %d, created %d, stored %s; want 8 scheduled and %v stored", len(gen.Invoices), len(gen.Created), b, want)
	}
}

// TestTerminationSettings: the settings name items of the company that
// charge the payer; a bad one is a 422 naming it and nothing is stored;
// null clears.
func TestTerminationSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newTermFixture(t)
	admin := f.b.AdminItem // owner to business: charges no one
	for _, c := range []struct {
		change storage.SettingsChange
		fields []string
	}{
		{storage.SettingsChange{FeeItem: storage.ItemSetting{Set: true, ID: admin}}, []string{"termination_fee_item_id"}},
		{storage.SettingsChange{DepositItem: storage.ItemSetting{Set: true, ID: 1 << 40}, FeeItem: storage.ItemSetting{Set: true, ID: f.b.RentItem}},
			[]string{"termination_deposit_item_id"}},
	} {
		_, err := f.store.UpdateSettings(ctx, f.sc, c.change)
		if got := problemFields(err); !slices.Equal(got, c.fields) {
			t.Errorf("%+v: %v, want %v", c.change, err, c.fields)
		}
	}
	s, err := storage.SettingsOf(ctx, f.pool, f.company)
	if err != nil || *s.FeeItemID != f.fineItem || *s.DepositItemID != f.deposItem {
		t.Fatalf("refused changes stored: %+v %v", s, err)
	}
	s, err = f.store.UpdateSettings(ctx, f.sc, storage.SettingsChange{FeeItem: storage.ItemSetting{Set: true}})
	if err != nil || s.FeeItemID != nil || *s.DepositItemID != f.deposItem || len(s.Candidates) != 3 {
		t.Fatalf("cleared: %+v %v", s, err)
	}
	// An item deleted after it was set (the company's row refers to none by a
	// foreign key) makes a termination a 422 naming the setting.
	if _, err := f.pool.Exec(ctx, `DELETE FROM transaction_items WHERE company_id = $1 AND id = $2`, f.company, f.deposItem); err != nil {
		t.Fatal(err)
	}
	_, err = storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, storage.TerminationRequest{At: finance.MustDate("2025-01-15"),
		Requester: finance.RequesterTenant, Preview: true})
	var coded *finance.Error
	if got := problemFields(err); !slices.Equal(got, []string{"termination_deposit_item_id"}) ||
		!errors.As(err, &coded) || !strings.Contains(coded.Problems[0].Message, "is gone") {
		t.Errorf("a deleted deposit item: %v", err)
	}
}

// TestTerminationEmitsEvents: a termination writes its events with it,
// for a subscribed endpoint: the invoices it cancels, its final invoice,
// the contract terminated; its preview writes none.
func TestTerminationEmitsEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newTermFixture(t)
	f.generate(t, f.lease, "2025-02-10")
	if _, err := f.pool.Exec(ctx, `INSERT INTO webhook_endpoints (company_id, url, events, secret)
		VALUES ($1, 'https://example.com/h', '{*}', 'whsec_x')`, f.company); err != nil {
		t.Fatal(err)
	}
	events := func() map[string]int {
		t.Helper()
		rows, err := f.pool.Query(ctx, `SELECT type, count(*) FROM webhook_events WHERE company_id = $1 GROUP BY type`, f.company)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct {
			typ string
			n   int
		}, error) {
			var e struct {
				typ string
				n   int
			}
			return e, r.Scan(&e.typ, &e.n)
		})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int{}
		for _, e := range out {
			m[e.typ] = e.n
		}
		return m
	}
	req := storage.TerminationRequest{At: finance.MustDate("2025-01-15"), Requester: finance.RequesterTenant, Preview: true}
	if _, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, req); err != nil {
		t.Fatal(err)
	}
	if got := events(); len(got) != 0 {
		t.Errorf("the preview emitted %v", got)
	}
	req.Preview = false
	run, err := storage.TerminateContract(ctx, f.store.Pool(), f.sc, f.lease, req)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{storage.EventContractTerminated: 1, storage.EventInvoiceCreated: 1}
	if len(run.Canceled) > 0 {
		want[storage.EventInvoiceCanceled] = len(run.Canceled)
	}
	if got := events(); !reflect.DeepEqual(got, want) || run.FinalID == 0 || len(run.Canceled) == 0 {
		t.Errorf("events %v, want %v (final %d, %d canceled)", got, want, run.FinalID, len(run.Canceled))
	}
	var data string
	if err := f.pool.QueryRow(ctx, `SELECT data::text FROM webhook_events WHERE company_id = $1 AND type = $2`,
		f.company, storage.EventContractTerminated).Scan(&data); err != nil || !strings.Contains(data, `"status":"terminat`) {
		t.Errorf("contract.terminated data %s (%v)", data, err)
	}
}
