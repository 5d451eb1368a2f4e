package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// reportByReference is a batch:return job's report, each line under its
// document_number (the payment's reference).
func reportByReference(t *testing.T, done map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, l := range done["result"].(map[string]any)["report"].([]any) {
		line := l.(map[string]any)
		out[fmt.Sprint(line["document_number"])] = line
	}
	return out
}

// TestPaymentReturnDatesToCome: a payment return's paid line dated after
// the file's own date (and after today), and a paid line without a date
// whose scheduled day, taken for it, is five days ahead, book nothing:
// both are not_settled, naming the day and the file's date, their entries
// unpaid and their payments sent; a line paid today is paid.
func TestPaymentReturnDatesToCome(t *testing.T) {
	t.Parallel()
	f := paymentEnv(t)
	withWorkers(t, f.testEnv)
	ahead := f.bill(t, f.atBB, "ted", "100.00", nil)
	undated := f.bill(t, f.atBB, "ted", "200.00", nil)
	now := f.bill(t, f.atBB, "ted", "300.00", nil)
	batch := f.newPaymentBatch(t)
	if _, refused := answer(t, f.payments(t, f.keyA, batch, "addTransactions", ahead, undated, now), "added"); len(refused) > 0 {
		t.Fatalf("refused: %v", refused)
	}
	file, _, _ := f.paymentFile(t, batch)
	day := time.Now().In(saoPaulo(t))
	ret := paymentReturn(t, file, map[string]paidLine{
		ref(ahead):   {codes: "00", date: day.AddDate(0, 0, 3)},
		ref(undated): {codes: "00"},
		ref(now):     {codes: "00", date: day},
	})
	lines := reportByReference(t, f.returnJob(t, "/financial/paymentBatch", f.bradesco, string(ret)))
	fileDay := day.Format(time.DateOnly)
	for _, c := range []struct {
		ref, paidOn string
		scheduled   bool
	}{
		{ref(ahead), today(3), false},
		{ref(undated), today(5), true},
	} {
		l := lines[c.ref]
		msg := fmt.Sprint(l["message"])
		if l["outcome"] != "not_settled" || !strings.Contains(msg, "the bank's payment date "+c.paidOn+" is after "+fileDay+", the file's own date") ||
			strings.Contains(msg, "scheduled for, taken for it") != c.scheduled {
			t.Errorf("%s: %v", c.ref, l)
		}
	}
	if l := lines[ref(now)]; l["outcome"] != "paid" {
		t.Errorf("the line paid today: %v", l)
	}
	for id, want := range map[int64]string{ahead: "false <nil>", undated: "false <nil>", now: "true " + fileDay} {
		e := f.get(t, fmt.Sprintf("/transactions/%d", id), http.StatusOK).record(t)
		got := fmt.Sprint(e["paid"], " <nil>")
		if e["paid"] == true {
			got = fmt.Sprint(e["paid"], " ", e["date"])
		}
		if got != want {
			t.Errorf("entry %d: %s, want %s", id, got, want)
		}
	}
	if states := f.paymentStates(t, batch); !sameStates(states, map[int64]string{ahead: "sent", undated: "sent", now: "paid"}) {
		t.Errorf("payments: %v", states)
	}
}
