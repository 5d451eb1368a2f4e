-- The Location header of an answer recorded under an Idempotency-Key
-- (docs/api.md, "Idempotency-Key"): a creation answered 201 names the
-- record it created, and the same key answers it again with the same
-- header. Null for an answer without one.
ALTER TABLE idempotency_keys ADD COLUMN location text;
