package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// feeLines appends to a Bradesco CNAB 400 return (bradescoReturnOf), before
// its trailer, a detail of occurrence 28 (débito de tarifas/custas) per
// fee, at the manual's positions: nosso número and digit 71-82, the
// occurrence 109-110, its date 111-116, despesas de cobrança (the tariff)
// 176-188, the motivo 319-320; the lines numbered again (395-400).
func feeLines(fees ...bradescoFee) func([]byte) []byte {
	return func(ret []byte) []byte {
		const width = 402 // 400 and CR LF
		trailer := ret[len(ret)-width:]
		out := bytes.Clone(ret[:len(ret)-width])
		for _, f := range fees {
			l := bytes.Repeat([]byte{' '}, 400)
			l[0] = '1'
			copy(l[70:], f.nosso)
			copy(l[108:], "28")
			copy(l[110:], f.date.Format("020106"))
			copy(l[175:], fmt.Sprintf("%013d", f.tariff))
			copy(l[318:], "03")
			out = append(append(out, l...), "\r\n"...)
		}
		out = append(out, trailer...)
		for n := 1; n <= len(out)/width; n++ {
			copy(out[n*width-8:], fmt.Sprintf("%06d", n))
		}
		return out
	}
}

type bradescoFee struct {
	nosso  string // 71-82: the nosso número and its digit
	date   time.Time
	tariff int64
}

// runReturnFile runs a new batch:return job over a stored file and returns
// its result's outcomes and report.
func runReturnFile(t *testing.T, rs *returnSetup, file *storage.ReturnFile) (map[string]int, []storage.ReturnLine) {
	t.Helper()
	payload := BatchReturnPayload{Batch: "ticket", FileID: file.ID}
	out, err := runBatchReturn(context.Background(), benchStarted(t, rs.pool, rs.company, KindBatchReturn, payload), payload)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Outcomes map[string]int       `json:"outcomes"`
		Report   []storage.ReturnLine `json:"report"`
	}
	if err := json.Unmarshal(out.(json.RawMessage), &res); err != nil {
		t.Fatal(err)
	}
	return res.Outcomes, res.Report
}

// tariffEntry is a tariff entry as the ledger holds it.
type tariffEntry struct {
	id, account, business, item int64
	mode, typ, extract, amount  string
	date                        string
	paid, reversed              bool
	notes                       string
}

