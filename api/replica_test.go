package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// withReplica reads lists, gets and reports from replica, as
// Config.Replica does.
func withReplica(replica *pgxpool.Pool) envOption {
	return func(_ *Config, s *Server) { s.reads = s.store.WithReplica(replica) }
}

// TestReadsFromTheReplica: with a replica, lists, gets and reports answer
// from it, while writes, and jobs, go to the primary. The "replica" is a
// second database holding other rows, so that each answer says where it
// was read.
func TestReadsFromTheReplica(t *testing.T) {
	t.Parallel()
	replica := storagetest.NewDB(t)
	t.Run("replica", func(t *testing.T) { // the subtest's database is the primary
		e := setup(t, withReplica(replica))
		ctx := context.Background()
		for _, c := range []struct {
			name string
			id   int64
		}{{"Company A", e.compA}, {"Company B", e.compB}} {
			if id, _, err := storage.EnsureCompany(ctx, replica, c.name); err != nil || id != c.id {
				t.Fatalf("%s is %d on the replica and %d on the primary (%v)", c.name, id, c.id, err)
			}
		}
		var onReplica int64
		if err := replica.QueryRow(ctx, `INSERT INTO building_categories (company_id, description, color)
			VALUES ($1, 'on the replica', '#ffffff') RETURNING id`, e.compA).Scan(&onReplica); err != nil {
			t.Fatal(err)
		}
		if _, err := replica.Exec(ctx, `INSERT INTO funnels (company_id, name) VALUES ($1, 'funnel on the replica')`, e.compA); err != nil {
			t.Fatal(err)
		}

		written := e.create(t, "/buildings/categories", map[string]any{"description": "on the primary", "color": "#000000"})
		if n := e.scalar(t, `SELECT count(*) FROM building_categories WHERE company_id = $1 AND id = $2 AND description = 'on the primary'`,
			e.compA, written); n != 1 {
			t.Errorf("the POST wrote %d rows on the primary", n)
		}
		if got := e.get(t, "/buildings/categories", http.StatusOK).raw; !strings.Contains(got, "on the replica") || strings.Contains(got, "on the primary") {
			t.Errorf("the list is not the replica's: %s", got)
		}
		if got := e.get(t, fmt.Sprintf("/buildings/categories/%d", onReplica), http.StatusOK).raw; !strings.Contains(got, "on the replica") {
			t.Errorf("the get is not the replica's: %s", got)
		}
		if got := e.get(t, "/deals/conversion/funnel", http.StatusOK).raw; !strings.Contains(got, "funnel on the replica") {
			t.Errorf("the funnel report is not the replica's: %s", got)
		}
		// an update reads and writes the primary's row, which the replica lacks
		if r := e.do(t, http.MethodPut, fmt.Sprintf("/buildings/categories/%d", written), e.keyA, map[string]any{"color": "#111111"}); r.status != http.StatusOK {
			t.Errorf("PUT of the primary's row: %d %s", r.status, r.raw)
		}

		// a job is read where it was written, however far the replica lags
		sub, err := jobs.NewPixValidate([]string{"not a payload"})
		if err != nil {
			t.Fatal(err)
		}
		job, _, err := defaultKinds().Submit(ctx, e.pool, e.compA, sub)
		if err != nil {
			t.Fatal(err)
		}
		e.get(t, fmt.Sprintf("/jobs/%d", job.ID), http.StatusOK)
		if ids := e.get(t, "/jobs", http.StatusOK).ids(t); len(ids) != 1 || ids[0] != job.ID {
			t.Errorf("GET /jobs: %v, want the primary's job %d", ids, job.ID)
		}
	})
}
