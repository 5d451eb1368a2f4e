-- Supporting resources of the finance API: persons, businesses, bank
-- accounts, the chart of plans, billing profiles, tags, and the rest of the
-- buildings (address and owners). Every table keys on (company_id, id),
-- every reference is a composite foreign key through company_id, and every
-- index leads with company_id.
--
-- Text checks: tax ids are digits only, 11 (CPF) or 14 (CNPJ); their check
-- digits are not verified by the schema. Zip codes (CEP) are 8 digits, kept
-- as text so that a leading zero is not lost. States are the federative
-- units' abbreviations. Bank codes are 3 digits.

CREATE TABLE persons (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    name          text NOT NULL,
    tax_id        text CONSTRAINT persons_tax_id_check CHECK (tax_id ~ '^([0-9]{11}|[0-9]{14})$'),
    email         text,
    phone         text,
    zip_code      text CONSTRAINT persons_zip_code_check CHECK (zip_code ~ '^[0-9]{8}$'),
    street        text,
    number        text,
    complement    text,
    district      text,
    city          text,
    state         text CONSTRAINT persons_state_check CHECK (state IN (
                      'AC', 'AL', 'AP', 'AM', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MT', 'MS', 'MG', 'PA',
                      'PB', 'PR', 'PE', 'PI', 'RJ', 'RN', 'RS', 'RO', 'RR', 'SC', 'SP', 'SE', 'TO')),
    bank          text CONSTRAINT persons_bank_check CHECK (bank ~ '^[0-9]{3}$'),
    agency        text CONSTRAINT persons_agency_check CHECK (agency ~ '^[0-9]{1,5}$'),
    agency_digit  text CONSTRAINT persons_agency_digit_check CHECK (agency_digit ~ '^[0-9A-Za-z]{1,2}$'),
    account       text CONSTRAINT persons_account_check CHECK (account ~ '^[0-9]{1,20}$'),
    account_digit text CONSTRAINT persons_account_digit_check CHECK (account_digit ~ '^[0-9A-Za-z]{1,2}$'),
    account_type  text CONSTRAINT persons_account_type_check CHECK (account_type IN ('checking', 'savings', 'payment')),
    pix_key       text CONSTRAINT persons_pix_key_check CHECK (length(pix_key) BETWEEN 1 AND 77),
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);
CREATE INDEX persons_tax_id ON persons (company_id, tax_id);

