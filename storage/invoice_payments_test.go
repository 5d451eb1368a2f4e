package storage_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// partInvoice inserts the part payments' example of docs/ledger.md ("Part
// payments"): rent 1,500.00 to the owners 60/40 and the administration
// fee of 10 %, 150.00, due dueDate, 2 % late fee and 1 % a month of
// interest, unpaid.
func (f *ledgerFixture) partInvoice(t *testing.T, dueDate string) int64 {
	t.Helper()
	ctx := context.Background()
	var inv int64
	err := f.pool.QueryRow(ctx, `
		INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
		    status, description, total, date, due_date, ticket_late_fee, ticket_late_fee_percentage, ticket_late_fee_interest)
		VALUES ($1, 'contract', $2, $3, $4, $5, 'ticket', 'unpaid', 'Aluguel 3/24', 1500.00, '2024-03-01', $6, true, 2, 1)
		RETURNING id`, f.company, f.payer, f.contract, f.business, f.account, dueDate).Scan(&inv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `INSERT INTO invoice_items (company_id, invoice_id, item_id, amount)
		VALUES ($1, $2, $3, 1500.00), ($1, $2, $4, 150.00)`, f.company, inv, f.rent, f.admin); err != nil {
		t.Fatal(err)
	}
	return inv
}

func (f *ledgerFixture) payPart(t *testing.T, inv int64, amount, paidAt, creditAt string) (storage.InvoicePart, error) {
	t.Helper()
	req := storage.PartRequest{Amount: decimal.RequireFromString(amount), PaidAt: finance.MustDate(paidAt)}
	if creditAt != "" {
		req.CreditAt = finance.MustDate(creditAt)
	}
	return storage.PayInvoicePart(context.Background(), f.pool, storage.Scope{CompanyID: f.company}, inv, req)
}

// partState is what an invoice says of its parts: status, paid, the paid
// amounts, the balance, and its settlement lines.
func (f *ledgerFixture) partState(t *testing.T, inv int64) string {
	t.Helper()
	var s string
	err := f.pool.QueryRow(context.Background(), `
		SELECT concat_ws(' ', status, paid::text, coalesce(paid_amount::text, 'null'), coalesce(paid_late_fee::text, 'null'),
		    coalesce(paid_interest::text, 'null'), coalesce(paid_at::text, 'null'),
		    'balance', total - coalesce((SELECT sum(principal) FROM invoice_payments p WHERE p.company_id = i.company_id
		        AND p.invoice_id = i.id AND p.undone_at IS NULL), 0))
		FROM invoices i WHERE company_id = $1 AND id = $2`, f.company, inv).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	_, lines := f.settled(t, inv)
	return s + " " + strings.Join(lines, ", ")
}

// splitLines are the entries of one split as the fixture writes them.
func (f *ledgerFixture) splitLines(rows []ledgerRow, split string) []string {
	var out []string
	for _, r := range rows {
		if r.split == split {
			out = append(out, f.line(r)+" "+r.date)
		}
	}
	return out
}

