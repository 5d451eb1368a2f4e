-- What the nightly overdue recalculation reads, so that a run reads only
-- the rows whose status can change on its date (docs/jobs.md,
-- finance:overdue; docs/finance.md, "Overdue classification").

-- Open invoices (storage's invoiceOpen: not paid, and neither paid,
-- canceled, refunded nor uncollectible) by status and due date. The invoice
-- pass reads the ones that move, with their ids: unpaid with a due date
-- before the date, overdue with one on or after it (or none). The contract
-- pass reads the contracts of the ones due on the days where a contract's
-- payment status can change. Neither visits the rows to read them.
CREATE INDEX invoices_open_status ON invoices (company_id, status, due_date, contract_id) INCLUDE (id)
    WHERE NOT paid AND status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible');

-- A contract whose payment status may no longer be the one stored: a new
-- contract, or one whose invoices changed in a way that can change its
-- payment status (an invoice added or deleted, moved to another contract,
-- its due date changed, paid or unpaid, canceled or restored). One row per
-- change, written by the triggers below in the transaction of the change,
-- deleted by the contract pass that recalculates the contract. Rows are
-- only ever inserted and deleted, never merged, so a change committed after
-- a pass read the marks stays marked for the next one.
CREATE TABLE contract_payment_marks (
    company_id  bigint NOT NULL,
    contract_id bigint NOT NULL,
    id          bigint GENERATED ALWAYS AS IDENTITY,
    PRIMARY KEY (company_id, contract_id, id)
);

CREATE FUNCTION contract_payment_mark_new_contracts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO contract_payment_marks (company_id, contract_id) SELECT company_id, id FROM inserted_contracts;
    RETURN NULL;
END
$$;

CREATE FUNCTION contract_payment_mark_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO contract_payment_marks (company_id, contract_id)
    SELECT DISTINCT company_id, contract_id FROM inserted_invoices WHERE contract_id IS NOT NULL;
    RETURN NULL;
END
$$;

CREATE FUNCTION contract_payment_mark_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO contract_payment_marks (company_id, contract_id)
    SELECT DISTINCT company_id, contract_id FROM deleted_invoices WHERE contract_id IS NOT NULL;
    RETURN NULL;
END
$$;

CREATE FUNCTION contract_payment_mark_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO contract_payment_marks (company_id, contract_id)
    SELECT DISTINCT NEW.company_id, c FROM (VALUES (OLD.contract_id), (NEW.contract_id)) AS v (c) WHERE c IS NOT NULL;
    RETURN NULL;
END
$$;

-- Inserts and deletes mark once per statement (a generation run inserts
-- thousands of invoices in one).
CREATE TRIGGER contracts_payment_mark_insert AFTER INSERT ON contracts
    REFERENCING NEW TABLE AS inserted_contracts
    FOR EACH STATEMENT EXECUTE FUNCTION contract_payment_mark_new_contracts();

CREATE TRIGGER invoices_payment_mark_insert AFTER INSERT ON invoices
    REFERENCING NEW TABLE AS inserted_invoices
    FOR EACH STATEMENT EXECUTE FUNCTION contract_payment_mark_inserted();

CREATE TRIGGER invoices_payment_mark_delete AFTER DELETE ON invoices
    REFERENCING OLD TABLE AS deleted_invoices
    FOR EACH STATEMENT EXECUTE FUNCTION contract_payment_mark_deleted();

-- An update marks only when what a payment status is computed from changes:
-- the contract, the due date, whether the invoice counts (not canceled) and
-- whether it is open. The overdue run's own moves between unpaid and overdue
-- change none of these and mark nothing.
CREATE TRIGGER invoices_payment_mark_update AFTER UPDATE ON invoices
    FOR EACH ROW
    WHEN ((OLD.contract_id IS NOT NULL OR NEW.contract_id IS NOT NULL)
        AND (OLD.contract_id, OLD.due_date, OLD.status = 'canceled',
             NOT OLD.paid AND OLD.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible'))
            IS DISTINCT FROM
            (NEW.contract_id, NEW.due_date, NEW.status = 'canceled',
             NOT NEW.paid AND NEW.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible')))
    EXECUTE FUNCTION contract_payment_mark_updated();

-- Per company, the dates the stored payment statuses hold for: every
-- contract without a mark holds the payment status of its invoices on some
-- day from as_of_low to as_of_high (both NULL: not known, and the next run
-- recalculates every contract). Each chunk of the
-- contract pass locks the row, widens the dates to its own, and records
-- itself as the last writer; the last chunk of a run whose chunks followed
-- one another with no other run's between them narrows the dates to its
-- own (docs/jobs.md).
CREATE TABLE contract_payment_state (
    company_id bigint NOT NULL REFERENCES companies (id),
    as_of_low  date,
    as_of_high date,
    -- the job of the chunk that wrote last, and the job whose chunks have
    -- followed one another since its first (NULL when broken)
    last_job   bigint,
    sweep_job  bigint,
    PRIMARY KEY (company_id),
    CONSTRAINT contract_payment_state_dates_check CHECK ((as_of_low IS NULL) = (as_of_high IS NULL) AND as_of_low <= as_of_high)
);
