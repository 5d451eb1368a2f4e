package storage_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// discountSettings: 5 % off when paid 5 days before the due date, the
// worked example's 1,500.00 becoming 1,425.00.
const discountSettings = `ticket_discount = true, ticket_discount_mode = 'percentage', ticket_discount_percentage = 5,
	ticket_discount_days = 5, ticket_discount_action = 'owner'`

// discountInvoice is the part payments' example with the discount.
func (f *ledgerFixture) discountInvoice(t *testing.T) int64 {
	t.Helper()
	inv := f.partInvoice(t, "2024-03-10")
	f.exec(t, `UPDATE invoices SET `+discountSettings+` WHERE company_id = $1 AND id = $2`, inv)
	return inv
}

// problemsText is the problems of a 422 as "field: message; ...".
func problemsText(err error) string {
	var e *finance.Error
	if !errors.As(err, &e) {
		return ""
	}
	var out []string
	for _, p := range e.Problems {
		out = append(out, p.Field+": "+p.Message)
	}
	return strings.Join(out, "; ")
}

// partRowOf reads the columns of an invoice's payment that say what it
// paid besides its amounts: "amount over_paid method undo_reason", by n.
func (f *ledgerFixture) partRowOf(t *testing.T, inv int64, n int) string {
	t.Helper()
	var s string
	err := f.pool.QueryRow(context.Background(), `SELECT concat_ws(' ', amount, discount, over_paid, coalesce(method, 'null'),
		coalesce(undo_reason, 'null')) FROM invoice_payments WHERE company_id = $1 AND invoice_id = $2 AND n = $3`,
		f.company, inv, n).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// overAlerts are the company's over_payment alerts of inv GET
// /operator/alerts lists (those of the last 7 days, and those not
// resolved), as "open message".
func (f *ledgerFixture) overAlerts(t *testing.T, inv int64) (ids []int64, texts []string) {
	t.Helper()
	alerts, err := storage.Alerts(context.Background(), f.pool, time.Now().AddDate(0, 0, -7), 500)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if a.CompanyID == f.company && a.Kind == storage.AlertOverPayment && a.InvoiceID != nil && *a.InvoiceID == inv {
			ids, texts = append(ids, a.ID), append(texts, fmt.Sprintf("%v %s", a.Open, a.Message))
		}
	}
	return ids, texts
}