-- The companies (CNPJ) a property manager issues titles and keeps books as.
CREATE TABLE businesses (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    name          text NOT NULL,
    tax_id        text CONSTRAINT businesses_tax_id_check CHECK (tax_id ~ '^[0-9]{14}$'),
    zip_code      text CONSTRAINT businesses_zip_code_check CHECK (zip_code ~ '^[0-9]{8}$'),
    street        text,
    number        text,
    complement    text,
    district      text,
    city          text,
    state         text CONSTRAINT businesses_state_check CHECK (state IN (
                      'AC', 'AL', 'AP', 'AM', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MT', 'MS', 'MG', 'PA',
                      'PB', 'PR', 'PE', 'PI', 'RJ', 'RN', 'RS', 'RO', 'RR', 'SC', 'SP', 'SE', 'TO')),
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

-- A bank account of a business, with what a CNAB remittance needs. The
-- remittance file sequence and the next "nosso número" are kept here, per
-- account, and written only by the remittance work.
CREATE TABLE accounts (
    company_id         bigint NOT NULL REFERENCES companies (id),
    id                 bigint GENERATED ALWAYS AS IDENTITY,
    business_id        bigint NOT NULL,
    description        text,
    bank               text CONSTRAINT accounts_bank_check CHECK (bank ~ '^[0-9]{3}$'),
    layout             text CONSTRAINT accounts_layout_check CHECK (layout IN ('cnab240', 'cnab400')),
    agency             text CONSTRAINT accounts_agency_check CHECK (agency ~ '^[0-9]{1,5}$'),
    agency_digit       text CONSTRAINT accounts_agency_digit_check CHECK (agency_digit ~ '^[0-9A-Za-z]{1,2}$'),
    account            text CONSTRAINT accounts_account_check CHECK (account ~ '^[0-9]{1,20}$'),
    account_digit      text CONSTRAINT accounts_account_digit_check CHECK (account_digit ~ '^[0-9A-Za-z]{1,2}$'),
    wallet             text,
    wallet_variation   text,
    covenant           text,
    transmission_code  text,
    station            text,
    modality           text,
    pix_key            text CONSTRAINT accounts_pix_key_check CHECK (length(pix_key) BETWEEN 1 AND 77),
    next_file_sequence bigint NOT NULL DEFAULT 1 CONSTRAINT accounts_next_file_sequence_check CHECK (next_file_sequence >= 1),
    next_nosso_numero  bigint NOT NULL DEFAULT 1 CONSTRAINT accounts_next_nosso_numero_check CHECK (next_nosso_numero >= 1),
    custom_fields      jsonb NOT NULL DEFAULT '{}',
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT accounts_business_fk FOREIGN KEY (company_id, business_id)
        REFERENCES businesses (company_id, id)
);
CREATE INDEX accounts_business ON accounts (company_id, business_id);

-- The chart of plans (plano de contas): a tree through parent_id.
CREATE TABLE plans (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    name          text NOT NULL,
    code          text,
    parent_id     bigint CONSTRAINT plans_parent_id_check CHECK (parent_id <> id),
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT plans_parent_fk FOREIGN KEY (company_id, parent_id)
        REFERENCES plans (company_id, id)
);
CREATE INDEX plans_parent ON plans (company_id, parent_id);
CREATE UNIQUE INDEX plans_code_key ON plans (company_id, code);

-- A billing profile: how a charge is collected, into which account, and the
-- late-fee and discount defaults of its slips.
CREATE TABLE billings (
    company_id                 bigint NOT NULL REFERENCES companies (id),
    id                         bigint GENERATED ALWAYS AS IDENTITY,
    name                       text NOT NULL,
    billing_method             text CONSTRAINT billings_billing_method_check CHECK (billing_method IN (
                                   'ticket', 'cash', 'deposit', 'pix', 'ted', 'credit', 'debit', 'check', 'debit_account')),
    account_id                 bigint,
    ticket_late_fee            boolean NOT NULL DEFAULT false,
    ticket_late_fee_percentage numeric(5,2) CONSTRAINT billings_ticket_late_fee_percentage_check
                                   CHECK (ticket_late_fee_percentage BETWEEN 0 AND 100),
    ticket_late_fee_interest   numeric(5,2) CONSTRAINT billings_ticket_late_fee_interest_check
                                   CHECK (ticket_late_fee_interest BETWEEN 0 AND 100),
    ticket_discount            boolean NOT NULL DEFAULT false,
    ticket_discount_mode       text CONSTRAINT billings_ticket_discount_mode_check
                                   CHECK (ticket_discount_mode IN ('fixed', 'percentage')),
    ticket_discount_fixed      numeric(14,2) CONSTRAINT billings_ticket_discount_fixed_check
                                   CHECK (ticket_discount_fixed >= 0),
    ticket_discount_percentage numeric(5,2) CONSTRAINT billings_ticket_discount_percentage_check
                                   CHECK (ticket_discount_percentage BETWEEN 0 AND 100),
    ticket_discount_days       integer CONSTRAINT billings_ticket_discount_days_check
                                   CHECK (ticket_discount_days >= 0),
    custom_fields              jsonb NOT NULL DEFAULT '{}',
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT billings_account_fk FOREIGN KEY (company_id, account_id)
        REFERENCES accounts (company_id, id)
);
CREATE INDEX billings_account ON billings (company_id, account_id);

CREATE TABLE tags (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    name       text NOT NULL,
    color      text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);
CREATE UNIQUE INDEX tags_name_key ON tags (company_id, name);

-- The buildings' address.
ALTER TABLE buildings
    ADD COLUMN zip_code   text CONSTRAINT buildings_zip_code_check CHECK (zip_code ~ '^[0-9]{8}$'),
    ADD COLUMN street     text,
    ADD COLUMN number     text,
    ADD COLUMN complement text,
    ADD COLUMN district   text,
    ADD COLUMN city       text,
    ADD COLUMN state      text CONSTRAINT buildings_state_check CHECK (state IN (
                              'AC', 'AL', 'AP', 'AM', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MT', 'MS', 'MG', 'PA',
                              'PB', 'PR', 'PE', 'PI', 'RJ', 'RN', 'RS', 'RO', 'RR', 'SC', 'SP', 'SE', 'TO'));

-- The owners of a building and their shares. A person owns a building once.
CREATE TABLE building_owners (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    building_id bigint NOT NULL,
    person_id   bigint NOT NULL,
    percentage  numeric(5,2) CONSTRAINT building_owners_percentage_check CHECK (percentage > 0 AND percentage <= 100),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT building_owners_building_fk FOREIGN KEY (company_id, building_id)
        REFERENCES buildings (company_id, id),
    CONSTRAINT building_owners_person_fk FOREIGN KEY (company_id, person_id)
        REFERENCES persons (company_id, id)
);
CREATE UNIQUE INDEX building_owners_person_id_key ON building_owners (company_id, building_id, person_id);
CREATE INDEX building_owners_person ON building_owners (company_id, person_id);
