-- The partly paid invoices the overdue run has told falling due
-- (docs/jobs.md, finance:overdue): a partially_paid invoice keeps its
-- status past its due date, so its status cannot say, as an unpaid one's
-- move to overdue does, that its invoice.overdue was sent. A row says it
-- was, for the invoice's due date then: the run tells each partly paid
-- invoice due before its date with no row of that due date (one created
-- after its due date, a due date moved, the nights missed: all told by the
-- next run, once), and drops the rows of those not past due as of its date
-- (a run of an earlier date, as it moves unpaid ones back), so that a later
-- run tells them again. Keyed as the invoices are; no company's row is
-- read by another's run.
CREATE TABLE invoice_past_due_told (
    company_id bigint NOT NULL,
    invoice_id bigint NOT NULL,
    due_date   date NOT NULL,
    told_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, invoice_id),
    FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id) ON DELETE CASCADE
);
