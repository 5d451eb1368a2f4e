package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/api"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestFinanceScheduleIsThePreview: `propfin finance schedule` given a
// contract as the API answers it (GET with include[items.item] and
// include[billing]) prints the invoices the API's generation preview
// shows for it, field by field: the settings the contract leaves null are
// null in both (no punctuality discount, a late fee without interest),
// those it sets are its own, and who bears its discount is copied. The
// preview's building_id is the contract's property, which the command
// line's invoices do not carry; its own paid and paid_at are the rule's.
func TestFinanceScheduleIsThePreview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, user, err := storage.EnsureCompany(ctx, pool, "Schedule")
	if err != nil {
		t.Fatal(err)
	}
	key, err := storage.CreateAPIKey(ctx, pool, company, user, "schedule")
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	t.Cleanup(func() { rdb.Close() })
	srv := httptest.NewServer(api.New(api.Config{Store: storage.NewStore(pool, storage.DefaultRegistry()), Redis: rdb,
		RateLimit: 100000, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	t.Cleanup(srv.Close)
	call := func(method, path, body string) map[string]any {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var answer map[string]any
		if err := json.NewDecoder(res.Body).Decode(&answer); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d %v %v", method, path, res.StatusCode, answer, err)
		}
		return answer["data"].(map[string]any)
	}

	b := storagetest.NewBilling(t, pool, company)
	ids := b.MonthlyContracts(t, pool, 3, "2026-01-01", "2026-01-10") // a late fee of 2% and 1% a month, no discount
	for id, set := range map[int64]string{
		ids[1]: `ticket_late_fee_interest = null`,
		ids[2]: `ticket_discount = true, ticket_discount_mode = 'percentage', ticket_discount_percentage = 5,
			ticket_discount_days = 5, ticket_discount_action = 'owner'`,
	} {
		if _, err := pool.Exec(ctx, `UPDATE contracts SET `+set+` WHERE company_id = $1 AND id = $2`, company, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		contract := call(http.MethodGet, fmt.Sprintf("/financial/contracts/%d?include[items.item]&include[billing]", id), "")
		in, err := json.Marshal(contract)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runFinanceCLI(t, string(in), "schedule", "-", "--until", "2026-02-28", "--rent-item", fmt.Sprint(b.RentItem))
		if code != 0 {
			t.Fatalf("contract %d: exit %d: %s", id, code, errOut)
		}
		var printed []map[string]any
		if err := json.Unmarshal([]byte(out), &printed); err != nil {
			t.Fatal(err)
		}
		previewed := call(http.MethodPost, fmt.Sprintf("/financial/contracts/%d/invoicesCreate", id),
			`{"preview":true,"until":"2026-02-28"}`)["invoices"].([]any)
		if len(printed) != 2 || len(previewed) != 2 {
			t.Fatalf("contract %d: %d printed, %d previewed, want 2", id, len(printed), len(previewed))
		}
		for i, p := range previewed {
			if diff := scheduleDiff(printed[i], p.(map[string]any)); diff != "" {
				t.Errorf("contract %d, invoice %d: the command line and the preview differ:\n%s", id, i, diff)
			}
		}
	}
}

// scheduleDiff names the fields where an invoice the command line printed
// and the API's preview of it differ, a field one leaves out read as
// null; "" when none does. The preview's building_id and the command
// line's paid and paid_at are not compared.
func scheduleDiff(printed, previewed map[string]any) string {
	var diffs []string
	seen := map[string]bool{"building_id": true, "paid": true, "paid_at": true}
	for _, fields := range []map[string]any{previewed, printed} {
		for k := range fields {
			if seen[k] {
				continue
			}
			seen[k] = true
			a, _ := json.Marshal(printed[k])
			b, _ := json.Marshal(previewed[k])
			if string(a) != string(b) {
				diffs = append(diffs, fmt.Sprintf("%s: printed %s, previewed %s", k, a, b))
			}
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, "\n")
}
