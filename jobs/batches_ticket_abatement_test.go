package jobs

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
)

// abated gives the first title's paid line of a Bradesco CNAB 400 return
// (bradescoReturnOf) an abatement (228-240) of abatement cents, the paid
// amount (254-266) lowered by as much.
func abated(abatement int64) func([]byte) []byte {
	return func(ret []byte) []byte {
		lines := bytes.Split(ret, []byte("\r\n"))
		l := lines[1]
		var paid int64
		fmt.Sscanf(string(l[253:266]), "%d", &paid)
		copy(l[227:], fmt.Sprintf("%013d", abatement))
		copy(l[253:], fmt.Sprintf("%013d", paid-abatement))
		return bytes.Join(lines, []byte("\r\n"))
	}
}

// TestReturnAbatementBooked: a paid line with an abatement (a reduction
// the beneficiary granted at the bank) on an invoice that names nobody to
// bear a punctuality discount (no ticket_discount_action) is settled, the
// abatement booked with the company's discount item as "Abatimento
// concedido no banco", a debit of the business, and the line says so.
func TestReturnAbatementBooked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rs := newReturnSetup(t, 1, 0, abated(10000))
	if _, err := rs.pool.Exec(ctx, `INSERT INTO transaction_items (company_id, description, debit, credit, type)
		VALUES ($1, 'Desconto', 'owner', 'customer', 'discount')`, rs.company); err != nil {
		t.Fatal(err)
	}
	_, report := runReturnFile(t, rs, rs.file)
	var line *storage.ReturnLine
	for i := range report {
		if report[i].Line == 2 { // the first title's
			line = &report[i]
		}
	}
	if line == nil {
		t.Fatalf("no line 2 in %+v", report)
	}
	if line.Outcome != storage.PaymentSettled ||
		!strings.Contains(line.Message, "discount 100.00 (of which 100.00 the abatement granted at the bank, borne by the business)") {
		t.Fatalf("line %s: %q", line.Outcome, line.Message)
	}
	var got string
	if err := rs.pool.QueryRow(ctx, `SELECT string_agg(concat_ws(' ', t.type, t.extract, t.amount, t.description), '; ' ORDER BY t.id)
		FROM transactions t JOIN transaction_items i ON i.company_id = t.company_id AND i.id = t.item_id AND i.type = 'discount'
		WHERE t.company_id = $1 AND t.invoice_id = $2`, rs.company, rs.invoices[0]).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "debit business 100.00 Abatimento concedido no banco; credit customer 100.00 Abatimento concedido no banco"; got != want {
		t.Errorf("abatement entries %q, want %q", got, want)
	}
	var status string
	if err := rs.pool.QueryRow(ctx, `SELECT status FROM invoices WHERE company_id = $1 AND id = $2`, rs.company,
		rs.invoices[0]).Scan(&status); err != nil || status != "paid" {
		t.Errorf("invoice %s (%v)", status, err)
	}
}

// TestReturnUnbookablePaymentAlerted: a paid line the rules cannot book
// as the company stands (an abatement and no discount item to book it
// with) is not settled, in words saying what to do, and the money the
// bank credited is raised as an over_payment alert naming the invoice.
func TestReturnUnbookablePaymentAlerted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rs := newReturnSetup(t, 1, 0, abated(10000))
	_, report := runReturnFile(t, rs, rs.file)
	var line *storage.ReturnLine
	for i := range report {
		if report[i].Line == 2 {
			line = &report[i]
		}
	}
	if line == nil {
		t.Fatalf("no line 2 in %+v", report)
	}
	want := fmt.Sprintf("cannot be booked as the invoice stands (paid: the bank reports an abatement of 100.00, but the company has "+
		"no active transaction item of type discount to book it): correct the invoice or the company's transaction items, then "+
		"record the payment by hand (POST /invoices/%d/payments); nothing was booked (an operator alert is raised)", rs.invoices[0])
	if line.Outcome != storage.PaymentNotSettled || !strings.Contains(line.Message, want) || strings.Contains(line.Message, "invalid input") {
		t.Fatalf("line %s: %q, want %q", line.Outcome, line.Message, want)
	}
	var alerts int
	if err := rs.pool.QueryRow(ctx, `SELECT count(*) FROM operator_alerts WHERE company_id = $1 AND kind = 'over_payment'
		AND invoice_id = $2 AND message LIKE '%' || $3 || '%'`, rs.company, rs.invoices[0], want).Scan(&alerts); err != nil {
		t.Fatal(err)
	}
	if alerts != 1 {
		t.Errorf("%d over_payment alerts with the line's words, want 1", alerts)
	}
}