// TestInvoicePartsWorked is docs/ledger.md's worked example of part
// payments: 1,000.00 of the 1,500.00 rent on its due date, the rest 12
// days late with its late fee and interest computed on the rest; the two
// parts' entries add up, owner by owner, to the whole payment's.
func TestInvoicePartsWorked(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	inv := f.partInvoice(t, "2024-03-10")
	first, err := f.payPart(t, inv, "1000.00", "2024-03-10", "2024-03-11")
	if err != nil {
		t.Fatal(err)
	}
	if first.N != 1 || first.Principal.String() != "1000.00" || first.Due.String() != "1500.00" ||
		first.Invoice.Status != "partially_paid" || first.Invoice.Balance.String() != "500.00" || first.Invoice.Paid {
		t.Fatalf("first part %+v", first)
	}
	if got, want := f.partState(t, inv), "partially_paid false 1000.00 0.00 0.00 null balance 500.00 "; got != want {
		t.Fatalf("after the first part: %q, want %q", got, want)
	}
	second, err := f.payPart(t, inv, "512.00", "2024-03-22", "2024-03-25")
	if err != nil {
		t.Fatal(err)
	}
	if second.N != 2 || second.Principal.String() != "500.00" || second.LateFee.String() != "10.00" ||
		second.Interest.String() != "2.00" || second.Invoice.Status != "paid" || second.Invoice.Balance.String() != "0.00" {
		t.Fatalf("second part %+v", second)
	}
	want := "paid true 1512.00 10.00 2.00 2024-03-22 balance 0.00 late_fee 10.00 true Multa por atraso, interest 2.00 true Juros de mora (12 dias)"
	if got := f.partState(t, inv); got != want {
		t.Fatalf("after the second part: %q, want %q", got, want)
	}
	rows := f.entries(t, inv)
	checkBalanced(t, rows)
	gotFirst := f.splitLines(rows, fmt.Sprintf("invoice-%d-payment-1", inv))
	wantFirst := []string{
		"debit payer 1000.00 rent 2024-03-11", "credit owner60 600.00 rent 2024-03-11", "credit owner40 400.00 rent 2024-03-11",
		"debit owner60 60.00 admin 2024-03-11", "debit owner40 40.00 admin 2024-03-11", "credit business 100.00 admin 2024-03-11",
	}
	if !slices.Equal(gotFirst, wantFirst) {
		t.Fatalf("first part's entries\n%s\nwant\n%s", strings.Join(gotFirst, "\n"), strings.Join(wantFirst, "\n"))
	}
	gotSecond := f.splitLines(rows, fmt.Sprintf("invoice-%d-payment-2", inv))
	wantSecond := []string{
		"debit payer 500.00 rent 2024-03-25", "credit owner60 300.00 rent 2024-03-25", "credit owner40 200.00 rent 2024-03-25",
		"debit owner60 30.00 admin 2024-03-25", "debit owner40 20.00 admin 2024-03-25", "credit business 50.00 admin 2024-03-25",
		"debit payer 10.00 fee 2024-03-25", "credit owner60 6.00 fee 2024-03-25", "credit owner40 4.00 fee 2024-03-25",
		"debit payer 2.00 fee 2024-03-25", "credit owner60 1.20 fee 2024-03-25", "credit owner40 0.80 fee 2024-03-25",
	}
	if !slices.Equal(gotSecond, wantSecond) {
		t.Fatalf("second part's entries\n%s\nwant\n%s", strings.Join(gotSecond, "\n"), strings.Join(wantSecond, "\n"))
	}
	wantBalances := map[string]string{"payer": "-1512.00", "owner60": "817.20", "owner40": "544.80", "business": "150.00"}
	if got := f.balances(rows); !maps2Equal(got, wantBalances) {
		t.Fatalf("balances %v, want %v", got, wantBalances)
	}

	// the same invoice paid whole on its due date books the same lines
	whole := f.partInvoice(t, "2024-03-10")
	if _, err := f.payPart(t, whole, "1500.00", "2024-03-10", ""); err != nil {
		t.Fatal(err)
	}
	lines := func(rows []ledgerRow) map[string]string {
		return f.balances(slices.DeleteFunc(slices.Clone(rows), func(r ledgerRow) bool { return r.item == fmt.Sprint(f.fee) }))
	}
	if got, want := lines(rows), lines(f.entries(t, whole)); !maps2Equal(got, want) {
		t.Fatalf("the parts' lines book %v, the whole payment %v", got, want)
	}

	// nothing is left to pay
	_, err = f.payPart(t, inv, "1.00", "2024-03-23", "")
	var fe *finance.Error
	if !errors.As(err, &fe) || fe.Code != finance.Invalid || len(fe.Problems) != 1 ||
		fe.Problems[0] != (finance.Problem{Field: "status", Message: "the invoice is paid: nothing is left to pay"}) {
		t.Fatalf("a third part: %v", err)
	}
}

