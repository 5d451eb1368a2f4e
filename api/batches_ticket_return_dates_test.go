package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestReturnFileDatesOutOfBounds: a return file's line whose payment is
// dated after the file's own date or after today, or credited before it
// was paid or more than 7 days after (the bound of a part recorded by
// hand), is not settled: nothing booked (its tariff neither), its invoice
// left open, the report saying the date and why; the other lines of the
// file book as before. A file dated tomorrow (generated where the day has
// turned already) settles a payment of today.
func TestReturnFileDatesOutOfBounds(t *testing.T) {
	t.Parallel()
	f := batchEnv(t)
	withWorkers(t, f.testEnv)
	f.tariffItem(t)
	itau := f.create(t, "/financial/accounts", itauAccount(f.biz, "12345", "1"))
	today := f.now(t)
	yesterday, tomorrow := today.AddDate(0, 0, -1), today.AddDate(0, 0, 1)
	day := func(d time.Time) string { return d.Format(time.DateOnly) }
	cases := []struct {
		name         string
		paid, credit time.Time
		want         string // the message's words; "" for settled
	}{
		{"paid after the file's date", tomorrow, tomorrow,
			fmt.Sprintf("the bank's payment date %s is after %s, the file's own date", day(tomorrow), day(today))},
		{"credited 29 days after", yesterday, yesterday.AddDate(0, 0, 29),
			fmt.Sprintf("the credit date %s is more than 7 days after the payment date %s (at most %s)",
				day(yesterday.AddDate(0, 0, 29)), day(yesterday), day(yesterday.AddDate(0, 0, 7)))},
		{"credited before paid", today, yesterday,
			fmt.Sprintf("the credit date %s is before the payment date %s", day(yesterday), day(today))},
		{"credited 7 days after", yesterday, yesterday.AddDate(0, 0, 7), ""},
		{"paid today", today, today, ""},
	}
	invoices := make([]int64, len(cases))
	var titles []itauTitle
	for i, c := range cases {
		inv, title := itauBatchTitle(t, f, itau)
		title.date, title.credit = c.paid, c.credit
		invoices[i], titles = inv, append(titles, title)
	}
	done := f.returnJob(t, "/financial/ticketBatch", itau, string(itauReturn(today, "1234", "12345", "1", titles...)))
	report := done["result"].(map[string]any)["report"].([]any)
	if len(report) != len(cases) {
		t.Fatalf("the report has %d lines, want %d: %v", len(report), len(cases), report)
	}
	for i, c := range cases {
		line := report[i].(map[string]any)
		rec := f.get(t, fmt.Sprintf("/invoices/%d", invoices[i]), http.StatusOK).record(t)
		tariffs := f.get(t, fmt.Sprintf("/transactions?filter[invoice_id]=%d&filter[extract]=business&filter[type]=debit", invoices[i]),
			http.StatusOK).data(t)
		msg := fmt.Sprint(line["message"])
		if c.want == "" {
			if line["outcome"] != "settled" || rec["paid"] != true || rec["paid_at"] != day(c.paid) || len(tariffs) != 1 {
				t.Errorf("%s: line %v, invoice paid %v on %v, tariffs %v; want settled", c.name, line, rec["paid"], rec["paid_at"], tariffs)
			}
			continue
		}
		if line["outcome"] != "not_settled" || !strings.Contains(msg, c.want) || !strings.Contains(msg, "nothing was done") {
			t.Errorf("%s: line %v, want not_settled saying %q", c.name, line, c.want)
		}
		if rec["paid"] != false || rec["paid_at"] != nil || len(tariffs) != 0 {
			t.Errorf("%s: invoice paid %v on %v, business debits %v; want it open, nothing booked", c.name, rec["paid"], rec["paid_at"], tariffs)
		}
	}

	// a file of tomorrow: what it reports paid today is settled, what it
	// reports paid tomorrow is after today
	ahead := []int64{0, 0}
	var aheadTitles []itauTitle
	for i, paid := range []time.Time{today, tomorrow} {
		inv, title := itauBatchTitle(t, f, itau)
		title.date, title.credit = paid, tomorrow
		ahead[i], aheadTitles = inv, append(aheadTitles, title)
	}
	done = f.returnJob(t, "/financial/ticketBatch", itau, string(itauReturn(tomorrow, "1234", "12345", "1", aheadTitles...)))
	report = done["result"].(map[string]any)["report"].([]any)
	if l := report[0].(map[string]any); l["outcome"] != "settled" {
		t.Errorf("paid today in a file of tomorrow: %v, want settled", l)
	}
	want := fmt.Sprintf("the bank's payment date %s is after today (%s in the company's time zone)", day(tomorrow), day(today))
	if l := report[1].(map[string]any); l["outcome"] != "not_settled" || !strings.Contains(fmt.Sprint(l["message"]), want) {
		t.Errorf("paid tomorrow in a file of tomorrow: %v, want not_settled saying %q", l, want)
	}
	if rec := f.get(t, fmt.Sprintf("/invoices/%d", ahead[1]), http.StatusOK).record(t); rec["paid"] != false {
		t.Errorf("the invoice paid tomorrow: paid %v, want open", rec["paid"])
	}
}
