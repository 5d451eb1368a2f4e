-- The owners' transfers (repasse), written by the contracts:transfer run:
-- docs/ledger.md, "Transfers to the owners".

-- The key of an entry the transfer run writes (a guaranteed transfer's
-- entries, a transfer), unique per company: a run done again, or two runs
-- at once, write each guarantee and each transfer once (ON CONFLICT DO
-- NOTHING). Entries written otherwise have none.
ALTER TABLE transactions ADD COLUMN transfer_key text;
CREATE UNIQUE INDEX transactions_transfer_key ON transactions (company_id, transfer_key)
    WHERE transfer_key IS NOT NULL;

-- The entries settling a guaranteed transfer, found from its credit.
CREATE INDEX transactions_guaranteed_transfer ON transactions (company_id, guaranteed_transfer_id)
    WHERE guaranteed_transfer_id IS NOT NULL;

-- The owners' entries of invoices not paid out yet: what the run reads.
CREATE INDEX transactions_owner_pending ON transactions (company_id, invoice_id)
    WHERE transfer_id IS NULL AND extract = 'owner' AND invoice_id IS NOT NULL;
