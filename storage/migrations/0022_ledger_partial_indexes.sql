-- The ledger's indexes on the columns most entries leave empty hold the
-- entries that have a value, and no others (docs/performance.md,
-- "Collection batch of 100,000 invoices"). An entry is written with no
-- transfer_id (the transfer run sets it later) and no reverses_id (only a
-- reversal has one); most have no broker, and an invoice's payment writes
-- no tenant, contract or plan on the entries its lines and parties do not
-- name, nor an owner on its customer's and business's entries. Each such
-- entry used to add a key of NULLs to each of these indexes: a payment
-- settled from a bank return spent about a seventh of its ledger insert's
-- CPU on them.
--
-- Every filter, relation and check that reads these indexes looks for a
-- value (column = value, = any(values), IN (subquery), the reversal's NOT
-- EXISTS on reverses_id = id, the foreign keys' checks of the entries that
-- point at one), which implies the column is not NULL: they use the
-- partial index as they used the whole one. Nothing looks rows up by one
-- of these columns being NULL through an index (a NotIn filter keeps the
-- rows without a value): most rows would match. A list sorted by one of
-- these columns can no longer read its order from the index, which lacks
-- the rows without a value: it sorts the rows its filters select.
--
-- Rebuilding them holds the ledger's writes for the time of the builds
-- (docs/storage.md, "Migrations").

DROP INDEX transactions_transfer;
CREATE INDEX transactions_transfer ON transactions (company_id, transfer_id) WHERE transfer_id IS NOT NULL;

DROP INDEX transactions_reverses;
CREATE INDEX transactions_reverses ON transactions (company_id, reverses_id) WHERE reverses_id IS NOT NULL;

DROP INDEX transactions_broker;
CREATE INDEX transactions_broker ON transactions (company_id, broker_id) WHERE broker_id IS NOT NULL;

DROP INDEX transactions_tenant;
CREATE INDEX transactions_tenant ON transactions (company_id, tenant_id) WHERE tenant_id IS NOT NULL;

DROP INDEX transactions_contract;
CREATE INDEX transactions_contract ON transactions (company_id, contract_id) WHERE contract_id IS NOT NULL;

DROP INDEX transactions_plan;
CREATE INDEX transactions_plan ON transactions (company_id, plan_id) WHERE plan_id IS NOT NULL;

DROP INDEX transactions_owner;
CREATE INDEX transactions_owner ON transactions (company_id, owner_id, date) WHERE owner_id IS NOT NULL;
