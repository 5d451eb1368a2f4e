-- The due dates a run of the invoices pass tells the partly paid invoices
-- falling due from (docs/jobs.md, finance:overdue): a partially_paid
-- invoice keeps its status past its due date, and the run sends its
-- invoice.overdue when its due date is from past_due_from up to the day
-- before the run's date. The first chunk of a run sets it to the
-- as_of_high it found (the latest date the stored statuses held for: the
-- invoices due before it fell due for an earlier run), and the run's
-- later chunks read it as it was set; NULL when the dates were not known,
-- the run then telling those due on the day before its date only.
ALTER TABLE overdue_state ADD COLUMN past_due_from date;
