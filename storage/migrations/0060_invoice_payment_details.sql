-- What a part payment says besides its amounts (docs/ledger.md, "Part
-- payments"): how the payer paid it (method: the spec's billing-method
-- enum, optional; a bank's return file books a boleto, ticket), what the
-- payer paid beyond what was due on its day and that nothing books
-- (over_paid: a payment by the discount date of more than the discounted
-- amount settles the invoice with the discount, and the excess is in an
-- over_payment alert, to be given back or applied), and why it was undone
-- (undo_reason, optional, with undone_at).
ALTER TABLE invoice_payments
    ADD COLUMN method text CONSTRAINT invoice_payments_method_check
        CHECK (method IN ('ticket', 'cash', 'deposit', 'pix', 'ted', 'credit', 'debit', 'check', 'debit_account')),
    ADD COLUMN over_paid numeric(14,2) NOT NULL DEFAULT 0 CONSTRAINT invoice_payments_over_paid_check CHECK (over_paid >= 0),
    ADD COLUMN undo_reason text CONSTRAINT invoice_payments_undo_reason_check
        CHECK (undo_reason IS NULL OR (undone_at IS NOT NULL AND length(undo_reason) <= 500));
