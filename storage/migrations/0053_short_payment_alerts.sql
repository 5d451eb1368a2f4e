-- The operator alert of a short payment (docs/operations.md, "Alerts"): a
-- bank's return file reports a title or a payment paid with less than its
-- parts add up to, which a return file does not book (docs/ledger.md,
-- "Settlement from a bank return file", "A payable paid from a bank return
-- file"). Raised once per line of a file's content (run_key: the file's
-- SHA-256 and the line), by the return file's job; it names the invoice
-- (a collection title) or the payment (a payment batch's member), and
-- holds while that is not paid.
ALTER TABLE operator_alerts
    ADD COLUMN invoice_id bigint,
    ADD COLUMN payment_id bigint,
    DROP CONSTRAINT operator_alerts_kind_check,
    ADD CONSTRAINT operator_alerts_kind_check CHECK (kind IN ('job_failed', 'run_missing', 'void_transfer_paid', 'short_payment')),
    ADD CONSTRAINT operator_alerts_short_payment_check CHECK (kind <> 'short_payment'
        OR (job_id IS NOT NULL AND run_key IS NOT NULL AND (invoice_id IS NOT NULL) <> (payment_id IS NOT NULL)));
CREATE UNIQUE INDEX operator_alerts_short_payment ON operator_alerts (company_id, run_key)
    WHERE kind = 'short_payment';
