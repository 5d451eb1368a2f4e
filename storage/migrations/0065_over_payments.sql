-- The over payments as their company reads them (GET
-- /financial/overPayments, docs/api.md "Over payments"): the company's
-- over_payment alerts, money a payer paid beyond what was due and that
-- nothing books, with what was done with it once someone said so. A view
-- of operator_alerts, so that the company and its operator read and close
-- the same rows: the company through its key (resolved_by names it), the
-- operator through the admin token (with a row of the audit log).
CREATE VIEW over_payments AS
SELECT a.company_id, a.id, a.invoice_id,
       CASE WHEN a.job_id IS NULL THEN 'part' ELSE 'return_file' END AS source,
       a.job_id, a.message, a.raised_at, a.resolved_at IS NULL AS open,
       a.resolution, a.resolution_reason, a.resolved_by, a.resolved_at
FROM operator_alerts a
WHERE a.kind = 'over_payment';
