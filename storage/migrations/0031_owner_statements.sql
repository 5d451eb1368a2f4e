-- The owners' monthly statements (prestação de contas), closed by the
-- owners:statements job: docs/ledger.md, "Owner statements". A closed
-- statement never changes: nothing but the job writes these tables, and it
-- only inserts.

-- The months a company has closed, one row each, inserted in the
-- transaction that writes the month's statements: its key is what closes a
-- month once (a second run inserts nothing and writes nothing). closed_at
-- bounds the entries the next month's close looks at for late ones.
CREATE TABLE owner_statement_months (
    company_id bigint NOT NULL REFERENCES companies (id),
    month      text NOT NULL CONSTRAINT owner_statement_months_month_check
                   CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
    job_id     bigint,
    statements integer NOT NULL,
    lines      integer NOT NULL,
    closed_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, month)
);

-- One statement per owner, business (the books: an entry's business_id, or
-- none) and month, for every owner with a line that month. The totals are
-- the shown lines' by section and the hidden ones' (owner_report false)
-- apart; closing = opening + income + deductions + guarantee + transfers +
-- adjustments + hidden_amount.
CREATE TABLE owner_statements (
    company_id    bigint NOT NULL REFERENCES companies (id),
    id            bigint GENERATED ALWAYS AS IDENTITY,
    owner_id      bigint NOT NULL,
    business_id   bigint,
    month         text NOT NULL,
    opening       numeric(16,2) NOT NULL,
    closing       numeric(16,2) NOT NULL,
    income        numeric(16,2) NOT NULL,
    deductions    numeric(16,2) NOT NULL,
    guarantee     numeric(16,2) NOT NULL,
    transfers     numeric(16,2) NOT NULL,
    adjustments   numeric(16,2) NOT NULL,
    shown_lines   integer NOT NULL,
    hidden_lines  integer NOT NULL,
    hidden_amount numeric(16,2) NOT NULL,
    job_id        bigint,
    closed_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT owner_statements_owner_month_key UNIQUE NULLS NOT DISTINCT (company_id, owner_id, business_id, month),
    CONSTRAINT owner_statements_month_fk FOREIGN KEY (company_id, month)
        REFERENCES owner_statement_months (company_id, month),
    CONSTRAINT owner_statements_owner_fk FOREIGN KEY (company_id, owner_id) REFERENCES persons (company_id, id),
    CONSTRAINT owner_statements_business_fk FOREIGN KEY (company_id, business_id) REFERENCES businesses (company_id, id)
);
CREATE INDEX owner_statements_month ON owner_statements (company_id, month, id);
CREATE INDEX owner_statements_business ON owner_statements (company_id, business_id) WHERE business_id IS NOT NULL;

-- The lines of a statement, one per ledger entry (an entry is stated once:
-- in its month's statement, or, written after its month was closed, as an
-- adjustment of a later one). amount is signed as the owner sees it. The
-- entry's contract, building, invoice and item are kept as they were
-- (no foreign key: the statement does not change when they do);
-- transaction_id refers to the entry, which cannot be deleted while stated.
CREATE TABLE owner_statement_lines (
    company_id     bigint NOT NULL REFERENCES companies (id),
    id             bigint GENERATED ALWAYS AS IDENTITY,
    statement_id   bigint NOT NULL,
    position       integer NOT NULL,
    transaction_id bigint NOT NULL,
    section        text NOT NULL CONSTRAINT owner_statement_lines_section_check
                       CHECK (section IN ('income', 'deductions', 'guarantee', 'transfers', 'adjustments')),
    kind           text NOT NULL CONSTRAINT owner_statement_lines_kind_check
                       CHECK (kind IN ('income', 'deductions', 'guarantee', 'transfers')),
    date           date NOT NULL,
    description    text NOT NULL,
    amount         numeric(14,2) NOT NULL,
    contract_id    bigint,
    building_id    bigint,
    invoice_id     bigint,
    item_id        bigint,
    item_type      text,
    corrects_month text CONSTRAINT owner_statement_lines_corrects_month_check
                       CHECK (corrects_month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
    hidden         boolean NOT NULL,
    destination    text,
    billing_method text,
    PRIMARY KEY (company_id, id),
    CONSTRAINT owner_statement_lines_adjustment_check CHECK ((section = 'adjustments') = (corrects_month IS NOT NULL)),
    CONSTRAINT owner_statement_lines_statement_fk FOREIGN KEY (company_id, statement_id)
        REFERENCES owner_statements (company_id, id),
    CONSTRAINT owner_statement_lines_transaction_fk FOREIGN KEY (company_id, transaction_id)
        REFERENCES transactions (company_id, id)
);
CREATE INDEX owner_statement_lines_statement ON owner_statement_lines (company_id, statement_id, position);
CREATE UNIQUE INDEX owner_statement_lines_transaction ON owner_statement_lines (company_id, transaction_id);

-- The entries written since a close, for the next close to find those
-- dated in a closed month: a block range index, a few pages for the whole
-- ledger and next to nothing on an insert (entries are appended in the
-- order they are written).
CREATE INDEX transactions_created ON transactions USING brin (company_id, created_at);
