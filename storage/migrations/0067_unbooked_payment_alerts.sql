-- The operator alert of a payment the bank made and nothing booked
-- (docs/operations.md, "Alerts"): a payment return's line reports a
-- payment of a batch paid, the money out of the account, and the line
-- books nothing (not_settled: its entry deleted, in another batch since,
-- dated on a day to come, ...; already_paid: its entry was paid already,
-- the bank may have paid twice). Raised once per line of a file's content
-- (run_key: the file's SHA-256 and the line) by the return file's job,
-- naming the payment (a payment batch's member). Nothing in the ledger
-- closes it: it holds until an operator records what was done (as an
-- over payment's: refunded, applied, other).
ALTER TABLE operator_alerts
    DROP CONSTRAINT operator_alerts_kind_check,
    ADD CONSTRAINT operator_alerts_kind_check CHECK (kind IN ('job_failed', 'run_missing', 'void_transfer_paid', 'short_payment',
        'over_payment', 'unbooked_payment')),
    ADD CONSTRAINT operator_alerts_unbooked_payment_check CHECK (kind <> 'unbooked_payment'
        OR (job_id IS NOT NULL AND run_key IS NOT NULL AND payment_id IS NOT NULL)),
    DROP CONSTRAINT operator_alerts_resolved_check,
    ADD CONSTRAINT operator_alerts_resolved_check CHECK (
        (resolution IS NULL AND resolution_reason IS NULL AND resolved_by IS NULL AND resolved_at IS NULL
            AND resolution_audit_id IS NULL)
        OR (kind IN ('over_payment', 'unbooked_payment') AND resolution_reason IS NOT NULL AND resolved_by IS NOT NULL
            AND resolved_at IS NOT NULL));
CREATE UNIQUE INDEX operator_alerts_unbooked_payment ON operator_alerts (company_id, run_key)
    WHERE kind = 'unbooked_payment';
-- The alerts resolved by hand not resolved, however old: GET
-- /operator/alerts and the gauge read them beside the week's alerts.
DROP INDEX operator_alerts_over_payment_open;
CREATE INDEX operator_alerts_over_payment_open ON operator_alerts (company_id, raised_at)
    WHERE kind IN ('over_payment', 'unbooked_payment') AND resolved_at IS NULL;
