-- The fields whose null the rules read as a fixed default store that
-- default, so that a record reads what it is billed, readjusted and paid
-- out by (docs/api.md, "Defaults"): a contract's modality (start),
-- readjust_with (12 months) and transfer_mode (manually: no automatic
-- transfer); a contract item's calculate_mode (fixed) and percentage_mode
-- (rental_value). New rows get them from the column's default; the rows
-- written before are given them here. NOT NULL is the backstop of the
-- API's refusal of a null.
UPDATE contracts SET modality = coalesce(modality, 'start'), readjust_with = coalesce(readjust_with, 12),
        transfer_mode = coalesce(transfer_mode, 'manually')
    WHERE modality IS NULL OR readjust_with IS NULL OR transfer_mode IS NULL;

ALTER TABLE contracts
    ALTER COLUMN modality SET DEFAULT 'start',
    ALTER COLUMN modality SET NOT NULL,
    ALTER COLUMN readjust_with SET DEFAULT 12,
    ALTER COLUMN readjust_with SET NOT NULL,
    ALTER COLUMN transfer_mode SET DEFAULT 'manually',
    ALTER COLUMN transfer_mode SET NOT NULL;

UPDATE contract_items SET calculate_mode = coalesce(calculate_mode, 'fixed'),
        percentage_mode = coalesce(percentage_mode, 'rental_value')
    WHERE calculate_mode IS NULL OR percentage_mode IS NULL;

ALTER TABLE contract_items
    ALTER COLUMN calculate_mode SET DEFAULT 'fixed',
    ALTER COLUMN calculate_mode SET NOT NULL,
    ALTER COLUMN percentage_mode SET DEFAULT 'rental_value',
    ALTER COLUMN percentage_mode SET NOT NULL;
