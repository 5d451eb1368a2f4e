-- What the contracts' filters and includes point at that no resource has
-- built yet: the condominium of a building (filter[condominiumIn][]) and
-- a minimal calendar events table (include[events]). The condominiums and
-- calendar events resources extend both.

-- The condominium or development a building belongs to. No foreign key
-- yet: the condominiums table comes with its resource, which adds it.
ALTER TABLE buildings ADD COLUMN condominium_id bigint;
CREATE INDEX buildings_condominium ON buildings (company_id, condominium_id);

-- Calendar events, as far as a contract sees them. An event outlives the
-- contract it is linked to: deleting the contract unlinks it.
CREATE TABLE events (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    contract_id bigint,
    title       text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT events_contract_fk FOREIGN KEY (company_id, contract_id)
        REFERENCES contracts (company_id, id) ON DELETE SET NULL (contract_id)
);
CREATE INDEX events_contract ON events (company_id, contract_id);
