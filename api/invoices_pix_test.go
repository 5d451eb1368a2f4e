package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/propfin/propfin/pix"
)

// testPixCode is a valid static PIX payload with its check digit in lower
// case, as some banks send it.
func testPixCode(t *testing.T) (sent, stored string) {
	t.Helper()
	code, err := pix.BuildStatic(pix.Static{Key: "52998224725", Name: "Horizonte Imoveis", City: "Sao Paulo",
		Amount: "1000.00", TxID: "FAT2"})
	if err != nil {
		t.Fatal(err)
	}
	n := len(code) - 4
	sent = code[:n] + strings.ToLower(code[n:])
	if sent == code {
		t.Fatalf("the test payload's CRC %s has no letter; pick another payload", code[n:])
	}
	return sent, code
}

func TestPixCode(t *testing.T) {
	f := invoiceEnv(t)
	sent, stored := testPixCode(t)
	badCRC := stored[:len(stored)-4] + "0000"
	if badCRC == stored {
		badCRC = stored[:len(stored)-4] + "1111"
	}
	open := f.invoice(t, map[string]any{"billing_id": f.billing})
	noAmountOn := f.invoice(t, map[string]any{"billing_id": f.billing})
	otherAmount, err := pix.BuildStatic(pix.Static{Key: "52998224725", Name: "Horizonte Imoveis", City: "Sao Paulo", Amount: "10.00"})
	if err != nil {
		t.Fatal(err)
	}
	noAmount, err := pix.BuildStatic(pix.Static{Key: "52998224725", Name: "Horizonte Imoveis", City: "Sao Paulo"})
	if err != nil {
		t.Fatal(err)
	}
	manual := f.invoice(t, nil) // no billing linked
	settled := map[string]int64{}
	for _, status := range []string{"paid", "canceled", "refunded", "uncollectible", "renegotiated"} {
		id := f.invoice(t, map[string]any{"billing_id": f.billing})
		f.exec(t, `UPDATE invoices SET status = $3, paid = ($3 = 'paid'), paid_at = CASE WHEN $3 = 'paid' THEN date END
			WHERE company_id = $1 AND id = $2`, f.compA, id, status)
		settled[status] = id
	}
	cases := []struct {
		name    string
		id      int64
		key     string
		body    any
		status  int
		fields  []string // the problems' fields of a 422
		message string   // part of the message of a 409
	}{
		{"valid, check digit stored upper case", open, f.keyA, map[string]any{"pixCode": sent}, 200, nil, ""},
		{"bad check digit", open, f.keyA, map[string]any{"pixCode": badCRC}, 422, []string{"pixCode.crc"}, ""},
		{"too long", open, f.keyA, map[string]any{"pixCode": strings.Repeat("0", 513)}, 422, nil, ""},
		{"missing", open, f.keyA, map[string]any{}, 422, []string{"pixCode"}, ""},
		{"not a string", open, f.keyA, map[string]any{"pixCode": 12}, 422, []string{"pixCode"}, ""},
		{"unknown field", open, f.keyA, map[string]any{"pixCode": sent, "qr": 1}, 422, []string{"qr"}, ""},
		{"manual billing", manual, f.keyA, map[string]any{"pixCode": sent}, 409, nil, "no billing linked"},
		{"paid", settled["paid"], f.keyA, map[string]any{"pixCode": sent}, 409, nil, "is paid"},
		{"canceled", settled["canceled"], f.keyA, map[string]any{"pixCode": sent}, 409, nil, "is canceled"},
		{"refunded", settled["refunded"], f.keyA, map[string]any{"pixCode": sent}, 409, nil, "is refunded"},
		{"uncollectible", settled["uncollectible"], f.keyA, map[string]any{"pixCode": sent}, 409, nil, "is uncollectible"},
		{"renegotiated", settled["renegotiated"], f.keyA, map[string]any{"pixCode": sent}, 409, nil, "is renegotiated"},
		{"another company's invoice", open, f.keyB, map[string]any{"pixCode": sent}, 404, nil, ""},
		{"another amount than the total", open, f.keyA, map[string]any{"pixCode": otherAmount}, 422, []string{"pixCode.amount"}, ""},
		{"no amount: the payer types it", noAmountOn, f.keyA, map[string]any{"pixCode": noAmount}, 200, nil, ""},
	}
	for _, c := range cases {
		r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/pixCode", c.id), c.key, c.body)
		if r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.raw, c.status)
			continue
		}
		if c.status == 422 && c.fields != nil && !sameStrings(r.problemFields(t), c.fields) {
			t.Errorf("%s: problems %v, want %v", c.name, r.problemFields(t), c.fields)
		}
		if c.message != "" && !strings.Contains(r.raw, c.message) {
			t.Errorf("%s: %s does not say %q", c.name, r.raw, c.message)
		}
	}
	// only the valid payload was stored, once, with its origin in the history
	var code string
	if err := f.pool.QueryRow(t.Context(), `SELECT pix_code FROM invoices WHERE company_id = $1 AND id = $2`,
		f.compA, open).Scan(&code); err != nil {
		t.Fatal(err)
	}
	if code != stored {
		t.Errorf("stored %q, want %q (check digit in upper case)", code, stored)
	}
	for id, want := range map[int64]int64{open: 1, manual: 0, settled["paid"]: 0} {
		n := f.scalar(t, `SELECT count(*) FROM invoice_history WHERE company_id = $1 AND invoice_id = $2
			AND origin = 'pix_code' AND changes -> 0 ->> 'to' = $3`, f.compA, id, stored)
		if n != want {
			t.Errorf("invoice %d: %d pix_code history rows, want %d", id, n, want)
		}
	}
	if n := f.scalar(t, `SELECT count(*) FROM invoices WHERE pix_code IS NOT NULL`); n != 2 {
		t.Errorf("%d invoices hold a PIX code, want 2: a refused request stored one", n)
	}
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPixCodeEmitsInvoiceUpdated: a PIX code stored emits invoice.updated
// of its invoice, its data holding the code; the same code sent again
// changes nothing and emits nothing (nor writes a history row), and a
// refused code emits nothing.
func TestPixCodeEmitsInvoiceUpdated(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	sent, stored := testPixCode(t)
	open := f.invoice(t, map[string]any{"billing_id": f.billing})
	f.exec(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret) VALUES ($1, 'https://example.com/h', '{invoice.updated}', 'whsec_x')`, f.compA)
	_, last := f.eventsSince(t, 0)
	steps := []struct {
		name   string
		code   string
		status int
		want   []string
	}{
		{"stored", sent, 200, eventsOf("invoice.updated", open)},
		{"the same code again", stored, 200, nil},
		{"refused", stored[:len(stored)-4] + "0000", 422, nil},
	}
	for _, s := range steps {
		r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/pixCode", open), f.keyA, map[string]any{"pixCode": s.code})
		if r.status != s.status {
			t.Fatalf("%s: %d %s", s.name, r.status, r.raw)
		}
		var got []string
		got, last = f.eventsSince(t, last)
		if !sameStrings(got, s.want) {
			t.Errorf("%s: events %q, want %q", s.name, got, s.want)
		}
	}
	var code string
	if err := f.pool.QueryRow(t.Context(), `SELECT data->>'pix_code' FROM webhook_events WHERE company_id = $1`, f.compA).Scan(&code); err != nil {
		t.Fatal(err)
	}
	if code != stored {
		t.Errorf("the event's pix_code %q, want %q", code, stored)
	}
	if n := f.scalar(t, `SELECT count(*) FROM invoice_history WHERE company_id = $1 AND invoice_id = $2 AND origin = 'pix_code'`,
		f.compA, open); n != 1 {
		t.Errorf("%d pix_code history rows, want 1", n)
	}
}

// TestPixCodeOfAnOverdueInvoice: an invoice 15 days past due, with a 2 %
// late fee and 1 % a month of interest on its 1,000.00, owes 1,025.00
// today; a payload charging that is accepted, as one charging the total
// is, and one charging neither is refused naming both. A partly paid one
// accepts its rest, bare or with today's charges on it, the same way.
func TestPixCodeOfAnOverdueInvoice(t *testing.T) {
	f := invoiceEnv(t)
	code := func(amount string) string {
		c, err := pix.BuildStatic(pix.Static{Key: "52998224725", Name: "Horizonte Imoveis", City: "Sao Paulo", Amount: amount})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	overdue := func() int64 {
		return f.invoice(t, map[string]any{"billing_id": f.billing, "date": today(-20), "due_date": today(-15),
			"ticket_late_fee": true, "ticket_late_fee_percentage": "2.00", "ticket_late_fee_interest": "1.00"})
	}
	onTime := f.invoice(t, map[string]any{"billing_id": f.billing, "ticket_late_fee": true,
		"ticket_late_fee_percentage": "2.00", "ticket_late_fee_interest": "1.00"})
	// 410.00 paid today pays 400.00 of it (8.00 and 2.00 of charges): 600.00 + 12.00 + 3.00 due today
	partly := f.invoice(t, map[string]any{"billing_id": f.billing, "date": today(-20), "due_date": today(-15),
		"building_id": f.building, "ticket_late_fee": true, "ticket_late_fee_percentage": "2.00", "ticket_late_fee_interest": "1.00"})
	if r := f.payPart(t, partly, map[string]any{"amount": "410.00", "paid_at": today(0)}); r.status != http.StatusCreated {
		t.Fatalf("part: %d %s", r.status, r.raw)
	}
	cases := []struct {
		name   string
		id     int64
		amount string
		status int
		says   string
	}{
		{"overdue, what is due today", overdue(), "1025.00", http.StatusOK, ""},
		{"overdue, the total", overdue(), "1000.00", http.StatusOK, ""},
		{"overdue, neither", overdue(), "1010.00", http.StatusUnprocessableEntity,
			"the payload charges 1010.00 (field 54); accepted: the invoice's total, 1000.00, or 1025.00 due today (" + today(0) +
				", 15 days late: with late fee 20.00 and interest 5.00), or a code without an amount"},
		{"not yet due, more than the total", onTime, "1025.00", http.StatusUnprocessableEntity,
			"the payload charges 1025.00 (field 54); accepted: the invoice's total, 1000.00, or a code without an amount"},
		{"partly paid, what is due today for the rest", partly, "615.00", http.StatusOK, ""},
		// the bare rest, as an overdue invoice's bare total
		{"partly paid, the rest", partly, "600.00", http.StatusOK, ""},
		{"partly paid, the total", partly, "1000.00", http.StatusUnprocessableEntity,
			"the payload charges 1000.00 (field 54); accepted: the invoice's rest, 600.00 (it is partly paid: 400.00 of its total " +
				"1000.00 is paid), or 615.00 due today (" + today(0) + ", 15 days late: with late fee 12.00 and interest 3.00), " +
				"or a code without an amount"},
	}
	for _, c := range cases {
		r := f.do(t, http.MethodPost, fmt.Sprintf("/invoices/%d/pixCode", c.id), f.keyA, map[string]any{"pixCode": code(c.amount)})
		if r.status != c.status || !strings.Contains(r.raw, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, r.status, r.raw, c.status, c.says)
		}
		if c.status == http.StatusUnprocessableEntity && !sameStrings(r.problemFields(t), []string{"pixCode.amount"}) {
			t.Errorf("%s: problems %v", c.name, r.problemFields(t))
		}
	}
}
