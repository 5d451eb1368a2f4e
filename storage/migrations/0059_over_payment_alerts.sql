-- The operator alert of an over payment (docs/operations.md, "Alerts"): a
-- bank's return file reports money that came in for an invoice and that
-- nothing books: what a line paid beyond the rest of an invoice partly
-- paid, beyond the bank's own parts, or all of it on an invoice paid
-- already (docs/ledger.md, "Settlement from a bank return file"), to be
-- given back or applied. Raised once per line of a file's content
-- (run_key: the file's SHA-256 and the line) by the return file's job,
-- naming the invoice, as a short payment's.
ALTER TABLE operator_alerts
    DROP CONSTRAINT operator_alerts_kind_check,
    ADD CONSTRAINT operator_alerts_kind_check CHECK (kind IN ('job_failed', 'run_missing', 'void_transfer_paid', 'short_payment',
        'over_payment')),
    ADD CONSTRAINT operator_alerts_over_payment_check CHECK (kind <> 'over_payment'
        OR (job_id IS NOT NULL AND run_key IS NOT NULL AND invoice_id IS NOT NULL));
CREATE UNIQUE INDEX operator_alerts_over_payment ON operator_alerts (company_id, run_key)
    WHERE kind = 'over_payment';
