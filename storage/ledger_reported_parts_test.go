package storage_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// paidOn is a payment of inv as a bank reports it, paid and credited on.
func paidOn(inv int64, paid, on string) storage.ReportedPayment {
	return storage.ReportedPayment{InvoiceID: inv, PaidAt: finance.MustDate(on), CreditAt: finance.MustDate(on),
		Paid: decimal.RequireFromString(paid)}
}

// TestShortInstallmentBooksNothing: an agreement's installment is paid
// whole, so a return file's line paying it 300.00 short books nothing
// (short_paid, no payment), and cancelling the agreement afterwards leaves
// no entry of the installment standing: the tenant does not owe the
// 300.00 twice.
func TestShortInstallmentBooksNothing(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	run, _ := f.agreementOf(t, 2)
	in := run.Installments[0]
	today := f.today(t).String()
	out := f.settleReported(t, paidOn(in.ID, in.Invoice.Total.Sub(decimal.RequireFromString("300.00")).String(), today))[0]
	if out.Outcome != storage.PaymentShortPaid || out.N != 0 || !out.Booked.IsZero() ||
		!strings.Contains(out.Problem, "300.00 less than the") ||
		!strings.Contains(out.Problem, "an installment of an agreement, paid whole and not in parts: nothing was booked") {
		t.Fatalf("the short installment: %+v", out)
	}
	if rows := f.entries(t, in.ID); len(rows) != 0 {
		t.Fatalf("the short installment booked %d entries", len(rows))
	}
	var status string
	var paid *string
	var parts int
	if err := f.pool.QueryRow(context.Background(), `SELECT status, paid_amount::text, (SELECT count(*) FROM invoice_payments p
		WHERE p.company_id = i.company_id AND p.invoice_id = i.id) FROM invoices i WHERE company_id = $1 AND id = $2`,
		f.company, in.ID).Scan(&status, &paid, &parts); err != nil {
		t.Fatal(err)
	}
	if status == "partially_paid" || paid != nil || parts != 0 {
		t.Fatalf("the installment: %s, paid %v, %d payments", status, paid, parts)
	}
	if err := storage.CancelAgreement(context.Background(), f.pool, storage.Scope{CompanyID: f.company}, run.ID); err != nil {
		t.Fatal(err)
	}
	if b := f.balances(f.allEntries(t)); b["payer"] != "" && b["payer"] != "0.00" {
		t.Errorf("after the cancellation the payer owes %s on the ledger, want nothing", b["payer"])
	}
}

// TestReportedOverPayments: money a line brings beyond what it books is
// named (Unbooked), for the over_payment alert: a bank paying the whole
// slip of the worked example after a part of 1,000.00 paid by hand books
// the rest, 500.00, and 1,000.00 nowhere; a line on an invoice paid
// already books nothing of its 1,500.00; a line paying more than the
// bank's own parts books them, the rest nowhere.
func TestReportedOverPayments(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	inv := f.partInvoice(t, "2024-03-10")
	if _, err := f.payPart(t, inv, "1000.00", "2024-03-10", ""); err != nil {
		t.Fatal(err)
	}
	rest := f.settleReported(t, paidOn(inv, "1500.00", "2024-03-10"))[0]
	if rest.Outcome != storage.PaymentSettled || !rest.OfRest || rest.N != 2 || rest.Booked.StringFixed(2) != "500.00" ||
		rest.Unbooked.StringFixed(2) != "1000.00" || rest.Difference.StringFixed(2) != "1000.00" {
		t.Fatalf("the whole slip after a part: %+v", rest)
	}
	if got := f.partState(t, inv); !strings.HasPrefix(got, "paid true 1500.00 0.00 0.00 2024-03-10 balance 0.00") {
		t.Fatalf("the invoice: %q", got)
	}
	again := paidOn(inv, "1500.00", "2024-03-11")
	again.Tariff = decimal.RequireFromString("2.50")
	paid := f.settleReported(t, again)[0]
	if paid.Outcome != storage.PaymentAlreadyPaid || paid.Unbooked.StringFixed(2) != "1500.00" ||
		paid.Tariff.StringFixed(2) != "2.50" {
		t.Fatalf("a line of an invoice paid: %+v", paid)
	}
	whole := f.partInvoice(t, "2024-03-10")
	more := f.settleReported(t, paidOn(whole, "1510.00", "2024-03-10"))[0]
	if more.Outcome != storage.PaymentSettled || more.OfRest || more.Booked.StringFixed(2) != "1500.00" ||
		more.Unbooked.StringFixed(2) != "10.00" {
		t.Fatalf("a line paying more than its parts: %+v", more)
	}
}