func tariffEntries(t *testing.T, rs *returnSetup) []tariffEntry {
	t.Helper()
	rows, err := rs.pool.Query(context.Background(), `
		SELECT t.id, t.account_id, t.business_id, t.item_id, t.mode, t.type, t.extract, t.amount::text, t.date::text, t.paid,
		       EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id), coalesce(t.notes, '')
		FROM transactions t WHERE t.company_id = $1 AND t.return_key IS NOT NULL ORDER BY t.id`, rs.company)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (tariffEntry, error) {
		var e tariffEntry
		err := row.Scan(&e.id, &e.account, &e.business, &e.item, &e.mode, &e.typ, &e.extract, &e.amount, &e.date, &e.paid,
			&e.reversed, &e.notes)
		return e, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFeeTariffsBooked: the tariffs a Bradesco return reports on lines
// of their own (occurrence 28, débito de tarifas) are booked through the
// batch:return job as the business's expense with the company's tariff
// item, once per line of the file's content:
//   - a fee line naming a title is booked on the title's account (the
//     line's member is the invoice), a fee line naming no title is booked
//     only when the file's account is known: with two accounts at the bank
//     and no account_id it is recorded, saying to name the account;
//   - a fee line without a tariff books nothing;
//   - the job run again books nothing again (its lines are duplicates),
//     and the same bytes uploaded with account_id book the line naming no
//     title on that account; the lines the first reading booked (the
//     payments, the fee line of the title) are duplicates naming its job;
//   - the entry is the business's (a debit on its statement, mode
//     transaction, paid, dated the day debited), and stays when the
//     title's payment is undone: it is no part of the payment.
func TestFeeTariffsBooked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	debited := time.Now().AddDate(0, 0, -2)
	var first string
	rs := newReturnSetup(t, 2, 0, func(ret []byte) []byte {
		first = string(ret[402+70 : 402+82]) // the first title's nosso número and digit
		return feeLines(
			bradescoFee{nosso: first, date: debited, tariff: 350},
			bradescoFee{nosso: "000000000000", date: debited, tariff: 1200},
			bradescoFee{nosso: first, date: debited, tariff: 0},
		)(ret)
	})
	var account, business int64
	if err := rs.pool.QueryRow(ctx, `SELECT id, business_id FROM accounts WHERE company_id = $1`, rs.company).Scan(&account, &business); err != nil {
		t.Fatal(err)
	}
	item := rs.scalar(t, `INSERT INTO transaction_items (company_id, description, debit, type, active)
		VALUES ($1, 'Tarifas Bradesco', 'business', 'tariff', true) RETURNING id`)
	rs.scalar(t, `INSERT INTO accounts (company_id, business_id, bank, layout, agency, agency_digit, account, account_digit,
		wallet, covenant) SELECT company_id, business_id, '237', 'cnab400', '4321', '0', '0054321', '1', '09', '00000000000007654321'
		FROM accounts WHERE company_id = $1 RETURNING id`)

	outcomes, report := runReturnFile(t, rs, rs.file)
	if want := map[string]int{"settled": 2, "tariff_booked": 1, "recorded": 2}; fmt.Sprint(outcomes) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	feeReport := report[len(report)-3:]
	if l := feeReport[0]; l.Outcome != OutcomeTariffBooked || l.Tariff == nil || l.Tariff.StringFixed(2) != "3.50" ||
		!strings.Contains(l.Message, "the bank's tariff 3.50 booked as the business's expense") {
		t.Errorf("the fee line of a title: %+v", l)
	}
	if l := feeReport[1]; l.Outcome != storage.OutcomeRecorded ||
		!strings.Contains(l.Message, "tariff 12.00 is not booked: the line names no title of one account, and the company has 2 accounts at bank 237: upload the file with account_id") {
		t.Errorf("the fee line of no title, two accounts: %+v", l)
	}
	if l := feeReport[2]; l.Outcome != storage.OutcomeRecorded || l.Tariff != nil {
		t.Errorf("the fee line without a tariff: %+v", l)
	}
	var member int64
	if err := rs.pool.QueryRow(ctx, `SELECT coalesce(member_id, 0) FROM batch_return_lines WHERE company_id = $1 AND file_id = $2 AND line = $3`,
		rs.company, rs.file.ID, feeReport[0].Line).Scan(&member); err != nil || member != rs.invoices[0] {
		t.Errorf("the fee line's member: %d (%v), want invoice %d", member, err, rs.invoices[0])
	}
	entries := tariffEntries(t, rs)
	day := debited.Format(time.DateOnly)
	want := tariffEntry{account: account, business: business, item: item, mode: "transaction", typ: "debit", extract: "business",
		amount: "3.50", date: day, paid: true}
	if len(entries) != 1 {
		t.Fatalf("tariff entries %+v, want one", entries)
	}
	got := entries[0]
	got.id, got.notes = 0, ""
	if got != want || !strings.Contains(entries[0].notes, fmt.Sprintf("return file %d, line %d: 28 ", rs.file.ID, feeReport[0].Line)) {
		t.Errorf("the tariff entry %+v (notes %q), want %+v", got, entries[0].notes, want)
	}

	// the same job again: every line read before
	if outcomes, _ := runReturnFile(t, rs, rs.file); fmt.Sprint(outcomes) != fmt.Sprint(map[string]int{"duplicate": 5}) {
		t.Errorf("the job again: %v", outcomes)
	}
	// the same bytes uploaded naming the account: the line of no title is
	// booked there, the line of the title is not booked again
	again, _, err := storage.SaveReturnFile(ctx, rs.pool, storage.TicketBatch, rs.company, "retorno.ret", account, rs.file.Content)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, report = runReturnFile(t, rs, again)
	if want := map[string]int{"duplicate": 3, "tariff_booked": 1, "recorded": 1}; fmt.Sprint(outcomes) != fmt.Sprint(want) {
		t.Errorf("the file for the account: outcomes %v, want %v", outcomes, want)
	}
	feeReport = report[len(report)-3:]
	if l := feeReport[0]; l.Outcome != storage.OutcomeDuplicate ||
		!strings.HasPrefix(l.Message, fmt.Sprintf("booked by job %d's reading of this file: nothing was done (28 ", bookedJob(t, rs, rs.file))) {
		t.Errorf("the fee line of a title, read again: %+v", l)
	}
	if l := feeReport[1]; l.Outcome != OutcomeTariffBooked || !strings.Contains(l.Message, "tariff 12.00 booked") {
		t.Errorf("the fee line of no title, for the account: %+v", l)
	}
	entries = tariffEntries(t, rs)
	if len(entries) != 2 || entries[1].amount != "12.00" || entries[1].account != account || entries[1].item != item {
		t.Fatalf("tariff entries %+v, want the 3.50 and the 12.00", entries)
	}

	// undoing the title's payment reverses the payment, not the fee
	if err := pgx.BeginFunc(ctx, rs.pool, func(tx pgx.Tx) error {
		return storage.UndoInvoicePayment(ctx, tx, rs.company, rs.invoices[0])
	}); err != nil {
		t.Fatal(err)
	}
	var open int
	if err := rs.pool.QueryRow(ctx, `SELECT count(*) FROM transactions t WHERE t.company_id = $1 AND t.invoice_id = $2 AND t.mode = 'invoice'
		AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)`,
		rs.company, rs.invoices[0]).Scan(&open); err != nil || open != 0 {
		t.Errorf("%d payment entries not reversed (%v)", open, err)
	}
	for _, e := range tariffEntries(t, rs) {
		if e.reversed {
			t.Errorf("tariff entry %d reversed with the payment", e.id)
		}
	}
}

// scalar runs a statement of the setup's company ($1) and returns its one
// integer.
func (rs *returnSetup) scalar(t *testing.T, sql string) int64 {
	t.Helper()
	var v int64
	if err := rs.pool.QueryRow(context.Background(), sql, rs.company).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// unmatchedLines appends to a Bradesco CNAB 400 return, before its
// trailer, a paid line (06) and a line of the payer's claims (29, class
// other) of numbers no title has, at the manual's positions: nosso número
// and digit 71-82, the occurrence 109-110, its date 111-116, valor do
// título 153-165, despesas de cobrança 176-188, desconto 241-253, valor
// pago 254-266, juros 267-279, data do crédito 296-301.
func unmatchedLines(day time.Time) func([]byte) []byte {
	return func(ret []byte) []byte {
		const width = 402 // 400 and CR LF
		trailer := ret[len(ret)-width:]
		out := bytes.Clone(ret[:len(ret)-width])
		for _, c := range []struct{ nosso, code string }{{"999999999990", "06"}, {"999999999980", "29"}} {
			l := bytes.Repeat([]byte{' '}, 400)
			l[0] = '1'
			copy(l[70:], c.nosso)
			copy(l[108:], c.code)
			copy(l[110:], day.Format("020106"))
			copy(l[152:], fmt.Sprintf("%013d", 38975))
			copy(l[175:], fmt.Sprintf("%013d", 333))
			copy(l[240:], fmt.Sprintf("%013d%013d%013d", 17645, 21330, 1234))
			copy(l[295:], day.Format("020106"))
			out = append(append(out, l...), "\r\n"...)
		}
		out = append(out, trailer...)
		for n := 1; n <= len(out)/width; n++ {
			copy(out[n*width-8:], fmt.Sprintf("%06d", n))
		}
		return out
	}
}

// TestUnmatchedLineAmounts: a paid line that matches no title gives in
// the report the money the bank reports on it (paid, credited, tariff,
// and the other amounts it has, its dates), so that it can be found; a
// line of another occurrence naming no title is unmatched too, not
// recorded; a settled line gives what was credited beside what was paid.
func TestUnmatchedLineAmounts(t *testing.T) {
	t.Parallel()
	day := time.Now().AddDate(0, 0, -1)
	rs := newReturnSetup(t, 1, 0, unmatchedLines(day))
	outcomes, report := runReturnFile(t, rs, rs.file)
	if want := map[string]int{"settled": 1, "unmatched": 2}; fmt.Sprint(outcomes) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	money := func(d interface{ StringFixed(int32) string }, ok bool) string {
		if !ok {
			return "none"
		}
		return d.StringFixed(2)
	}
	for _, l := range report {
		switch l.Code {
		case "06":
			if l.Outcome == "settled" {
				if l.Credited == nil || l.Paid == nil || !l.Credited.Equal(*l.Paid) {
					t.Errorf("the settled line: credited %v, paid %v, want both (no tariff)", l.Credited, l.Paid)
				}
				continue
			}
			got := fmt.Sprintf("%s paid %s credited %s tariff %s amount %s interest %s discount %s date %s credit %s",
				l.Outcome, money(l.Paid, l.Paid != nil), money(l.Credited, l.Credited != nil), money(l.Tariff, l.Tariff != nil),
				money(l.Amount, l.Amount != nil), money(l.Interest, l.Interest != nil), money(l.Discount, l.Discount != nil),
				l.Date, l.CreditDate)
			d := day.Format(time.DateOnly)
			want := "unmatched paid 213.30 credited 209.97 tariff 3.33 amount 389.75 interest 12.34 discount 176.45 date " + d + " credit " + d
			// the message writes the number as the bank's slip does, the
			// machine field number and digit together, as documented
			if got != want || l.OurNumber != "999999999990" ||
				!strings.Contains(l.Message, "no title sent from the company's accounts at bank 237 has nosso número 99999999999-0") {
				t.Errorf("the unmatched paid line: %s (%+v)\nwant %s", got, l, want)
			}
		case "29":
			if l.Outcome != storage.OutcomeUnmatched || l.Amount == nil || l.Amount.StringFixed(2) != "389.75" ||
				!strings.Contains(l.Message, "Ocorrências do Pagador") {
				t.Errorf("the unmatched line of occurrence 29: %+v", l)
			}
		}
	}
}

// TestReturnOfBankWithoutAccount: a return file of a bank where the
// company has no account is refused at the upload's check (a 422 naming
// file, the bank and the company's accounts), and by its job if it was
// stored all the same, before any line is read.
func TestReturnOfBankWithoutAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rs := newReturnSetup(t, 1, 0, nil)
	var account int64
	if err := rs.pool.QueryRow(ctx, `SELECT id FROM accounts WHERE company_id = $1`, rs.company).Scan(&account); err != nil {
		t.Fatal(err)
	}
	itau, err := os.ReadFile(filepath.Join("..", "cnab", "retorno", "testdata", "341_400.ret"))
	if err != nil {
		t.Fatal(err)
	}
	other := newCompany(t, rs.pool, "Sem contas")
	fileOf := func(err error) string {
		var e *finance.Error
		if errors.As(err, &e) && e.Code == finance.Invalid && len(e.Problems) == 1 && e.Problems[0].Field == "file" {
			return e.Problems[0].Message
		}
		return fmt.Sprintf("not a 422 naming file: %v", err)
	}
	for _, c := range []struct {
		name    string
		company int64
		content []byte
		want    string
	}{
		{"another bank", rs.company, itau, fmt.Sprintf(`the file is of bank 341 (Itaú Unibanco) and the company has no account at bank 341 (its accounts: %d at bank "237")`, account)},
		{"no accounts", other, rs.file.Content, "the file is of bank 237 (Bradesco) and the company has no account at bank 237 (the company has no accounts)"},
	} {
		if got := fileOf(CheckReturnFile(ctx, rs.pool, c.company, TicketBatchKind, c.content, nil)); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: the upload: %s\nwant %s", c.name, got, c.want)
		}
		f, _, err := storage.SaveReturnFile(ctx, rs.pool, storage.TicketBatch, c.company, "r.ret", 0, c.content)
		if err != nil {
			t.Fatal(err)
		}
		payload := BatchReturnPayload{Batch: "ticket", FileID: f.ID}
		_, err = runBatchReturn(ctx, benchStarted(t, rs.pool, c.company, KindBatchReturn, payload), payload)
		if got := fileOf(err); !strings.HasPrefix(got, c.want) || !errors.Is(err, asynq.SkipRetry) {
			t.Errorf("%s: the job: %s (permanent: %v)\nwant %s", c.name, got, errors.Is(err, asynq.SkipRetry), c.want)
		}
	}
	if err := CheckReturnFile(ctx, rs.pool, rs.company, TicketBatchKind, rs.file.Content, nil); err != nil {
		t.Errorf("a file of the company's bank: %v", err)
	}
}
