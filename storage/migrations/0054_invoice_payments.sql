-- The payments of an invoice as rows of their own (docs/ledger.md, "Part
-- payments"): a tenant may pay an invoice in parts, each posted to the
-- ledger in a split of its own (invoice-<id>-payment-<n>), and a whole
-- payment is the one part that settles it. Each row is what the part paid
-- (amount), the principal it paid down (its share of the invoice's
-- total), its late fee, interest and discount, the day the payer paid and
-- the day the money was credited, who recorded it and when; an undone
-- part keeps its row with undone_at set (the ledger keeps its entries and
-- their reversals). The invoice's paid_amount is the sum of its standing
-- parts' amounts; it is partially_paid while their principal is short of
-- its total.
CREATE TABLE invoice_payments (
    company_id  bigint NOT NULL REFERENCES companies (id),
    id          bigint GENERATED ALWAYS AS IDENTITY,
    invoice_id  bigint NOT NULL,
    -- the payment's number among the invoice's payments, as its split
    n           integer NOT NULL CONSTRAINT invoice_payments_n_check CHECK (n > 0),
    split       text NOT NULL,
    amount      numeric(14,2) NOT NULL CONSTRAINT invoice_payments_amount_check CHECK (amount >= 0),
    principal   numeric(14,2) NOT NULL,
    late_fee    numeric(14,2) NOT NULL DEFAULT 0,
    interest    numeric(14,2) NOT NULL DEFAULT 0,
    discount    numeric(14,2) NOT NULL DEFAULT 0,
    paid_at     date NOT NULL,
    credit_at   date NOT NULL,
    -- who recorded it: user (actor_id the user), job or return_file (the
    -- job), system
    actor       text NOT NULL,
    actor_id    bigint,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    undone_at   timestamptz,
    PRIMARY KEY (company_id, id),
    CONSTRAINT invoice_payments_invoice_fk FOREIGN KEY (company_id, invoice_id)
        REFERENCES invoices (company_id, id) ON DELETE CASCADE,
    CONSTRAINT invoice_payments_n_key UNIQUE (company_id, invoice_id, n)
);
-- the day an entry of a payment counts on in the informe and the DIMOB
-- (storage/declared.go) is its payment's, found by the entry's split
CREATE UNIQUE INDEX invoice_payments_split ON invoice_payments (company_id, split);

-- The settlement lines (late fee, interest, discount) of each part.
ALTER TABLE invoice_items ADD COLUMN payment_n integer;

-- The payments posted before this version, standing: one row each, the
-- whole invoice, from the invoice's amounts and its payment's split (the
-- latest split with entries standing). A payment undone before this
-- version gets no row (its invoice is no longer paid), nor does an
-- invoice marked paid whose payment was never posted.
INSERT INTO invoice_payments (company_id, invoice_id, n, split, amount, principal, late_fee, interest, discount,
    paid_at, credit_at, actor, created_at)
SELECT i.company_id, i.id, substring(s.split FROM '-payment-([0-9]+)$')::integer, s.split, i.paid_amount, i.total,
    coalesce(i.paid_late_fee, 0), coalesce(i.paid_interest, 0), coalesce(i.paid_discount, 0),
    i.paid_at, coalesce(i.credit_at, i.paid_at), 'system', s.created_at
FROM invoices i
JOIN LATERAL (
    SELECT t.split, min(t.created_at) AS created_at FROM transactions t
    WHERE t.company_id = i.company_id AND t.invoice_id = i.id AND t.mode = 'invoice'
      AND t.split ~ '-payment-[0-9]+$'
      AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)
    -- the latest by its number: as text, payment-10 sorts below payment-9
    GROUP BY t.split ORDER BY substring(t.split FROM '-payment-([0-9]+)$')::integer DESC LIMIT 1) s ON true
WHERE i.paid AND i.paid_amount IS NOT NULL AND i.paid_at IS NOT NULL;

UPDATE invoice_items l SET payment_n = p.n
FROM invoice_payments p
WHERE l.company_id = p.company_id AND l.invoice_id = p.invoice_id AND l.kind <> 'line';
