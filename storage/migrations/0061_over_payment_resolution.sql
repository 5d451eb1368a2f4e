-- The over_payment alert is closed by saying what was done with the money
-- (docs/operations.md, "Alerts"): nothing in the ledger records money that
-- was booked nowhere, so the alert holds until an operator records that it
-- was given back (refunded), applied (to another invoice, a credit of the
-- payer's) or otherwise dealt with (other), with a reason; the action is
-- in the operators' audit log too (audit_id). An over payment of a part
-- recorded by hand (a payment by the discount date of more than the
-- discounted amount) is raised by no job: its key is the payment's.
ALTER TABLE operator_alerts
    ADD COLUMN resolution text CONSTRAINT operator_alerts_resolution_check
        CHECK (resolution IN ('refunded', 'applied', 'other')),
    ADD COLUMN resolution_reason text,
    ADD COLUMN resolved_by text,
    ADD COLUMN resolved_at timestamptz,
    ADD COLUMN resolution_audit_id bigint,
    ADD CONSTRAINT operator_alerts_resolved_check CHECK (
        (resolution IS NULL AND resolution_reason IS NULL AND resolved_by IS NULL AND resolved_at IS NULL
            AND resolution_audit_id IS NULL)
        OR (kind = 'over_payment' AND resolution_reason IS NOT NULL AND resolved_by IS NOT NULL AND resolved_at IS NOT NULL)),
    DROP CONSTRAINT operator_alerts_over_payment_check,
    ADD CONSTRAINT operator_alerts_over_payment_check CHECK (kind <> 'over_payment'
        OR (run_key IS NOT NULL AND invoice_id IS NOT NULL));
-- The over payments not resolved, however old: GET /operator/alerts and
-- the gauge read them beside the week's alerts.
CREATE INDEX operator_alerts_over_payment_open ON operator_alerts (company_id, raised_at)
    WHERE kind = 'over_payment' AND resolved_at IS NULL;
