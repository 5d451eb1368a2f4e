-- Price indices and contract readjustments (docs/finance.md,
-- "Readjustment"; docs/jobs.md, contracts:readjust).

-- The monthly variation, in percent, of each price index: reference data
-- shared by every company, like states. Filled after migrating from the
-- series shipped in storage/indices/ (source 'shipped') and kept current
-- through PUT /financial/indices ('api') and `propfin indices import`
-- ('import'). A month absent is a month not published yet.
CREATE TABLE price_indices (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    indicator  text NOT NULL CONSTRAINT price_indices_indicator_check CHECK (indicator IN (
                   'IGP-M', 'INCC-M', 'INPC', 'IVAR', 'IPC-BR', 'IPCA', 'IPC-FIPE', 'IGP-DI')),
    -- the month's first day
    month      date NOT NULL CONSTRAINT price_indices_month_check CHECK (extract(day FROM month) = 1),
    rate       numeric(10,4) NOT NULL CONSTRAINT price_indices_rate_check CHECK (rate > -100 AND rate < 10000),
    source     text NOT NULL CONSTRAINT price_indices_source_check CHECK (source IN ('shipped', 'api', 'import')),
    -- who wrote the row last through the API (NULL: shipped or imported);
    -- not a company's row: the table has no company_id
    updated_by_company bigint REFERENCES companies (id),
    updated_by_user    bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT price_indices_month_key UNIQUE (indicator, month)
);

-- What the nightly readjustment walks: the contracts that readjust, in id
-- order (keyset chunks).
CREATE INDEX contracts_readjust ON contracts (company_id, id) WHERE readjust_active;

-- One row per readjustment date of a contract: what was computed and what
-- changed. The unique key makes a re-run on the same date a no-op.
CREATE TABLE contract_readjustments (
    company_id       bigint NOT NULL REFERENCES companies (id),
    id               bigint GENERATED ALWAYS AS IDENTITY,
    contract_id      bigint NOT NULL,
    -- the readjustment date (the contract's readjust_at then)
    readjust_at      date NOT NULL,
    -- 'readjusted' (rent changed) or 'kept' (negative variation, rent kept)
    outcome          text NOT NULL CONSTRAINT contract_readjustments_outcome_check CHECK (outcome IN ('readjusted', 'kept')),
    -- as the contract names it (highest_index, lowest_index) and the index used
    indicator        text NOT NULL,
    index_used       text NOT NULL,
    months           text[] NOT NULL,
    -- exact: at most 120 months of 4-decimal rates, 480 places
    factor           numeric(1000,990) NOT NULL,
    variation        numeric(12,4) NOT NULL,
    old_amount       numeric(14,2) NOT NULL,
    new_amount       numeric(14,2) NOT NULL,
    next_readjust_at date NOT NULL,
    -- unpaid invoices whose rent line moved to new_amount
    invoices_updated integer NOT NULL DEFAULT 0,
    -- 'job' (the nightly run or a started job) or 'user' (the contract operation)
    actor            text NOT NULL,
    actor_id         bigint,
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT contract_readjustments_once UNIQUE (company_id, contract_id, readjust_at),
    CONSTRAINT contract_readjustments_contract_fk FOREIGN KEY (company_id, contract_id)
        REFERENCES contracts (company_id, id) ON DELETE CASCADE
);
