-- A contract's payment_status is brought to today by the write that
-- changes what it is computed from (docs/finance.md, "Contract
-- payment_status"; docs/jobs.md, finance:overdue): an invoice of the
-- contract added or deleted, moved to or from it, its due date changed,
-- paid or unpaid, canceled or restored. Before, it waited for the next
-- nightly finance:overdue run: a contract whose last invoice a return file
-- paid at 09:00 read 30_days until 00:05 the next night, and a new
-- company's contracts read nothing until their first night.
--
-- The nightly run still moves the statuses that change with the date
-- alone (a day more late), and still recalculates every contract marked
-- (contract_payment_marks, migration 0017): a write refreshes its
-- contracts and keeps their marks, so that what the run knows of the
-- stored statuses (overdue_state) holds as it did.

-- finance.PaymentStatusAsOf over a contract's two values: counted (it has an
-- invoice that is not canceled) and oldest_open (the earliest due date of
-- its open invoices, NULL when none), on the date as_of. The one SQL form of
-- the rule: the nightly run's statements call it too (storage's
-- paymentStatusAsOf), and TestPaymentStatusSQL holds it to the Go rule.
CREATE FUNCTION contract_payment_status(counted boolean, oldest_open date, as_of date) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE
        WHEN NOT coalesce(counted, false) THEN 'nothing'
        WHEN oldest_open IS NULL THEN 'ok'
        WHEN as_of - oldest_open > 90 THEN '3_months'
        WHEN as_of - oldest_open > 30 THEN 'month'
        WHEN as_of - oldest_open > 4 THEN '30_days'
        WHEN as_of - oldest_open > 0 THEN '5_days'
        WHEN oldest_open - as_of <= 5 THEN 'due_5_days'
        WHEN oldest_open - as_of <= 10 THEN 'due_10_days'
        ELSE 'ok' END;

-- Brings the payment status of the contracts named (company_ids[i],
-- contract_ids[i]) to their status on today in their company's time zone,
-- dating it today where it changes (or was never dated). A contract another
-- transaction holds locked is left as it is (SKIP LOCKED): the write never
-- waits on it nor deadlocks with it, and the contract's mark has the night
-- recalculate it. An open invoice is storage's invoiceOpen.
CREATE FUNCTION refresh_payment_statuses(company_ids bigint[], contract_ids bigint[]) RETURNS void
    LANGUAGE sql AS $$
    WITH touched AS (
        SELECT DISTINCT t.company_id, t.contract_id
        FROM unnest(company_ids, contract_ids) AS t (company_id, contract_id)
        WHERE t.contract_id IS NOT NULL),
    locked AS (
        SELECT c.company_id, c.id, (now() AT TIME ZONE coalesce(co.time_zone, 'America/Sao_Paulo'))::date AS today
        FROM touched t
        JOIN contracts c ON c.company_id = t.company_id AND c.id = t.contract_id
        JOIN companies co ON co.id = c.company_id
        ORDER BY c.company_id, c.id
        FOR NO KEY UPDATE OF c SKIP LOCKED),
    -- Each contract's invoices read apart (LATERAL, through
    -- invoices_contract): the plan stays a probe per contract whatever
    -- the planner guesses of the arrays' length (a join with the grouped
    -- invoices, guessed at one contract, was rescanned for each of a
    -- generation's hundred thousand).
    classified AS (
        SELECT l.company_id, l.id, l.today, contract_payment_status(i.counted, i.oldest_open, l.today) AS status
        FROM locked l
        CROSS JOIN LATERAL (
            SELECT bool_or(v.status <> 'canceled') AS counted,
                min(v.due_date) FILTER (WHERE NOT v.paid
                    AND v.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible', 'renegotiated')) AS oldest_open
            FROM invoices v WHERE v.company_id = l.company_id AND v.contract_id = l.id) AS i)
    UPDATE contracts c SET payment_status = n.status, payment_status_date = n.today, updated_at = now()
    FROM classified n
    WHERE c.company_id = n.company_id AND c.id = n.id
        AND (c.payment_status IS DISTINCT FROM n.status OR c.payment_status_date IS NULL)
$$;

-- Inserts and deletes: marked and refreshed once per statement (a
-- generation run inserts thousands of invoices in one).
CREATE OR REPLACE FUNCTION overdue_mark_inserted_invoices() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    companies bigint[];
    contracts bigint[];
BEGIN
    SELECT array_agg(company_id), array_agg(contract_id) INTO companies, contracts
    FROM (SELECT DISTINCT company_id, contract_id FROM inserted_invoices WHERE contract_id IS NOT NULL) AS t;
    INSERT INTO contract_payment_marks (company_id, contract_id) SELECT * FROM unnest(companies, contracts);
    INSERT INTO invoice_status_marks (company_id, invoice_id)
    SELECT company_id, id FROM inserted_invoices WHERE NOT paid AND status IN ('unpaid', 'overdue');
    IF contracts IS NOT NULL THEN
        PERFORM refresh_payment_statuses(companies, contracts);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION overdue_mark_deleted_invoices() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    companies bigint[];
    contracts bigint[];
BEGIN
    SELECT array_agg(company_id), array_agg(contract_id) INTO companies, contracts
    FROM (SELECT DISTINCT company_id, contract_id FROM deleted_invoices WHERE contract_id IS NOT NULL) AS t;
    INSERT INTO contract_payment_marks (company_id, contract_id) SELECT * FROM unnest(companies, contracts);
    IF contracts IS NOT NULL THEN
        PERFORM refresh_payment_statuses(companies, contracts);
    END IF;
    RETURN NULL;
END
$$;

-- Updates: the row trigger that marked an invoice's contracts (migration
-- 0034's) becomes a statement trigger over the rows the statement changed,
-- so that a return file's update of a thousand invoices refreshes their
-- contracts in one statement, not one at each row. A row counts when what
-- a status is computed from changed: the invoice's contract, its due date,
-- whether it counts (not canceled) and whether it is open; the overdue
-- run's own moves (unpaid to overdue) change none of them.
DROP TRIGGER invoices_overdue_mark_contracts ON invoices;
DROP FUNCTION overdue_mark_invoice_contracts();

CREATE FUNCTION overdue_mark_updated_invoices() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    companies bigint[];
    contracts bigint[];
BEGIN
    SELECT array_agg(company_id), array_agg(contract_id) INTO companies, contracts
    FROM (
        SELECT DISTINCT v.company_id, v.contract_id
        FROM old_invoices o
        JOIN new_invoices n ON n.company_id = o.company_id AND n.id = o.id
        CROSS JOIN LATERAL (VALUES (o.company_id, o.contract_id), (n.company_id, n.contract_id)) AS v (company_id, contract_id)
        WHERE v.contract_id IS NOT NULL
            AND (o.contract_id, o.due_date, o.status = 'canceled',
                 NOT o.paid AND o.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible', 'renegotiated'))
                IS DISTINCT FROM
                (n.contract_id, n.due_date, n.status = 'canceled',
                 NOT n.paid AND n.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible', 'renegotiated'))
    ) AS t;
    IF contracts IS NOT NULL THEN
        INSERT INTO contract_payment_marks (company_id, contract_id) SELECT * FROM unnest(companies, contracts);
        PERFORM refresh_payment_statuses(companies, contracts);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER invoices_overdue_mark_update AFTER UPDATE ON invoices
    REFERENCING OLD TABLE AS old_invoices NEW TABLE AS new_invoices
    FOR EACH STATEMENT EXECUTE FUNCTION overdue_mark_updated_invoices();
