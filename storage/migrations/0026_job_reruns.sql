-- A run of a unique key may be asked again ("rerun": true, docs/jobs.md,
-- "Once per key"): each run again is a job row of its own, numbered by
-- rerun (0 for the first run of the key, then 1, 2, ...), so the key of a
-- job is now (kind, unique_key, rerun) within the company.
--
-- Runs of one key never overlap: at most one of them is unfinished at a
-- time (pending, queued or running), whichever submitted it (the
-- scheduler, POST /jobs, a rerun, the retry of a failed run).
ALTER TABLE jobs ADD COLUMN rerun integer NOT NULL DEFAULT 0 CHECK (rerun >= 0);
DROP INDEX jobs_unique_key;
CREATE UNIQUE INDEX jobs_unique_key ON jobs (company_id, kind, unique_key, rerun)
    WHERE unique_key IS NOT NULL;
CREATE UNIQUE INDEX jobs_unique_key_unfinished ON jobs (company_id, kind, unique_key)
    WHERE unique_key IS NOT NULL AND state IN ('pending', 'queued', 'running');
