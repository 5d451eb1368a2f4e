-- Refunds and write-offs of invoices (docs/ledger.md, "Refunds" and
-- "Write-offs"; docs/api.md, "Invoices").
--
-- A refund gives the payer back part or all of a payment that stands: the
-- payment's entries stay, and the refund adds entries (mode chargeback)
-- taking back part of each, each pointing at the entry it takes from
-- (refunds_id): what is left of an entry to refund is its amount less the
-- refund entries pointing at it. reverses_id stays what it was, the entry
-- a reversal undoes whole, so that every reader of "reversed" is unchanged.
-- The invoice keeps the sum of its payment's refunds (refunded_amount; null
-- when none, as paid_amount is null when no payment is posted).
--
-- A write-off makes an open invoice uncollectible on a day
-- (written_off_at), and books its loss on the business's statement with
-- the company's write_off_item_id when it keeps one (null: not booked).
-- companies is a reference table, so the setting has no foreign key to the
-- company's transaction items (a reference table refers to no company-owned
-- one); the settings' write checks it, and a write-off refuses an item that
-- is gone.
ALTER TABLE transactions ADD COLUMN refunds_id bigint,
    ADD CONSTRAINT transactions_refunds_fk FOREIGN KEY (company_id, refunds_id) REFERENCES transactions (company_id, id);
-- the refunds of an entry, and the key's check when an entry is deleted
CREATE INDEX transactions_refunds ON transactions (company_id, refunds_id) WHERE refunds_id IS NOT NULL;

ALTER TABLE invoices ADD COLUMN refunded_amount numeric(14,2),
    ADD COLUMN written_off_at date;

ALTER TABLE companies ADD COLUMN write_off_item_id bigint;
