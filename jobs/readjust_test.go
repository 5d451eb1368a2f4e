package jobs

import (
	"context"
	"testing"

	"github.com/propfin/propfin/storage"
)

// readjustContract inserts a rent contract of 2,000.00 readjusted by IPCA
// every 12 months from readjustAt.
func readjustContract(t *testing.T, p *platform, company int64, readjustAt string) int64 {
	t.Helper()
	var id int64
	err := p.pool.QueryRow(context.Background(), `INSERT INTO contracts (company_id, type, start_at, amount,
		readjust_active, readjust_indicator, readjust_with, readjust_at)
		VALUES ($1, 'rent', '2024-01-15', 2000.00, true, 'IPCA', 12, $2) RETURNING id`, company, readjustAt).Scan(&id)
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
	again, existed, err := p.kinds.Submit(ctx, p.pool, p.companyA, Submission{Kind: KindContractsReadjust,
		Payload: mustJSON(DatePayload{Date: "2025-01-15"})})
	if err != nil || !existed || again.ID != job.ID {
		t.Errorf("resubmitted: %v existed %v id %d", err, existed, again.ID)
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
