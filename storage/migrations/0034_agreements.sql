-- Renegotiation agreements (acordos; docs/finance.md, "Renegotiation
-- agreements"; docs/api.md, "/financial/agreements"): one payer's open
-- invoices (the originals) replaced by installments, new invoices whose
-- lines keep where each part came from.

-- An installment overdue more than this many days breaks its agreement in
-- the nightly overdue run (/financial/settings, agreement_break_days).
ALTER TABLE companies ADD COLUMN agreement_break_days integer NOT NULL DEFAULT 30
    CONSTRAINT companies_agreement_break_days_check CHECK (agreement_break_days BETWEEN 1 AND 366);

CREATE TABLE agreements (
    company_id        bigint NOT NULL REFERENCES companies (id),
    id                bigint GENERATED ALWAYS AS IDENTITY,
    payer_id          bigint NOT NULL,
    business_id       bigint NOT NULL,
    account_id        bigint NOT NULL,
    status            text NOT NULL DEFAULT 'active' CONSTRAINT agreements_status_check
                          CHECK (status IN ('active', 'fulfilled', 'broken', 'canceled')),
    -- the agreement's date: the debt is reckoned on it
    date              date NOT NULL,
    installment_count integer NOT NULL CONSTRAINT agreements_installment_count_check
                          CHECK (installment_count BETWEEN 1 AND 120),
    first_due_date    date NOT NULL,
    interval_months   integer NOT NULL CONSTRAINT agreements_interval_months_check
                          CHECK (interval_months BETWEEN 1 AND 12),
    late_fee_waiver   numeric(5,2) NOT NULL CONSTRAINT agreements_late_fee_waiver_check
                          CHECK (late_fee_waiver BETWEEN 0 AND 100),
    interest_waiver   numeric(5,2) NOT NULL CONSTRAINT agreements_interest_waiver_check
                          CHECK (interest_waiver BETWEEN 0 AND 100),
    discount          numeric(14,2) NOT NULL CONSTRAINT agreements_discount_check CHECK (discount >= 0),
    principal         numeric(14,2) NOT NULL,
    late_fee          numeric(14,2) NOT NULL,
    late_fee_waived   numeric(14,2) NOT NULL,
    interest          numeric(14,2) NOT NULL,
    interest_waived   numeric(14,2) NOT NULL,
    total             numeric(14,2) NOT NULL CONSTRAINT agreements_total_check CHECK (total > 0),
    -- the originals, as asked for, and the installments, first to last
    invoice_ids       bigint[] NOT NULL,
    installment_ids   bigint[] NOT NULL DEFAULT '{}',
    -- each original's debt on the date (finance.AgreementDebt), with the
    -- status it had, which a cancel restores
    debts             jsonb NOT NULL,
    fulfilled_at      date,
    broken_at         date,
    -- request (POST .../break) or overdue (the nightly run)
    broken_by         text CONSTRAINT agreements_broken_by_check CHECK (broken_by IN ('request', 'overdue')),
    canceled_at       date,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, id),
    CONSTRAINT agreements_payer_fk FOREIGN KEY (company_id, payer_id) REFERENCES persons (company_id, id),
    CONSTRAINT agreements_business_fk FOREIGN KEY (company_id, business_id) REFERENCES businesses (company_id, id),
    CONSTRAINT agreements_account_fk FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id),
    CONSTRAINT agreements_broken_check CHECK ((status = 'broken') = (broken_at IS NOT NULL AND broken_by IS NOT NULL))
);
CREATE INDEX agreements_payer ON agreements (company_id, payer_id);
CREATE INDEX agreements_business ON agreements (company_id, business_id);
CREATE INDEX agreements_account ON agreements (company_id, account_id);
-- the nightly run's candidates
CREATE INDEX agreements_active ON agreements (company_id, id) WHERE status = 'active';

-- The originals carry the agreement that renegotiated them last; the
-- installments their agreement and their number in it.
ALTER TABLE invoices ADD COLUMN agreement_id bigint,
    ADD COLUMN agreement_installment integer CONSTRAINT invoices_agreement_installment_check
        CHECK (agreement_installment IS NULL OR (agreement_installment >= 1 AND agreement_id IS NOT NULL)),
    ADD CONSTRAINT invoices_agreement_fk FOREIGN KEY (company_id, agreement_id) REFERENCES agreements (company_id, id);
CREATE INDEX invoices_agreement ON invoices (company_id, agreement_id) WHERE agreement_id IS NOT NULL;

ALTER TABLE invoices DROP CONSTRAINT invoices_status_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_status_check CHECK (status IN (
    'paid', 'unpaid', 'overdue', 'in_protest', 'refunded', 'partially_paid', 'canceled', 'uncollectible',
    'renegotiated'));

-- An installment's line keeps the original invoice and line it is a share
-- of, and which part: a line, the late fee or the interest kept.
ALTER TABLE invoice_items ADD COLUMN origin_invoice_id bigint,
    ADD COLUMN origin_line_id bigint,
    ADD COLUMN agreement_part text CONSTRAINT invoice_items_agreement_part_check
        CHECK (agreement_part IN ('line', 'late_fee', 'interest')),
    ADD CONSTRAINT invoice_items_origin_invoice_fk FOREIGN KEY (company_id, origin_invoice_id) REFERENCES invoices (company_id, id),
    ADD CONSTRAINT invoice_items_origin_check CHECK ((origin_invoice_id IS NULL) = (agreement_part IS NULL)
        AND (origin_line_id IS NULL OR agreement_part = 'line'));
CREATE INDEX invoice_items_origin_invoice ON invoice_items (company_id, origin_invoice_id) WHERE origin_invoice_id IS NOT NULL;

-- A renegotiated invoice is not open (storage's invoiceOpen): moving an
-- invoice to or from renegotiated changes its contract's payment status,
-- so the contract is marked. invoices_open_status (migration 0017) keeps
-- its predicate: invoiceOpen, which leaves renegotiated out too, still
-- implies it.
DROP TRIGGER invoices_overdue_mark_contracts ON invoices;
CREATE TRIGGER invoices_overdue_mark_contracts AFTER UPDATE ON invoices
    FOR EACH ROW
    WHEN ((OLD.contract_id IS NOT NULL OR NEW.contract_id IS NOT NULL)
        AND (OLD.contract_id, OLD.due_date, OLD.status = 'canceled',
             NOT OLD.paid AND OLD.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible', 'renegotiated'))
            IS DISTINCT FROM
            (NEW.contract_id, NEW.due_date, NEW.status = 'canceled',
             NOT NEW.paid AND NEW.status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible', 'renegotiated')))
    EXECUTE FUNCTION overdue_mark_invoice_contracts();
