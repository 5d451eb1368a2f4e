-- A run that recorded no outcome (docs/jobs.md, "When something breaks":
-- its worker killed, or cut off while another took its task over) is
-- kept among the job's errors once the next attempt takes the job over,
-- with its times, so that a job of two attempts says why it had a second.
--
-- jobs.run_started_at is the start of the job's latest run (started_at
-- stays the first run's), written by the statements that write a run's
-- start; job_errors.started_at is the start of the run an error row is
-- of (null for the rows written before this migration).
ALTER TABLE jobs ADD COLUMN run_started_at timestamptz;
ALTER TABLE job_errors ADD COLUMN started_at timestamptz;

-- The row of the run taken over: the row was still running at its
-- attempt (every outcome, a requeue and a yield move it off running) when
-- a later attempt of the same generation wrote its start. at is when it
-- was found (the takeover); the run's end is not known.
CREATE FUNCTION jobs_record_interrupted_run() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_errors (company_id, job_id, attempt, generation, error, final, started_at)
    VALUES (OLD.company_id, OLD.id, OLD.attempts, OLD.generation,
        'The run was interrupted: it recorded no outcome (its worker was lost), and attempt '
            || NEW.attempts || ' took the job over.',
        false, OLD.run_started_at)
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

-- The WHEN clause keeps every other update of jobs from calling the
-- function: only a takeover matches.
CREATE TRIGGER jobs_interrupted_run AFTER UPDATE OF attempts ON jobs
    FOR EACH ROW
    WHEN (OLD.state = 'running' AND NEW.attempts > OLD.attempts AND NEW.generation = OLD.generation)
    EXECUTE FUNCTION jobs_record_interrupted_run();
