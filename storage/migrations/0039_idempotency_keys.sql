-- The Idempotency-Key of the writes that answer at once (docs/api.md,
-- "Idempotency-Key"): a refund, a write-off, a termination. A job-starting
-- POST keeps its key on the job (jobs.idempotency_key), the job being its
-- answer; these operations have no job, so the key is kept here with the
-- answer given: the same key and request answers it again, without writing.
--
-- The row is written in the transaction of the operation: inserted first
-- (so that a second request with the key waits on it, then reads it), its
-- answer set before the commit. status and body are null only inside that
-- transaction: a row another transaction sees has them. body is json, not
-- jsonb, so that the answer given again is the one given, byte for byte.
CREATE TABLE idempotency_keys (
    company_id   bigint NOT NULL REFERENCES companies (id),
    key          text NOT NULL,
    -- SHA-256 of the method, the path and the body as sent
    request_hash bytea NOT NULL,
    status       smallint,
    body         json,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, key)
);
-- what jobs:prune deletes, the keys older than the retention
CREATE INDEX idempotency_keys_created ON idempotency_keys (company_id, created_at);
