-- Collection batches (/financial/ticketBatch) and what every kind of batch
-- shares: the remittance files with their sequence numbers (NSA), and the
-- bank return files with a record of each line read. docs/api.md,
-- "Batches"; docs/jobs.md, batch:file and batch:return; docs/ledger.md,
-- "Settlement from a bank return file".

-- A remittance file of a batch, written once by its batch:file job: the
-- bytes as the bank takes them (line endings included), its file sequence
-- number, unique per account and kind of batch and never reused (taken
-- from the account's counter under the account's row lock), and what it
-- carries.
CREATE TABLE batch_files (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    batch_type text NOT NULL CONSTRAINT batch_files_batch_type_check CHECK (batch_type IN ('ticket', 'payment')),
    batch_id   bigint NOT NULL,
    account_id bigint NOT NULL,
    sequence   bigint NOT NULL CONSTRAINT batch_files_sequence_check CHECK (sequence >= 1),
    name       text NOT NULL,
    content    bytea NOT NULL,
    titles     integer NOT NULL,
    total      numeric(16,2) NOT NULL,
    job_id     bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT batch_files_batch_key UNIQUE (company_id, batch_type, batch_id),
    CONSTRAINT batch_files_sequence_key UNIQUE (company_id, account_id, batch_type, sequence),
    CONSTRAINT batch_files_account_fk FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id)
);
-- A remittance is mostly blanks and zeros: TOAST compresses it, with lz4
-- where the server has it (writing 40 MB took 0.23-0.32 s against 0.54-0.69
-- s with pglz or uncompressed), pglz otherwise (a server built without lz4,
-- PostgreSQL 13).
DO $$
BEGIN
    ALTER TABLE batch_files ALTER COLUMN content SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR syntax_error THEN
    NULL;
END
$$;

-- A collection batch: the invoices whose boletos go to the bank in one
-- remittance of one account. open until its file is written, closed
-- after; titles and total count the invoices in it (added or sent).
CREATE TABLE ticket_batches (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    description   text,
    account_id    bigint NOT NULL,
    status        text NOT NULL DEFAULT 'open' CONSTRAINT ticket_batches_status_check CHECK (status IN ('open', 'closed')),
    titles        integer NOT NULL DEFAULT 0,
    total         numeric(16,2) NOT NULL DEFAULT 0,
    file_id       bigint,
    file_sequence bigint,
    file_name     text,
    closed_at     timestamptz,
    custom_fields jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT ticket_batches_account_fk FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id),
    CONSTRAINT ticket_batches_file_fk FOREIGN KEY (company_id, file_id) REFERENCES batch_files (company_id, id)
);
CREATE INDEX ticket_batches_account ON ticket_batches (company_id, account_id);
CREATE INDEX ticket_batches_file ON ticket_batches (company_id, file_id);

