-- What operators read and steer across companies (docs/operations.md,
-- "Operator console"): the errors of every failed run of a job, the
-- operator alerts, and the audit log of what operators did.

-- Each run of a job that failed, with its error: the job row keeps only the
-- last one. Written with the requeue that follows a failed run and with the
-- final failure; deleted with the job.
CREATE TABLE job_errors (
    company_id bigint NOT NULL,
    job_id     bigint NOT NULL,
    attempt    integer NOT NULL,
    generation integer NOT NULL,
    error      text NOT NULL,
    -- the run that ended the job failed (no retry left, or none could help)
    final      boolean NOT NULL,
    at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, job_id, attempt),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);

-- An operator alert: a job that ended failed (once per job and
-- generation), or a company's scheduled run of a date that had not
-- finished at the set time after its firing (once per schedule and date).
-- sent_at is set by whatever delivers alerts (the operator webhook);
-- null: not delivered yet. Alerts outlive the jobs they name (no key to
-- jobs: finished jobs are pruned).
CREATE TABLE operator_alerts (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    kind       text NOT NULL CHECK (kind IN ('job_failed', 'run_missing')),
    job_id     bigint,
    generation integer,
    job_kind   text,
    schedule   text,
    run_date   date,
    -- the unique key of the missing run (of job_kind)
    run_key    text,
    message    text NOT NULL,
    raised_at  timestamptz NOT NULL DEFAULT now(),
    sent_at    timestamptz,
    PRIMARY KEY (company_id, id),
    CHECK (kind <> 'job_failed' OR (job_id IS NOT NULL AND generation IS NOT NULL)),
    CHECK (kind <> 'run_missing' OR (schedule IS NOT NULL AND run_date IS NOT NULL AND job_kind IS NOT NULL AND run_key IS NOT NULL))
);
CREATE UNIQUE INDEX operator_alerts_job ON operator_alerts (company_id, job_id, generation)
    WHERE kind = 'job_failed';
CREATE UNIQUE INDEX operator_alerts_run ON operator_alerts (company_id, schedule, run_date)
    WHERE kind = 'run_missing';
CREATE INDEX operator_alerts_unsent ON operator_alerts (company_id, raised_at)
    WHERE sent_at IS NULL;

-- What operators did through the operator routes: who (the label of the
-- admin token), what, why, on which selection, to how many jobs. Belongs to
-- no company (an action may span several): a reference table.
CREATE TABLE operator_audit (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at        timestamptz NOT NULL DEFAULT now(),
    operator  text NOT NULL,
    action    text NOT NULL,
    reason    text NOT NULL,
    selection text NOT NULL,
    count     integer NOT NULL,
    -- the jobs acted on, [[company_id, job_id], ...]
    jobs      jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX operator_audit_at ON operator_audit (at);