// TestPartOverTheDiscountedAmount: the worked example with 5 % off by
// 2024-03-05 (1,425.00), the tenant paying 1,430.00 that day. Before,
// the part was refused (more than the 1,425.00 due); now it settles the
// invoice with the discount, 1,425.00 booked, and the 5.00 over is on the
// payment's row, in the answer's warning and in an over_payment alert.
// A bank's return file paying the same books the same, and paid: true
// (which takes no amount) books the discounted amount too.
func TestPartOverTheDiscountedAmount(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	inv := f.discountInvoice(t)
	part, err := f.payPart(t, inv, "1430.00", "2024-03-05", "")
	if err != nil {
		t.Fatal(err)
	}
	if !part.Invoice.Paid || part.Amount.String() != "1425.00" || part.Discount.String() != "75.00" ||
		part.OverPaid.String() != "5.00" || part.Due.String() != "1425.00" {
		t.Fatalf("the part: %+v", part)
	}
	if len(part.Warnings) == 0 || part.Warnings[0].Field != "amount" ||
		!strings.Contains(part.Warnings[0].Message, "paid 1430.00 on 2024-03-05, 5.00 more than the 1425.00 due") ||
		!strings.Contains(part.Warnings[0].Message, "the 5.00 over is booked nowhere") {
		t.Fatalf("the part's warnings: %+v", part.Warnings)
	}
	if got, want := f.partRowOf(t, inv, 1), "1425.00 75.00 5.00 null null"; got != want {
		t.Fatalf("the payment's row: %q, want %q", got, want)
	}
	if got := f.partState(t, inv); !strings.HasPrefix(got, "paid true 1425.00 0.00 0.00 2024-03-05 balance 0.00 discount 75.00") {
		t.Fatalf("the invoice: %q", got)
	}
	if b := f.balances(f.entries(t, inv)); b["payer"] != "-1425.00" {
		t.Fatalf("the payer's balance %s, want the 1425.00 booked", b["payer"])
	}
	_, alerts := f.overAlerts(t, inv)
	if len(alerts) != 1 || !strings.HasPrefix(alerts[0], fmt.Sprintf("true invoice %d, a part recorded by hand: paid 1430.00", inv)) {
		t.Fatalf("the over_payment alerts: %q", alerts)
	}
	// more than the face value is refused, saying up to where
	if _, err := f.payPart(t, f.discountInvoice(t), "1500.01", "2024-03-05", ""); finance.ErrorCode(err) != finance.Invalid ||
		!strings.Contains(problemsText(err), "more than the 1500.00 the invoice charges without its discount") {
		t.Fatalf("1500.01 by the discount date: %v", err)
	}

	reported := f.discountInvoice(t)
	out := f.settleReported(t, paidOn(reported, "1430.00", "2024-03-05"))[0]
	if out.Outcome != storage.PaymentSettled || out.Booked.StringFixed(2) != "1425.00" || out.Discount.StringFixed(2) != "75.00" ||
		out.Unbooked.StringFixed(2) != "5.00" {
		t.Fatalf("the return file's line: %+v", out)
	}
	if got, want := f.partRowOf(t, reported, 1), "1425.00 75.00 5.00 ticket null"; got != want {
		t.Fatalf("the return file's payment row: %q, want %q", got, want)
	}

	// the bank reporting the discount books the same
	withDiscount := f.discountInvoice(t)
	line := paidOn(withDiscount, "1430.00", "2024-03-05")
	line.Discount = decimal.RequireFromString("75.00")
	if out := f.settleReported(t, line)[0]; out.Outcome != storage.PaymentSettled || out.Booked.StringFixed(2) != "1425.00" ||
		out.Unbooked.StringFixed(2) != "5.00" {
		t.Fatalf("the return file's line with the bank's discount: %+v", out)
	}
	if got, want := f.partRowOf(t, withDiscount, 1), "1425.00 75.00 5.00 ticket null"; got != want {
		t.Fatalf("the payment row of the line with the bank's discount: %q, want %q", got, want)
	}

	// the face value, no discount reported: the bank's own parts, booked as
	// the bank reports them (no discount, nothing over), the difference
	// with the rules' 1,425.00 in the line's report
	face := f.discountInvoice(t)
	if out := f.settleReported(t, paidOn(face, "1500.00", "2024-03-05"))[0]; out.Outcome != storage.PaymentSettled ||
		out.Booked.StringFixed(2) != "1500.00" || !out.Discount.IsZero() || !out.Unbooked.IsZero() ||
		out.Difference.StringFixed(2) != "75.00" {
		t.Fatalf("the return file's line of the face value: %+v", out)
	}

	whole := f.discountInvoice(t)
	f.exec(t, `UPDATE invoices SET paid = true, status = 'paid', paid_at = '2024-03-05', credit_at = '2024-03-05'
		WHERE company_id = $1 AND id = $2`, whole)
	if err := f.post(t, whole); err != nil {
		t.Fatal(err)
	}
	if got, want := f.partRowOf(t, whole, 1), "1425.00 75.00 0.00 null null"; got != want {
		t.Fatalf("paid: true's payment row: %q, want %q", got, want)
	}
}

