package jobs

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// nightKinds is the registry the night benchmark runs: every kind of
// propfin, or, with PROPFIN_BENCH_NIGHT_FLOOR=1, the platform's floor:
// the same kinds by name, queue, retries and flags, each run doing no work
// of its own (a heavy kind one empty chunk, the platform's statements of a
// heavy run of one chunk: the slot, the record with the start; a light
// one nothing). The floor night is what one job per company and kind
// costs before any of the kinds' statements.
func nightKinds(b *testing.B) *Registry {
	b.Helper()
	kinds, err := Kinds(KindsConfig{})
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("PROPFIN_BENCH_NIGHT_FLOOR") == "" {
		return kinds
	}
	var floor []*Kind
	for _, name := range kinds.Names() {
		k, _ := kinds.Kind(name)
		empty := *k
		empty.run = emptyRun(k.Heavy)
		floor = append(floor, &empty)
	}
	reg, err := NewRegistry(floor...)
	if err != nil {
		b.Fatal(err)
	}
	b.Log("the platform's floor: every kind's run does no work of its own")
	return reg
}

// emptyRun is a run that writes nothing but what the platform writes for
// it: one empty chunk when heavy.
func emptyRun(heavy bool) func(ctx context.Context, r *Run, raw json.RawMessage) (any, error) {
	return func(ctx context.Context, r *Run, raw json.RawMessage) (any, error) {
		if !heavy {
			return struct{}{}, nil
		}
		_, err := r.Chunks(ctx, 1, 1, func(ctx context.Context, tx pgx.Tx, i int) (any, int64, error) {
			return struct{}{}, 1, nil
		})
		return struct{}{}, err
	}
}
