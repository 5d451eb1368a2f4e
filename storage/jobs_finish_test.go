package storage_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestFinishJobsKeepsItsGenericPlan: a connection that writes outcomes one
// at a time (a worker's outcomes are gathered, and often one alone) plans
// the outcome's statement at its first five runs and then keeps the plan
// for any outcomes (the generic plan), as it keeps those of the other
// statements it prepares. The statement is long (a dozen tables, its
// webhook events): planned again at every run, it cost about 1.4 ms of
// the database's CPU a job in a night of many companies, where the plan
// cache judged the generic plan, made for ten outcomes, dearer than a
// plan for one. Counted by the connection's pg_prepared_statements.
func TestFinishJobsKeepsItsGenericPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Outcomes")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		var args []any
		if strings.Contains(sql, "$1") {
			args = append(args, company)
		}
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	finish := func(n int) {
		t.Helper()
		for i := range n {
			job, _, err := storage.SubmitJob(ctx, pool, company, storage.NewJob{Kind: "k", Queue: "default", SubmittedBy: "test"})
			if err != nil {
				t.Fatal(err)
			}
			started, ok, err := storage.StartJob(ctx, pool, storage.TaskRef{JobRef: storage.JobRef{CompanyID: company, ID: job.ID}})
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			done, err := storage.FinishJobs(ctx, conn, []storage.Outcome{{RunRef: started.Run(), State: storage.JobSucceeded,
				Result: []byte(fmt.Sprintf(`{"i":%d}`, i))}})
			if err != nil || !done[started.Run()] {
				t.Fatalf("outcome %d: %v, %v", i, done, err)
			}
		}
	}
	// a night: the first outcomes written while the jobs table is near
	// empty (as analyzed before the night), then its seven rows a company
	// analyzed by autovacuum, which makes every connection plan the
	// statement again
	exec(`ANALYZE jobs`)
	finish(6)
	exec(`INSERT INTO jobs (company_id, kind, queue, payload, submitted_by, state, finished_at)
		SELECT $1, 'k', 'default', '{}', 'test', 'succeeded', now() FROM generate_series(1, 20000)`)
	exec(`ANALYZE jobs`)
	const runs = 12
	finish(runs - 6)
	var generic, custom int64
	err = conn.QueryRow(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements
		WHERE statement LIKE 'WITH done AS (%UPDATE jobs SET state = o.ostate%'`).Scan(&generic, &custom)
	if err != nil {
		t.Fatal(err)
	}
	if custom > 5 || generic != runs-custom {
		t.Errorf("%d outcomes, one at a time: %d runs planned for their own outcome, %d of the generic plan; want 5 and %d",
			runs, custom, generic, runs-5)
	}
}

// TestLoadRunsKeepsItsGenericPlan: the read of the jobs a worker's tasks
// run, one task at a time, is planned at its first five runs and then
// runs the plan kept, as the outcome's statement does; planned at each
// run, it cost 0.25 ms of the database's CPU a job (five a company in a
// night), more than its run.
func TestLoadRunsKeepsItsGenericPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Runs")
	if err != nil {
		t.Fatal(err)
	}
	// the jobs of a night of many companies
	if _, err := pool.Exec(ctx, `INSERT INTO jobs (company_id, kind, queue, payload, submitted_by, state, finished_at)
		SELECT $1, 'k', 'default', '{}', 'test', 'succeeded', now() FROM generate_series(1, 20000)`, company); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE jobs`); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const runs = 12
	for range runs {
		job, _, err := storage.SubmitJob(ctx, pool, company, storage.NewJob{Kind: "k", Queue: "default", SubmittedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		ref := storage.JobRef{CompanyID: company, ID: job.ID}
		loaded, err := storage.LoadRuns(ctx, conn, []storage.TaskRef{{JobRef: ref}})
		if err != nil || loaded[ref].ID != job.ID {
			t.Fatalf("load run of job %d: %v, %v", job.ID, loaded, err)
		}
	}
	var generic, custom int64
	err = conn.QueryRow(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements
		WHERE statement LIKE '%FROM jobs JOIN%unnest%'`).Scan(&generic, &custom)
	if err != nil {
		t.Fatal(err)
	}
	if custom > 5 || generic != runs-custom {
		t.Errorf("%d runs loaded one at a time: %d planned for their own task, %d of the generic plan; want 5 and %d",
			runs, custom, generic, runs-5)
	}
}
