package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/propfin/propfin/storage"
)

// readjustContract inserts a rent contract of 2,000.00 readjusted by IPCA
// every 12 months from readjustAt.
func readjustContract(t *testing.T, p *platform, company int64, readjustAt string) int64 {
	t.Helper()
	return readjustContractBy(t, p, company, "IPCA", readjustAt)
}

// readjustContractBy is readjustContract with another indicator.
func readjustContractBy(t *testing.T, p *platform, company int64, indicator, readjustAt string) int64 {
	t.Helper()
	var id int64
	err := p.pool.QueryRow(context.Background(), `INSERT INTO contracts (company_id, type, start_at, amount,
		readjust_active, readjust_indicator, readjust_with, readjust_at)
		VALUES ($1, 'rent', '2023-01-10', 2000.00, true, $2, 12, $3) RETURNING id`, company, indicator, readjustAt).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestReadjustJob(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	ctx := context.Background()
	a1 := readjustContract(t, p, p.companyA, "2025-01-15")
	a2 := readjustContract(t, p, p.companyA, "2025-01-10")
	later := readjustContract(t, p, p.companyA, "2025-02-01")
	b := readjustContract(t, p, p.companyB, "2025-01-15")

	job := p.submit(t, KindContractsReadjust, DatePayload{Date: "2025-01-15"})
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	res := decodeResult[ReadjustSummary](t, done)
	if done.State != storage.JobSucceeded || res != (ReadjustSummary{Contracts: 2, Readjusted: 2}) {
		t.Fatalf("state %s %s, result %+v", done.State, done.Error, res)
	}
	if done.Progress != (storage.Progress{Done: 2, Total: 2}) {
		t.Errorf("progress %+v", done.Progress)
	}
	amount := func(company, id int64) string {
		var s string
		if err := p.pool.QueryRow(ctx, `SELECT coalesce(current_amount::text, '-') || ' ' || readjust_at
			FROM contracts WHERE company_id = $1 AND id = $2`, company, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for id, want := range map[int64]string{a1: "2096.63 2026-01-15", a2: "2096.63 2026-01-10", later: "- 2025-02-01"} {
		if got := amount(p.companyA, id); got != want {
			t.Errorf("contract %d: %s, want %s", id, got, want)
		}
	}
	if got := amount(p.companyB, b); got != "- 2025-01-15" {
		t.Errorf("company B's contract moved: %s", got)
	}
	// The same date again is the same job; the next day readjusts nothing.
	again, found, err := p.kinds.Submit(ctx, p.pool, p.companyA, Submission{Kind: KindContractsReadjust,
		Payload: mustJSON(DatePayload{Date: "2025-01-15"})})
	if err != nil || found != storage.FoundSameKey || again.ID != job.ID {
		t.Errorf("resubmitted: %v found %v id %d", err, found, again.ID)
	}
	next := p.submit(t, KindContractsReadjust, DatePayload{Date: "2025-01-16"})
	done = p.wait(t, next.ID, storage.JobSucceeded, storage.JobFailed)
	if res := decodeResult[ReadjustSummary](t, done); res != (ReadjustSummary{}) {
		t.Errorf("the next day: %+v", res)
	}
	var records int
	p.pool.QueryRow(ctx, `SELECT count(*) FROM contract_readjustments WHERE company_id = $1`, p.companyA).Scan(&records) //nolint:errcheck // compared
	if records != 2 {
		t.Errorf("%d readjustment records, want 2", records)
	}
}

// TestReadjustJobInChunks: 4,500 contracts are three chunks (the first
// alone, with the plan, then two at once); every contract and its invoice
// is readjusted once, and company B's contracts are left alone.
func TestReadjustJobInChunks(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	ctx := context.Background()
	seedReadjustContracts(t, p.pool, p.companyA, 4_500)
	seedReadjustContracts(t, p.pool, p.companyB, 10)
	job := p.submit(t, KindContractsReadjust, DatePayload{Date: "2025-01-15"})
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	res := decodeResult[ReadjustSummary](t, done)
	if done.State != storage.JobSucceeded || res != (ReadjustSummary{Contracts: 4_500, Readjusted: 4_500, InvoicesUpdated: 4_500}) {
		t.Fatalf("state %s %s, result %+v", done.State, done.Error, res)
	}
	if done.Progress != (storage.Progress{Done: 4_500, Total: 4_500}) {
		t.Errorf("progress %+v", done.Progress)
	}
	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		if err := p.pool.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// each contract: one record, moved on, its invoice's rent line at the
	// record's new amount and its total 350.00 above it
	if n := count(`SELECT count(*) FROM contracts c
		JOIN contract_readjustments r ON r.company_id = c.company_id AND r.contract_id = c.id
		JOIN invoices i ON i.company_id = c.company_id AND i.contract_id = c.id
		JOIN invoice_items ii ON ii.company_id = i.company_id AND ii.invoice_id = i.id AND ii.amount <> 350.00
		WHERE c.company_id = $1 AND c.readjust_at = '2026-01-15' AND c.current_amount = r.new_amount
		  AND ii.amount = r.new_amount AND i.total = r.new_amount + 350.00 AND r.new_amount > 2000.00`, p.companyA); n != 4_500 {
		t.Errorf("%d contracts readjusted with their invoice, want 4500", n)
	}
	if n := count(`SELECT count(*) FROM invoice_history WHERE company_id = $1 AND origin = 'readjust'`, p.companyA); n != 4_500 {
		t.Errorf("%d history rows, want 4500", n)
	}
	if n := count(`SELECT count(*) FROM contracts WHERE company_id = $1 AND readjust_at = '2025-01-15' AND current_amount IS NULL`, p.companyB); n != 10 {
		t.Errorf("company B: %d of 10 contracts left alone", n)
	}
}

// TestReadjustJobFollowsCompanySettings: the nightly run takes each
// company's settings: company A applies reductions and compares IPCA and
// INPC for highest_index, company B keeps the defaults.
func TestReadjustJobFollowsCompanySettings(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	ctx := context.Background()
	if _, err := p.pool.Exec(ctx, `UPDATE companies SET (readjust_allow_reduction, readjust_candidates) = (true, '{IPCA,INPC}')
		WHERE id = $1`, p.companyA); err != nil {
		t.Fatal(err)
	}
	type contract struct {
		company int64
		id      int64
		at      string // the readjustment looked at
		want    string
	}
	contracts := []contract{
		// IGP-M accumulated −3.1783% in 2023; in 2024 IGP-M +6.5362%, IPCA +4.8313%
		{p.companyA, readjustContractBy(t, p, p.companyA, "IGP-M", "2024-01-10"), "2024-01-10", "1936.43 readjusted IGP-M"},
		{p.companyB, readjustContractBy(t, p, p.companyB, "IGP-M", "2024-01-10"), "2024-01-10", "2000.00 kept IGP-M"},
		{p.companyA, readjustContractBy(t, p, p.companyA, "highest_index", "2025-01-15"), "2025-01-15", "2096.63 readjusted IPCA"},
		{p.companyB, readjustContractBy(t, p, p.companyB, "highest_index", "2025-01-15"), "2025-01-15", "2130.72 readjusted IGP-M"},
	}
	for _, company := range []int64{p.companyA, p.companyB} {
		for _, date := range []string{"2024-01-10", "2025-01-15"} {
			job, _, err := p.kinds.Submit(ctx, p.pool, company, Submission{Kind: KindContractsReadjust, Payload: mustJSON(DatePayload{Date: date})})
			if err != nil {
				t.Fatal(err)
			}
			for !job.Finished() {
				time.Sleep(20 * time.Millisecond)
				if job, err = storage.GetJob(ctx, p.pool, company, job.ID); err != nil {
					t.Fatal(err)
				}
			}
			if job.State != storage.JobSucceeded {
				t.Fatalf("company %d on %s: %s %s", company, date, job.State, job.Error)
			}
		}
	}
	for _, c := range contracts {
		var got string
		if err := p.pool.QueryRow(ctx, `SELECT new_amount::text || ' ' || outcome || ' ' || index_used
			FROM contract_readjustments WHERE company_id = $1 AND contract_id = $2 AND readjust_at = $3`,
			c.company, c.id, c.at).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("company %d contract %d: %s, want %s", c.company, c.id, got, c.want)
		}
	}
}

func TestReadjustIsScheduledNightly(t *testing.T) {
	t.Parallel()
	for _, s := range DefaultSchedules() {
		if s.Kind == KindContractsReadjust {
			if s.Name != "contracts-readjust" || s.EnvName() != "PROPFIN_SCHEDULE_CONTRACTS_READJUST" {
				t.Errorf("schedule %+v", s)
			}
			return
		}
	}
	t.Error("contracts:readjust is not scheduled")
}
