-- The job platform: PostgreSQL holds the truth about every job (an outbox);
-- Redis (asynq) only carries it to a worker. See docs/jobs.md.

-- Schedules fan out per company in the company's own time zone.
ALTER TABLE companies ADD COLUMN time_zone text NOT NULL DEFAULT 'America/Sao_Paulo';

CREATE TABLE jobs (
    company_id      bigint NOT NULL REFERENCES companies (id),
    id              bigint GENERATED ALWAYS AS IDENTITY,
    kind            text NOT NULL,
    queue           text NOT NULL,
    state           text NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'queued', 'running', 'succeeded', 'failed', 'canceled')),
    -- payload and result are json, not jsonb: kept as written, never
    -- searched, and a bulk job's run to megabytes that jsonb would parse
    payload         json NOT NULL DEFAULT '{}',
    progress        jsonb NOT NULL DEFAULT '{"done": 0, "total": 0}',
    result          json,
    error           text,
    -- attempts counts the runs started; generation counts the retries asked
    -- through the API, and names the asynq task (id, then id.generation).
    attempts        integer NOT NULL DEFAULT 0,
    generation      integer NOT NULL DEFAULT 0,
    -- work that may happen once per key (a company's nightly run of a date)
    unique_key      text,
    -- a client's Idempotency-Key, with the hash of the request it came with
    idempotency_key text,
    request_hash    bytea,
    submitted_by    text NOT NULL,
    user_id         bigint,
    created_at      timestamptz NOT NULL DEFAULT now(),
    queued_at       timestamptz,
    started_at      timestamptz,
    finished_at     timestamptz,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id)
);
CREATE UNIQUE INDEX jobs_unique_key ON jobs (company_id, kind, unique_key)
    WHERE unique_key IS NOT NULL;
CREATE UNIQUE INDEX jobs_idempotency_key ON jobs (company_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
-- What the relay takes, oldest first, and what it checks again when it
-- goes quiet: across companies, the one exception to indexes leading with
-- company_id (partial, so they hold only the jobs in flight).
CREATE INDEX jobs_relay_pending ON jobs (id) WHERE state = 'pending';
CREATE INDEX jobs_relay_in_flight ON jobs (updated_at) WHERE state IN ('queued', 'running');
-- what housekeeping deletes
CREATE INDEX jobs_finished ON jobs (company_id, finished_at)
    WHERE state IN ('succeeded', 'failed', 'canceled');
CREATE INDEX jobs_created ON jobs (company_id, created_at);

-- The outputs of the chunks of a job done so far: a job interrupted in
-- the middle resumes after its last recorded chunk, and each chunk is
-- recorded once (its key).
CREATE TABLE job_chunks (
    company_id bigint NOT NULL,
    job_id     bigint NOT NULL,
    chunk      integer NOT NULL,
    output     json NOT NULL,
    PRIMARY KEY (company_id, job_id, chunk),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
