package jobs

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestNightlyGenerationResumes: a nightly run resumed with some of its
// chunks recorded bills the contracts of the chunks not recorded, and
// only those: by the plan its first chunk recorded, whatever chunks of
// it committed (two at a time, chunk 2 may commit before chunk 1), or,
// for a run recorded without a plan, after its last recorded chunk.
func TestNightlyGenerationResumes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		recorded map[int]nightlyChunk // chunk → what it recorded (no invoice was written)
		billed   func(ids []int64) []int64
	}{
		{"nothing recorded", nil, func(ids []int64) []int64 { return ids }},
		{"chunks 0 and 2 of a plan", map[int]nightlyChunk{0: {Lasts: []int64{-1, -2}}, 2: {}},
			func(ids []int64) []int64 { return ids[generateChunk : 2*generateChunk] }},
		{"chunks 0 and 1 of a plan", map[int]nightlyChunk{0: {Lasts: []int64{-1, -2}}, 1: {}},
			func(ids []int64) []int64 { return ids[2*generateChunk:] }},
		{"chunk 0 of a plan of two chunks", map[int]nightlyChunk{0: {Lasts: []int64{-1}}},
			func(ids []int64) []int64 { return ids[generateChunk:] }},
		{"chunk 0 without a plan", map[int]nightlyChunk{0: {LastID: -1}},
			func(ids []int64) []int64 { return ids[generateChunk:] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := storagetest.NewDB(t)
			company, _, err := storage.EnsureCompany(ctx, pool, "Resume")
			if err != nil {
				t.Fatal(err)
			}
			billing := storagetest.NewBilling(t, pool, company)
			ids := billing.MonthlyContracts(t, pool, 2*generateChunk+300, "2026-12-01", "2026-12-05")
			slices.Sort(ids)
			r := benchStarted(t, pool, company, KindInvoicesGenerate, GeneratePayload{Date: "2026-11-20"})
			for i, c := range tt.recorded {
				// -1 and -2 stand for the last ids of chunks 0 and 1
				for j, v := range c.Lasts {
					c.Lasts[j] = ids[(int(-v))*generateChunk-1]
				}
				if c.LastID < 0 {
					c.LastID = ids[int(-c.LastID)*generateChunk-1]
				}
				raw, _ := json.Marshal(c)
				if ok, err := storage.RecordJobChunk(ctx, pool, r.Job.Run(), i, raw, storage.Progress{Total: int64(len(ids))}); err != nil || !ok {
					t.Fatalf("record chunk %d: %v %t", i, err, ok)
				}
			}
			res, err := runGenerate(ctx, r, GeneratePayload{Date: "2026-11-20"})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.billed(ids)
			rows, err := pool.Query(ctx, `SELECT contract_id FROM invoices WHERE company_id = $1 ORDER BY contract_id`, company)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				got = append(got, id)
			}
			if len(got) != len(want) || (len(want) > 0 && (got[0] != want[0] || got[len(got)-1] != want[len(want)-1])) {
				t.Fatalf("billed %d contracts (%v...), want %d (%v...)", len(got), got[:min(2, len(got))], len(want), want[:min(2, len(want))])
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("contract %d billed where %d was expected", got[i], want[i])
				}
			}
			if n := res.(NightlyGeneration).Created; n != len(want) {
				t.Errorf("result counts %d created, want %d", n, len(want))
			}
		})
	}
}
