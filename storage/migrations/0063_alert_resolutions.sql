-- An operator alert delivered while it held is posted again, once, when it
-- stops holding (docs/operations.md, "Alerts"): sent_open is whether it
-- held when the webhook delivered it (null: not delivered yet), and
-- resolved_sent_at when its resolution was delivered.
ALTER TABLE operator_alerts
    ADD COLUMN sent_open boolean,
    ADD COLUMN resolved_sent_at timestamptz;

-- The alerts delivered before: whether they held then is not known. Those
-- that still hold were delivered open (an alert that stopped holding does
-- not hold again but for a payment undone), and their resolution is
-- posted when it comes; those that no longer hold are left as delivered
-- (no resolution is posted for them). The condition is the code's
-- openAlertSQL as it is at this migration.
UPDATE operator_alerts a SET sent_open = CASE a.kind
    WHEN 'job_failed' THEN EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = a.company_id AND j.id = a.job_id
        AND j.generation = a.generation AND j.state = 'failed')
    WHEN 'void_transfer_paid' THEN coalesce((SELECT sum(CASE t.type WHEN 'credit' THEN t.amount ELSE -t.amount END)
        FROM transactions x JOIN transactions t ON t.company_id = x.company_id AND t.invoice_id = x.invoice_id
             AND t.owner_id = x.owner_id AND t.extract = 'owner'
        WHERE x.company_id = a.company_id AND x.id = a.transaction_id), 0) < 0
    WHEN 'short_payment' THEN EXISTS (SELECT 1 FROM invoices i WHERE i.company_id = a.company_id AND i.id = a.invoice_id
        AND NOT i.paid) OR EXISTS (SELECT 1 FROM payment_batch_transactions m WHERE m.company_id = a.company_id
        AND m.id = a.payment_id AND m.state NOT IN ('paid', 'cancelled'))
    WHEN 'over_payment' THEN true
    ELSE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = a.company_id AND j.kind = a.job_kind
        AND j.unique_key = a.run_key AND j.state = 'succeeded') END
WHERE a.sent_at IS NOT NULL;

-- The alerts whose resolution may be due: delivered open, resolution not
-- delivered, which the sender reads each minute after the unsent ones
-- (led by the company, as every index of a company's rows, like
-- operator_alerts_unsent).
CREATE INDEX operator_alerts_unresolved ON operator_alerts (company_id, raised_at)
    WHERE sent_open AND resolved_sent_at IS NULL;