// TestResolveOverPayment: an over_payment alert holds (open, listed and
// in the gauge past its week) until an operator records what was done
// with the money, with a reason and a row of the audit log; then it is
// closed, and once past its week no longer listed. Resolving it again, or an alert of another kind, is a conflict;
// without a reason or with an unknown resolution, refused.
func TestResolveOverPayment(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	inv := f.discountInvoice(t)
	if _, err := f.payPart(t, inv, "1500.00", "2024-03-05", ""); err != nil {
		t.Fatal(err)
	}
	ids, _ := f.overAlerts(t, inv)
	if len(ids) != 1 {
		t.Fatalf("%d over_payment alerts, want 1", len(ids))
	}
	f.exec(t, `UPDATE operator_alerts SET raised_at = now() - interval '10 days' WHERE company_id = $1 AND id = $2`, ids[0])
	if again, texts := f.overAlerts(t, inv); len(again) != 1 || !strings.HasPrefix(texts[0], "true ") {
		t.Fatalf("the over payment raised 10 days ago, not resolved: %v %q", again, texts)
	}
	gauge := func() int64 { // the test's database holds this company's alerts alone
		t.Helper()
		open, err := storage.OpenAlerts(ctx, f.pool)
		if err != nil {
			t.Fatal(err)
		}
		return open[storage.AlertOverPayment]
	}
	if n := gauge(); n != 1 {
		t.Fatalf("the gauge counts %d open over payments, want the one raised 10 days ago", n)
	}
	resolve := func(r storage.AlertResolution) (storage.Alert, int64, error) {
		var a storage.Alert
		var audit int64
		err := inTx(t, f.pool, func(tx pgx.Tx) error {
			var err error
			a, audit, err = storage.ResolveAlert(ctx, tx, ids[0], r)
			return err
		})
		return a, audit, err
	}
	if _, _, err := resolve(storage.AlertResolution{Resolution: "forgotten", Reason: " ", Operator: "ana"}); finance.ErrorCode(err) != finance.Invalid ||
		!strings.Contains(problemsText(err), "resolution: must be one of") || !strings.Contains(problemsText(err), "reason: is required") {
		t.Fatalf("an unknown resolution without a reason: %v", err)
	}
	a, audit, err := resolve(storage.AlertResolution{Resolution: "refunded", Reason: "devolvido por PIX em 2024-03-06", Operator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Open || a.Resolution == nil || *a.Resolution != "refunded" || a.ResolvedBy == nil || *a.ResolvedBy != "ana" ||
		a.ResolvedAt == nil || audit == 0 {
		t.Fatalf("the alert resolved: %+v, audit %d", a, audit)
	}
	if listed, _ := f.overAlerts(t, inv); len(listed) != 0 {
		t.Fatalf("the alert resolved, raised 10 days ago, still listed: %v", listed)
	}
	if n := gauge(); n != 0 {
		t.Fatalf("the gauge counts %d open over payments once resolved", n)
	}
	var open bool
	if err := f.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM operator_alerts a WHERE a.company_id = $1 AND a.kind = 'over_payment'
		AND a.resolved_at IS NULL)`, f.company).Scan(&open); err != nil || open {
		t.Fatalf("an over payment of the company still open: %v %v", open, err)
	}
	entries, err := storage.AuditLog(ctx, f.pool, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range entries {
		found = found || (e.ID == audit && e.Action == "alerts.resolve" && e.Operator == "ana" &&
			e.Reason == "devolvido por PIX em 2024-03-06" && strings.Contains(e.Selection, fmt.Sprintf("invoice %d): refunded", inv)))
	}
	if !found {
		t.Fatalf("no audit row %d of the resolution in %+v", audit, entries)
	}
	if _, _, err := resolve(storage.AlertResolution{Resolution: "applied", Reason: "again", Operator: "bia"}); finance.ErrorCode(err) != finance.Conflict ||
		!strings.Contains(err.Error(), "resolved already (refunded by ana") {
		t.Fatalf("resolving it again: %v", err)
	}
	var short int64
	if err := f.pool.QueryRow(ctx, `INSERT INTO operator_alerts (company_id, kind, job_id, run_key, invoice_id, message)
		VALUES ($1, 'short_payment', 1, 'k', $2, 'short') RETURNING id`, f.company, inv).Scan(&short); err != nil {
		t.Fatal(err)
	}
	err = inTx(t, f.pool, func(tx pgx.Tx) error {
		_, _, err := storage.ResolveAlert(ctx, tx, short, storage.AlertResolution{Resolution: "other", Reason: "x", Operator: "ana"})
		return err
	})
	if finance.ErrorCode(err) != finance.Conflict || !strings.Contains(err.Error(), "closes by itself") {
		t.Fatalf("resolving a short_payment alert: %v", err)
	}
}

// TestPartMethodAndUndoReason: a part carries how it was paid, refused
// when not a billing method; its undo keeps its reason on the row and in
// the history's note.
func TestPartMethodAndUndoReason(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	sc := storage.Scope{CompanyID: f.company}
	inv := f.partInvoice(t, "2024-03-10")
	req := storage.PartRequest{Amount: decimal.RequireFromString("1000.00"), PaidAt: finance.MustDate("2024-03-10"), Method: "boleto"}
	if _, err := storage.PayInvoicePart(ctx, f.pool, sc, inv, req); finance.ErrorCode(err) != finance.Invalid ||
		!strings.HasPrefix(problemsText(err), "method: must be one of ticket, cash") {
		t.Fatalf("method boleto: %v", err)
	}
	req.Method = "pix"
	part, err := storage.PayInvoicePart(ctx, f.pool, sc, inv, req)
	if err != nil {
		t.Fatal(err)
	}
	if part.Method == nil || *part.Method != "pix" || part.UndoReason != nil {
		t.Fatalf("the part: %+v", part)
	}
	undone, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, part.ID, "PIX devolvido pelo banco")
	if err != nil {
		t.Fatal(err)
	}
	if undone.UndoReason == nil || *undone.UndoReason != "PIX devolvido pelo banco" || !undone.Undone {
		t.Fatalf("the part undone: %+v", undone)
	}
	if got, want := f.partRowOf(t, inv, 1), "1000.00 0.00 0.00 pix PIX devolvido pelo banco"; got != want {
		t.Fatalf("the row: %q, want %q", got, want)
	}
	var note string
	if err := f.pool.QueryRow(ctx, `SELECT note FROM invoice_history WHERE company_id = $1 AND invoice_id = $2
		AND origin = $3 ORDER BY id DESC LIMIT 1`, f.company, inv, storage.OriginPaymentUndone).Scan(&note); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(note, "part 1 undone: 1000.00") || !strings.HasSuffix(note, "; reason: PIX devolvido pelo banco") {
		t.Fatalf("the history's note: %q", note)
	}
}

// TestPartInAClosedStatementMonth: a part whose entries fall in a month
// whose owner statements are closed leaves the closed statements as they
// were, warns so, and the next close states its entries as adjustments of
// that month.
func TestPartInAClosedStatementMonth(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	closeMonth := func(m finance.Month) {
		t.Helper()
		if err := inTx(t, f.pool, func(tx pgx.Tx) error {
			_, err := storage.CloseOwnerStatements(ctx, tx, f.company, 0, m)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	stated := func(month string) string {
		t.Helper()
		var s string
		if err := f.pool.QueryRow(ctx, `SELECT concat_ws(' ', count(DISTINCT s.id), count(l.id), coalesce(sum(l.amount), 0),
			string_agg(DISTINCT l.corrects_month, ','))
			FROM owner_statements s LEFT JOIN owner_statement_lines l ON l.company_id = s.company_id AND l.statement_id = s.id
			WHERE s.company_id = $1 AND s.month = $2`, f.company, month).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	inv := f.partInvoice(t, "2024-03-10")
	if _, err := f.payPart(t, inv, "1000.00", "2024-03-10", ""); err != nil {
		t.Fatal(err)
	}
	closeMonth(finance.NewMonth(2024, 3))
	march := stated("2024-03")
	part, err := f.payPart(t, inv, "300.00", "2024-03-25", "2024-03-29")
	if err != nil {
		t.Fatal(err)
	}
	var warned *finance.Problem
	for i, w := range part.Warnings {
		if w.Field == "credit_at" {
			warned = &part.Warnings[i]
		}
	}
	if warned == nil || !strings.Contains(warned.Message, "is in 2024-03, a month whose owner statements are closed: they do not change") ||
		!strings.Contains(warned.Message, "as adjustments of 2024-03") {
		t.Fatalf("the part's warnings: %+v", part.Warnings)
	}
	if got := stated("2024-03"); got != march {
		t.Fatalf("March's statements changed: %q, were %q", got, march)
	}
	closeMonth(finance.NewMonth(2024, 4))
	var want string
	if err := f.pool.QueryRow(ctx, `SELECT concat_ws(' ', count(DISTINCT owner_id), count(*),
		sum(CASE type WHEN 'credit' THEN amount ELSE -amount END), '2024-03')
		FROM transactions WHERE company_id = $1 AND split = $2 AND extract = 'owner'`, f.company, part.Split).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if got := stated("2024-04"); got != want || !strings.HasPrefix(got, "2 8 ") {
		t.Fatalf("April's statements: %q, want the part's entries as adjustments of March, %q", got, want)
	}
	// a part credited in an open month warns of nothing of the kind
	later, err := f.payPart(t, inv, "200.00", "2024-05-02", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range later.Warnings {
		if strings.Contains(w.Message, "closed") {
			t.Fatalf("a part of an open month: %+v", w)
		}
	}
}