func maps2Equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestUndoLatestPart undoes the parts of the worked example from the
// latest: the earlier one first is refused, naming the later; the latest
// undone, the invoice is partially paid again with its first part alone,
// and the first undone, unpaid.
func TestUndoLatestPart(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	sc := storage.Scope{CompanyID: f.company}
	inv := f.partInvoice(t, "2024-03-10")
	first, err := f.payPart(t, inv, "1000.00", "2024-03-10", "")
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.payPart(t, inv, "512.00", "2024-03-22", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = storage.UndoInvoicePart(ctx, f.pool, sc, inv, first.ID, "")
	if finance.ErrorCode(err) != finance.Conflict || !strings.Contains(err.Error(), fmt.Sprintf("part 2 (payment %d) was paid after it", second.ID)) {
		t.Fatalf("undoing the first part: %v", err)
	}
	undone, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, second.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if !undone.Undone || undone.Invoice.Status != "partially_paid" || undone.Invoice.Balance.String() != "500.00" {
		t.Fatalf("the second part undone: %+v", undone)
	}
	if got, want := f.partState(t, inv), "partially_paid false 1000.00 0.00 0.00 null balance 500.00 "; got != want {
		t.Fatalf("after the undo: %q, want %q", got, want)
	}
	today, err := storage.CompanyToday(ctx, f.pool, f.company)
	if err != nil {
		t.Fatal(err)
	}
	rows := f.entries(t, inv)
	checkBalanced(t, rows)
	reversals := 0
	for _, r := range rows {
		if r.mode == "chargeback" {
			reversals++
			if r.split != fmt.Sprintf("invoice-%d-payment-2-chargeback", inv) || r.date != today.String() {
				t.Errorf("reversal %+v: want the second part's, dated today", r)
			}
		}
	}
	if reversals != 12 {
		t.Fatalf("%d reversals, want the second part's 12", reversals)
	}
	if got, want := f.balances(rows), map[string]string{"payer": "-1000.00", "owner60": "540.00", "owner40": "360.00",
		"business": "100.00"}; !maps2Equal(got, want) {
		t.Fatalf("balances %v, want the first part's %v", got, want)
	}
	if _, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, second.ID, ""); finance.ErrorCode(err) != finance.Conflict {
		t.Fatalf("undoing it again: %v", err)
	}
	// paid again: the rest of the principal, late fee and interest on it
	again, err := f.payPart(t, inv, "512.00", "2024-03-22", "")
	if err != nil || again.N != 3 || again.Invoice.Status != "paid" {
		t.Fatalf("paid again: %+v, %v", again, err)
	}
	if _, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, again.ID, ""); err != nil {
		t.Fatal(err)
	}
	last, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, first.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if last.Invoice.Status != "overdue" { // stored unpaid, due 2024-03-10: read as the invoices resource reads it
		t.Fatalf("every part undone, the answer's status %q, want overdue", last.Invoice.Status)
	}
	if got, want := f.partState(t, inv), "unpaid false null null null null balance 1500.00 "; got != want {
		t.Fatalf("every part undone: %q, want %q", got, want)
	}
	for name, b := range f.balances(f.entries(t, inv)) {
		if b != "0.00" {
			t.Errorf("%s: %s after every part is undone", name, b)
		}
	}
}

