-- A paid invoice is never stored unpaid or overdue: every write that
-- marks an invoice paid stores it paid (the API's status rules, a payment
-- from a bank return file), the overdue run moves only unpaid invoices,
-- and undoing a payment stores unpaid with paid false. The status filter
-- of the invoice list relies on it (storage's invoiceStatusIs): it reads
-- overdue and unpaid as open invoices due before, or from, today, through
-- the partial indexes of the open invoices.
--
-- A row written against the rule by hand before this version is stored
-- paid, as a payment would have stored it, with a history row (actor
-- system, origin update).
WITH bad AS (
    SELECT company_id, id, status FROM invoices
    WHERE paid AND status IN ('unpaid', 'overdue')
    FOR UPDATE
), upd AS (
    UPDATE invoices i SET status = 'paid', updated_at = now()
    FROM bad
    WHERE i.company_id = bad.company_id AND i.id = bad.id
    RETURNING i.company_id, i.id, bad.status AS stored
)
INSERT INTO invoice_history (company_id, invoice_id, actor, origin, changes, note)
SELECT company_id, id, 'system', 'update',
    jsonb_build_array(jsonb_build_object('field', 'status', 'from', stored, 'to', 'paid')),
    'a paid invoice is stored paid'
FROM upd;

ALTER TABLE invoices ADD CONSTRAINT invoices_paid_status_check
    CHECK (NOT paid OR status NOT IN ('unpaid', 'overdue'));

-- Today in a company's time zone, as the filters' subquery reads it
-- (storage's FilterSQL.Today), but as a stable function of the company:
-- the planner evaluates it while it plans, so that due dates before or
-- from today are estimated from the statistics of due_date
-- (FilterSQL.TodayBound). The subquery is known only when the statement
-- runs, and a range of dates bounded by it is taken to hold 0.5% of the
-- rows.
CREATE FUNCTION company_today(company bigint) RETURNS date
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT (now() AT TIME ZONE coalesce(time_zone, 'America/Sao_Paulo'))::date FROM companies WHERE id = company $$;

-- paid and status go together (an open invoice is stored unpaid or
-- overdue, a paid one paid): without these statistics the planner takes
-- NOT paid AND status IN ('unpaid', 'overdue') for two independent
-- conditions and expects a fifth of the open invoices where there are
-- nearly all of them, which makes reading a month's open invoices in
-- due-date order (invoices_open_due_date) look dearer than it is.
CREATE STATISTICS invoices_paid_status (mcv, dependencies) ON paid, status FROM invoices;
ANALYZE invoices;
