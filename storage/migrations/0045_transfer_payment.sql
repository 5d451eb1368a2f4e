-- How a company pays its owners' transfers (docs/ledger.md, "Paying the
-- transfers"): `at_once`, the nightly run writes each transfer paid on the
-- day of the run (the company pays it by its own means that day, as
-- before this migration), or `batch`, the run writes it unpaid, due, and a
-- payment batch's return file (or a payment marked by hand) pays it, dated
-- the day the money left. Every company keeps `at_once` until it chooses.
ALTER TABLE companies ADD COLUMN transfer_payment text NOT NULL DEFAULT 'at_once'
    CHECK (transfer_payment IN ('at_once', 'batch'));

-- When an entry written unpaid was marked paid (by a payment return file,
-- or by hand): for a transfer of the run, the moment it comes onto its
-- owner's statement, which the close of the owner statements reads as it
-- reads created_at (a transfer paid after its month was closed is stated as
-- an adjustment of that month by the next close).
ALTER TABLE transactions ADD COLUMN paid_recorded_at timestamptz;
CREATE INDEX transactions_paid_recorded ON transactions (company_id, paid_recorded_at)
    WHERE paid_recorded_at IS NOT NULL;