// TestPartsDeclaredInTheirMonths: the informe and the DIMOB count each
// part in the month the tenant paid it (storage/declared.go): the
// worked example's 1,000.00 paid on 2024-03-30 (credited in April) is
// March's, the rest paid on 2024-04-12 April's, with its late fee and
// interest.
func TestPartsDeclaredInTheirMonths(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	if _, err := f.pool.Exec(ctx, `UPDATE contracts SET dimob = true WHERE company_id = $1 AND id = $2`, f.company, f.contract); err != nil {
		t.Fatal(err)
	}
	inv := f.partInvoice(t, "2024-03-31")
	if _, err := f.payPart(t, inv, "1000.00", "2024-03-30", "2024-04-01"); err != nil {
		t.Fatal(err)
	}
	// 12 days late: 500.00 + 10.00 + 2.00
	if _, err := f.payPart(t, inv, "512.00", "2024-04-12", ""); err != nil {
		t.Fatal(err)
	}
	var year *storage.DimobYear
	err := inTx(t, f.pool, func(tx pgx.Tx) error {
		var err error
		year, err = storage.ReadDimobYear(ctx, tx, f.company, f.business, 2024)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][]string{}
	for _, r := range year.Rentals {
		for m, month := range r.Months {
			if !month.Rent.IsZero() {
				got[r.Owner.ID] = append(got[r.Owner.ID], fmt.Sprintf("%02d %s", m+1, month.Rent.StringFixed(2)))
			}
		}
	}
	want := map[int64][]string{
		f.owner60: {"03 600.00", "04 307.20"}, // 300.00 + 6.00 + 1.20
		f.owner40: {"03 400.00", "04 204.80"}, // 200.00 + 4.00 + 0.80
	}
	for owner, w := range want {
		if !slices.Equal(got[owner], w) {
			t.Errorf("owner %d's rent by month %v, want %v", owner, got[owner], w)
		}
	}
}

// TestPartlyPaidRefundAndWriteOff: a refund of a partially paid invoice
// keeps it partially_paid; its write-off books the loss of the rest only
// and, undone, leaves it partially_paid again; and the undo of its latest
// part reverses the refund with it.
func TestPartlyPaidRefundAndWriteOff(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	sc := storage.Scope{CompanyID: f.company}
	loss := int64(0)
	if err := f.pool.QueryRow(ctx, `INSERT INTO transaction_items (company_id, description, debit, credit, type)
		VALUES ($1, 'Perda', 'business', 'customer', 'default') RETURNING id`, f.company).Scan(&loss); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `UPDATE companies SET write_off_item_id = $2 WHERE id = $1`, f.company, loss); err != nil {
		t.Fatal(err)
	}
	inv := f.partInvoice(t, "2024-03-10")
	part, err := f.payPart(t, inv, "1000.00", "2024-03-10", "")
	if err != nil {
		t.Fatal(err)
	}
	refund, err := storage.RefundInvoice(ctx, f.pool, sc, inv, storage.RefundRequest{Amount: decimal.RequireFromString("100.00"),
		Date: finance.MustDate("2024-03-15"), Reason: "cobrado a mais"})
	if err != nil {
		t.Fatal(err)
	}
	if refund.Status != "partially_paid" || refund.Split != fmt.Sprintf("invoice-%d-payment-1-refund-1", inv) ||
		refund.RefundedAmount.String() != "100.00" {
		t.Fatalf("the refund: %+v", refund)
	}
	off, err := storage.WriteOffInvoice(ctx, f.pool, sc, inv, storage.WriteOffRequest{Date: finance.MustDate("2024-06-01"), Reason: "inadimplente"})
	if err != nil {
		t.Fatal(err)
	}
	if off.Status != "uncollectible" || off.Amount.String() != "500.00" || len(off.Entries) != 2 ||
		off.Entries[0].Amount.String() != "500.00" {
		t.Fatalf("the write-off: %+v", off)
	}
	reg := storage.DefaultRegistry()
	if _, err := storage.NewStore(f.pool, reg).Update(ctx, reg.MustResource(storage.Invoices), sc, inv,
		storage.Write{Values: map[string]any{"status": "unpaid"}}); err != nil {
		t.Fatal(err)
	}
	if got := f.partState(t, inv); !strings.HasPrefix(got, "partially_paid false 1000.00") {
		t.Fatalf("the write-off undone: %q", got)
	}
	if _, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, part.ID, ""); err != nil {
		t.Fatal(err)
	}
	if got := f.partState(t, inv); got != "unpaid false null null null null balance 1500.00 " {
		t.Fatalf("the part undone: %q", got)
	}
	for name, b := range f.balances(slices.DeleteFunc(f.entries(t, inv), func(r ledgerRow) bool { return r.split == "" })) {
		if b != "0.00" {
			t.Errorf("%s: %s once the part, its refund and the write-off are undone", name, b)
		}
	}
}

// TestGuaranteedTransferOfAPartlyPaidInvoice: the owners of an invoice
// partly paid before its guarantee's release are paid out the part, then
// advanced the rest's share only, and the rest's payment settles what was
// advanced: nothing is paid twice, and each owner is paid in all what the
// worked example's two parts bring them (817.20 and 544.80).
func TestGuaranteedTransferOfAPartlyPaidInvoice(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, `transfer_mode = 'after_receive', transfer_after_days = 0, guaranteed_transfer = true,
		guaranteed_transfer_release_after_days = 5`)
	inv := f.partInvoice(t, "2024-03-10")
	if _, err := f.payPart(t, inv, "1000.00", "2024-03-10", ""); err != nil {
		t.Fatal(err)
	}
	if s := f.transfer(t, "2024-03-10", 1); s.Transfers != 2 || s.Guarantees != 0 {
		t.Errorf("the part's night: %+v", s)
	}
	s := f.transfer(t, "2024-03-15", 1)
	if s.Guarantees != 1 || s.Guaranteed.String() != "450.00" || s.Transfers != 2 {
		t.Errorf("the release: %+v", s)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "-350.00",
		"payer": "-1000.00"})
	if _, err := f.payPart(t, inv, "512.00", "2024-03-22", ""); err != nil {
		t.Fatal(err)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "7.20", "owner40": "4.80", "business": "150.00",
		"payer": "-1512.00"})
	if s := f.transfer(t, "2024-03-22", 1); s.Transfers != 2 {
		t.Errorf("the rest's night: %+v", s)
	}
	checkStrings(t, "transfers", f.transfers(t), []string{
		"owner60 540.00 2024-03-10 2024-03-10 2",
		"owner40 360.00 2024-03-10 2024-03-10 2",
		"owner60 270.00 2024-03-15 2024-03-15 1",
		"owner40 180.00 2024-03-15 2024-03-15 1",
		"owner60 7.20 2024-03-22 2024-03-22 5", // rent, fee, late fee, interest, the guarantee settled
		"owner40 4.80 2024-03-22 2024-03-22 5",
	})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "150.00",
		"payer": "-1512.00"})
}

