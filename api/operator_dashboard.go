package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The queue dashboard's Run on an archived task (docs/operations.md,
// "Queue dashboard"). A task is archived when its job ended failed, and a
// task of a failed job runs nothing: asynqmon's own Run would empty the
// archive while the job stayed failed. So the API answers that Run itself
// when the task is its job's task and the job is failed: it retries the
// job as POST /operator/jobs/retry does (a new generation from the start,
// audited) and deletes the archived task, whose job PostgreSQL now runs
// under a new task. Any other Run (the task of a row still waiting, a
// task propfin did not make) is asynqmon's. Running every archived task
// at once, or a batch, is refused: the operator API's retry previews the
// selection first.

// dashboardRunSuffix ends the path of Run on one archived task.
const dashboardRunSuffix = ":run"

// dashboard wraps the queue dashboard with propfin's Run of archived
// tasks.
func (s *Server) dashboard(dash http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queue, task, kind, ok := archivedRun(r)
		switch {
		case !ok:
			dash.ServeHTTP(w, r)
		case kind != "":
			writeError(w, r, finance.Errorf(finance.Conflict, "Archived tasks are run one at a time here (%s is refused): "+
				"a task of a failed job runs nothing; POST /operator/jobs/retry retries the failed jobs, with a preview.", kind))
		default:
			s.runArchived(w, r, dash, queue, task)
		}
	})
}

// archivedRun reads a POST of Run on archived tasks: the queue and the
// task id, or kind ("run_all", "batch_run") for the runs of several.
func archivedRun(r *http.Request) (queue, task, kind string, ok bool) {
	if r.Method != http.MethodPost {
		return "", "", "", false
	}
	rest, found := strings.CutPrefix(r.URL.Path, MonitoringPath+"/api/queues/")
	if !found {
		return "", "", "", false
	}
	queue, rest, found = strings.Cut(rest, "/archived_tasks")
	switch {
	case !found || queue == "" || strings.Contains(queue, "/"):
		return "", "", "", false
	case rest == ":run_all" || rest == ":batch_run":
		return queue, "", rest[1:], true
	}
	task, found = strings.CutSuffix(strings.TrimPrefix(rest, "/"), dashboardRunSuffix)
	if !found || task == "" || strings.Contains(task, "/") {
		return "", "", "", false
	}
	return queue, task, "", true
}

// runArchived retries the failed job of an archived task and deletes the
// task; a task of no failed job is the dashboard's to run.
func (s *Server) runArchived(w http.ResponseWriter, r *http.Request, dash http.Handler, queue, task string) {
	ctx := r.Context()
	ref, ok := s.failedJobOfTask(ctx, task)
	if !ok {
		dash.ServeHTTP(w, r)
		return
	}
	err := pgx.BeginFunc(ctx, s.store.Pool(), func(tx pgx.Tx) error {
		if _, err := storage.RetryJob(ctx, tx, ref.CompanyID, ref.ID); err != nil {
			return err
		}
		_, err := storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operatorOf(ctx), Action: "jobs.retry",
			Reason: "Run on its archived task in the queue dashboard", Selection: "archived task " + queue + "/" + task,
			Count: 1, Jobs: [][2]int64{{ref.CompanyID, ref.ID}}})
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	del := r.Clone(ctx)
	del.Method = http.MethodDelete
	del.URL.Path = strings.TrimSuffix(r.URL.Path, dashboardRunSuffix)
	del.Body = http.NoBody
	rec := &statusOnly{header: http.Header{}}
	dash.ServeHTTP(rec, del)
	if rec.status >= 300 {
		s.log.WarnContext(ctx, "queue dashboard: the archived task of a retried job was not deleted", "task", task,
			"queue", queue, "status", rec.status)
	}
	s.log.InfoContext(ctx, "queue dashboard: Run on an archived task retried its failed job", "job_id", ref.ID,
		"company_id", ref.CompanyID, "operator", operatorOf(ctx))
	w.WriteHeader(http.StatusNoContent)
}

// failedJobOfTask is the job of a task id ("<job>" or
// "<job>.<generation>", storage.JobTaskID) when it is failed at that
// generation.
func (s *Server) failedJobOfTask(ctx context.Context, task string) (storage.JobRef, bool) {
	idText, _, _ := strings.Cut(task, ".")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return storage.JobRef{}, false
	}
	company, err := storage.JobCompany(ctx, s.store.Pool(), id)
	if err != nil {
		return storage.JobRef{}, false
	}
	job, err := storage.GetJob(ctx, s.store.Pool(), company, id)
	if err != nil || job.State != storage.JobFailed || job.TaskID() != task {
		return storage.JobRef{}, false
	}
	return storage.JobRef{CompanyID: company, ID: id}, true
}

// statusOnly is a ResponseWriter that keeps the status and drops the body.
type statusOnly struct {
	header http.Header
	status int
}

func (s *statusOnly) Header() http.Header { return s.header }
func (s *statusOnly) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return len(b), nil
}
func (s *statusOnly) WriteHeader(status int) { s.status = status }
