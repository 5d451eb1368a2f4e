-- A voided transfer the bank pays all the same (docs/ledger.md, "An undone
-- payment whose transfer is unpaid"): an owner's transfer reverted in its
-- payment batch, voided with the undo of the payment it paid out, that the
-- bank pays anyway. The payment return records it (the transfer paid, its
-- void reversed: the owner owes it) and raises an operator alert of its own
-- kind, once per transfer, naming the transfer (transaction_id). Like the
-- other alerts it outlives what it names: no key to transactions. Neither
-- the voided transfer nor its void is due: the entries' status says so
-- (transaction_reversed, below).
ALTER TABLE operator_alerts ADD COLUMN transaction_id bigint;
ALTER TABLE operator_alerts DROP CONSTRAINT operator_alerts_kind_check;
ALTER TABLE operator_alerts ADD CONSTRAINT operator_alerts_kind_check
    CHECK (kind IN ('job_failed', 'run_missing', 'void_transfer_paid'));
ALTER TABLE operator_alerts ADD CONSTRAINT operator_alerts_void_transfer_paid_check
    CHECK (kind <> 'void_transfer_paid' OR transaction_id IS NOT NULL);
CREATE UNIQUE INDEX operator_alerts_transaction ON operator_alerts (company_id, transaction_id)
    WHERE kind = 'void_transfer_paid';

-- Whether a ledger entry is reversed (an entry's reverses_id names it), as
-- a function of the entry's company and id: the entries' status
-- (docs/api.md, "/transactions": void, an entry cancelled by its reversal
-- before either was paid) reads it in the expression of a column, where a
-- subquery could not name the row it is read for. It uses the partial
-- index of reverses_id.
CREATE FUNCTION transaction_reversed(company bigint, entry bigint) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = company AND r.reverses_id = entry) $$;
