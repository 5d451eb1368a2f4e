-- Foundation: companies, users, API keys, Brazilian states and the first
-- property resources. Every company-owned table keys on (company_id, id) and
-- every reference to another company-owned row is a composite foreign key
-- through company_id, so a row can never point at another company's record.

CREATE TABLE companies (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    name       text NOT NULL,
    email      text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

-- API keys are stored as the SHA-256 of their secret part, never in clear.
CREATE TABLE api_keys (
    company_id   bigint NOT NULL REFERENCES companies (id),
    id           bigint GENERATED ALWAYS AS IDENTITY,
    user_id      bigint NOT NULL,
    name         text NOT NULL DEFAULT '',
    secret_hash  bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz,
    PRIMARY KEY (company_id, id),
    FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id)
);
CREATE UNIQUE INDEX api_keys_company_secret ON api_keys (company_id, secret_hash);

-- Reference data shared by every company.
CREATE TABLE states (
    id           smallint PRIMARY KEY,
    name         text NOT NULL,
    abbreviation char(2) NOT NULL UNIQUE
);

-- IBGE codes of the 27 federative units.
INSERT INTO states (id, name, abbreviation) VALUES
    (11, 'Rondônia', 'RO'),
    (12, 'Acre', 'AC'),
    (13, 'Amazonas', 'AM'),
    (14, 'Roraima', 'RR'),
    (15, 'Pará', 'PA'),
    (16, 'Amapá', 'AP'),
    (17, 'Tocantins', 'TO'),
    (21, 'Maranhão', 'MA'),
    (22, 'Piauí', 'PI'),
    (23, 'Ceará', 'CE'),
    (24, 'Rio Grande do Norte', 'RN'),
    (25, 'Paraíba', 'PB'),
    (26, 'Pernambuco', 'PE'),
    (27, 'Alagoas', 'AL'),
    (28, 'Sergipe', 'SE'),
    (29, 'Bahia', 'BA'),
    (31, 'Minas Gerais', 'MG'),
    (32, 'Espírito Santo', 'ES'),
    (33, 'Rio de Janeiro', 'RJ'),
    (35, 'São Paulo', 'SP'),
    (41, 'Paraná', 'PR'),
    (42, 'Santa Catarina', 'SC'),
    (43, 'Rio Grande do Sul', 'RS'),
    (50, 'Mato Grosso do Sul', 'MS'),
    (51, 'Mato Grosso', 'MT'),
    (52, 'Goiás', 'GO'),
    (53, 'Distrito Federal', 'DF');

CREATE TABLE building_categories (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    description   text NOT NULL,
    color         text NOT NULL,
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

CREATE TABLE building_types (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    description   text,
    category_id   bigint NOT NULL,
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT building_types_category_fk FOREIGN KEY (company_id, category_id)
        REFERENCES building_categories (company_id, id)
);
CREATE INDEX building_types_category ON building_types (company_id, category_id);

CREATE TABLE constructors (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    name          text NOT NULL,
    state_id      smallint REFERENCES states (id),
    notes         text,
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);
CREATE INDEX constructors_state ON constructors (company_id, state_id);

-- A minimal buildings table: enough for include[buildings]; the full
-- resource comes with its own issue.
CREATE TABLE buildings (
    company_id     bigint NOT NULL REFERENCES companies (id),
    id             bigint GENERATED ALWAYS AS IDENTITY,
    reference      text,
    title          text,
    type_id        bigint,
    constructor_id bigint,
    custom_fields  jsonb NOT NULL DEFAULT '{}',
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT buildings_type_fk FOREIGN KEY (company_id, type_id)
        REFERENCES building_types (company_id, id),
    CONSTRAINT buildings_constructor_fk FOREIGN KEY (company_id, constructor_id)
        REFERENCES constructors (company_id, id)
);
CREATE INDEX buildings_type ON buildings (company_id, type_id);
CREATE INDEX buildings_constructor ON buildings (company_id, constructor_id);
