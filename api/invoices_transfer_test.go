package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TestInvoiceAutoTransferStatus: an invoice's auto_transfer_status through
// the API. Paid, an invoice of a contract transferring two days after the
// credit is waiting; the run of its day makes it transferred;
// filter[autoTransferStatus][] finds each state. A contract switched to
// manual transfers takes its invoice's status away (a history row of
// origin contract) and back when switched again; transfer_auto_disabled
// on the invoice does the same, in the write's own history row.
func TestInvoiceAutoTransferStatus(t *testing.T) {
	t.Parallel()
	f := invoiceEnv(t)
	f.exec(t, `UPDATE contracts SET transfer_mode = 'after_receive', transfer_after_days = 2 WHERE id = $1`, f.contract)
	contractInvoice := map[string]any{"type": "contract", "contract_id": f.contract, "date": today(-10), "due_date": today(-5)}
	paid, unpaid := f.invoice(t, contractInvoice), f.invoice(t, contractInvoice)
	single := f.invoice(t, map[string]any{"building_id": f.building})
	if rec := f.pay(t, paid, today(-1)); rec["auto_transfer_status"] != "waiting" {
		t.Errorf("paid: auto_transfer_status %v, want waiting", rec["auto_transfer_status"])
	}
	f.pay(t, single, today(-1))
	find := func(step, query string, want ...int64) {
		t.Helper()
		if got := f.get(t, "/invoices?sort=id&"+query, http.StatusOK).ids(t); !slices.Equal(got, want) {
			t.Errorf("%s, %s: %v, want %v", step, query, got, want)
		}
	}
	transfer := func(on string) storage.TransferSummary {
		t.Helper()
		var s storage.TransferSummary
		err := pgx.BeginFunc(t.Context(), f.pool, func(tx pgx.Tx) (err error) {
			s, err = storage.TransferOwners(t.Context(), tx, f.compA, 0, finance.MustDate(on), 1, 0)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	find("paid", "filter[autoTransferStatus][]=waiting", paid)
	find("paid", "filter[auto_transfer_status|empty]", unpaid, single)
	if s := transfer(today(0)); s.Transfers != 0 {
		t.Errorf("the day before: %+v", s)
	}
	find("the day before", "filter[autoTransferStatus][]=waiting&filter[autoTransferStatus][]=transferred", paid)
	find("the day before", "filter[autoTransferStatus][]=transferred")
	if s := transfer(today(1)); s.Transfers != 1 || s.Statuses != 1 {
		t.Errorf("on the day: %+v", s)
	}
	find("paid out", "filter[autoTransferStatus][]=transferred", paid)
	find("paid out", "filter[autoTransferStatus][]=waiting&filter[autoTransferStatus][]=guaranteed&filter[autoTransferStatus][]=chargeback")

	contract := fmt.Sprintf("/financial/contracts/%d", f.contract)
	for _, mode := range []string{"manually", "fixed_day"} {
		if r := f.do(t, http.MethodPut, contract, f.keyA, map[string]any{"transfer_mode": mode, "transfer_after_days": 10}); r.status != http.StatusOK {
			t.Fatalf("contract to %s: %d %s", mode, r.status, r.raw)
		}
	}
	find("manual, then on day 10", "filter[autoTransferStatus][]=transferred", paid)
	if r := f.do(t, http.MethodPut, contract, f.keyA, map[string]any{"transfer_mode": "manually"}); r.status != http.StatusOK {
		t.Fatalf("contract to manually: %d %s", r.status, r.raw)
	}
	find("manual", "filter[autoTransferStatus][]=transferred")
	find("manual", "filter[auto_transfer_status|empty]", paid, unpaid, single)
	if r := f.do(t, http.MethodPut, contract, f.keyA, map[string]any{"transfer_mode": "after_receive"}); r.status != http.StatusOK {
		t.Fatalf("contract to after_receive: %d %s", r.status, r.raw)
	}
	find("automatic again", "filter[autoTransferStatus][]=transferred", paid)

	if r := f.put(t, paid, map[string]any{"transfer_auto_disabled": true}); r.status != http.StatusOK || r.record(t)["auto_transfer_status"] != nil {
		t.Errorf("disabled: %d %s", r.status, r.raw)
	}
	find("disabled", "filter[autoTransferStatus][]=transferred")
	checkStatusHistory(t, f, paid, []string{
		"payment: null -> waiting",
		"transfer: waiting -> transferred",
		"contract: transferred -> null", "contract: null -> transferred", // manually, then fixed_day 10
		"contract: transferred -> null", "contract: null -> transferred", // manually, after_receive
		"update: transferred -> null",
	})
	f.get(t, "/invoices?filter[autoTransferStatus][]=done", http.StatusUnprocessableEntity)
}

// checkStatusHistory holds the invoice's history rows that change its
// auto_transfer_status, as "origin: from -> to", against want.
func checkStatusHistory(t *testing.T, f *invoiceFixture, id int64, want []string) {
	t.Helper()
	var got []string
	for _, row := range f.get(t, fmt.Sprintf("/invoices/%d/history?perPage=100", id), http.StatusOK).data(t) {
		changes, _ := row["changes"].([]any)
		for _, c := range changes {
			c := c.(map[string]any)
			if c["field"] == "auto_transfer_status" {
				got = append(got, fmt.Sprintf("%s: %v -> %v", row["origin"], orNull(c["from"]), orNull(c["to"])))
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("history:\n got %s\nwant %s", strings.Join(got, "; "), strings.Join(want, "; "))
	}
}

func orNull(v any) any {
	if v == nil {
		return "null"
	}
	return v
}
