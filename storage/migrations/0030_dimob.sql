-- The DIMOB (docs/dimob.md): the person responsible for a business before
-- the Receita Federal, whom the declaration's R01 names by CPF, and the
-- runs of POST /financial/dimob with the file each wrote.

-- The CPF of the business's responsible person (R01, positions 104-114);
-- bare, 11 digits, its check digits verified by the API.
ALTER TABLE businesses ADD COLUMN responsible_cpf text
    CONSTRAINT businesses_responsible_cpf_check CHECK (responsible_cpf ~ '^[0-9]{11}$');

-- One run of the DIMOB of a business (the declaring CNPJ) and calendar
-- year: what was asked, what the check found, and the file when nothing
-- blocked it. status: pending (its job has not finished), written (the
-- file is stored), blocked (the check found blocking problems: no file).
-- problems and warnings are the check's, each naming the record to fix.
-- The file is stored gzipped (content_encoding), as the batches' files are.
CREATE TABLE dimob_runs (
    company_id       bigint NOT NULL REFERENCES companies (id),
    id               bigint GENERATED ALWAYS AS IDENTITY,
    business_id      bigint NOT NULL,
    year             integer NOT NULL CONSTRAINT dimob_runs_year_check CHECK (year BETWEEN 2000 AND 9999),
    amended          boolean NOT NULL DEFAULT false,
    receipt_number   text CONSTRAINT dimob_runs_receipt_number_check CHECK (receipt_number ~ '^[0-9]{1,10}$'),
    status           text NOT NULL DEFAULT 'pending'
                         CONSTRAINT dimob_runs_status_check CHECK (status IN ('pending', 'written', 'blocked')),
    problems         jsonb NOT NULL DEFAULT '[]',
    warnings         jsonb NOT NULL DEFAULT '[]',
    rentals          integer CONSTRAINT dimob_runs_rentals_check CHECK (rentals >= 0),
    sales            integer CONSTRAINT dimob_runs_sales_check CHECK (sales >= 0),
    file_name        text,
    file_size        bigint CONSTRAINT dimob_runs_file_size_check CHECK (file_size >= 0),
    content          bytea,
    content_encoding text CONSTRAINT dimob_runs_content_encoding_check CHECK (content_encoding IN ('identity', 'gzip')),
    job_id           bigint,
    created_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    PRIMARY KEY (company_id, id),
    CONSTRAINT dimob_runs_amended_check CHECK (NOT amended OR receipt_number IS NOT NULL),
    CONSTRAINT dimob_runs_file_check CHECK ((status = 'written') = (content IS NOT NULL)),
    CONSTRAINT dimob_runs_business_fk FOREIGN KEY (company_id, business_id) REFERENCES businesses (company_id, id),
    -- jobs:prune deletes finished jobs; the run, its problems and its file stay
    CONSTRAINT dimob_runs_job_fk FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id)
        ON DELETE SET NULL (job_id)
);
CREATE UNIQUE INDEX dimob_runs_job_key ON dimob_runs (company_id, job_id);
CREATE INDEX dimob_runs_business_year ON dimob_runs (company_id, business_id, year, id);
-- the file is gzipped already
ALTER TABLE dimob_runs ALTER COLUMN content SET STORAGE EXTERNAL;
