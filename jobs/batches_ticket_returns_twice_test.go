package jobs

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
)

// editRecords rewrites the records of a CNAB 400 return (400 bytes and
// CR LF each): edit gets the header, the details and the trailer and
// answers them as they are to be; the records are numbered again
// (395-400).
func editRecords(edit func(recs [][]byte) [][]byte) func([]byte) []byte {
	return func(ret []byte) []byte {
		const width = 402
		var recs [][]byte
		for i := 0; i+width <= len(ret); i += width {
			recs = append(recs, bytes.Clone(ret[i:i+400]))
		}
		recs = edit(recs)
		var out []byte
		for n, r := range recs {
			copy(r[394:], fmt.Sprintf("%06d", n+1))
			out = append(append(out, r...), "\r\n"...)
		}
		return out
	}
}

// shortAndTariff makes the first title's line (record 2) pay 600.00 and
// nothing else (a part of its 1,001.00), gives the second title's line a
// tariff of 2.10, and repeats that line before the trailer (the bank
// reporting the payment twice: already_paid, its tariff booked as a line
// of its own).
func shortAndTariff(recs [][]byte) [][]byte {
	copy(recs[1][253:], fmt.Sprintf("%013d%013d", 60000, 0))
	copy(recs[2][175:], fmt.Sprintf("%013d", 210))
	trailer := recs[len(recs)-1]
	return append(append(recs[:len(recs)-1], bytes.Clone(recs[2])), trailer)
}

// bookedState is what the company's books say of the setup's invoices,
// to the cent: per invoice its status, paid_amount and payment rows
// (number and amount), then the ledger's entries (how many, the tariffs'
// total, the owners' credits less debits) and the alerts.
func bookedState(t *testing.T, rs *returnSetup) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, inv := range rs.invoices {
		var status, paid, parts string
		if err := rs.pool.QueryRow(ctx, `SELECT i.status, coalesce(i.paid_amount::text, '-'),
			    coalesce((SELECT string_agg(p.n || ':' || p.amount::text, ',' ORDER BY p.n) FROM invoice_payments p
			              WHERE p.company_id = i.company_id AND p.invoice_id = i.id AND p.undone_at IS NULL), '')
			FROM invoices i WHERE i.company_id = $1 AND i.id = $2`, rs.company, inv).Scan(&status, &paid, &parts); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "invoice %s paid %s parts [%s]; ", status, paid, parts)
	}
	var entries int
	var tariffs, owners string
	if err := rs.pool.QueryRow(ctx, `SELECT count(*),
		    coalesce(sum(t.amount) FILTER (WHERE it.type = 'tariff'), 0)::text,
		    coalesce(sum(CASE t.type WHEN 'credit' THEN t.amount ELSE -t.amount END) FILTER (WHERE t.extract = 'owner'), 0)::text
		FROM transactions t LEFT JOIN transaction_items it ON it.company_id = t.company_id AND it.id = t.item_id
		WHERE t.company_id = $1`, rs.company).Scan(&entries, &tariffs, &owners); err != nil {
		t.Fatal(err)
	}
	var alerts string
	if err := rs.pool.QueryRow(ctx, `SELECT coalesce(string_agg(kind, ',' ORDER BY kind), '') FROM operator_alerts
		WHERE company_id = $1 AND kind IN ('short_payment', 'over_payment')`, rs.company).Scan(&alerts); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "entries %d, tariffs %s, owners %s; alerts %s", entries, tariffs, owners, alerts)
	return b.String()
}

// firstReading is the books after the first reading of shortAndTariff's
// file: the first invoice partly paid 600.00 (one part), the second paid
// once with its 2.10 tariff in its payment and the repeated line's 2.10
// booked on its own, the third paid 1,003.00; the owner (100 %) credited
// 600.00 + 1,002.00 + 1,003.00; eight entries (the payer's debit and the
// owner's credit of each payment, the two tariffs).
const firstReading = "invoice partially_paid paid 600.00 parts [1:600.00]; invoice paid paid 1002.00 parts [1:1002.00]; " +
	"invoice paid paid 1003.00 parts [1:1003.00]; entries 8, tariffs 4.20, owners 2605.00; alerts over_payment,short_payment"

// bookedJob is the job whose reading of a stored file recorded its lines.
func bookedJob(t *testing.T, rs *returnSetup, file *storage.ReturnFile) int64 {
	t.Helper()
	return rs.scalar(t, fmt.Sprintf(`SELECT max(job_id) FROM batch_return_lines WHERE company_id = $1 AND file_id = %d`, file.ID))
}

// assertBookedBy checks that every line of a second reading is a
// duplicate naming the job whose reading booked it.
func assertBookedBy(t *testing.T, outcomes map[string]int, report []storage.ReturnLine, job int64) {
	t.Helper()
	if want := map[string]int{"duplicate": 4}; fmt.Sprint(outcomes) != fmt.Sprint(want) {
		t.Errorf("the second reading: outcomes %v, want %v", outcomes, want)
	}
	for _, l := range report {
		if want := fmt.Sprintf("booked by job %d's reading of this file: nothing was done (06 ", job); l.Outcome != storage.OutcomeDuplicate ||
			!strings.HasPrefix(l.Message, want) {
			t.Errorf("line %d read again: %s %q, want a duplicate saying %q", l.Line, l.Outcome, l.Message, want)
		}
	}
}

