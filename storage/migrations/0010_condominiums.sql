-- The non-financial resources of spec 000: condominiums and developments
-- with their unit-type groups and the groups' purposes, their units and
-- related people; the location records they point at (countries, cities,
-- districts); users, user teams with their members, and user groups with
-- their users, permissions, buildings and persons. Every table keys on
-- (company_id, id), and every reference is a composite foreign key
-- through company_id.

-- Users: writable now (/users), so they carry updated_at like every
-- written record, and custom fields.
ALTER TABLE users
    ADD COLUMN updated_at    timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}';

-- Locations a condominium points at. States are the shared IBGE table.
CREATE TABLE countries (
    company_id   bigint NOT NULL REFERENCES companies (id),
    id           bigint GENERATED ALWAYS AS IDENTITY,
    name         text NOT NULL,
    abbreviation text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

CREATE TABLE cities (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    name       text NOT NULL,
    state_id   smallint REFERENCES states (id),
    country_id bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT cities_country_fk FOREIGN KEY (company_id, country_id) REFERENCES countries (company_id, id)
);
CREATE INDEX cities_country ON cities (company_id, country_id);
CREATE INDEX cities_state ON cities (company_id, state_id);

CREATE TABLE districts (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    name       text NOT NULL,
    city_id    bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT districts_city_fk FOREIGN KEY (company_id, city_id) REFERENCES cities (company_id, id)
);
CREATE INDEX districts_city ON districts (company_id, city_id);

-- Condominiums and developments (mode 'release': a launch). The id arrays
-- (tag, responsible, pickup, details) are checked by the API where they
-- name records; no foreign key can check an array.
CREATE TABLE condominiums (
    company_id       bigint NOT NULL REFERENCES companies (id),
    id               bigint GENERATED ALWAYS AS IDENTITY,
    id2              bigint,
    mode             text NOT NULL CONSTRAINT condominiums_mode_check CHECK (mode IN ('condominium', 'release')),
    status           text NOT NULL,
    lock             text,
    type_id          bigint NOT NULL,
    stage_id         bigint,
    country_id       bigint,
    state_id         smallint REFERENCES states (id),
    city_id          bigint,
    district_id      bigint,
    tag              bigint[] DEFAULT '{}',
    responsible      bigint[] DEFAULT '{}',
    constructor_id   bigint,
    access           text CONSTRAINT condominiums_access_check CHECK (access IN ('all', 'responsible')),
    pickup           bigint[] DEFAULT '{}',
    slug             text,
    updated_by       bigint,
    created_by       bigint,
    principal_media  text,
    built_year       integer CONSTRAINT condominiums_built_year_check CHECK (built_year BETWEEN 1000 AND 9999),
    total_floors     integer CONSTRAINT condominiums_total_floors_check CHECK (total_floors >= 0),
    total_by_floor   integer CONSTRAINT condominiums_total_by_floor_check CHECK (total_by_floor >= 0),
    blocks           integer CONSTRAINT condominiums_blocks_check CHECK (blocks >= 0),
    title            text NOT NULL,
    content          text,
    lock_description text,
    street           text,
    number           integer CONSTRAINT condominiums_number_check CHECK (number >= 0),
    complement       text,
    zip_code         integer CONSTRAINT condominiums_zip_code_check CHECK (zip_code BETWEEN 0 AND 99999999),
    notes            text,
    html_title       text,
    html_keyword     text,
    html_description text,
    details          bigint[] DEFAULT '{}',
    custom_fields    jsonb NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT condominiums_type_fk FOREIGN KEY (company_id, type_id) REFERENCES building_types (company_id, id),
    CONSTRAINT condominiums_country_fk FOREIGN KEY (company_id, country_id) REFERENCES countries (company_id, id),
    CONSTRAINT condominiums_city_fk FOREIGN KEY (company_id, city_id) REFERENCES cities (company_id, id),
    CONSTRAINT condominiums_district_fk FOREIGN KEY (company_id, district_id) REFERENCES districts (company_id, id),
    CONSTRAINT condominiums_constructor_fk FOREIGN KEY (company_id, constructor_id) REFERENCES constructors (company_id, id),
    -- a user deleted leaves the condominiums they wrote unsigned
    CONSTRAINT condominiums_updated_by_fk FOREIGN KEY (company_id, updated_by)
        REFERENCES users (company_id, id) ON DELETE SET NULL (updated_by),
    CONSTRAINT condominiums_created_by_fk FOREIGN KEY (company_id, created_by)
        REFERENCES users (company_id, id) ON DELETE SET NULL (created_by)
);
-- the site's permanent link names one condominium of the company
CREATE UNIQUE INDEX condominiums_slug_key ON condominiums (company_id, slug);
CREATE INDEX condominiums_type ON condominiums (company_id, type_id);
CREATE INDEX condominiums_country ON condominiums (company_id, country_id);
CREATE INDEX condominiums_city ON condominiums (company_id, city_id);
CREATE INDEX condominiums_district ON condominiums (company_id, district_id);
CREATE INDEX condominiums_constructor ON condominiums (company_id, constructor_id);
CREATE INDEX condominiums_updated_by ON condominiums (company_id, updated_by);
CREATE INDEX condominiums_created_by ON condominiums (company_id, created_by);

-- The unit-type groups of a development and each group's purposes (sale
-- and the price, fee and tax for it), written through the condominium's
-- groups text. A purpose carries its condominium's id too, for
-- include[purposes]. The figures are kept as the text sent (the spec
-- types them as strings).
CREATE TABLE condominium_groups (
    company_id     bigint NOT NULL REFERENCES companies (id),
    id             bigint GENERATED ALWAYS AS IDENTITY,
    condominium_id bigint NOT NULL,
    title          text NOT NULL,
    status         text,
    area_total     text,
    bathroom       text,
    bedroom        text,
    room           text,
    suite          text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT condominium_groups_condominium_fk FOREIGN KEY (company_id, condominium_id)
        REFERENCES condominiums (company_id, id) ON DELETE CASCADE
);
CREATE INDEX condominium_groups_condominium ON condominium_groups (company_id, condominium_id, id);

