-- A readjustment record's factor as an unconstrained numeric: still exact
-- (PostgreSQL keeps every digit it is given), without padding each value
-- to 990 decimal places as numeric(1000,990) did, which took about 500
-- bytes a row to store and write. The values keep their digits
-- (trim_scale drops only the padding zeros).
--
-- The record's foreign key to companies goes: its key to contracts
-- (company_id, contract_id) already implies it, and each insert paid for
-- both checks.
ALTER TABLE contract_readjustments
    DROP CONSTRAINT contract_readjustments_company_id_fkey,
    ALTER COLUMN factor TYPE numeric USING trim_scale(factor);