-- An invoice in a collection batch, with its title as the bank gets it:
-- the nosso número (our_number is the sequence given to package boleto,
-- from the account's counter, never reused; nosso_numero and its digit the
-- bank's number as the slip prints it) and the amounts, terms, document
-- number and payer fixed when it was added: the ones its barcode carries
-- and the bank's layout was checked with, so that its file is written from
-- these rows alone.
--   added:       in the batch; sent once the batch's file is written (the
--                batch closed), so writing the file changes no row here
--   reverted:    taken back after the file; the bank is to drop the title
--   rejected:    the bank refused the entry (return file)
--   written_off: the bank dropped the title (return file)
-- An invoice is added to at most one batch.
CREATE TABLE ticket_batch_invoices (
    company_id               bigint NOT NULL REFERENCES companies (id),
    id                       bigint GENERATED ALWAYS AS IDENTITY,
    batch_id                 bigint NOT NULL,
    invoice_id               bigint NOT NULL,
    account_id               bigint NOT NULL,
    state                    text NOT NULL DEFAULT 'added' CONSTRAINT ticket_batch_invoices_state_check
                                 CHECK (state IN ('added', 'reverted', 'rejected', 'written_off')),
    our_number               bigint NOT NULL CONSTRAINT ticket_batch_invoices_our_number_check CHECK (our_number >= 1),
    nosso_numero             text NOT NULL,
    nosso_numero_digit       text NOT NULL DEFAULT '',
    amount                   numeric(14,2) NOT NULL,
    due_date                 date NOT NULL,
    fine_percent             numeric(5,2) NOT NULL DEFAULT 0,
    interest_per_day         numeric(14,2) NOT NULL DEFAULT 0,
    interest_monthly_percent numeric(5,2) NOT NULL DEFAULT 0,
    discount                 numeric(14,2) NOT NULL DEFAULT 0,
    discount_until           date,
    document_number          text NOT NULL,
    payer_name               text NOT NULL,
    payer_document           text NOT NULL,
    payer_address            text NOT NULL,
    payer_district           text NOT NULL,
    payer_city               text NOT NULL,
    payer_state              text NOT NULL,
    payer_zip                text NOT NULL,
    reverted_at              timestamptz,
    created_at               timestamptz NOT NULL DEFAULT now(),
    updated_at               timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT ticket_batch_invoices_our_number_key UNIQUE (company_id, account_id, our_number),
    CONSTRAINT ticket_batch_invoices_batch_fk FOREIGN KEY (company_id, batch_id)
        REFERENCES ticket_batches (company_id, id) ON DELETE CASCADE,
    CONSTRAINT ticket_batch_invoices_invoice_fk FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id),
    CONSTRAINT ticket_batch_invoices_account_fk FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id)
);
CREATE UNIQUE INDEX ticket_batch_invoices_active ON ticket_batch_invoices (company_id, invoice_id)
    WHERE state = 'added';
CREATE INDEX ticket_batch_invoices_batch ON ticket_batch_invoices (company_id, batch_id, our_number);
CREATE INDEX ticket_batch_invoices_invoice ON ticket_batch_invoices (company_id, invoice_id);
-- a return file's line is matched by the bank's number, leading zeros aside
CREATE INDEX ticket_batch_invoices_nosso_numero ON ticket_batch_invoices
    (company_id, account_id, (ltrim(nosso_numero, '0')));

-- A bank return file as uploaded, once per content (sha256) and account
-- named: the same file uploaded again is this row, and its job; uploaded
-- naming an account (to read numbers several accounts have), it is read
-- again for that account.
CREATE TABLE batch_return_files (
    company_id bigint NOT NULL REFERENCES companies (id),
    id         bigint GENERATED ALWAYS AS IDENTITY,
    batch_type text NOT NULL CONSTRAINT batch_return_files_batch_type_check CHECK (batch_type IN ('ticket', 'payment')),
    sha256     bytea NOT NULL,
    name       text,
    -- the account the upload named, to read the file's numbers against
    account_id bigint,
    content    bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT batch_return_files_account_fk FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id)
);
CREATE UNIQUE INDEX batch_return_files_sha256_key ON batch_return_files
    (company_id, batch_type, sha256, (coalesce(account_id, 0)));
DO $$
BEGIN
    ALTER TABLE batch_return_files ALTER COLUMN content SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR syntax_error THEN
    NULL;
END
$$;
CREATE INDEX batch_return_files_account ON batch_return_files (company_id, account_id);

-- What the reading of each line of a return file did, written once per
-- file and line: a line read again (the job run again, the file uploaded
-- again) finds its row and changes nothing.
CREATE TABLE batch_return_lines (
    company_id bigint NOT NULL REFERENCES companies (id),
    file_id    bigint NOT NULL,
    line       integer NOT NULL,
    batch_type text NOT NULL,
    code       text,
    occurrence text,
    our_number text,
    -- the invoice (ticket) or ledger entry (payment) the line is about
    member_id  bigint,
    outcome    text NOT NULL,
    message    text,
    paid       numeric(14,2),
    expected   numeric(14,2),
    difference numeric(14,2),
    job_id     bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, file_id, line),
    CONSTRAINT batch_return_lines_file_fk FOREIGN KEY (company_id, file_id)
        REFERENCES batch_return_files (company_id, id) ON DELETE CASCADE
);
CREATE INDEX batch_return_lines_member ON batch_return_lines (company_id, batch_type, member_id);