CREATE TABLE condominium_group_purposes (
    company_id     bigint NOT NULL REFERENCES companies (id),
    id             bigint GENERATED ALWAYS AS IDENTITY,
    condominium_id bigint NOT NULL,
    group_id       bigint NOT NULL,
    type           text NOT NULL CONSTRAINT condominium_group_purposes_type_check CHECK (type IN ('sale', 'rent', 'season')),
    amount         text,
    condominium    text,
    iptu_amount    text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT condominium_group_purposes_condominium_fk FOREIGN KEY (company_id, condominium_id)
        REFERENCES condominiums (company_id, id) ON DELETE CASCADE,
    CONSTRAINT condominium_group_purposes_group_fk FOREIGN KEY (company_id, group_id)
        REFERENCES condominium_groups (company_id, id) ON DELETE CASCADE
);
CREATE INDEX condominium_group_purposes_condominium ON condominium_group_purposes (company_id, condominium_id, id);
CREATE INDEX condominium_group_purposes_group ON condominium_group_purposes (company_id, group_id, id);

-- The units of a development (the sales board's rows), each of a group of
-- the same development; a unit outlives its group (rewriting the groups
-- without it unlinks it).
CREATE TABLE condominium_units (
    company_id     bigint NOT NULL REFERENCES companies (id),
    id             bigint GENERATED ALWAYS AS IDENTITY,
    condominium_id bigint NOT NULL,
    group_id       bigint,
    building_id    bigint,
    block          text,
    floor          integer,
    number         text,
    status         text DEFAULT 'available' CONSTRAINT condominium_units_status_check
                       CHECK (status IN ('available', 'reserved', 'sold', 'unavailable')),
    notes          text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT condominium_units_condominium_fk FOREIGN KEY (company_id, condominium_id)
        REFERENCES condominiums (company_id, id) ON DELETE CASCADE,
    CONSTRAINT condominium_units_group_fk FOREIGN KEY (company_id, group_id)
        REFERENCES condominium_groups (company_id, id) ON DELETE SET NULL (group_id),
    CONSTRAINT condominium_units_building_fk FOREIGN KEY (company_id, building_id)
        REFERENCES buildings (company_id, id) ON DELETE SET NULL (building_id)
);
CREATE INDEX condominium_units_condominium ON condominium_units (company_id, condominium_id, id);
CREATE INDEX condominium_units_group ON condominium_units (company_id, group_id);
CREATE INDEX condominium_units_building ON condominium_units (company_id, building_id);

-- The people related to a condominium (syndic, administrator, contacts).
CREATE TABLE condominium_related (
    company_id     bigint NOT NULL REFERENCES companies (id),
    id             bigint GENERATED ALWAYS AS IDENTITY,
    condominium_id bigint NOT NULL,
    person_id      bigint NOT NULL,
    role           text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT condominium_related_condominium_fk FOREIGN KEY (company_id, condominium_id)
        REFERENCES condominiums (company_id, id) ON DELETE CASCADE,
    CONSTRAINT condominium_related_person_fk FOREIGN KEY (company_id, person_id)
        REFERENCES persons (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX condominium_related_person_id_key ON condominium_related (company_id, condominium_id, person_id);
CREATE INDEX condominium_related_person ON condominium_related (company_id, person_id);

-- A building's condominium, checked now that condominiums exist. No
-- condominium existed before, so any id stored names none: cleared.
UPDATE buildings SET condominium_id = NULL WHERE condominium_id IS NOT NULL;
ALTER TABLE buildings ADD CONSTRAINT buildings_condominium_fk FOREIGN KEY (company_id, condominium_id)
    REFERENCES condominiums (company_id, id);

-- User teams completed: a manager, the business they work for, notes.
-- The columns stay nullable for teams made before; the API requires them.
ALTER TABLE teams
    ADD COLUMN manager_id    bigint,
    ADD COLUMN business_id   bigint,
    ADD COLUMN notes         text,
    ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}',
    ADD CONSTRAINT teams_manager_fk FOREIGN KEY (company_id, manager_id) REFERENCES users (company_id, id),
    ADD CONSTRAINT teams_business_fk FOREIGN KEY (company_id, business_id) REFERENCES businesses (company_id, id);
CREATE INDEX teams_manager ON teams (company_id, manager_id);
CREATE INDEX teams_business ON teams (company_id, business_id);

-- A team's members: a user is in a team once; leaving the company's users
-- takes a user out of their teams.
CREATE TABLE team_users (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    team_id    bigint NOT NULL,
    user_id    bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT team_users_team_fk FOREIGN KEY (company_id, team_id) REFERENCES teams (company_id, id) ON DELETE CASCADE,
    CONSTRAINT team_users_user_fk FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX team_users_user_id_key ON team_users (company_id, team_id, user_id);
CREATE INDEX team_users_user ON team_users (company_id, user_id);

-- User groups: their users, permissions, and the buildings and persons
-- they are responsible for, each a link row going with either end.
CREATE TABLE user_groups (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    name          text NOT NULL,
    type          text DEFAULT 'normal',
    notes         text,
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);

CREATE TABLE user_group_users (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    group_id   bigint NOT NULL,
    user_id    bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT user_group_users_group_fk FOREIGN KEY (company_id, group_id) REFERENCES user_groups (company_id, id) ON DELETE CASCADE,
    CONSTRAINT user_group_users_user_fk FOREIGN KEY (company_id, user_id) REFERENCES users (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX user_group_users_user_id_key ON user_group_users (company_id, group_id, user_id);
CREATE INDEX user_group_users_user ON user_group_users (company_id, user_id);

CREATE TABLE user_group_permissions (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    group_id   bigint NOT NULL,
    permission text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT user_group_permissions_group_fk FOREIGN KEY (company_id, group_id) REFERENCES user_groups (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX user_group_permissions_permission_key ON user_group_permissions (company_id, group_id, permission);

CREATE TABLE user_group_buildings (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    group_id    bigint NOT NULL,
    building_id bigint NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT user_group_buildings_group_fk FOREIGN KEY (company_id, group_id) REFERENCES user_groups (company_id, id) ON DELETE CASCADE,
    CONSTRAINT user_group_buildings_building_fk FOREIGN KEY (company_id, building_id) REFERENCES buildings (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX user_group_buildings_building_id_key ON user_group_buildings (company_id, group_id, building_id);
CREATE INDEX user_group_buildings_building ON user_group_buildings (company_id, building_id);

CREATE TABLE user_group_persons (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    group_id   bigint NOT NULL,
    person_id  bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT user_group_persons_group_fk FOREIGN KEY (company_id, group_id) REFERENCES user_groups (company_id, id) ON DELETE CASCADE,
    CONSTRAINT user_group_persons_person_fk FOREIGN KEY (company_id, person_id) REFERENCES persons (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX user_group_persons_person_id_key ON user_group_persons (company_id, group_id, person_id);
CREATE INDEX user_group_persons_person ON user_group_persons (company_id, person_id);