// TestTwoLinesOfAnInvoiceInOneChunk: a short line and the rest's line of
// the same invoice in one call book as they would in two: part 1 of
// 1,000.00, then part 2 of the 500.00 left, the invoice paid.
func TestTwoLinesOfAnInvoiceInOneChunk(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	inv := f.partInvoice(t, "2024-03-10")
	other := f.partInvoice(t, "2024-03-10")
	out := f.settleReported(t, paidOn(inv, "1000.00", "2024-03-10"), paidOn(other, "1500.00", "2024-03-10"),
		paidOn(inv, "500.00", "2024-03-10"), paidOn(inv, "1.00", "2024-03-10"))
	if out[0].Outcome != storage.PaymentShortPaid || out[0].N != 1 || out[0].Rest.StringFixed(2) != "500.00" {
		t.Fatalf("the short line: %+v", out[0])
	}
	if out[1].Outcome != storage.PaymentSettled || out[1].N != 1 {
		t.Fatalf("the other invoice: %+v", out[1])
	}
	if out[2].Outcome != storage.PaymentSettled || out[2].N != 2 || out[2].Booked.StringFixed(2) != "500.00" ||
		!out[2].Unbooked.IsZero() {
		t.Fatalf("the rest's line: %+v", out[2])
	}
	if out[3].Outcome != storage.PaymentAlreadyPaid || out[3].Unbooked.StringFixed(2) != "1.00" {
		t.Fatalf("a third line: %+v", out[3])
	}
	if got := f.partState(t, inv); !strings.HasPrefix(got, "paid true 1500.00 0.00 0.00 2024-03-10 balance 0.00") {
		t.Fatalf("the invoice: %q", got)
	}
	rows := f.entries(t, inv)
	checkBalanced(t, rows)
	if got, want := f.balances(rows), map[string]string{"payer": "-1500.00", "owner60": "810.00", "owner40": "540.00",
		"business": "150.00"}; !maps2Equal(got, want) {
		t.Fatalf("balances %v, want %v", got, want)
	}
}

// TestBankChargesOfAFirstLine: a line paying less than the bank's parts
// but what the rules say is due settles the invoice with the bank's
// charges as far as what came in pays them. Six days late the rules owe
// 1,533.00 (late fee 30.00, interest 3.00); the bank reports a late fee of
// 40.00 (1,540.00) and 1,535.00 paid: the invoice is paid, 1,535.00 booked
// with a late fee of 35.00, nothing booked nowhere.
func TestBankChargesOfAFirstLine(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	inv := f.partInvoice(t, "2024-03-10")
	p := paidOn(inv, "1535.00", "2024-03-16")
	p.LateFee = decimal.RequireFromString("40.00")
	out := f.settleReported(t, p)[0]
	if out.Outcome != storage.PaymentSettled || out.Expected.StringFixed(2) != "1533.00" || out.Booked.StringFixed(2) != "1535.00" ||
		out.LateFee.StringFixed(2) != "35.00" || !out.Interest.IsZero() || !out.Unbooked.IsZero() {
		t.Fatalf("the line: %+v", out)
	}
	if got, want := f.partState(t, inv), "paid true 1535.00 35.00 0.00 2024-03-16 balance 0.00 late_fee 35.00 true Multa por atraso"; got != want {
		t.Fatalf("the invoice: %q, want %q", got, want)
	}
	rows := f.entries(t, inv)
	checkBalanced(t, rows)
	if b := f.balances(rows); b["payer"] != "-1535.00" {
		t.Fatalf("the payer's balance %s, want -1535.00", b["payer"])
	}
}

// TestShortLateLineWords: a first line paid short and late, the bank
// reporting no late fee, says what it is short of in the bank's words
// (the bank's parts, 1,500.00), so that its sentence does not contradict
// the rules' figure beside it (1,536.00 expected twelve days late, the
// worked example's): the part pays pro rata of what the rules say is due.
func TestShortLateLineWords(t *testing.T) {
	t.Parallel()
	f := newLedgerFixture(t)
	inv := f.partInvoice(t, "2024-03-10")
	out := f.settleReported(t, paidOn(inv, "1000.00", "2024-03-22"))[0]
	want := "the bank paid 1000.00 on 2024-03-22, 500.00 less than the 1500.00 the bank's parts add up to (the invoice 1500.00, " +
		"late fee 0.00, interest 0.00, discount 0.00); booked as part 1 of the invoice (principal 976.56, late fee 19.53, " +
		"interest 3.91): 523.44 of its total is still open"
	if out.Outcome != storage.PaymentShortPaid || out.Problem != want || out.Expected.StringFixed(2) != "1536.00" {
		t.Fatalf("the short late line: %s, expected %s\n%q\nwant\n%q", out.Outcome, out.Expected.StringFixed(2), out.Problem, want)
	}
}
