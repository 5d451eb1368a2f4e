-- The bank's tariffs a return file reports on lines of their own (a fee
-- occurrence: "débito de tarifas", a monthly tariff), booked as the
-- business's expense by the batch:return job: docs/ledger.md, "Tariffs on
-- lines of their own".

-- The key of an entry a bank return file wrote: the file's content
-- (SHA-256) and line, unique per company, so that a tariff is booked once
-- however often the same file is read or uploaded (ON CONFLICT DO
-- NOTHING). Entries written otherwise have none.
ALTER TABLE transactions ADD COLUMN return_key text;
CREATE UNIQUE INDEX transactions_return_key ON transactions (company_id, return_key)
    WHERE return_key IS NOT NULL;
