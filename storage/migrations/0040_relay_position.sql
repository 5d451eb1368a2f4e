-- The relay writes nothing on a job row (docs/jobs.md, "A job's life"): it
-- keeps its position in the outbox in one row of job_relay, moved once a
-- batch, instead of marking each row it hands to Redis queued. A job is
-- ordered for the relay by the transaction that made it pending
-- (relay_xid, the top-level transaction id, 64 bits, never wrapping) and
-- its id. Transaction ids are not in commit order, so the position is
-- what the relay's last read could not see: the rows at or after
-- (next_xid, next_id), and those of the transactions still in progress
-- then (late).
ALTER TABLE jobs ADD COLUMN relay_xid xid8;
ALTER TABLE jobs ALTER COLUMN relay_xid SET DEFAULT pg_current_xact_id();
-- the rows pending now are read by the first pass
UPDATE jobs SET relay_xid = '0' WHERE state = 'pending';
DROP INDEX jobs_relay_pending;
CREATE INDEX jobs_relay_pending ON jobs (relay_xid, id) WHERE state = 'pending';

-- One row: the relay's position. Belongs to no company (a relay serves
-- them all); it stays on the coordinator under Citus, as the relay does.
-- Updated once a pass, in place (a fill factor that leaves room for its
-- versions on its page).
CREATE TABLE job_relay (
    one        boolean PRIMARY KEY DEFAULT true CHECK (one),
    next_xid   xid8 NOT NULL DEFAULT '0',
    next_id    bigint NOT NULL DEFAULT 0,
    late       xid8[] NOT NULL DEFAULT '{}',
    updated_at timestamptz NOT NULL DEFAULT now()
) WITH (fillfactor = 10);
INSERT INTO job_relay DEFAULT VALUES;
