-- An invoice's auto_transfer_status, kept from now on by the owners'
-- transfer run, the posting of a payment and its undoing (docs/ledger.md,
-- "The invoice's auto_transfer_status"; storage/transfer_status.go).
--
-- The invoices the run wrote to before this version have no status: they
-- get the one their ledger says, with a history row each (actor system,
-- origin transfer). Only invoices with owners' entries or transfers can
-- have one; any other value is cleared.
WITH f AS (
    SELECT i.company_id, i.id, i.auto_transfer_status AS stored,
        coalesce(NOT i.transfer_auto_disabled AND (
            c.transfer_mode = 'after_receive' AND coalesce(c.transfer_after_days, 0) >= 0
            OR c.transfer_mode IN ('fixed_day', 'fixed_day_or_next') AND c.transfer_after_days BETWEEN 1 AND 31), false) AS automatic,
        i.paid_amount IS NOT NULL AS posted,
        EXISTS (SELECT 1 FROM transactions g WHERE g.company_id = i.company_id AND g.invoice_id = i.id
                AND g.mode = 'guaranteed_rent' AND g.transfer_key IS NOT NULL) AS guaranteed,
        EXISTS (SELECT 1 FROM transactions t WHERE t.company_id = i.company_id AND t.invoice_id = i.id
                AND t.transfer_id IS NULL AND t.extract = 'owner' AND t.owner_id IS NOT NULL
                AND t.type IN ('debit', 'credit') AND t.mode IN ('invoice', 'chargeback', 'guaranteed_rent')
                GROUP BY t.owner_id HAVING sum(CASE t.type WHEN 'credit' THEN t.amount ELSE -t.amount END) > 0) AS owed,
        EXISTS (SELECT 1 FROM transactions x WHERE x.company_id = i.company_id AND x.invoice_id = i.id
                AND x.mode = 'transfer' AND x.transfer_key IS NOT NULL) AS transferred
    FROM invoices i
    LEFT JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
    WHERE i.auto_transfer_status IS NOT NULL
       OR EXISTS (SELECT 1 FROM transactions e WHERE e.company_id = i.company_id AND e.invoice_id = i.id
                  AND (e.extract = 'owner' OR e.mode = 'transfer'))
), s AS (
    SELECT company_id, id, stored, CASE
        WHEN NOT automatic THEN NULL
        WHEN guaranteed AND NOT posted THEN 'guaranteed'
        WHEN owed THEN 'waiting'
        WHEN transferred AND posted THEN 'transferred'
        WHEN transferred THEN 'chargeback' END AS status
    FROM f
), upd AS (
    UPDATE invoices i SET auto_transfer_status = s.status, updated_at = now()
    FROM s
    WHERE i.company_id = s.company_id AND i.id = s.id AND s.status IS DISTINCT FROM s.stored
    RETURNING i.company_id, i.id, s.stored, s.status
)
INSERT INTO invoice_history (company_id, invoice_id, actor, origin, changes, note)
SELECT company_id, id, 'system', 'transfer',
    jsonb_build_array(jsonb_build_object('field', 'auto_transfer_status', 'from', stored, 'to', status)),
    'the status of the transfers made before it was kept'
FROM upd;

ALTER TABLE invoices ADD CONSTRAINT invoices_auto_transfer_status_check
    CHECK (auto_transfer_status IN ('waiting', 'guaranteed', 'transferred', 'chargeback'));
