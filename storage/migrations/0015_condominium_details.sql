-- The details a condominium lists (its `details`: amenities such as a
-- pool or a gym): a catalogue of the company's, at /condominiums/details.
CREATE TABLE condominium_details (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id)
);
CREATE UNIQUE INDEX condominium_details_name_key ON condominium_details (company_id, name);