// TestSameContentReadTwiceBooksOnce: the same bytes read by two jobs (a
// copy stored for the account named, to settle lines a first reading
// found ambiguous) book every line once: a short payment's part, a
// payment with its tariff, the tariff of a line of an invoice paid
// already and its over_payment alert are not booked again; each line of
// the second reading is a duplicate naming the job that booked it.
//   - read without account_id, then with it (a new stored copy);
//   - read with account_id, then without: the upload answers the first
//     copy (the same job); a copy stored without account apart (as
//     uploads stored before kept them) is read as a second reading.
func TestSameContentReadTwiceBooksOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setup := func(t *testing.T) (*returnSetup, int64) {
		rs := newReturnSetup(t, 3, 0, editRecords(shortAndTariff))
		rs.scalar(t, `INSERT INTO transaction_items (company_id, description, debit, type, active)
			VALUES ($1, 'Tarifa bancária', 'business', 'tariff', true) RETURNING id`)
		return rs, rs.scalar(t, `SELECT id FROM accounts WHERE company_id = $1`)
	}
	t.Run("without then with account_id", func(t *testing.T) {
		t.Parallel()
		rs, account := setup(t)
		outcomes, _ := runReturnFile(t, rs, rs.file)
		if want := map[string]int{"short_paid": 1, "settled": 2, "already_paid": 1}; fmt.Sprint(outcomes) != fmt.Sprint(want) {
			t.Fatalf("the first reading: outcomes %v, want %v", outcomes, want)
		}
		if got := bookedState(t, rs); got != firstReading {
			t.Fatalf("after the first reading:\n%s\nwant\n%s", got, firstReading)
		}
		again, existed, err := storage.SaveReturnFile(ctx, rs.pool, storage.TicketBatch, rs.company, "RETORNO.RET", account, rs.file.Content)
		if err != nil || existed || again.ID == rs.file.ID {
			t.Fatalf("the copy for the account: %v, existed %v, file %d", err, existed, again.ID)
		}
		outcomes, report := runReturnFile(t, rs, again)
		assertBookedBy(t, outcomes, report, bookedJob(t, rs, rs.file))
		if got := bookedState(t, rs); got != firstReading {
			t.Errorf("after the second reading:\n%s\nwant as after the first\n%s", got, firstReading)
		}
	})
	t.Run("with then without account_id", func(t *testing.T) {
		t.Parallel()
		rs, account := setup(t)
		first, _, err := storage.SaveReturnFile(ctx, rs.pool, storage.TicketBatch, rs.company, "retorno.ret", account, rs.file.Content)
		if err != nil {
			t.Fatal(err)
		}
		// rs.file, stored by the setup without account, is the older copy:
		// the first reading is of the account's
		if outcomes, _ := runReturnFile(t, rs, first); fmt.Sprint(outcomes) != fmt.Sprint(map[string]int{"short_paid": 1, "settled": 2, "already_paid": 1}) {
			t.Fatalf("the first reading: outcomes %v", outcomes)
		}
		if got := bookedState(t, rs); got != firstReading {
			t.Fatalf("after the first reading:\n%s\nwant\n%s", got, firstReading)
		}
		outcomes, report := runReturnFile(t, rs, rs.file)
		assertBookedBy(t, outcomes, report, bookedJob(t, rs, first))
		if got := bookedState(t, rs); got != firstReading {
			t.Errorf("after the second reading:\n%s\nwant as after the first\n%s", got, firstReading)
		}
	})
}

// TestTitleLinesInTheirOrder: the lines of one title in one file act in
// their order, each on the state the earlier ones left: an entry
// confirmed (02) and then a write-off (09) of the second title leave it
// written off (its batch member written_off, the invoice no longer
// registered); an entry confirmed and then a rejection (03) of the third
// is a registered title's instruction refused (recorded), as it is when
// the two come in two files.
func TestTitleLinesInTheirOrder(t *testing.T) {
	t.Parallel()
	rs := newReturnSetup(t, 3, 0, editRecords(func(recs [][]byte) [][]byte {
		second, third := recs[2], recs[3]
		off, rej := bytes.Clone(second), bytes.Clone(third)
		copy(second[108:], "02")
		copy(off[108:], "09")
		copy(third[108:], "02")
		copy(rej[108:], "03")
		trailer := recs[len(recs)-1]
		return append(append(recs[:len(recs)-1], off, rej), trailer)
	}))
	outcomes, report := runReturnFile(t, rs, rs.file)
	if want := map[string]int{"settled": 1, "registered": 2, "written_off": 1, "recorded": 1}; fmt.Sprint(outcomes) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	var got []string
	for _, l := range report {
		got = append(got, l.Code+" "+l.Outcome)
	}
	if want := "06 settled, 02 registered, 02 registered, 09 written_off, 03 recorded"; strings.Join(got, ", ") != want {
		t.Errorf("lines %s, want %s", strings.Join(got, ", "), want)
	}
	if l := report[4]; !strings.HasPrefix(l.Message, "an instruction refused: 03 ") {
		t.Errorf("the rejection after the entry: %q", l.Message)
	}
	state := func(inv int64) string {
		var s string
		if err := rs.pool.QueryRow(context.Background(), `SELECT m.state || ' ' || i.ticket_registered FROM ticket_batch_invoices m
			JOIN invoices i ON i.company_id = m.company_id AND i.id = m.invoice_id
			WHERE m.company_id = $1 AND m.invoice_id = $2`, rs.company, inv).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := state(rs.invoices[1]); got != "written_off false" {
		t.Errorf("the title confirmed and written off: %s, want written_off false", got)
	}
	if got := state(rs.invoices[2]); got != "added true" {
		t.Errorf("the title confirmed and then refused an instruction: %s, want added true", got)
	}
}