// TestReportedPartsOfAnInvoice: a bank's return paying the worked
// example's invoice short books a part (short_paid, the rest open); a
// later line paying less than the rest books another; one paying more
// than what is left settles it (the difference recorded), and the parts'
// entries are the whole posting's lines.
func TestReportedPartsOfAnInvoice(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	inv := f.partInvoice(t, "2024-03-10")
	pay := func(paid, on string) storage.SettledPayment {
		t.Helper()
		return f.settleReported(t, storage.ReportedPayment{InvoiceID: inv, PaidAt: finance.MustDate(on),
			Paid: decimal.RequireFromString(paid)})[0]
	}
	first := pay("1000.00", "2024-03-10")
	if first.Outcome != storage.PaymentShortPaid || first.N != 1 || first.Rest.StringFixed(2) != "500.00" ||
		first.Expected.StringFixed(2) != "1500.00" || first.Difference.StringFixed(2) != "-500.00" ||
		!strings.Contains(first.Problem, "booked as part 1 of the invoice (principal 1000.00, late fee 0.00, interest 0.00): "+
			"500.00 of its total is still open") {
		t.Fatalf("the short line: %+v", first)
	}
	if got, want := f.partState(t, inv), "partially_paid false 1000.00 0.00 0.00 null balance 500.00 "; got != want {
		t.Fatalf("after the short line: %q, want %q", got, want)
	}
	// 12 days late the rest owes 512.00: 256.00 pays 250.00 of it, 5.00 and 1.00
	second := pay("256.00", "2024-03-22")
	if second.Outcome != storage.PaymentShortPaid || second.N != 2 || second.Rest.StringFixed(2) != "250.00" ||
		second.LateFee.StringFixed(2) != "5.00" || second.Interest.StringFixed(2) != "1.00" {
		t.Fatalf("the second line: %+v", second)
	}
	if before := pay("10.00", "2024-03-21"); before.Outcome != storage.PaymentNotSettled ||
		!strings.Contains(before.Problem, "before 2024-03-22, the day of the invoice's latest part") {
		t.Fatalf("a line paid before the latest part: %+v", before)
	}
	// on the same day 250.00 + 5.00 + 1.00 is due: 260.00 settles it, 4.00 more recorded
	last := pay("260.00", "2024-03-22")
	if last.Outcome != storage.PaymentSettled || last.N != 3 || last.Booked.StringFixed(2) != "256.00" ||
		last.Difference.StringFixed(2) != "4.00" {
		t.Fatalf("the last line: %+v", last)
	}
	if got := f.partState(t, inv); !strings.HasPrefix(got, "paid true 1512.00 10.00 2.00 2024-03-22 balance 0.00") {
		t.Fatalf("paid: %q", got)
	}
	rows := f.entries(t, inv)
	checkBalanced(t, rows)
	if got, want := f.balances(rows), map[string]string{"payer": "-1512.00", "owner60": "817.20", "owner40": "544.80",
		"business": "150.00"}; !maps2Equal(got, want) {
		t.Fatalf("balances %v, want %v", got, want)
	}
	if again := pay("1.00", "2024-03-23"); again.Outcome != storage.PaymentAlreadyPaid {
		t.Fatalf("a line after it is paid: %+v", again)
	}
}

// TestUndoPartPaidOut: a part the run paid out and undone since, the
// first part standing, leaves the owners owing what they were paid: the
// invoice's auto_transfer_status is chargeback, as a whole payment's
// undo makes it, and transferred again once the rest is paid.
func TestUndoPartPaidOut(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	f.setContract(t, `transfer_mode = 'after_receive', transfer_after_days = 0`)
	inv := f.partInvoice(t, "2024-03-10")
	if _, err := f.payPart(t, inv, "1000.00", "2024-03-10", ""); err != nil {
		t.Fatal(err)
	}
	second, err := f.payPart(t, inv, "300.00", "2024-03-10", "")
	if err != nil {
		t.Fatal(err)
	}
	f.transfer(t, "2024-03-10", 1)
	f.checkStatus(t, "paid out", inv, finance.AutoTransferTransferred)
	if _, err := storage.UndoInvoicePart(context.Background(), f.pool, storage.Scope{CompanyID: f.company}, inv, second.ID, ""); err != nil {
		t.Fatal(err)
	}
	f.checkStatus(t, "the second part undone", inv, finance.AutoTransferChargeback)
	if _, err := f.payPart(t, inv, "500.00", "2024-03-10", ""); err != nil {
		t.Fatal(err)
	}
	f.checkStatus(t, "the rest paid", inv, finance.AutoTransferWaiting)
}

