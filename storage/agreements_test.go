package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// agreementOf renegotiates two of the ledger fixture's invoices of its
// contract (2350.00 each, rent, condominium and the administration fee,
// the building owned 60/40), unpaid and due 40 and 10 days ago, into n
// installments from today, nothing waived; it answers the agreement and
// the originals.
func (f *ledgerFixture) agreementOf(t *testing.T, n int) (*storage.AgreementRun, []int64) {
	t.Helper()
	today := f.today(t)
	var originals []int64
	for _, days := range []int{40, 10} {
		inv := f.invoice(t, today.AddDays(-days).String(), today.String(), today.String(), lateSettings)
		f.unpaid(t, inv)
		originals = append(originals, inv)
	}
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	run, err := storage.CreateAgreement(context.Background(), store.Pool(), storage.Company(f.company), storage.AgreementRequest{
		InvoiceIDs: originals, Installments: n, FirstDueDate: today, IntervalMonths: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	return run, originals
}

func (f *ledgerFixture) today(t *testing.T) finance.Date {
	t.Helper()
	var d time.Time
	if err := f.pool.QueryRow(context.Background(), `SELECT company_today($1)`, f.company).Scan(&d); err != nil {
		t.Fatal(err)
	}
	return finance.DateOf(d)
}

// allEntries reads the company's entries.
func (f *ledgerFixture) allEntries(t *testing.T) []ledgerRow {
	t.Helper()
	var rows []ledgerRow
	var ids []int64
	r, err := f.pool.Query(context.Background(), `SELECT DISTINCT invoice_id FROM transactions WHERE company_id = $1`, f.company)
	if err != nil {
		t.Fatal(err)
	}
	if ids, err = pgx.CollectRows(r, pgx.RowTo[int64]); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		rows = append(rows, f.entries(t, id)...)
	}
	return rows
}

func (f *ledgerFixture) agreementStatus(t *testing.T, id int64) string {
	t.Helper()
	var s string
	if err := f.pool.QueryRow(context.Background(), `SELECT status || coalesce(' ' || broken_by, '') FROM agreements
		WHERE company_id = $1 AND id = $2`, f.company, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAgreementSettledFromReturnFile: installments paid as a bank's
// return file reports them go the common settlement path
// (SettleReportedPayments) and fulfil the agreement with the last one; the
// installments' lines, cut among the owners by share and of the
// originals' contract, credit the owners 60/40 of the rent and the
// condominium less the administration fee, and the book stays balanced.
func TestAgreementSettledFromReturnFile(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	run, _ := f.agreementOf(t, 2)
	// 2350.00 due 40 days ago: 2% = 47.00, 2350 × 1% × 40/30 = 31.33;
	// due 10 days ago: 47.00 and 7.83; 4700.00 + 94.00 + 39.16 = 4833.16.
	if run.Plan.Total.StringFixed(2) != "4833.16" || run.Installments[0].Invoice.ContractID != f.contract ||
		run.Installments[0].BuildingID != f.building {
		t.Fatalf("total %s, contract %d, building %d", run.Plan.Total, run.Installments[0].Invoice.ContractID, run.Installments[0].BuildingID)
	}
	today := f.today(t)
	for i, in := range run.Installments {
		out := f.settleReported(t, storage.ReportedPayment{InvoiceID: in.ID, PaidAt: today, CreditAt: today, Paid: in.Invoice.Total})
		if out[0].Outcome != storage.PaymentSettled {
			t.Fatalf("installment %d: %+v", i+1, out[0])
		}
		checkBalanced(t, f.allEntries(t))
		want := []string{"active", "fulfilled"}[i]
		if got := f.agreementStatus(t, run.ID); got != want {
			t.Errorf("after installment %d: %s, want %s", i+1, got, want)
		}
	}
	b := f.balances(f.allEntries(t))
	// the owners: 4833.16 - 400.00 of administration fee, 60/40
	owners := decimal.RequireFromString(b["owner60"]).Add(decimal.RequireFromString(b["owner40"]))
	if owners.StringFixed(2) != "4433.16" || b["business"] != "400.00" || b["payer"] != "-4833.16" {
		t.Errorf("balances %v; want the owners 4433.16 together, the business 400.00, the payer -4833.16", b)
	}
	if o60, o40 := decimal.RequireFromString(b["owner60"]), decimal.RequireFromString(b["owner40"]); o60.Sub(owners.Mul(decimal.RequireFromString("0.6"))).Abs().GreaterThan(decimal.RequireFromString("0.05")) {
		t.Errorf("owner60 %s, owner40 %s: not 60/40 of %s", o60, o40, owners)
	}
	// a reported payment of a renegotiated original is refused
	out := f.settleReported(t, storage.ReportedPayment{InvoiceID: run.InvoiceIDs[0], PaidAt: today, CreditAt: today,
		Paid: decimal.RequireFromString("2350.00")})
	if out[0].Outcome != storage.PaymentNotSettled {
		t.Errorf("a renegotiated original reported paid: %+v", out[0])
	}
}

// TestBreakOverdueAgreements: the nightly run's rule breaks an active
// agreement once an installment is owed more than the company's
// agreement_break_days after its due date, and no other: one owed exactly
// that many days is kept; the broken one's originals are given back whole
// (nothing was paid), overdue, with a history row of the job.
func TestBreakOverdueAgreements(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	late, lateOriginals := f.agreementOf(t, 2)
	onTheDay, _ := f.agreementOf(t, 2)
	today := f.today(t)
	ctx := context.Background()
	move := func(inv int64, days int) {
		if _, err := f.pool.Exec(ctx, `UPDATE invoices SET due_date = $3 WHERE company_id = $1 AND id = $2`,
			f.company, inv, today.AddDays(-days)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.pool.Exec(ctx, `UPDATE companies SET agreement_break_days = 20 WHERE id = $1`, f.company); err != nil {
		t.Fatal(err)
	}
	move(late.Installments[0].ID, 21)
	move(onTheDay.Installments[0].ID, 20)
	var broken storage.BrokenAgreements
	err := inTx(t, f.pool, func(tx pgx.Tx) error {
		var err error
		broken, err = storage.BreakOverdueAgreements(ctx, tx, storage.OverdueChunk{CompanyID: f.company, From: 1, To: 1 << 62, AsOf: today})
		return err
	})
	if err != nil || broken != (storage.BrokenAgreements{Broken: 1}) {
		t.Fatalf("broke %+v (%v), want 1 and no slips", broken, err)
	}
	if s, k := f.agreementStatus(t, late.ID), f.agreementStatus(t, onTheDay.ID); s != "broken overdue" || k != "active" {
		t.Errorf("statuses %q and %q, want broken overdue and active", s, k)
	}
	for _, o := range lateOriginals {
		var status, total, actor string
		err := f.pool.QueryRow(ctx, `SELECT i.status, i.total::text, h.actor FROM invoices i
			JOIN invoice_history h ON h.company_id = i.company_id AND h.invoice_id = i.id AND h.origin = 'agreement_broken'
			WHERE i.company_id = $1 AND i.id = $2`, f.company, o).Scan(&status, &total, &actor)
		if err != nil || status != "overdue" || total != "2350.00" || actor != "job" {
			t.Errorf("original %d: %s %s by %s (%v)", o, status, total, actor, err)
		}
	}
	// a second run on the same day finds nothing more
	err = inTx(t, f.pool, func(tx pgx.Tx) error {
		var err error
		broken, err = storage.BreakOverdueAgreements(ctx, tx, storage.OverdueChunk{CompanyID: f.company, From: 1, To: 1 << 62, AsOf: today})
		return err
	})
	if err != nil || broken != (storage.BrokenAgreements{}) {
		t.Errorf("again: broke %+v (%v), want none", broken, err)
	}
}

// TestRenegotiatedMarksItsContract: an invoice of a contract moving to or
// from renegotiated marks the contract for the nightly run (migration
// 0034's trigger), since a renegotiated invoice is no longer open and the
// contract's payment status changes.
func TestRenegotiatedMarksItsContract(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	inv := f.invoice(t, f.today(t).AddDays(-40).String(), f.today(t).String(), f.today(t).String(), "")
	f.unpaid(t, inv)
	marks := func() int64 {
		t.Helper()
		var n int64
		if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM contract_payment_marks WHERE company_id = $1 AND contract_id = $2`,
			f.company, f.contract).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, status := range []string{"renegotiated", "overdue"} {
		if _, err := f.pool.Exec(ctx, `DELETE FROM contract_payment_marks WHERE company_id = $1`, f.company); err != nil {
			t.Fatal(err)
		}
		if _, err := f.pool.Exec(ctx, `UPDATE invoices SET status = $3 WHERE company_id = $1 AND id = $2`, f.company, inv, status); err != nil {
			t.Fatal(err)
		}
		if n := marks(); n != 1 {
			t.Errorf("moved to %s: %d marks of its contract, want 1", status, n)
		}
	}
}

// TestAgreementInstallmentsNotGuaranteed: under a guaranteed contract, the
// transfer run advances the owners' share of neither a renegotiated
// original nor an installment (a break cancels an unpaid installment, and
// would leave its advance owed with the originals given back besides).
func TestAgreementInstallmentsNotGuaranteed(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, "transfer_mode = 'after_receive', guaranteed_transfer = true")
	run, _ := f.agreementOf(t, 2)
	if run.Installments[0].Invoice.ContractID != f.contract {
		t.Fatalf("installment of contract %d, want the originals' %d", run.Installments[0].Invoice.ContractID, f.contract)
	}
	s := f.transfer(t, f.today(t).AddMonths(2).String(), 1)
	if s.Guarantees != 0 {
		t.Errorf("the run guaranteed %d invoices of an agreement (%+v), want none", s.Guarantees, s)
	}
}

// TestBrokenAgreementEmitsOverdue: the originals a break gives back
// overdue each emit invoice.overdue, the invoice as given back, once: the
// nightly overdue run of the same day emits none more for them.
func TestBrokenAgreementEmitsOverdue(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	if _, err := f.pool.Exec(ctx, `INSERT INTO webhook_endpoints (company_id, url, events, secret)
		VALUES ($1, 'https://example.com/h', '{invoice.overdue}', 'whsec_x')`, f.company); err != nil {
		t.Fatal(err)
	}
	run, originals := f.agreementOf(t, 2)
	if err := storage.BreakAgreement(ctx, f.pool, storage.Company(f.company), run.ID); err != nil {
		t.Fatal(err)
	}
	events := func(when string) {
		t.Helper()
		for _, o := range originals {
			var n int
			var status string
			err := f.pool.QueryRow(ctx, `SELECT count(*), coalesce(min(e.data->>'status'), '') FROM webhook_events e
				WHERE e.company_id = $1 AND e.type = 'invoice.overdue' AND (e.data->>'id')::bigint = $2`, f.company, o).Scan(&n, &status)
			if err != nil || n != 1 || status != "overdue" {
				t.Errorf("%s: original %d has %d invoice.overdue events (%q, %v), want 1 overdue", when, o, n, status, err)
			}
		}
	}
	events("after the break")
	today := f.today(t)
	err := inTx(t, f.pool, func(tx pgx.Tx) error {
		_, err := storage.UpdateInvoiceStatuses(ctx, tx, storage.OverdueChunk{CompanyID: f.company, From: 1, To: 1 << 62, AsOf: today})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	events("after the overdue run")
}
