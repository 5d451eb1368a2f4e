-- What the nightly overdue recalculation reads, so that a run reads only
-- the rows whose status can change on its date (docs/jobs.md,
-- finance:overdue; docs/finance.md, "Overdue classification").

-- Open invoices (storage's invoiceOpen: not paid, and neither paid,
-- canceled, refunded nor uncollectible) by status and due date, with their
-- ids and contracts, so that neither pass visits the rows to find them.
-- The invoice pass reads the unpaid and overdue ones due between the dates
-- the stored statuses hold for and the run's date; the contract pass reads
-- the contracts of those due on the days where a payment status can change.
CREATE INDEX invoices_open_status ON invoices (company_id, status, due_date, contract_id) INCLUDE (id)
    WHERE NOT paid AND status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible');

-- Rows whose stored status may no longer be the one the last run left,
-- written by the triggers below in the transaction of the change and
-- deleted by the run that recalculates them. Rows are only ever inserted
-- and deleted, never merged, so a change committed after a run read the
-- marks stays marked for the next one.
--
-- A contract is marked when it is new, or when its invoices change in a way
-- that can change its payment status: an invoice added or deleted, moved to
-- another contract, its due date changed, paid or unpaid, canceled or
-- restored.
CREATE TABLE contract_payment_marks (
    company_id  bigint NOT NULL,
    contract_id bigint NOT NULL,
    id          bigint GENERATED ALWAYS AS IDENTITY,
    PRIMARY KEY (company_id, contract_id, id)
);

-- An invoice is marked when it is added, or written, not paid and unpaid
-- or overdue, with a change of status, paid or due date; but not when it
-- goes from unpaid to overdue with nothing else changed, which only the
-- overdue run does (a client never sets overdue, docs/api.md).
CREATE TABLE invoice_status_marks (
    company_id bigint NOT NULL,
    invoice_id bigint NOT NULL,
    id         bigint GENERATED ALWAYS AS IDENTITY,
    PRIMARY KEY (company_id, invoice_id, id)
);

CREATE FUNCTION overdue_mark_new_contracts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO contract_payment_marks (company_id, contract_id) SELECT company_id, id FROM inserted_contracts;
    RETURN NULL;
END
$$;

CREATE FUNCTION overdue_mark_inserted_invoices() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO contract_payment_marks (company_id, contract_id)
    SELECT DISTINCT company_id, contract_id FROM inserted_invoices WHERE contract_id IS NOT NULL;
    INSERT INTO invoice_status_marks (company_id, invoice_id)
    SELECT company_id, id FROM inserted_invoices WHERE NOT paid AND status IN ('unpaid', 'overdue');
    RETURN NULL;
END
$$;

CREATE FUNCTION overdue_mark_deleted_invoices() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO contract_payment_marks (company_id, contract_id)
    SELECT DISTINCT company_id, contract_id FROM deleted_invoices WHERE contract_id IS NOT NULL;
    RETURN NULL;
END
$$;

CREATE FUNCTION overdue_mark_invoice_contracts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO contract_payment_marks (company_id, contract_id)
    SELECT DISTINCT NEW.company_id, c FROM (VALUES (OLD.contract_id), (NEW.contract_id)) AS v (c) WHERE c IS NOT NULL;
    RETURN NULL;
END
$$;

CREATE FUNCTION overdue_mark_invoice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO invoice_status_marks (company_id, invoice_id) VALUES (NEW.company_id, NEW.id);
    RETURN NULL;
END
$$;

-- Inserts and deletes mark once per statement (a generation run inserts
-- thousands of invoices in one).
CREATE TRIGGER contracts_overdue_mark_insert AFTER INSERT ON contracts
    REFERENCING NEW TABLE AS inserted_contracts
    FOR EACH STATEMENT EXECUTE FUNCTION overdue_mark_new_contracts();

CREATE TRIGGER invoices_overdue_mark_insert AFTER INSERT ON invoices
    REFERENCING NEW TABLE AS inserted_invoices
    FOR EACH STATEMENT EXECUTE FUNCTION overdue_mark_inserted_invoices();

CREATE TRIGGER invoices_overdue_mark_delete AFTER DELETE ON invoices
    REFERENCING OLD TABLE AS deleted_invoices
    FOR EACH STATEMENT EXECUTE FUNCTION overdue_mark_deleted_invoices();

-- An update marks only when what a status is computed from changes (the
-- WHEN clauses), so that other updates, the overdue run's own moves
-- included, mark nothing. For a contract: the invoice's contract, its due
-- date, whether it counts (not canceled) and whether it is open.
CREATE TRIGGER invoices_overdue_mark_contracts AFTER UPDATE ON invoices
    FOR EACH ROW
    WHEN ((OLD.contract_id IS NOT NULL OR NEW.contract_id IS NOT NULL)
        AND (OLD.contract_id, OLD.due_date, OLD.status = 'canceled',
             NOT OLD.paid AND OLD.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible'))
            IS DISTINCT FROM
            (NEW.contract_id, NEW.due_date, NEW.status = 'canceled',
             NOT NEW.paid AND NEW.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible')))
    EXECUTE FUNCTION overdue_mark_invoice_contracts();

CREATE TRIGGER invoices_overdue_mark_status AFTER UPDATE ON invoices
    FOR EACH ROW
    WHEN (NOT NEW.paid AND NEW.status IN ('unpaid', 'overdue')
        AND (OLD.status, OLD.paid, OLD.due_date) IS DISTINCT FROM (NEW.status, NEW.paid, NEW.due_date)
        AND NOT (OLD.status = 'unpaid' AND NEW.status = 'overdue' AND NOT OLD.paid
                 AND OLD.due_date IS NOT DISTINCT FROM NEW.due_date))
    EXECUTE FUNCTION overdue_mark_invoice();

-- Per company and pass ('invoices', 'contracts'), the dates the stored
-- statuses hold for: every row of the pass without a mark (for invoices:
-- every invoice not paid and unpaid or overdue) holds its status of some
-- day from as_of_low to as_of_high (both NULL: not known, and the next run
-- recalculates every row). Each chunk of a pass locks its row, widens the
-- dates to its own, and records itself as the last writer; the last chunk
-- of a run whose chunks followed one another with no other run's between
-- them narrows the dates to its own (docs/jobs.md).
CREATE TABLE overdue_state (
    company_id bigint NOT NULL REFERENCES companies (id),
    pass       text NOT NULL CONSTRAINT overdue_state_pass_check CHECK (pass IN ('invoices', 'contracts')),
    as_of_low  date,
    as_of_high date,
    -- the job of the chunk that wrote last, and the job whose chunks have
    -- followed one another since its first (NULL when broken)
    last_job   bigint,
    sweep_job  bigint,
    PRIMARY KEY (company_id, pass),
    CONSTRAINT overdue_state_dates_check CHECK ((as_of_low IS NULL) = (as_of_high IS NULL) AND as_of_low <= as_of_high)
);