// TestUndoPartsOfAProtestedInvoice: an invoice in protest paid in parts
// goes back in protest when its last part is undone (the status it had
// before its first part, read from its history), partially_paid while a
// part is left; an unpaid one goes back unpaid.
func TestUndoPartsOfAProtestedInvoice(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	sc := storage.Scope{CompanyID: f.company}
	// after: stored; read: as the answer reads it (an unpaid invoice past due reads overdue)
	for _, c := range []struct{ before, after, read string }{{"in_protest", "in_protest", "in_protest"}, {"unpaid", "unpaid", "overdue"}} {
		inv := f.partInvoice(t, "2024-03-10")
		f.exec(t, `UPDATE invoices SET status = $3 WHERE company_id = $1 AND id = $2`, inv, c.before)
		first, err := f.payPart(t, inv, "1000.00", "2024-03-10", "")
		if err != nil {
			t.Fatal(err)
		}
		second, err := f.payPart(t, inv, "200.00", "2024-03-12", "")
		if err != nil {
			t.Fatal(err)
		}
		if u, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, second.ID, ""); err != nil || u.Invoice.Status != "partially_paid" {
			t.Fatalf("%s: the second part undone: %+v, %v", c.before, u, err)
		}
		u, err := storage.UndoInvoicePart(ctx, f.pool, sc, inv, first.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if u.Invoice.Status != c.read || u.Invoice.Balance.String() != "1500.00" {
			t.Errorf("%s: the last part undone: status %s, balance %s; want %s, 1500.00", c.before, u.Invoice.Status,
				u.Invoice.Balance, c.read)
		}
		if got, want := f.partState(t, inv), c.after+" false null null null null balance 1500.00 "; got != want {
			t.Errorf("%s: after the undo %q, want %q", c.before, got, want)
		}
	}
}

// TestGuaranteeAfterAPartUndone: the worked example under a guaranteed
// transfer (5 release days): part 1 of 1,000.00 paid out 540.00 / 360.00,
// the release advances the rest's share, 270.00 / 180.00; part 1 undone,
// the next run advances its share too, 540.00 / 360.00 (the owners
// guaranteed 810.00 / 540.00 in all, what the whole invoice gives them),
// once; the tenant then paying the whole settles both guarantees.
func TestGuaranteeAfterAPartUndone(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	ctx := context.Background()
	f.setContract(t, `transfer_mode = 'after_receive', transfer_after_days = 0, guaranteed_transfer = true,
		guaranteed_transfer_release_after_days = 5`)
	inv := f.partInvoice(t, "2024-03-10")
	first, err := f.payPart(t, inv, "1000.00", "2024-03-10", "")
	if err != nil {
		t.Fatal(err)
	}
	f.transfer(t, "2024-03-10", 1)
	if s := f.transfer(t, "2024-03-15", 1); s.Guaranteed.String() != "450.00" {
		t.Fatalf("the release: %+v", s)
	}
	if _, err := storage.UndoInvoicePart(ctx, f.pool, storage.Scope{CompanyID: f.company}, inv, first.ID, ""); err != nil {
		t.Fatal(err)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "-540.00", "owner40": "-360.00", "business": "-450.00",
		"payer": "0.00"})
	if s := f.transfer(t, "2024-03-16", 1); s.Guarantees != 1 || s.Guaranteed.String() != "900.00" {
		t.Errorf("the night after the undo: %+v", s)
	}
	if s := f.transfer(t, "2024-03-17", 1); s.Guarantees != 0 || s.Transfers != 0 {
		t.Errorf("the night after: %+v", s)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "-1350.00",
		"payer": "0.00"})
	if _, err := f.payPart(t, inv, "1500.00", "2024-03-10", ""); err != nil {
		t.Fatal(err)
	}
	checkStatements(t, f.statements(t), map[string]string{"owner60": "0.00", "owner40": "0.00", "business": "150.00",
		"payer": "-1500.00"})
}
